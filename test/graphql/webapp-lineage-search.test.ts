/**
 * What DataHub's web app asks of the lineage graph and of search, on DataHub's golden data
 * (its bootstrap demo: datasets with lineage, a data flow's jobs, a glossary node and its terms;
 * its domains example), answered by a real `mdcli lite`:
 * - lineage through the `EntityWithRelationships` interface gives the golden lineage edges;
 * - search filters with conditions: `parentDomain` EXISTS negated (the domains page's top
 *   level), `parentNode` (a glossary node's contents), CONTAIN, IEQUAL, domain-tree conditions;
 * - the fields the app reads on every page: autoRenderOnly, siblingsSearch, facets' entity,
 *   privileges, links with actor and settings.
 */
import {expect} from 'chai'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {cleanup, tempDir, useLite} from '../helpers/lite.js'
import {requireSharedFixtures} from '../helpers/requires.js'
import {ingestJson, mcpRecord, writeJson, writeRecipe} from '../ingest/helpers.js'
import {fails, ok} from './helpers.js'

const BOOTSTRAP = 'examples__bootstrap_mce.json'
const DOMAINS = 'examples__test_domains.json'
const LOGGING = 'urn:li:dataset:(urn:li:dataPlatform:hive,logging_events,PROD)'
const NODE = 'urn:li:glossaryNode:ClientsAndAccounts'
const MARKETING = 'urn:li:domain:marketing'
const EMEA = 'urn:li:domain:emea'
const NORDICS = 'urn:li:domain:nordics'

type Obj = Record<string, any>

/**
 * Lineage edges of DataHub's bootstrap file, read from it as DataHub's lineage registry reads the
 * aspects: [upstream, downstream, relationship].
 */
function goldenEdges(records: Obj[]): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = []
  for (const r of records) {
    const snap = r.proposedSnapshot as Obj | undefined
    if (snap) {
      const v = Object.values(snap)[0] as Obj
      for (const a of v.aspects as Obj[]) {
        const [name, value] = Object.entries(a)[0] as [string, Obj]
        if (name.endsWith('.UpstreamLineage')) for (const u of value.upstreams) out.push([u.dataset, v.urn, 'DownstreamOf'])
        if (name.endsWith('.DataJobInputOutput')) {
          for (const d of [...(value.inputDatasets ?? []), ...(value.inputDatajobs ?? [])]) out.push([d, v.urn, 'Consumes'])
          for (const d of value.outputDatasets ?? []) out.push([v.urn, d, 'Produces'])
        }
        if (name.endsWith('.ChartInfo')) for (const i of value.inputs ?? []) out.push([typeof i === 'string' ? i : i.string, v.urn, 'Consumes'])
        if (name.endsWith('.DashboardInfo')) {
          for (const c of value.charts ?? []) out.push([c, v.urn, 'Contains'])
          for (const d of value.datasets ?? []) out.push([d, v.urn, 'Consumes'])
        }
        if (name.endsWith('.MLFeatureProperties') || name.endsWith('.MLPrimaryKeyProperties')) for (const u of value.sources ?? []) out.push([u, v.urn, 'DerivedFrom'])
        if (name.endsWith('.MLModelProperties')) for (const u of value.trainingJobs ?? []) out.push([u, v.urn, 'TrainedBy'])
      }
    } else if (r.aspectName === 'upstreamLineage') {
      const value = (r.aspect.json ?? JSON.parse(r.aspect.value)) as Obj
      for (const u of value.upstreams) out.push([u.dataset, r.entityUrn, 'DownstreamOf'])
    }
  }
  return out
}

