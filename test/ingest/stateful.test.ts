import {expect} from 'chai'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {b85decode, b85encode, checkpointJobUrn, decodeState, encodeState} from '../../src/recipes/stateful.js'
import {cleanup, http, runCli, tempDir, useLite} from '../helpers/lite.js'
import {requireSharedFixtures} from '../helpers/requires.js'
import {datasetUrn, ingestJson, mcpRecord, offlineEnv, readJson, writeJson, writeRecipe} from './helpers.js'

const A = datasetUrn('stateful.a')
const B = datasetUrn('stateful.b')
const C = datasetUrn('stateful.c')
const D = datasetUrn('stateful.d')
const E = datasetUrn('stateful.e')

const props = (urn: string) => mcpRecord(urn, 'datasetProperties', {name: urn.split(',')[1]})

describe('stateful ingestion: checkpoint state encoding', () => {
  it('round-trips base85 exactly as Python writes it', () => {
    for (const bytes of [[], [0], [1, 2, 3], [255, 255, 255, 255], [0, 0, 0, 0, 7]]) {
      expect([...b85decode(b85encode(Uint8Array.from(bytes)))]).to.deep.equal(bytes)
    }
    // base64.b85encode(b'hello') == b'Xk~0{Zv'
    expect(b85encode(Buffer.from('hello'))).to.equal('Xk~0{Zv')
  })

  it('writes and reads base85-bz2-json and reads utf-8 state', () => {
    const urns = [A, 'urn:li:tag:caf\u00e9']
    const state = encodeState(urns)
    expect(state.serde).to.equal('base85-bz2-json')
    expect(decodeState(state)).to.deep.equal(urns)
    expect(decodeState({formatVersion: '1.0', serde: 'utf-8', payload: JSON.stringify({urns: [B], encoded_table_urns: [C]})})).to.deep.equal([B, C])
    expect(() => decodeState({formatVersion: '1.0', serde: 'base85', payload: 'x'})).to.throw(/not supported/)
  })

  it("reads DataHub's own checkpoint (LookML golden state)", function () {
    const path = requireSharedFixtures(this, 'datahub-integration', 'lookml', 'golden_test_state.json')
    const golden = readJson(path)[0]
    expect(golden.entityUrn).to.equal(checkpointJobUrn('file', 'lookml_stateful', 'lookml_stale_entity_removal'))
    const urns = decodeState(golden.aspect.json.state)
    expect(urns).to.have.length(17)
    expect(urns[0]).to.equal('urn:li:container:78f22c19304954b15e8adb1d9809975e')
    expect(urns).to.include('urn:li:tag:Temporal')
  })
})

