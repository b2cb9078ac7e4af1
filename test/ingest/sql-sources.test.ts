/**
 * The postgres and mysql/mariadb sources against the machine's real servers: DataHub's own setup
 * SQL and recipes, compared with DataHub's goldens (reference §8 normalisation), plus our own
 * schemas for what the goldens do not cover (errors, secrets, patterns, profiling, stale tables).
 */
import {expect} from 'chai'
import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import yaml from 'js-yaml'
import mysql from 'mysql2/promise'
import pg from 'pg'
import {cleanup, http, runCli, tempDir, useLite} from '../helpers/lite.js'
import {expectSameAspects} from '../helpers/golden.js'
import {requireMariadb, requirePostgres, requireSharedFixtures, uniqueName} from '../helpers/requires.js'
import {ingestJson, ingestVia, offlineEnv, readJson, writeRecipe} from './helpers.js'

const SECRET = 'Sup3r-secret-pw'

/** DataHub's classification is not built: its terms are left out of the goldens (reference §8.3). */
function withoutClassification(records: any[]): any[] {
  return records
    .filter((r) => r.aspectName !== 'glossaryTermKey')
    .map((r) => {
      const snap = r.proposedSnapshot && (Object.values(r.proposedSnapshot)[0] as any)
      if (!snap) return r
      for (const a of snap.aspects) {
        const v: any = Object.values(a)[0]
        if (v?.fields) for (const f of v.fields) delete f.glossaryTerms
      }
      return r
    })
}

/**
 * Runs the recipe with a file sink: in this process where what the source produces is checked,
 * through the real `mdcli ingest` (`via: 'cli'`) where the command's own output is (its one-line
 * errors, what it prints) or the run needs its own process (another time zone).
 */
