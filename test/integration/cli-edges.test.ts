/**
 * Everyday edges of the CLI found by an audit: a blank token id, an explicit platform urn, days
 * the calendar does not have, a mistyped aspect to follow, a server that is not mdcli, and a
 * password in the server's URL — each a clear line and nothing done, never a silent surprise.
 */
import {expect} from 'chai'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {http, runCli, useLite} from '../helpers/lite.js'
import {requirePostgres} from '../helpers/requires.js'

describe('CLI edges', function () {
  this.timeout(120_000)
  const lite = useLite()
  const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,edges.t,PROD)'

  it('token revoke "" is refused, and the token still works', async () => {
    const r = await runCli(['token', 'revoke', ''], {env: lite.env()})
    expect(r.code).to.equal(1)
    expect(r.stderr).to.match(/token id is empty/)
    expect((await runCli(['token', 'list'], {env: lite.env()})).code).to.equal(0)
  })

  it('put platform keeps an urn as given and lower-cases a plain name, as DataHub’s put does', async () => {
    const urn = 'urn:li:dataPlatform:MyWarehouse'
    expect((await runCli(['put', 'platform', '--name', urn, '--logo', 'https://example.com/w.png'], {env: lite.env()})).code).to.equal(0)
    expect((await http(`${lite.url}/aspects/${encodeURIComponent(urn)}?aspect=dataPlatformInfo&version=0`)).status).to.equal(200)
    expect((await runCli(['put', 'platform', '--name', 'OtherWarehouse', '--logo', 'https://example.com/o.png'], {env: lite.env()})).code).to.equal(0)
    expect((await http(`${lite.url}/aspects/${encodeURIComponent('urn:li:dataPlatform:otherwarehouse')}?aspect=dataPlatformInfo&version=0`)).status).to.equal(200)
  })

  it('a day the calendar does not have is refused, not rolled over to another day', async () => {
    const del = await runCli(['delete', '--urn', DS, '--hard', '-a', 'datasetProfile', '--start-time', '2024-02-31', '--end-time', '2024-03-05', '-n'], {env: lite.env()})
    expect(del.code).to.equal(1)
    expect(del.stderr).to.match(/--start-time: '2024-02-31' is not a date/)
    const tl = await runCli(['timeline', '--urn', DS, '--category', 'TAG', '--start', '2023-13-01'], {env: lite.env()})
    expect(tl.code).to.equal(1)
    expect(tl.stderr).to.match(/Cannot read --start '2023-13-01'/)
  })

  it('--json keeps the reason of a refused flag, in one message', async () => {
    const count = await runCli(['search', '--count', '-1', '--json'], {env: lite.env()})
    expect(count.code).to.not.equal(0)
    expect(JSON.parse(count.stdout).error.message).to.match(/--count .*greater than or equal to 0/)
    const missing = await runCli(['put', '--json'], {env: lite.env()})
    expect(JSON.parse(missing.stdout).error.message).to.match(/Missing required flag urn/)
  })

  it('a PostgreSQL store that does not exist is E_STORE_UNAVAILABLE in one line, its password masked', async function () {
    const admin = new URL(await requirePostgres(this))
    admin.password = 'SecretPw7'
    admin.pathname = '/mdcli_edges_no_such_db'
    const json = await runCli(['store', 'reindex', '--store', admin.toString(), '--json'], {env: lite.env()})
    expect(json.code).to.equal(1)
    expect(JSON.parse(json.stdout).error).to.include({code: 'E_STORE_UNAVAILABLE', status: 503})
    const text = await runCli(['store', 'reindex', '--store', admin.toString()], {env: lite.env()})
    expect(text.stderr.trim().split('\n')).to.have.length(1)
    expect(text.stderr).to.match(/does not exist/)
    expect(json.stdout + text.stderr).to.not.include('SecretPw7')
  })

  it('events tail -a with an aspect that does not exist is refused at once', async () => {
    const r = await runCli(['events', 'tail', '-a', 'notAnAspect'], {env: lite.env(), timeoutMs: 20_000})
    expect(r.code).to.equal(1)
    expect(r.stderr).to.match(/Unknown aspect 'notAnAspect'/)
  })

  describe('a server that is not mdcli, and a password in the server URL', () => {
    let web: Server
    let port = 0
    before(async () => {
      web = createServer((_req, res) => {
        res.writeHead(404, {'content-type': 'text/html'})
        res.end('<!DOCTYPE HTML>\n<html><body><h1>Not found</h1>\n<p>nothing here</p></body></html>\n')
      })
      await new Promise<void>((r) => web.listen(0, '127.0.0.1', r))
      port = (web.address() as AddressInfo).port
    })
    after(() => new Promise<void>((r) => web.close(() => r())))

    it('names who answered in one line instead of printing its HTML', async () => {
      const r = await runCli(['get', '--urn', DS], {env: lite.env({METADATA_GMS_URL: `http://127.0.0.1:${port}`})})
      expect(r.code).to.equal(1)
      expect(r.stderr).to.not.include('<')
      expect(r.stderr).to.match(new RegExp(`Server at http://127\\.0\\.0\\.1:${port} answered 404 with an HTML page`))
      expect(r.stderr.trim().split('\n')).to.have.length(1)
    })

    it('never prints the password of the server URL: errors, version --json, --debug', async () => {
      const env = lite.env({METADATA_GMS_URL: 'http://admin:HostPw99@127.0.0.1:1'})
      const runs = [await runCli(['get', '--urn', DS], {env}), await runCli(['version', '--json'], {env}), await runCli(['get', '--urn', DS, '--debug'], {env})]
      for (const r of runs) {
        expect(r.stdout + r.stderr).to.not.include('HostPw99')
        expect(r.stdout + r.stderr).to.include('admin:****@')
      }
    })
  })
})