describe('stateful ingestion: stale entities removed against a running lite', function () {
  this.timeout(120_000)
  const lite = useLite()
  let dir: string
  before(() => {
    dir = tempDir('mdcli-stateful-')
  })
  after(() => cleanup(dir))

  const recipe = (name: string, records: unknown[], stateful: Record<string, unknown> = {}) => {
    const file = writeJson(dir, `${name}.json`, records)
    return writeRecipe(
      dir,
      {
        pipeline_name: 'stateful_test',
        run_id: name,
        source: {type: 'file', config: {path: file, stateful_ingestion: {enabled: true, ...stateful}}},
        sink: {type: 'datahub-rest'},
      },
      `${name}.yml`,
    )
  }
  const removed = async (urn: string): Promise<boolean | undefined> => (await http(`${lite.url}/entitiesV2/${encodeURIComponent(urn)}?aspects=List(status)`)).body?.aspects?.status?.value?.removed ?? false

  it('the first run records its entities; the next soft-deletes those that disappeared and reports them', async () => {
    const first = await ingestJson(recipe('run1', [props(A), props(B), props(C), props(D), props(E)]), lite.env())
    expect(first.code, first.stderr + first.stdout).to.equal(0)
    const job = checkpointJobUrn('datahub', 'stateful_test', 'file_stale_entity_removal')
    const checkpoint = (await http(`${lite.url}/entitiesV2/${encodeURIComponent(job)}`)).body
    expect(decodeState(checkpoint.aspects.datahubIngestionCheckpoint.value.state)).to.have.members([A, B, C, D, E])
    // The checkpoint's job stays out of search, as in DataHub.
    expect(checkpoint.aspects.status.value.removed).to.equal(true)

    const second = await ingestJson(recipe('run2', [props(A), props(B), props(C), props(D)]), lite.env())
    expect(second.code, second.stderr + second.stdout).to.equal(0)
    expect(await removed(E)).to.equal(true)
    expect(await removed(A)).to.equal(false)
    expect(second.result.source.report.counts.softDeletedStaleEntities).to.equal(1)
    expect(second.result.source.report.info.softDeletedStaleEntities).to.deep.equal([E])

    // The checkpoint is bookkeeping, not the run's rows: list-runs counts what the report counts,
    // and rolling back a re-run that changed nothing leaves the checkpoint as the run left it.
    const same = await ingestJson(recipe('run2b', [props(A), props(B), props(C), props(D)]), lite.env())
    expect(same.code, same.stderr + same.stdout).to.equal(0)
    const runs = JSON.parse((await runCli(['ingest', 'list-runs', '--json'], {env: lite.env()})).stdout) as {runs?: Array<{runId: string; rows: number}>} | Array<{runId: string; rows: number}>
    const list = Array.isArray(runs) ? runs : runs.runs!
    expect(list.find((r) => r.runId === 'run2b')?.rows ?? 0, JSON.stringify(list)).to.equal(same.result.counts?.rows ?? 0)
    const before = (await http(`${lite.url}/entitiesV2/${encodeURIComponent(job)}`)).body.aspects.datahubIngestionCheckpoint.value
    const back = await runCli(['ingest', 'rollback', '--run-id', 'run2b', '--force'], {env: lite.env()})
    expect(back.code, back.stderr).to.equal(0)
    expect((await http(`${lite.url}/entitiesV2/${encodeURIComponent(job)}`)).body.aspects.datahubIngestionCheckpoint.value).to.deep.equal(before)
  })

  it('removes nothing when more than the fail-safe share would go, and keeps the old checkpoint', async () => {
    const r = await ingestJson(recipe('run3', [props(A)], {fail_safe_threshold: 50}), lite.env())
    expect(r.code).to.equal(1)
    const failure = r.result.source.report.failures.find((f: {key: string}) => f.key === 'stale-entity-removal')
    expect(failure.examples[0]).to.match(/Will not soft-delete entities, since we'd be deleting 75\.0% .*fail_safe_threshold' \(currently 50\)/)
    for (const u of [B, C, D]) expect(await removed(u)).to.equal(false)
    // The next good run still compares against run2's state.
    const again = await ingestJson(recipe('run4', [props(A), props(B), props(C)], {fail_safe_threshold: 30}), lite.env())
    expect(again.code, again.stderr + again.stdout).to.equal(0)
    expect(await removed(D)).to.equal(true)
  })

  it('a run with failures removes nothing', async () => {
    const bad = {entityType: 'dataset', entityUrn: A, changeType: 'UPSERT', aspectName: 'datasetProperties', aspect: {json: {name: 5}}}
    const r = await ingestJson(recipe('run5', [props(A), bad], {fail_safe_threshold: 100}), lite.env())
    expect(r.code).to.equal(1)
    const warning = r.result.source.report.warnings.find((w: {key: string}) => w.key === 'stale-entity-removal')
    expect(warning.examples[0]).to.match(/already had failures/)
    // B and C were not produced, but a failed run must not take them away.
    expect(await removed(B)).to.equal(false)
    expect(await removed(C)).to.equal(false)
  })

  it("defaults to DataHub's fail-safe of 75 %: a run that drops one table of two removes it", async () => {
    const pipe = (name: string, records: unknown[]) => {
      const file = writeJson(dir, `${name}.json`, records)
      return writeRecipe(dir, {pipeline_name: 'stateful_default', run_id: name, source: {type: 'file', config: {path: file, stateful_ingestion: {enabled: true}}}, sink: {type: 'datahub-rest'}}, `${name}.yml`)
    }
    const X = 'urn:li:dataset:(urn:li:dataPlatform:hive,failsafe.x,PROD)'
    const Y = 'urn:li:dataset:(urn:li:dataPlatform:hive,failsafe.y,PROD)'
    expect((await ingestJson(pipe('fs1', [props(X), props(Y)]), lite.env())).code).to.equal(0)
    const second = await ingestJson(pipe('fs2', [props(X)]), lite.env())
    expect(second.code, second.stderr + second.stdout).to.equal(0)
    expect(await removed(Y)).to.equal(true)
    expect(await removed(X)).to.equal(false)
  })

  it('asks for pipeline_name before anything runs', async () => {
    const file = writeJson(dir, 'np.json', [props(A)])
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: file, stateful_ingestion: {enabled: true}}}, sink: {type: 'datahub-rest'}}, 'np.yml'), lite.env())
    expect(r.code).to.equal(1)
    expect(r.result.error.code).to.equal("E_CONFIG")
    expect(r.result.error.message).to.match(/pipeline_name/)
  })

  it('names the server it could not reach for the checkpoint, and where a file sink\'s earlier output is, leaves it', async () => {
    const file = writeJson(dir, 'unreach.json', [props(A)])
    const out = join(dir, 'unreach-out.json')
    writeFileSync(out, '[{"precious": 1}]')
    const r = await ingestJson(
      writeRecipe(dir, {pipeline_name: 'unreach', source: {type: 'file', config: {path: file, stateful_ingestion: {enabled: true}}}, sink: {type: 'file', config: {filename: out}}, datahub_api: {server: 'http://127.0.0.1:1'}}, 'unreach.yml'),
      lite.env(),
    )
    expect(r.code).to.equal(1)
    expect(r.result.error.message).to.match(/the server at http:\/\/127\.0\.0\.1:1 did not answer/)
    expect(readFileSync(out, 'utf8')).to.equal('[{"precious": 1}]')
  })
})

