/**
 * Runs you can trust (#15 Deliver 5): a re-run of unchanged data is listed (state observed, its
 * aspects unchanged), `ingest show` lists what it observed, `rollback` says there is nothing to
 * roll back; a rolled-back run shows as rolled back.
 */
import {expect} from 'chai'
import {join} from 'node:path'
import {writeFileSync} from 'node:fs'
import {cleanup, runCli, tempDir, useLite} from '../helpers/lite.js'
import {writeRecipe} from './helpers.js'

const DS = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,rerun_${n},PROD)`

describe('ingest: re-runs and rolled-back runs in list-runs, show and rollback', function () {
  this.timeout(120_000)
  const lite = useLite()
  let work: string
  before(() => (work = tempDir('mdcli-rerun-')))
  after(() => cleanup(work))

  const ingest = async (runId: string) => {
    const file = join(work, 'data.json')
    writeFileSync(file, JSON.stringify(['a', 'b'].map((n) => ({entityType: 'dataset', entityUrn: DS(n), changeType: 'UPSERT', aspectName: 'datasetProperties', aspect: {json: {name: n, customProperties: {}, tags: []}}}))))
    const recipe = writeRecipe(work, {run_id: runId, source: {type: 'file', config: {path: file}}}, `${runId}.yml`)
    const r = await runCli(['ingest', '-c', recipe, '--json'], {env: lite.env()})
    expect(r.code, r.stderr).to.equal(0)
    return JSON.parse(r.stdout)
  }
  const runs = async () => JSON.parse((await runCli(['ingest', 'list-runs', '--json'], {env: lite.env()})).stdout) as Array<{runId: string; rows: number; unchanged: number; state: string}>

  it('a re-run of unchanged data is listed, shown and explained by rollback', async () => {
    const first = await ingest('first-run')
    const second = await ingest('second-run')
    expect(first.runId).to.equal('first-run')
    expect(second.runId).to.equal('second-run')
    const list = await runs()
    // Two datasetProperties and the two status aspects auto status adds.
    expect(list.find((r) => r.runId === 'second-run')).to.deep.include({rows: 0, unchanged: 4, state: 'observed'})
    expect(list.find((r) => r.runId === 'first-run')).to.deep.include({state: 'written'})
    const table = await runCli(['ingest', 'list-runs'], {env: lite.env()})
    expect(table.stdout).to.match(/\| second-run +\| +0 \| .* \| +4 \| observed +\|/)

    const show = JSON.parse((await runCli(['ingest', 'show', '--run-id', 'second-run', '--json'], {env: lite.env()})).stdout) as Array<{urn: string; aspectName: string; unchanged?: boolean}>
    expect(show.map((r) => `${r.urn} ${r.aspectName} ${r.unchanged}`).sort()).to.deep.equal([`${DS('a')} datasetProperties true`, `${DS('a')} status true`, `${DS('b')} datasetProperties true`, `${DS('b')} status true`])

    const rb = await runCli(['ingest', 'rollback', '--run-id', 'second-run', '--force'], {env: lite.env()})
    expect(rb.code, rb.stderr).to.equal(0)
    expect(rb.stdout).to.match(/Run second-run wrote nothing: the 4 aspects it sent were already up to date, so there is nothing to roll back\./)
    const none = await runCli(['ingest', 'rollback', '--run-id', 'never-ran', '--force'], {env: lite.env()})
    expect(none.stdout).to.match(/Nothing to roll back: no aspect was written or observed under run id never-ran/)
  })

  it('a rolled-back run shows as rolled back', async () => {
    const rb = await runCli(['ingest', 'rollback', '--run-id', 'first-run', '--force'], {env: lite.env()})
    expect(rb.code, rb.stderr).to.equal(0)
    expect((await runs()).find((r) => r.runId === 'first-run')).to.deep.include({state: 'rolled back'})
  })
})

/**
 * A re-run revives (#32 Deliver 3): every source's work units carry `status {removed: false}` for
 * the entities they produce, so ingesting again after a rollback or a soft delete brings the
 * entities back into search, lineage and `get`.
 */
describe('ingest: a re-run brings back what a rollback or a soft delete hid', function () {
  this.timeout(180_000)
  const lite = useLite()
  let work: string
  before(() => (work = tempDir('mdcli-revive-')))
  after(() => cleanup(work))

  const UP = DS('revive_up')
  const DOWN = DS('revive_down')
  const cli = (args: string[]) => runCli(args, {env: lite.env()})
  const ingest = async (runId: string) => {
    const file = join(work, 'revive.json')
    const props = (n: string) => ({entityType: 'dataset', entityUrn: DS(n), changeType: 'UPSERT', aspectName: 'datasetProperties', aspect: {json: {name: n, description: 'revival test', customProperties: {}, tags: []}}})
    writeFileSync(
      file,
      JSON.stringify([
        props('revive_up'),
        props('revive_down'),
        {entityType: 'dataset', entityUrn: DOWN, changeType: 'UPSERT', aspectName: 'upstreamLineage', aspect: {json: {upstreams: [{dataset: UP, type: 'TRANSFORMED', auditStamp: {time: 0, actor: 'urn:li:corpuser:unknown'}}]}}},
      ]),
    )
    const r = await cli(['ingest', '-c', writeRecipe(work, {run_id: runId, source: {type: 'file', config: {path: file}}}, `${runId}.yml`), '--json'])
    expect(r.code, r.stderr).to.equal(0)
    return JSON.parse(r.stdout)
  }
  const found = async () => ((JSON.parse((await cli(['search', 'revive', '--entity-type', 'dataset', '--json'])).stdout).entities as Array<{urn: string}>).map((e) => e.urn).sort())
  const status = async (urn: string) => JSON.parse((await cli(['get', '--urn', urn, '--aspect', 'status'])).stdout).status
  const upstreams = async () => {
    const r = await cli(['lineage', '--urn', DOWN, '--direction', 'upstream', '--json'])
    expect(r.code, r.stderr).to.equal(0)
    return r.stdout
  }

  it('the file source emits status removed:false for each entity it produced, once, at the end', async () => {
    const r = await ingest('revive-1')
    // Three records, then one status per entity, sorted by urn.
    expect(r.source.workUnits).to.equal(5)
    expect(r.source.aspects.dataset).to.deep.include({status: 2})
    expect(await status(UP)).to.deep.equal({removed: false})
    expect(await found()).to.deep.equal([DOWN, UP].sort())
  })

  it('after a rollback hid them, ingesting again brings them back into search, lineage and get', async () => {
    const rb = await cli(['ingest', 'rollback', '--run-id', 'revive-1', '--force'])
    expect(rb.code, rb.stderr).to.equal(0)
    expect(await found()).to.deep.equal([])
    expect(await status(UP)).to.deep.equal({removed: true})
    expect(await upstreams()).to.not.include(UP)

    await ingest('revive-2')
    expect(await status(UP)).to.deep.equal({removed: false})
    expect(await status(DOWN)).to.deep.equal({removed: false})
    expect(await found()).to.deep.equal([DOWN, UP].sort())
    expect(await upstreams()).to.include(UP)
  })

  it('after a soft delete, ingesting again brings the entity back', async () => {
    const del = await cli(['delete', '--urn', UP, '--force'])
    expect(del.code, del.stderr).to.equal(0)
    expect(await found()).to.deep.equal([DOWN])
    expect(await upstreams()).to.not.include(UP)
    await ingest('revive-3')
    expect(await found()).to.deep.equal([DOWN, UP].sort())
    expect(await upstreams()).to.include(UP)
  })
})
