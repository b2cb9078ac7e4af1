import {expect} from 'chai'
import {cleanup, http, runCli, tempDir, useLite} from '../helpers/lite.js'
import {datasetUrn, mcpRecord, writeJson, writeRecipe} from '../ingest/helpers.js'

const A = datasetUrn('lin.a')
const B = datasetUrn('lin.b')
const C = datasetUrn('lin.c')
const D = datasetUrn('lin.d')
const GONE = datasetUrn('lin.gone')
const JOB = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,lin_flow,PROD),load_d)'
const CHART = 'urn:li:chart:(looker,lin_chart)'
const DASH = 'urn:li:dashboard:(looker,lin_dash)'
const up = (...urns: string[]) => ({upstreams: urns.map((u) => ({dataset: u, type: 'TRANSFORMED', auditStamp: {time: 0, actor: 'urn:li:corpuser:etl'}}))})

describe('lineage: searchAcrossLineage, scrollAcrossLineage, the lineage field and `mdcli lineage`', function () {
  this.timeout(120_000)
  const lite = useLite()
  let dir: string
  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const r = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query, variables}})
    expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
    return r.body.data
  }
  const across = async (urn: string, direction: string, degrees?: string[], extra = '') =>
    (
      await gql(`query { searchAcrossLineage(input: {urn: "${urn.replace(/"/g, '\\"')}", direction: ${direction}, query: "*", start: 0, count: 100${degrees ? `, orFilters: [{and: [{field: "degree", values: ${JSON.stringify(degrees)}}]}]` : ''}${extra}}) {
        total searchResults { entity { urn type } degree paths { path { urn } } } facets { field aggregations { value count } } } }`)
    ).searchAcrossLineage

  before(async () => {
    dir = tempDir('mdcli-lineage-')
    const b = {
      ...up(A),
      fineGrainedLineages: [{upstreamType: 'FIELD_SET', upstreams: [`urn:li:schemaField:(${A},id)`], downstreamType: 'FIELD', downstreams: [`urn:li:schemaField:(${B},id)`]}],
    }
    const file = writeJson(dir, 'lineage.json', [
      mcpRecord(A, 'status', {removed: false}),
      mcpRecord(B, 'upstreamLineage', b),
      mcpRecord(C, 'upstreamLineage', up(B)),
      mcpRecord(GONE, 'upstreamLineage', up(A)),
      mcpRecord(GONE, 'status', {removed: true}),
      mcpRecord(JOB, 'dataJobInputOutput', {inputDatasets: [C], outputDatasets: [D]}),
      mcpRecord(D, 'status', {removed: false}),
      mcpRecord(CHART, 'chartInfo', {title: 'lin chart', description: '', lastModified: {created: {time: 0, actor: 'urn:li:corpuser:x'}, lastModified: {time: 0, actor: 'urn:li:corpuser:x'}}, inputs: [{string: D}]}),
      mcpRecord(DASH, 'dashboardInfo', {title: 'lin dash', description: '', charts: [CHART], lastModified: {created: {time: 0, actor: 'urn:li:corpuser:x'}, lastModified: {time: 0, actor: 'urn:li:corpuser:x'}}}),
    ])
    const r = await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'file', config: {path: file}}})], {env: lite.env()})
    expect(r.code, r.stdout + r.stderr).to.equal(0)
  })
  after(() => cleanup(dir))

  it('walks downstream through datasets, a data job, a chart and a dashboard, by degree, leaving soft-deleted entities out', async () => {
    const all = await across(A, 'DOWNSTREAM')
    const byUrn = Object.fromEntries(all.searchResults.map((r: any) => [r.entity.urn, r.degree]))
    expect(byUrn).to.deep.equal({[B]: 1, [C]: 2, [JOB]: 3, [D]: 4, [CHART]: 5, [DASH]: 6})
    expect(all.total).to.equal(6)
    const path = all.searchResults.find((r: any) => r.entity.urn === D).paths[0].path.map((p: any) => p.urn)
    expect(path).to.deep.equal([A, B, C, JOB, D])
    // The type facet speaks GraphQL's names, as searchAcrossEntities' does, and filters with them.
    const types = Object.fromEntries(all.facets.find((f: any) => f.field === '_entityType').aggregations.map((a: any) => [a.value, a.count]))
    expect(types).to.deep.equal({DATASET: 3, DATA_JOB: 1, CHART: 1, DASHBOARD: 1})
    const jobs = await gql(`{ searchAcrossLineage(input: {urn: "${A}", direction: DOWNSTREAM, query: "*", orFilters: [{and: [{field: "_entityType", values: ["DATA_JOB", "CHART"]}]}]}) { total searchResults { entity { urn } } } }`)
    expect(jobs.searchAcrossLineage.searchResults.map((r: any) => r.entity.urn)).to.deep.equal([JOB, CHART])
    expect((await across(A, 'DOWNSTREAM', ['1'])).searchResults.map((r: any) => r.entity.urn)).to.deep.equal([B])
    expect((await across(A, 'DOWNSTREAM', ['1', '2'])).total).to.equal(2)
    const withGone = await across(A, 'DOWNSTREAM', ['1'], ', searchFlags: {includeSoftDeleted: true}')
    expect(withGone.searchResults.map((r: any) => r.entity.urn).sort()).to.deep.equal([B, GONE].sort())
    const charts = await across(A, 'DOWNSTREAM', undefined, ', types: [CHART, DASHBOARD]')
    expect(charts.searchResults.map((r: any) => r.entity.type)).to.deep.equal(['CHART', 'DASHBOARD'])
  })

  it('walks upstream from the dashboard back to the first dataset', async () => {
    const all = await across(DASH, 'UPSTREAM')
    expect(all.searchResults.map((r: any) => [r.entity.urn, r.degree])).to.deep.equal([
      [CHART, 1],
      [D, 2],
      [JOB, 3],
      [C, 4],
      [B, 5],
      [A, 6],
    ])
  })

  it('scrollAcrossLineage pages with a cursor; the lineage field lists direct neighbours with DataHub relationship names', async () => {
    const first = (await gql(`query { scrollAcrossLineage(input: {urn: "${A}", direction: DOWNSTREAM, count: 4}) { nextScrollId count total searchResults { entity { urn } } } }`)).scrollAcrossLineage
    expect(first.count).to.equal(4)
    expect(first.total).to.equal(6)
    const second = (await gql(`query { scrollAcrossLineage(input: {urn: "${A}", direction: DOWNSTREAM, count: 4, scrollId: "${first.nextScrollId}"}) { nextScrollId count } }`)).scrollAcrossLineage
    expect(second).to.deep.equal({nextScrollId: null, count: 2})
    const ds = (await gql(`query($u: String!) { dataset(urn: $u) { lineage(input: {direction: UPSTREAM}) { total relationships { type degree entity { urn } } } } }`, {u: C})).dataset
    expect(ds.lineage).to.deep.equal({total: 1, relationships: [{type: 'DownstreamOf', degree: 1, entity: {urn: B}}]})
    const job = (await gql(`query($u: String!) { dataJob(urn: $u) { lineage(input: {direction: DOWNSTREAM}) { relationships { type entity { urn } } } } }`, {u: JOB})).dataJob
    expect(job.lineage.relationships).to.deep.equal([{type: 'Produces', entity: {urn: D}}])
  })

  it('`mdcli lineage` draws a tree and prints it as JSON; a bad direction is one line', async () => {
    const r = await runCli(['lineage', '--urn', A, '--direction', 'downstream', '--depth', '2'], {env: lite.env()})
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stdout).to.include(`└── ${B}  (dataset)`)
    expect(r.stdout).to.include(`    └── ${C}  (dataset)`)
    expect(r.stdout).to.not.include(JOB)
    const j = JSON.parse((await runCli(['lineage', '--urn', DASH, '--json'], {env: lite.env()})).stdout)
    expect(j.tree[0].urn).to.equal(CHART)
    expect(j.tree[0].children[0].urn).to.equal(D)
    const bad = await runCli(['lineage', '--urn', A, '--direction', 'sideways'], {env: lite.env()})
    expect(bad.code).to.not.equal(0)
    expect(bad.stderr).to.match(/sideways/)
  })
})