async function runRecipe(recipe: any, dir: string, env = offlineEnv(dir), via: 'here' | 'cli' = 'here'): Promise<{code: number | null; result?: any; records: any[]; stdout: string; stderr: string}> {
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}.json`)
  recipe.sink = {type: 'file', config: {filename: out}}
  const file = writeRecipe(dir, recipe, `r-${Math.random().toString(36).slice(2)}.yml`)
  const r = await ingestVia(via, file, env)
  let records: any[] = []
  try {
    records = readJson(out)
  } catch {
    /* nothing written */
  }
  return {...r, records}
}

const aspect = (records: any[], urn: string, name: string) => records.find((r) => r.entityUrn === urn && r.aspectName === name)?.aspect.json

describe("postgres source: DataHub's goldens on a real PostgreSQL", function () {
  this.timeout(120_000)
  let admin: pg.Client
  let oracle: string
  let dir: string

  before(async function () {
    const url = await requirePostgres(this)
    oracle = requireSharedFixtures(this, 'datahub-integration', 'postgres')
    dir = tempDir('mdcli-pg-golden-')
    admin = new pg.Client({connectionString: url})
    await admin.connect()
    // The goldens name the database `postgrestest`; a lock keeps two runs on one machine apart.
    await admin.query('SELECT pg_advisory_lock(424242)')
    await admin.query('DROP DATABASE IF EXISTS postgrestest WITH (FORCE)')
    const setup = readFileSync(join(oracle, 'setup', 'setup.sql'), 'utf8')
    const [create, rest] = setup.split(/\\c postgrestest;?/)
    await admin.query(create!)
    const db = new pg.Client({connectionString: url.replace(/\/[^/]*$/, '/postgrestest')})
    await db.connect()
    await db.query(rest!)
    await db.end()
  })
  after(async () => {
    if (admin) {
      await admin.query('DROP DATABASE IF EXISTS postgrestest WITH (FORCE)').catch(() => {})
      await admin.query('SELECT pg_advisory_unlock(424242)').catch(() => {})
      await admin.end()
    }
    if (dir) cleanup(dir)
  })

  const recipe = (name: string) => {
    const r = yaml.load(readFileSync(join(oracle, name), 'utf8')) as any
    r.source.config.host_port = '127.0.0.1:5432'
    return r
  }

  it('postgres_to_file_with_db_estimate_row_count.yml produces postgres_mces_with_db_golden.json', async () => {
    const {code, stderr, records, result} = await runRecipe(recipe('postgres_to_file_with_db_estimate_row_count.yml'), dir)
    expect(code, stderr + JSON.stringify(result?.source?.report)).to.equal(0)
    expectSameAspects(records, withoutClassification(readJson(join(oracle, 'postgres_mces_with_db_golden.json'))))
  })

  it('postgres_all_db_to_file_with_db_estimate_row_count.yml produces postgres_all_db_mces_with_db_golden.json', async () => {
    const r = recipe('postgres_all_db_to_file_with_db_estimate_row_count.yml')
    // This machine's server holds other databases (and the `postgres` database may hold tables
    // of other tests): visit the golden's two, and compare the `postgres` database's containers.
    r.source.config.database_pattern = {allow: ['^postgres$', '^postgrestest$']}
    const {code, stderr, records} = await runRecipe(r, dir)
    expect(code, stderr).to.equal(0)
    const golden = readJson(join(oracle, 'postgres_all_db_mces_with_db_golden.json'))
    const goldenUrns = new Set(golden.map((g: any) => g.entityUrn ?? (Object.values(g.proposedSnapshot)[0] as any).urn))
    expectSameAspects(
      records.filter((x) => goldenUrns.has(x.entityUrn)),
      golden,
    )
  })
})

describe('postgres source: our own database', function () {
  this.timeout(120_000)
  let url: string
  let admin: pg.Client
  let dbName: string
  let dir: string
  const ds = (t: string) => `urn:li:dataset:(urn:li:dataPlatform:postgres,${dbName}.${t},PROD)`

  before(async function () {
    url = await requirePostgres(this)
    dbName = uniqueName('mdcli_pg')
    dir = tempDir('mdcli-pg-')
    admin = new pg.Client({connectionString: url})
    await admin.connect()
    await admin.query(`CREATE DATABASE ${dbName}`)
    const db = new pg.Client({connectionString: url.replace(/\/[^/]*$/, `/${dbName}`)})
    await db.connect()
    await db.query(`
      CREATE SCHEMA shop;
      CREATE TABLE shop.customers (id integer PRIMARY KEY, name varchar(80) NOT NULL, tags text[], meta jsonb);
      COMMENT ON TABLE shop.customers IS 'Who buys';
      COMMENT ON COLUMN shop.customers.name IS 'Full name';
      CREATE TABLE shop.orders (id bigint PRIMARY KEY, customer_id integer REFERENCES shop.customers(id), amount numeric(10,2), placed timestamp with time zone);
      INSERT INTO shop.customers VALUES (1, 'Ann', '{a}', '{}'), (2, 'Bo', NULL, NULL), (3, 'Cy', NULL, NULL);
      INSERT INTO shop.orders VALUES (10, 1, 5.50, now()), (11, 1, 7.25, now()), (12, 3, 1.00, NULL);
      CREATE VIEW shop.big_orders AS SELECT o.id AS order_id, c.name AS customer FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id WHERE o.amount > 2;
      CREATE TABLE shop.secret (x integer);
      CREATE VIEW shop.v_cte AS WITH x AS (SELECT o.id FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id) SELECT id FROM x;
      CREATE VIEW shop.v_union AS SELECT id FROM shop.customers UNION SELECT customer_id FROM shop.orders;
      CREATE VIEW shop.v_sub AS SELECT s.id FROM (SELECT id FROM shop.customers) s;
      CREATE VIEW shop.v_xml AS SELECT xmlelement(name foo, name) AS x FROM shop.customers;
      CREATE SCHEMA odd;
      CREATE TABLE odd."t,(1)" (id integer PRIMARY KEY);
      CREATE TABLE odd.refs (t_id integer REFERENCES odd."t,(1)"(id));
      CREATE VIEW odd.v AS SELECT id FROM odd."t,(1)";
      CREATE SCHEMA times;
      CREATE TABLE times.t (d date, ts timestamp(3), tz timestamptz);
      INSERT INTO times.t VALUES ('1990-05-01', '2020-01-01 10:00:00.123', '2020-01-01 10:00:00.5+00'), ('1985-12-31', '2021-06-01 00:00:00', NULL);
      CREATE SCHEMA kinds;
      CREATE TYPE kinds.mood AS ENUM ('sad', 'ok', 'happy');
      CREATE TABLE kinds.k (m kinds.mood, b bit(4), vb bit varying(8), flag boolean, n integer);
      INSERT INTO kinds.k VALUES ('ok', B'1010', B'1', true, 1), ('sad', B'0101', B'10', false, 2), (NULL, NULL, NULL, true, 3);
      CREATE TYPE public.mood AS ENUM ('sad', 'ok', 'happy');
      CREATE SCHEMA quirks;
      CREATE TABLE quirks.t (id integer, m mood, name text, x integer, y integer);
      CREATE VIEW quirks.v_enum AS SELECT id, name FROM quirks.t WHERE m = 'ok'::mood;
      CREATE VIEW quirks.v_like AS SELECT id, name FROM quirks.t WHERE name ILIKE 'a%' AND name NOT ILIKE 'b%' AND name LIKE 'c%' AND name NOT LIKE 'd%';
      CREATE VIEW quirks.v_distinct AS SELECT id, x FROM quirks.t WHERE x IS DISTINCT FROM y AND NOT (x IS NOT DISTINCT FROM 3);
      CREATE DOMAIN quirks.posint AS integer CHECK (VALUE > 0);
      CREATE DOMAIN quirks.code AS varchar(12) NOT NULL;
      CREATE DOMAIN quirks.small_code AS quirks.code;
      CREATE TABLE quirks.dom (n quirks.posint, c quirks.code, s quirks.small_code);
      INSERT INTO quirks.dom VALUES (1, 'a', 'x'), (3, 'b', 'y'), (5, 'c', 'z'), (NULL, 'd', 'w');
      CREATE SCHEMA freq;
      CREATE TABLE freq.f (s text, n integer, d date, few integer);
      INSERT INTO freq.f SELECT 'v' || lpad((i % 30)::text, 2, '0'), i % 30, date '2020-01-01' + (i % 30), i % 3 FROM generate_series(0, 59) AS i;
      CREATE TABLE freq.wide AS SELECT ${Array.from({length: 12}, (_, i) => `i AS c${String(i + 1).padStart(2, '0')}`).join(', ')} FROM generate_series(1, 3) AS i;
      CREATE TABLE freq.seq AS SELECT i AS n FROM generate_series(1, 10) AS i;
      CREATE SCHEMA "Mixed";
      CREATE TABLE "Mixed"."Parent" ("Id" integer PRIMARY KEY);
      CREATE TABLE "Mixed"."Child" ("ParentId" integer REFERENCES "Mixed"."Parent"("Id"));
      CREATE VIEW "Mixed"."ParentView" AS SELECT "Id" FROM "Mixed"."Parent";
      CREATE ROLE ${dbName}_reader LOGIN PASSWORD '${SECRET}';
      GRANT USAGE ON SCHEMA shop TO ${dbName}_reader;
      GRANT SELECT ON shop.customers, shop.orders, shop.big_orders TO ${dbName}_reader;
    `)
    await db.end()
  })
  after(async () => {
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {})
      await admin.query(`DROP ROLE IF EXISTS ${dbName}_reader`).catch(() => {})
      await admin.end()
    }
    if (dir) cleanup(dir)
  })

  const source = (config: Record<string, unknown> = {}) => ({source: {type: 'postgres', config: {host_port: '127.0.0.1:5432', database: dbName, username: 'postgres', ...config}}})
  // The `shop` schema as the first two tests read it: one run, each test checking its part.
  let shopRun: ReturnType<typeof runRecipe> | undefined
  const shop = () => (shopRun ??= runRecipe(source({schema_pattern: {allow: ['shop']}}), dir))

  it('schemas, keys, comments, types, foreign keys, view and column lineage', async () => {
    const {code, stderr, records} = await shop()
    expect(code, stderr).to.equal(0)
    const customers = aspect(records, ds('shop.customers'), 'schemaMetadata')
    expect(customers.fields.map((f: any) => [f.fieldPath, f.nativeDataType, Object.keys(f.type.type)[0], f.nullable, f.isPartOfKey, f.description])).to.deep.equal([
      ['id', 'INTEGER()', 'com.linkedin.schema.NumberType', false, true, undefined],
      ['name', 'VARCHAR(length=80)', 'com.linkedin.schema.StringType', false, false, 'Full name'],
      ['tags', 'ARRAY(TEXT())', 'com.linkedin.schema.ArrayType', true, false, undefined],
      ['meta', 'JSONB(astext_type=Text())', 'com.linkedin.schema.RecordType', true, false, undefined],
    ])
    expect(aspect(records, ds('shop.customers'), 'datasetProperties')).to.deep.equal({customProperties: {}, name: 'customers', description: 'Who buys', tags: []})
    expect(aspect(records, ds('shop.orders'), 'schemaMetadata').foreignKeys[0]).to.deep.include({foreignDataset: ds('shop.customers'), sourceFields: [`urn:li:schemaField:(${ds('shop.orders')},customer_id)`]})
    const lineage = aspect(records, ds('shop.big_orders'), 'upstreamLineage')
    expect(lineage.upstreams.map((u: any) => u.dataset)).to.have.members([ds('shop.orders'), ds('shop.customers')])
    expect(lineage.fineGrainedLineages.map((f: any) => [f.downstreams[0].split(',').pop(), f.upstreams[0]])).to.deep.equal([
      ['customer)', `urn:li:schemaField:(${ds('shop.customers')},name)`],
      ['order_id)', `urn:li:schemaField:(${ds('shop.orders')},id)`],
    ])
    expect(aspect(records, ds('shop.big_orders'), 'viewProperties').viewLanguage).to.equal('SQL')
  })

  it('view lineage through CTEs, unions and subqueries; a view the parser cannot read is a warning naming it', async () => {
    const {code, stderr, records, result} = await shop()
    expect(code, stderr).to.equal(0)
    const ups = (v: string) => aspect(records, ds(`shop.${v}`), 'upstreamLineage')?.upstreams.map((u: any) => u.dataset)
    // The CTE's name is no table: the lineage goes through it to what it reads.
    expect(ups('v_cte')).to.have.members([ds('shop.orders'), ds('shop.customers')])
    expect(ups('v_union')).to.have.members([ds('shop.customers'), ds('shop.orders')])
    expect(ups('v_sub')).to.deep.equal([ds('shop.customers')])
    expect(aspect(records, ds('shop.v_cte'), 'upstreamLineage').fineGrainedLineages.map((f: any) => f.upstreams)).to.deep.equal([[`urn:li:schemaField:(${ds('shop.orders')},id)`]])
    // What the parser cannot read still has its tables, from pg_depend (DataHub's fallback), and no column lineage.
    expect(aspect(records, ds('shop.v_xml'), 'upstreamLineage')).to.deep.equal({upstreams: [{auditStamp: {time: 0, actor: 'urn:li:corpuser:unknown'}, dataset: ds('shop.customers'), type: 'VIEW'}]})
    expect(aspect(records, ds('shop.v_xml'), 'viewProperties').viewLanguage).to.equal('SQL')
    const warning = result.source.report.warnings.find((w: any) => w.key === 'view lineage')
    expect(warning.examples).to.have.length(1)
    expect(warning.examples[0]).to.match(new RegExp(`^${dbName}\\.shop\\.v_xml: the view's SQL could not be parsed`))
  })

  it("view SQL as pg_get_viewdef prints it, with a cast to an enum ('ok'::mood), ~~* / ~~ and IS DISTINCT FROM, has table and column lineage", async () => {
    const {code, stderr, records, result} = await runRecipe(source({schema_pattern: {allow: ['quirks']}}), dir)
    expect(code, stderr).to.equal(0)
    const t = ds('quirks.t')
    const views: Array<[string, string[]]> = [
      ['v_enum', ['id', 'name']],
      ['v_like', ['id', 'name']],
      ['v_distinct', ['id', 'x']],
    ]
    for (const [v, columns] of views) {
      const lineage = aspect(records, ds(`quirks.${v}`), 'upstreamLineage')
      expect(lineage?.upstreams.map((u: any) => u.dataset), v).to.deep.equal([t])
      expect(lineage.fineGrainedLineages.map((f: any) => [f.downstreams, f.upstreams]), v).to.deep.equal(columns.map((c) => [[`urn:li:schemaField:(${ds(`quirks.${v}`)},${c})`], [`urn:li:schemaField:(${t},${c})`]]))
    }
    expect(aspect(records, ds('quirks.v_enum'), 'viewProperties').viewLogic).to.contain("'ok'::mood")
    expect(aspect(records, ds('quirks.v_like'), 'viewProperties').viewLogic).to.contain('~~*')
    expect((result.source.report.warnings ?? []).filter((w: any) => w.key === 'view lineage')).to.deep.equal([])
  })

  it("a DOMAIN column reads as its base type, as SQLAlchemy reflects it (a domain's NOT NULL included), and is profiled as one", async () => {
    const {code, stderr, records} = await runRecipe(source({schema_pattern: {allow: ['quirks']}, table_pattern: {allow: ['.*\\.dom$']}, include_views: false, profiling: {enabled: true}}), dir)
    expect(code, stderr).to.equal(0)
    expect(aspect(records, ds('quirks.dom'), 'schemaMetadata').fields.map((f: any) => [f.fieldPath, f.nativeDataType, Object.keys(f.type.type)[0], f.nullable])).to.deep.equal([
      ['n', 'INTEGER()', 'com.linkedin.schema.NumberType', true],
      ['c', 'VARCHAR(length=12)', 'com.linkedin.schema.StringType', false],
      // A domain over a domain: down to the type below both.
      ['s', 'VARCHAR(length=12)', 'com.linkedin.schema.StringType', false],
    ])
    const [n, c] = aspect(records, ds('quirks.dom'), 'datasetProfile').fieldProfiles
    expect(n).to.deep.include({fieldPath: 'n', nullCount: 1, uniqueCount: 3, min: '1', max: '5', mean: '3.0', median: '3', stdev: '2.0'})
    expect(c.sampleValues).to.have.members(['a', 'b', 'c', 'd'])
  })

  it("distinctValueFrequencies as DataHub's profiler gives them: text and dates up to FEW distinct values (20-59), numbers up to VERY_FEW (under 20)", async () => {
    const {code, stderr, records} = await runRecipe(source({schema_pattern: {allow: ['freq']}, profiling: {enabled: true, include_field_distinct_value_frequencies: true}}), dir)
    expect(code, stderr).to.equal(0)
    const [s, n, d, few] = aspect(records, ds('freq.f'), 'datasetProfile').fieldProfiles
    // 30 distinct values in 60 rows: FEW.
    expect(s.uniqueCount).to.equal(30)
    expect(s.distinctValueFrequencies).to.have.length(30)
    expect(s.distinctValueFrequencies[0]).to.deep.equal({value: 'v00', frequency: 2})
    expect(d.distinctValueFrequencies).to.have.length(30)
    expect(d.distinctValueFrequencies[29]).to.deep.equal({value: '2020-01-30', frequency: 2})
    expect(n.uniqueCount).to.equal(30)
    expect(n).to.not.have.property('distinctValueFrequencies')
    // 3 distinct values: VERY_FEW, listed whatever the type.
    expect(few.distinctValueFrequencies).to.deep.equal([
      {value: '0', frequency: 20},
      {value: '1', frequency: 20},
      {value: '2', frequency: 20},
    ])
  })

  it('turn_off_expensive_profiling_metrics: no sample values, at most 10 columns profiled, unless the recipe sets them itself (as DataHub)', async () => {
    const run = (profiling: Record<string, unknown>) => runRecipe(source({schema_pattern: {allow: ['freq']}, table_pattern: {allow: ['.*\\.wide$']}, profiling: {enabled: true, ...profiling}}), dir)
    const fieldsOf = (r: {records: any[]}) => aspect(r.records, ds('freq.wide'), 'datasetProfile').fieldProfiles
    const cheap = await run({turn_off_expensive_profiling_metrics: true})
    expect(cheap.code, cheap.stderr).to.equal(0)
    const fields = fieldsOf(cheap)
    expect(fields).to.have.length(12)
    for (const f of fields.slice(0, 10)) {
      expect(f, f.fieldPath).to.deep.include({nullCount: 0, uniqueCount: 3, min: '1', max: '3'})
      expect(f, f.fieldPath).to.not.have.property('sampleValues')
    }
    expect(fields.slice(10)).to.deep.equal([{fieldPath: 'c11'}, {fieldPath: 'c12'}])

    const mine = fieldsOf(await run({turn_off_expensive_profiling_metrics: true, include_field_sample_values: true, max_number_of_fields_to_profile: 11}))
    expect(mine[0].sampleValues).to.have.members(['1', '2', '3'])
    expect(mine[10]).to.deep.include({uniqueCount: 3})
    expect(mine[11]).to.deep.equal({fieldPath: 'c12'})

    const all = fieldsOf(await run({}))
    expect(all[11]).to.deep.include({uniqueCount: 3})
    expect(all[11].sampleValues).to.have.members(['1', '2', '3'])
  })

  it("profiling.limit / offset profile those rows only, with DataHub's QUERY partitionSpec; quantiles and histograms asked for are a warning, once", async () => {
    const run = (profiling: Record<string, unknown>) => runRecipe(source({schema_pattern: {allow: ['freq']}, table_pattern: {allow: ['.*\\.seq$']}, profiling: {enabled: true, ...profiling}}), dir)
    const both = await run({limit: 5, offset: 2})
    expect(both.code, both.stderr).to.equal(0)
    const p = aspect(both.records, ds('freq.seq'), 'datasetProfile')
    // The row count is the whole table's; nulls are counted among the rows profiled (none here).
    expect(p).to.deep.include({rowCount: 10, partitionSpec: {partition: '{"limit": 5, "offset": 2}', type: 'QUERY'}})
    expect(p.fieldProfiles[0]).to.deep.include({uniqueCount: 5, min: '3', max: '7', median: '5', nullCount: 0})
    expect(p.fieldProfiles[0].sampleValues).to.have.members(['3', '4', '5', '6', '7'])

    const limitOnly = await run({limit: 4, include_field_quantiles: true, include_field_histogram: true})
    expect(limitOnly.code, limitOnly.stderr).to.equal(0)
    const l = aspect(limitOnly.records, ds('freq.seq'), 'datasetProfile')
    expect(l.partitionSpec).to.deep.equal({partition: '{"limit": 4, "offset": null}', type: 'QUERY'})
    expect(l.fieldProfiles[0]).to.deep.include({min: '1', max: '4'})
    const warning = limitOnly.result.source.report.warnings.find((w: any) => w.key === 'profiling')
    expect(warning).to.deep.include({count: 1, examples: ['profiling.include_field_quantiles, profiling.include_field_histogram: not computed by mdcli, profiles have no quantiles or histograms']})

    const offsetOnly = aspect((await run({offset: 8})).records, ds('freq.seq'), 'datasetProfile')
    expect(offsetOnly.partitionSpec).to.deep.equal({partition: 'FULL_TABLE_SNAPSHOT', type: 'FULL_TABLE'})
    expect(offsetOnly.fieldProfiles[0]).to.deep.include({min: '9', max: '10'})
  })

  it('names with , ( ) are percent-encoded in dataset urns: the dataset, foreign keys, lineage', async () => {
    const {code, stderr, records} = await runRecipe(source({schema_pattern: {allow: ['odd']}}), dir)
    expect(code, stderr).to.equal(0)
    const odd = ds('odd.t%2C%281%29')
    expect(aspect(records, odd, 'datasetProperties').name).to.equal('t,(1)')
    expect(aspect(records, odd, 'schemaMetadata').schemaName).to.equal(`${dbName}.odd.t,(1)`)
    expect(aspect(records, ds('odd.refs'), 'schemaMetadata').foreignKeys[0].foreignDataset).to.equal(odd)
    expect(aspect(records, ds('odd.v'), 'upstreamLineage').upstreams.map((u: any) => u.dataset)).to.deep.equal([odd])
    // Every dataset urn written parses as three parts.
    for (const r of records) if (r.entityUrn.startsWith('urn:li:dataset:')) expect(r.entityUrn.split(',')).to.have.length(3)
  })

  it('convert_urns_to_lowercase lower-cases the names of every dataset urn, not the columns or the names shown', async () => {
    const lower = (t: string) => `urn:li:dataset:(urn:li:dataPlatform:postgres,${dbName}.${t},PROD)`.toLowerCase().replace('urn:li:dataplatform:', 'urn:li:dataPlatform:').replace(',prod)', ',PROD)')
    const off = await runRecipe(source({schema_pattern: {allow: ['Mixed']}}), dir)
    expect(aspect(off.records, ds('Mixed.Parent'), 'datasetProperties')).to.not.equal(undefined)
    const {code, stderr, records} = await runRecipe(source({schema_pattern: {allow: ['Mixed']}, convert_urns_to_lowercase: true}), dir)
    expect(code, stderr).to.equal(0)
    const parent = lower('mixed.parent')
    for (const r of records) if (r.entityUrn.startsWith('urn:li:dataset:')) expect(r.entityUrn.split(',')[1]).to.equal(r.entityUrn.split(',')[1].toLowerCase())
    expect(aspect(records, parent, 'datasetProperties').name).to.equal('Parent')
    expect(aspect(records, lower('mixed.child'), 'schemaMetadata').foreignKeys[0]).to.deep.include({foreignDataset: parent, foreignFields: [`urn:li:schemaField:(${parent},Id)`]})
    expect(aspect(records, lower('mixed.parentview'), 'upstreamLineage').upstreams.map((u: any) => u.dataset)).to.deep.equal([parent])
  })

  it('profiles dates and timestamps as stored, formatted as Python prints them, whatever the time zone of the machine', async () => {
    const env = {...offlineEnv(dir), TZ: 'Asia/Tokyo'}
    const {code, stderr, records} = await runRecipe(source({schema_pattern: {allow: ['times']}, profiling: {enabled: true}}), dir, env, 'cli')
    expect(code, stderr).to.equal(0)
    const fields = aspect(records, ds('times.t'), 'datasetProfile').fieldProfiles
    const d = fields.find((f: any) => f.fieldPath === 'd')
    expect([d.min, d.max]).to.deep.equal(['1985-12-31', '1990-05-01'])
    expect(d.sampleValues).to.have.members(['1990-05-01', '1985-12-31'])
    const ts = fields.find((f: any) => f.fieldPath === 'ts')
    expect([ts.min, ts.max]).to.deep.equal(['2020-01-01 10:00:00.123000', '2021-06-01 00:00:00'])
    const tz = fields.find((f: any) => f.fieldPath === 'tz')
    // timestamptz comes in the server session's zone, as psycopg2 gives it: the offset is printed.
    expect(tz.min).to.match(/^2020-01-01 \d\d:\d\d:00\.500000[+-]\d\d:\d\d$/)
  })

  it("a database named with capitals: containers key it lower-cased, dataset names as the recipe writes it (DataHub's case rules)", async () => {
    const caps = `Caps_${dbName}`
    const lower = caps.toLowerCase()
    const dbContainer = `urn:li:container:${createHash('md5').update(`{"database":"${lower}","instance":"PROD","platform":"postgres"}`).digest('hex')}`
    await admin.query(`CREATE DATABASE "${caps}"`)
    try {
      const c = new pg.Client({connectionString: url.replace(/\/[^/]*$/, `/${caps}`)})
      await c.connect()
      await c.query('CREATE TABLE public.t (id integer)')
      await c.end()
      const named = await runRecipe(source({database: caps}), dir)
      expect(named.code, named.stderr).to.equal(0)
      const t = `urn:li:dataset:(urn:li:dataPlatform:postgres,${caps}.public.t,PROD)`
      expect(aspect(named.records, t, 'schemaMetadata').schemaName).to.equal(`${caps}.public.t`)
      expect(aspect(named.records, dbContainer, 'containerProperties')).to.deep.include({name: lower, customProperties: {platform: 'postgres', env: 'PROD', database: lower}})
      const schema = aspect(named.records, t, 'container').container
      expect(aspect(named.records, schema, 'containerProperties').customProperties).to.deep.equal({platform: 'postgres', env: 'PROD', database: lower, schema: 'public'})
      expect(aspect(named.records, schema, 'container').container).to.equal(dbContainer)

      const all = await runRecipe({source: {type: 'postgres', config: {host_port: '127.0.0.1:5432', username: 'postgres', database_pattern: {allow: [`^${caps}$`], ignoreCase: false}}}}, dir)
      expect(all.code, all.stderr).to.equal(0)
      expect(aspect(all.records, `urn:li:dataset:(urn:li:dataPlatform:postgres,${lower}.public.t,PROD)`, 'schemaMetadata').schemaName).to.equal(`${lower}.public.t`)
      expect(aspect(all.records, dbContainer, 'containerProperties').name).to.equal(lower)
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${caps}" WITH (FORCE)`)
    }
  })

  it("enum and bit types read as SQLAlchemy's repr; booleans and standard deviations print as Python's", async () => {
    const {code, stderr, records} = await runRecipe(source({schema_pattern: {allow: ['kinds']}, profiling: {enabled: true}}), dir)
    expect(code, stderr).to.equal(0)
    expect(aspect(records, ds('kinds.k'), 'schemaMetadata').fields.map((f: any) => f.nativeDataType)).to.deep.equal([
      "ENUM('sad', 'ok', 'happy', name='mood')",
      'BIT(length=4)',
      'BIT(length=8, varying=True)',
      'BOOLEAN()',
      'INTEGER()',
    ])
    const fields = aspect(records, ds('kinds.k'), 'datasetProfile').fieldProfiles
    expect(fields.find((f: any) => f.fieldPath === 'flag').sampleValues).to.have.members(['True', 'False', 'True'])
    expect(fields.find((f: any) => f.fieldPath === 'n')).to.deep.include({stdev: '1.0', mean: '2.0', median: '2'})
  })

  it('profiles in the database: counts, proportions, min/max/mean/median/stdev, samples; table-level only', async () => {
    const {records} = await runRecipe(source({schema_pattern: {allow: ['shop']}, table_pattern: {allow: ['.*orders$']}, profiling: {enabled: true}}), dir)
    const p = aspect(records, ds('shop.orders'), 'datasetProfile')
    expect(p).to.deep.include({rowCount: 3, columnCount: 4})
    const amount = p.fieldProfiles.find((f: any) => f.fieldPath === 'amount')
    expect(amount).to.deep.include({uniqueCount: 3, uniqueProportion: 1, nullCount: 0, min: '1.00', max: '7.25', median: '5.50'})
    expect(Number(amount.mean)).to.be.closeTo(4.5833, 0.001)
    expect(Number(amount.stdev)).to.be.closeTo(3.2, 0.1)
    expect(p.fieldProfiles.find((f: any) => f.fieldPath === 'placed')).to.deep.include({nullCount: 1})
    const tableOnly = await runRecipe(source({schema_pattern: {allow: ['shop']}, profiling: {enabled: true, profile_table_level_only: true}}), dir)
    expect(aspect(tableOnly.records, ds('shop.customers'), 'datasetProfile')).to.deep.include({rowCount: 3, columnCount: 4, fieldProfiles: []})
  })

  it('profile_pattern limits profiling only: a table it does not allow keeps its schema and gets no profile; matched on db.schema.table', async () => {
    const {code, stderr, records, result} = await runRecipe(source({schema_pattern: {allow: ['shop']}, include_views: false, profile_pattern: {allow: [`^${dbName}\\.shop\\.orders`]}, profiling: {enabled: true}}), dir)
    expect(code, stderr).to.equal(0)
    expect(aspect(records, ds('shop.customers'), 'schemaMetadata').fields).to.have.length(4)
    expect(aspect(records, ds('shop.customers'), 'datasetProfile')).to.equal(undefined)
    expect(aspect(records, ds('shop.orders'), 'datasetProfile')).to.deep.include({rowCount: 3, columnCount: 4})
    expect(records.filter((r) => r.aspectName === 'datasetProfile').map((r) => r.entityUrn)).to.deep.equal([ds('shop.orders')])
    expect(result.source.report.warnings ?? []).to.deep.equal([])
  })

  it('a server that does not answer, a wrong password and a missing database are one line each; the password is never printed', async () => {
    const refused = await runRecipe({source: {type: 'postgres', config: {host_port: '127.0.0.1:1', database: dbName, username: 'postgres', password: SECRET}}}, dir, offlineEnv(dir), 'cli')
    expect(refused.code).to.equal(1)
    expect(refused.result.error.message).to.equal(`PostgreSQL at 127.0.0.1:1/${dbName}: connection refused`)
    const missing = await runRecipe({source: {type: 'postgres', config: {host_port: '127.0.0.1:5432', database: `${dbName}_nope`, username: 'postgres'}}}, dir, offlineEnv(dir), 'cli')
    expect(missing.result.error.message).to.equal(`PostgreSQL at 127.0.0.1:5432/${dbName}_nope: the database does not exist`)
    for (const r of [refused, missing]) expect(r.stdout + r.stderr).not.to.contain(SECRET)
  })

  it("an env that is not one of DataHub's environments is refused in one line naming the key, before anything is written; any case of a valid one is taken", async () => {
    const bad = await runRecipe(source({env: 'FOO', schema_pattern: {allow: ['shop']}}), dir, offlineEnv(dir), 'cli')
    expect(bad.code).to.equal(1)
    expect(bad.result.error.message).to.equal("source.config.env: 'FOO' is not an environment (one of DEV, TEST, QA, UAT, EI, PRE, STG, NON_PROD, PROD, CORP)")
    expect(bad.records).to.deep.equal([])
    const dev = await runRecipe(source({env: 'dev', schema_pattern: {allow: ['shop']}, include_views: false}), dir)
    expect(dev.code, dev.stderr).to.equal(0)
    expect(aspect(dev.records, `urn:li:dataset:(urn:li:dataPlatform:postgres,${dbName}.shop.orders,DEV)`, 'schemaMetadata')).to.not.equal(undefined)
  })

  it('takes DataHub\'s connection keys: sqlalchemy_uri (its parts win), scheme, use_file_backed_cache; refuses what it cannot honour in one line', async () => {
    const viaUri = await runRecipe({source: {type: 'postgres', config: {sqlalchemy_uri: `postgresql+psycopg2://postgres:${SECRET}@127.0.0.1:5432/${dbName}`, scheme: 'postgresql+psycopg2', use_file_backed_cache: true, schema_pattern: {allow: ['shop']}}}}, dir, offlineEnv(dir), 'cli')
    expect(viaUri.code, viaUri.stderr).to.equal(0)
    expect(viaUri.records.some((x) => x.entityUrn === ds('shop.orders'))).to.equal(true)
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{sqlalchemy_uri: 'not a uri'}, /^source\.config\.sqlalchemy_uri: must be a postgresql URI/],
      [{sqlalchemy_uri: `mysql+pymysql://root:${SECRET}@127.0.0.1:3306/x`}, /^source\.config\.sqlalchemy_uri: must be a postgresql URI/],
      [{host_port: '127.0.0.1:5432', scheme: 'mysql+pymysql'}, /^source\.config\.scheme: 'mysql\+pymysql' is not a postgresql scheme/],
      [{host_port: '127.0.0.1:5432', incremental_lineage: true}, /^source\.config\.incremental_lineage: true is not supported/],
      [{database: dbName}, /^source\.config: needs 'host_port' \(or 'sqlalchemy_uri'\)/],
    ]
    for (const [config, message] of cases) {
      const r = await runRecipe({source: {type: 'postgres', config: {username: 'postgres', ...config}}}, dir, offlineEnv(dir), 'cli')
      expect(r.code, JSON.stringify(config)).to.equal(1)
      expect(r.result.error.message, JSON.stringify(config)).to.match(message)
      expect(r.stdout + r.stderr).not.to.contain(SECRET)
    }
  })

  it('a table the user may not read is reported and the run goes on; the password appears nowhere', async () => {
    const r = await runRecipe(source({username: `${dbName}_reader`, password: SECRET, schema_pattern: {allow: ['shop']}, profiling: {enabled: true}}), dir, offlineEnv(dir), 'cli')
    expect(r.records.some((x) => x.entityUrn === ds('shop.customers') && x.aspectName === 'datasetProfile')).to.equal(true)
    const warning = r.result.source.report.warnings.find((w: any) => w.key === 'profiling failed')
    expect(warning.examples[0]).to.match(new RegExp(`^${dbName}\\.shop\\.secret: permission denied`))
    expect(r.stdout + r.stderr + JSON.stringify(r.records)).not.to.contain(SECRET)
  })

  describe('into a running lite', function () {
    const lite = useLite()
    it('ingests through the REST sink, keeps no password in the stored run, and removes a dropped table next time', async () => {
      const recipe = (name: string) =>
        writeRecipe(dir, {pipeline_name: `pg_${dbName}`, source: {type: 'postgres', config: {host_port: '127.0.0.1:5432', database: dbName, username: 'postgres', password: '${PG_TEST_PASSWORD}', schema_pattern: {allow: ['shop']}, stateful_ingestion: {enabled: true}}}, sink: {type: 'datahub-rest'}}, `${name}.yml`)
      const first = await ingestJson(recipe('first'), lite.env({PG_TEST_PASSWORD: SECRET}))
      expect(first.code, first.stderr + first.stdout).to.equal(0)
      const gql = await http(`${lite.url}/api/graphql`, {body: {query: `{ dataset(urn: "${ds('shop.customers')}") { urn properties { name description } } }`}})
      expect(gql.body.data.dataset.properties).to.deep.equal({name: 'customers', description: 'Who buys'})

      const db = new pg.Client({connectionString: url.replace(/\/[^/]*$/, `/${dbName}`)})
      await db.connect()
      await db.query('DROP TABLE shop.secret')
      await db.end()
      const second = await ingestJson(recipe('second'), lite.env({PG_TEST_PASSWORD: SECRET}))
      expect(second.code, second.stderr + second.stdout).to.equal(0)
      expect(second.result.source.report.info.softDeletedStaleEntities).to.deep.equal([ds('shop.secret')])
      const runs = await http(`${lite.url}/runs?action=list`, {method: 'POST', body: {}})
      expect(JSON.stringify(runs.body) + first.stdout + second.stdout).not.to.contain(SECRET)
    })

    it('migrate dataplatform2instance moves datasets and containers to the urns an ingestion with platform_instance gives them', async () => {
      const times = {schema_pattern: {allow: ['times']}}
      const first = await ingestJson(writeRecipe(dir, {source: {type: 'postgres', config: {host_port: '127.0.0.1:5432', database: dbName, username: 'postgres', ...times}}, sink: {type: 'datahub-rest'}}, 'times.yml'), lite.env())
      expect(first.code, first.stderr + first.stdout).to.equal(0)
      // What DataHub's source (and ours) writes for the same database under an instance: the truth.
      const withInstance = await runRecipe(source({...times, platform_instance: 'wh'}), dir)
      expect(withInstance.code, withInstance.stderr).to.equal(0)
      const expectedContainers = [...new Set(withInstance.records.filter((r) => r.aspectName === 'containerProperties').map((r) => r.entityUrn as string))].sort()
      expect(expectedContainers).to.have.length(2)
      const newTable = `urn:li:dataset:(urn:li:dataPlatform:postgres,wh.${dbName}.times.t,PROD)`
      const oldTable = ds('times.t')
      const oldSchema = (await http(`${lite.url}/aspects/${encodeURIComponent(oldTable)}?aspect=container`)).body.aspect['com.linkedin.container.Container'].container

      const r = await runCli(['migrate', 'dataplatform2instance', '--platform', 'postgres', '--instance', 'wh', '-F', '--json'], {env: lite.env()})
      expect(r.code, r.stderr).to.equal(0)
      const report = JSON.parse(r.stdout)
      expect(report.created).to.include(newTable)
      expect([...report.containers.created].sort()).to.include.members(expectedContainers)
      expect(report.containers.migrated).to.include(oldSchema)
      expect(report.runId).to.match(/^migrate-/)

      const read = async (urn: string) => (await http(`${lite.url}/entitiesV2/${encodeURIComponent(urn)}?alwaysIncludeKeyAspect=false`)).body.aspects
      const table = await read(newTable)
      const schemaUrn = table.container.value.container
      expect(expectedContainers).to.include(schemaUrn)
      expect(table.container.value).to.deep.equal(aspect(withInstance.records, newTable, 'container'))
      const schema = await read(schemaUrn)
      expect(schema.containerProperties.value.customProperties).to.deep.equal(aspect(withInstance.records, schemaUrn, 'containerProperties').customProperties)
      expect(schema.container.value).to.deep.equal(aspect(withInstance.records, schemaUrn, 'container'))
      expect(schema.dataPlatformInstance.value).to.deep.equal({platform: 'urn:li:dataPlatform:postgres', instance: 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:postgres,wh)'})
      // Browse paths name the new containers too.
      expect(JSON.stringify(table.browsePathsV2.value)).to.not.contain(oldSchema)
      expect(JSON.stringify(table.browsePathsV2.value)).to.contain(schemaUrn)
      expect((await read(oldSchema)).status.value).to.deep.equal({removed: true})

      // Ingesting under the instance now finds everything where the migration put it: no new version of the containers' parents.
      const again = await ingestJson(writeRecipe(dir, {source: {type: 'postgres', config: {host_port: '127.0.0.1:5432', database: dbName, username: 'postgres', platform_instance: 'wh', ...times}}, sink: {type: 'datahub-rest'}}, 'times-wh.yml'), lite.env())
      expect(again.code, again.stderr + again.stdout).to.equal(0)
      const versions = await http(`${lite.url}/aspects/${encodeURIComponent(newTable)}?aspect=container&version=1`)
      expect(versions.status, 'the dataset already pointed at its container').to.equal(404)
    })
  })
})

