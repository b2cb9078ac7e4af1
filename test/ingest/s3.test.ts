/**
 * The s3 (data-lake) source on local folders. DataHub's eight local cases: each recipe run
 * as `mdcli ingest` runs it (in this process: the source's output is the point) from a folder where its relative include leads to a copy of
 * DataHub's files, with their modification times set as DataHub's test sets them, compared with
 * the golden (reference §8). As DataHub's own test, profile `sampleValues` (a random Spark sample)
 * and the times that come from file modification times are not compared.
 * Then our own lake for what the goldens do not cover: a malformed file, a file too large to
 * profile whole, mixed formats in one folder, partition templates.
 */
import {expect} from 'chai'
import {spawn} from 'node:child_process'
import {cpSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import yaml from 'js-yaml'
import {BIN, cleanup, ROOT, tempDir} from '../helpers/lite.js'
import {expectSameAspects} from '../helpers/golden.js'
import {requireSharedFixtures} from '../helpers/requires.js'
import {ingestHere, ingestVia, offlineEnv, readJson, writeRecipe} from './helpers.js'
import {Duck} from '../../plugins/data-lake-common/duck.js'
import {LocalFileSystem} from '../../plugins/data-lake-common/fs.js'
import {profileFile} from '../../plugins/data-lake-common/profile.js'
import {inferSchema} from '../../plugins/data-lake-common/schema.js'

/** DataHub's test: mtimes FROZEN + 10 s, + 20 s, … in `os.walk` order (files sorted, then folders). */
function freezeMtimes(root: string): void {
  let t = Date.UTC(2020, 3, 14, 7, 0, 0) / 1000
  const visit = (dir: string) => {
    const entries = readdirSync(dir).sort()
    for (const f of entries.filter((e) => statSync(join(dir, e)).isFile())) {
      t += 10
      utimesSync(join(dir, f), t, t)
    }
    for (const d of entries.filter((e) => statSync(join(dir, e)).isDirectory())) visit(join(dir, d))
  }
  visit(root)
}

/** The `lastModified` PATCH carries an mtime, which depends on the zone the golden was made in. */
function withoutMtimes(records: any[]): any[] {
  return records.map((r) =>
    r.changeType === 'PATCH' && r.aspectName === 'datasetProperties' ? {...r, aspect: {json: r.aspect.json.map((op: any) => (op.path === '/lastModified' ? {...op, value: {time: 0}} : op))}} : r,
  )
}

const CASES = ['single_file', 'multiple_files', 'multiple_spec_for_files', 'folder_no_partition', 'folder_no_partition_exclude', 'folder_no_partition_filename', 'folder_partition_basic', 'folder_partition_update_schema']

describe("s3 source: DataHub's local goldens", function () {
  this.timeout(120_000)
  let oracle: string
  let dir: string
  before(function () {
    oracle = requireSharedFixtures(this, 'datahub-integration', 's3')
    dir = tempDir('mdcli-s3-')
    const target = join(dir, 'tests', 'integration', 's3', 'test_data')
    mkdirSync(target, {recursive: true})
    cpSync(join(oracle, 'test_data', 'local_system'), join(target, 'local_system'), {recursive: true})
    freezeMtimes(join(target, 'local_system'))
  })
  after(() => cleanup(dir))

  for (const name of CASES) {
    it(`${name}.yml produces golden_mces_${name}.json`, async () => {
      const recipe = yaml.load(readFileSync(join(oracle, 'recipes', `${name}.yml`), 'utf8')) as any
      recipe.sink = {type: 'file', config: {filename: join(dir, `${name}.out.json`)}}
      const r = await ingestHere(writeRecipe(dir, recipe, `${name}.yml`), offlineEnv(dir))
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      const ours = withoutMtimes(readJson(join(dir, `${name}.out.json`)))
      const golden = withoutMtimes(readJson(join(oracle, 'golden-files', 'local', `golden_mces_${name}.json`)))
      expectSameAspects(ours, golden, {ignore: ['fieldProfiles[].sampleValues']})
    })
  }
})

describe('s3 source: our own lake', function () {
  this.timeout(60_000)
  let dir: string
  beforeEach(() => {
    dir = tempDir('mdcli-s3-own-')
  })
  afterEach(() => cleanup(dir))

  // In this process, but through the real command where a config error is what is checked.
  async function run(config: Record<string, unknown>, via: 'here' | 'cli' = 'here') {
    const out = join(dir, 'out.json')
    const recipe = writeRecipe(dir, {source: {type: 's3', config}, sink: {type: 'file', config: {filename: out}}})
    const r = await ingestVia(via, recipe, offlineEnv(dir))
    let records: any[] = []
    try {
      records = readJson(out)
    } catch {
      /* nothing written */
    }
    return {...r, records}
  }
  const aspectOf = (records: any[], urn: string, name: string) => records.find((x) => x.entityUrn === urn && x.aspectName === name && x.changeType !== 'PATCH')?.aspect.json
  const urnOf = (path: string) => `urn:li:dataset:(urn:li:dataPlatform:file,${path},PROD)`

  it('mixed formats in one folder: each file its dataset, its schema from its own reader', async () => {
    cpSync(join(ROOT, 'test', 'fixtures', 'lake'), join(dir, 'lake'), {recursive: true})
    const r = await run({path_specs: [{include: 'lake/mixed/*.*'}], profiling: {enabled: true}})
    expect(r.code, r.stderr + r.stdout).to.equal(0)
    const fieldsOf = (f: string) => aspectOf(r.records, urnOf(`lake/mixed/${f}`), 'schemaMetadata')?.fields.map((x: any) => `${x.fieldPath}:${x.nativeDataType}`)
    expect(fieldsOf('people.csv')).to.deep.equal(['id:integer', 'name:string', 'born:date', 'score:number'])
    expect(fieldsOf('people.tsv')).to.deep.equal(['id:integer', 'name:string'])
    expect(fieldsOf('events.jsonl')).to.deep.equal(['id:int', 'kind:str', 'meta.source:str', 'meta:dict'])
    expect(fieldsOf('items.parquet')).to.deep.equal(['id:int64', 'label:string'])
    expect(fieldsOf('readings.avro')).to.deep.equal(['[version=2.0].[type=Reading].[type=string].sensor:sensor', '[version=2.0].[type=Reading].[type=double].value:value'])
    const readings = aspectOf(r.records, urnOf('lake/mixed/readings.avro'), 'schemaMetadata').fields
    expect(readings.map((f: any) => f.nullable)).to.deep.equal([false, true])
    expect(aspectOf(r.records, urnOf('lake/mixed/items.parquet'), 'datasetProfile')).to.include({rowCount: 3, columnCount: 2})
    expect(aspectOf(r.records, urnOf('lake/mixed/readings.avro'), 'datasetProfile').fieldProfiles[1]).to.include({nullCount: 1, uniqueCount: 1})
    const profile = aspectOf(r.records, urnOf('lake/mixed/people.csv'), 'datasetProfile')
    expect(profile.rowCount).to.equal(4)
    const id = profile.fieldProfiles.find((f: any) => f.fieldPath === 'id')
    expect(id).to.include({uniqueCount: 4, nullCount: 0})
    // Four distinct values of an int column: few, so DataHub lists each value's frequency.
    expect(id.distinctValueFrequencies.map((v: any) => v.value)).to.deep.equal(['1', '2', '3', '4'])
  })

  it('a malformed file: the rest of the lake is ingested, the file is a warning naming it', async () => {
    cpSync(join(ROOT, 'test', 'fixtures', 'lake'), join(dir, 'lake'), {recursive: true})
    const r = await run({path_specs: [{include: 'lake/broken/*.*'}], profiling: {enabled: true}})
    expect(r.code, r.stderr + r.stdout).to.equal(0)
    expect(aspectOf(r.records, urnOf('lake/broken/good.json'), 'schemaMetadata')).to.exist
    expect(aspectOf(r.records, urnOf('lake/broken/bad.json'), 'datasetProperties')).to.exist
    expect(aspectOf(r.records, urnOf('lake/broken/bad.json'), 'schemaMetadata')).to.equal(undefined)
    expect(JSON.stringify(r.result)).to.contain('lake/broken/bad.json')
  })

  it('a file too large to profile whole is profiled on its first rows, with a warning', async () => {
    mkdirSync(join(dir, 'big'), {recursive: true})
    const lines = ['n,label']
    for (let i = 0; i < 5000; i++) lines.push(`${i},${i % 3 === 0 ? 'fizz' : 'other'}`)
    writeFileSync(join(dir, 'big', 'numbers.csv'), lines.join('\n') + '\n')
    const r = await run({path_specs: [{include: 'big/*.csv'}], profiling: {enabled: true, max_file_size_bytes: 1000, sample_rows: 100}})
    expect(r.code, r.stderr + r.stdout).to.equal(0)
    const profile = aspectOf(r.records, urnOf('big/numbers.csv'), 'datasetProfile')
    expect(profile.rowCount).to.equal(100)
    expect(profile.partitionSpec).to.deep.equal({partition: 'FIRST_100_ROWS', type: 'QUERY'})
    expect(JSON.stringify(r.result)).to.contain('profiled its first 100 rows')
    // Without the limit the whole file is read: many values, so min/max/mean instead of frequencies.
    const whole = await run({path_specs: [{include: 'big/*.csv'}], profiling: {enabled: true}})
    const n = aspectOf(whole.records, urnOf('big/numbers.csv'), 'datasetProfile').fieldProfiles.find((f: any) => f.fieldPath === 'n')
    expect(n).to.include({min: '0.0', max: '4999.0', mean: '2499.5'})
  })

  it('partition templates: one dataset per table folder, the partition keys it names', async () => {
    for (const [y, m] of [['2023', '01'], ['2023', '02'], ['2024', '01']]) {
      mkdirSync(join(dir, 'sales', 'orders', `year=${y}`, `month=${m}`), {recursive: true})
      writeFileSync(join(dir, 'sales', 'orders', `year=${y}`, `month=${m}`, 'part-0.json'), `{"id": 1, "amount": 2.5}\n`)
    }
    const r = await run({path_specs: [{include: 'sales/{table}/{partition_key[0]}={partition[0]}/{partition_key[1]}={partition[1]}/*.json'}]})
    expect(r.code, r.stderr + r.stdout).to.equal(0)
    const props = aspectOf(r.records, urnOf('sales/orders'), 'datasetProperties')
    expect(props).to.deep.include({name: 'orders'})
    expect(props.customProperties).to.include({number_of_files: '3', partition_keys: 'year,month'})
    const containers = r.records.filter((x) => x.aspectName === 'containerProperties').map((x) => x.aspect.json.name)
    expect(containers).to.deep.equal(['sales'])
  })

  it('Ctrl-C stops a long lake run after the current table, with the partial report (exit 130)', async () => {
    // Long enough that the first progress line (after a second) comes well before the end, even
    // on a fast moment of the machine (600 tables once finished in 1.9 s, before it).
    const TABLES = 2400
    for (let i = 0; i < TABLES; i++) {
      mkdirSync(join(dir, 'many', `t${i}`), {recursive: true})
      writeFileSync(join(dir, 'many', `t${i}`, 'part.csv'), 'id,name\n1,a\n2,b\n')
    }
    const recipe = writeRecipe(dir, {source: {type: 's3', config: {path_specs: [{include: 'many/{table}/*.csv'}], profiling: {enabled: true}}}, sink: {type: 'file', config: {filename: join(dir, 'out.json')}}})
    const child = spawn(process.execPath, [BIN, 'ingest', '-c', recipe], {cwd: dir, env: offlineEnv(dir), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d) => {
        stderr += d
        if (/Pipeline running: [1-9][\d,]* work units read/.test(stderr)) resolve()
      })
      child.once('exit', () => reject(new Error(`ingest ended before it was interrupted:\n${stdout}\n${stderr}`)))
    })
    child.kill('SIGINT')
    expect(await exited, stderr).to.equal(130)
    expect(stdout).to.match(/Pipeline interrupted; produced [\d,]+ events/)
    const written = readJson(join(dir, 'out.json')) as any[]
    const datasets = new Set(written.filter((x) => x.entityType === 'dataset').map((x) => x.entityUrn))
    expect(datasets.size).to.be.greaterThan(0).and.lessThan(TABLES)
  })

  it('gzip-compressed CSV, JSON lines and JSON are read as their format, with the schema and profile of the plain file; enable_compression: false leaves them out', async () => {
    cpSync(join(ROOT, 'test', 'fixtures', 'lake', 'mixed'), join(dir, 'plain'), {recursive: true})
    mkdirSync(join(dir, 'packed'))
    for (const [from, to] of [['people.csv', 'people.csv.gz'], ['events.jsonl', 'events.jsonl.gzip']]) writeFileSync(join(dir, 'packed', to), gzipSync(readFileSync(join(dir, 'plain', from))))
    writeFileSync(join(dir, 'plain', 'doc.json'), JSON.stringify([{a: 1, b: 'x'}, {a: 2}]))
    writeFileSync(join(dir, 'packed', 'doc.json.gz'), gzipSync(readFileSync(join(dir, 'plain', 'doc.json'))))
    const plain = await run({path_specs: [{include: 'plain/*.*'}], profiling: {enabled: true}})
    const packed = await run({path_specs: [{include: 'packed/*.*'}], profiling: {enabled: true}})
    expect(packed.code, packed.stderr + packed.stdout).to.equal(0)
    expect(packed.result.source.report.warnings ?? []).to.deep.equal([])
    for (const [from, to] of [['people.csv', 'people.csv.gz'], ['events.jsonl', 'events.jsonl.gzip'], ['doc.json', 'doc.json.gz']]) {
      const mine = (aspect: string) => aspectOf(packed.records, urnOf(`packed/${to}`), aspect)
      const theirs = (aspect: string) => aspectOf(plain.records, urnOf(`plain/${from}`), aspect)
      expect(mine('schemaMetadata').fields, to).to.deep.equal(theirs('schemaMetadata').fields)
      expect(mine('schemaMetadata').fields.length, to).to.be.greaterThan(0)
      expect(mine('datasetProfile').fieldProfiles, to).to.deep.equal(theirs('datasetProfile').fieldProfiles)
      expect(mine('datasetProfile').rowCount, to).to.equal(theirs('datasetProfile').rowCount)
      expect(mine('datasetProperties').customProperties.schema_inferred_from).to.equal(`packed/${to}`)
    }
    const off = await run({path_specs: [{include: 'packed/*.*', enable_compression: false}]})
    expect(off.code, off.stderr + off.stdout).to.equal(0)
    expect(off.records.filter((x) => x.entityType === 'dataset')).to.deep.equal([])
  })

  it('a corrupt or bz2-compressed file is a warning naming it; the rest of the lake is ingested', async () => {
    mkdirSync(join(dir, 'packed'))
    writeFileSync(join(dir, 'packed', 'good.csv.gz'), gzipSync('id,name\n1,a\n'))
    writeFileSync(join(dir, 'packed', 'bad.csv.gz'), 'id,name\n1,a\n')
    writeFileSync(join(dir, 'packed', 'other.csv.bz2'), 'BZh9')
    const r = await run({path_specs: [{include: 'packed/*.*'}], profiling: {enabled: true}})
    expect(r.code, r.stderr + r.stdout).to.equal(0)
    expect(aspectOf(r.records, urnOf('packed/good.csv.gz'), 'schemaMetadata').fields.map((f: any) => f.fieldPath)).to.deep.equal(['id', 'name'])
    expect(aspectOf(r.records, urnOf('packed/bad.csv.gz'), 'schemaMetadata')).to.equal(undefined)
    const warnings = JSON.stringify(r.result.source.report.warnings)
    expect(warnings).to.match(/packed\/bad\.csv\.gz: not a readable gzip file/)
    expect(warnings).to.match(/packed\/other\.csv\.bz2: .*bz2-compressed files are not read/)
  })

  it("'**' without allow_double_stars is a one-line config error, nothing written", async () => {
    const r = await run({path_specs: [{include: 'lake/**/*.csv'}]}, 'cli')
    expect(r.code).to.not.equal(0)
    expect(r.stderr + r.stdout).to.match(/cannot contain '\*\*'/)
    expect(r.records).to.deep.equal([])
  })
})

