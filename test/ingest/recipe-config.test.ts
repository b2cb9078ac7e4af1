import {execFileSync} from 'node:child_process'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer as createHttpsServer, type Server} from 'node:https'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {expect} from 'chai'
import {forwardTo} from '../helpers/http-forward.js'
import {cleanup, tempDir, useLite} from '../helpers/lite.js'
import {startReplay} from '../helpers/replay.js'
import {datasetUrn, ingestJson, mcpRecord, offlineEnv, readJson, writeJson, writeRecipe} from './helpers.js'

// Recipe values as DataHub's pydantic models take them, through the real `mdcli ingest`.
describe('recipes: config values as DataHub reads them', function () {
  this.timeout(60_000)
  let dir: string
  let input: string
  before(() => {
    dir = tempDir('mdcli-recipe-config-')
    input = writeJson(dir, 'in.json', [mcpRecord(datasetUrn('cfg.t'), 'status', {removed: false})])
  })
  after(() => cleanup(dir))

  describe('with a server', () => {
    const lite = useLite()

    it('numeric text from ${VAR} feeds number and integer keys', async () => {
      const recipe = writeRecipe(dir, {source: {type: 'file', config: {path: input}}, sink: {type: 'datahub-rest', config: {max_threads: '${MAX_THREADS}', batch_size: '${BATCH}', timeout_sec: '${TIMEOUT}'}}}, 'num.yml')
      const r = await ingestJson(recipe, {...lite.env(), MAX_THREADS: '3', BATCH: ' 7 ', TIMEOUT: '2.5'})
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      expect(r.result.sink.report.info).to.include({maxThreads: 3, batchSize: 7})
      expect(r.result.sink.recordsWritten).to.equal(1)
    })

    it("enum values in any case, as DataHub's ConfigEnum reads them (sink mode: async_batch)", async () => {
      const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: input, read_mode: 'stream'}}, sink: {type: 'datahub-rest', config: {mode: 'async_batch'}}}, 'enum.yml'), lite.env())
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      expect(r.result.sink.recordsWritten).to.equal(1)
    })

    describe('an https server: the sink takes DataHub’s TLS keys', () => {
      let certs: string
      let proxy: Server
      let url: string
      before(async () => {
        // A CA, a server certificate for 127.0.0.1 and a client certificate (cert + key in one PEM, as DataHub's client_certificate_path).
        certs = join(dir, 'certs')
        mkdirSync(certs, {recursive: true})
        const ssl = (...args: string[]) => execFileSync('openssl', args, {cwd: certs, stdio: 'pipe'})
        ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=mdcli test CA')
        writeFileSync(join(certs, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\n')
        for (const name of ['server', 'client']) {
          ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name === 'server' ? '127.0.0.1' : 'mdcli client'}`)
          ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', ...(name === 'server' ? ['-extfile', 'ext.cnf'] : []))
        }
        writeFileSync(join(certs, 'client-bundle.pem'), Buffer.concat([readFileSync(join(certs, 'client.pem')), readFileSync(join(certs, 'client.key'))]))
        // TLS in front of the server, asking for a client certificate signed by the CA.
        const target = new URL(lite.url)
        proxy = createHttpsServer({key: readFileSync(join(certs, 'server.key')), cert: readFileSync(join(certs, 'server.pem')), ca: readFileSync(join(certs, 'ca.pem')), requestCert: true, rejectUnauthorized: true}, (req, res) => {
          forwardTo(target, req, res)
        })
        await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok))
        url = `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`
      })
      after(() => new Promise<void>((ok) => proxy.close(() => ok())))

      const send = (tls: Record<string, unknown>, name: string) =>
        ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: input}}, sink: {type: 'datahub-rest', config: {server: url, retry_max_times: 0, ...tls}}}, name), lite.env())

      it('ca_certificate_path and client_certificate_path (relative to the recipe), or disable_ssl_verification', async () => {
        for (const [tls, ok, why] of [
          [{}, false, /self-signed certificate/],
          [{ca_certificate_path: 'certs/ca.pem'}, false, /certificate required/],
          [{ca_certificate_path: 'certs/ca.pem', client_certificate_path: 'certs/client-bundle.pem'}, true],
          [{disable_ssl_verification: true, client_certificate_path: join(certs, 'client-bundle.pem')}, true],
          [{disable_ssl_verification: true}, false, /certificate required/],
        ] as const) {
          const r = await send(tls, 'tls.yml')
          expect(r.code, `${JSON.stringify(tls)}: ${r.stderr}${r.stdout}`).to.equal(ok ? 0 : 1)
          if (ok) expect(r.result.sink.recordsWritten).to.equal(1)
          else expect(r.result.error.message).to.match(why!)
        }
        const missing = await send({ca_certificate_path: 'certs/nope.pem'}, 'tls-missing.yml')
        expect(missing.code).to.equal(1)
        expect(missing.result.error.message).to.match(/sink\.config\.ca_certificate_path: cannot read certs\/nope\.pem: ENOENT/)
      })
    })
  })

  it('text that is not a number is refused naming the key', async () => {
    const recipe = writeRecipe(dir, {source: {type: 'file', config: {path: input}}, sink: {type: 'datahub-rest', config: {max_threads: '${MAX_THREADS}', timeout_sec: 'soon'}}}, 'nan.yml')
    const r = await ingestJson(recipe, {...offlineEnv(dir), MAX_THREADS: '2.5'})
    expect(r.code).to.equal(1)
    expect(r.result.error.message).to.match(/sink\.config\.max_threads: expected integer, got string that is not a whole number/)
    expect(r.result.error.message).to.match(/sink\.config\.timeout_sec: expected number, got string that is not a number/)
  })

  it('a ${ with no } after it is taken literally, as DataHub does', async () => {
    const odd = join(dir, 'odd${name.json')
    writeFileSync(odd, JSON.stringify([mcpRecord(datasetUrn('odd.t'), 'status', {removed: false})]))
    const out = join(dir, 'odd-out.json')
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: odd}}, sink: {type: 'file', config: {filename: out}}}, 'odd.yml'), offlineEnv(dir))
    expect(r.code, r.stderr + r.stdout).to.equal(0)
    expect(readJson<unknown[]>(out)).to.have.length(1)
  })

  it('a password holding ${ reaches the source as written, and no recipe error shows a secret', async () => {
    const replay = await startReplay((req) => (req.path === '/api/session' ? {status: 401, body: {errors: {password: 'did not match'}}} : undefined))
    try {
      const metabase = (password: string, extra: Record<string, unknown> = {}) =>
        writeRecipe(dir, {source: {type: 'metabase', config: {connect_uri: replay.url, username: 'ann', password, ...extra}}, sink: {type: 'file', config: {filename: join(dir, 'mb.json')}}}, 'mb.yml')
      let r = await ingestJson(metabase('p4ss${word'), offlineEnv(dir))
      expect(r.code).to.equal(1)
      expect(JSON.parse(replay.requests[0]!.body)).to.deep.equal({username: 'ann', password: 'p4ss${word'})
      expect(r.result.error.message).to.match(/login as ann .* failed/)
      expect(r.stdout + r.stderr).to.not.include('p4ss')
      // A malformed reference: the key is named, a secret's value is not shown; another key's is.
      r = await ingestJson(metabase('s3cr3t-${HOME}-${oops'), offlineEnv(dir))
      expect(r.code).to.equal(1)
      expect(r.result.error.message).to.match(/malformed variable reference in the value \(not shown: a secret\) at source\.config\.password/)
      expect(r.stdout + r.stderr).to.not.include('s3cr3t')
      r = await ingestJson(metabase('x', {display_uri: 'shown-${HOME}-${oops'}), offlineEnv(dir))
      expect(r.result.error.message).to.include("malformed variable reference in 'shown-${HOME}-${oops' at source.config.display_uri")
    } finally {
      await replay.close()
    }
  })
})
