/**
 * `mdcli lite ls|get|search|list-urns|nuke` read a stopped store directly, as DataHub Lite reads
 * its DuckDB file: data written through the real server is browsed, fetched and found after the
 * server stops; while it runs they refuse with E_STORE_LOCKED; nuke removes the store.
 */
import {expect} from 'chai'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {cleanup, http, runCli, startLite, tempDir} from '../helpers/lite.js'

const PG = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:postgres,${n},PROD)`
const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,orders-events,PROD)'

describe('mdcli lite ls / get / search / list-urns / nuke', function () {
  this.timeout(120_000)
  let work: string
  let storeDir: string
  let env: NodeJS.ProcessEnv
  const cli = (...args: string[]) => runCli(['lite', ...args, '--store', storeDir], {env})

  before(async () => {
    work = tempDir('mdcli-liteverbs-')
    storeDir = join(work, 'store')
    env = {...process.env, HOME: work, NO_COLOR: '1', METADATA_TELEMETRY_ENABLED: 'false'}
    const lite = await startLite({storeDir})
    const propose = (urn: string, aspectName: string, value: unknown) =>
      http(`${lite.url}/aspects?action=ingestProposal`, {
        body: {proposal: {entityType: 'dataset', entityUrn: urn, aspectName, changeType: 'UPSERT', aspect: {contentType: 'application/json', value: JSON.stringify(value)}, systemMetadata: {runId: 'r1'}}},
      })
    try {
      expect((await propose(PG('shop.public.orders'), 'datasetProperties', {name: 'Customer Orders', customProperties: {}, tags: []})).status).to.equal(200)
      expect((await propose(PG('shop.public.users'), 'datasetProperties', {name: 'users', customProperties: {}, tags: []})).status).to.equal(200)
      expect((await propose(KAFKA, 'status', {removed: false})).status).to.equal(200)
      const held = await cli('list-urns')
      expect(held.code).to.equal(1)
      expect(held.stderr).to.match(/in use by process/)
    } finally {
      await lite.stop()
    }
  })
  after(() => cleanup(work))

  it('ls walks categories, platforms and name parts down to urns', async () => {
    const root = await cli('ls')
    expect(root.code, root.stderr).to.equal(0)
    expect(root.stdout.trim().split('\n')).to.deep.equal(['/databases/', '/streaming/'])
    const pg = await cli('ls', '/databases/postgres/shop/public')
    expect(pg.stdout.trim().split('\n')).to.deep.equal([`/databases/postgres/shop/public/orders\t${PG('shop.public.orders')}`, `/databases/postgres/shop/public/users\t${PG('shop.public.users')}`])
    const json = JSON.parse((await cli('ls', '/databases', '--json')).stdout)
    expect(json).to.deep.equal([{name: 'postgres', path: '/databases/postgres'}])
    const bad = await cli('ls', '/databases/postgress')
    expect(bad.code).to.equal(1)
    expect(bad.stderr).to.match(/Path not found at \/databases\/postgress; did you mean one of: postgres/)
  })

  it('get prints {urn, aspect…} by urn or by path, with __systemMetadata when verbose', async () => {
    const byUrn = await cli('get', '--urn', PG('shop.public.orders'), '--json')
    expect(byUrn.code, byUrn.stderr).to.equal(0)
    expect(JSON.parse(byUrn.stdout)).to.deep.include({urn: PG('shop.public.orders')})
    expect(JSON.parse(byUrn.stdout).datasetProperties.name).to.equal('Customer Orders')
    const byPath = await cli('get', '/databases/postgres/shop/public/orders', '-a', 'datasetProperties', '--verbose')
    expect(byPath.code, byPath.stderr).to.equal(0)
    const out = JSON.parse(byPath.stdout)
    expect(out.datasetProperties.__systemMetadata.runId).to.equal('r1')
    const none = await cli('get')
    expect(none.code).to.equal(1)
    expect(none.stderr).to.match(/Nothing for me to get/)
  })

  it('search finds by urn substring and by name; list-urns lists every urn', async () => {
    const s = await cli('search', 'customer')
    expect(s.stdout.trim().split('\n')).to.deep.equal([PG('shop.public.orders')])
    const exact = await cli('search', 'users', '--flavor', 'exact', '--details')
    expect(JSON.parse(exact.stdout.trim())).to.deep.equal({urn: PG('shop.public.users'), aspect: 'datasetProperties', snippet: 'users'})
    const byUrn = await cli('search', 'kafka')
    expect(byUrn.stdout.trim()).to.equal(KAFKA)
    const urns = (await cli('list-urns')).stdout.trim().split('\n')
    // Every entity, the server's own (admin user, policies) included, as DataHub Lite lists them.
    expect(urns.filter((u) => u.startsWith('urn:li:dataset:')).sort()).to.deep.equal([PG('shop.public.orders'), PG('shop.public.users'), KAFKA].sort())
    expect(urns).to.include('urn:li:corpuser:datahub')
  })

  it('nuke refuses without a terminal or --force, then removes the store', async () => {
    const asked = await cli('nuke')
    expect(asked.code).to.equal(1)
    expect(asked.stderr).to.match(/permanently delete the DataHub Lite instance.*--force/)
    expect(existsSync(storeDir)).to.equal(true)
    const gone = await cli('nuke', '--force')
    expect(gone.code, gone.stderr).to.equal(0)
    expect(gone.stdout).to.match(/nuked!/)
    expect(existsSync(storeDir)).to.equal(false)
    expect((await cli('nuke', '--force')).stderr).to.match(/No DataHub Lite instance/)
  })
})
