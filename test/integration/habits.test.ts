import {expect} from 'chai'
import {cleanup, runCli, tempDir, useLite} from '../helpers/lite.js'
import {datasetUrn, mcpRecord, writeJson, writeRecipe} from '../ingest/helpers.js'

describe('DataHub habits on the command line: search, the default sink, typos', function () {
  this.timeout(120_000)
  const lite = useLite()
  let dir: string
  before(() => {
    dir = tempDir('mdcli-habits-')
  })
  after(() => cleanup(dir))

  it('a recipe without `sink:` writes to the configured server through the REST sink', async () => {
    const file = writeJson(dir, 'events.json', [
      mcpRecord(datasetUrn('habits.customer_orders', 'postgres'), 'datasetProperties', {name: 'customer_orders', description: 'Orders placed by customers', customProperties: {}, tags: []}),
      mcpRecord(datasetUrn('habits.invoices', 'mysql'), 'datasetProperties', {name: 'invoices', customProperties: {}, tags: []}),
    ])
    const r = await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'file', config: {path: file}}}, 'nosink.yml')], {env: lite.env()})
    expect(r.code, r.stderr).to.equal(0)
    const got = await runCli(['get', '--urn', datasetUrn('habits.customer_orders', 'postgres'), '-a', 'datasetProperties'], {env: lite.env()})
    expect(got.code, got.stderr).to.equal(0)
    expect(got.stdout).to.include('Orders placed by customers')
  })

  it('`mdcli search` finds by text, filters by field=value and type, pages, and prints JSON', async () => {
    const text = await runCli(['search', 'customer_orders'], {env: lite.env()})
    expect(text.code, text.stderr).to.equal(0)
    expect(text.stdout).to.include(datasetUrn('habits.customer_orders', 'postgres'))
    const json = await runCli(['search', '*', '--entity-type', 'dataset', '--filter', 'platform=urn:li:dataPlatform:mysql', '--json'], {env: lite.env()})
    expect(json.code, json.stderr).to.equal(0)
    const out = JSON.parse(json.stdout)
    expect(out.entities.map((e: {urn: string}) => e.urn)).to.deep.equal([datasetUrn('habits.invoices', 'mysql')])
    const page = await runCli(['search', '*', '--entity-type', 'dataset', '--count', '1', '--json'], {env: lite.env()})
    expect(JSON.parse(page.stdout).entities).to.have.length(1)
    const bad = await runCli(['search', 'x', '--filter', 'platform'], {env: lite.env()})
    expect(bad.code).to.not.equal(0)
    expect(bad.stderr).to.match(/--filter 'platform' is not field=value/)
  })

  it('a mistyped command is named as typed, with the closest command, and exits 127', async () => {
    const r = await runCli(['serch', 'foo'], {env: lite.env()})
    expect(r.code).to.equal(127)
    expect(r.stderr).to.match(/'serch foo' is not a mdcli command\. Did you mean 'mdcli search'\?/)
    const nested = await runCli(['lite', 'expotr', 'x'], {env: lite.env()})
    expect(nested.code).to.equal(127)
    expect(nested.stderr).to.not.match(/lite:expotr/)
    expect(nested.stderr).to.match(/Did you mean 'mdcli lite export'\?/)
  })
})