describe("mysql / mariadb sources: DataHub's goldens on a real MariaDB", function () {
  this.timeout(180_000)
  let conn: mysql.Connection
  let oracle: string
  let dir: string
  const DBS = ['metagalaxy', 'dataCharmer', 'northwind', 'test_cases']

  before(async function () {
    await requireMariadb(this)
    oracle = requireSharedFixtures(this, 'datahub-integration', 'mysql')
    dir = tempDir('mdcli-mysql-golden-')
    conn = await mysql.createConnection({host: '127.0.0.1', port: 3306, user: 'root', multipleStatements: true})
    await conn.query("SELECT GET_LOCK('mdcli_mysql_golden', 120)")
    for (const d of DBS) await conn.query(`DROP DATABASE IF EXISTS \`${d}\``)
    await conn.query(readFileSync(join(oracle, 'setup', 'setup.sql'), 'utf8'))
    await conn.query('ANALYZE TABLE northwind.customers, northwind.orders')
  })
  after(async () => {
    if (conn) {
      for (const d of DBS) await conn.query(`DROP DATABASE IF EXISTS \`${d}\``).catch(() => {})
      await conn.query("SELECT RELEASE_LOCK('mdcli_mysql_golden')").catch(() => {})
      await conn.end()
    }
    if (dir) cleanup(dir)
  })

  const recipe = (name: string) => {
    const r = yaml.load(readFileSync(join(oracle, name), 'utf8')) as any
    r.source.config.host_port = '127.0.0.1:3306'
    r.source.config.password = ''
    return r
  }

  /**
   * Where MariaDB 10.11 differs from the MySQL 8 the goldens came from, and why:
   * - view text: MariaDB renders `CREATE … DEFINER=\`root\`@\`%\` … VIEW` with its own spacing;
   * - `INT(11)`/`BIGINT(20)`: MariaDB keeps display widths, which SQLAlchemy ignores — no difference;
   * - `sizeInBytes` and estimated row counts: storage-engine statistics;
   * - sample values: scan order.
   * Means and standard deviations are compared: they are doubles on both sides.
   */
  const mariaIgnore = ['viewLogic', 'customProperties.view_definition', 'sizeInBytes', 'fieldProfiles[].sampleValues']

  for (const [file, golden] of [
    ['mysql_to_file_with_db.yml', 'mysql_mces_with_db_golden.json'],
    ['mysql_to_file_no_db.yml', 'mysql_mces_no_db_golden.json'],
    ['mysql_profile_table_level_only.yml', 'mysql_table_level_only.json'],
  ]) {
    it(`${file} produces ${golden}`, async () => {
      const {code, stderr, records, result} = await runRecipe(recipe(file), dir)
      expect(code, stderr + JSON.stringify(result?.source?.report)).to.equal(0)
      expectSameAspects(records, withoutClassification(readJson(join(oracle, golden))), {ignore: mariaIgnore})
    })
  }

  /**
   * The server's row estimate, as information_schema.TABLES.TABLE_ROWS reports it: written into
   * InnoDB's persistent statistics and reloaded (a table renamed is reopened with them).
   */
  async function setEstimate(table: string, rows: number): Promise<void> {
    await conn.query('UPDATE mysql.innodb_table_stats SET n_rows = ? WHERE database_name = ? AND table_name = ?', [rows, 'northwind', table])
    await conn.query(`RENAME TABLE northwind.${table} TO northwind.${table}_mdcli_tmp, northwind.${table}_mdcli_tmp TO northwind.${table}`)
    const [[r]] = (await conn.query('SELECT TABLE_ROWS AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', ['northwind', table])) as any
    expect(Number(r.n), `the estimate of northwind.${table}`).to.equal(rows)
  }

  it('mysql_profile_table_row_count_estimate_only.yml produces mysql_table_row_count_estimate_only.json, profiles included, with the estimate MySQL 8 gave (0)', async () => {
    // MySQL 8 answered 0 for the fresh tables; with that estimate the whole golden is reproduced:
    // null counts clamp to 0, and no nullProportion, min/max or samples (DataHub's row_count > 0 rules).
    await setEstimate('customers', 0)
    await setEstimate('orders', 0)
    try {
      const {code, stderr, records} = await runRecipe(recipe('mysql_profile_table_row_count_estimate_only.yml'), dir)
      expect(code, stderr).to.equal(0)
      expectSameAspects(records, readJson(join(oracle, 'mysql_table_row_count_estimate_only.json')), {ignore: mariaIgnore})
    } finally {
      await conn.query('ANALYZE TABLE northwind.customers, northwind.orders')
    }
  })

  it('estimate-only with an estimate above zero: nullProportion and the statistics against the estimate, as in DataHub\'s PostgreSQL golden', async () => {
    await setEstimate('customers', 5)
    const {code, stderr, records} = await runRecipe(recipe('mysql_profile_table_row_count_estimate_only.yml'), dir)
    expect(code, stderr).to.equal(0)
    const p = aspect(records, 'urn:li:dataset:(urn:li:dataPlatform:mysql,northwind.customers,PROD)', 'datasetProfile')
    expect(p.rowCount).to.equal(5)
    const priority = p.fieldProfiles.find((f: any) => f.fieldPath === 'priority')
    expect(priority).to.deep.include({uniqueCount: 3, uniqueProportion: 0.75, nullCount: 1, nullProportion: 0.2, min: '3.8', max: '4.9'})
    for (const f of p.fieldProfiles) expect(f, f.fieldPath).to.have.property('nullProportion')
  })

  it('the mariadb source is the same with platform mariadb', async () => {
    const r = recipe('mysql_to_file_with_db.yml')
    r.source.type = 'mariadb'
    const {code, records} = await runRecipe(r, dir)
    expect(code).to.equal(0)
    expect(records.some((x) => x.entityUrn === 'urn:li:dataset:(urn:li:dataPlatform:mariadb,northwind.orders,PROD)')).to.equal(true)
  })

  it('reads a mysql sqlalchemy_uri as DataHub recipes give it', async () => {
    const r = await runRecipe({source: {type: 'mysql', config: {sqlalchemy_uri: 'mysql+pymysql://root:@127.0.0.1:3306/northwind', scheme: 'mysql+pymysql'}}}, dir, offlineEnv(dir), 'cli')
    expect(r.code, r.stderr).to.equal(0)
    expect(r.records.some((x) => x.entityUrn === 'urn:li:dataset:(urn:li:dataPlatform:mysql,northwind.orders,PROD)')).to.equal(true)
  })

  it('a wrong password is one line naming the server and user, never the password', async () => {
    const r = await runRecipe({source: {type: 'mysql', config: {host_port: '127.0.0.1:3306', username: 'nobody_here', password: SECRET, database: 'northwind'}}}, dir, offlineEnv(dir), 'cli')
    expect(r.code).to.equal(1)
    expect(r.result.error.message).to.equal('MySQL at 127.0.0.1:3306/northwind: login refused for user "nobody_here"')
    expect(r.stdout + r.stderr).not.to.contain(SECRET)
  })
})

