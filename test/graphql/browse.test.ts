/**
 * Browse, relationships and entity management against a real `mdcli lite`: v1 and v2 browse
 * paths (ingested and derived), DataHub's relationship names both ways with soft-deleted
 * entities left out, facet counts without results, the glossary's top level, and the
 * management mutations of DataHub's web app, each read back.
 */
import {expect} from 'chai'
import {cleanup, type LiteProcess, startLite} from '../helpers/lite.js'
import {ds, fails, ingest, mcp, ok, U} from './helpers.js'

const KAFKA = ds('SampleKafkaDataset', 'kafka')
const ORDERS = ds('shop.public.orders', 'postgres')
const ITEMS = ds('shop.public.items', 'postgres')
const GONE = ds('shop.public.gone', 'postgres')
const DB = 'urn:li:container:shopdb'
const SCHEMA = 'urn:li:container:shoppublic'
const REPORT = ds('reports/weekly', 's3')

const REL = `query ($urn: String!, $types: [String!]!, $dir: RelationshipDirection!, $soft: Boolean) {
  entity(urn: $urn) { ... on Entity { relationships(input: {types: $types, direction: $dir, includeSoftDelete: $soft}) { total relationships { type direction entity { urn type } } } } }
}`

describe('graphql: browse, relationships and entity management', function () {
  this.timeout(60_000)
  let lite: LiteProcess

  before(async () => {
    lite = await startLite()
    await ingest(lite.url, [
      mcp(KAFKA, 'datasetProperties', {name: 'SampleKafkaDataset'}),
      mcp(KAFKA, 'ownership', {owners: [{owner: U.jdoe, type: 'DATAOWNER'}]}),
      mcp(KAFKA, 'globalTags', {tags: [{tag: U.pii}]}),
      mcp(KAFKA, 'domains', {domains: [U.marketing]}),
      mcp(DB, 'containerProperties', {name: 'shopdb'}),
      mcp(SCHEMA, 'containerProperties', {name: 'public'}),
      mcp(SCHEMA, 'container', {container: DB}),
      ...[ORDERS, ITEMS, GONE].map((u) => mcp(u, 'container', {container: SCHEMA})),
      mcp(ITEMS, 'upstreamLineage', {upstreams: [{dataset: ORDERS, type: 'TRANSFORMED'}, {dataset: GONE, type: 'TRANSFORMED'}]}),
      mcp(GONE, 'upstreamLineage', {upstreams: [{dataset: ORDERS, type: 'COPY'}]}),
      mcp(GONE, 'status', {removed: true}),
      mcp(REPORT, 'datasetProperties', {name: 'weekly'}),
      mcp(REPORT, 'browsePathsV2', {path: [{id: 'reports'}, {id: 'finance', urn: U.finance}]}),
      mcp(REPORT, 'browsePaths', {paths: ['/prod/s3/custom/weekly']}),
      mcp(U.pii, 'tagProperties', {name: 'pii'}),
      mcp(U.marketing, 'domainProperties', {name: 'Marketing'}),
      mcp('urn:li:domain:emea', 'domainProperties', {name: 'EMEA', parentDomain: U.marketing}),
      mcp(U.classification, 'glossaryNodeInfo', {definition: 'classes'}),
      mcp('urn:li:glossaryNode:Inner', 'glossaryNodeInfo', {definition: 'inner', parentNode: U.classification}),
      mcp(U.confidential, 'glossaryTermInfo', {definition: 'secret', termSource: 'INTERNAL', parentNode: U.classification}),
      mcp('urn:li:glossaryTerm:Loose', 'glossaryTermInfo', {definition: 'top level', termSource: 'INTERNAL'}),
    ])
  })
  after(async () => {
    await lite?.stop()
    if (lite) cleanup(lite.storeDir, lite.home)
  })

  describe('relationships', () => {
    it('reads outgoing edges by DataHub’s names from the aspects that carry them', async () => {
      const r = (await ok(lite.url, REL, {urn: KAFKA, types: ['OwnedBy', 'TaggedWith', 'AssociatedWith'], dir: 'OUTGOING'})).entity.relationships
      expect(r.relationships).to.have.deep.members([
        {type: 'OwnedBy', direction: 'OUTGOING', entity: {urn: U.jdoe, type: 'CORP_USER'}},
        {type: 'TaggedWith', direction: 'OUTGOING', entity: {urn: U.pii, type: 'TAG'}},
        {type: 'AssociatedWith', direction: 'OUTGOING', entity: {urn: U.marketing, type: 'DOMAIN'}},
      ])
      const part = (await ok(lite.url, REL, {urn: SCHEMA, types: ['IsPartOf'], dir: 'OUTGOING'})).entity.relationships.relationships
      expect(part).to.deep.equal([{type: 'IsPartOf', direction: 'OUTGOING', entity: {urn: DB, type: 'CONTAINER'}}])
    })

    it('finds incoming edges, leaving soft-deleted entities out unless asked', async () => {
      const q = async (types: string[], soft?: boolean) =>
        (await ok(lite.url, REL, {urn: ORDERS, types, dir: 'INCOMING', soft})).entity.relationships.relationships.map((x: any) => [x.type, x.entity.urn])
      expect(await q(['DownstreamOf'])).to.deep.equal([['DownstreamOf', ITEMS]])
      expect(await q(['DownstreamOf'], true)).to.have.deep.members([['DownstreamOf', ITEMS], ['DownstreamOf', GONE]])
      const inSchema = (await ok(lite.url, REL, {urn: SCHEMA, types: ['IsPartOf'], dir: 'INCOMING'})).entity.relationships
      expect(inSchema.total).to.equal(2)
      expect(inSchema.relationships.map((x: any) => x.entity.urn)).to.have.members([ORDERS, ITEMS])
      const tagged = (await ok(lite.url, REL, {urn: U.pii, types: ['TaggedWith'], dir: 'INCOMING'})).entity.relationships.relationships
      expect(tagged.map((x: any) => x.entity.urn)).to.deep.equal([KAFKA])
      // An outgoing edge to a soft-deleted entity is hidden too.
      const up = (await ok(lite.url, REL, {urn: ITEMS, types: ['DownstreamOf'], dir: 'OUTGOING'})).entity.relationships.relationships
      expect(up.map((x: any) => x.entity.urn)).to.deep.equal([ORDERS])
    })
  })

  describe('browse', () => {
    it('browses v1 paths: derived /env/platform/name where none was ingested, and the ingested ones', async () => {
      const B = `query ($input: BrowseInput!) { browse(input: $input) { start count total entities { urn } groups { name count } metadata { path totalNumEntities } } }`
      const top = (await ok(lite.url, B, {input: {type: 'DATASET', path: []}})).browse
      expect(top.groups).to.deep.equal([{name: 'prod', count: 4}])
      const prod = (await ok(lite.url, B, {input: {type: 'DATASET', path: ['prod']}})).browse
      expect(prod.groups).to.deep.equal([{name: 'kafka', count: 1}, {name: 'postgres', count: 2}, {name: 's3', count: 1}])
      const kafka = (await ok(lite.url, B, {input: {type: 'DATASET', path: ['prod', 'kafka']}})).browse
      expect(kafka).to.deep.include({entities: [{urn: KAFKA}], groups: [], total: 1, metadata: {path: ['prod', 'kafka'], totalNumEntities: 1}})
      const pub = (await ok(lite.url, B, {input: {type: 'DATASET', path: ['prod', 'postgres', 'shop', 'public']}})).browse
      expect(pub.entities.map((e: any) => e.urn)).to.have.members([ORDERS, ITEMS])
      const paths = await ok(lite.url, `{ a: browsePaths(input: {type: DATASET, urn: "${ORDERS}"}) { path } b: browsePaths(input: {type: DATASET, urn: "${REPORT}"}) { path } c: dataset(urn: "${KAFKA}") { browsePaths { path } } }`)
      expect(paths).to.deep.equal({a: [{path: ['prod', 'postgres', 'shop', 'public', 'orders']}], b: [{path: ['prod', 's3', 'custom', 'weekly']}], c: {browsePaths: [{path: ['prod', 'kafka', 'SampleKafkaDataset']}]}})
    })

    it('browses v2 paths: the container chain, the ingested browsePathsV2, and the name’s parts', async () => {
      const B = `query ($input: BrowseV2Input!) { browseV2(input: $input) { start count total groups { name count hasSubGroups entity { urn } } metadata { path totalNumEntities } } }`
      const top = (await ok(lite.url, B, {input: {types: ['DATASET'], path: []}})).browseV2
      expect(top.groups).to.have.deep.members([
        {name: DB, count: 2, hasSubGroups: true, entity: {urn: DB}},
        {name: 'reports', count: 1, hasSubGroups: true, entity: null},
        // A dataset with a one-part name and no container: DataHub's Default folder, so browsing reaches it.
        {name: 'Default', count: 1, hasSubGroups: false, entity: null},
      ])
      expect(top.metadata.totalNumEntities).to.equal(4)
      expect(top.groups.reduce((n: number, g: any) => n + g.count, 0)).to.equal(4)
      const db = (await ok(lite.url, B, {input: {types: ['DATASET'], path: [DB]}})).browseV2
      expect(db.groups).to.deep.equal([{name: SCHEMA, count: 2, hasSubGroups: false, entity: {urn: SCHEMA}}])
      const filtered = (await ok(lite.url, B, {input: {types: ['DATASET'], path: [], query: 'weekly'}})).browseV2
      expect(filtered.groups.map((g: any) => g.name)).to.deep.equal(['reports'])
      const v2 = await ok(lite.url, `{ a: dataset(urn: "${ORDERS}") { browsePathV2 { path { name entity { urn } } } } b: dataset(urn: "${REPORT}") { browsePathV2 { path { name entity { urn } } } } }`)
      expect(v2.a.browsePathV2.path).to.deep.equal([{name: DB, entity: {urn: DB}}, {name: SCHEMA, entity: {urn: SCHEMA}}])
      expect(v2.b.browsePathV2.path).to.deep.equal([{name: 'reports', entity: null}, {name: 'finance', entity: {urn: U.finance}}])
    })

    it('counts facets across entities without results (aggregateAcrossEntities)', async () => {
      const r = (await ok(lite.url, `{ aggregateAcrossEntities(input: {query: "*", types: [DATASET], facets: ["platform"]}) { facets { field aggregations { value count } } } }`)).aggregateAcrossEntities
      expect(r.facets).to.have.length(1)
      expect(r.facets[0].field).to.equal('platform')
      expect(r.facets[0].aggregations).to.have.deep.members([
        {value: 'urn:li:dataPlatform:postgres', count: 2},
        {value: 'urn:li:dataPlatform:kafka', count: 1},
        {value: 'urn:li:dataPlatform:s3', count: 1},
      ])
    })

    it('lists the glossary’s top-level terms and nodes', async () => {
      const r = await ok(lite.url, `{ getRootGlossaryTerms(input: {start: 0, count: 10}) { total terms { urn } } getRootGlossaryNodes(input: {start: 0, count: 10}) { total nodes { urn } } }`)
      expect(r.getRootGlossaryTerms).to.deep.equal({total: 1, terms: [{urn: 'urn:li:glossaryTerm:Loose'}]})
      expect(r.getRootGlossaryNodes).to.deep.equal({total: 1, nodes: [{urn: U.classification}]})
    })
  })

  describe('management mutations', () => {
    it('creates a group, renames it, and refuses a second with the same id', async () => {
      const urn = (await ok(lite.url, `mutation { createGroup(input: {id: "stewards", name: "Stewards", description: "keep data tidy"}) }`)).createGroup
      expect(urn).to.equal('urn:li:corpGroup:stewards')
      expect((await ok(lite.url, `{ corpGroup(urn: "${urn}") { info { displayName description } } }`)).corpGroup.info).to.deep.equal({displayName: 'Stewards', description: 'keep data tidy'})
      expect((await fails(lite.url, `mutation { createGroup(input: {id: "stewards", name: "Again"}) }`)).message).to.equal('This Group already exists!')
      await ok(lite.url, `mutation { updateName(input: {urn: "${urn}", name: "Data Stewards"}) }`)
      expect((await ok(lite.url, `{ corpGroup(urn: "${urn}") { info { displayName } } }`)).corpGroup.info.displayName).to.equal('Data Stewards')
    })

    it('renames glossary terms and domains, and refuses a type without a name', async () => {
      await ok(lite.url, `mutation { updateName(input: {urn: "urn:li:glossaryTerm:Loose", name: "Loose Term"}) }`)
      expect((await ok(lite.url, `{ glossaryTerm(urn: "urn:li:glossaryTerm:Loose") { properties { name definition } } }`)).glossaryTerm.properties).to.deep.equal({name: 'Loose Term', definition: 'top level'})
      await ok(lite.url, `mutation { updateName(input: {urn: "urn:li:domain:emea", name: "Europe"}) }`)
      expect((await ok(lite.url, `{ domain(urn: "urn:li:domain:emea") { properties { name } } }`)).domain.properties.name).to.equal('Europe')
      expect((await fails(lite.url, `mutation { updateName(input: {urn: "${KAFKA}", name: "x"}) }`)).message).to.match(/^updateName: entities of type dataset have no name to update/)
    })

    it('colours a tag, then deletes it and takes it off the entities that had it', async () => {
      await ok(lite.url, `mutation { setTagColor(urn: "${U.pii}", colorHex: "#00ff00") }`)
      expect((await ok(lite.url, `{ tag(urn: "${U.pii}") { properties { colorHex } } }`)).tag.properties.colorHex).to.equal('#00ff00')
      expect(await ok(lite.url, `mutation { deleteTag(urn: "${U.pii}") }`)).to.deep.equal({deleteTag: true})
      expect((await ok(lite.url, `{ tag(urn: "${U.pii}") { urn exists } }`)).tag?.exists ?? false).to.equal(false)
      expect((await ok(lite.url, `{ dataset(urn: "${KAFKA}") { tags { tags { tag { urn } } } } }`)).dataset.tags?.tags ?? []).to.deep.equal([])
      expect((await fails(lite.url, `mutation { setTagColor(urn: "urn:li:tag:never", colorHex: "#000000") }`)).message).to.equal('Failed to set Tag urn:li:tag:never color. Tag does not exist.')
    })

    it('deletes a domain without sub-domains only, unsetting it on its entities', async () => {
      expect((await fails(lite.url, `mutation { deleteDomain(urn: "${U.marketing}") }`)).message).to.equal(`Cannot delete domain ${U.marketing} which has child domains`)
      await ok(lite.url, `mutation { deleteDomain(urn: "urn:li:domain:emea") }`)
      await ok(lite.url, `mutation { deleteDomain(urn: "${U.marketing}") }`)
      expect((await ok(lite.url, `{ dataset(urn: "${KAFKA}") { domain { domain { urn } } } }`)).dataset.domain).to.equal(null)
    })

    it('changes one link’s url and label, naming a link that is not there', async () => {
      await ok(lite.url, `mutation { addLink(input: {linkUrl: "https://wiki.example/a", label: "wiki", resourceUrn: "${ORDERS}"}) }`)
      await ok(lite.url, `mutation { updateLink(input: {resourceUrn: "${ORDERS}", currentUrl: "https://wiki.example/a", currentLabel: "wiki", linkUrl: "https://wiki.example/b", label: "new wiki"}) }`)
      const els = (await ok(lite.url, `{ dataset(urn: "${ORDERS}") { institutionalMemory { elements { url description } } } }`)).dataset.institutionalMemory.elements
      expect(els).to.deep.equal([{url: 'https://wiki.example/b', description: 'new wiki'}])
      const e = await fails(lite.url, `mutation { updateLink(input: {resourceUrn: "${ORDERS}", currentUrl: "https://wiki.example/a", currentLabel: "wiki", linkUrl: "https://x.example", label: "x"}) }`)
      expect(e.message).to.equal(`Failed to update link of ${ORDERS}: it has no link https://wiki.example/a labelled "wiki"`)
    })
  })
})
