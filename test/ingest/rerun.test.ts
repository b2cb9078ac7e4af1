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
    expect(list.find((r) => r.runId === 'second-run')).to.deep.include({rows: 0, unchanged: 2, state: 'observed'})
    expect(list.find((r) => r.runId === 'first-run')).to.deep.include({state: 'written'})
    const table = await runCli(['ingest', 'list-runs'], {env: lite.env()})
    expect(table.stdout).to.match(/\| second-run +\| +0 \| .* \| +2 \| observed +\|/)

    const show = JSON.parse((await runCli(['ingest', 'show', '--run-id', 'second-run', '--json'], {env: lite.env()})).stdout) as Array<{urn: string; aspectName: string; unchanged?: boolean}>
    expect(show.map((r) => `${r.urn} ${r.aspectName} ${r.unchanged}`).sort()).to.deep.equal([`${DS('a')} datasetProperties true`, `${DS('b')} datasetProperties true`])

    const rb = await runCli(['ingest', 'rollback', '--run-id', 'second-run', '--force'], {env: lite.env()})
    expect(rb.code, rb.stderr).to.equal(0)
    expect(rb.stdout).to.match(/Run second-run wrote nothing: the 2 aspects it sent were already up to date, so there is nothing to roll back\./)
    const none = await runCli(['ingest', 'rollback', '--run-id', 'never-ran', '--force'], {env: lite.env()})
    expect(none.stdout).to.match(/Nothing to roll back: no aspect was written or observed under run id never-ran/)
  })

  it('a rolled-back run shows as rolled back', async () => {
    const rb = await runCli(['ingest', 'rollback', '--run-id', 'first-run', '--force'], {env: lite.env()})
    expect(rb.code, rb.stderr).to.equal(0)
    expect((await runs()).find((r) => r.runId === 'first-run')).to.deep.include({state: 'rolled back'})
  })
})
