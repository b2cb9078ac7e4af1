/**
 * A clean stop (SIGTERM, Ctrl-C) ends in bounded time whatever the clients do: a stalled upload
 * is cut at the deadline, busy keep-alive clients are turned away with 503, and every write that
 * was acknowledged is there after the restart.
 */
import {expect} from 'chai'
import {connect} from 'node:net'
import {Agent, fetch as undiciFetch} from 'undici'
import {cleanup, type LiteProcess, startLite, TEST_STORE, tempDir} from '../helpers/lite.js'
import {jetstreamManager} from '@nats-io/jetstream'
import {connect as natsConnect} from '@nats-io/transport-node'
import {requireNats, skipWithReason, uniqueName} from '../helpers/requires.js'

function proposal(urn: string) {
  return {proposal: {entityType: 'tag', entityUrn: urn, aspectName: 'tagProperties', changeType: 'UPSERT', aspect: {contentType: 'application/json', value: JSON.stringify({name: urn.slice('urn:li:tag:'.length)})}}}
}


/** Every acknowledged urn reads back from the restarted server. */
async function expectAllThere(lite: LiteProcess, acknowledged: string[]): Promise<void> {
  const missing: string[] = []
  for (const urn of acknowledged) {
    const res = await fetch(`${lite.url}/entitiesV2/${encodeURIComponent(urn)}`, {headers: {authorization: `Bearer ${lite.token}`}})
    if (res.status !== 200) missing.push(urn)
    await res.text()
  }
  expect(missing, `${missing.length} of ${acknowledged.length} acknowledged writes missing`).to.deep.equal([])
}
describe('server: a clean stop with busy and stalled clients', function () {
  this.timeout(90_000)
  let lite: LiteProcess | undefined
  after(async () => {
    await lite?.stop()
    if (lite) cleanup(lite.storeDir, lite.home)
  })

  it('stops within its grace period and keeps every acknowledged write', async function () {
    if (TEST_STORE !== 'embedded') skipWithReason(this, 'kill and stop timing of the embedded store; the PostgreSQL store keeps nothing in the server')
    const first = await startLite()
    lite = first
    const auth = {authorization: `Bearer ${first.token}`, 'content-type': 'application/json'}
    // A client that sends its headers and part of a body, then waits for ever.
    const stalled = connect(first.port, '127.0.0.1')
    stalled.on('error', () => {})
    stalled.write(`POST /aspects?action=ingestProposal HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${first.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"proposal":`)
    // Two clients writing back to back on kept-alive connections until the server goes.
    const acknowledged: string[] = []
    const turnedAway: number[] = []
    let running = true
    const writers = [0, 1].map(async (c) => {
      for (let i = 0; running; i++) {
        const urn = `urn:li:tag:stop-${c}-${i}`
        try {
          const res = await fetch(`${first.url}/aspects?action=ingestProposal`, {method: 'POST', headers: auth, body: JSON.stringify(proposal(urn))})
          await res.text()
          if (res.status === 200) acknowledged.push(urn)
          else turnedAway.push(res.status)
        } catch {
          return
        }
      }
    })
    while (acknowledged.length < 20) await new Promise((r) => setTimeout(r, 20))
    const started = Date.now()
    await first.stop()
    const took = Date.now() - started
    running = false
    await Promise.all(writers)
    stalled.destroy()
    // The grace period is 5 s; the checkpoint of a small store takes well under a second more.
    expect(took, `stop took ${took} ms`).to.be.lessThan(15_000)
    expect(turnedAway.every((s) => s === 503), `statuses ${turnedAway.join(',')}`).to.equal(true)

    lite = await startLite({storeDir: first.storeDir, home: first.home})
    await expectAllThere(lite, acknowledged)
  })

  it('with --changelog, answers no write it saved as failed while it stops', async function () {
    const url = await requireNats(this)
    if (lite) {
      await lite.stop()
      cleanup(lite.storeDir, lite.home)
      lite = undefined
    }
    const stream = `fixev_stop_${uniqueName('s').replace(/[^A-Za-z0-9_]/g, '_')}`
    const nc = await natsConnect({servers: url.replace(/^nats:\/\//, '')})
    try {
      // --changelog needs a store directory, whatever store the suite runs on.
      const first = await startLite({storeDir: tempDir('mdcli-store-'), args: ['--changelog', `${url}/${stream}`, '--changelog-subject', `${stream}.changelog`]})
      lite = first
      const auth = {authorization: `Bearer ${first.token}`, 'content-type': 'application/json'}
      const acknowledged: string[] = []
      const refused: Array<{status: number; body: string}> = []
      let running = true
      // Four writers back to back (at most 500 writes each) until the server goes.
      const writers = [0, 1, 2, 3].map(async (c) => {
        for (let i = 0; running && i < 500; i++) {
          const urn = `urn:li:tag:stopcl-${c}-${i}`
          try {
            const res = await fetch(`${first.url}/aspects?action=ingestProposal`, {method: 'POST', headers: auth, body: JSON.stringify(proposal(urn))})
            const body = await res.text()
            if (res.status === 200) acknowledged.push(urn)
            else refused.push({status: res.status, body})
          } catch {
            return
          }
        }
      })
      while (acknowledged.length < 40) await new Promise((r) => setTimeout(r, 20))
      await first.stop()
      running = false
      await Promise.all(writers)
      // Turned away unwritten (503) is fine; a 500 for a write the store kept is not.
      expect(refused.filter((r) => r.status !== 503), JSON.stringify(refused.slice(0, 3))).to.deep.equal([])
      expect(first.output()).to.not.match(/EBADF/)

      lite = await startLite({storeDir: first.storeDir, home: first.home, args: ['--changelog', `${url}/${stream}`, '--changelog-subject', `${stream}.changelog`]})
      await expectAllThere(lite, acknowledged)
    } finally {
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined)
      await nc.close()
    }
  })

  it('answers requests on kept-alive connections during the stop with 503 and Connection: close, never a reset', async function () {
    const server = await startLite()
    const agent = new Agent({connections: 64, keepAliveTimeout: 30_000, pipelining: 1})
    const statuses = new Map<number, number>()
    const failures: string[] = []
    let closeHeaders = 0
    let running = true
    try {
      let answered = 0
      const clients = Array.from({length: 32}, async () => {
        while (running) {
          try {
            const res = await undiciFetch(`${server.url}/health`, {dispatcher: agent})
            await res.text()
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
            if (res.status === 503 && res.headers.get('connection') === 'close') closeHeaders++
            answered++
          } catch (e) {
            const code = ((e as {cause?: {code?: string}}).cause?.code ?? (e as Error).message) as string
            // A new connection once the listener is closed is refused: the server has gone, as it should.
            if (code === 'ECONNREFUSED') return
            failures.push(`${code} (${(e as {cause?: {message?: string}}).cause?.message ?? ''})`)
            return
          }
        }
      })
      while (answered < 500) await new Promise((r) => setTimeout(r, 10))
      await server.stop()
      running = false
      await Promise.all(clients)
    } finally {
      running = false
      await agent.close()
      cleanup(server.storeDir, server.home)
    }
    expect(failures, `requests cut during the stop: ${failures.join(', ')}`).to.deep.equal([])
    expect([...statuses.keys()].every((s) => s === 200 || s === 503), `statuses ${[...statuses.entries()].join(' ')}`).to.equal(true)
    // Busy clients did reach the stop: their requests were turned away, not cut.
    expect(statuses.get(503) ?? 0).to.be.greaterThan(0)
    expect(closeHeaders).to.equal(statuses.get(503) ?? 0)
  })
})
