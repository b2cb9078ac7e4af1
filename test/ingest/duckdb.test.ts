import {expect} from 'chai'
import {createHash} from 'node:crypto'
import {join} from 'node:path'
import {DuckDBInstance} from '@duckdb/node-api'
import {cleanup, http, tempDir, useLite} from '../helpers/lite.js'
import {ingestHere, ingestJson, offlineEnv, readJson, writeRecipe} from './helpers.js'

async function makeWarehouse(path: string, sql: string): Promise<void> {
  const db = await DuckDBInstance.create(path)
  const conn = await db.connect()
  await conn.run(sql)
  conn.closeSync()
  db.closeSync()
}

const SHOP = `
CREATE SCHEMA sales;
CREATE TABLE sales.customers (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL, tier VARCHAR);
COMMENT ON TABLE sales.customers IS 'People who buy';
COMMENT ON COLUMN sales.customers.name IS 'Full name';
CREATE TABLE sales.orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES sales.customers(id), amount DECIMAL(10,2), placed DATE, tags VARCHAR[]);
INSERT INTO sales.customers VALUES (1, 'Ann', 'gold'), (2, 'Bo', NULL), (3, 'Cy', 'gold');
INSERT INTO sales.orders VALUES (10, 1, 5.50, DATE '2024-01-02', ['a']), (11, 1, 7.25, DATE '2024-02-03', []), (12, 3, 1.00, NULL, NULL);
CREATE VIEW sales.big_orders AS SELECT o.id AS order_id, c.name AS customer FROM sales.orders o JOIN sales.customers c ON o.customer_id = c.id WHERE o.amount > 2;
CREATE VIEW sales.v_cte AS WITH x AS (SELECT o.id FROM sales.orders o JOIN sales.customers c ON c.id = o.customer_id) SELECT id FROM x;
CREATE VIEW sales.v_union AS SELECT id FROM sales.customers UNION SELECT customer_id FROM sales.orders;
CREATE VIEW sales.v_sub AS SELECT s.id FROM (SELECT id FROM customers) s;
CREATE VIEW sales."Gold ""VIP"" list" (customer_id) AS SELECT id FROM sales.customers WHERE tier = 'gold';
CREATE VIEW sales.v_exclude AS SELECT * EXCLUDE (tier) FROM sales.customers;
CREATE TABLE main.scratch (x INTEGER);
`