describe('data-lake readers: what one file leaves behind', function () {
  this.timeout(120_000)
  let dir: string
  before(() => {
    dir = tempDir('mdcli-lake-release-')
  })
  after(() => cleanup(dir))

  it("Parquet: DuckDB keeps nothing of a file once it is read (its external file cache held ~16 KB a file, so a lake run's memory grew with its file count)", async () => {
    const fs = new LocalFileSystem(dir)
    const duck = new Duck()
    try {
      await duck.all(`COPY (SELECT range AS id, 'name-' || (range % 7) AS name FROM range(25)) TO '${join(dir, 't.parquet').replaceAll("'", "''")}' (FORMAT parquet)`)
      for (let i = 0; i < 40; i++) cpSync(join(dir, 't.parquet'), join(dir, `p${i}.parquet`))
      for (let i = 0; i < 40; i++) {
        expect(await inferSchema(fs, `p${i}.parquet`, 'parquet', {maxRows: 100, maxJsonBytes: 1 << 20, duck})).to.have.length(2)
        expect((await profileFile(fs, `p${i}.parquet`, 'parquet', {}, {duck, maxJsonBytes: 1 << 20, now: 0})).profile.rowCount).to.equal(25)
      }
      const held = await duck.all('SELECT tag, memory_usage_bytes::BIGINT AS bytes FROM duckdb_memory() WHERE memory_usage_bytes > 0')
      expect(held.filter((r: any) => r.tag !== 'OBJECT_CACHE'), JSON.stringify(held, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))).to.deep.equal([])
    } finally {
      duck.close()
    }
  })

  it('CSV and JSON: a profile that stops early (a file too large to profile whole) closes the file at once', async () => {
    const fs = new LocalFileSystem(dir)
    writeFileSync(join(dir, 'big.csv'), ['n,label', ...Array.from({length: 20_000}, (_, i) => `${i},x${i % 5}`)].join('\n') + '\n')
    writeFileSync(join(dir, 'big.jsonl.gz'), gzipSync(Array.from({length: 20_000}, (_, i) => JSON.stringify({n: i})).join('\n') + '\n'))
    const openFds = () => readdirSync('/proc/self/fd').length
    const duck = new Duck()
    try {
      const before = openFds()
      for (let i = 0; i < 30; i++) {
        for (const [file, format] of [['big.csv', 'csv'], ['big.jsonl.gz', 'jsonl']]) {
          const {sampled} = await profileFile(fs, file, format, {}, {duck, maxJsonBytes: 1 << 20, now: 0, maxRows: 10})
          expect(sampled).to.equal(true)
        }
      }
      // Closing is asynchronous: let the last close land.
      await new Promise((r) => setTimeout(r, 200))
      expect(openFds() - before).to.be.below(5)
    } finally {
      duck.close()
    }
  })
})
