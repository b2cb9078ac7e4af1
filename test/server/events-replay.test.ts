/**
 * `GET /events` replays (`Last-Event-ID`) on sockets that never read, against a real `mdcli lite`:
 * the server writes a replay as the socket drains, so a stalled subscriber holds a frame or two
 * in the server, not the ring's worth; what each stream holds unsent is the server's own metric
 * (`mdcli_events_buffered_bytes`: node's buffers, which are what a stalled socket would grow).
 * Four sockets, two rounds of 140 changes, each wait bounded.
 */
import {expect} from 'chai'
import {connect, type Socket} from 'node:net'
import {http, useLite} from '../helpers/lite.js'

const DS = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${n},PROD)`
/** Changes of ~120 KB: 140 of them fill the ring's 16 MiB byte budget. */
const VALUE_BYTES = 120 * 1024
const CHANGES = 140
const SOCKETS = 4

describe('GET /events: a replay to a subscriber that does not read', function () {
  this.timeout(180_000)
  const lite = useLite()
  const sockets: Socket[] = []
  after(() => sockets.forEach((s) => s.destroy()))

  const ingest = async (round: string) => {
    for (let i = 0; i < CHANGES; i += 10) {
      const proposals = Array.from({length: 10}, (_, k) => ({
        entityUrn: DS(`replay.${round}.${i + k}`),
        aspectName: 'datasetProperties',
        changeType: 'UPSERT',
        aspect: {json: {name: `${round}${i + k}`, description: String((i + k) % 10).repeat(VALUE_BYTES)}},
      }))
      const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {proposals}})
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
    }
  }
  const metric = async (name: string): Promise<number> => {
    const r = await http(`${lite.url}/metrics`)
    expect(r.status).to.equal(200)
    const m = new RegExp(`^${name} (\\d+(?:\\.\\d+)?)$`, 'm').exec(String(r.body))
    if (!m) throw new Error(`${name} is not in /metrics`)
    return Number(m[1])
  }
  const until = async (cond: () => Promise<boolean>, what: string) => {
    for (let i = 0; i < 150; i++) {
      if (await cond()) return
      await new Promise((r) => setTimeout(r, 200))
    }
    throw new Error(`gave up waiting: ${what}`)
  }

  it('holds little per stalled socket, and cuts one whose next change the ring has dropped', async () => {
    await ingest('a')
    const u = new URL(lite.url)
    for (let i = 0; i < SOCKETS; i++) {
      const s = connect(Number(u.port), u.hostname)
      sockets.push(s)
      s.on('error', () => {})
      await new Promise<void>((resolve) => s.once('connect', () => resolve()))
      s.write(`GET /events HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${lite.token}\r\nLast-Event-ID: 0\r\n\r\n`)
      // Never read: the kernel's buffers fill, and then the server's would.
      s.pause()
    }
    await until(async () => (await metric('mdcli_events_subscribers')) === SOCKETS, 'every stalled stream open')
    // A moment for writes that wait on nothing to have happened (the old replay wrote everything at once).
    await new Promise((r) => setTimeout(r, 500))
    const buffered = await metric('mdcli_events_buffered_bytes')
    // Whole, the replay is ~16 MiB a socket; written as it drains, a socket's buffer and a frame.
    expect(buffered).to.be.below(SOCKETS * 1024 * 1024)

    // The ring turns over: each stalled replay's next change is gone, and the stream is cut (it
    // would resume with Last-Event-ID and be told of the gap).
    await ingest('b')
    await until(async () => (await metric('mdcli_events_subscribers')) === 0, 'stalled streams cut')
  })
})
