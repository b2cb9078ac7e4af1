/**
 * `mdcli lite --no-auth` on a laptop, seen from the web pages its owner visits: what a page of
 * another site can send without a CORS preflight (a form post, a `text/plain` fetch) never
 * writes; a page reaching it through a rebound DNS name (Host: evil.example) is refused; the
 * pages carry a Content-Security-Policy and refuse framing. Our own clients keep working.
 */
import {expect} from 'chai'
import {request} from 'node:http'
import {cleanup, http, runCli, startLite, tempDir, useLite, type LiteProcess} from '../helpers/lite.js'
import {datasetUrn, mcpRecord, writeJson, writeRecipe} from '../ingest/helpers.js'

const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,guard.orders,PROD)'

/** A request with the headers a browser would send (Host included), answered whatever the status. */
function raw(url: string, opts: {method?: string; path: string; headers?: Record<string, string>; body?: string}): Promise<{status: number; body: string; headers: Record<string, unknown>}> {
  const u = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request({host: u.hostname, port: u.port, method: opts.method ?? 'GET', path: opts.path, headers: {...(opts.body === undefined ? {} : {'content-length': String(Buffer.byteLength(opts.body))}), ...opts.headers}}, (res) => {
      let body = ''
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({status: res.statusCode ?? 0, body, headers: res.headers}))
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

const proposal = (description: string) => JSON.stringify({proposal: {entityUrn: DS, aspectName: 'datasetProperties', changeType: 'UPSERT', aspect: {value: JSON.stringify({description}), contentType: 'application/json'}}})
const INGEST = '/aspects?action=ingestProposal'

describe('--no-auth is safe on a laptop: simple cross-site writes, rebound hosts and framing are refused', function () {
  this.timeout(120_000)
  const lite = useLite({args: ['--no-auth', '--allowed-host', 'catalog.test']})

  const stored = async (): Promise<string | undefined> => {
    const r = await http(`${lite.url}/aspects/${encodeURIComponent(DS)}?aspect=datasetProperties&version=0`, {token: null})
    return (Object.values(r.body?.aspect ?? {})[0] as {description?: string} | undefined)?.description
  }

  it('refuses writes a cross-site page can send without a preflight, and writes nothing', async () => {
    const host = new URL(lite.url).host
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
      const r = await raw(lite.url, {method: 'POST', path: INGEST, headers: {host, ...(type ? {'content-type': type} : {})}, body: proposal('from a form')})
      expect(r.status, `${type}: ${r.body}`).to.equal(415)
      expect(JSON.parse(r.body).code).to.equal('E_BAD_REQUEST')
    }
    const mutation = JSON.stringify({query: `mutation { updateDataset(urn: "${DS}", input: {editableProperties: {description: "x"}}) { urn } }`})
    const gql = await raw(lite.url, {method: 'POST', path: '/api/graphql', headers: {host, 'content-type': 'text/plain'}, body: mutation})
    expect(gql.status).to.equal(415)
    expect(await stored()).to.equal(undefined)

    // JSON, or a custom header (both need a preflight cross-site), is a write as before.
    expect((await raw(lite.url, {method: 'POST', path: INGEST, headers: {host, 'content-type': 'application/json; charset=utf-8'}, body: proposal('json')})).status).to.equal(200)
    expect(await stored()).to.equal('json')
    expect((await raw(lite.url, {method: 'POST', path: INGEST, headers: {host, 'content-type': 'text/plain', 'x-mdcli': '1'}, body: proposal('custom header')})).status).to.equal(200)
    expect(await stored()).to.equal('custom header')
  })

  it('answers only to its own names: localhost, loopback addresses, the bound address and --allowed-host', async () => {
    const port = new URL(lite.url).port
    for (const host of [`evil.example:${port}`, 'evil.example', `localhost.evil.example:${port}`, `10.1.2.3:${port}`]) {
      for (const path of ['/', `/entitiesV2/${encodeURIComponent(DS)}`, '/health']) {
        const r = await raw(lite.url, {path, headers: {host}})
        expect(r.status, `${host} ${path}`).to.equal(421)
      }
      const w = await raw(lite.url, {method: 'POST', path: INGEST, headers: {host, 'content-type': 'application/json'}, body: proposal('rebound')})
      expect(w.status).to.equal(421)
    }
    expect(await stored()).to.not.equal('rebound')
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'LOCALHOST', `app.localhost:${port}`, `catalog.test:${port}`]) {
      expect((await raw(lite.url, {path: '/health', headers: {host}})).status, host).to.equal(200)
    }
  })

  it('its pages send a Content-Security-Policy and refuse framing', async () => {
    for (const path of ['/', '/search', `/entity/${encodeURIComponent(DS)}`, '/api/graphiql']) {
      const r = await raw(lite.url, {path, headers: {host: new URL(lite.url).host}})
      expect(r.status).to.equal(200)
      expect(String(r.headers['content-security-policy'])).to.include("frame-ancestors 'none'").and.include("script-src 'self'")
      expect(r.headers['x-frame-options']).to.equal('DENY')
    }
  })

  it('the CLI, the REST sink and a rollback still work', async () => {
    const env = lite.env({METADATA_GMS_TOKEN: ''})
    const put = await runCli(['put', '--urn', DS, '--aspect', 'datasetProperties', '-d', '-'], {env, input: JSON.stringify({description: 'from put'})})
    expect(put.code, put.stderr).to.equal(0)
    expect(await stored()).to.equal('from put')
    const dir = tempDir()
    try {
      const file = writeJson(dir, 'mcps.json', [mcpRecord(datasetUrn('guard.items'), 'status', {removed: false})])
      const recipe = writeRecipe(dir, {run_id: 'guard-run', source: {type: 'file', config: {path: file}}})
      const ingest = await runCli(['ingest', '-c', recipe], {env})
      expect(ingest.code, ingest.stdout + ingest.stderr).to.equal(0)
      const rollback = await runCli(['ingest', 'rollback', '--run-id', 'guard-run', '--force'], {env})
      expect(rollback.code, rollback.stdout + rollback.stderr).to.equal(0)
      const del = await runCli(['delete', '--urn', DS, '--force'], {env})
      expect(del.code, del.stderr).to.equal(0)
    } finally {
      cleanup(dir)
    }
  })
})

describe('with auth on, the same content-type rule holds; the Host check waits for --allowed-host', function () {
  this.timeout(60_000)
  let lite: LiteProcess

  before(async () => {
    lite = await startLite()
  })
  after(async () => {
    await lite?.stop()
    cleanup(lite?.storeDir, lite?.home)
  })

  it('a token with a text/plain body still cannot write; any Host is served (a load balancer may name it)', async () => {
    const auth = {authorization: `Bearer ${lite.token}`, host: new URL(lite.url).host}
    expect((await raw(lite.url, {method: 'POST', path: INGEST, headers: {...auth, 'content-type': 'text/plain'}, body: proposal('plain')})).status).to.equal(415)
    expect((await raw(lite.url, {method: 'POST', path: INGEST, headers: {...auth, 'content-type': 'application/json'}, body: proposal('json')})).status).to.equal(200)
    expect((await raw(lite.url, {path: '/health', headers: {host: 'catalog.example.com'}})).status).to.equal(200)
  })
})
