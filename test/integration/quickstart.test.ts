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
      const check = await runCli(['docker', 'check'], {env})
      expect(check.code, check.stderr).to.equal(0)
      expect(check.stdout.trim()).to.equal('✔ No issues detected')
      // The background server saved its admin token: a write works without passing one.
      const get = await runCli(['get', '--urn', 'urn:li:corpuser:datahub', '-a', 'corpUserInfo'], {env})
      expect(get.code, get.stderr).to.equal(0)
      // --stop finds the store quickstart was given without repeating --store.
      expect(JSON.parse(readFileSync(join(home, '.mdcli', 'quickstart.json'), 'utf8')).store).to.equal(store)
      const stop = await runCli(['docker', 'quickstart', '--stop'], {env})
      expect(stop.code, stop.stderr).to.equal(0)
      expect(existsSync(join(home, '.mdcli', 'quickstart.json'))).to.equal(false)
      expect(existsSync(join(store, 'lite.pid'))).to.equal(false)
      const down = await runCli(['docker', 'check'], {env})
      expect(down.code).to.equal(1)
      expect(down.stderr).to.match(/Could not reach the mdcli server/)
    } finally {
      await runCli(['docker', 'quickstart', '--stop', '--store', store], {env})
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
