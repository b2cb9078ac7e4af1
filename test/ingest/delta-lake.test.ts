/**
 * The delta-lake source on DataHub's own Delta tables: each of DataHub's recipes, run as
 * `mdcli ingest` runs it (in this process: the source's output is the point) from a folder where the recipe's relative `base_path` leads to a copy of the
 * fixture tables (as DataHub's test runs from `metadata-ingestion/`), compared with its golden
 * (reference §8 normalisation). Plus what the goldens do not cover: a checkpoint, removed files,
 * a folder without tables, a broken log.
 */
import {expect} from 'chai'
import {cpSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import yaml from 'js-yaml'
import {cleanup, tempDir} from '../helpers/lite.js'
import {expectSameAspects} from '../helpers/golden.js'
import {requireSharedFixtures} from '../helpers/requires.js'
import {ingestHere, ingestVia, offlineEnv, readJson, writeRecipe} from './helpers.js'

describe("delta-lake source: DataHub's goldens", function () {
  this.timeout(120_000)
  let oracle: string
  let dir: string
  before(function () {
    oracle = requireSharedFixtures(this, 'datahub-integration', 'delta_lake')
    dir = tempDir('mdcli-delta-')
    const target = join(dir, 'tests', 'integration', 'delta_lake')
    mkdirSync(target, {recursive: true})
    cpSync(join(oracle, 'test_data'), join(target, 'test_data'), {recursive: true})
  })
  after(() => cleanup(dir))

  for (const name of ['single_table', 'allow_table', 'tables_with_nested_datatypes']) {
    it(`${name}.yml produces golden_mces_${name}.json`, async () => {
      const recipe = yaml.load(readFileSync(join(oracle, 'recipes', `${name}.yml`), 'utf8')) as any
      recipe.sink = {type: 'file', config: {filename: join(dir, `${name}.out.json`)}}
      const r = await ingestHere(writeRecipe(dir, recipe, `${name}.yml`), offlineEnv(dir))
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      expectSameAspects(readJson(join(dir, `${name}.out.json`)), readJson(join(oracle, 'golden_files', 'local', `golden_mces_${name}.json`)))
    })
  }
})

/** A Delta log written by hand: commits as action lists, by version. */
function writeTable(root: string, commits: Array<Array<Record<string, unknown>>>, from = 0): void {
  mkdirSync(join(root, '_delta_log'), {recursive: true})
  commits.forEach((actions, i) => writeFileSync(join(root, '_delta_log', `${String(from + i).padStart(20, '0')}.json`), actions.map((a) => JSON.stringify(a)).join('\n') + '\n'))
}

const schema = (fields: Array<[string, unknown]>) => JSON.stringify({type: 'struct', fields: fields.map(([name, type]) => ({name, type, nullable: true, metadata: {}}))})

describe('delta-lake source: our own tables', function () {
  this.timeout(60_000)
  let dir: string
  beforeEach(() => {
    dir = tempDir('mdcli-delta-own-')
  })
  afterEach(() => cleanup(dir))

  // In this process, but through the real command where its config error is what is checked.
  async function run(config: Record<string, unknown>, via: 'here' | 'cli' = 'here') {
    const out = join(dir, 'out.json')
    const recipe = writeRecipe(dir, {source: {type: 'delta-lake', config}, sink: {type: 'file', config: {filename: out}}})
    const r = await ingestVia(via, recipe, offlineEnv(dir))
    let records: any[] = []
    try {
      records = readJson(out)
    } catch {
      /* nothing written */
    }
    return {...r, records}
  }

  it('replays removes, maps, dates and decimals; versions and history follow the log', async () => {
    writeTable(join(dir, 'lake', 'orders'), [
      [
        {commitInfo: {timestamp: 1700000000000, operation: 'CREATE TABLE', operationParameters: {partitionBy: '["day"]'}}},
        {metaData: {id: 'tbl-1', name: null, format: {provider: 'parquet'}, schemaString: schema([['day', 'date'], ['amount', 'decimal(10,2)'], ['tags', {type: 'map', keyType: 'string', valueType: 'long', valueContainsNull: true}]]), partitionColumns: ['day'], createdTime: 1700000000000}},
        {add: {path: 'a.parquet', size: 1, modificationTime: 1, dataChange: true}},
        {add: {path: 'b.parquet', size: 1, modificationTime: 1, dataChange: true}},
      ],
      [{commitInfo: {timestamp: 1700000100000, operation: 'DELETE', readVersion: 0}}, {remove: {path: 'a.parquet', deletionTimestamp: 1700000100000, dataChange: true}}],
    ])
    const r = await run({base_path: 'lake', version_history_lookback: -1})
    expect(r.code, r.stderr).to.equal(0)
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:delta-lake,lake/orders,PROD)'
    const props = r.records.find((x) => x.entityUrn === urn && x.aspectName === 'datasetProperties' && x.changeType === 'UPSERT').aspect.json
    expect(props.name).to.equal('orders')
    expect(props.customProperties).to.include({version: '1', number_of_files: '1', partition_columns: "['day']", location: 'lake'})
    const fields = r.records.find((x) => x.entityUrn === urn && x.aspectName === 'schemaMetadata').aspect.json.fields
    expect(fields.map((f: any) => [f.fieldPath, Object.keys(f.type.type)[0]!.split('.').pop()])).to.deep.equal([
      ['[version=2.0].[type=bytes].amount', 'NumberType'],
      ['[version=2.0].[type=int].day', 'DateType'],
      ['[version=2.0].[type=struct].[type=map].[type=long].tags', 'MapType'],
    ])
    const ops = r.records.filter((x) => x.entityUrn === urn && x.aspectName === 'operation').map((x) => x.aspect.json)
    expect(ops.map((o: any) => [o.operationType, o.customOperationType])).to.have.deep.members([
      ['CUSTOM', 'CREATE TABLE'],
      ['DELETE', undefined],
    ])
    const patch = r.records.find((x) => x.entityUrn === urn && x.changeType === 'PATCH')
    expect(patch.aspect.json[0].value.time).to.equal(1700000100000)
  })

  it('starts from a checkpoint when the early commits are gone', async () => {
    const root = join(dir, 'lake', 'cp')
    writeTable(root, [[{commitInfo: {timestamp: 1700000300000, operation: 'WRITE'}}, {add: {path: 'c.parquet', size: 1, modificationTime: 1, dataChange: true}}]], 3)
    // The checkpoint at version 2 (written with DuckDB, as a Delta writer's parquet would be).
    const {DuckDBInstance} = await import('@duckdb/node-api')
    const db = await DuckDBInstance.create(':memory:')
    const conn = await db.connect()
    const meta = `{'id': 'tbl-cp', 'name': 'checkpointed', 'description': NULL, 'schemaString': '${schema([['x', 'long']])}', 'partitionColumns': []::VARCHAR[], 'createdTime': 1600000000000}`
    await conn.run(`COPY (SELECT NULL::STRUCT(path VARCHAR) AS "add", NULL::STRUCT(path VARCHAR) AS "remove", ${meta} AS "metaData"
      UNION ALL SELECT {'path': 'b.parquet'}, NULL, NULL) TO '${join(root, '_delta_log', '00000000000000000002.checkpoint.parquet')}' (FORMAT parquet)`)
    conn.closeSync()
    db.closeSync()
    const r = await run({base_path: 'lake/cp'})
    expect(r.code, r.stderr).to.equal(0)
    const props = r.records.find((x) => x.aspectName === 'datasetProperties' && x.changeType === 'UPSERT').aspect.json
    expect(props.name).to.equal('checkpointed')
    expect(props.customProperties).to.include({version: '3', number_of_files: '2'})
  })

  it('a folder with no table warns; a broken log fails that table only, with a non-zero exit', async () => {
    mkdirSync(join(dir, 'empty', 'nothing'), {recursive: true})
    const empty = await run({base_path: 'empty'})
    expect(empty.code, empty.stderr).to.equal(0)
    expect(JSON.stringify(empty.result)).to.contain('no Delta table')
    writeTable(join(dir, 'lake2', 'good'), [[{commitInfo: {timestamp: 1, operation: 'WRITE'}}, {metaData: {id: 'g', schemaString: schema([['x', 'long']]), partitionColumns: []}}]])
    mkdirSync(join(dir, 'lake2', 'bad', '_delta_log'), {recursive: true})
    writeFileSync(join(dir, 'lake2', 'bad', '_delta_log', '00000000000000000000.json'), '{"commitInfo": {"timestamp": 1\n')
    const r = await run({base_path: 'lake2'})
    expect(r.code).to.equal(1)
    expect(r.records.some((x) => x.entityUrn === 'urn:li:dataset:(urn:li:dataPlatform:delta-lake,lake2/good,PROD)')).to.equal(true)
    expect(JSON.stringify(r.result)).to.contain('lake2/bad')
  })

  it('a base_path that does not exist is a one-line config error', async () => {
    const r = await run({base_path: 'nowhere'}, 'cli')
    expect(r.code).to.not.equal(0)
    expect(r.stderr + r.stdout).to.match(/nowhere does not exist/)
  })
})
