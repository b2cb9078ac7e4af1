/**
 * A store directory this user may not create, write or read is reported as that — the path and
 * "permission denied" — not as a port it may not listen on, a failing disk or a missing directory.
 * Root is not refused by file modes, so the commands run as `nobody` (runuser); where that cannot
 * be done, the suite is skipped and says why.
 */
import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {chmodSync, cpSync, existsSync, mkdirSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {BIN, cleanup, runCli, tempDir} from '../helpers/lite.js'
import {skipWithReason} from '../helpers/requires.js'

/** Runs the CLI as `nobody`, with HOME at `home`. */
function asNobody(home: string, args: string[]): {code: number | null; stdout: string; stderr: string} {
  const env = {PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, NO_COLOR: '1', METADATA_TELEMETRY_ENABLED: 'false'}
  const r = spawnSync('runuser', ['-u', 'nobody', '--', 'env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, BIN, ...args], {encoding: 'utf8', timeout: 60_000})
  return {code: r.status, stdout: r.stdout, stderr: r.stderr}
}

describe('store directories this user may not use', function () {
  this.timeout(90_000)
  let work: string
  let home: string

  before(function () {
    if (process.getuid?.() !== 0) skipWithReason(this, 'needs root to run commands as nobody (runuser); as another user, chmod of a temporary directory would do')
    const probe = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, '-e', `require('node:fs').accessSync(${JSON.stringify(BIN)})`], {encoding: 'utf8'})
    if (probe.status !== 0) skipWithReason(this, `runuser -u nobody cannot run this checkout's bin/run.js here (${(probe.stderr || String(probe.error)).trim()})`)
    work = tempDir('mdcli-perm-')
    chmodSync(work, 0o755)
    home = join(work, 'home')
    mkdirSync(home)
    chmodSync(home, 0o777)
  })
  after(() => work && cleanup(work))

  it('lite names the store directory it may not create, not the port', () => {
    const parent = join(work, 'root-only')
    mkdirSync(parent, {mode: 0o755})
    const r = asNobody(home, ['lite', '--port', '0', '--store', join(parent, 'store')])
    expect(r.code).to.equal(1)
    expect(r.stderr.trim()).to.equal(`Error: Cannot create the store directory ${join(parent, 'store')}: permission denied (EACCES, mkdir ${join(parent, 'store')})`)
    expect(existsSync(join(parent, 'store'))).to.equal(false)
  })

  it('lite and the local verbs name a store they may read but not write', async () => {
    const store = join(work, 'read-only')
    const file = join(work, 'one.json')
    writeFileSync(file, JSON.stringify([{entityType: 'tag', entityUrn: 'urn:li:tag:p', changeType: 'UPSERT', aspectName: 'tagProperties', aspect: {json: {name: 'p'}}}]))
    expect((await runCli(['lite', 'import', '--store', store, '--file', file], {env: {...process.env, HOME: work}})).code).to.equal(0)
    chmodSync(store, 0o755)
    const before = readdirSync(store).sort()
    const lite = asNobody(home, ['lite', '--port', '0', '--store', store])
    expect(lite.code).to.equal(1)
    expect(lite.stderr).to.match(new RegExp(`^Error: Cannot open the store ${store}: permission denied \\(EACCES, writing ${store}/LOCK`))
    expect(lite.stderr).to.not.match(/check the disk|listen/i)
    const ls = asNobody(home, ['lite', 'ls', '/', '--store', store])
    expect(ls.code).to.equal(1)
    expect(ls.stderr).to.match(/permission denied \(EACCES\).*writing .*read-only\/LOCK/)
    expect(readdirSync(store).sort()).to.deep.equal(before)
  })

  it('token create --admin names a store directory it may not read', () => {
    const store = join(work, 'closed')
    mkdirSync(store)
    cpSync(join(work, 'read-only'), store, {recursive: true})
    chmodSync(store, 0o000)
    const r = asNobody(home, ['token', 'create', '--admin', '--store', store])
    expect(r.code).to.equal(1)
    expect(r.stderr.trim()).to.equal(`Error: Cannot read the store directory ${store}: permission denied (EACCES); run as the user who owns it, or give this user access`)
  })
})
