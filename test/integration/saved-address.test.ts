/**
 * The saved address follows the server (#32 Deliver 2): a store started again on another port
 * updates `~/.mdclienv`, so the next command reaches it; another store's start leaves the saved
 * address alone; a command that cannot connect names the setting that gave the address.
 */
import {expect} from 'chai'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import yaml from 'js-yaml'
import {cleanup, runCli, startLite, tempDir, type LiteProcess} from '../helpers/lite.js'

describe('lite: the saved address follows the server to a new port', function () {
  this.timeout(180_000)
  const running: LiteProcess[] = []
  let home: string
  before(() => (home = tempDir('mdcli-home-')))
  afterEach(async () => {
    for (const l of running.splice(0)) await l.stop()
  })
  after(() => cleanup(home))

  const configFile = () => join(home, '.mdclienv')
  const saved = () => yaml.load(readFileSync(configFile(), 'utf8')) as {gms: {server: string; token: string}; lite_store?: string}
  // What a user's shell has: HOME, nothing that names a server.
  const userEnv = (): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = {...process.env, HOME: home, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1'}
    for (const k of ['METADATA_GMS_URL', 'METADATA_GMS_HOST', 'METADATA_GMS_PORT', 'METADATA_GMS_TOKEN', 'MDCLI_CONFIG_FILE', 'DATAHUB_GMS_URL', 'DATAHUB_GMS_TOKEN']) delete env[k]
    return env
  }
  const start = async (storeDir?: string) => {
    const l = await startLite({home, ...(storeDir ? {storeDir} : {})})
    running.push(l)
    return l
  }
  const getAdmin = () => runCli(['get', '--urn', 'urn:li:corpuser:datahub', '--aspect', 'corpUserKey'], {env: userEnv()})
  let store: string

  it('start on port A, stop, start the same store on port B: `mdcli get` reaches B', async () => {
    const a = await start()
    store = a.storeDir
    expect(saved().gms.server).to.equal(a.url)
    expect((await getAdmin()).code).to.equal(0)
    await a.stop()

    const b = await start(store)
    expect(b.port).to.not.equal(a.port)
    expect(b.output()).to.include(`Saved the new address ${b.url} to ${configFile()} (it was ${a.url}).`)
    expect(saved().gms.server).to.equal(b.url)
    expect(saved().gms.token, 'the token stays').to.equal(a.token)
    const r = await getAdmin()
    expect(r.code, r.stderr).to.equal(0)
    expect(JSON.parse(r.stdout)).to.have.property('corpUserKey')
  })

  it('a config file without the mark follows too when this store accepts its token', async () => {
    const doc = saved()
    delete doc.lite_store
    writeFileSync(configFile(), yaml.dump(doc), {mode: 0o600})
    const c = await start(store)
    expect(saved().gms.server).to.equal(c.url)
    expect(saved().lite_store, 'marked again').to.be.a('string')
    expect((await getAdmin()).code).to.equal(0)
  })

  it("another store's start leaves the saved address alone and says where commands go", async () => {
    // A second store, made under another home (its first start saves its address there).
    const otherHome = tempDir('mdcli-other-home-')
    const first = await startLite({home: otherHome})
    const otherStore = first.storeDir
    await first.stop()
    const before = readFileSync(configFile(), 'utf8')
    const other = await start(otherStore)
    expect(readFileSync(configFile(), 'utf8'), 'the file is untouched').to.equal(before)
    expect(other.output()).to.include(`Note: commands go to ${saved().gms.server} (gms.server in ${configFile()}, another store's server); set METADATA_GMS_URL=${other.url} to reach this one.`)
    await other.stop()
    cleanup(otherStore, otherHome)
  })

  it('a command that cannot connect names the config file and the variable that gave the address', async () => {
    // Nothing runs now: the saved address is refused.
    const r = await getAdmin()
    expect(r.code).to.equal(1)
    expect(r.stderr).to.match(new RegExp(`Could not reach the mdcli server at http://127\\.0\\.0\\.1:\\d+ \\(connection refused; the address is from gms\\.server in ${configFile().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`))
    expect(r.stderr).to.include('Set METADATA_GMS_URL')
    const env = runCli(['get', '--urn', 'urn:li:corpuser:datahub'], {env: {...userEnv(), METADATA_GMS_URL: 'http://127.0.0.1:9'}})
    expect((await env).stderr).to.match(/at http:\/\/127\.0\.0\.1:9 \(connection refused; the address is from METADATA_GMS_URL\)/)
  })
})
