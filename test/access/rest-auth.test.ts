/**
 * Authentication on the REST endpoints and the CLI: the first-start admin token, 401 for
 * missing, malformed and unknown tokens, and public health/config.
 */
import {expect} from 'chai'
import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {encodeUrnPath} from '../../src/model/urn.js'
import {cleanup, http, type LiteProcess, runCli, startLite} from '../helpers/lite.js'

const TAG = 'urn:li:tag:authcheck'
const proposal = {proposal: {entityUrn: TAG, aspectName: 'tagProperties', changeType: 'UPSERT', aspect: {json: {name: 'authcheck'}}}}

describe('authentication', function () {
  let lite: LiteProcess
  before(async () => (lite = await startLite()))
  after(async () => {
    await lite.stop()
    cleanup(lite.storeDir, lite.home)
  })

  it('prints an admin token once at first start and saves it owner-only for the CLI', async () => {
    expect(lite.token).to.match(/^mdt_[A-Za-z0-9_-]{40,}$/)
    expect(lite.output().split(lite.token).length - 1).to.equal(1)
    const path = join(lite.home, '.mdclienv')
    expect(statSync(path).mode & 0o777).to.equal(0o600)
    expect(readFileSync(path, 'utf8')).to.include(lite.token)
    // A command with no token in its environment finds it in the config file.
    const env = lite.env()
    delete env.METADATA_GMS_TOKEN
    delete env.METADATA_GMS_URL
    const r = await runCli(['get', '--urn', 'urn:li:corpuser:datahub', '-a', 'corpUserInfo'], {env})
    expect(r.code, r.stderr).to.equal(0)
    expect(JSON.parse(r.stdout).corpUserInfo.displayName).to.equal('Admin')
  })

  it('does not mint a second token on restart', async () => {
    await lite.stop()
    lite = await startLite({storeDir: lite.storeDir, home: lite.home})
    expect(lite.output()).to.not.match(/mdt_/)
    expect((await http(`${lite.url}/entitiesV2/${encodeUrnPath('urn:li:corpuser:datahub')}`)).status).to.equal(200)
  })

  it('keeps /health and /config open', async () => {
    expect((await http(`${lite.url}/health`, {token: null})).status).to.equal(200)
    expect((await http(`${lite.url}/config`, {token: null})).status).to.equal(200)
  })

  const refusals: Array<[string, Record<string, string> | undefined, string | null, RegExp]> = [
    ['no token', undefined, null, /no access token was sent/],
    ['a malformed header', {authorization: 'Token abc'}, null, /not "Bearer <token>"/],
    ['a token this server never issued', undefined, 'mdt_' + 'A'.repeat(43), /unknown or revoked/],
    ['something that is not a token', undefined, 'hunter2', /not a token this server issued/],
  ]
  for (const [what, headers, token, msg] of refusals) {
    it(`refuses ${what} with 401 and writes nothing`, async () => {
      const w = await http(`${lite.url}/aspects?action=ingestProposal`, {body: proposal, headers, token})
      expect(w.status).to.equal(401)
      expect(w.body.code).to.equal('E_UNAUTHENTICATED')
      expect(w.body.message).to.match(msg)
      const r = await http(`${lite.url}/entitiesV2/${encodeUrnPath(TAG)}`, {headers, token})
      expect(r.status).to.equal(401)
      expect(r.body.aspects).to.equal(undefined)
      expect((await http(`${lite.url}/entitiesV2/${encodeUrnPath(TAG)}?alwaysIncludeKeyAspect=false`)).status).to.equal(404)
    })
  }

  it('the CLI with a wrong token gives one clear line and a non-zero exit', async () => {
    const r = await runCli(['get', '--urn', 'urn:li:corpuser:datahub'], {env: lite.env({METADATA_GMS_TOKEN: 'mdt_wrongwrongwrongwrongwrong'})})
    expect(r.code).to.equal(1)
    expect(r.stderr.trim().split('\n')).to.have.length(1)
    expect(r.stderr).to.match(/^Error: Invalid access token: unknown or revoked/)
  })

  it('the admin token writes', async () => {
    expect((await http(`${lite.url}/aspects?action=ingestProposal`, {body: proposal})).status).to.equal(200)
  })
})

describe('lite --no-auth', function () {
  it('lets every request act as the root user and says so loudly', async () => {
    const lite = await startLite({args: ['--no-auth']})
    try {
      expect(lite.output()).to.match(/WARNING: authentication is OFF/)
      const w = await http(`${lite.url}/aspects?action=ingestProposal`, {body: proposal, token: null})
      expect(w.status).to.equal(200)
      const a = await http(`${lite.url}/aspects/${encodeUrnPath(TAG)}?aspect=tagProperties`, {token: null})
      expect(a.body.created.actor).to.equal('urn:li:corpuser:datahub')
    } finally {
      await lite.stop()
      cleanup(lite.storeDir, lite.home)
    }
  })
})