describe('mysql / mariadb sources: our own databases', function () {
  this.timeout(120_000)
  let conn: mysql.Connection
  let db: string
  let db2: string
  let dir: string
  const ds = (name: string, platform = 'mariadb') => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`

  before(async function () {
    await requireMariadb(this)
    db = uniqueName('mdcli_my')
    db2 = `${db}_b`
    dir = tempDir('mdcli-mysql-')
    conn = await mysql.createConnection({host: '127.0.0.1', port: 3306, user: 'root', multipleStatements: true})
    await conn.query(`
      CREATE DATABASE \`${db}\`; CREATE DATABASE \`${db2}\`;
      CREATE TABLE \`${db2}\`.labels (id INT PRIMARY KEY, label VARCHAR(20));
      USE \`${db}\`;
      CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, amount INT);
      CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(20));
      CREATE TABLE \`my table\` (\`a b\` INT);
      CREATE VIEW v_join AS SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id;
      CREATE VIEW v_join3 AS SELECT o.id, c.name, l.label FROM orders o LEFT JOIN customers c ON c.id = o.customer_id JOIN \`${db2}\`.labels l ON l.id = o.id;
      CREATE VIEW v_cross AS SELECT o.id, l.label FROM orders o JOIN \`${db2}\`.labels l ON l.id = o.id;
      CREATE VIEW v_cte AS WITH x AS (SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id) SELECT id FROM x;
      CREATE VIEW v_union AS SELECT id FROM customers UNION SELECT id FROM orders;
      CREATE VIEW v_sub AS SELECT s.id FROM (SELECT id FROM customers) s;
      CREATE VIEW \`my view\` AS SELECT \`a b\` FROM \`my table\`;
      CREATE TABLE docs (j JSON);
      INSERT INTO docs VALUES ('{"a": 1}'), ('[1,2]');
      CREATE TABLE times (dt DATETIME(3), d DATE);
      INSERT INTO times VALUES ('2020-01-01 10:00:00.123', '1985-12-31'), ('2021-06-01 00:00:00', '1990-05-01');
      CREATE USER '${db}_r'@'%' IDENTIFIED BY '${SECRET}';
      GRANT SELECT ON \`${db}\`.* TO '${db}_r'@'%';
    `)
  })
  after(async () => {
    if (conn) {
      await conn.query(`DROP DATABASE IF EXISTS \`${db}\``).catch(() => {})
      await conn.query(`DROP DATABASE IF EXISTS \`${db2}\``).catch(() => {})
      await conn.query(`DROP USER IF EXISTS '${db}_r'@'%'`).catch(() => {})
      await conn.end()
    }
    if (dir) cleanup(dir)
  })

  const source = (config: Record<string, unknown> = {}) => ({source: {type: 'mariadb', config: {host_port: '127.0.0.1:3306', username: 'root', database: db, ...config}}})
  const upstreamsOf = (records: any[], urn: string): string[] | undefined => aspect(records, urn, 'upstreamLineage')?.upstreams.map((u: any) => u.dataset)

  it('views with joins (parenthesised by the server), across databases, CTEs, unions and subqueries have their lineage', async () => {
    const {code, stderr, records, result} = await runRecipe(source(), dir)
    expect(code, stderr + JSON.stringify(result?.source?.report)).to.equal(0)
    expect(upstreamsOf(records, ds(`${db}.v_join`))).to.have.members([ds(`${db}.orders`), ds(`${db}.customers`)])
    expect(upstreamsOf(records, ds(`${db}.v_join3`))).to.have.members([ds(`${db}.orders`), ds(`${db}.customers`), ds(`${db2}.labels`)])
    expect(upstreamsOf(records, ds(`${db}.v_cross`))).to.have.members([ds(`${db}.orders`), ds(`${db2}.labels`)])
    expect(upstreamsOf(records, ds(`${db}.v_cte`))).to.have.members([ds(`${db}.orders`), ds(`${db}.customers`)])
    expect(upstreamsOf(records, ds(`${db}.v_union`))).to.have.members([ds(`${db}.customers`), ds(`${db}.orders`)])
    expect(upstreamsOf(records, ds(`${db}.v_sub`))).to.deep.equal([ds(`${db}.customers`)])
    expect(upstreamsOf(records, ds(`${db}.my view`))).to.deep.equal([ds(`${db}.my table`)])
    const fine = (urn: string) => aspect(records, urn, 'upstreamLineage').fineGrainedLineages.map((f: any) => [f.downstreams[0], f.upstreams])
    expect(fine(ds(`${db}.v_cross`))).to.deep.equal([
      [`urn:li:schemaField:(${ds(`${db}.v_cross`)},id)`, [`urn:li:schemaField:(${ds(`${db}.orders`)},id)`]],
      [`urn:li:schemaField:(${ds(`${db}.v_cross`)},label)`, [`urn:li:schemaField:(${ds(`${db2}.labels`)},label)`]],
    ])
    expect(fine(ds(`${db}.v_cte`))).to.deep.equal([[`urn:li:schemaField:(${ds(`${db}.v_cte`)},id)`, [`urn:li:schemaField:(${ds(`${db}.orders`)},id)`]]])
    expect(fine(ds(`${db}.v_union`))[0][1]).to.have.members([`urn:li:schemaField:(${ds(`${db}.customers`)},id)`, `urn:li:schemaField:(${ds(`${db}.orders`)},id)`])
    expect(result.source.report.warnings ?? []).to.deep.equal([])
  })

  it('profiles datetimes with their fraction as Python prints it, whatever the time zone of the machine', async () => {
    const {code, stderr, records} = await runRecipe(source({table_pattern: {allow: ['.*\\.times$']}, include_views: false, profiling: {enabled: true}}), dir, {...offlineEnv(dir), TZ: 'Asia/Tokyo'}, 'cli')
    expect(code, stderr).to.equal(0)
    const fields = aspect(records, ds(`${db}.times`), 'datasetProfile').fieldProfiles
    expect(fields.map((f: any) => [f.min, f.max])).to.deep.equal([
      ['2020-01-01 10:00:00.123000', '2021-06-01 00:00:00'],
      ['1985-12-31', '1990-05-01'],
    ])
  })

  it('JSON values are profiled as their text', async () => {
    const {code, stderr, records} = await runRecipe(source({table_pattern: {allow: ['.*\\.docs$']}, include_views: false, profiling: {enabled: true}}), dir)
    expect(code, stderr).to.equal(0)
    const [j] = aspect(records, ds(`${db}.docs`), 'datasetProfile').fieldProfiles
    expect(j.sampleValues).to.have.members(['{"a": 1}', '[1,2]'])
  })

  it("browsePathsV2 as DataHub's auto_browse_path_v2 gives it: the database container at the root (under the platform instance when there is one), its tables and views under it", async () => {
    const dbUrn = (instance?: string) => `urn:li:container:${createHash('md5').update(JSON.stringify({database: db, instance: instance ?? 'PROD', platform: 'mariadb'})).digest('hex')}`
    const plain = await runRecipe(source({table_pattern: {allow: ['.*\\.orders$']}, view_pattern: {allow: ['.*\\.v_join$']}}), dir)
    expect(plain.code, plain.stderr).to.equal(0)
    const pathOf = (records: any[], urn: string) => records.filter((r) => r.entityUrn === urn && r.aspectName === 'browsePathsV2').map((r) => r.aspect.json)
    expect(pathOf(plain.records, dbUrn())).to.deep.equal([{path: []}])
    for (const t of ['orders', 'v_join']) expect(pathOf(plain.records, ds(`${db}.${t}`)), t).to.deep.equal([{path: [{id: dbUrn(), urn: dbUrn()}]}])

    const inst = 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:mariadb,eu1)'
    const withInstance = await runRecipe(source({platform_instance: 'eu1', table_pattern: {allow: ['.*\\.orders$']}, include_views: false}), dir)
    expect(withInstance.code, withInstance.stderr).to.equal(0)
    const c = dbUrn('eu1')
    expect(pathOf(withInstance.records, c)).to.deep.equal([{path: [{id: inst, urn: inst}]}])
    expect(aspect(withInstance.records, c, 'dataPlatformInstance')).to.deep.equal({platform: 'urn:li:dataPlatform:mariadb', instance: inst})
    expect(pathOf(withInstance.records, ds(`eu1.${db}.orders`))).to.deep.equal([{path: [{id: inst, urn: inst}, {id: c, urn: c}]}])
  })

  it('profile_pattern limits profiling only: denied tables keep their schema without a profile, a denied db.table.column is left unprofiled', async () => {
    await conn.query(`INSERT INTO \`${db}\`.orders VALUES (1, 1, 10), (2, 1, 20), (3, NULL, 30)`)
    try {
      const {code, stderr, records} = await runRecipe(source({include_views: false, profile_pattern: {deny: ['.*\\.customers$', '.*\\.orders\\.amount$']}, profiling: {enabled: true}}), dir)
      expect(code, stderr).to.equal(0)
      expect(aspect(records, ds(`${db}.customers`), 'schemaMetadata').fields.map((f: any) => f.fieldPath)).to.deep.equal(['id', 'name'])
      expect(aspect(records, ds(`${db}.customers`), 'datasetProfile')).to.equal(undefined)
      const orders = aspect(records, ds(`${db}.orders`), 'datasetProfile')
      expect(orders).to.deep.include({rowCount: 3, columnCount: 3})
      expect(orders.fieldProfiles.find((f: any) => f.fieldPath === 'customer_id')).to.deep.include({nullCount: 1, uniqueCount: 1})
      // As DataHub: a column the pattern denies keeps its place with its name only.
      expect(orders.fieldProfiles.find((f: any) => f.fieldPath === 'amount')).to.deep.equal({fieldPath: 'amount'})
    } finally {
      await conn.query(`DELETE FROM \`${db}\`.orders`)
    }
  })

  it("an env that is not one of DataHub's environments is refused in one line, before anything is written", async () => {
    const bad = await runRecipe(source({env: 'prod-eu'}), dir, offlineEnv(dir), 'cli')
    expect(bad.code).to.equal(1)
    expect(bad.result.error.message).to.match(/^source\.config\.env: 'prod-eu' is not an environment \(one of DEV, .*, PROD, CORP\)$/)
    expect(bad.records).to.deep.equal([])
  })

  it('a view the user may not SHOW is emitted without its definition, with a warning; the tables are all there', async () => {
    const {code, stderr, records, result} = await runRecipe(source({username: `${db}_r`, password: SECRET}), dir)
    expect(code, stderr + JSON.stringify(result?.source?.report)).to.equal(0)
    for (const t of ['orders', 'customers', 'my table']) expect(aspect(records, ds(`${db}.${t}`), 'schemaMetadata'), t).to.not.equal(undefined)
    expect(aspect(records, ds(`${db}.v_join`), 'schemaMetadata').fields.map((f: any) => f.fieldPath)).to.deep.equal(['id', 'name'])
    expect(aspect(records, ds(`${db}.v_join`), 'viewProperties')).to.deep.equal({materialized: false, viewLogic: '', viewLanguage: 'SQL'})
    const warning = result.source.report.warnings.find((w: any) => w.key === 'view definition')
    expect(warning.count).to.equal(7)
    expect(warning.examples[0]).to.match(new RegExp(`^${db}\\.my view: the definition could not be read: .*SHOW VIEW`))
    expect(result.source.report.failures ?? []).to.deep.equal([])
  })
})

