import {expect} from 'chai'
import {startServer} from '../../src/server/app.js'
import {Metrics, PENDING_LIMIT} from '../../src/server/metrics.js'
import {cleanup, http, runCli, startLite, tempDir, useLite} from '../helpers/lite.js'

const silent = {info() {}, debug() {}, warn() {}, error() {}, debugEnabled: false}

describe('operations endpoints: /health, /ready, /metrics', function () {
  this.timeout(60000)
  const lite = useLite()

  it('answers /health and /ready 200 with each check, without a token', async () => {
    for (const path of ['/health', '/ready']) {
      const r = await http(`${lite.url}${path}`, {token: null})
      expect(r.status, path).to.equal(200)
      expect(r.body.status).to.equal('ok')
      expect(r.body.checks).to.be.an('object')
    }
  })

  it('refuses /metrics without a token and serves the Prometheus text with one', async () => {
    expect((await http(`${lite.url}/metrics`, {token: null})).status).to.equal(401)
    // One request of a known route first, so its latency is in the histogram.
    expect((await http(`${lite.url}/config`)).status).to.equal(200)
    const res = await fetch(`${lite.url}/metrics`, {headers: {authorization: `Bearer ${lite.token}`}})
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    expect(text).to.match(/^mdcli_http_request_duration_seconds_count\{route="GET \/config",status="200"\} [1-9]/m)
    expect(text).to.match(/^mdcli_write_queue_depth 0$/m)
    expect(text).to.include('# TYPE mdcli_http_request_duration_seconds histogram')
    expect(text).to.match(/^mdcli_process_resident_memory_bytes \d+/m)
    // Unknown paths share one label, whatever they are.
    await http(`${lite.url}/no/such/${Date.now()}`)
    const after = await (await fetch(`${lite.url}/metrics`, {headers: {authorization: `Bearer ${lite.token}`}})).text()
    expect(after).to.match(/route="unmatched",status="404"/)
    expect(after).not.to.include('/no/such/')
  })

  it('keeps what a histogram observes before prom-client has loaded, up to its bound, and defines a metric once', async () => {
    const m = new Metrics({processMetrics: false})
    const h = m.histogram('t_seconds', 'test', {labelNames: ['route']})
    expect(m.histogram('t_seconds', 'test again', {labelNames: ['route']})).to.equal(h)
    for (let i = 0; i < PENDING_LIMIT + 5; i++) h.observe({route: 'a'}, 0.002)
    let depth = 3
    m.gauge('t_depth', 'test', {collect: () => depth})
    const first = (await m.render()).text
    expect(first).to.match(new RegExp(`^t_seconds_count\\{route="a"\\} ${PENDING_LIMIT}$`, 'm'))
    expect(first).to.match(/^t_depth 3$/m)
    // After the load, observations and metrics defined later go straight in.
    h.observe({route: 'a'}, 0.002)
    m.counter('t_total', 'test', {collect: () => 7})
    depth = 4
    const second = (await m.render()).text
    expect(second).to.match(new RegExp(`^t_seconds_count\\{route="a"\\} ${PENDING_LIMIT + 1}$`, 'm'))
    expect(second).to.match(/^t_total 7$/m)
    expect(second).to.match(/^t_depth 4$/m)
  })

  it('serves /metrics without a token when started with --metrics-open', async () => {
    const open = await startLite({args: ['--metrics-open']})
    try {
      const r = await fetch(`${open.url}/metrics`)
      expect(r.status).to.equal(200)
      expect(await r.text()).to.include('mdcli_write_queue_depth')
      // Everything else still needs a token.
      expect((await http(`${open.url}/aspects/${encodeURIComponent('urn:li:corpuser:datahub')}?aspect=corpUserInfo`, {token: null})).status).to.equal(401)
    } finally {
      await open.stop()
      cleanup(open.storeDir, open.home)
    }
  })

  it('answers /ready 503 "starting" while a held server has not opened, then 200', async () => {
    const dir = tempDir('mdcli-store-')
    const server = await startServer({storeDir: dir, port: 0, logger: silent, held: true})
    try {
      const early = await http(`${server.url}/ready`, {token: null})
      expect(early.status).to.equal(503)
      expect(early.body.status).to.equal('starting')
      expect(early.headers.get('retry-after')).to.equal('1')
      // /health waits for the open, as scripts that poll it expect.
      let healthDone = false
      const health = http(`${server.url}/health`, {token: null}).then((r) => {
        healthDone = true
        return r
      })
      await new Promise((r) => setTimeout(r, 200))
      expect(healthDone).to.equal(false)
      server.open()
      expect((await health).status).to.equal(200)
      expect((await http(`${server.url}/ready`, {token: null})).status).to.equal(200)
    } finally {
      await server.close()
    }
  })

  it('reports a failing check as 503 with its reason, and counts it on /metrics', async () => {
    const dir = tempDir('mdcli-store-')
    const server = await startServer({storeDir: dir, port: 0, logger: silent})
    try {
      let down = true
      const remove = server.health.add('consumer', () => (down ? {ok: false, reason: 'not consuming: connection closed'} : {ok: true}))
      const r = await http(`${server.url}/health`, {token: null})
      expect(r.status).to.equal(503)
      expect(r.body).to.deep.include({status: 'unhealthy', reason: 'consumer: not consuming: connection closed'})
      expect(r.body.checks.consumer).to.deep.equal({ok: false, reason: 'not consuming: connection closed'})
      // `mdcli docker check` passes the reason on.
      const check = await runCli(['docker', 'check'], {env: {...process.env, HOME: dir, METADATA_SKIP_CONFIG: 'true', METADATA_TELEMETRY_ENABLED: 'false', METADATA_GMS_URL: server.url, METADATA_GMS_TOKEN: server.adminToken}})
      expect(check.code).to.equal(1)
      expect(check.stderr).to.contain('The server is unhealthy: consumer: not consuming: connection closed')
      expect((await http(`${server.url}/ready`, {token: null})).status).to.equal(503)
      const text = await (await fetch(`${server.url}/metrics`, {headers: {authorization: `Bearer ${server.adminToken}`}})).text()
      expect(text).to.match(/^mdcli_health_check_up\{check="consumer"\} 0$/m)
      down = false
      expect((await http(`${server.url}/health`, {token: null})).status).to.equal(200)
      remove()
      expect((await http(`${server.url}/health`, {token: null})).body.checks).not.to.have.property('consumer')
      // A check that hangs fails after its time limit instead of hanging /health.
      server.health.add('stuck', () => new Promise(() => {}))
      const stuck = await http(`${server.url}/health`, {token: null})
      expect(stuck.status).to.equal(503)
      expect(stuck.body.checks.stuck.reason).to.match(/did not answer within/)
    } finally {
      await server.close()
    }
  })
})
