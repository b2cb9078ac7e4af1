import {requireSharedFixtures} from '../helpers/requires.js'
import {readFileSync, writeFileSync, mkdirSync, copyFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'chai'
import {cleanup, http, runCli, tempDir, useLite} from '../helpers/lite.js'
import {BOOTSTRAP, OWN, datasetUrn, ingestJson, mcpRecord, offlineEnv, readJson, writeJson, writeRecipe} from './helpers.js'

const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)'

describe('ingest: file source, sinks and run flags', function () {
  this.timeout(60_000)
  const lite = useLite()
  let dir: string

  before(() => {
    dir = tempDir('mdcli-ingest-file-')
  })
  after(() => cleanup(dir))

  const restSink = () => ({type: 'datahub-rest', config: {server: lite.url}})

  it('ingests bootstrap_mce.json through datahub-rest; `mdcli get` reads the entities back', async function () {
    requireSharedFixtures(this, 'datahub')
    const recipe = writeRecipe(dir, {source: {type: 'file', config: {path: BOOTSTRAP}}, sink: restSink(), run_id: 'bootstrap-1', pipeline_name: 'boot'}, 'boot.yml')
    const r = await ingestJson(recipe, lite.env())
    expect(r.code, r.stderr).to.equal(0)
    expect(r.result.status).to.equal('success')
    // 104 records, then a status for each of the 4 entities the file gives none (auto status).
    expect(r.result.eventsProduced).to.equal(108)
    expect(r.result.sink.recordsWritten).to.equal(r.result.source.records)
    expect(r.result.failures).to.equal(0)

    const got = await runCli(['get', '--urn', KAFKA], {env: lite.env()})
    expect(got.code, got.stderr).to.equal(0)
    const entity = JSON.parse(got.stdout)
    expect(entity.ownership.owners.map((o: {owner: string}) => o.owner)).to.include('urn:li:corpuser:jdoe')
    expect(entity.schemaMetadata.fields.length).to.be.greaterThan(0)
    expect(entity.schemaMetadata.platformSchema).to.have.property('com.linkedin.schema.KafkaSchema')

    const user = JSON.parse((await runCli(['get', '--urn', 'urn:li:corpuser:datahub', '-a', 'corpUserInfo'], {env: lite.env()})).stdout)
    expect(user.corpUserInfo.displayName).to.equal('Data Hub')

    // Every proposal carries the run id and pipeline name.
    const env = await http(`${lite.url}/entitiesV2/${encodeURIComponent(KAFKA)}`)
    expect(env.body.aspects.ownership.systemMetadata).to.include({runId: 'bootstrap-1', pipelineName: 'boot'})
    // Timeseries MCPs ({value, contentType} form) arrive too.
    const profile = await runCli(['get', '--urn', 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)', '-a', 'datasetProfile'], {env: lite.env()})
    expect(JSON.parse(profile.stdout).datasetProfile.rowCount).to.be.a('number')

    const runs = await runCli(['ingest', 'list-runs'], {env: lite.env()})
    expect(runs.stdout).to.match(/\| runId\s+\|\s+rows \| created at\s+\|/)
    expect(runs.stdout).to.match(/\| bootstrap-1\s+\|\s+\d+ \| \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(.+\) \|/)
  })

  it('reads a single-object file and the {value, contentType} MCP form', async () => {
    // DataHub's older MCP form: the aspect as JSON text in `value`, with its content type.
    const domains = writeJson(dir, 'domains.json', [
      {auditHeader: null, entityType: 'domain', entityUrn: 'urn:li:domain:marketing', changeType: 'UPSERT', aspectName: 'domainProperties', aspect: {value: '{"name": "Sales", "description": "Our sales domain" }', contentType: 'application/json'}, systemMetadata: null},
      {auditHeader: null, entityType: 'dataset', entityUrn: datasetUrn('orders'), changeType: 'UPSERT', aspectName: 'domains', aspect: {value: '{"domains": ["urn:li:domain:marketing"] }', contentType: 'application/json'}, systemMetadata: null},
    ])
    for (const path of [join(OWN, 'single_mce.json'), domains]) {
      const recipe = writeRecipe(dir, {source: {type: 'file', config: {path}}, sink: restSink()}, `one-${path.split('/').pop()}.yml`)
      const r = await ingestJson(recipe, lite.env())
      expect(r.code, r.stderr + r.stdout).to.equal(0)
    }
    const ada = JSON.parse((await runCli(['get', '--urn', 'urn:li:corpuser:ada'], {env: lite.env()})).stdout)
    expect(ada.corpUserInfo).to.include({fullName: 'Ada Lovelace', title: 'Analyst'})
    const domain = JSON.parse((await runCli(['get', '--urn', 'urn:li:domain:marketing'], {env: lite.env()})).stdout)
    expect(domain.domainProperties.name).to.equal('Sales')
  })

  it('file sink → file source round trip keeps the content', async function () {
    requireSharedFixtures(this, 'datahub')
    const first = join(dir, 'rt-1.json')
    const second = join(dir, 'rt-2.json')
    const r1 = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: BOOTSTRAP}}, sink: {type: 'file', config: {filename: first}}}, 'rt1.yml'), offlineEnv(dir))
    expect(r1.code, r1.stderr).to.equal(0)
    const text = readFileSync(first, 'utf8')
    // DataHub's file-sink layout: "[\n", records indented by 4 joined by ",\n", "\n]".
    expect(text.startsWith('[\n{\n    "entityType": ')).to.equal(true)
    expect(text.endsWith('\n}\n]')).to.equal(true)
    const r2 = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: first}}, sink: {type: 'file', config: {filename: second}}}, 'rt2.yml'), offlineEnv(dir))
    expect(r2.code, r2.stderr).to.equal(0)
    const strip = (rows: Array<Record<string, unknown>>) => rows.map(({systemMetadata: _s, ...rest}) => rest)
    const a = readJson(first)
    const b = readJson(second)
    expect(a).to.have.length(r1.result.source.records)
    expect(strip(b)).to.deep.equal(strip(a))
  })

  it('a run that fails before any record leaves an earlier file-sink output as it was', async () => {
    const out = join(dir, 'precious.json')
    writeFileSync(out, '[{"precious": 1}]')
    const bad = join(dir, 'not-json.json')
    writeFileSync(bad, 'this is not JSON')
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: bad}}, sink: {type: 'file', config: {filename: out}}}, 'precious.yml'), offlineEnv(dir))
    expect(r.code).to.not.equal(0)
    expect(readFileSync(out, 'utf8')).to.equal('[{"precious": 1}]')
    // A run that succeeds replaces it, empty or not.
    const good = writeJson(dir, 'one-record.json', [mcpRecord(datasetUrn('precious.one'), 'status', {removed: false})])
    const ok = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: good}}, sink: {type: 'file', config: {filename: out}}}, 'precious-ok.yml'), offlineEnv(dir))
    expect(ok.code, ok.stderr).to.equal(0)
    expect(readJson(out).map((x: {entityUrn: string}) => x.entityUrn)).to.deep.equal([datasetUrn('precious.one')])
  })

  it('legacy_nested_json_string writes each aspect as its JSON text, which the file source reads back', async () => {
    const urn = datasetUrn('legacy.nested')
    const src = writeJson(dir, 'legacy-in.json', [mcpRecord(urn, 'datasetProperties', {name: 'nested', customProperties: {a: 'b'}})])
    const out = join(dir, 'legacy-out.json')
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: src}}, sink: {type: 'file', config: {filename: out, legacy_nested_json_string: true}}}, 'legacy.yml'), offlineEnv(dir))
    expect(r.code, r.stderr).to.equal(0)
    const rows = readJson(out) as Array<{aspectName: string; aspect: {value: string; contentType: string}}>
    const props = rows.find((x) => x.aspectName === 'datasetProperties')!
    expect(props.aspect.contentType).to.equal('application/json')
    expect(JSON.parse(props.aspect.value)).to.deep.include({name: 'nested', customProperties: {a: 'b'}})
    const back = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: out}}, sink: {type: 'file', config: {filename: join(dir, 'legacy-back.json')}}}, 'legacy-back.yml'), offlineEnv(dir))
    expect(back.code, back.stderr).to.equal(0)
    expect((readJson(join(dir, 'legacy-back.json')) as Array<{aspectName: string; aspect: {json: unknown}}>).find((x) => x.aspectName === 'datasetProperties')!.aspect.json).to.deep.include({name: 'nested'})
  })

  it('failure_log keeps the records the server refused, in the file sink\'s layout', async () => {
    const good = datasetUrn('failure.log_good')
    const bad = datasetUrn('failure.log_bad')
    const src = writeJson(dir, 'failure-in.json', [mcpRecord(good, 'datasetProperties', {name: 'fine'}), mcpRecord(bad, 'datasetProperties', {name: 123})])
    const log = join(dir, 'failures.json')
    const recipe = writeRecipe(dir, {source: {type: 'file', config: {path: src}}, sink: restSink(), failure_log: {enabled: true, log_config: {filename: log}}}, 'failure-log.yml')
    const r = await ingestJson(recipe, lite.env())
    expect(r.code).to.equal(1)
    const failed = readJson(log) as Array<{entityUrn: string; aspectName: string; aspect: {json: unknown}}>
    expect(failed.map((x) => [x.entityUrn, x.aspectName])).to.deep.equal([[bad, 'datasetProperties']])
    expect(failed[0]!.aspect.json).to.deep.equal({name: 123})
    expect((await http(`${lite.url}/aspects/${encodeURIComponent(good)}?aspect=datasetProperties`)).status).to.equal(200)
    // Enabled without saying where: refused before anything runs.
    const nowhere = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: src}}, sink: restSink(), failure_log: {enabled: true}}, 'failure-nowhere.yml'), lite.env())
    expect(nowhere.code).to.not.equal(0)
    expect(nowhere.stderr + JSON.stringify(nowhere.result ?? '')).to.match(/failure_log is enabled but has no log_config/)
  })

  it('--dry-run reads everything and writes nothing', async function () {
    requireSharedFixtures(this, 'datahub')
    const urn = datasetUrn('dry.run_only')
    const file = writeJson(dir, 'dry.json', [mcpRecord(urn, 'status', {removed: false})])
    const recipe = writeRecipe(dir, {source: {type: 'file', config: {path: file}}, sink: restSink(), run_id: 'dry-1'}, 'dry.yml')
    const r = await ingestJson(recipe, lite.env(), ['--dry-run'])
    expect(r.code, r.stderr).to.equal(0)
    expect(r.result).to.include({dryRun: true, eventsProduced: 1})
    expect(r.result.sink.recordsWritten).to.equal(0)
    expect((await http(`${lite.url}/entitiesV2/${encodeURIComponent(urn)}?alwaysIncludeKeyAspect=false`)).status).to.equal(404)
    const runs = (await http(`${lite.url}/runs?action=list`, {body: {}})).body.value as Array<{runId: string}>
    expect(runs.map((x) => x.runId)).not.to.include('dry-1')
  })

  it('--preview stops after --preview-workunits work units', async function () {
    requireSharedFixtures(this, 'datahub')
    const out = join(dir, 'preview.json')
    const recipe = writeRecipe(dir, {source: {type: 'file', config: {path: BOOTSTRAP}}, sink: {type: 'file', config: {filename: out}}}, 'preview.yml')
    const r = await ingestJson(recipe, offlineEnv(dir), ['--preview', '--preview-workunits', '3'])
    expect(r.code, r.stderr).to.equal(0)
    expect(r.result.eventsProduced).to.equal(3)
    expect(r.result.preview).to.equal(true)
    expect(readJson<unknown[]>(out).length).to.equal(r.result.source.records)
  })

  it('a record breaking its schema mid-file fails alone; the rest is written; exit 1', async () => {
    const good = (i: number) => mcpRecord(datasetUrn(`mid.t${i}`), 'datasetProperties', {name: `t${i}`})
    const bad = mcpRecord(datasetUrn('mid.bad'), 'ownership', {owners: [{owner: 'urn:li:corpuser:x', type: 'NOT_A_TYPE'}]})
    const file = writeJson(dir, 'mid.json', [good(0), good(1), bad, good(3), 'not an object', good(5)])
    for (const [name, sink] of [
      ['rest', restSink()],
      ['file', {type: 'file', config: {filename: join(dir, 'mid-out.json')}}],
    ] as const) {
      const recipe = writeRecipe(dir, {source: {type: 'file', config: {path: file}}, sink}, `mid-${name}.yml`)
      const r = await runCli(['ingest', '-c', recipe], {env: lite.env()})
      expect(r.code, `${name}: ${r.stdout}`).to.equal(1)
      // 5 records read, then a status for each of their 5 entities (auto status).
      expect(r.stdout).to.match(/Pipeline finished with at least 2 failures; produced 10 events in/)
      expect(r.stdout).to.match(/record 4 \(line \d+\): expected an object/)
      expect(r.stdout).to.match(/:2: urn:li:dataset:\(urn:li:dataPlatform:hive,mid\.bad,PROD\) ownership: .*must be one of/)
    }
    const rows = readJson<Array<{entityUrn: string; aspectName: string}>>(join(dir, 'mid-out.json')).filter((x) => x.aspectName === 'datasetProperties')
    expect(rows.map((x) => x.entityUrn)).to.deep.equal([0, 1, 3, 5].map((i) => datasetUrn(`mid.t${i}`)))
    for (const i of [0, 1, 3, 5]) expect((await http(`${lite.url}/entitiesV2/${encodeURIComponent(datasetUrn(`mid.t${i}`))}`)).status).to.equal(200)
  })

  it('warnings exit 0, or 1 with --strict-warnings', async () => {
    // A legacy UsageAggregation record is skipped with a warning; a record of no known shape is a failure.
    const usage = {bucket: 1700000000000, duration: 'DAY', resource: datasetUrn('warn.t'), metrics: {uniqueUserCount: 1}}
    const file = writeJson(dir, 'warn.json', [mcpRecord(datasetUrn('warn.t'), 'status', {removed: false}), usage])
    const recipe = writeRecipe(dir, {source: {type: 'file', config: {path: file}}, sink: {type: 'file', config: {filename: join(dir, 'warn-out.json')}}}, 'warn.yml')
    const plain = await runCli(['ingest', '-c', recipe], {env: offlineEnv(dir)})
    expect(plain.code).to.equal(0)
    expect(plain.stdout).to.match(/Pipeline finished with at least 1 warnings; produced 1 events in/)
    expect(plain.stdout).to.match(/skipped record \(1\):/)
    const strict = await runCli(['ingest', '-c', recipe, '--strict-warnings'], {env: offlineEnv(dir)})
    expect(strict.code).to.equal(1)
    const odd = writeJson(dir, 'odd.json', [mcpRecord(datasetUrn('warn.t'), 'status', {removed: false}), {usageAggregation: 'legacy'}])
    const oddRecipe = writeRecipe(dir, {source: {type: 'file', config: {path: odd}}, sink: {type: 'file', config: {filename: join(dir, 'odd-out.json')}}}, 'odd.yml')
    const failed = await runCli(['ingest', '-c', oddRecipe], {env: offlineEnv(dir)})
    expect(failed.code).to.equal(1)
    expect(failed.stdout).to.match(/not an MCE \(no 'proposedSnapshot'\), an MCP \(no 'aspectName'\) or a usage record; it has 'usageAggregation'/)
  })

  it('reads every .json file of a directory, in name order', async () => {
    const sub = join(dir, 'events')
    mkdirSync(sub)
    writeJson(sub, 'b.json', [mcpRecord(datasetUrn('dir.b'), 'status', {removed: false})])
    writeJson(sub, 'a.json', [mcpRecord(datasetUrn('dir.a'), 'status', {removed: false})])
    writeFileSync(join(sub, 'ignored.txt'), 'not json')
    copyFileSync(join(OWN, 'single_mce.json'), join(sub, 'c.json'))
    const out = join(dir, 'dir-out.json')
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: sub}}, sink: {type: 'file', config: {filename: out}}}, 'dir.yml'), offlineEnv(dir))
    expect(r.code, r.stderr).to.equal(0)
    // The files' records in name order, then ada's status (auto status: c.json gives it none).
    expect(readJson<Array<{entityUrn: string}>>(out).map((x) => x.entityUrn)).to.deep.equal([datasetUrn('dir.a'), datasetUrn('dir.b'), 'urn:li:corpuser:ada', 'urn:li:corpuser:ada', 'urn:li:corpuser:ada'])
  })

  it('the console sink prints one JSON line per proposal', async () => {
    const file = writeJson(dir, 'console.json', [mcpRecord(datasetUrn('console.t'), 'status', {removed: false})])
    const r = await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'file', config: {path: file}}, sink: {type: 'console'}}, 'console.yml')], {env: offlineEnv(dir)})
    expect(r.code, r.stderr).to.equal(0)
    const line = JSON.parse(r.stdout.split('\n')[0]!)
    expect(line).to.include({entityUrn: datasetUrn('console.t'), aspectName: 'status'})
    expect(line.systemMetadata.runId).to.match(/^file-\d{4}_\d\d_\d\d-\d\d_\d\d_\d\d$/)
  })
})
