import {expect} from 'chai'
import {cleanup, http, runCli, startLite, tempDir, type LiteProcess} from '../helpers/lite.js'
import {datasetUrn, mcpRecord, writeJson, writeRecipe} from '../ingest/helpers.js'

const RAW = datasetUrn('ul.raw')
const CLEAN = datasetUrn('ul.clean')
const REPORT = datasetUrn('ul.report')
const JOB = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,ul_flow,PROD),build_report)'
const CHART = 'urn:li:chart:(looker,ul_chart)'
const DASH = 'urn:li:dashboard:(looker,ul_dash)'
const stamp = {time: 0, actor: 'urn:li:corpuser:x'}

describe('updateLineage: edges added and removed where DataHub keeps them, walked downstream after a restart', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  let dir: string
  let bobToken: string
  const gql = async (query: string, variables?: Record<string, unknown>, token = lite.token) => (await http(`${lite.url}/api/graphql`, {token, body: {query, variables}})).body
  const ok = async (query: string, variables?: Record<string, unknown>) => {
    const b = await gql(query, variables)
    expect(b.errors, JSON.stringify(b.errors)).to.equal(undefined)
    return b.data
  }
  const update = (add: Array<[string, string]>, remove: Array<[string, string]> = [], token?: string) =>
    gql(
      'mutation($i: UpdateLineageInput!) { updateLineage(input: $i) }',
      {i: {edgesToAdd: add.map(([upstreamUrn, downstreamUrn]) => ({upstreamUrn, downstreamUrn})), edgesToRemove: remove.map(([upstreamUrn, downstreamUrn]) => ({upstreamUrn, downstreamUrn}))}},
      token,
    )
  const aspect = async (urn: string, name: string) => (await http(`${lite.url}/entitiesV2/${encodeURIComponent(urn)}`, {token: lite.token})).body.aspects?.[name]?.value
  const downstream = async (urn: string) =>
    (await ok(`query($u: String!) { searchAcrossLineage(input: {urn: $u, direction: DOWNSTREAM, query: "*", count: 100}) { searchResults { entity { urn } degree } } }`, {u: urn})).searchAcrossLineage.searchResults.map(
      (r: {entity: {urn: string}; degree: number}) => `${r.degree} ${r.entity.urn}`,
    )

  before(async () => {
    dir = tempDir('mdcli-update-lineage-')
    lite = await startLite()
    const info = {description: '', lastModified: {created: stamp, lastModified: stamp}}
    const file = writeJson(dir, 'seed.json', [
      ...[RAW, CLEAN, REPORT].map((u) => mcpRecord(u, 'status', {removed: false})),
      mcpRecord(JOB, 'dataJobInfo', {name: 'build_report', type: {string: 'COMMAND'}}),
      mcpRecord(CHART, 'chartInfo', {title: 'ul chart', ...info}),
      mcpRecord(DASH, 'dashboardInfo', {title: 'ul dash', ...info}),
    ])
    const r = await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'file', config: {path: file}}})], {env: lite.env()})
    expect(r.code, r.stdout + r.stderr).to.equal(0)
    const t = await ok('mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "urn:li:corpuser:bob", duration: ONE_DAY, name: "bob"}) { accessToken } }')
    bobToken = t.createAccessToken.accessToken
  })
  after(async () => {
    await lite?.stop()
    cleanup(dir)
  })

  it('writes each edge into its aspect: upstreams, a job’s inputs and outputs, chart inputs, dashboard charts', async () => {
    const r = await update([
      [RAW, CLEAN],
      [CLEAN, JOB],
      [JOB, REPORT],
      [REPORT, CHART],
      [CHART, DASH],
    ])
    expect(r.errors, JSON.stringify(r.errors)).to.equal(undefined)
    expect(r.data.updateLineage).to.equal(true)
    const ul = await aspect(CLEAN, 'upstreamLineage')
    expect(ul.upstreams).to.have.length(1)
    expect(ul.upstreams[0]).to.include({dataset: RAW, type: 'TRANSFORMED'})
    expect(ul.upstreams[0].auditStamp.actor).to.equal('urn:li:corpuser:datahub')
    const io = await aspect(JOB, 'dataJobInputOutput')
    expect(io.inputDatasetEdges.map((e: {destinationUrn: string}) => e.destinationUrn)).to.deep.equal([CLEAN])
    expect(io.outputDatasetEdges.map((e: {destinationUrn: string}) => e.destinationUrn)).to.deep.equal([REPORT])
    expect((await aspect(CHART, 'chartInfo')).inputEdges[0].destinationUrn).to.equal(REPORT)
    expect((await aspect(DASH, 'dashboardInfo')).chartEdges[0].destinationUrn).to.equal(CHART)
    expect(await downstream(RAW)).to.deep.equal([`1 ${CLEAN}`, `2 ${JOB}`, `3 ${REPORT}`, `4 ${CHART}`, `5 ${DASH}`])
    // Adding an edge that is there already changes nothing.
    expect((await update([[RAW, CLEAN]])).errors).to.equal(undefined)
    expect((await aspect(CLEAN, 'upstreamLineage')).upstreams).to.have.length(1)
  })

  it('refuses an unknown urn, an impossible pair and a user without EDIT_LINEAGE, writing nothing', async () => {
    const before = await aspect(CLEAN, 'upstreamLineage')
    const missing = await update([[datasetUrn('ul.nowhere'), CLEAN]])
    expect(missing.errors[0].message).to.match(/ul\.nowhere.*does not exist/)
    const pair = await update([[DASH, CLEAN]])
    expect(pair.errors[0].message).to.match(/a dataset cannot have a dashboard upstream/)
    // One bad edge among good ones: none is written.
    const mixed = await update([[REPORT, CLEAN], [datasetUrn('ul.nowhere'), CLEAN]])
    expect(mixed.errors).to.have.length(1)
    const bob = await update([[REPORT, CLEAN]], [], bobToken)
    expect(bob.errors[0].extensions.code).to.equal(403)
    expect(bob.errors[0].message).to.match(/Unauthorized to update lineage/)
    expect(await aspect(CLEAN, 'upstreamLineage')).to.deep.equal(before)
  })

  it('removes edges, and the downstream walk follows at once and after a restart (journal replay and shards)', async () => {
    expect((await update([], [[CLEAN, JOB]])).errors).to.equal(undefined)
    expect((await aspect(JOB, 'dataJobInputOutput')).inputDatasetEdges).to.deep.equal([])
    expect(await downstream(RAW)).to.deep.equal([`1 ${CLEAN}`])
    expect(await downstream(JOB)).to.deep.equal([`1 ${REPORT}`, `2 ${CHART}`, `3 ${DASH}`])
    // Restart from the journal, then from a checkpoint's shards: the reference index is rebuilt.
    for (let i = 0; i < 2; i++) {
      const {storeDir, home} = lite
      if (i === 0) await lite.kill()
      else await lite.stop()
      lite = await startLite({storeDir, home})
      expect(await downstream(RAW)).to.deep.equal([`1 ${CLEAN}`])
      expect(await downstream(JOB)).to.deep.equal([`1 ${REPORT}`, `2 ${CHART}`, `3 ${DASH}`])
      expect(await downstream(REPORT)).to.deep.equal([`1 ${CHART}`, `2 ${DASH}`])
    }
  })
})
