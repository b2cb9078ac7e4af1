/**
 * The spec's defaults (#15 Deliver 9): --debug logs each request (method, URL, status, time; never
 * the token), the settings sources and the command's time; the config file is created on first
 * use unless METADATA_SKIP_CONFIG=true; the ingest report opens with DataHub's Cli report block.
 */
import {expect} from 'chai'
import {existsSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {cleanup, runCli, tempDir, useLite} from '../helpers/lite.js'
import {writeRecipe} from '../ingest/helpers.js'

describe('--debug, first-use config file, Cli report', function () {
  this.timeout(120_000)
  const lite = useLite()
  let work: string
  before(() => (work = tempDir('mdcli-debugcfg-')))
  after(() => cleanup(work))

  it('--debug logs each request with method, URL, status and time, the sources and timing, never the token', async () => {
    const r = await runCli(['get', '--urn', 'urn:li:corpuser:datahub', '-a', 'corpUserInfo', '--debug'], {env: lite.env()})
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stderr).to.match(new RegExp(`\\[debug\\] GET ${lite.url.replace(/[.]/g, '\\.')}/entitiesV2/urn%3Ali%3Acorpuser%3Adatahub\\S* → 200 in \\d+ ms`))
    expect(r.stderr).to.match(/\[debug\] server .* settings from environment variable METADATA_GMS_URL/)
    expect(r.stderr).to.match(/\[debug\] get finished in \d+ ms/)
    expect(r.stderr).to.not.include(lite.token)
    const quiet = await runCli(['get', '--urn', 'urn:li:corpuser:datahub', '-a', 'corpUserInfo'], {env: lite.env()})
    expect(quiet.stderr).to.not.include('[debug]')
  })

  it('creates the config file on first use (owner-only), and not with METADATA_SKIP_CONFIG=true', async () => {
    const home = join(work, 'fresh')
    const env = {...lite.env(), HOME: home}
    const r = await runCli(['get', '--urn', 'urn:li:corpuser:datahub', '-a', 'corpUserInfo'], {env})
    expect(r.code, r.stderr).to.equal(0)
    const path = join(home, '.mdclienv')
    expect(readFileSync(path, 'utf8')).to.match(/gms:\n\s+server: http:\/\/localhost:8080\n\s+token: null/)
    expect(statSync(path).mode & 0o777).to.equal(0o600)
    const skipHome = join(work, 'skip')
    expect((await runCli(['get', '--urn', 'urn:li:corpuser:datahub'], {env: {...env, HOME: skipHome, METADATA_SKIP_CONFIG: 'true'}})).code).to.equal(0)
    expect(existsSync(join(skipHome, '.mdclienv'))).to.equal(false)
  })

  it('the ingest report has the Cli, Source and Sink blocks', async () => {
    const file = join(work, 'one.json')
    writeFileSync(file, JSON.stringify([{entityType: 'dataset', entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,dbg,PROD)', changeType: 'UPSERT', aspectName: 'status', aspect: {json: {removed: false}}}]))
    const recipe = writeRecipe(work, {source: {type: 'file', config: {path: file}}})
    const r = await runCli(['ingest', '-c', recipe], {env: lite.env()})
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stdout).to.match(/^Cli report:\n  cli version: \d+\.\d+\.\d+\n  node version: v\d+/m)
    expect(r.stdout.indexOf('Cli report:')).to.be.lessThan(r.stdout.indexOf('Source (file) report:'))
    expect(r.stdout).to.match(/Sink \(datahub-rest\) report:\n  aspects sent: 1 \(1 written \+ 0 unchanged\)\n  aspects written: 1 \(new versions\)\n  aspects unchanged: 0 .*\n  key aspects: 1 .*\n  rows: 1 aspects written \+ 1 key aspects = 2 rows/)
  })
})