const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:duckdb,shop.${name},PROD)`
const md5Urn = (s: string) => `urn:li:container:${createHash('md5').update(s).digest('hex')}`

describe('duckdb source', function () {
  this.timeout(90_000)
  let dir: string
  let file: string
  before(async () => {
    dir = tempDir('mdcli-duckdb-')
    file = join(dir, 'shop.duckdb')
    await makeWarehouse(file, SHOP)
  })
  after(() => cleanup(dir))

  // In this process, as `mdcli ingest` runs a recipe: what the source produces is checked here;
  // the command's own error line and the REST sink keep their runs through the real binary below.
  const run = async (config: Record<string, unknown>, extra: Record<string, unknown> = {}, env = offlineEnv(dir)) => {
    const out = join(dir, `out-${Math.random().toString(36).slice(2)}.json`)
    const r = await ingestHere(writeRecipe(dir, {source: {type: 'duckdb', config: {path: file, ...config}}, sink: {type: 'file', config: {filename: out}}, ...extra}), env)
    return {...r, records: r.code === 0 || r.code === 1 ? safeRead(out) : []}
  }
  const safeRead = (p: string): any[] => {
    try {
      return readJson(p)
    } catch {
      return []
    }
  }
  const aspect = (records: any[], urn: string, name: string) => records.find((r) => r.entityUrn === urn && r.aspectName === name)?.aspect.json
  // The whole warehouse with the defaults, as the first two tests read it: one run.
  let wholeRun: ReturnType<typeof run> | undefined
  const whole = () => (wholeRun ??= run({}))

  it("emits DataHub-style containers (guid of the key, env hashed as instance), tables, keys and comments", async () => {
    const {code, stderr, records} = await whole()
    expect(code, stderr).to.equal(0)
    const db = md5Urn('{"database":"shop","instance":"PROD","platform":"duckdb"}')
    const sales = md5Urn('{"database":"shop","instance":"PROD","platform":"duckdb","schema":"sales"}')
    expect(aspect(records, db, 'containerProperties')).to.deep.equal({customProperties: {platform: 'duckdb', env: 'PROD', database: 'shop'}, name: 'shop'})
    expect(aspect(records, sales, 'container')).to.deep.equal({container: db})
    expect(aspect(records, ds('sales.orders'), 'container')).to.deep.equal({container: sales})
    expect(aspect(records, ds('sales.orders'), 'browsePathsV2').path).to.deep.equal([{id: db, urn: db}, {id: sales, urn: sales}])

    const customers = aspect(records, ds('sales.customers'), 'datasetProperties')
    expect(customers).to.deep.equal({name: 'customers', description: 'People who buy', customProperties: {}, tags: []})
    const schema = aspect(records, ds('sales.customers'), 'schemaMetadata')
    expect(schema.schemaName).to.equal('shop.sales.customers')
    expect(schema.fields.map((f: any) => [f.fieldPath, f.nativeDataType, Object.keys(f.type.type)[0], f.nullable, f.isPartOfKey, f.description])).to.deep.equal([
      ['id', 'INTEGER', 'com.linkedin.schema.NumberType', false, true, undefined],
      ['name', 'VARCHAR', 'com.linkedin.schema.StringType', false, false, 'Full name'],
      ['tier', 'VARCHAR', 'com.linkedin.schema.StringType', true, false, undefined],
    ])
    const orders = aspect(records, ds('sales.orders'), 'schemaMetadata')
    expect(orders.fields.find((f: any) => f.fieldPath === 'tags').type.type).to.have.key('com.linkedin.schema.ArrayType')
    expect(orders.foreignKeys).to.deep.equal([
      {
        name: orders.foreignKeys[0].name,
        foreignFields: [`urn:li:schemaField:(${ds('sales.customers')},id)`],
        sourceFields: [`urn:li:schemaField:(${ds('sales.orders')},customer_id)`],
        foreignDataset: ds('sales.customers'),
      },
    ])
    expect(aspect(records, ds('sales.orders'), 'subTypes')).to.deep.equal({typeNames: ['Table']})
    // DuckDB's default schema holds user tables too.
    expect(aspect(records, ds('main.scratch'), 'container')).to.deep.equal({container: md5Urn('{"database":"shop","instance":"PROD","platform":"duckdb","schema":"main"}')})
  })

  it("table_pattern takes Python regexes as DataHub's recipes write them: a leading (?i) ignores case", async () => {
    const {code, stderr, records} = await run({table_pattern: {allow: ['(?i)SHOP\\.SALES\\.ORD'], ignoreCase: false}, include_views: false})
    expect(code, stderr).to.equal(0)
    expect([...new Set(records.filter((r) => r.entityUrn.startsWith('urn:li:dataset:')).map((r) => r.entityUrn))]).to.deep.equal([ds('sales.orders')])
    const bad = await run({table_pattern: {deny: ['(?x) scratch']}})
    expect(bad.code).to.equal(1)
    expect(bad.stderr).to.include("source.config.table_pattern.deny[0]: '(?x) scratch' uses Python's inline flag (?x)")
  })

  it('views: definition, table lineage and column lineage from the parsed SQL', async () => {
    const {records} = await whole()
    const view = ds('sales.big_orders')
    expect(aspect(records, view, 'subTypes')).to.deep.equal({typeNames: ['View']})
    expect(aspect(records, view, 'viewProperties').viewLogic).to.match(/SELECT/i)
    const lineage = aspect(records, view, 'upstreamLineage')
    expect(lineage.upstreams.map((u: any) => u.dataset)).to.have.members([ds('sales.orders'), ds('sales.customers')])
    expect(lineage.fineGrainedLineages.map((f: any) => [f.downstreams[0], f.upstreams])).to.deep.equal([
      [`urn:li:schemaField:(${view},customer)`, [`urn:li:schemaField:(${ds('sales.customers')},name)`]],
      [`urn:li:schemaField:(${view},order_id)`, [`urn:li:schemaField:(${ds('sales.orders')},id)`]],
    ])
  })

  it('view lineage through CTEs, unions and subqueries; a view the parser cannot read is a warning naming it', async () => {
    const {code, stderr, records, result} = await run({schema_pattern: {allow: ['sales']}})
    expect(code, stderr).to.equal(0)
    const lineage = (v: string) => aspect(records, ds(`sales.${v}`), 'upstreamLineage')
    const ups = (v: string) => lineage(v)?.upstreams.map((u: any) => u.dataset)
    const fine = (v: string) => lineage(v)?.fineGrainedLineages?.map((f: any) => [f.downstreams[0], f.upstreams])
    // The CTE's name is no table: the lineage goes through it to what it reads.
    expect(ups('v_cte')).to.have.members([ds('sales.orders'), ds('sales.customers')])
    expect(fine('v_cte')).to.deep.equal([[`urn:li:schemaField:(${ds('sales.v_cte')},id)`, [`urn:li:schemaField:(${ds('sales.orders')},id)`]]])
    // Every branch of the UNION, its columns lined up by position.
    expect(ups('v_union')).to.have.members([ds('sales.customers'), ds('sales.orders')])
    expect(fine('v_union')[0][1]).to.have.members([`urn:li:schemaField:(${ds('sales.customers')},id)`, `urn:li:schemaField:(${ds('sales.orders')},customer_id)`])
    // A subquery in FROM, whose unqualified table DuckDB binds in the view's own schema.
    expect(ups('v_sub')).to.deep.equal([ds('sales.customers')])
    expect(fine('v_sub')).to.deep.equal([[`urn:li:schemaField:(${ds('sales.v_sub')},id)`, [`urn:li:schemaField:(${ds('sales.customers')},id)`]]])
    // A quoted name and a column list in the CREATE VIEW DuckDB renders; `id` is renamed, so
    // the view has table lineage but no column named `id` to hang column lineage on.
    expect(ups('Gold "VIP" list')).to.deep.equal([ds('sales.customers')])
    expect(fine('Gold "VIP" list')).to.equal(undefined)
    expect(aspect(records, ds('sales.v_exclude'), 'viewProperties').viewLanguage).to.equal('SQL')
    expect(lineage('v_exclude')).to.equal(undefined)
    const warning = result.source.report.warnings.find((w: any) => w.key === 'view lineage')
    expect(warning.examples).to.have.length(1)
    expect(warning.examples[0]).to.match(/^shop\.sales\.v_exclude: the view's SQL could not be parsed/)
  })

  it('patterns and table-level / column-level profiling computed in the database', async () => {
    const {records, code, stderr} = await run({schema_pattern: {allow: ['sales']}, include_views: false, profiling: {enabled: true}})
    expect(code, stderr).to.equal(0)
    expect(records.some((r) => r.entityUrn === ds('main.scratch'))).to.equal(false)
    expect(records.some((r) => r.entityUrn === ds('sales.big_orders'))).to.equal(false)
    const profile = aspect(records, ds('sales.orders'), 'datasetProfile')
    expect(profile.rowCount).to.equal(3)
    expect(profile.columnCount).to.equal(5)
    const amount = profile.fieldProfiles.find((f: any) => f.fieldPath === 'amount')
    expect(amount).to.include({uniqueCount: 3, nullCount: 0, min: '1.00', max: '7.25'})
    expect(Number(amount.mean)).to.be.closeTo(4.583, 0.001)
    const placed = profile.fieldProfiles.find((f: any) => f.fieldPath === 'placed')
    expect(placed).to.include({nullCount: 1, min: '2024-01-02', max: '2024-02-03'})
    expect(placed.nullProportion).to.be.closeTo(1 / 3, 1e-9)
    expect(profile.fieldProfiles.find((f: any) => f.fieldPath === 'tags')).to.deep.equal({fieldPath: 'tags'})

    const tableOnly = await run({schema_pattern: {allow: ['sales']}, include_views: false, profiling: {enabled: true, profile_table_level_only: true}})
    expect(aspect(tableOnly.records, ds('sales.customers'), 'datasetProfile')).to.deep.include({rowCount: 3, columnCount: 3, fieldProfiles: []})

    // profile_pattern where DataHub's recipes put it (beside table_pattern): profiling only.
    const limited = await run({schema_pattern: {allow: ['sales']}, include_views: false, profile_pattern: {deny: ['.*\\.customers$', '.*\\.orders\\.amount$']}, profiling: {enabled: true}})
    expect(limited.code, limited.stderr).to.equal(0)
    expect(aspect(limited.records, ds('sales.customers'), 'schemaMetadata')).to.not.equal(undefined)
    expect(aspect(limited.records, ds('sales.customers'), 'datasetProfile')).to.equal(undefined)
    const orders = aspect(limited.records, ds('sales.orders'), 'datasetProfile')
    expect(orders.fieldProfiles.find((f: any) => f.fieldPath === 'amount')).to.deep.equal({fieldPath: 'amount'})
    expect(orders.fieldProfiles.find((f: any) => f.fieldPath === 'placed')).to.include({nullCount: 1})
  })

  it('a missing file is one clear error; nothing is written', async () => {
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'duckdb', config: {path: join(dir, 'nope.duckdb')}}, sink: {type: 'file', config: {filename: join(dir, 'never.json')}}}, 'missing.yml'), offlineEnv(dir))
    expect(r.code).to.equal(1)
    expect(r.result.error.message).to.equal(`duckdb: no database file at ${join(dir, 'nope.duckdb')}`)
  })

  describe('into a running lite, with stale tables removed', function () {
    const lite = useLite()
    it('ingests, shows the platform by name over GraphQL, and soft-deletes a dropped table on the next run', async () => {
      const recipe = (name: string) =>
        writeRecipe(dir, {pipeline_name: 'duckdb_shop', source: {type: 'duckdb', config: {path: file, stateful_ingestion: {enabled: true}}}, sink: {type: 'datahub-rest'}}, `${name}.yml`)
      const first = await ingestJson(recipe('first'), lite.env())
      expect(first.code, first.stderr + first.stdout).to.equal(0)
      const gql = await http(`${lite.url}/api/graphql`, {body: {query: `{ dataset(urn: "${ds('sales.orders')}") { urn platform { name properties { displayName } } } }`}})
      expect(gql.body.data.dataset.platform).to.deep.equal({name: 'duckdb', properties: {displayName: 'DuckDB'}})

      await makeWarehouse(file, 'DROP TABLE main.scratch')
      const second = await ingestJson(recipe('second'), lite.env())
      expect(second.code, second.stderr + second.stdout).to.equal(0)
      expect(second.result.source.report.info.softDeletedStaleEntities, JSON.stringify(second.result.source.report)).to.deep.equal([ds('main.scratch')])
      const scratch = await http(`${lite.url}/entitiesV2/${encodeURIComponent(ds('main.scratch'))}?aspects=List(status)`)
      expect(scratch.body.aspects.status.value.removed).to.equal(true)
    })
  })
})
