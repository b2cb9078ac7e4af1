import {expect} from 'chai'
import {cleanup, http, runCli, tempDir, useLite} from '../helpers/lite.js'
import {datasetUrn, ingestJson, mcpRecord, writeJson, writeRecipe} from './helpers.js'

const X = datasetUrn('runs.x')
const Y = datasetUrn('runs.y')
const Z = datasetUrn('runs.z_created_by_change')
const W = datasetUrn('runs.w_created_by_change2')

describe('ingest runs: list-runs, show, rollback', function () {
  this.timeout(90_000)
  const lite = useLite()
  let dir: string
  const entity = async (urn: string) => http(`${lite.url}/entitiesV2/${encodeURIComponent(urn)}?alwaysIncludeKeyAspect=false`)
  const version = async (urn: string, aspect: string, v: number) => http(`${lite.url}/aspects/${encodeURIComponent(urn)}?aspect=${aspect}&version=${v}`)
  const ingestRun = async (name: string, records: unknown[]) => {
    const file = writeJson(dir, `${name}.json`, records)
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: file}}, sink: {type: 'datahub-rest'}, run_id: name}, `${name}.yml`), lite.env())
    expect(r.code, r.stderr + r.stdout).to.equal(0)
  }
  const base = [
    mcpRecord(X, 'datasetProperties', {name: 'x', description: 'first'}),
    mcpRecord(X, 'ownership', {owners: [{owner: 'urn:li:corpuser:ann', type: 'DATAOWNER'}]}),
    mcpRecord(Y, 'globalTags', {tags: [{tag: 'urn:li:tag:t1'}]}),
    mcpRecord(Y, 'status', {removed: false}),
  ]

  before(async () => {
    dir = tempDir('mdcli-runs-')
    await ingestRun('base', base)
  })
  after(async () => {
    cleanup(dir)
  })

  // The run's auto status finds X's and Y's status already stored: it observes them (their
  // lastObserved and lastRunId move, as in DataHub) without writing, and a rollback leaves that.
  const settled = (body: {aspects: Record<string, {systemMetadata?: unknown}>}) => {
    const copy = structuredClone(body)
    if (copy.aspects.status) delete copy.aspects.status.systemMetadata
    return copy
  }

  it('rollback restores the exact previous state, version by version', async () => {
    const beforeX = settled((await entity(X)).body)
    const beforeY = settled((await entity(Y)).body)
    await ingestRun('change', [
      mcpRecord(X, 'datasetProperties', {name: 'x', description: 'second'}),
      mcpRecord(Y, 'globalTags', {tags: [{tag: 'urn:li:tag:t2'}]}),
      mcpRecord(Y, 'globalTags', {tags: [{tag: 'urn:li:tag:t3'}]}),
      mcpRecord(Z, 'datasetProperties', {name: 'z'}),
      mcpRecord(X, 'datasetProfile', {timestampMillis: 1700000000000, rowCount: 5}),
    ])
    expect((await entity(X)).body.aspects.datasetProperties.value.description).to.equal('second')
    expect((await version(Y, 'globalTags', 2)).status).to.equal(200)
    expect((await entity(X)).body.aspects).to.have.property('datasetProfile')

    // A dry run changes nothing.
    const dry = await runCli(['ingest', 'rollback', '--run-id', 'change', '--dry-run'], {env: lite.env()})
    expect(dry.code, dry.stderr).to.equal(0)
    expect(dry.stdout, dry.stdout).to.contain('This rollback will delete 3 entities and will roll back 7 aspects')
    expect(dry.stdout).to.contain('that will be reverted by this run')
    expect((await entity(X)).body.aspects.datasetProperties.value.description).to.equal('second')

    // Without a terminal and without --force it refuses.
    const refused = await runCli(['ingest', 'rollback', '--run-id', 'change'], {env: lite.env()})
    expect(refused.code).to.equal(1)
    expect(refused.stderr).to.match(/^Error: Refusing to roll back without confirmation/)
    expect((await entity(X)).body.aspects.datasetProperties.value.description).to.equal('second')

    const done = await runCli(['ingest', 'rollback', '--run-id', 'change', '--force'], {env: lite.env()})
    expect(done.code, done.stderr).to.equal(0)
    expect(done.stdout).to.contain('Rolling back deletes the entities created by a run and reverts the updated aspects')
    expect(done.stdout).to.contain('This rollback deleted 3 entities and rolled back 7 aspects')
    expect(done.stdout).to.match(/\| urn\s+\| aspect name\s+\| created at\s+\|/)

    expect(settled((await entity(X)).body)).to.deep.equal(beforeX)
    expect(settled((await entity(Y)).body)).to.deep.equal(beforeY)
    expect((await version(X, 'datasetProperties', 1)).status).to.equal(404)
    expect((await version(Y, 'globalTags', 1)).status).to.equal(404)
    expect((await version(Y, 'globalTags', 0)).body.aspect['com.linkedin.common.GlobalTags']).to.deep.equal({tags: [{tag: 'urn:li:tag:t1'}]})
    // The entity the run created is soft-deleted: its key and status {removed: true}.
    const z = (await entity(Z)).body
    expect(Object.keys(z.aspects).sort()).to.deep.equal(['datasetKey', 'status'])
    expect(z.aspects.status.value).to.deep.equal({removed: true})
    expect(z.aspects.status.systemMetadata.runId).to.equal('__mdcli-rollback')

    // Rolling back again finds nothing left to do.
    const again = await runCli(['ingest', 'rollback', '--run-id', 'change', '--force'], {env: lite.env()})
    expect(again.stdout).to.match(/^No entities found\. Payload used: \{"runId":"change","dryRun":false,"safe":true\}/)
  })

  it('rolling back a run whose entity was soft-deleted since reports it deleted no more, however often', async () => {
    const V = datasetUrn('runs.v_deleted_before_rollback')
    await ingestRun('deleted_first', [mcpRecord(V, 'datasetProperties', {name: 'v'})])
    expect((await runCli(['delete', '--urn', V, '--force'], {env: lite.env()})).code).to.equal(0)
    for (let i = 0; i < 2; i++) {
      const r = await http(`${lite.url}/runs?action=rollback`, {body: {runId: 'deleted_first', dryRun: false}})
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      expect(r.body.value.entitiesDeleted, `rollback ${i + 1}`).to.equal(0)
    }
    expect((await entity(V)).body.aspects.status.value).to.deep.equal({removed: true})
  })

  it('an equal re-write only observes; rollback of that run leaves the value', async () => {
    await ingestRun('observe', [base[0]])
    const report = await http(`${lite.url}/runs?action=rollback`, {body: {runId: 'observe', dryRun: false}})
    expect(report.status).to.equal(200)
    expect(report.body.value.aspectsReverted).to.equal(0)
    expect((await entity(X)).body.aspects.datasetProperties.value.description).to.equal('first')
  })

  it('--hard deletes the entities the run created, with every row', async () => {
    await ingestRun('change2', [mcpRecord(W, 'datasetProperties', {name: 'w'}), mcpRecord(W, 'status', {removed: false})])
    expect((await entity(W)).status).to.equal(200)
    const r = await runCli(['ingest', 'rollback', '--run-id', 'change2', '--force', '--hard', '--json'], {env: lite.env()})
    expect(r.code, r.stderr).to.equal(0)
    expect(JSON.parse(r.stdout)).to.include({entitiesDeleted: 1, hard: true})
    expect((await entity(W)).status).to.equal(404)
  })

  it('ingest → rollback → ingest gives the same result as the first ingest', async () => {
    const first = (await entity(Y)).body.aspects.globalTags.value
    await ingestRun('again', [mcpRecord(Y, 'globalTags', {tags: [{tag: 'urn:li:tag:t9'}]})])
    expect((await runCli(['ingest', 'rollback', '--run-id', 'again', '--force'], {env: lite.env()})).code).to.equal(0)
    await ingestRun('again2', [mcpRecord(Y, 'globalTags', {tags: [{tag: 'urn:li:tag:t9'}]})])
    expect((await entity(Y)).body.aspects.globalTags.value).to.deep.equal({tags: [{tag: 'urn:li:tag:t9'}]})
    expect((await version(Y, 'globalTags', 1)).body.aspect['com.linkedin.common.GlobalTags']).to.deep.equal(first)
  })

  it('soft rollback of a run that created a user, a group and a tag keeps each as DataHub does: key aspect and status removed', async () => {
    const user = 'urn:li:corpuser:rollback-ann'
    const group = 'urn:li:corpGroup:rollback-team'
    const tag = 'urn:li:tag:rollback-tag'
    await ingestRun('people', [
      mcpRecord(user, 'corpUserInfo', {active: true, displayName: 'Ann', email: 'ann@example.com'}),
      mcpRecord(group, 'corpGroupInfo', {displayName: 'Team', admins: [], members: [], groups: []}),
      mcpRecord(tag, 'tagProperties', {name: 'rollback-tag'}),
    ])
    const done = await runCli(['ingest', 'rollback', '--run-id', 'people', '--force', '--json'], {env: lite.env()})
    expect(done.code, done.stderr).to.equal(0)
    expect(JSON.parse(done.stdout)).to.include({entitiesDeleted: 3})
    for (const [urn, key] of [[user, 'corpUserKey'], [group, 'corpGroupKey'], [tag, 'tagKey']] as const) {
      const e = await entity(urn)
      expect(e.status, urn).to.equal(200)
      // The run's own aspects are reverted; the key stays and status hides the entity.
      expect(Object.keys(e.body.aspects).sort(), urn).to.deep.equal([key, 'status'].sort())
      expect(e.body.aspects.status.value).to.deep.equal({removed: true})
    }
  })

  it('refuses the reserved default run id with DataHub’s message', async () => {
    const r = await runCli(['ingest', 'rollback', '--run-id', 'no-run-id-provided', '--force'], {env: lite.env()})
    expect(r.code).to.equal(1)
    expect(r.stderr).to.contain('no-run-id-provided is a default run-id provided for non labeled ingestion runs. You cannot delete using this reserved run-id')
  })

  it('list-runs prints the grid table and --json the runs; show lists a run’s rows', async () => {
    const t = await runCli(['ingest', 'list-runs'], {env: lite.env()})
    expect(t.code, t.stderr).to.equal(0)
    const lines = t.stdout.trim().split('\n')
    expect(lines[0]).to.match(/^\+-+\+-+\+-+\+-+\+-+\+-+\+-+\+$/)
    expect(lines[1]).to.match(/^\| runId +\| +rows \| created at +\| aspects written \| key aspects \| unchanged \| state +\|$/)
    // Four records, X's status (auto status), and the key aspects of X and Y.
    expect(t.stdout).to.match(/\| base +\| +7 \| .* \| +5 \| +2 \|/)
    const j = JSON.parse((await runCli(['ingest', 'list-runs', '--json'], {env: lite.env()})).stdout) as Array<{runId: string; rows: number; timestamp: number}>
    expect(j.find((r) => r.runId === 'base')).to.include({rows: 7, aspectsWritten: 5, keyAspects: 2})
    const show = await runCli(['ingest', 'show', '--run-id', 'base', '--json'], {env: lite.env()})
    const rows = JSON.parse(show.stdout) as Array<{urn: string; aspectName: string; keyAspect: boolean}>
    expect(rows.map((r) => `${r.urn} ${r.aspectName}`)).to.include.members([`${X} datasetKey`, `${X} datasetProperties`, `${Y} globalTags`])
    expect(rows.find((r) => r.aspectName === 'datasetKey')!.keyAspect).to.equal(true)
  })

  it('show of a run the server does not know says so and exits 1; --json prints the error object', async () => {
    const r = await runCli(['ingest', 'show', '--run-id', 'nosuchrun'], {env: lite.env()})
    expect(r.code).to.equal(1)
    expect(r.stdout).to.equal('')
    expect(r.stderr.trim()).to.equal('Error: No run nosuchrun')
    const j = await runCli(['ingest', 'show', '--run-id', 'nosuchrun', '--json'], {env: lite.env()})
    expect(j.code).to.equal(1)
    expect(JSON.parse(j.stdout)).to.deep.equal({error: {code: 'E_NOT_FOUND', status: 404, message: 'No run nosuchrun'}})
    // A known run paged past its last row is an empty page, not a missing run.
    const past = await runCli(['ingest', 'show', '--run-id', 'base', '--start', '1000', '--json'], {env: lite.env()})
    expect(past.code, past.stderr).to.equal(0)
    expect(JSON.parse(past.stdout)).to.deep.equal([])
    // Every run list-runs shows, rolled back ones included, is one show finds.
    const listed = JSON.parse((await runCli(['ingest', 'list-runs', '--json'], {env: lite.env()})).stdout) as Array<{runId: string; state: string}>
    expect(listed.map((l) => l.state)).to.include('rolled back')
    for (const {runId} of listed) {
      const one = await runCli(['ingest', 'show', '--run-id', runId, '--json'], {env: lite.env()})
      expect(one.code, `${runId}: ${one.stdout}`).to.equal(0)
    }
  })
  it('a rollback whose rows later runs wrote over says how its count differs from list-runs', async () => {
    const K = datasetUrn('runs.kept')
    await ingestRun('kept_first', [mcpRecord(K, 'datasetProperties', {name: 'k', description: 'first'}), mcpRecord(K, 'globalTags', {tags: [{tag: 'urn:li:tag:k1'}]})])
    await ingestRun('kept_second', [mcpRecord(K, 'datasetProperties', {name: 'k', description: 'second'})])
    const dry = await runCli(['ingest', 'rollback', '--run-id', 'kept_first', '--dry-run'], {env: lite.env()})
    expect(dry.code, dry.stderr).to.equal(0)
    // Its datasetProperties was written over by kept_second: list-runs counts it, the rollback keeps it.
    const listed = JSON.parse((await runCli(['ingest', 'list-runs', '--json'], {env: lite.env()})).stdout)
    expect(listed.find((l: {runId: string}) => l.runId === 'kept_first')).to.include({rows: 4, aspectsWritten: 3, keyAspects: 1})
    expect(dry.stdout).to.include('Rows of run kept_first to roll back: 2 aspects written + 1 key aspects = 3 rows; `ingest list-runs` counts 1 more, which stay.')
    expect(dry.stdout).to.include('Note: 1 older versions written by this run stay, because later runs wrote over them.')
  })
})
