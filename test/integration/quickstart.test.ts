import {expect} from 'chai'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {cleanup, runCli, tempDir} from '../helpers/lite.js'
import {createServer} from 'node:net'

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as {port: number}).port
      s.close(() => resolve(port))
    })
  })
}

describe('docker quickstart / check, telemetry', function () {
  this.timeout(60000)

  it('starts a background server, checks it, and stops it', async () => {
    const home = tempDir()
    const store = join(home, 'store')
    const port = await freePort()
    const env = {...process.env, HOME: home, METADATA_GMS_URL: `http://127.0.0.1:${port}`}
    try {
      const up = await runCli(['docker', 'quickstart', '--port', String(port), '--store', store], {env})
      expect(up.code, up.stderr).to.equal(0)
      expect(up.stdout).to.match(/mdcli is now running at http:\/\/127\.0\.0\.1:\d+/)
      const again = await runCli(['docker', 'quickstart', '--port', String(port), '--store', store], {env})
      expect(again.stdout).to.match(/already running/)
      // The same store on another port: refused, and the running server's record is left as it is,
      // so --stop still finds it.
      const pidBefore = readFileSync(join(store, 'lite.pid'), 'utf8')
      const recordBefore = readFileSync(join(home, '.mdcli', 'quickstart.json'), 'utf8')
      const twice = await runCli(['docker', 'quickstart', '--port', String(await freePort()), '--store', store], {env})
      expect(twice.code).to.equal(1)
      expect(twice.stderr).to.match(new RegExp(`The store .*store is already served by process ${pidBefore} \\(not at http://127\\.0\\.0\\.1:\\d+\\)`))
      expect(readFileSync(join(store, 'lite.pid'), 'utf8')).to.equal(pidBefore)
      expect(readFileSync(join(home, '.mdcli', 'quickstart.json'), 'utf8')).to.equal(recordBefore)
      // Another store asked for on that port is not "already running".
      const other = await runCli(['docker', 'quickstart', '--port', String(port), '--store', join(home, 'other')], {env})
      expect(other.code).to.equal(1)
      expect(other.stderr).to.match(/serves another store/)
      expect(existsSync(join(home, 'other'))).to.equal(false)
      const check = await runCli(['docker', 'check'], {env})
      expect(check.code, check.stderr).to.equal(0)
      expect(check.stdout.trim()).to.equal('✔ No issues detected')
      // The background server saved its admin token: a write works without passing one.
      const get = await runCli(['get', '--urn', 'urn:li:corpuser:datahub', '-a', 'corpUserInfo'], {env})
      expect(get.code, get.stderr).to.equal(0)
      // --stop finds what quickstart started without repeating --store.
      const stop = await runCli(['docker', 'quickstart', '--stop'], {env})
      expect(stop.code, stop.stderr).to.equal(0)
      expect(existsSync(join(home, '.mdcli', 'quickstart.json'))).to.equal(false)
      expect(existsSync(join(store, 'lite.pid'))).to.equal(false)
      const down = await runCli(['docker', 'check'], {env})
      expect(down.code).to.equal(1)
      expect(down.stderr).to.match(/Could not reach the mdcli server/)
      // A restart of the same store comes up and says so (its log already holds a stop's '…').
      const restart = await runCli(['docker', 'quickstart', '--port', String(port), '--store', store], {env})
      expect(restart.code, restart.stdout + restart.stderr).to.equal(0)
      expect(restart.stdout).to.match(/mdcli is now running/)
      // A server gone without --stop (kill -9): --stop signals nobody and says so.
      const pid = Number(readFileSync(join(store, 'lite.pid'), 'utf8'))
      process.kill(pid, 'SIGKILL')
      for (let i = 0; i < 50; i++) {
        try {
          process.kill(pid, 0)
          await new Promise((r) => setTimeout(r, 100))
        } catch {
          break
        }
      }
      const stale = await runCli(['docker', 'quickstart', '--stop', '--store', store], {env})
      expect(stale.code, stale.stderr).to.equal(0)
      expect(stale.stdout).to.match(/No mdcli server is running for store .* removed the stale record/)
      expect(existsSync(join(store, 'lite.pid'))).to.equal(false)
    } finally {
      await runCli(['docker', 'quickstart', '--stop', '--store', store], {env})
      cleanup(home)
    }
  })

  it('a first start of another store keeps the address and token saved before beside the config file, and says so', async () => {
    const home = tempDir()
    const env: NodeJS.ProcessEnv = {...process.env, HOME: home}
    delete env.METADATA_GMS_URL
    delete env.METADATA_GMS_TOKEN
    const [p1, p2] = [await freePort(), await freePort()]
    try {
      expect((await runCli(['docker', 'quickstart', '--port', String(p1), '--store', join(home, 'a')], {env})).code).to.equal(0)
      const first = readFileSync(join(home, '.mdclienv'), 'utf8')
      expect((await runCli(['docker', 'quickstart', '--stop', '--store', join(home, 'a')], {env})).code).to.equal(0)
      const second = await runCli(['docker', 'quickstart', '--port', String(p2), '--store', join(home, 'b')], {env})
      expect(second.code, second.stderr).to.equal(0)
      expect(readFileSync(join(home, '.mdclienv.previous'), 'utf8')).to.equal(first)
      expect(second.stdout).to.match(/kept in .*\.mdclienv\.previous/)
    } finally {
      for (const s of ['a', 'b']) await runCli(['docker', 'quickstart', '--stop', '--store', join(home, s)], {env})
      cleanup(home)
    }
  })

  it('a start that fails leaves the record of the running server, so --stop still stops it', async () => {
    const home = tempDir()
    const env: NodeJS.ProcessEnv = {...process.env, HOME: home}
    delete env.METADATA_GMS_URL
    const p1 = await freePort()
    // A port something else holds without answering HTTP: the second start's server cannot listen there.
    const blocker = createServer((c) => c.destroy())
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()))
    const p2 = (blocker.address() as {port: number}).port
    try {
      expect((await runCli(['docker', 'quickstart', '--port', String(p1), '--store', join(home, 'a')], {env})).code).to.equal(0)
      const record = readFileSync(join(home, '.mdcli', 'quickstart.json'), 'utf8')
      const failed = await runCli(['docker', 'quickstart', '--port', String(p2), '--store', join(home, 'b')], {env})
      expect(failed.code).to.equal(1)
      expect(failed.stderr).to.match(/did not come up/)
      expect(readFileSync(join(home, '.mdcli', 'quickstart.json'), 'utf8')).to.equal(record)
      expect(existsSync(join(home, 'b', 'lite.pid'))).to.equal(false)
      const stop = await runCli(['docker', 'quickstart', '--stop'], {env})
      expect(stop.code, stop.stderr).to.equal(0)
      expect(stop.stdout).to.match(/Stopped the mdcli server/)
    } finally {
      blocker.close()
      await runCli(['docker', 'quickstart', '--stop', '--store', join(home, 'a')], {env})
      cleanup(home)
    }
  })

  it('telemetry enable/disable records the choice locally', async () => {
    const home = tempDir()
    const env = {...process.env, HOME: home}
    expect((await runCli(['telemetry', 'disable'], {env})).code).to.equal(0)
    const cfg = JSON.parse(readFileSync(join(home, '.mdcli', 'telemetry-config.json'), 'utf8'))
    expect(cfg.enabled).to.equal(false)
    expect(cfg.client_id).to.match(/^[0-9a-f-]{36}$/)
    await runCli(['telemetry', 'enable'], {env})
    expect(JSON.parse(readFileSync(join(home, '.mdcli', 'telemetry-config.json'), 'utf8'))).to.deep.equal({...cfg, enabled: true})
    cleanup(home)
  })
})