describe("mysql / mariadb sources: stale tables removed, with DataHub's fail-safe default (75 %)", function () {
  this.timeout(180_000)
  let conn: mysql.Connection
  let db: string
  let dir: string
  const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:mariadb,${db}.${name},PROD)`

  before(async function () {
    await requireMariadb(this)
    db = uniqueName('mdcli_stale')
    dir = tempDir('mdcli-mysql-stale-')
    conn = await mysql.createConnection({host: '127.0.0.1', port: 3306, user: 'root', multipleStatements: true})
    await conn.query(`CREATE DATABASE \`${db}\`; USE \`${db}\`; ${Array.from({length: 8}, (_, i) => `CREATE TABLE t${i + 1} (id INT);`).join(' ')}`)
  })
  after(async () => {
    if (conn) {
      await conn.query(`DROP DATABASE IF EXISTS \`${db}\``).catch(() => {})
      await conn.end()
    }
    if (dir) cleanup(dir)
  })

  // The checkpoint in a file (DataHub's file state provider), the output in a file sink.
  const run = (pipeline: string, name: string, config: Record<string, unknown> = {}) =>
    runRecipe({pipeline_name: pipeline, run_id: name, source: {type: 'mariadb', config: {host_port: '127.0.0.1:3306', username: 'root', database: db, ...config, stateful_ingestion: {enabled: true, state_provider: {type: 'file', config: {filename: join(dir, `${pipeline}.state.json`)}}}}}}, dir)
  const softDeleted = (records: any[]) => records.filter((r) => r.aspectName === 'status' && r.aspect.json.removed === true).map((r) => r.entityUrn)

  it('a run that drops one table of two removes it', async () => {
    const two = {table_pattern: {allow: ['.*\\.t7$', '.*\\.t8$']}}
    const first = await run('stale_two', 'two-1', two)
    expect(first.code, first.stderr).to.equal(0)
    await conn.query(`DROP TABLE \`${db}\`.t8`)
    const second = await run('stale_two', 'two-2', two)
    expect(second.code, second.stderr + JSON.stringify(second.result?.source?.report)).to.equal(0)
    expect(softDeleted(second.records)).to.deep.equal([ds('t8')])
    expect(second.result.source.report.info.softDeletedStaleEntities).to.deep.equal([ds('t8')])
  })

  it('a run that would remove more than 75 % of the last run fails and removes nothing; exactly 75 % is still removed', async () => {
    const seven = {table_pattern: {allow: ['.*\\.t[1-7]$']}}
    // The database's container and seven tables: 8 entities.
    expect((await run('stale_edge', 'edge-1', seven)).code).to.equal(0)
    // One table left: 6 of 8 would go, 75.0 %, not more than the threshold.
    const edge = await run('stale_edge', 'edge-2', {table_pattern: {allow: ['.*\\.t1$']}})
    expect(edge.code, edge.stderr + JSON.stringify(edge.result?.source?.report)).to.equal(0)
    expect(softDeleted(edge.records)).to.have.members(['t2', 't3', 't4', 't5', 't6', 't7'].map(ds))

    expect((await run('stale_many', 'many-1', seven)).code).to.equal(0)
    // No table left (as after a lost permission): 7 of 8 would go, 87.5 %.
    const lost = await run('stale_many', 'many-2', {table_pattern: {allow: ['.*\\.no_such_table$']}})
    expect(lost.code).to.equal(1)
    const failure = lost.result.source.report.failures.find((f: {key: string}) => f.key === 'stale-entity-removal')
    expect(failure.examples[0]).to.match(/deleting 87\.5% .*fail_safe_threshold' \(currently 75\)/)
    expect(softDeleted(lost.records)).to.deep.equal([])
    // The failed run's state was not kept: the next run compares with the last good one.
    const again = await run('stale_many', 'many-3', seven)
    expect(again.code, again.stderr).to.equal(0)
    expect(softDeleted(again.records)).to.deep.equal([])
  })
})
