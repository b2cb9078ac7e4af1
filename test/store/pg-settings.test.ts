import {expect} from 'chai'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {defaultStoreDir} from '../../src/config/settings.js'
import {maskUrl} from '../../src/store/postgres/url.js'
import {cleanup, runCli, tempDir} from '../helpers/lite.js'

describe('choosing the PostgreSQL store', function () {
  this.timeout(60000)

  it('takes the store from METADATA_STORE_URL, else the config file, else the directory', () => {
    const home = tempDir()
    try {
      const env = {HOME: home}
      expect(defaultStoreDir(env)).to.equal(join(home, '.local', 'share', 'mdcli', 'lite'))
      writeFileSync(join(home, '.mdclienv'), 'gms:\n  server: http://127.0.0.1:8080\nstore: postgres://mdcli:pw@127.0.0.1:5432/catalog\n')
      expect(defaultStoreDir(env)).to.equal('postgres://mdcli:pw@127.0.0.1:5432/catalog')
      expect(defaultStoreDir({...env, METADATA_STORE_URL: 'postgres://other@127.0.0.1/x'})).to.equal('postgres://other@127.0.0.1/x')
    } finally {
      cleanup(home)
    }
  })

  it('masks the password of a store URL', () => {
    expect(maskUrl('postgres://mdcli:s3cret@db:5432/catalog')).to.equal('postgres://mdcli:****@db:5432/catalog')
    expect(maskUrl('postgres://mdcli@db/catalog')).to.equal('postgres://mdcli@db/catalog')
    // node-postgres also reads the password from the query.
    expect(maskUrl('postgres://mdcli@db/catalog?password=S3cretQS&sslmode=disable')).to.equal('postgres://mdcli@db/catalog?password=****&sslmode=disable')
    expect(maskUrl('postgres://mdcli@db/catalog?sslpassword=k3y')).to.equal('postgres://mdcli@db/catalog?sslpassword=****')
    expect(maskUrl('/var/lib/mdcli')).to.equal('/var/lib/mdcli')
  })

  it('fails to start on an unreachable database with one line that never shows the password', async () => {
    const home = tempDir()
    try {
      // Port 1 on 127.0.0.1: nothing listens, the connection is refused at once.
      const r = await runCli(['lite', '--port', '0', '--store', 'postgres://mdcli:topsecret-pw@127.0.0.1:1/catalog'], {env: {...process.env, HOME: home, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1'}, timeoutMs: 30000})
      expect(r.code).to.not.equal(0)
      expect(r.stdout + r.stderr).to.include('postgres://mdcli:****@127.0.0.1:1/catalog')
      expect(r.stdout + r.stderr).not.to.include('topsecret-pw')
    } finally {
      cleanup(home)
    }
  })

  it('never shows a METADATA_STORE_URL password in --help, and lite nuke refuses a database', async () => {
    const home = tempDir()
    const env = {...process.env, HOME: home, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1', METADATA_STORE_URL: 'postgres://mdcli:help-secret@127.0.0.1:1/catalog'}
    try {
      for (const cmd of [['lite', '--help'], ['lite', 'export', '--help'], ['lite', 'import', '--help']]) {
        const r = await runCli(cmd, {env})
        expect(r.stdout + r.stderr, cmd.join(' ')).to.include('postgres://mdcli:****@127.0.0.1:1/catalog')
        expect(r.stdout + r.stderr, cmd.join(' ')).not.to.include('help-secret')
      }
      const nuke = await runCli(['lite', 'nuke', '--force'], {env})
      expect(nuke.code).to.not.equal(0)
      expect(nuke.stderr).to.match(/PostgreSQL database/)
      expect(nuke.stdout + nuke.stderr).not.to.include('help-secret')
    } finally {
      cleanup(home)
    }
  })
})
