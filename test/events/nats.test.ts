import {expect} from 'chai'
import {jetstreamManager} from '@nats-io/jetstream'
import {connect, type NatsConnection} from '@nats-io/transport-node'
import {cleanup, http, runCli, startLite, tempDir, type LiteProcess} from '../helpers/lite.js'
import {IN_CI, portAnswers, requireNats, skipWithReason, uniqueName} from '../helpers/requires.js'
import {spawn} from 'node:child_process'
import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {createServer} from 'node:net'
import {datasetUrn, mcpRecord, writeJson, writeRecipe} from '../ingest/helpers.js'

const NATS_SERVER = process.env.MDCLI_TEST_NATS_SERVER_BIN ?? '/usr/sbin/nats-server'

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer()
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as {port: number}).port
      srv.close(() => resolve(port))
    })
  })
}

const enc = encodeURIComponent

describe('events: the nats sink and a server that consumes the queue', function () {
  this.timeout(180_000)
  let url: string
  let nc: NatsConnection
  let dir: string
  const streams: string[] = []

  before(async function () {
    url = await requireNats(this)
    nc = await connect({servers: url.replace(/^nats:\/\//, '')})
    dir = tempDir('mdcli-nats-')
  })
  after(async () => {
    if (nc) {
      const jsm = await jetstreamManager(nc)
      for (const s of streams) await jsm.streams.delete(s).catch(() => undefined)
      await nc.close()
    }
    if (dir) cleanup(dir)
  })

  const newStream = (): string => {
    const s = uniqueName('MDCLI_T').replace(/[^A-Za-z0-9_]/g, '_')
    streams.push(s)
    return s
  }
  const records = (prefix: string, n: number) =>
    Array.from({length: n}, (_, i) => ({
      ...mcpRecord(datasetUrn(`${prefix}.t${i}`), 'datasetProperties', {name: `t${i}`, description: `table ${i}`, customProperties: {}, tags: []}),
      // Observed once: a re-publish of the same records is then byte for byte the same.
      systemMetadata: {lastObserved: 1_700_000_000_000, runId: `${prefix}-run`},
    }))
  // Streams may not share subjects: each test's stream gets its own.
  const subjectOf = (stream: string) => `${stream.toLowerCase()}.proposals`
  const consume = (stream: string) => ['--consume', `${url}/${stream}`, '--consume-subject', subjectOf(stream)]
  const natsRecipe = (name: string, file: string, stream: string, extra: Record<string, unknown> = {}) =>
    writeRecipe(dir, {source: {type: 'file', config: {path: file}}, sink: {type: 'nats', config: {server: url, stream, subject: subjectOf(stream), ...extra}}, run_id: `${name}-run`}, `${name}.yml`)
  const messages = async (stream: string): Promise<number> => Number((await (await jetstreamManager(nc)).streams.info(stream)).state.messages)
  const stored = async (lite: LiteProcess, urn: string, version?: number) =>
    http(`${lite.url}/aspects/${enc(urn)}?aspect=datasetProperties${version === undefined ? '' : `&version=${version}`}`, {token: lite.token})

  it('publishes every proposal once (a re-run is de-duplicated); a consuming lite writes them all, and a replay makes no new version', async () => {
    const stream = newStream()
    const file = writeJson(dir, 'pub.json', records('pub', 200))
    const env = {...process.env, METADATA_TELEMETRY_ENABLED: 'false'}
    const r = await runCli(['ingest', '-c', natsRecipe('pub', file, stream), '--json'], {env})
    expect(r.code, r.stderr).to.equal(0)
    expect(await messages(stream)).to.equal(200)
    const again = await runCli(['ingest', '-c', natsRecipe('pub', file, stream)], {env})
    expect(again.code, again.stderr).to.equal(0)
    expect(await messages(stream)).to.equal(200)

    const lite = await startLite({args: consume(stream)})
    const caughtUp = async (): Promise<boolean> => {
      for (let i = 0; i < 150; i++) {
        const info = await (await jetstreamManager(nc)).consumers.info(stream, 'mdcli-lite').catch(() => undefined)
        if (info && info.num_pending === 0 && info.num_ack_pending === 0 && info.delivered.stream_seq >= 200) return true
        await new Promise((res) => setTimeout(res, 200))
      }
      return false
    }
    try {
      expect(await caughtUp()).to.equal(true)
      for (const i of [0, 57, 199]) expect((await stored(lite, datasetUrn(`pub.t${i}`))).status).to.equal(200)
      const e = await http(`${lite.url}/entitiesV2/${enc(datasetUrn('pub.t57'))}`, {token: lite.token})
      expect(JSON.stringify(e.body)).to.include('table 57')
    } finally {
      await lite.stop()
    }
    // Replaying the whole stream into the same store: same values, so no new versions.
    await (await jetstreamManager(nc)).consumers.delete(stream, 'mdcli-lite')
    const replay = await startLite({storeDir: lite.storeDir, home: lite.home, args: consume(stream)})
    try {
      expect(await caughtUp()).to.equal(true)
      expect((await stored(replay, datasetUrn('pub.t57'))).status).to.equal(200)
      expect((await stored(replay, datasetUrn('pub.t57'), 1)).status).to.equal(404)
    } finally {
      await replay.stop()
      cleanup(replay.storeDir, replay.home)
    }
  })

  it('a proposal the catalog refuses goes to the dead-letter subject with the reason; the rest are written', async () => {
    const stream = newStream()
    const good = records('dl', 5)
    const file = writeJson(dir, 'dl.json', good)
    const env = {...process.env, METADATA_TELEMETRY_ENABLED: 'false'}
    const pub = await runCli(['ingest', '-c', natsRecipe('dl', file, stream)], {env})
    expect(pub.code, pub.stdout + pub.stderr).to.equal(0)
    // A record the sink would not send (it validates first), as another publisher might.
    const {jetstream} = await import('@nats-io/jetstream')
    await jetstream(nc).publish(subjectOf(stream), JSON.stringify(mcpRecord(datasetUrn('dl.bad'), 'noSuchAspect', {x: 1})))
    await jetstream(nc).publish(subjectOf(stream), '{not json')
    const lite = await startLite({args: consume(stream)})
    try {
      const jsm = await jetstreamManager(nc)
      let dead: any[] = []
      for (let i = 0; i < 100 && dead.length < 2; i++) {
        dead = []
        const last = Number((await jsm.streams.info(stream)).state.last_seq)
        for (let seq = 1; seq <= last; seq++) {
          const m = await jsm.streams.getMessage(stream, {seq}).catch(() => null)
          if (m?.subject.endsWith('.dead')) dead.push(m.json())
        }
        if (dead.length < 2) await new Promise((res) => setTimeout(res, 200))
      }
      expect(dead).to.have.length(2)
      const unknown = dead.find((d) => /noSuchAspect/.test(d.reason.message))
      expect(unknown.reason.code).to.be.a('string')
      expect(JSON.parse(unknown.record).entityUrn).to.equal(datasetUrn('dl.bad'))
      expect(dead.some((d) => /not JSON/.test(d.reason.message))).to.equal(true)
      for (let i = 0; i < 5; i++) expect((await stored(lite, datasetUrn(`dl.t${i}`))).status).to.equal(200)
    } finally {
      await lite.stop()
    }
  })

  it('kill -9 of the consuming server in the middle of 100,000 proposals loses nothing and writes nothing twice', async function () {
    this.timeout(900_000)
    const stream = newStream()
    const n = 100_000
    const file = writeJson(dir, 'crash.json', records('crash', n))
    const env = {...process.env, METADATA_TELEMETRY_ENABLED: 'false'}
    expect((await runCli(['ingest', '-c', natsRecipe('crash', file, stream)], {env, timeoutMs: 600_000})).code).to.equal(0)
    const lite = await startLite({args: consume(stream)})
    // Kill as soon as some, not all, are written.
    for (let i = 0; i < 1200; i++) {
      if ((await stored(lite, datasetUrn('crash.t3000'))).status === 200) break
      await new Promise((res) => setTimeout(res, 50))
    }
    await lite.kill()
    const again = await startLite({storeDir: lite.storeDir, home: lite.home, args: consume(stream)})
    try {
      let ok = false
      for (let i = 0; i < 2400 && !ok; i++) {
        ok = (await stored(again, datasetUrn(`crash.t${n - 1}`))).status === 200
        if (!ok) await new Promise((res) => setTimeout(res, 200))
      }
      expect(ok).to.equal(true)
      // What the killed server took and never acknowledged comes back after the ack wait.
      let total = 0
      for (let i = 0; i < 600 && total !== n; i++) {
        const search = await http(`${again.url}/api/graphql`, {token: again.token, body: {query: 'query { search(input: {type: DATASET, query: "*", start: 0, count: 1}) { total } }'}})
        total = search.body.data.search.total
        if (total !== n) await new Promise((res) => setTimeout(res, 200))
      }
      expect(total).to.equal(n)
      for (const i of [0, 2999, 3000, 50_000, n - 1]) {
        expect((await stored(again, datasetUrn(`crash.t${i}`))).status, `t${i}`).to.equal(200)
        expect((await stored(again, datasetUrn(`crash.t${i}`), 1)).status, `t${i} has no second version`).to.equal(404)
      }
    } finally {
      await again.stop()
      cleanup(again.storeDir, again.home)
    }
  })

  it('a broker that goes away mid-run: the records it never acknowledged are reported and the run exits non-zero', async function () {
    if (!existsSync(NATS_SERVER)) {
      if (IN_CI) throw new Error(`${NATS_SERVER} is missing`)
      skipWithReason(this, `no nats-server binary at ${NATS_SERVER}`)
    }
    // A broker of this test's own, so stopping it disturbs nobody.
    const port = await freePort()
    const store = tempDir('mdcli-nats-js-')
    const broker = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], {stdio: 'ignore'})
    try {
      let up = false
      for (let i = 0; i < 50 && !up; i++) {
        up = await portAnswers('127.0.0.1', port, 200)
        if (!up) await new Promise((res) => setTimeout(res, 100))
      }
      expect(up).to.equal(true)
      const n = 20_000
      const file = writeJson(dir, 'away.json', records('away', n))
      const run = runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'file', config: {path: file}}, sink: {type: 'nats', config: {server: `nats://127.0.0.1:${port}`, stream: 'AWAY', subject: 'away.proposals', retry_max_times: 1, retry_min_wait_sec: 0.1, timeout_sec: 2}}}, 'away.yml'), '--json'], {env: {...process.env, METADATA_TELEMETRY_ENABLED: 'false'}, timeoutMs: 120_000})
      const watcher = await connect({servers: `127.0.0.1:${port}`})
      for (let i = 0; i < 200; i++) {
        const info = await (await jetstreamManager(watcher)).streams.info('AWAY').catch(() => undefined)
        if (info && info.state.messages > 500) break
        await new Promise((res) => setTimeout(res, 50))
      }
      await watcher.close().catch(() => undefined)
      broker.kill('SIGKILL')
      const r = await run
      expect(r.code).to.not.equal(0)
      const out = JSON.parse(r.stdout)
      expect(out.failures, JSON.stringify(out).slice(0, 1500)).to.be.greaterThan(0)
      expect(JSON.stringify(out)).to.match(/not acknowledged/)
    } finally {
      broker.kill('SIGKILL')
      cleanup(store)
    }
  })

  it('replicas share the durable consumer: each proposal is written by one of them, none lost', async () => {
    const stream = newStream()
    const [a, b] = await Promise.all([startLite({args: consume(stream)}), startLite({args: consume(stream)})])
    try {
      const n = 10_000
      const file = writeJson(dir, 'shared.json', records('shared', n))
      expect((await runCli(['ingest', '-c', natsRecipe('shared', file, stream)], {env: {...process.env, METADATA_TELEMETRY_ENABLED: 'false'}})).code).to.equal(0)
      const jsm = await jetstreamManager(nc)
      for (let i = 0; i < 300; i++) {
        const info = await jsm.consumers.info(stream, 'mdcli-lite')
        if (info.num_pending === 0 && info.num_ack_pending === 0 && info.delivered.stream_seq >= n) break
        await new Promise((res) => setTimeout(res, 200))
      }
      const count = async (l: LiteProcess) => {
        let total = -1
        for (let i = 0; i < 50; i++) {
          const r = await http(`${l.url}/api/graphql`, {token: l.token, body: {query: 'query { search(input: {type: DATASET, query: "*", start: 0, count: 1}) { total } }'}})
          const t = r.body.data.search.total
          if (t === total) return t
          total = t
          await new Promise((res) => setTimeout(res, 200))
        }
        return total
      }
      const [ca, cb] = [await count(a), await count(b)]
      expect(ca + cb, `${ca} + ${cb}`).to.equal(n)
      expect(ca, 'replica A took a share').to.be.greaterThan(0)
      expect(cb, 'replica B took a share').to.be.greaterThan(0)
    } finally {
      await Promise.all([a.stop(), b.stop()])
      cleanup(a.storeDir, a.home, b.storeDir, b.home)
    }
  })

  it('the config file can name the queue: an events section starts the consumer without flags', async () => {
    const stream = newStream()
    const home = tempDir('mdcli-nats-home-')
    writeFileSync(join(home, '.mdclienv'), `gms: {server: null, token: null}\nevents:\n  consume: ${url}/${stream}\n  consume_subject: ${subjectOf(stream)}\n`)
    const lite = await startLite({home})
    try {
      const file = writeJson(dir, 'cfg.json', records('cfg', 20))
      expect((await runCli(['ingest', '-c', natsRecipe('cfg', file, stream)], {env: {...process.env, METADATA_TELEMETRY_ENABLED: 'false'}})).code).to.equal(0)
      expect(lite.output()).to.include(`Consuming proposals from ${url}/${stream}`)
      let ok = false
      for (let i = 0; i < 100 && !ok; i++) {
        ok = (await stored(lite, datasetUrn('cfg.t19'))).status === 200
        if (!ok) await new Promise((res) => setTimeout(res, 200))
      }
      expect(ok).to.equal(true)
    } finally {
      await lite.stop()
      cleanup(lite.storeDir, home)
    }
  })

  it('an unreachable broker is one line and a non-zero exit; a bad --consume address is refused before the server starts', async () => {
    const file = writeJson(dir, 'down.json', records('down', 3))
    const env = {...process.env, METADATA_TELEMETRY_ENABLED: 'false'}
    const r = await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'file', config: {path: file}}, sink: {type: 'nats', config: {server: 'nats://127.0.0.1:9'}}}, 'down.yml')], {env})
    expect(r.code).to.not.equal(0)
    expect(r.stderr).to.match(/Could not reach NATS at nats:\/\/127\.0\.0\.1:9/)
    const bad = await runCli(['lite', '--port', '0', '--consume', 'kafka://x:1'], {env: {...env, HOME: tempDir()}})
    expect(bad.code).to.equal(1)
    expect(bad.stderr).to.match(/Unsupported queue 'kafka'/)
  })
})
