import {expect} from 'chai'
import {existsSync, readFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import {createServer as createTcpServer, type Socket} from 'node:net'
import {join} from 'node:path'
import {cleanup, eventually, runCli, tempDir, useLite} from '../helpers/lite.js'

describe('telemetry, --debug and the config file on first use', function () {
  this.timeout(120_000)
  const lite = useLite()
  let collector: Server
  let endpoint: string
  const received: Array<{body: any; headers: Record<string, unknown>}> = []
  const dirs: string[] = []

  before(async () => {
    collector = createServer((req, res) => {
      let data = ''
      req.on('data', (c) => (data += c))
      req.on('end', () => {
        received.push({body: JSON.parse(data), headers: req.headers})
        res.end('{}')
      })
    })
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', () => r()))
    endpoint = `http://127.0.0.1:${(collector.address() as {port: number}).port}/events`
  })
  after(() => {
    collector.close()
    cleanup(...dirs)
  })

  const home = (): string => {
    const d = tempDir('mdcli-tel-home-')
    dirs.push(d)
    return d
  }

  it('sends one event per command — name, version, OS, Node, success — and nothing else, after a first-run notice', async () => {
    received.length = 0
    const h = home()
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,secret_db.secret_table,PROD)'
    const env = lite.env({HOME: h, METADATA_TELEMETRY_ENABLED: 'true', METADATA_TELEMETRY_ENDPOINT: endpoint})
    const first = await runCli(['get', '--urn', urn], {env})
    expect(first.stderr).to.match(/anonymous usage statistics/)
    expect(first.stderr).to.match(/telemetry disable/)
    // Posted by a detached process, a moment after the command's exit.
    expect(await eventually(() => received.length === 1, 10_000)).to.equal(true)
    const ev = received[0]!.body
    expect(Object.keys(ev).sort()).to.deep.equal(['command', 'event', 'node', 'os', 'success', 'version'])
    expect(ev).to.include({event: 'command', command: 'get', os: process.platform, node: process.version, success: false})
    expect(JSON.stringify(received[0])).to.not.include('secret')
    expect(JSON.stringify(received[0])).to.not.include(lite.token)

    const second = await runCli(['version'], {env})
    expect(second.code).to.equal(0)
    expect(second.stderr).to.not.match(/anonymous usage statistics/)
    expect(await eventually(() => received.length === 2, 10_000)).to.equal(true)
    expect(received.at(-1)!.body).to.include({command: 'version', success: true})
  })

  it('sends nothing when disabled, without an endpoint, or when the collector is down — and the command still succeeds', async () => {
    received.length = 0
    const h = home()
    const off = await runCli(['version'], {env: lite.env({HOME: h, METADATA_TELEMETRY_ENABLED: 'false', METADATA_TELEMETRY_ENDPOINT: endpoint})})
    expect(off.code).to.equal(0)
    const noEndpoint = await runCli(['version'], {env: lite.env({HOME: h, METADATA_TELEMETRY_ENABLED: 'true'})})
    expect(noEndpoint.code).to.equal(0)
    const env = lite.env({HOME: h, METADATA_TELEMETRY_ENABLED: 'true', METADATA_TELEMETRY_ENDPOINT: endpoint})
    expect((await runCli(['telemetry', 'disable'], {env})).code).to.equal(0)
    expect((await runCli(['version'], {env})).code).to.equal(0)
    expect(received).to.have.length(0)
    const down = await runCli(['version'], {env: lite.env({HOME: home(), METADATA_TELEMETRY_ENABLED: 'true', METADATA_TELEMETRY_ENDPOINT: 'http://127.0.0.1:9/x', METADATA_TELEMETRY_TIMEOUT: '1'})})
    expect(down.code).to.equal(0)
    expect(down.stderr).to.not.match(/Error/)
  })

  it('never waits for a collector that accepts the connection and never answers', async () => {
    // A collector that reads what it is sent and never says a word.
    const connections: Array<{data: string; closed: boolean; socket: Socket}> = []
    const silent = createTcpServer((socket) => {
      const c = {data: '', closed: false, socket}
      connections.push(c)
      socket.on('data', (d) => (c.data += d.toString()))
      socket.on('close', () => (c.closed = true))
      socket.on('error', () => {})
    })
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()))
    try {
      const url = `http://127.0.0.1:${(silent.address() as {port: number}).port}/events`
      // A long timeout: waiting for it, the command would still be running when checked below.
      const env = lite.env({HOME: home(), METADATA_TELEMETRY_ENABLED: 'true', METADATA_TELEMETRY_ENDPOINT: url, METADATA_TELEMETRY_TIMEOUT: '60'})
      const r = await runCli(['version'], {env, timeoutMs: 50_000})
      expect(r.code).to.equal(0)
      expect(r.stdout).to.match(/mdcli/)
      // The event reached the collector, and the command had ended while its connection waited.
      expect(await eventually(() => connections.some((c) => c.data.includes('"command":"version"')), 10_000)).to.equal(true)
      expect(connections.find((c) => c.data.includes('"command":"version"'))!.closed).to.equal(false)
    } finally {
      for (const c of connections) c.socket.destroy()
      silent.close()
    }
  })

  it('--debug logs each request (method, URL, status, time), the settings sources and timing, never the token', async () => {
    const r = await runCli(['get', '--urn', 'urn:li:corpuser:datahub', '--debug'], {env: lite.env()})
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stderr).to.match(new RegExp(`\\[debug\\] GET ${lite.url.replace(/[.]/g, '\\.')}/entitiesV2/\\S+ → 200 in \\d+ ms`))
    expect(r.stderr).to.match(/\[debug\] server .* settings from /)
    expect(r.stderr).to.match(/\[debug\] get finished in \d+ ms/)
    expect(r.stderr).to.not.include(lite.token)
  })

  it('creates the config file on first use, unless METADATA_SKIP_CONFIG=true', async () => {
    const h = home()
    const r = await runCli(['version'], {env: {...process.env, HOME: h, METADATA_TELEMETRY_ENABLED: 'false', METADATA_GMS_TOKEN: ''}})
    expect(r.code).to.equal(0)
    expect(existsSync(join(h, '.mdclienv'))).to.equal(true)
    expect(readFileSync(join(h, '.mdclienv'), 'utf8')).to.match(/server: http:\/\/localhost:8080/)
    const h2 = home()
    await runCli(['version'], {env: {...process.env, HOME: h2, METADATA_TELEMETRY_ENABLED: 'false', METADATA_SKIP_CONFIG: 'true'}})
    expect(existsSync(join(h2, '.mdclienv'))).to.equal(false)
  })
})
