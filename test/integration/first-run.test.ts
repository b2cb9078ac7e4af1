import {expect} from 'chai'
import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {createServer, type Server} from 'node:net'
import {join} from 'node:path'
import {cleanup, http, runCli, startLite, tempDir} from '../helpers/lite.js'

const TOKEN_RE = /mdt_[A-Za-z0-9_-]{20,}/

describe('first run: nothing half-made, a lost admin token recoverable, no token in a log', function () {
  this.timeout(120_000)

  it('a busy port on the first start writes nothing; the next start shows the admin token', async () => {
    const store = tempDir('mdcli-store-')
    const home = tempDir('mdcli-home-')
    const blocker: Server = createServer()
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()))
    const port = (blocker.address() as {port: number}).port
    try {
      const env: NodeJS.ProcessEnv = {...process.env, HOME: home, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1'}
      delete env.METADATA_GMS_TOKEN
      const r = await runCli(['lite', '--port', String(port), '--store', store], {env})
      expect(r.code).to.equal(1)
      expect(r.stderr).to.match(new RegExp(`Port ${port} .* is already in use`))
      expect(r.stdout + r.stderr).not.to.match(TOKEN_RE)
      expect(existsSync(join(home, '.mdclienv'))).to.equal(false)
      // The store directory was empty: the refused start leaves it so; a new one is not left behind.
      expect(readdirSync(store)).to.deep.equal([])
      const fresh = join(home, 'new', 'store')
      const r2 = await runCli(['lite', '--port', String(port), '--store', fresh], {env})
      expect(r2.code).to.equal(1)
      expect(existsSync(join(home, 'new'))).to.equal(false)
      const lite = await startLite({storeDir: store, home})
      try {
        expect(lite.output()).to.contain('Created the admin user')
        expect(lite.token).to.match(TOKEN_RE)
        expect((await http(`${lite.url}/entitiesV2/${encodeURIComponent('urn:li:corpuser:datahub')}`)).status).to.equal(200)
      } finally {
        await lite.stop()
      }
    } finally {
      blocker.close()
      cleanup(store, home)
    }
  })

  it('a --host that does not resolve is refused in one line, without the warning, and creates no store', async () => {
    const home = tempDir('mdcli-home-')
    const env: NodeJS.ProcessEnv = {...process.env, HOME: home, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1'}
    const r = await runCli(['lite', '--port', '0', '--host', 'no-such-host.invalid', '--store', join(home, 'store')], {env})
    expect(r.code).to.equal(1)
    expect(r.stderr.trim()).to.match(/^Error: Cannot resolve --host no-such-host\.invalid: (no such host name \(ENOTFOUND\)|the name server did not answer \(EAI_AGAIN\));[^\n]*$/)
    expect(existsSync(join(home, 'store'))).to.equal(false)
    // An empty directory given as the store is left empty by a refused start (an address not of this machine).
    const held = join(home, 'held')
    mkdirSync(held)
    const bad = await runCli(['lite', '--port', '0', '--host', '192.0.2.1', '--store', join(held)], {env})
    expect(bad.code).to.equal(1)
    expect(bad.stderr).to.match(/Cannot listen on 192\.0\.2\.1:0: --host is not an address of this machine/)
    expect(readdirSync(held)).to.deep.equal([])
    expect(existsSync(join(home, '.mdclienv'))).to.equal(false)
  })

  it('an admin without a usable config is told how to recover, and `token create --admin --store` recovers it', async () => {
    const store = tempDir('mdcli-store-')
    const home = tempDir('mdcli-home-')
    try {
      const first = await startLite({storeDir: store, home})
      const lost = first.token
      await first.stop()
      rmSync(join(home, '.mdclienv'))
      const second = await startLite({storeDir: store, home})
      expect(second.output()).to.contain(`mdcli token create --admin --store ${store}`)
      // While the server holds the store, recovery is refused.
      const env = {...process.env, HOME: home, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1'}
      const busy = await runCli(['token', 'create', '--admin', '--store', store], {env})
      expect(busy.code).to.equal(1)
      await second.stop()
      // A mistyped store is refused: no new store, and the saved settings stay as they are.
      const before = existsSync(join(home, '.mdclienv')) ? readFileSync(join(home, '.mdclienv'), 'utf8') : undefined
      const typo = await runCli(['token', 'create', '--admin', '--store', `${store}-typo`], {env})
      expect(typo.code).to.equal(1)
      expect(typo.stderr).to.match(/No lite store at .*-typo/)
      expect(existsSync(`${store}-typo`)).to.equal(false)
      expect(existsSync(join(home, '.mdclienv')) ? readFileSync(join(home, '.mdclienv'), 'utf8') : undefined).to.equal(before)
      // `--store "$METADATA_STORE_URL"` where the variable is not set: the flag is empty, and said so.
      const blank = await runCli(['token', 'create', '--admin', '--store', ''], {env})
      expect(blank.code).to.equal(1)
      expect(blank.stderr.trim()).to.match(/^Error: The --store flag is empty/)
      const actor = await runCli(['token', 'create', '--admin', '--store', store, '--actor', 'urn:li:corpuser:bob'], {env})
      expect(actor.code).to.not.equal(0)
      expect(actor.stderr).to.match(/--actor.*cannot also be provided|cannot also be provided.*--actor/)

      const rec = await runCli(['token', 'create', '--admin', '--store', store], {env})
      expect(rec.code, rec.stderr).to.equal(0)
      expect(rec.stdout).to.contain('Saved it to')
      expect(rec.stdout).not.to.match(TOKEN_RE)
      const saved = /token: (mdt_[A-Za-z0-9_-]+)/.exec(readFileSync(join(home, '.mdclienv'), 'utf8'))![1]!
      expect(saved).not.to.equal(lost)
      const third = await startLite({storeDir: store, home})
      try {
        const me = await http(`${third.url}/api/graphql`, {token: saved, body: {query: '{ me { corpUser { urn } } }'}})
        expect(me.body.data.me.corpUser.urn).to.equal('urn:li:corpuser:datahub')
        const r = await runCli(['get', '--urn', 'urn:li:corpuser:datahub'], {env: {...env, METADATA_GMS_URL: third.url}})
        expect(r.code, r.stderr).to.equal(0)
      } finally {
        await third.stop()
      }
    } finally {
      cleanup(store, home)
    }
  })

  it('docker quickstart keeps the admin token out of its log; log and store are owner-only', async () => {
    const store = tempDir('mdcli-store-')
    const home = tempDir('mdcli-home-')
    const probe: Server = createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()))
    const port = (probe.address() as {port: number}).port
    await new Promise<void>((r) => probe.close(() => r()))
    const env = {...process.env, HOME: home, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1'}
    try {
      const r = await runCli(['docker', 'quickstart', '--port', String(port), '--store', store], {env})
      expect(r.code, r.stderr).to.equal(0)
      const log = readFileSync(join(store, 'lite.log'), 'utf8')
      expect(log).to.contain('Created the admin user')
      expect(log).not.to.match(TOKEN_RE)
      expect(readFileSync(join(home, '.mdclienv'), 'utf8')).to.match(TOKEN_RE)
      expect(statSync(join(store, 'lite.log')).mode & 0o777).to.equal(0o600)
      expect(statSync(store).mode & 0o777).to.equal(0o700)
    } finally {
      await runCli(['docker', 'quickstart', '--stop', '--port', String(port), '--store', store], {env})
      cleanup(store, home)
    }
  })
})
