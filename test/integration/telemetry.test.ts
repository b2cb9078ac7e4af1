/**
 * Telemetry (#15 Deliver 10) against a local collector: exactly command, version, OS, Node version
 * and success are posted to METADATA_TELEMETRY_ENDPOINT after the command; nothing without an
 * endpoint, with METADATA_TELEMETRY_ENABLED=false or after `telemetry disable`; a dead endpoint
 * changes nothing in the command's output or exit code; a first-run notice says what is sent.
 */
import {expect} from 'chai'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {cleanup, eventually, runCli, tempDir} from '../helpers/lite.js'

describe('telemetry', function () {
  this.timeout(60_000)
  let collector: Server
  let endpoint: string
  const received: Array<{path: string; body: any; headers: Record<string, unknown>}> = []
  const homes: string[] = []

  before(async () => {
    collector = createServer((req, res) => {
      let text = ''
      req.on('data', (d) => (text += d))
      req.on('end', () => {
        received.push({path: req.url ?? '', body: JSON.parse(text), headers: req.headers})
        res.end('{}')
      })
    })
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r))
    endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`
  })
  after(async () => {
    await new Promise((r) => collector.close(r))
    cleanup(...homes)
  })
  // Each test posts to its own path, so a late event of one test never counts in another.
  let path = ''
  let n = 0
  beforeEach(() => (path = `/t${++n}`))
  const mine = () => received.filter((r) => r.path === path)
  const ep = () => endpoint + path

  function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const home = tempDir('mdcli-telemetry-')
    homes.push(home)
    const e: NodeJS.ProcessEnv = {...process.env, HOME: home, NO_COLOR: '1', METADATA_GMS_URL: 'http://127.0.0.1:1', ...extra}
    delete e.METADATA_TELEMETRY_ENABLED
    if (extra.METADATA_TELEMETRY_ENABLED) e.METADATA_TELEMETRY_ENABLED = extra.METADATA_TELEMETRY_ENABLED
    return e
  }

  it('posts command, version, OS, Node version and success — nothing else — after a notice on first run', async () => {
    const e = env({METADATA_TELEMETRY_ENDPOINT: ep()})
    const r = await runCli(['telemetry', 'enable', '--json'], {env: e})
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stderr).to.match(/anonymous usage statistics.*command name.*mdcli telemetry disable.*METADATA_TELEMETRY_ENABLED=false/)
    expect(await eventually(() => mine().length === 1, 10_000)).to.equal(true)
        expect(mine()[0]!.body).to.deep.equal({command: 'telemetry:enable', version: mine()[0]!.body.version, os: process.platform, node: process.version, success: true})
    expect(mine()[0]!.body.version).to.match(/^\d+\.\d+\.\d+/)
    // The notice is shown once.
    const again = await runCli(['lite', 'list-urns', '--store', `${e.HOME}/store`], {env: e})
    expect(again.code, again.stderr).to.equal(0)
    expect(again.stderr).to.not.match(/anonymous usage statistics/)
    expect(await eventually(() => mine().length === 2, 10_000)).to.equal(true)
    expect(mine()[1]!.body).to.include({command: 'lite:list-urns', success: true})
  })

  it('reports a failed command as success: false, without its arguments', async () => {
    const r = await runCli(['get', '--urn', 'urn:li:dataset:(urn:li:dataPlatform:hive,secret_table,PROD)'], {env: env({METADATA_TELEMETRY_ENDPOINT: ep()})})
    expect(r.code).to.equal(1)
    expect(await eventually(() => mine().length === 1, 10_000)).to.equal(true)
    expect(mine()[0]!.body).to.include({command: 'get', success: false})
    expect(JSON.stringify(mine())).to.not.include('secret_table')
  })

  it('sends nothing with METADATA_TELEMETRY_ENABLED=false, after `telemetry disable`, or with no endpoint', async () => {
    expect((await runCli(['telemetry', 'enable'], {env: env({METADATA_TELEMETRY_ENDPOINT: ep(), METADATA_TELEMETRY_ENABLED: 'false'})})).code).to.equal(0)
    const e = env({METADATA_TELEMETRY_ENDPOINT: ep()})
    expect((await runCli(['telemetry', 'disable'], {env: {...e, METADATA_TELEMETRY_ENABLED: 'false'}})).code).to.equal(0)
    const r = await runCli(['telemetry', 'disable'], {env: e})
    expect(r.stderr).to.not.match(/anonymous usage statistics/)
    expect((await runCli(['telemetry', 'enable'], {env: env()})).code).to.equal(0)
    // A canary with telemetry on proves the collector would have seen the others by now.
    expect((await runCli(['telemetry', 'enable'], {env: env({METADATA_TELEMETRY_ENDPOINT: ep()})})).code).to.equal(0)
    expect(await eventually(() => mine().length >= 1, 10_000)).to.equal(true)
    await new Promise((r) => setTimeout(r, 500))
    expect(mine()).to.have.length(1)
  })

  it('a dead endpoint changes nothing in the output or the exit code', async () => {
    const e = env({METADATA_TELEMETRY_ENDPOINT: 'http://127.0.0.1:1/events', METADATA_TELEMETRY_TIMEOUT: '1'})
    const r = await runCli(['telemetry', 'enable', '--json'], {env: e})
    expect(r.code).to.equal(0)
    expect(JSON.parse(r.stdout)).to.include({enabled: true})
    expect(r.stderr).to.not.match(/error|ECONNREFUSED/i)
  })
})
