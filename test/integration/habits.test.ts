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
    // Past the window the error speaks of this command's flags, not of the REST body's cursor.
    const past = await runCli(['search', '*', '--start', '9995', '--count', '20'], {env: lite.env()})
    expect(past.code).to.equal(1)
    expect(past.stderr.trim()).to.equal(
      "Error: --start 9995 + --count 20 is past the server's search window of 10000 results; narrow the search with a query, --filter or --entity-type (the window is `mdcli lite --max-result-window`)",
    )
  })

  it('`mdcli search` tells four `customers` apart: name, platform, container path and description, in the table and in --json', async () => {
    const container = (id: string, name: string, platform: string, subType: string, parent?: string) => [
      mcpRecord(`urn:li:container:${id}`, 'containerProperties', {name, customProperties: {}}),
      mcpRecord(`urn:li:container:${id}`, 'dataPlatformInstance', {platform: `urn:li:dataPlatform:${platform}`}),
      mcpRecord(`urn:li:container:${id}`, 'subTypes', {typeNames: [subType]}),
      ...(parent ? [mcpRecord(`urn:li:container:${id}`, 'container', {container: `urn:li:container:${parent}`})] : []),
    ]
    const customers = (name: string, platform: string, schema: string, description: string) => [
      mcpRecord(datasetUrn(name, platform), 'datasetProperties', {name: 'customers', description, customProperties: {}, tags: []}),
      mcpRecord(datasetUrn(name, platform), 'container', {container: `urn:li:container:${schema}`}),
      mcpRecord(datasetUrn(name, platform), 'subTypes', {typeNames: ['Table']}),
    ]
    const file = writeJson(dir, 'customers.json', [
      ...container('0a1b2c3d4e5f60718293a4b5c6d7e8f9', 'sales', 'postgres', 'Database'),
      ...container('1a1b2c3d4e5f60718293a4b5c6d7e8f9', 'public', 'postgres', 'Schema', '0a1b2c3d4e5f60718293a4b5c6d7e8f9'),
      ...container('2a1b2c3d4e5f60718293a4b5c6d7e8f9', 'crm', 'postgres', 'Database'),
      ...container('3a1b2c3d4e5f60718293a4b5c6d7e8f9', 'public', 'postgres', 'Schema', '2a1b2c3d4e5f60718293a4b5c6d7e8f9'),
      ...container('4a1b2c3d4e5f60718293a4b5c6d7e8f9', 'shop', 'mysql', 'Database'),
      ...customers('sales.public.customers', 'postgres', '1a1b2c3d4e5f60718293a4b5c6d7e8f9', 'People who bought something'),
      ...customers('crm.public.customers', 'postgres', '3a1b2c3d4e5f60718293a4b5c6d7e8f9', 'Leads and accounts from the CRM'),
      ...customers('shop.customers', 'mysql', '4a1b2c3d4e5f60718293a4b5c6d7e8f9', 'Web shop accounts'),
      mcpRecord(datasetUrn('customers', 'hive'), 'datasetProperties', {name: 'customers', customProperties: {}, tags: []}),
    ])
    const r = await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'file', config: {path: file}}}, 'customers.yml')], {env: lite.env()})
    expect(r.code, r.stderr).to.equal(0)

    const json = await runCli(['search', 'customers', '--entity-type', 'dataset', '--json'], {env: lite.env()})
    expect(json.code, json.stderr).to.equal(0)
    const found = JSON.parse(json.stdout).entities as Array<{urn: string; entityType: string; name: string; platform?: string; subType?: string; containerPath: Array<{urn: string; name: string}>; description?: string}>
    const byUrn = new Map(found.map((e) => [e.urn, e]))
    expect(byUrn.get(datasetUrn('sales.public.customers', 'postgres'))).to.deep.equal({
      urn: datasetUrn('sales.public.customers', 'postgres'),
      entityType: 'dataset',
      name: 'customers',
      platform: 'postgres',
      subType: 'Table',
      containerPath: [
        {urn: 'urn:li:container:0a1b2c3d4e5f60718293a4b5c6d7e8f9', name: 'sales'},
        {urn: 'urn:li:container:1a1b2c3d4e5f60718293a4b5c6d7e8f9', name: 'public'},
      ],
      description: 'People who bought something',
    })
    expect(byUrn.get(datasetUrn('shop.customers', 'mysql'))).to.deep.include({platform: 'mysql', description: 'Web shop accounts'})
    expect(byUrn.get(datasetUrn('shop.customers', 'mysql'))!.containerPath.map((c) => c.name)).to.deep.equal(['shop'])
    expect(byUrn.get(datasetUrn('customers', 'hive'))).to.deep.include({name: 'customers', platform: 'hive', containerPath: []})

    // The table: one row each, told apart by platform, path and description; urns below, numbered.
    const text = await runCli(['search', 'customers', '--entity-type', 'dataset'], {env: lite.env()})
    expect(text.code, text.stderr).to.equal(0)
    const lines = text.stdout.split('\n')
    expect(lines[0]).to.match(/^#\s+NAME\s+TYPE\s+PLATFORM\s+CONTAINER\s+DESCRIPTION$/)
    expect(lines.some((l) => /^\d+\s+customers\s+Table\s+postgres\s+sales \/ public\s+People who bought something$/.test(l)), text.stdout).to.equal(true)
    expect(lines.some((l) => /^\d+\s+customers\s+Table\s+postgres\s+crm \/ public\s+Leads and accounts from the CRM$/.test(l)), text.stdout).to.equal(true)
    expect(lines.some((l) => /^\d+\s+customers\s+Table\s+mysql\s+shop\s+Web shop accounts$/.test(l)), text.stdout).to.equal(true)
    expect(text.stdout).to.include(datasetUrn('crm.public.customers', 'postgres'))

    // A container is shown by its name, not its guid.
    const dbs = await runCli(['search', 'sales', '--entity-type', 'container', '--json'], {env: lite.env()})
    expect(JSON.parse(dbs.stdout).entities[0]).to.deep.include({urn: 'urn:li:container:0a1b2c3d4e5f60718293a4b5c6d7e8f9', name: 'sales', platform: 'postgres', subType: 'Database'})
    const dbText = await runCli(['search', 'sales', '--entity-type', 'container'], {env: lite.env()})
    expect(dbText.stdout).to.match(/^1\s+sales\s+Database\s+postgres\s*$/m)
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
