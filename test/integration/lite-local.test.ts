import {expect} from 'chai'
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {cleanup, runCli, startLite, tempDir, type LiteProcess} from '../helpers/lite.js'
import {datasetUrn, mcpRecord, writeJson, writeRecipe} from '../ingest/helpers.js'

describe('DataHub Lite verbs on a stopped store: ls, get, search, list-urns, nuke', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  let dir: string
  const A = datasetUrn('shop.orders', 'postgres')
  const B = datasetUrn('shop.customers', 'postgres')
  const C = datasetUrn('events.clicks', 'kafka')

  before(async () => {
    dir = tempDir('mdcli-lite-local-')
    lite = await startLite()
    const file = writeJson(dir, 'events.json', [
      mcpRecord(A, 'datasetProperties', {name: 'orders', description: 'Every order', customProperties: {}, tags: []}),
      mcpRecord(B, 'datasetProperties', {name: 'customers', customProperties: {}, tags: []}),
      mcpRecord(B, 'ownership', {owners: [{owner: 'urn:li:corpuser:ann', type: 'TECHNICAL_OWNER'}]}),
      mcpRecord(C, 'status', {removed: false}),
      mcpRecord('urn:li:tag:pii', 'tagProperties', {name: 'pii'}),
    ])
    const r = await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'file', config: {path: file}}})], {env: lite.env()})
    expect(r.code, r.stderr).to.equal(0)
  })
  after(async () => {
    await lite?.stop()
    cleanup(dir, lite?.home, lite?.storeDir)
  })

  it('refuses while the server holds the store, naming the server-side command', async () => {
    const r = await runCli(['lite', 'get', '--urn', A, '--store', lite.storeDir], {env: lite.env()})
    expect(r.code).to.equal(1)
    expect(r.stderr).to.match(/held by a running `mdcli lite`.*mdcli get --urn/)
  })

  it('ls walks types, platforms and entities; get, search and list-urns read the store', async () => {
    await lite.stop()
    const env = lite.env()
    const store = ['--store', lite.storeDir]
    const root = JSON.parse((await runCli(['lite', 'ls', '/', ...store, '--json'], {env})).stdout)
    expect(root.entries).to.deep.include({name: 'dataset/', kind: 'folder', count: 3, softDeleted: 0})
    expect(root.entries.map((e: {name: string}) => e.name)).to.include('tag/')
    const ds = JSON.parse((await runCli(['lite', 'ls', '/dataset', ...store, '--json'], {env})).stdout)
    expect(ds.entries).to.deep.equal([
      {name: 'kafka/', kind: 'folder', count: 1},
      {name: 'postgres/', kind: 'folder', count: 2},
    ])
    const pg = await runCli(['lite', 'ls', '/dataset/postgres', ...store], {env})
    expect(pg.stdout.trim().split('\n')).to.deep.equal([B, A])
    const missing = await runCli(['lite', 'ls', '/dataset/oracle', ...store], {env})
    expect(missing.code).to.equal(1)
    expect(missing.stderr).to.match(/No such path: \/dataset\/oracle/)

    const got = JSON.parse((await runCli(['lite', 'get', '--urn', A, '-a', 'datasetProperties', ...store, '--json'], {env})).stdout)
    // The shape of `mdcli get`: aspect name → value.
    expect(got.datasetProperties.description).to.equal('Every order')
    expect(Object.keys(got)).to.deep.equal(['datasetProperties'])
    const none = await runCli(['lite', 'get', '--urn', datasetUrn('no.such'), ...store], {env})
    expect(none.code).to.equal(1)
    // Read as `mdcli get` reads it from the server: the model's defaults filled in (an ownership
    // written without lastModified has DataHub's unknown stamp), as stored otherwise.
    const owned = JSON.parse((await runCli(['lite', 'get', '--urn', B, '-a', 'ownership', ...store, '--json'], {env})).stdout)
    expect(owned.ownership.lastModified).to.deep.equal({time: 0, actor: 'urn:li:corpuser:unknown'})
    expect(owned.ownership.owners).to.deep.equal([{owner: 'urn:li:corpuser:ann', type: 'TECHNICAL_OWNER'}])

    const found = JSON.parse((await runCli(['lite', 'search', 'orders', ...store, '--json'], {env})).stdout)
    expect(found.hits.map((h: {urn: string}) => h.urn)).to.include(A)
    const urns = JSON.parse((await runCli(['lite', 'list-urns', '--entity-type', 'dataset', ...store, '--json'], {env})).stdout)
    expect([...urns.urns].sort()).to.deep.equal([A, B, C].sort())
  })

  it('a mistyped store is refused and not created (export too); a PostgreSQL store\'s password is never printed', async () => {
    const env = lite.env()
    const typo = `${dir}/no-such-store`
    for (const args of [['lite', 'ls', '/'], ['lite', 'export', '--file', `${dir}/typo-backup.json`]]) {
      const r = await runCli([...args, '--store', typo], {env})
      expect(r.code, args.join(' ')).to.equal(1)
      expect(r.stderr).to.match(/No lite store at .*no-such-store/)
      expect(existsSync(typo), args.join(' ')).to.equal(false)
    }
    expect(existsSync(`${dir}/typo-backup.json`)).to.equal(false)
    // A database that is not there: the error names it with the password masked.
    const url = 'postgres://postgres:Sup3rS3cret@127.0.0.1:5432/mdcli_no_such_database_here'
    const pg = await runCli(['lite', 'ls', '/', '--store', url], {env})
    expect(pg.code).to.equal(1)
    expect(pg.stderr + pg.stdout).not.to.include('Sup3rS3cret')
    expect(pg.stderr).not.to.match(/No lite store/)
  })

  it('nuke asks (refusing without a terminal), refuses a directory that is not a store, and removes a store with --force', async () => {
    const env = lite.env()
    const asked = await runCli(['lite', 'nuke', '--store', lite.storeDir], {env})
    expect(asked.code).to.equal(1)
    expect(asked.stderr).to.match(/--force/)
    expect(existsSync(lite.storeDir)).to.equal(true)
    const declined = await runCli(['lite', 'nuke', '--store', lite.storeDir], {env, input: 'n\n'})
    expect(declined.code).to.equal(1)
    expect(declined.stderr).to.match(/Aborted; nothing was removed/)
    expect(existsSync(lite.storeDir)).to.equal(true)
    const notStore = await runCli(['lite', 'nuke', '--store', dir, '--force'], {env})
    expect(notStore.code).to.equal(1)
    expect(notStore.stderr).to.match(/does not look like an mdcli store/)
    expect(existsSync(dir)).to.equal(true)
    // A project with a manifest.json of its own (a web app, an extension) is no store.
    const project = join(dir, 'project')
    mkdirSync(join(project, 'src'), {recursive: true})
    writeFileSync(join(project, 'manifest.json'), '{"name": "my-extension", "version": "1.0"}')
    writeFileSync(join(project, 'src', 'app.js'), 'code')
    const notProject = await runCli(['lite', 'nuke', '--store', project, '--force'], {env})
    expect(notProject.code).to.equal(1)
    expect(notProject.stderr).to.match(/does not look like an mdcli store/)
    expect(existsSync(join(project, 'src', 'app.js'))).to.equal(true)
    const gone = await runCli(['lite', 'nuke', '--store', lite.storeDir, '--force', '--json'], {env})
    expect(gone.code, gone.stderr).to.equal(0)
    expect(JSON.parse(gone.stdout).files).to.be.greaterThan(0)
    expect(existsSync(lite.storeDir)).to.equal(false)
    // Already gone: said so, and a success — nothing was asked that did not happen.
    const again = await runCli(['lite', 'nuke', '--store', lite.storeDir, '--force'], {env})
    expect(again.code, again.stderr).to.equal(0)
    expect(again.stdout).to.match(/No store at .*; nothing to remove\./)
    const againJson = await runCli(['lite', 'nuke', '--store', lite.storeDir, '--json'], {env})
    expect(againJson.code).to.equal(0)
    expect(JSON.parse(againJson.stdout)).to.include({removed: false, files: 0})
  })
})
