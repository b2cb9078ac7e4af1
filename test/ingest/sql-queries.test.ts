/**
 * The `sql-queries` source: DataHub's goldens (its query files and recipes, run as `mdcli ingest`
 * runs them, in this process, with a file sink), our own cases (malformed lines, a temp-table chain, repeated
 * queries), and one run into a real `mdcli lite` whose lineage is read back.
 */
import {expect} from 'chai'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {cleanup, http, ROOT, tempDir, useLite} from '../helpers/lite.js'
import {expectSameAspects} from '../helpers/golden.js'
import {startReplay, type Replay} from '../helpers/replay.js'
import {requireSharedFixtures} from '../helpers/requires.js'
import {offlineEnv} from './helpers.js'
import {datahubRecipe, runRecipe} from './bi-helpers.js'
import {encodeUrnPath} from '../../src/model/urn.js'

const OWN = join(ROOT, 'test', 'fixtures', 'sql-queries')
const ds = (name: string, platform = 'snowflake') => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`

/** DataHub's mock server: its expectations by method and path. */
async function mockDatahub(oracle: string): Promise<Replay> {
  const expectations = JSON.parse(readFileSync(join(oracle, 'expectations', 'datahub-expectations.json'), 'utf8')) as Array<{httpRequest: {method: string; path: string}; httpResponse: {statusCode: number; body: unknown}}>
  return startReplay((req) => {
    const e = expectations.find((x) => x.httpRequest.method === req.method && x.httpRequest.path === req.path)
    return e ? {status: e.httpResponse.statusCode, body: e.httpResponse.body} : undefined
  })
}

/**
 * The wall-clock parts §8 says to ignore that sit where the generic comparison does not look:
 * `auditStamp.time` inside the PATCH operations of `incremental_lineage`.
 */
function zeroPatchStamps(records: any[]): any[] {
  return records.map((r) => {
    if (r.changeType !== 'PATCH' || !Array.isArray(r.aspect?.json)) return r
    const ops = r.aspect.json.map((op: any) => (op.value?.auditStamp ? {...op, value: {...op.value, auditStamp: {...op.value.auditStamp, time: 0}}} : op))
    return {...r, aspect: {json: ops}}
  })
}

describe("sql-queries source: DataHub's goldens", function () {
  this.timeout(120_000)
  let oracle: string
  let dir: string
  let mock: Replay
  before(function () {
    oracle = requireSharedFixtures(this, 'datahub-integration', 'sql_queries')
  })
  beforeEach(async () => {
    dir = tempDir('mdcli-sqlq-')
    mock = await mockDatahub(oracle)
  })
  afterEach(async () => {
    await mock?.close()
    cleanup(dir)
  })

  for (const name of ['basic', 'basic-with-schema-resolver', 'explicit-lineage', 'lazy-schema-loading', 'patch-lineage', 'session-temp-tables']) {
    it(`recipes/${name}.yml produces golden/${name}.json`, async () => {
      const recipe = datahubRecipe(join(oracle, 'recipes', `${name}.yml`), {MOCK_PORT: String(mock.port)}, join(dir, 'out.json'))
      // The recipe is run from the fixture folder in DataHub's test; ours is written elsewhere.
      recipe.source.config.query_file = join(oracle, recipe.source.config.query_file)
      const run = await runRecipe(dir, recipe, offlineEnv(dir), [], 'here')
      expect(run.code, run.stderr + run.stdout).to.equal(0)
      expect(run.records.length).to.be.greaterThan(0)
      const golden = JSON.parse(readFileSync(join(oracle, 'golden', `${name}.json`), 'utf8'))
      expectSameAspects(zeroPatchStamps(run.records), zeroPatchStamps(golden))
    })
  }
})

describe('sql-queries source: our cases', function () {
  this.timeout(120_000)
  let dir: string
  beforeEach(() => {
    dir = tempDir('mdcli-sqlq-own-')
  })
  afterEach(() => cleanup(dir))

  const recipeFor = (file: string, extra: Record<string, unknown> = {}) => ({
    source: {type: 'sql-queries', config: {query_file: join(OWN, file), platform: 'snowflake', usage: {start_time: '2021-01-01T00:00:00Z', end_time: '2021-01-02T00:00:00Z'}, ...extra}},
    sink: {type: 'file', config: {filename: join(dir, 'out.json')}},
  })
  const aspects = (records: any[], urn: string, aspect: string) => records.filter((r) => r.entityUrn === urn && r.aspectName === aspect).map((r) => r.aspect.json)

  it('a malformed line is a warning naming its line, and the other lines are read (as DataHub skips them)', async () => {
    const run = await runRecipe(dir, recipeFor('malformed.jsonl'), offlineEnv(dir), [], 'here')
    expect(run.code, run.stderr + run.stdout).to.equal(0)
    const warnings = run.result.source.report.warnings.flatMap((w: any) => w.examples).join('\n')
    expect(warnings).to.match(/malformed\.jsonl line 2: /)
    expect(warnings).to.match(/malformed\.jsonl line 3: "query" is missing/)
    expect(warnings).to.match(/malformed\.jsonl line 4: upstream_tables must be a list/)
    expect(run.result.source.report.info).to.include({num_entries_processed: 2, num_entries_failed: 3})
    // Lines 1 and 5 made it: lineage of orders, usage of orders by the analyst's SELECT.
    expect(aspects(run.records, ds('db.s.orders'), 'upstreamLineage')[0].upstreams.map((u: any) => u.dataset)).to.deep.equal([ds('db.s.raw_orders')])
    expect(aspects(run.records, ds('db.s.orders'), 'datasetUsageStatistics')[0]).to.include({totalSqlQueries: 1, uniqueUserCount: 1})
  })

  it('an env in lower case is taken as DataHub takes it, upper-cased, in every urn', async () => {
    const run = await runRecipe(dir, recipeFor('malformed.jsonl', {env: 'dev'}), offlineEnv(dir), [], 'here')
    expect(run.code, run.stderr + run.stdout).to.equal(0)
    const urns = run.records.map((r: any) => r.entityUrn as string).filter((u) => u.startsWith('urn:li:dataset:'))
    expect(urns).to.not.be.empty
    for (const u of urns) expect(u, u).to.match(/,DEV\)$/)
  })

  it('a file none of whose lines is a query fails the run and says why', async () => {
    const run = await runRecipe(dir, recipeFor('all-bad.jsonl'), offlineEnv(dir))
    expect(run.code).to.not.equal(0)
    expect(JSON.stringify(run.result?.source?.report?.failures ?? run.stderr)).to.match(/every line of .*all-bad\.jsonl failed to parse/)
  })

  it('a missing query file is a clear error and writes nothing', async () => {
    const run = await runRecipe(dir, recipeFor('no-such.jsonl'), offlineEnv(dir))
    expect(run.code).to.not.equal(0)
    expect(run.stderr + run.stdout).to.match(/query_file .*no-such\.jsonl: no such file/)
    expect(run.records).to.deep.equal([])
    // Refused before the run starts: one error, not a run's report.
    expect(run.result?.error?.message, JSON.stringify(run.result)).to.match(/query_file .*no-such\.jsonl: no such file/)
  })

  it('a chain of temp tables resolves to the real tables, as one composite query', async () => {
    const run = await runRecipe(dir, recipeFor('temp-chain.jsonl'), offlineEnv(dir), [], 'here')
    expect(run.code, run.stderr + run.stdout).to.equal(0)
    const [lineage] = aspects(run.records, ds('db.s.revenue_by_region'), 'upstreamLineage')
    expect(lineage.upstreams.map((u: any) => u.dataset).sort()).to.deep.equal([ds('db.s.customers'), ds('db.s.orders')])
    const query = lineage.upstreams[0].query as string
    expect(query).to.match(/^urn:li:query:composite_[0-9a-f]{64}$/)
    const fine = Object.fromEntries(lineage.fineGrainedLineages.map((f: any) => [f.downstreams[0].replace(/.*,/, '').replace(')', ''), f.upstreams]))
    expect(fine).to.deep.equal({
      region: [`urn:li:schemaField:(${ds('db.s.customers')},region)`],
      total: [`urn:li:schemaField:(${ds('db.s.orders')},amount)`],
    })
    // The composite's text is the three statements in time order; no temp table is a dataset with lineage.
    const [props] = aspects(run.records, query, 'queryProperties')
    expect(props.statement.value.split(';\n\n').map((s: string) => s.split(' AS ')[0])).to.deep.equal(['CREATE TEMPORARY TABLE stage_a', 'CREATE TEMP TABLE stage_b', 'INSERT INTO db.s.revenue_by_region SELECT region, SUM(amount)'])
    expect(run.records.filter((r) => r.aspectName === 'upstreamLineage').map((r) => r.entityUrn)).to.deep.equal([ds('db.s.revenue_by_region')])
    // The same INSERT in another session (which knows no stage_b) does not replace the resolved lineage.
    expect(aspects(run.records, ds('db.s.revenue_by_region'), 'operation')).to.have.length(1)
  })

  it('identical queries (other literals, spacing, case) are one query entity counting every run', async () => {
    const run = await runRecipe(dir, recipeFor('duplicates.jsonl'), offlineEnv(dir), [], 'here')
    expect(run.code, run.stderr + run.stdout).to.equal(0)
    const queries = [...new Set(run.records.filter((r) => r.entityType === 'query').map((r) => r.entityUrn))]
    expect(queries).to.have.length(2)
    const counts = queries.map((q) => aspects(run.records, q, 'queryUsageStatistics')[0].queryCount).sort()
    expect(counts).to.deep.equal([2, 3])
    const [usage] = aspects(run.records, ds('db.s.orders'), 'datasetUsageStatistics')
    expect(usage).to.include({totalSqlQueries: 5, uniqueUserCount: 2})
    expect(usage.userCounts).to.deep.equal([
      {user: 'urn:li:corpuser:ann', count: 3},
      {user: 'urn:li:corpuser:bob', count: 2},
    ])
    expect(usage.fieldCounts).to.deep.equal([
      {fieldPath: 'id', count: 5},
      {fieldPath: 'amount', count: 3},
    ])
  })

  it("WITH … INSERT, DELETE; a statement the parser cannot read is reported and the run goes on", async () => {
    const run = await runRecipe(dir, recipeFor('statements.jsonl'), offlineEnv(dir), [], 'here')
    expect(run.code, run.stderr + run.stdout).to.equal(0)
    const [lineage] = aspects(run.records, ds('db.s.big_orders'), 'upstreamLineage')
    expect(lineage.upstreams.map((u: any) => u.dataset)).to.deep.equal([ds('db.s.orders')])
    expect(lineage.fineGrainedLineages.map((f: any) => f.upstreams[0].replace(/.*,/, ''))).to.deep.equal(['id)', 'amount)'])
    expect(aspects(run.records, ds('db.s.orders'), 'operation').map((o: any) => o.operationType)).to.deep.equal(['DELETE'])
    expect(run.result.source.report.info.num_queries_parse_failures).to.equal(1)
    expect(run.result.source.report.warnings.flatMap((w: any) => w.examples).join('\n')).to.match(/on query: MERGE INTO db\.s\.t/)
  })

  it('a bad config value is refused before anything runs', async () => {
    const run = await runRecipe(dir, recipeFor('duplicates.jsonl', {temp_table_patterns: ['(']}), offlineEnv(dir))
    expect(run.code).to.not.equal(0)
    expect(run.stderr + run.stdout).to.match(/temp_table_patterns: invalid regex/)
  })
})

describe('sql-queries source into a real mdcli lite', function () {
  this.timeout(120_000)
  const lite = useLite()
  let dir: string
  beforeEach(() => {
    dir = tempDir('mdcli-sqlq-rest-')
  })
  afterEach(() => cleanup(dir))

  it('ingests through the REST sink; the lineage and the query read back', async () => {
    const recipe = {source: {type: 'sql-queries', config: {query_file: join(OWN, 'temp-chain.jsonl'), platform: 'snowflake'}}, sink: {type: 'datahub-rest'}}
    const {writeRecipe, ingestJson} = await import('./helpers.js')
    const r = await ingestJson(writeRecipe(dir, recipe), lite.env())
    expect(r.code, r.stderr + r.stdout).to.equal(0)
    const entity = await http(`${lite.url}/entitiesV2/${encodeUrnPath(ds('db.s.revenue_by_region'))}`)
    expect(entity.status).to.equal(200)
    const lineage = entity.body.aspects.upstreamLineage.value
    expect(lineage.upstreams.map((u: any) => u.dataset).sort()).to.deep.equal([ds('db.s.customers'), ds('db.s.orders')])
    const query = await http(`${lite.url}/entitiesV2/${encodeUrnPath(lineage.upstreams[0].query)}`)
    expect(query.status).to.equal(200)
    expect(query.body.aspects.queryProperties.value.statement.value).to.match(/^CREATE TEMPORARY TABLE stage_a/)
    expect(query.body.aspects.querySubjects.value.subjects.map((s: any) => s.entity)).to.include(ds('db.s.revenue_by_region'))
  })

  it("use_schema_resolver: a table's columns come from the server, so SELECT * has column lineage", async () => {
    const field = (fieldPath: string) => ({fieldPath, nativeDataType: 'NUMBER', type: {type: {'com.linkedin.schema.NumberType': {}}}})
    const schema = {schemaName: 'orders', platform: 'urn:li:dataPlatform:snowflake', version: 0, hash: '', platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: ''}}, fields: [field('id'), field('amount')]}
    const put = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {method: 'POST', body: {proposals: [{entityType: 'dataset', entityUrn: ds('db.s.orders'), changeType: 'UPSERT', aspectName: 'schemaMetadata', aspect: {json: schema}}]}})
    expect(put.status, JSON.stringify(put.body)).to.equal(200)
    const log = join(dir, 'q.jsonl')
    writeFileSync(log, `${JSON.stringify({query: 'INSERT INTO db.s.orders_copy SELECT * FROM db.s.orders', timestamp: 1609459200, user: 'etl'})}\n`)
    const {writeRecipe, ingestJson} = await import('./helpers.js')
    const recipe = {source: {type: 'sql-queries', config: {query_file: log, platform: 'snowflake'}}, sink: {type: 'datahub-rest'}}
    const r = await ingestJson(writeRecipe(dir, recipe), lite.env())
    expect(r.code, r.stderr + r.stdout).to.equal(0)
    const entity = await http(`${lite.url}/entitiesV2/${encodeUrnPath(ds('db.s.orders_copy'))}`)
    const fine = entity.body.aspects.upstreamLineage.value.fineGrainedLineages.map((f: any) => [f.upstreams[0], f.downstreams[0], f.transformOperation])
    expect(fine).to.deep.equal([
      [`urn:li:schemaField:(${ds('db.s.orders')},id)`, `urn:li:schemaField:(${ds('db.s.orders_copy')},id)`, 'COPY: "ORDERS"."ID" AS "ID"'],
      [`urn:li:schemaField:(${ds('db.s.orders')},amount)`, `urn:li:schemaField:(${ds('db.s.orders_copy')},amount)`, 'COPY: "ORDERS"."AMOUNT" AS "AMOUNT"'],
    ])
  })
})