describe('DataHub’s web app on golden data: lineage through EntityWithRelationships, search filters with conditions, page fields', function () {
  this.timeout(180_000)
  const lite = useLite()
  let dir: string
  let golden: string
  let edges: Array<[string, string, string]>

  before(async function () {
    golden = requireSharedFixtures(this, 'datahub-golden')
    dir = tempDir('mdcli-webapp-ls-')
    for (const f of [BOOTSTRAP, DOMAINS]) {
      const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: join(golden, f)}}}, `${f}.yml`), lite.env())
      expect(r.code, r.stdout + r.stderr).to.equal(0)
    }
    // Subdomains under the golden domain: EMEA under marketing, Nordics under EMEA.
    const sub = writeJson(dir, 'subdomains.json', [
      mcpRecord(EMEA, 'domainProperties', {name: 'EMEA', parentDomain: MARKETING}),
      mcpRecord(NORDICS, 'domainProperties', {name: 'Nordics', parentDomain: EMEA}),
      mcpRecord(LOGGING, 'domains', {domains: [NORDICS]}),
    ])
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: sub}}}, 'sub.yml'), lite.env())
    expect(r.code, r.stdout + r.stderr).to.equal(0)
    edges = goldenEdges(JSON.parse(readFileSync(join(golden, BOOTSTRAP), 'utf8')) as Obj[])
  })
  after(() => dir && cleanup(dir))

  const lineageOf = async (urn: string) =>
    (
      await ok(
        lite.url,
        `query($urn: String!) { entity(urn: $urn) { __typename ... on EntityWithRelationships { urn type
          upstream: lineage(input: {direction: UPSTREAM, start: 0, count: 100}) { total relationships { type degree entity { urn type } } }
          downstream: lineage(input: {direction: DOWNSTREAM, start: 0, count: 100}) { total relationships { type degree entity { urn type } } } } } }`,
        {urn},
      )
    ).entity

  it('gives each golden entity its golden lineage edges through EntityWithRelationships (datasets and data jobs)', async () => {
    expect(edges.length).to.be.greaterThan(8)
    const nodes = [...new Set(edges.flatMap(([u, d]) => [u, d]))]
    // Edges may name entities the file never writes (ghosts): DataHub's lineage field leaves them out.
    const written = new Map<string, Obj>()
    for (const urn of nodes) {
      const e = await lineageOf(urn)
      if (e !== null) written.set(urn, e)
    }
    expect(written.size).to.be.greaterThan(nodes.length / 2)
    const real = edges.filter(([u, d]) => written.has(u) && written.has(d))
    for (const [urn, e] of written) {
      const up = e.upstream.relationships.map((r: Obj) => r.entity.urn).sort()
      const down = e.downstream.relationships.map((r: Obj) => r.entity.urn).sort()
      expect(up, `${urn} upstream`).to.deep.equal([...new Set(real.filter(([, d]) => d === urn).map(([u]) => u))].sort())
      expect(down, `${urn} downstream`).to.deep.equal([...new Set(real.filter(([u]) => u === urn).map(([, d]) => d))].sort())
      expect(e.upstream.total).to.equal(up.length)
      for (const r of [...e.upstream.relationships, ...e.downstream.relationships]) expect(r.degree).to.equal(1)
    }
    // The relationship names DataHub gives: a dataset is DownstreamOf its upstream, a job Consumes its inputs.
    const logging = await lineageOf(LOGGING)
    expect(logging.__typename).to.equal('Dataset')
    expect(logging.upstream.relationships.map((r: Obj) => r.type)).to.deep.equal(['DownstreamOf'])
    const job = await lineageOf('urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_123)')
    expect(job.__typename).to.equal('DataJob')
    expect(job.upstream.relationships).to.deep.include({type: 'Consumes', degree: 1, entity: {urn: LOGGING, type: 'DATASET'}})
  })

  it('answers relationships through the interface; an entity without edges answers an empty page, an ML feature its sources', async () => {
    const d = await ok(
      lite.url,
      `{ entity(urn: "${LOGGING}") { ... on EntityWithRelationships { relationships(input: {types: ["DownstreamOf"], direction: INCOMING, start: 0, count: 50}) { total relationships { entity { urn } } } } } }`,
    )
    const expected = edges.filter(([u, , t]) => u === LOGGING && t === 'DownstreamOf').map(([, x]) => x)
    expect(d.entity.relationships.relationships.map((r: Obj) => r.entity.urn).sort()).to.deep.equal([...new Set(expected)].sort())
    const lone = await ok(lite.url, `{ entity(urn: "urn:li:dataset:(urn:li:dataPlatform:mysql,information_schema.VIEWS,PROD)") { ... on EntityWithRelationships { lineage(input: {direction: UPSTREAM}) { total relationships { type } } } } }`)
    expect(lone.entity.lineage).to.deep.equal({total: 0, relationships: []})
    // An ML feature derives from its golden source, a dataset the file never writes: a ghost,
    // shown only when asked for.
    const feature = 'urn:li:mlFeature:(test_feature_table_all_feature_dtypes,test_BOOL_feature)'
    expect((await lineageOf(feature)).upstream.relationships).to.deep.equal([])
    const f = await ok(lite.url, `{ entity(urn: "${feature}") { __typename ... on EntityWithRelationships { lineage(input: {direction: UPSTREAM, includeGhostEntities: true}) { relationships { type degree entity { urn type } } } } } }`)
    expect(f.entity.__typename).to.equal('MLFeature')
    expect(f.entity.lineage.relationships).to.deep.equal([{type: 'DerivedFrom', degree: 1, entity: {urn: 'urn:li:dataset:(urn:li:dataPlatform:file,feast.*,PROD)', type: 'DATASET'}}])
    // Its properties name the same sources as datasets, as the home page's search results ask them.
    const props = await ok(lite.url, `{ mlFeature(urn: "${feature}") { properties { sources { urn name origin platform { urn } } } } }`)
    expect(props.mlFeature.properties.sources).to.deep.equal([{urn: 'urn:li:dataset:(urn:li:dataPlatform:file,feast.*,PROD)', name: 'feast.*', origin: 'PROD', platform: {urn: 'urn:li:dataPlatform:file'}}])
  })

  it('searchUsers (the settings page of users) finds users only', async () => {
    const r = await ok(lite.url, `{ searchUsers(input: {start: 0, count: 50, query: "*"}) { total searchResults { entity { urn type } } } }`)
    expect(r.searchUsers.total).to.be.greaterThan(0)
    expect(r.searchUsers.searchResults.map((x: Obj) => x.entity.type)).to.satisfy((types: string[]) => types.every((t) => t === 'CORP_USER'))
    expect(r.searchUsers.searchResults.map((x: Obj) => x.entity.urn)).to.include('urn:li:corpuser:jdoe')
  })

  it('searchAcrossLineage takes the app’s lineageFlags and says the walk is complete', async () => {
    const d = await ok(
      lite.url,
      `{ searchAcrossLineage(input: {urn: "${LOGGING}", direction: DOWNSTREAM, query: "*", count: 100, lineageFlags: {entitiesExploredPerHopLimit: 30}, searchFlags: {skipCache: true, skipHighlighting: true, filterNonLatestVersions: true}}) {
          total isPartial lineageSearchPath facets { field entity { urn } } searchResults { entity { urn } degree } } }`,
    )
    const direct = new Set(edges.filter(([u]) => u === LOGGING).map(([, x]) => x))
    const got = d.searchAcrossLineage.searchResults.filter((r: Obj) => r.degree === 1).map((r: Obj) => r.entity.urn)
    expect(new Set(got)).to.deep.equal(direct)
    expect(d.searchAcrossLineage.isPartial).to.equal(false)
    expect(d.searchAcrossLineage.facets.every((f: Obj) => f.entity === null)).to.equal(true)
  })

  const domains = async (and: Obj[], extra = '') =>
    (
      await ok(
        lite.url,
        `query($f: [FacetFilterInput!]) { searchAcrossEntities(input: {types: [DOMAIN], query: "*", start: 0, count: 50, orFilters: [{and: $f}]${extra}}) { total searchResults { entity { urn } } } }`,
        {f: and},
      )
    ).searchAcrossEntities.searchResults.map((r: Obj) => r.entity.urn)

  it('filters domains on parentDomain as the domains page does: EXISTS negated lists the top level, a value lists its children', async () => {
    // Exactly the filter and sort the app sends for its domains page.
    const top = await domains([{field: 'parentDomain', condition: 'EXISTS', negated: true}], ', sortInput: {sortCriteria: [{field: "_entityName", sortOrder: ASCENDING}]}, searchFlags: {skipCache: true}')
    expect(top).to.deep.equal([MARKETING])
    expect((await domains([{field: 'parentDomain', condition: 'EXISTS'}])).sort()).to.deep.equal([EMEA, NORDICS].sort())
    expect(await domains([{field: 'parentDomain', values: [MARKETING]}])).to.deep.equal([EMEA])
    expect(await domains([{field: 'parentDomain', values: [EMEA], condition: 'EQUAL'}])).to.deep.equal([NORDICS])
    // The domain tree: marketing with every subdomain.
    expect((await domains([{field: 'urn', values: [MARKETING], condition: 'EQUAL'}]))).to.deep.equal([MARKETING])
    const ds = await ok(lite.url, `{ searchAcrossEntities(input: {query: "*", orFilters: [{and: [{field: "domains", values: ["${MARKETING}"], condition: DESCENDANTS_INCL}]}]}) { searchResults { entity { urn } } } }`)
    expect(ds.searchAcrossEntities.searchResults.map((r: Obj) => r.entity.urn)).to.include.members([LOGGING, 'urn:li:dataset:(urn:li:dataPlatform:mysql,information_schema.VIEWS,PROD)'])
    const exact = await ok(lite.url, `{ searchAcrossEntities(input: {query: "*", orFilters: [{and: [{field: "domains", values: ["${MARKETING}"]}]}]}) { searchResults { entity { urn } } } }`)
    expect(exact.searchAcrossEntities.searchResults.map((r: Obj) => r.entity.urn)).to.not.include(LOGGING)
  })

  it('filters glossary entities on parentNode (a node’s contents) and with CONTAIN, IEQUAL, NEGATED and EXISTS conditions', async () => {
    const terms = async (and: Obj[]) =>
      (
        await ok(lite.url, `query($f: [FacetFilterInput!]) { searchAcrossEntities(input: {types: [GLOSSARY_TERM, GLOSSARY_NODE], query: "*", count: 50, orFilters: [{and: $f}]}) { searchResults { entity { urn } } } }`, {f: and})
      ).searchAcrossEntities.searchResults
        .map((r: Obj) => r.entity.urn)
        .sort()
    const children = ['urn:li:glossaryTerm:AccountBalance', 'urn:li:glossaryTerm:CustomerAccount', 'urn:li:glossaryTerm:SavingAccount']
    expect(await terms([{field: 'parentNode', values: [NODE]}])).to.deep.equal(children)
    // The glossary's scroll as the app sends it: nodes before terms (by index), then by name.
    const all = await ok(
      lite.url,
      `{ scrollAcrossEntities(input: {query: "*", types: [GLOSSARY_NODE, GLOSSARY_TERM], count: 50, sortInput: {sortCriteria: [{field: "_index", sortOrder: ASCENDING}, {field: "_entityName", sortOrder: ASCENDING}]}}) { searchResults { entity { urn type } } } }`,
    )
    const types = all.scrollAcrossEntities.searchResults.map((r: Obj) => r.entity.type)
    expect(types.indexOf('GLOSSARY_TERM')).to.be.greaterThan(types.lastIndexOf('GLOSSARY_NODE'))
    const inNode = await ok(
      lite.url,
      `{ scrollAcrossEntities(input: {query: "*", types: [GLOSSARY_NODE, GLOSSARY_TERM], count: 2, orFilters: [{and: [{field: "parentNode", values: ["${NODE}"]}]}], sortInput: {sortCriteria: [{field: "_index", sortOrder: ASCENDING}, {field: "_entityName", sortOrder: DESCENDING}]}}) { nextScrollId searchResults { entity { urn } } } }`,
    )
    expect(inNode.scrollAcrossEntities.searchResults.map((r: Obj) => r.entity.urn)).to.deep.equal([children[2], children[1]])
    expect(inNode.scrollAcrossEntities.nextScrollId).to.be.a('string')
    expect(await terms([{field: 'parentNode', condition: 'EXISTS', negated: true}])).to.include(NODE).and.not.include.members(children)
    expect(await terms([{field: 'urn', values: ['Account'], condition: 'CONTAIN'}])).to.deep.equal([...children, NODE].sort())
    expect(await terms([{field: 'urn', values: ['urn:li:glossaryterm:savingaccount'], condition: 'IEQUAL'}])).to.deep.equal(['urn:li:glossaryTerm:SavingAccount'])
    expect(await terms([{field: 'urn', values: ['urn:li:glossaryTerm:Saving'], condition: 'START_WITH', negated: true}, {field: 'parentNode', values: [NODE]}])).to.deep.equal(children.filter((c) => !c.includes('Saving')))
    // Facet fields with conditions: datasets with any tag (on them or a column) and those without split the datasets.
    const count = async (f: Obj[]) =>
      (await ok(lite.url, `query($o: [AndFilterInput!]) { searchAcrossEntities(input: {types: [DATASET], query: "*", count: 0, orFilters: $o}) { total } }`, {o: f.length > 0 ? [{and: f}] : []})).searchAcrossEntities.total
    const tagged = await count([{field: 'tags', condition: 'EXISTS'}])
    const untagged = await count([{field: 'tags', condition: 'EXISTS', negated: true}])
    expect(tagged).to.be.greaterThan(0)
    expect(untagged).to.be.greaterThan(0)
    expect(tagged + untagged).to.equal(await count([]))
    const kafka = await ok(lite.url, `{ searchAcrossEntities(input: {types: [DATASET], query: "*", count: 100, orFilters: [{and: [{field: "platform", values: ["kafka"], condition: END_WITH}]}]}) { searchResults { entity { urn } } } }`)
    expect(kafka.searchAcrossEntities.searchResults.map((r: Obj) => r.entity.urn)).to.deep.equal(['urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)'])
    const numeric = await ok(lite.url, `{ searchAcrossEntities(input: {types: [DATASET], query: "*", orFilters: [{and: [{field: "rowCount", values: ["5"], condition: GREATER_THAN}]}]}) { total } }`)
    expect(numeric.searchAcrossEntities.total).to.equal(0)
  })

  it('counts a glossary node’s live children for the glossary pages’ group cards (childrenCount)', async () => {
    const counts = async () => (await ok(lite.url, `{ glossaryNode(urn: "${NODE}") { childrenCount { termsCount nodesCount } } }`)).glossaryNode.childrenCount
    expect(await counts()).to.deep.equal({termsCount: 3, nodesCount: 0})
    const soft = (deleted: boolean) => ok(lite.url, `mutation { batchUpdateSoftDeleted(input: {urns: ["urn:li:glossaryTerm:SavingAccount"], deleted: ${deleted}}) }`)
    await soft(true)
    try {
      expect(await counts()).to.deep.equal({termsCount: 2, nodesCount: 0})
    } finally {
      await soft(false)
    }
    expect(await counts()).to.deep.equal({termsCount: 3, nodesCount: 0})
    const leaf = await ok(lite.url, `{ glossaryNode(urn: "urn:li:glossaryNode:not-there") { childrenCount { termsCount nodesCount } } }`)
    expect(leaf.glossaryNode?.childrenCount ?? {termsCount: 0, nodesCount: 0}).to.deep.equal({termsCount: 0, nodesCount: 0})
  })

  it('refuses a tree condition on a field that is not a domain, and an unsupported sort, in one line', async () => {
    const e = await fails(lite.url, `{ searchAcrossEntities(input: {query: "*", orFilters: [{and: [{field: "tags", values: ["x"], condition: DESCENDANTS_INCL}]}]}) { total } }`)
    expect(e.message).to.match(/DESCENDANTS_INCL applies to 'domains' and 'parentDomain', not 'tags'/)
    const s = await fails(lite.url, `{ searchAcrossEntities(input: {query: "*", sortInput: {sortCriteria: [{field: "rowCount", sortOrder: ASCENDING}]}}) { total } }`)
    expect(s.message).to.match(/Sorting by 'rowCount' is not supported/)
  })

  it('answers the page fields the app reads: no auto-render aspects, empty sibling search, privileges, links with actor and settings', async () => {
    const d = await ok(
      lite.url,
      `{ dataset(urn: "${LOGGING}") {
          tabs: aspects(input: {autoRenderOnly: true}) { aspectName renderSpec { displayName } }
          all: aspects(input: {}) { aspectName renderSpec { displayName } }
          siblingsSearch(input: {query: "*", count: 10}) { count total searchResults { entity { urn } } }
          privileges { canEditAssertionOwners canManageAssetSummary canEditLineage } } }`,
    )
    expect(d.dataset.tabs).to.deep.equal([])
    expect(d.dataset.all.length).to.be.greaterThan(0)
    expect(d.dataset.all[0].renderSpec).to.equal(null)
    expect(d.dataset.siblingsSearch).to.deep.equal({count: 0, total: 0, searchResults: []})
    expect(d.dataset.privileges).to.deep.equal({canEditAssertionOwners: true, canManageAssetSummary: false, canEditLineage: true})

    const link = {resourceUrn: NODE, linkUrl: 'https://wiki.example.com/accounts', label: 'Accounts wiki'}
    await ok(lite.url, `mutation($i: AddLinkInput!) { addLink(input: $i) }`, {i: link})
    const read = async () =>
      (
        await ok(lite.url, `{ glossaryNode(urn: "${NODE}") { institutionalMemory { elements { url label actor { __typename ... on CorpUser { urn } } created { time } updated { time } settings { showInAssetPreview } } } } }`)
      ).glossaryNode.institutionalMemory.elements
    const before = await read()
    expect(before).to.have.length(1)
    expect(before[0]).to.include({url: link.linkUrl, label: link.label, updated: null, settings: null})
    expect(before[0].actor.__typename).to.equal('CorpUser')
    await ok(lite.url, `mutation($i: UpsertLinkInput!) { upsertLink(input: $i) }`, {i: {...link, settings: {showInAssetPreview: true}}})
    const after = await read()
    expect(after).to.have.length(1)
    expect(after[0].settings).to.deep.equal({showInAssetPreview: true})
    expect(after[0].updated.time).to.be.a('number')
    await ok(lite.url, `mutation($i: RemoveLinkInput!) { removeLink(input: $i) }`, {i: {...link, label: 'another label'}})
    expect(await read()).to.have.length(1)
    await ok(lite.url, `mutation($i: RemoveLinkInput!) { removeLink(input: $i) }`, {i: link})
    expect(await read()).to.deep.equal([])
  })
})