describe('stateful ingestion: the file state provider, without a server', function () {
  this.timeout(60_000)
  it('keeps the checkpoint in a file and emits soft-deletes into the sink', async () => {
    const dir = tempDir('mdcli-stateful-file-')
    const home = tempDir('mdcli-home-')
    try {
      const run = async (name: string, records: unknown[]) => {
        const file = writeJson(dir, `${name}.json`, records)
        return ingestJson(
          writeRecipe(
            dir,
            {
              pipeline_name: 'file_state',
              run_id: name,
              source: {type: 'file', config: {path: file, stateful_ingestion: {enabled: true, fail_safe_threshold: 100, state_provider: {type: 'file', config: {filename: './state.json'}}}}},
              sink: {type: 'file', config: {filename: `./${name}.out.json`}},
            },
            `${name}.yml`,
          ),
          offlineEnv(home),
        )
      }
      expect((await run('one', [props(A), props(B)])).code).to.equal(0)
      expect(existsSync(join(dir, 'state.json'))).to.equal(true)
      const state = readJson(join(dir, 'state.json'))
      expect(state[0].entityUrn).to.equal(checkpointJobUrn('file', 'file_state', 'file_stale_entity_removal'))
      expect(decodeState(state[0].aspect.json.state)).to.deep.equal([A, B])

      expect((await run('two', [props(A)])).code).to.equal(0)
      const out = readJson(join(dir, 'two.out.json'))
      const del = out.find((r: any) => r.entityUrn === B && r.aspectName === 'status')
      expect(del.aspect.json).to.deep.equal({removed: true})
      expect(decodeState(readJson(join(dir, 'state.json'))[0].aspect.json.state)).to.deep.equal([A])
    } finally {
      cleanup(dir, home)
    }
  })
})
