import {expect} from 'chai'
import {jetstreamManager} from '@nats-io/jetstream'
import {connect} from '@nats-io/transport-node'
import {request} from 'undici'
import {spawn} from 'node:child_process'
import {BIN, cleanup, http, runCli, startLite, tempDir, useLite} from '../helpers/lite.js'
import {requireNats, uniqueName} from '../helpers/requires.js'
import {startTcpProxy} from '../helpers/tcp-proxy.js'
import {datasetUrn} from '../ingest/helpers.js'

const DS = datasetUrn('changelog.orders')

describe('events: the change log (GET /events, events tail, JetStream)', function () {
  this.timeout(300_000)
  const lite = useLite()
  let dir: string
  before(async () => {
    dir = tempDir('mdcli-changelog-')
    const env = lite.env()
    const gql = (query: string) => http(`${lite.url}/api/graphql`, {token: lite.token, body: {query}})
    expect((await runCli(['put', '--urn', DS, '-a', 'datasetProperties', '-d', '-'], {env, input: JSON.stringify({name: 'orders', customProperties: {}, tags: []})})).code).to.equal(0)
    expect((await gql('mutation { createTag(input: {id: "pii", name: "pii"}) }')).status).to.equal(200)
    const add = await gql(`mutation { addTags(input: {tagUrns: ["urn:li:tag:pii"], resourceUrn: "${DS}"}) }`)
    expect(add.body.errors, JSON.stringify(add.body)).to.equal(undefined)
    expect((await runCli(['delete', '--urn', DS, '--force'], {env})).code).to.equal(0)
  })
  after(() => cleanup(dir))

  it('events tail replays and follows changes with DataHub MCL shape and entity change events, filtered', async () => {
    const r = await runCli(['events', 'tail', '--since', '0', '--entity-type', 'dataset', '--json', '--limit', '3'], {env: lite.env(), timeoutMs: 30_000})
    expect(r.code, r.stderr).to.equal(0)
    const changes = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(changes.map((c) => [c.mcl.changeType, c.mcl.aspectName])).to.deep.equal([
      ['UPSERT', 'datasetProperties'],
      ['UPSERT', 'globalTags'],
      ['UPSERT', 'status'],
    ])
    for (const c of changes) expect(c.mcl).to.include.keys('entityType', 'entityUrn', 'changeType', 'aspect', 'created', 'systemMetadata')
    expect(JSON.parse(changes[1].mcl.aspect.value).tags).to.deep.equal([{tag: 'urn:li:tag:pii'}])
    expect(changes[1].changeEvents.some((e: any) => e.category === 'TAG' && e.operation === 'ADD')).to.equal(true)
    expect(JSON.parse(changes[2].mcl.aspect.value)).to.deep.equal({removed: true})
    expect(changes[2].mcl.previousAspectValue === undefined || JSON.parse(changes[2].mcl.previousAspectValue.value).removed === false).to.equal(true)
    expect(changes.every((c) => c.id > 0)).to.equal(true)
  })

  it('events tail refuses an unknown entity type, and fails with a line saying how to resume when the server goes away', async () => {
    const typo = await runCli(['events', 'tail', '--entity-type', 'datset'], {env: lite.env(), timeoutMs: 30_000})
    expect(typo.code).to.equal(1)
    expect(typo.stderr).to.match(/Unknown entity type 'datset'\. Did you mean 'dataset'\?/)
    const own = await startLite()
    try {
      const env = own.env()
      expect((await runCli(['put', '--urn', DS, '-a', 'datasetProperties', '-d', '-'], {env, input: JSON.stringify({name: 'orders', customProperties: {}, tags: []})})).code).to.equal(0)
      const tail = spawn(process.execPath, [BIN, 'events', 'tail', '--since', '0', '--json'], {env, stdio: ['ignore', 'pipe', 'pipe']})
      let stdout = ''
      let stderr = ''
      tail.stderr.on('data', (d) => (stderr += d))
      const ended = new Promise<number | null>((resolve) => tail.once('exit', (code) => resolve(code)))
      // Once a change is printed, the server stops under the tail.
      await new Promise<void>((resolve, reject) => {
        tail.stdout.on('data', (d) => {
          stdout += d
          if (stdout.includes('\n')) resolve()
        })
        tail.once('exit', () => reject(new Error(`events tail ended early: ${stderr}`)))
      })
      await own.stop()
      const r = {code: await ended, stdout, stderr}
      expect(r.code, r.stdout + r.stderr).to.equal(1)
      expect(r.stderr).to.match(/closed the change stream after [1-9]\d* change\(s\); resume with `mdcli events tail --since \d+`/)
    } finally {
      cleanup(own.storeDir, own.home)
    }
  })

  it('events tail --aspect shows the hard delete of an entity whose aspect it follows', async () => {
    const env = lite.env()
    const urn = datasetUrn('changelog.hard')
    expect((await runCli(['put', '--urn', urn, '-a', 'globalTags', '-d', '-'], {env, input: JSON.stringify({tags: [{tag: 'urn:li:tag:pii'}]})})).code).to.equal(0)
    expect((await runCli(['delete', '--urn', urn, '--hard', '--force'], {env})).code).to.equal(0)
    const r = await runCli(['events', 'tail', '--since', '0', '--aspect', 'globalTags', '--urn-prefix', urn, '--json', '--limit', '2'], {env, timeoutMs: 30_000})
    expect(r.code, r.stderr).to.equal(0)
    const changes = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(changes.map((c) => [c.mcl.changeType, c.mcl.aspectName ?? null])).to.deep.equal([
      ['UPSERT', 'globalTags'],
      ['DELETE', null],
    ])
  })

  it('event ids are never reused after a restart: resuming from an id of the stopped process is a gap, then every change since', async () => {
    let own = await startLite()
    const {storeDir, home} = own
    const put = (name: string) => runCli(['put', '--urn', datasetUrn(`restart.${name}`), '-a', 'status', '-d', '-'], {env: own.env(), input: '{"removed": false}'})
    try {
      expect((await put('a')).code).to.equal(0)
      const before = await runCli(['events', 'tail', '--since', '0', '--urn-prefix', datasetUrn('restart.a'), '--json', '--limit', '1'], {env: own.env(), timeoutMs: 30_000})
      expect(before.code, before.stderr).to.equal(0)
      const lastOld: number = JSON.parse(before.stdout).id
      await own.stop()
      own = await startLite({storeDir, home})
      expect((await put('b')).code).to.equal(0)
      expect((await put('c')).code).to.equal(0)
      const after = await runCli(['events', 'tail', '--since', String(lastOld), '--urn-prefix', 'urn:li:dataset:(urn:li:dataPlatform:hive,restart.', '--json', '--limit', '2'], {env: own.env(), timeoutMs: 30_000})
      expect(after.code, after.stderr).to.equal(0)
      const changes = after.stdout.trim().split('\n').map((l) => JSON.parse(l))
      expect(changes.map((c) => c.mcl.entityUrn)).to.deep.equal([datasetUrn('restart.b'), datasetUrn('restart.c')])
      expect(changes.every((c) => c.id > lastOld)).to.equal(true)
      expect(after.stderr).to.match(/Warning: some changes after \d+ are no longer held/)
    } finally {
      await own.stop()
      cleanup(storeDir, home)
    }
  })

  it('GET /events needs a token, filters by aspect and resumes after Last-Event-ID', async () => {
    const anon = await request(`${lite.url}/events`)
    expect(anon.statusCode).to.equal(401)
    await anon.body.dump()
    const ac = new AbortController()
    const res = await request(`${lite.url}/events?aspect=globalTags`, {headers: {authorization: `Bearer ${lite.token}`, 'last-event-id': '0'}, signal: ac.signal})
    expect(res.statusCode).to.equal(200)
    expect(res.headers['content-type']).to.match(/text\/event-stream/)
    let text = ''
    for await (const chunk of res.body) {
      text += chunk.toString()
      if (/event: change[\s\S]*\n\n/.test(text)) break
    }
    ac.abort()
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))
    expect(ids.length).to.be.greaterThan(0)
    expect(text).to.include('"aspectName":"globalTags"')
    expect(text).to.not.include('"aspectName":"datasetProperties"')
    // Resuming after the last id seen replays nothing already seen.
    const ac2 = new AbortController()
    const again = await request(`${lite.url}/events?aspect=globalTags`, {headers: {authorization: `Bearer ${lite.token}`, 'last-event-id': String(ids.at(-1))}, signal: ac2.signal})
    const first = (await again.body[Symbol.asyncIterator]().next()).value.toString()
    ac2.abort()
    expect(first).to.not.include('event: change')
  })

  it('lite --changelog publishes every committed change to JetStream', async function () {
    const url = await requireNats(this)
    const stream = uniqueName('MDCLI_CL').replace(/[^A-Za-z0-9_]/g, '_')
    const subject = `${stream.toLowerCase()}.changelog`
    const nc = await connect({servers: url.replace(/^nats:\/\//, '')})
    // --changelog needs a store directory, whatever store the suite runs on.
    const pub = await startLite({storeDir: tempDir('mdcli-store-'), args: ['--changelog', `${url}/${stream}`, '--changelog-subject', subject]})
    try {
      const urn = datasetUrn('changelog.js')
      expect((await runCli(['put', '--urn', urn, '-a', 'status', '-d', '-'], {env: pub.env(), input: '{"removed": false}'})).code).to.equal(0)
      const jsm = await jetstreamManager(nc)
      let msg: any
      for (let i = 0; i < 50 && !msg; i++) {
        msg = await jsm.streams.getMessage(stream, {last_by_subj: subject}).catch(() => null)
        if (!msg) await new Promise((r) => setTimeout(r, 200))
      }
      const body = msg.json()
      expect(body.mcl).to.include({entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'status'})
      expect(JSON.parse(body.mcl.aspect.value)).to.deep.equal({removed: false})
    } finally {
      await pub.stop()
      cleanup(pub.storeDir, pub.home)
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined)
      await nc.close()
    }
  })

  it('lite --changelog is at least once: changes not acknowledged (broker gone, or kill -9) are published at the next start, once', async function () {
    const url = await requireNats(this)
    const stream = uniqueName('MDCLI_CLO').replace(/[^A-Za-z0-9_]/g, '_')
    const subject = `${stream.toLowerCase()}.changelog`
    const nc = await connect({servers: url.replace(/^nats:\/\//, '')})
    const args = ['--changelog', `${url}/${stream}`, '--changelog-subject', subject]
    let lite = await startLite({storeDir: tempDir('mdcli-store-'), args})
    const storeDir = lite.storeDir
    const home = lite.home
    const jsm = await jetstreamManager(nc)
    const put = (name: string) => runCli(['put', '--urn', datasetUrn(`outbox.${name}`), '-a', 'status', '-d', '-'], {env: lite.env(), input: '{"removed": false}'})
    // Every change-log message of this test's datasets on the stream, as urns (the first start's
    // own changes are there too).
    const logged = async (): Promise<string[]> => {
      const out: string[] = []
      const info = await jsm.streams.info(stream).catch(() => undefined)
      if (!info) return out
      for (let seq = Number(info.state.first_seq); seq <= Number(info.state.last_seq); seq++) {
        const m = await jsm.streams.getMessage(stream, {seq}).catch(() => null)
        const urn = m?.json<any>().mcl.entityUrn
        if (urn?.includes(',outbox.')) out.push(urn)
      }
      return out
    }
    const until = async (cond: () => Promise<boolean>) => {
      for (let i = 0; i < 100; i++) {
        if (await cond()) return
        await new Promise((r) => setTimeout(r, 200))
      }
    }
    try {
      expect((await put('a')).code).to.equal(0)
      await until(async () => (await logged()).length === 1)
      expect(await logged()).to.deep.equal([datasetUrn('outbox.a')])

      // The broker loses the stream: the commit stands, its publish fails, and the publisher
      // makes the stream again and publishes it.
      await jsm.streams.delete(stream)
      expect((await put('b')).code).to.equal(0)
      await until(async () => lite.output().includes('not published'))
      expect(lite.output()).to.contain('not published')
      await until(async () => (await logged()).includes(datasetUrn('outbox.b')))
      await lite.stop()

      lite = await startLite({args, storeDir, home})
      await until(async () => (await logged()).includes(datasetUrn('outbox.b')))
      expect(await logged()).to.deep.equal([datasetUrn('outbox.b')])

      // Killed right after a commit: whether or not the publish got out, the next start makes sure, once.
      expect((await put('c')).code).to.equal(0)
      await lite.kill()
      lite = await startLite({args, storeDir, home})
      await until(async () => (await logged()).includes(datasetUrn('outbox.c')))
      await new Promise((r) => setTimeout(r, 500))
      expect(await logged()).to.deep.equal([datasetUrn('outbox.b'), datasetUrn('outbox.c')])
    } finally {
      await lite.stop()
      cleanup(storeDir, home)
      await jsm.streams.delete(stream).catch(() => undefined)
      await nc.close()
    }
  })

  it('lite --changelog publishes strictly in commit order: a change the broker refuses holds back the later ones until it goes out', async function () {
    const url = await requireNats(this)
    const stream = `fixev_order_${uniqueName('o').replace(/[^A-Za-z0-9_]/g, '_')}`
    const subject = `${stream}.changelog`
    const nc = await connect({servers: url.replace(/^nats:\/\//, '')})
    const jsm = await jetstreamManager(nc)
    // Messages up to 64 KiB: the first start's changes fit, a 100 KB description does not.
    await jsm.streams.add({name: stream, subjects: [subject], max_msg_size: 64 * 1024})
    // --changelog needs a store directory, whatever store the suite runs on.
    const pub = await startLite({storeDir: tempDir('mdcli-store-'), args: ['--changelog', `${url}/${stream}`, '--changelog-subject', subject]})
    const urnsOnStream = async (): Promise<string[]> => {
      const info = await jsm.streams.info(stream)
      const out: string[] = []
      for (let seq = Number(info.state.first_seq); seq <= Number(info.state.last_seq); seq++) {
        const m = await jsm.streams.getMessage(stream, {seq}).catch(() => null)
        if (m) out.push(m.json<any>().mcl.entityUrn)
      }
      return out
    }
    const until = async (cond: () => Promise<boolean> | boolean) => {
      for (let i = 0; i < 150 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 200))
    }
    try {
      const big = datasetUrn('order.big')
      const small = datasetUrn('order.small')
      expect((await runCli(['put', '--urn', big, '-a', 'datasetProperties', '-d', '-'], {env: pub.env(), input: JSON.stringify({name: 'big', description: 'x'.repeat(100_000), customProperties: {}, tags: []})})).code).to.equal(0)
      expect((await runCli(['put', '--urn', small, '-a', 'status', '-d', '-'], {env: pub.env(), input: '{"removed": false}'})).code).to.equal(0)
      await until(() => pub.output().includes('not published'))
      expect(pub.output()).to.match(/order\.big.*not published/)
      // Longer than the old publisher's retries of one change (~3 s), after which it went on without it.
      await new Promise((r) => setTimeout(r, 5000))
      expect(await urnsOnStream()).to.not.include(small)
      // The broker takes it now: both go out, in the order they were committed.
      const info = await jsm.streams.info(stream)
      await jsm.streams.update(stream, {...info.config, max_msg_size: 1024 * 1024})
      await until(async () => (await urnsOnStream()).includes(small))
      const urns = await urnsOnStream()
      expect(urns.filter((u) => u === big || u === small)).to.deep.equal([big, small])
    } finally {
      await pub.stop()
      cleanup(pub.storeDir, pub.home)
      await jsm.streams.delete(stream).catch(() => undefined)
      await nc.close()
    }
  })

  it('lite --changelog rides out a broker outage: /health says so, what waited goes out in order, and a stop does not wait on the broker', async function () {
    const url = await requireNats(this)
    const nats = new URL(url)
    const proxy = await startTcpProxy({host: nats.hostname, port: Number(nats.port || 4222)})
    const stream = `fixev_outage_${uniqueName('o').replace(/[^A-Za-z0-9_]/g, '_')}`
    const subject = `${stream}.changelog`
    const nc = await connect({servers: url.replace(/^nats:\/\//, '')})
    const jsm = await jetstreamManager(nc)
    const args = ['--changelog', `nats://127.0.0.1:${proxy.port}/${stream}`, '--changelog-subject', subject]
    let pub = await startLite({storeDir: tempDir('mdcli-store-'), args})
    const {storeDir, home} = pub
    const put = (name: string) => runCli(['put', '--urn', datasetUrn(`outage.${name}`), '-a', 'status', '-d', '-'], {env: pub.env(), input: '{"removed": false}'})
    const ours = async (): Promise<string[]> => {
      const info = await jsm.streams.info(stream)
      const out: string[] = []
      for (let seq = Number(info.state.first_seq); seq <= Number(info.state.last_seq); seq++) {
        const urn = (await jsm.streams.getMessage(stream, {seq}).catch(() => null))?.json<any>().mcl.entityUrn
        if (urn?.includes(',outage.')) out.push(urn.replace(/^.*,outage\.([^,]+),.*$/, '$1'))
      }
      return out
    }
    const health = async () => (await request(`${pub.url}/health`).then(async (r) => ({status: r.statusCode, body: (await r.body.json()) as any})))
    const until = async (cond: () => Promise<boolean>, what: string) => {
      for (let i = 0; i < 150; i++) {
        if (await cond()) return
        await new Promise((r) => setTimeout(r, 200))
      }
      throw new Error(`gave up waiting: ${what}\n${pub.output().slice(-2000)}`)
    }
    try {
      expect((await put('a')).code).to.equal(0)
      await until(async () => (await ours()).includes('a'), 'a published')
      expect((await health()).status).to.equal(200)

      await proxy.cut()
      expect((await put('b')).code).to.equal(0)
      expect((await put('c')).code).to.equal(0)
      await until(async () => (await health()).status === 503, '/health failing')
      const down = await health()
      expect(down.body.checks.changelog.ok).to.equal(false)
      expect(down.body.checks.changelog.reason).to.match(/not publishing the change log/)
      // Longer than the old publisher's three reconnects, after which it never published again.
      await new Promise((r) => setTimeout(r, 5000))
      await proxy.restore()
      await until(async () => (await ours()).includes('c'), 'b and c published once the broker is back')
      expect(await ours()).to.deep.equal(['a', 'b', 'c'])
      await until(async () => (await health()).status === 200, '/health passing again')

      // Down again with changes waiting: the stop leaves them in the outbox instead of retrying
      // each (the old stop: ~3 s a change); the next start publishes them first, in order.
      await proxy.cut()
      for (const n of ['d', 'e', 'f', 'g', 'h', 'i']) expect((await put(n)).code).to.equal(0)
      await pub.stop()
      expect(pub.output()).to.match(/[1-9]\d* changes not yet published stay in the outbox/)
      await proxy.restore()
      pub = await startLite({storeDir, home, args})
      await until(async () => (await ours()).includes('i'), 'the stop\'s leftovers published at the next start')
      expect(await ours()).to.deep.equal(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'])
    } finally {
      await pub.stop()
      await proxy.close()
      cleanup(storeDir, home)
      await jsm.streams.delete(stream).catch(() => undefined)
      await nc.close()
    }
  })
})
