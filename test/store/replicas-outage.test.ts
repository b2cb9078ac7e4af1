import {expect} from 'chai'
import {existsSync} from 'node:fs'
import pg from 'pg'
import {chromium} from 'playwright-core'
import {ACCESS_CACHE_MAX_AGE_MS} from '../../src/catalog/access/cache-bound.js'
import {LISTEN_RETRY_MAX_MS} from '../../src/store/postgres/pg-store.js'
import {createTestDatabase, type TestDatabase} from '../helpers/pg.js'
import {cleanup, http, type LiteProcess, startLite} from '../helpers/lite.js'
import {IN_CI, requirePostgres, skipWithReason} from '../helpers/requires.js'
import {startTcpProxy, type TcpProxy} from '../helpers/tcp-proxy.js'

/**
 * Two `mdcli lite` replicas on one PostgreSQL database, B reaching it through a proxy of the
 * test's own. Their LISTEN connections are terminated, B's connections are cut and refused, the
 * database refuses every connection, and at last it is dropped. No timing is asserted beyond
 * "within the documented bound", with SLACK for a loaded machine.
 */
const SLACK_MS = 10_000
const CHROMIUM = process.env.MDCLI_TEST_CHROMIUM ?? '/usr/bin/chromium'
const ADMIN = 'urn:li:corpuser:datahub'
const enc = (u: string) => encodeURIComponent(u)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls `probe` until it returns true; fails with the last value seen after `limitMs`. */
async function within(limitMs: number, what: string, probe: () => Promise<boolean | {ok: boolean; seen: unknown}>): Promise<void> {
  const deadline = Date.now() + limitMs
  let seen: unknown
  for (;;) {
    const r = await probe().catch((e: unknown) => ({ok: false, seen: (e as Error).message}))
    const ok = typeof r === 'boolean' ? r : r.ok
    if (typeof r !== 'boolean') seen = r.seen
    if (ok) return
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs} ms (last seen: ${JSON.stringify(seen)})`)
    await sleep(100)
  }
}

describe('replicas across dropped and refused PostgreSQL connections', function () {
  this.timeout(300_000)
  let adminUrl = ''
  let db: TestDatabase
  let dbName = ''
  let admin: pg.Client
  let proxy: TcpProxy
  let a: LiteProcess
  let b: LiteProcess
  let token = ''
  const gql = (l: LiteProcess, query: string, tok = token) => http(`${l.url}/api/graphql`, {token: tok, body: {query}})
  const health = (l: LiteProcess) => http(`${l.url}/health`, {token: null})
  const listenerName = (l: LiteProcess) => `mdcli-listener:${l.proc.pid}`

  async function listenerBackends(l: LiteProcess): Promise<number[]> {
    const {rows} = await admin.query<{pid: number}>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2', [dbName, listenerName(l)])
    return rows.map((r) => r.pid)
  }

  async function newToken(name: string): Promise<{accessToken: string; id: string}> {
    const t = await gql(a, `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${ADMIN}", duration: ONE_DAY, name: "${name}"}) { accessToken metadata { id } } }`)
    expect(t.body.errors, JSON.stringify(t.body.errors)).to.equal(undefined)
    return {accessToken: t.body.data.createAccessToken.accessToken, id: t.body.data.createAccessToken.metadata.id}
  }

  async function revokeOnA(id: string): Promise<void> {
    const r = await gql(a, `mutation { revokeAccessToken(tokenId: "${id}") }`)
    expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
  }

  const meStatus = async (l: LiteProcess, tok: string) => (await gql(l, '{ me { corpUser { urn } } }', tok)).status
  const bothHealthy = async () => {
    const [ha, hb] = await Promise.all([health(a), health(b)])
    return {ok: ha.status === 200 && hb.status === 200, seen: [ha.body, hb.body]}
  }

  before(async function () {
    adminUrl = await requirePostgres(this)
    db = await createTestDatabase(adminUrl)
    dbName = new URL(db.url).pathname.slice(1)
    admin = new pg.Client({connectionString: adminUrl})
    await admin.connect()
    const pgAt = new URL(adminUrl)
    proxy = await startTcpProxy({host: pgAt.hostname, port: Number(pgAt.port || 5432)})
    const viaProxy = new URL(db.url)
    viaProxy.host = `127.0.0.1:${proxy.port}`
    a = await startLite({storeDir: db.url})
    b = await startLite({storeDir: viaProxy.toString()})
    token = a.token
    expect(token, a.output()).to.match(/^mdt_/)
  })

  after(async () => {
    for (const l of [a, b]) if (l) {
      await l.kill()
      cleanup(l.home)
    }
    await proxy?.close()
    await admin?.query(`ALTER DATABASE ${dbName} WITH ALLOW_CONNECTIONS true`).catch(() => undefined)
    await admin?.end()
    await db?.drop()
  })

  it('gives each replica exactly one LISTEN connection, named after its process', async () => {
    expect(await listenerBackends(a)).to.have.length(1)
    expect(await listenerBackends(b)).to.have.length(1)
    const r = await health(b)
    expect(r.status).to.equal(200)
    expect(r.body.checks).to.deep.equal({store: {ok: true}, listener: {ok: true}})
  })

  it('refuses on B, within the bound, a token revoked on A just after their LISTEN connections were terminated; each reconnects to exactly one listener, round after round', async () => {
    for (let round = 0; round < 3; round++) {
      const t = await newToken(`terminated-${round}`)
      // B verifies the token and keeps it in its cache.
      expect(await meStatus(b, t.accessToken)).to.equal(200)
      const {rows} = await admin.query<{ok: boolean}>('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND application_name IN ($2, $3)', [dbName, listenerName(a), listenerName(b)])
      expect(rows.map((r) => r.ok)).to.deep.equal([true, true])
      await revokeOnA(t.id)
      await within(ACCESS_CACHE_MAX_AGE_MS + SLACK_MS, `round ${round}: B refuses the revoked token`, async () => {
        const s = await meStatus(b, t.accessToken)
        return {ok: s === 401, seen: s}
      })
      await within(LISTEN_RETRY_MAX_MS + SLACK_MS, `round ${round}: both replicas listen again`, bothHealthy)
      expect(await listenerBackends(a), `round ${round}: A's listeners`).to.have.length(1)
      expect(await listenerBackends(b), `round ${round}: B's listeners`).to.have.length(1)
    }
  })

  it('keeps serving when PostgreSQL ends the backends of clients in the middle of writes: the writes cut answer an error, every acknowledged one is there', async () => {
    const urn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,terminated.t${i},PROD)`
    const acked: number[] = []
    let stop = false
    const writer = async (w: number) => {
      for (let i = w; !stop && i < 4000; i += 4) {
        // REST writes take the writers' pool; GraphQL edits the lock pool as well.
        const r =
          i % 8 < 4
            ? await http(`${a.url}/aspects?action=ingestProposal`, {token, body: {proposal: {entityUrn: urn(i), entityType: 'dataset', aspectName: 'datasetProperties', changeType: 'UPSERT', aspect: {json: {description: `v${i}`}}}}})
            : await gql(a, `mutation { updateDescription(input: {description: "v${i}", resourceUrn: "${urn(i - 4)}", subResourceType: DATASET_FIELD, subResource: "none"}) }`)
        if (i % 8 < 4 && r.status === 200) acked.push(i)
      }
    }
    const writers = [0, 1, 2, 3].map(writer)
    for (let k = 0; k < 8; k++) {
      await sleep(250)
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name IN ('mdcli', 'mdcli-locks') AND state <> 'idle'", [dbName])
    }
    stop = true
    await Promise.all(writers)
    expect(a.proc.exitCode, a.output().slice(-2000)).to.equal(null)
    await within(SLACK_MS, 'A answers again', async () => (await health(a)).status === 200)
    expect(acked.length).to.be.greaterThan(0)
    for (const i of acked) {
      const r = await http(`${a.url}/aspects/${enc(urn(i))}?aspect=datasetProperties&version=0`, {token})
      expect(r.status, `acknowledged write ${i}`).to.equal(200)
      expect(r.body.aspect['com.linkedin.dataset.DatasetProperties'].description).to.equal(`v${i}`)
    }
  })

  it('says 503 on /health and E_STORE_UNAVAILABLE on every route while B cannot reach PostgreSQL; once back, B refuses a token revoked on A meanwhile', async () => {
    const t = await newToken('cut')
    expect(await meStatus(b, t.accessToken)).to.equal(200)
    await proxy.cut()
    try {
      await within(SLACK_MS, 'B reports itself unhealthy', async () => {
        const h = await health(b)
        return {ok: h.status === 503 && h.body.checks.listener.ok === false && h.body.checks.store.ok === false, seen: h.body}
      })
      const h = await health(b)
      expect(h.headers.get('retry-after')).to.equal('1')
      expect(h.body.reason).to.match(/store: cannot reach the PostgreSQL database/)
      expect(h.body.reason).to.match(/listener: not hearing other replicas' writes since/)
      // /ready follows /health once started.
      expect((await http(`${b.url}/ready`, {token: null})).status).to.equal(503)

      // REST: 503 with the stable code (the admin token is still in B's cache, or its check fails the same way).
      const rest = await http(`${b.url}/aspects/${enc(ADMIN)}?aspect=corpUserInfo&version=0`, {token})
      expect(rest.status, JSON.stringify(rest.body)).to.equal(503)
      expect(rest.body.code).to.equal('E_STORE_UNAVAILABLE')
      expect(rest.headers.get('retry-after')).to.equal('1')
      const write = await http(`${b.url}/aspects?action=ingestProposal`, {
        token,
      body: {proposal: {entityType: 'tag', entityUrn: 'urn:li:tag:during-cut', changeType: 'UPSERT', aspectName: 'tagProperties', aspect: {value: JSON.stringify({name: 'during-cut'}), contentType: 'application/json'}}},
      })
      expect(write.status, JSON.stringify(write.body)).to.equal(503)
      expect(write.body.code).to.equal('E_STORE_UNAVAILABLE')
      // GraphQL: 503 with the spec's error shape.
      const q = await gql(b, `{ corpUser(urn: "${ADMIN}") { urn } }`)
      expect(q.status, JSON.stringify(q.body)).to.equal(503)
      expect(q.body.errors[0].extensions).to.deep.equal({code: 503, type: 'SERVICE_UNAVAILABLE', classification: 'DataFetchingException'})
      expect(q.body.errors[0].message).to.match(/PostgreSQL store cannot be reached/)
      expect(JSON.stringify(q.body)).not.to.include(String(proxy.port))

      await revokeOnA(t.id)
      // Refused for a few seconds: B keeps trying, with backoff.
      await sleep(3000)
      expect((await health(b)).status).to.equal(503)
    } finally {
      await proxy.restore()
    }
    await within(LISTEN_RETRY_MAX_MS + SLACK_MS, 'B is healthy again', async () => {
      const h = await health(b)
      return {ok: h.status === 200, seen: h.body}
    })
    await within(ACCESS_CACHE_MAX_AGE_MS + SLACK_MS, 'B refuses the token revoked during the cut', async () => {
      const s = await meStatus(b, t.accessToken)
      return {ok: s === 401, seen: s}
    })
    expect(await listenerBackends(b)).to.have.length(1)
    const back = await http(`${b.url}/aspects?action=ingestProposal`, {
      token,
      body: {proposal: {entityType: 'tag', entityUrn: 'urn:li:tag:after-cut', changeType: 'UPSERT', aspectName: 'tagProperties', aspect: {value: JSON.stringify({name: 'after-cut'}), contentType: 'application/json'}}},
    })
    expect(back.status, JSON.stringify(back.body)).to.equal(200)
  })

  it('says 503 on both replicas while the database refuses connections, and 200 again after', async () => {
    await admin.query(`ALTER DATABASE ${dbName} WITH ALLOW_CONNECTIONS false`)
    try {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [dbName])
      await within(SLACK_MS, 'both replicas unhealthy', async () => {
        const [ha, hb] = await Promise.all([health(a), health(b)])
        return {ok: ha.status === 503 && hb.status === 503, seen: [ha.body, hb.body]}
      })
      const h = await health(a)
      expect(h.body.checks.store.ok).to.equal(false)
      expect(h.body.checks.listener.ok).to.equal(false)
      const rest = await http(`${a.url}/aspects/${enc(ADMIN)}?aspect=corpUserInfo&version=0`, {token})
      expect(rest.status, JSON.stringify(rest.body)).to.equal(503)
      expect(rest.body.code).to.equal('E_STORE_UNAVAILABLE')
      await sleep(2000)
    } finally {
      await admin.query(`ALTER DATABASE ${dbName} WITH ALLOW_CONNECTIONS true`)
    }
    await within(LISTEN_RETRY_MAX_MS + SLACK_MS, 'both replicas healthy again', bothHealthy)
    expect((await http(`${a.url}/aspects/${enc(ADMIN)}?aspect=corpUserInfo&version=0`, {token})).status).to.equal(200)
    expect(await listenerBackends(a)).to.have.length(1)
    expect(await listenerBackends(b)).to.have.length(1)
  })

  it('answers 503 E_STORE_UNAVAILABLE on REST and GraphQL once the database is dropped, and /health says why', async () => {
    await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`)
    for (const l of [a, b]) {
      await within(SLACK_MS, 'unhealthy after the drop', async () => {
        const h = await health(l)
        return {ok: h.status === 503 && /3D000/.test(h.body.checks.store.reason ?? ''), seen: h.body}
      })
      const rest = await http(`${l.url}/aspects/${enc(ADMIN)}?aspect=corpUserInfo&version=0`, {token})
      expect(rest.status, JSON.stringify(rest.body)).to.equal(503)
      expect(rest.body.code).to.equal('E_STORE_UNAVAILABLE')
      const q = await gql(l, `{ corpUser(urn: "${ADMIN}") { urn } }`)
      expect(q.status, JSON.stringify(q.body)).to.equal(503)
      expect(q.body.errors[0].extensions.code).to.equal(503)
      // The pages themselves need no store: they load, and their queries get the 503 above.
      expect((await fetch(`${l.url}/`)).status).to.equal(200)
    }
  })

  it('shows the store outage on the pages, in a real browser', async function () {
    if (!existsSync(CHROMIUM)) {
      if (IN_CI) throw new Error(`Chromium is not installed at ${CHROMIUM}`)
      skipWithReason(this, `no Chromium at ${CHROMIUM}; apt-get install chromium`)
    }
    const browser = await chromium.launch({executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']})
    try {
      const page = await (await browser.newContext()).newPage()
      await page.goto(a.url)
      await page.evaluate((t) => (globalThis as any).sessionStorage.setItem('mdcli.token', t), token)
      await page.goto(`${a.url}/search?q=*`)
      const alert = page.getByRole('alert').first()
      await alert.waitFor({timeout: SLACK_MS})
      expect(await alert.textContent()).to.match(/PostgreSQL store cannot be reached/)
    } finally {
      await browser.close()
    }
  })
})
