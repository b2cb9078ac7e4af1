/**
 * Small things a person meets every day, each through the real CLI and a real `mdcli lite`:
 * store files owner-only, a store path that is a file, `get` and `lite get` printing the same,
 * a soft delete of an entity already soft-deleted, and `telemetry enable|disable|status`.
 */
import {expect} from 'chai'
import {readdirSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {cleanup, runCli, startLite, tempDir, type LiteProcess} from '../helpers/lite.js'
import {datasetUrn} from '../ingest/helpers.js'

const DS = datasetUrn('details.orders')

/** Every file and folder under `dir`, with its permission bits. */
function modes(dir: string): Array<[string, number]> {
  const out: Array<[string, number]> = [[dir, statSync(dir).mode & 0o777]]
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...modes(p))
    else out.push([p, statSync(p).mode & 0o777])
  }
  return out
}

describe('everyday details: owner-only store, clear errors, one get shape, honest delete and telemetry lines', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  let storeDir: string

  before(async () => {
    storeDir = join(tempDir('mdcli-details-'), 'store')
    lite = await startLite({storeDir})
    const put = (aspect: string, value: unknown) => runCli(['put', '--urn', DS, '-a', aspect, '-d', '-'], {env: lite.env(), input: JSON.stringify(value)})
    expect((await put('datasetProperties', {description: 'Every order', customProperties: {b: '2', a: '1'}})).code).to.equal(0)
    // A second version, so that history.log has an old one.
    expect((await put('datasetProperties', {description: 'Every order, again', customProperties: {b: '2', a: '1'}})).code).to.equal(0)
    expect((await put('globalTags', {tags: [{tag: 'urn:li:tag:pii'}]})).code).to.equal(0)
  })
  after(async () => {
    await lite?.stop()
    cleanup(lite?.home, storeDir)
  })

  it('soft-deleting an entity twice says the second time that it was already deleted, in the singular', async () => {
    const first = await runCli(['delete', '--urn', DS, '--soft', '--force'], {env: lite.env()})
    expect(first.code, first.stderr).to.equal(0)
    expect(first.stdout).to.match(/^Soft deleted 1 entity \(impacts 1 versioned row and 0 timeseries aspect rows\)/m)
    const again = await runCli(['delete', '--urn', DS, '--soft', '--force'], {env: lite.env()})
    expect(again.code, again.stderr).to.equal(0)
    expect(again.stdout).to.include(`${DS} was already soft-deleted; left as it was.`)
    expect(again.stdout).to.match(/^Soft deleted 0 entities \(impacts 0 versioned rows/m)
    const json = JSON.parse((await runCli(['delete', '--urn', DS, '--soft', '--force', '--json'], {env: lite.env()})).stdout)
    expect(json).to.include({entities: 0, rows: 0})
    expect(json.alreadyDeleted).to.deep.equal([DS])
    // Back, for the tests below.
    const back = await runCli(['put', '--urn', DS, '-a', 'status', '-d', '-'], {env: lite.env(), input: '{"removed": false}'})
    expect(back.code).to.equal(0)
  })

  it('`get` and `lite get` print the same JSON, as text and with --json', async () => {
    const server = await runCli(['get', '--urn', DS], {env: lite.env()})
    const serverJson = await runCli(['get', '--urn', DS, '--json'], {env: lite.env()})
    expect(server.code, server.stderr).to.equal(0)
    await lite.stop()
    const local = await runCli(['lite', 'get', '--urn', DS, '--store', storeDir], {env: lite.env()})
    const localJson = await runCli(['lite', 'get', '--urn', DS, '--store', storeDir, '--json'], {env: lite.env()})
    expect(local.code, local.stderr).to.equal(0)
    expect(local.stdout).to.equal(server.stdout)
    expect(JSON.parse(localJson.stdout)).to.deep.equal(JSON.parse(serverJson.stdout))
    expect(Object.keys(JSON.parse(local.stdout))).to.include.members(['datasetProperties', 'globalTags'])
  })

  it('every file of the store, history.log included, is owner-only', async () => {
    // The server stopped in the test above: a checkpoint wrote shards, journal and history.
    const all = modes(storeDir)
    expect(all.map(([p]) => p.split('/').at(-1))).to.include('history.log')
    const open = all.filter(([, m]) => (m & 0o077) !== 0)
    expect(open, JSON.stringify(open.map(([p, m]) => `${p} ${m.toString(8)}`))).to.deep.equal([])
  })

  it('lite --store naming a file says so in one line, with no raw EEXIST', async () => {
    const file = join(tempDir('mdcli-details-file-'), 'not-a-dir')
    writeFileSync(file, 'x')
    const r = await runCli(['lite', '--store', file, '--port', '0'], {env: lite.env()})
    expect(r.code).to.equal(1)
    expect(r.stderr.trim().split('\n')).to.have.length(1)
    expect(r.stderr).to.match(/^Error: The store .*not-a-dir is not a directory/)
    expect(r.stderr).to.not.include('EEXIST')
  })

  it('telemetry enable, disable and status say the state, and --json gives it', async () => {
    const env = lite.env({HOME: tempDir('mdcli-details-home-')})
    delete env.METADATA_TELEMETRY_ENABLED
    delete env.METADATA_TELEMETRY_ENDPOINT
    const off = await runCli(['telemetry', 'disable'], {env})
    expect(off.code).to.equal(0)
    expect(off.stdout).to.match(/^Telemetry is disabled \(.*telemetry-config\.json\); nothing is sent\.$/m)
    const status = JSON.parse((await runCli(['telemetry', 'status', '--json'], {env})).stdout)
    expect(status).to.include({enabled: false, sending: false})
    const on = await runCli(['telemetry', 'enable'], {env: {...env, METADATA_TELEMETRY_ENDPOINT: 'http://127.0.0.1:9/events'}})
    expect(on.stdout).to.match(/^Telemetry is enabled .*; events go to http:\/\/127\.0\.0\.1:9\/events\.$/m)
    const plain = await runCli(['telemetry', 'status'], {env})
    expect(plain.stdout).to.match(/^Telemetry is enabled .*; nothing is sent: no METADATA_TELEMETRY_ENDPOINT is set\.$/m)
    // The environment's switch wins over the saved one, and the line says so (it said "enabled").
    for (const extra of [{}, {METADATA_TELEMETRY_ENDPOINT: 'http://127.0.0.1:9/events'}]) {
      const envOff = await runCli(['telemetry', 'status'], {env: {...env, ...extra, METADATA_TELEMETRY_ENABLED: 'false'}})
      expect(envOff.stdout).to.match(/^Telemetry is off: METADATA_TELEMETRY_ENABLED=false turns it off here \(the saved switch in .*telemetry-config\.json is on\); nothing is sent\.$/m)
    }
  })
})
