/**
 * The change-log publisher's memory bound, in process with the real pieces: a change log, an
 * outbox in a temporary directory, the shared NATS behind a TCP proxy of the test's own. Past
 * `maxQueued` the publisher keeps no copy of what waits and reads it back from the outbox.
 */
import {expect} from 'chai'
import {jetstreamManager} from '@nats-io/jetstream'
import {connect} from '@nats-io/transport-node'
import {ChangeLog} from '../../src/events/changelog.js'
import {ChangeOutbox} from '../../src/events/outbox.js'
import {publishChangeLog} from '../../src/events/publish.js'
import {cleanup, tempDir} from '../helpers/lite.js'
import {requireNats, uniqueName} from '../helpers/requires.js'
import {startTcpProxy} from '../helpers/tcp-proxy.js'

describe('events: the change-log publisher', function () {
  this.timeout(90_000)

  it('past its bound keeps waiting changes only in the outbox, and publishes all of them in order once the broker is back', async function () {
    const url = await requireNats(this)
    const nats = new URL(url)
    const proxy = await startTcpProxy({host: nats.hostname, port: Number(nats.port || 4222)})
    const stream = `fixev_bound_${uniqueName('b').replace(/[^A-Za-z0-9_]/g, '_')}`
    const subject = `${stream}.changelog`
    const dir = tempDir('mdcli-outbox-')
    const nc = await connect({servers: url.replace(/^nats:\/\//, '')})
    const jsm = await jetstreamManager(nc)
    const log = new ChangeLog()
    const outbox = ChangeOutbox.open(dir)
    const quiet = {info() {}, warn() {}}
    const pub = await publishChangeLog(log, {url: `nats://127.0.0.1:${proxy.port}/${stream}`, subject, log: quiet, outbox, maxQueued: 5})
    // What the catalog does for each write: the intent, the entries, then the change log.
    const write = (n: number) => {
      const urn = `urn:li:tag:bound-${n}`
      const seq = outbox.intent([{op: 'deleteEntity', urn}])
      const changes = [{mcl: {entityType: 'tag', entityUrn: urn, changeType: 'DELETE' as const, created: {time: n, actor: 'urn:li:corpuser:test'}}, changeEvents: [], commit: {seq, index: 0}}]
      outbox.committed(seq, changes)
      log.append(changes)
    }
    const onStream = async (): Promise<string[]> => {
      const info = await jsm.streams.info(stream)
      const out: string[] = []
      for (let seq = Number(info.state.first_seq); seq <= Number(info.state.last_seq); seq++) {
        const m = await jsm.streams.getMessage(stream, {seq}).catch(() => null)
        if (m) out.push(m.json<any>().mcl.entityUrn.slice('urn:li:tag:bound-'.length))
      }
      return out
    }
    try {
      await proxy.cut()
      for (let n = 0; n < 23; n++) write(n)
      expect(pub.status().waiting).to.equal(23)
      await proxy.restore()
      for (let i = 0; i < 150 && (await onStream()).length < 23; i++) await new Promise((r) => setTimeout(r, 200))
      expect(await onStream()).to.deep.equal(Array.from({length: 23}, (_, n) => String(n)))
      // Written while it caught up, the next one goes out too.
      write(23)
      for (let i = 0; i < 150 && (await onStream()).length < 24; i++) await new Promise((r) => setTimeout(r, 200))
      expect((await onStream()).at(-1)).to.equal('23')
      expect(pub.status().waiting).to.equal(0)
    } finally {
      await pub.close()
      outbox.close()
      await proxy.close()
      await jsm.streams.delete(stream).catch(() => undefined)
      await nc.close()
      cleanup(dir)
    }
  })
})
