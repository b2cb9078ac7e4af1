/**
 * `getQuickFilters`, the search bar's suggested filters, on a real `mdcli lite`: the five
 * platforms with most entities in name order, then the entity types present in DataHub's order of
 * priority (three source types, two DataHub types).
 */
import {expect} from 'chai'
import {http, type LiteProcess, startLite} from '../helpers/lite.js'

const P = (p: string) => `urn:li:dataPlatform:${p}`
const ds = (p: string, n: string) => `urn:li:dataset:(${P(p)},${n},PROD)`

describe('graphql: getQuickFilters', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  const QUERY = '{ getQuickFilters(input: {}) { quickFilters { field value entity { urn type } } } }'
  const call = async (query: string) => (await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query}})).body

  before(async () => {
    lite = await startLite()
    // Entity counts per platform: hive 4, kafka 3, mysql 2, postgres 2, snowflake 2, s3 1.
    const counts: Record<string, number> = {hive: 4, kafka: 3, mysql: 2, postgres: 2, snowflake: 2, s3: 1}
    const proposals: Array<[string, string, unknown]> = []
    for (const [p, n] of Object.entries(counts)) for (let i = 0; i < n; i++) proposals.push([ds(p, `t${i}`), 'datasetProperties', {name: `t${i}`}])
    proposals.push(['urn:li:chart:(looker,c1)', 'chartInfo', {title: 'c1', description: '', lastModified: {created: {time: 0, actor: 'urn:li:corpuser:x'}, lastModified: {time: 0, actor: 'urn:li:corpuser:x'}}}])
    proposals.push(['urn:li:dataFlow:(airflow,f1,PROD)', 'dataFlowInfo', {name: 'f1'}])
    proposals.push(['urn:li:dashboard:(looker,d1)', 'dashboardInfo', {title: 'd1', description: '', lastModified: {created: {time: 0, actor: 'urn:li:corpuser:x'}, lastModified: {time: 0, actor: 'urn:li:corpuser:x'}}}])
    proposals.push(['urn:li:glossaryTerm:t1', 'glossaryTermInfo', {name: 't1', definition: '', termSource: 'INTERNAL'}])
    proposals.push(['urn:li:domain:d1', 'domainProperties', {name: 'd1'}])
    const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {
      token: lite.token,
      body: {atomic: true, proposals: proposals.map(([entityUrn, aspectName, json]) => ({entityUrn, aspectName, changeType: 'UPSERT', aspect: {json}}))},
    })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
  })
  after(async () => {
    await lite?.stop()
  })

  it('five platforms by count, shown in name order, then DATASET, DASHBOARD, DATA_FLOW and DOMAIN, GLOSSARY_TERM', async () => {
    const b = await call(QUERY)
    expect(b.errors, JSON.stringify(b.errors)).to.equal(undefined)
    const q = b.data.getQuickFilters.quickFilters
    const platforms = q.filter((f: any) => f.field === 'platform')
    // looker has 2 (chart, dashboard) and airflow 1: the fifth place goes to one of the 2s.
    expect(platforms).to.have.length(5)
    expect(platforms.map((f: any) => f.value)).to.deep.equal([...platforms.map((f: any) => f.value)].sort())
    expect(platforms.map((f: any) => f.value)).to.include.members([P('hive'), P('kafka')])
    expect(platforms.map((f: any) => f.value)).to.not.include.members([P('s3')])
    expect(platforms[0].entity).to.deep.equal({urn: platforms[0].value, type: 'DATA_PLATFORM'})
    expect(q.filter((f: any) => f.field === '_entityType')).to.deep.equal([
      {field: '_entityType', value: 'DATASET', entity: null},
      {field: '_entityType', value: 'DASHBOARD', entity: null},
      {field: '_entityType', value: 'DATA_FLOW', entity: null},
      {field: '_entityType', value: 'DOMAIN', entity: null},
      {field: '_entityType', value: 'GLOSSARY_TERM', entity: null},
    ])
  })

  it('a view urn is refused with a 400: this server has no views', async () => {
    const b = await call('{ getQuickFilters(input: {viewUrn: "urn:li:dataHubView:x"}) { quickFilters { field } } }')
    expect(b.errors?.[0]?.extensions?.code, JSON.stringify(b)).to.equal(400)
  })
})
