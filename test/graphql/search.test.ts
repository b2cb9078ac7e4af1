/**
 * Search against a real `mdcli lite` holding more than 10,000 datasets: pagination up to the
 * result window and the 400 beyond it, scrolling every match while writes go on, ranking,
 * full text over every searchable part of an entity, facets and filters, soft deletion, and the
 * window as a server setting.
 */
import {expect} from 'chai'
import {cleanup, type LiteProcess, startLite, TEST_STORE} from '../helpers/lite.js'
import {dataset, ds, fails, ingest, mcp, type Mcp, ok, schema, U} from './helpers.js'

const BULK = 10_050

const bulk = (i: number) => ds(`bulk.item_${String(i).padStart(5, '0')}`)

function bulkProposals(from: number, to: number): Mcp[] {
  const out: Mcp[] = []
  for (let i = from; i < to; i++) out.push(mcp(bulk(i), 'datasetProperties', {name: `bulk item ${i}`, description: 'one of many bulk rows'}))
  return out
}

const SEARCH = `query ($input: SearchInput!) { search(input: $input) { start count total searchResults { entity { urn type ... on Dataset { name } } } } }`
const SCROLL = `query ($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { nextScrollId count total searchResults { entity { urn } } } }`
const ACROSS = `query ($input: SearchAcrossEntitiesInput!) {
  searchAcrossEntities(input: $input) { total searchResults { entity { urn type } } facets { field displayName aggregations { value count entity { urn } } } }
}`

describe('graphql: search', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  const urnsOf = (r: any) => r.searchResults.map((x: any) => x.entity.urn)
  const search = async (input: Record<string, unknown>) => (await ok(lite.url, SEARCH, {input: {type: 'DATASET', ...input}})).search

  before(async () => {
    lite = await startLite()
    await ingest(lite.url, bulkProposals(0, BULK), 2000)
    await ingest(lite.url, [
      mcp(U.jdoe, 'corpUserInfo', {active: true}),
      mcp(U.pii, 'tagProperties', {name: 'pii'}),
      mcp('urn:li:tag:okapi', 'tagProperties', {name: 'okapi', description: 'a tag with a rare name'}),
      mcp('urn:li:glossaryTerm:Wombat', 'glossaryTermInfo', {definition: 'a rare term', termSource: 'INTERNAL'}),
      mcp('urn:li:corpuser:quokka', 'corpUserInfo', {active: true, displayName: 'Quokka Q'}),
      mcp(U.marketing, 'domainProperties', {name: 'Marketing'}),
      mcp(ds('rank.revenue'), 'datasetProperties', {name: 'revenue', description: 'money in'}),
      mcp(ds('rank.sales'), 'datasetProperties', {name: 'sales', description: 'weekly sales figures and the revenue they bring'}),
      mcp(ds('rank.twin_a'), 'datasetProperties', {name: 'twin', description: 'identical twin table'}),
      mcp(ds('rank.twin_b'), 'datasetProperties', {name: 'twin', description: 'identical twin table'}),
      mcp(ds('find.me'), 'datasetProperties', {name: 'findme', description: 'nothing special'}),
      mcp(ds('find.me'), 'schemaMetadata', schema('find.me', [{fieldPath: 'giraffe_count', nullable: false, type: {type: {'com.linkedin.schema.NumberType': {}}}, nativeDataType: 'int'}])),
      mcp(ds('find.me'), 'domains', {domains: [U.marketing]}),
      ...dataset('soft.gone'),
      ...dataset('soft.child', {extra: [mcp(ds('soft.child'), 'container', {container: 'urn:li:container:softparent'})]}),
      mcp('urn:li:container:softparent', 'containerProperties', {name: 'softparent'}),
    ])
  })
  after(async () => {
    await lite?.stop()
    if (lite) cleanup(lite.storeDir, lite.home)
  })

  describe('pagination and the result window', () => {
    it('pages up to the 10,000 window edge and refuses a page past it with a 400 that says how to go on', async () => {
      const edge = await search({query: 'bulk', start: 9990, count: 10})
      expect(edge).to.include({start: 9990, count: 10})
      // PostgreSQL counts exactly up to 10,000 matches and estimates beyond (its planner's statistics).
      if (TEST_STORE === 'postgres') expect(edge.total).to.be.within(10_001, BULK * 1.2)
      else expect(edge.total).to.equal(BULK)
      expect(edge.searchResults).to.have.length(10)
      const e = await fails(lite.url, SEARCH, {input: {type: 'DATASET', query: 'bulk', start: 9991, count: 10}})
      expect(e.message).to.equal(
        'Result window is too large: start + count = 10001 is over the maximum result window of 10000. Use scrollAcrossEntities to page through every result, or raise the window (environment variable MDCLI_SEARCH_MAX_RESULT_WINDOW, or mdcli lite --max-result-window).',
      )
      expect(e.extensions).to.deep.equal({code: 400, type: 'BAD_REQUEST', classification: 'DataFetchingException'})
      expect(e.path).to.deep.equal(['search'])
      expect((await fails(lite.url, SEARCH, {input: {type: 'DATASET', query: '*', count: 10_001}})).message).to.equal('count must be between 0 and 10000, got 10001')
    })

    it('pages without overlap or gap, with DataHub’s defaults (start 0, count 10)', async () => {
      const whole = urnsOf(await search({query: 'bulk', start: 0, count: 300}))
      const pages = [...urnsOf(await search({query: 'bulk', start: 0, count: 100})), ...urnsOf(await search({query: 'bulk', start: 100, count: 100})), ...urnsOf(await search({query: 'bulk', start: 200, count: 100}))]
      expect(pages).to.deep.equal(whole)
      expect(new Set(whole).size).to.equal(300)
      const def = await search({query: 'bulk'})
      expect(def).to.include({start: 0, count: 10})
      expect(urnsOf(def)).to.deep.equal(whole.slice(0, 10))
    })

    it('lists every entity of the type for * and for an empty query', async () => {
      const star = await search({query: '*', count: 0})
      const empty = await search({query: '', count: 0})
      expect(star.total).to.equal(empty.total)
      // PostgreSQL counts a listing exactly up to 10,000 and estimates beyond (its planner's statistics).
      expect(star.total).to.be.greaterThan(TEST_STORE === 'postgres' ? 10_000 : BULK)
      // Across types, * lists every entity of each type once (in id order), pages without overlap.
      const count = async (type: string) => (await ok(lite.url, SEARCH, {input: {type, query: '*', count: 0}})).search.total
      const both = async (start: number, n: number) => (await ok(lite.url, ACROSS, {input: {types: ['TAG', 'CORP_USER'], query: '*', start, count: n}})).searchAcrossEntities
      const whole = await both(0, 100)
      expect(whole.total).to.equal((await count('TAG')) + (await count('CORP_USER')))
      expect(urnsOf(whole)).to.include.members([U.pii, 'urn:li:tag:okapi', U.jdoe, 'urn:li:corpuser:quokka'])
      expect([...urnsOf(await both(0, 2)), ...urnsOf(await both(2, 100))]).to.deep.equal(urnsOf(whole))
    })
  })

  describe('scrolling', () => {
    it('walks every match past the window, skipping and repeating none while writes go on', async () => {
      let round = 0
      // New matching datasets, and edits (which re-index an entity) to entities both behind and
      // ahead of the cursor.
      const writeRound = async () => {
        const r = round++
        await ingest(lite.url, bulkProposals(BULK + r * 25, BULK + (r + 1) * 25))
        const targets = [r * 7, 9_999 - r * 13, 5_000 + r].map((i) => `{resourceUrn: "${bulk(i)}"}`).join(', ')
        await ok(lite.url, `mutation { batchAddTags(input: {tagUrns: ["${U.pii}"], resources: [${targets}]}) }`)
      }
      const seen: string[] = []
      let scrollId: string | null = null
      let pages = 0
      let racing: Promise<void> = Promise.resolve()
      do {
        const request = ok(lite.url, SCROLL, {input: {types: ['DATASET'], query: 'bulk', count: 1000, ...(scrollId ? {scrollId} : {})}})
        // One write round races each page request; another completes between pages.
        const [data] = await Promise.all([request, racing])
        const page = data.scrollAcrossEntities
        seen.push(...urnsOf(page))
        scrollId = page.nextScrollId
        pages++
        await writeRound()
        racing = writeRound()
      } while (scrollId && pages < 100)
      await racing
      expect(round).to.be.greaterThan(10)
      expect(new Set(seen).size, 'no entity repeated').to.equal(seen.length)
      const seenSet = new Set(seen)
      const missed = Array.from({length: BULK}, (_, i) => bulk(i)).filter((u) => !seenSet.has(u))
      expect(missed, 'no entity that existed throughout skipped').to.deep.equal([])
      expect(pages).to.be.greaterThan(10)
    })

    it('scrolls in name order when asked to (the web app’s domains and glossary pages sort by _entityName)', async () => {
      const SORTED = `query ($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { nextScrollId count total searchResults { entity { urn ... on Dataset { properties { name } } } } } }`
      const sortInput = {sortCriteria: [{field: '_entityName', sortOrder: 'DESCENDING'}]}
      const names: string[] = []
      let scrollId: string | null = null
      let total = 0
      do {
        const page: any = (await ok(lite.url, SORTED, {input: {types: ['DATASET'], query: 'rank', count: 2, sortInput, scrollId}})).scrollAcrossEntities
        names.push(...page.searchResults.map((r: any) => r.entity.properties.name))
        total = page.total
        scrollId = page.nextScrollId
      } while (scrollId)
      expect(names).to.deep.equal(['twin', 'twin', 'sales', 'revenue'])
      expect(total).to.equal(4)
      // The cursor belongs to its sort.
      const first = (await ok(lite.url, SORTED, {input: {types: ['DATASET'], query: 'rank', count: 2, sortInput}})).scrollAcrossEntities
      const e = await fails(lite.url, SCROLL, {input: {types: ['DATASET'], query: 'rank', count: 2, scrollId: first.nextScrollId}})
      expect(e.message).to.match(/^This scrollId belongs to a different query/)
    })

    it('refuses a scrollId presented with another query, and a garbled one', async () => {
      const first = (await ok(lite.url, SCROLL, {input: {query: 'bulk', count: 5}})).scrollAcrossEntities
      expect(first.nextScrollId).to.be.a('string')
      const e = await fails(lite.url, SCROLL, {input: {query: 'twin', count: 5, scrollId: first.nextScrollId}})
      expect(e.message).to.equal('This scrollId belongs to a different query (types, query, filters, flags or sort changed); omit scrollId to start a new scroll')
      expect(e.extensions?.code).to.equal(400)
      const e2 = await fails(lite.url, SCROLL, {input: {query: 'bulk', count: 5, scrollId: 'not-a-cursor'}})
      expect(e2.message).to.match(/^Invalid scrollId/)
    })
  })

  describe('relevance and full text', () => {
    it('ranks a name match above a description match, and keeps ties in a stable order', async () => {
      expect(urnsOf(await search({query: 'revenue'}))).to.deep.equal([ds('rank.revenue'), ds('rank.sales')])
      // Every word must match.
      expect(urnsOf(await search({query: 'revenue money'}))).to.deep.equal([ds('rank.revenue')])
      const once = urnsOf(await search({query: 'twin'}))
      expect(once).to.have.members([ds('rank.twin_a'), ds('rank.twin_b')])
      for (let i = 0; i < 3; i++) expect(urnsOf(await search({query: 'twin'}))).to.deep.equal(once)
    })

    it('finds entities by edited description, tag, glossary term, owner and column field path', async () => {
      const me = ds('find.me')
      await ok(lite.url, `mutation { updateDataset(urn: "${me}", input: {editableProperties: {description: "home of the platypus"}}) { urn } }`)
      await ok(lite.url, `mutation { addTags(input: {tagUrns: ["urn:li:tag:okapi"], resourceUrn: "${me}"}) }`)
      await ok(lite.url, `mutation { addTerms(input: {termUrns: ["urn:li:glossaryTerm:Wombat"], resourceUrn: "${me}"}) }`)
      await ok(lite.url, `mutation { addOwners(input: {owners: [{ownerUrn: "urn:li:corpuser:quokka", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resourceUrn: "${me}"}) }`)
      for (const word of ['platypus', 'okapi', 'wombat', 'quokka', 'giraffe']) expect(urnsOf(await search({query: word})), word).to.deep.equal([me])
    })

    it('finds an entity by its whole urn pasted as the query, within the type and filters asked', async () => {
      const me = ds('rank.revenue')
      expect(urnsOf(await search({query: me}))).to.deep.equal([me])
      expect(urnsOf(await search({query: `  ${me} `}))).to.deep.equal([me])
      // The type and the filters still apply; an urn no entity has finds nothing.
      expect((await search({type: 'TAG', query: me})).total).to.equal(0)
      expect((await search({query: me, orFilters: [{and: [{field: 'platform', values: ['urn:li:dataPlatform:nope']}]}]})).total).to.equal(0)
      expect((await search({query: ds('rank.nothing_here')})).total).to.equal(0)
      const across = (await ok(lite.url, ACROSS, {input: {query: 'urn:li:tag:okapi'}})).searchAcrossEntities
      expect(across.searchResults.map((x: any) => x.entity.urn)).to.deep.equal(['urn:li:tag:okapi'])
      // A simple urn followed by words is a query of words, as before.
      expect((await search({query: 'urn:li:tag:okapi revenue'})).total).to.equal(0)
    })
  })

  describe('searchAcrossEntities', () => {
    it('searches every type when none is named, with facets by type, platform, tag, domain and owner', async () => {
      const r = (await ok(lite.url, ACROSS, {input: {query: 'okapi'}})).searchAcrossEntities
      expect(r.searchResults.map((x: any) => [x.entity.type, x.entity.urn])).to.have.deep.members([
        ['DATASET', ds('find.me')],
        ['TAG', 'urn:li:tag:okapi'],
      ])
      const facet = (f: string) => r.facets.find((x: any) => x.field === f)
      expect(facet('_entityType')).to.deep.equal({field: '_entityType', displayName: 'Type', aggregations: [{value: 'DATASET', count: 1, entity: null}, {value: 'TAG', count: 1, entity: null}]})
      // Again under `entity`, as DataHub's search service answers it (the web app's tag page reads it).
      expect(facet('entity')).to.deep.equal({field: 'entity', displayName: 'Type', aggregations: [{value: 'DATASET', count: 1, entity: null}, {value: 'TAG', count: 1, entity: null}]})
      expect(facet('platform').aggregations).to.deep.equal([{value: U.hive, count: 1, entity: {urn: U.hive}}])
      expect(facet('tags').aggregations).to.deep.equal([{value: 'urn:li:tag:okapi', count: 1, entity: {urn: 'urn:li:tag:okapi'}}])
      expect(facet('domains').aggregations).to.deep.equal([{value: U.marketing, count: 1, entity: {urn: U.marketing}}])
      expect(facet('owners').aggregations).to.deep.equal([{value: 'urn:li:corpuser:quokka', count: 1, entity: {urn: 'urn:li:corpuser:quokka'}}])
    })

    it('counts a DataHub type mdcli does not store as empty, as the web app asks it (DATA_CONTRACT), instead of failing the search', async () => {
      const both = (await ok(lite.url, ACROSS, {input: {query: 'okapi', types: ['DATASET', 'TAG', 'DATA_CONTRACT']}})).searchAcrossEntities
      expect(both.searchResults.map((x: any) => x.entity.urn)).to.have.members([ds('find.me'), 'urn:li:tag:okapi'])
      const none = (await ok(lite.url, ACROSS, {input: {query: '*', types: ['DATA_CONTRACT']}})).searchAcrossEntities
      expect(none.total).to.equal(0)
      expect(none.searchResults).to.deep.equal([])
      expect((await ok(lite.url, SEARCH, {input: {type: 'DATA_CONTRACT', query: '*'}})).search.total).to.equal(0)
    })

    it('filters on facets with orFilters (an OR of AND groups) and the older filters', async () => {
      const tagsOnly = (await ok(lite.url, ACROSS, {input: {query: '*', count: 100, orFilters: [{and: [{field: '_entityType', values: ['TAG']}]}]}})).searchAcrossEntities
      expect(tagsOnly.searchResults.map((x: any) => x.entity.urn)).to.have.members([U.pii, 'urn:li:tag:okapi'])
      const either = (await ok(lite.url, ACROSS, {input: {types: ['DATASET'], query: '*', orFilters: [{and: [{field: 'tags', values: ['urn:li:tag:okapi']}]}, {and: [{field: 'domains', values: [U.marketing]}, {field: 'platform', values: ['urn:li:dataPlatform:nope']}]}]}})).searchAcrossEntities
      expect(either.searchResults.map((x: any) => x.entity.urn)).to.deep.equal([ds('find.me')])
      const old = (await ok(lite.url, ACROSS, {input: {types: ['DATASET'], query: 'twin', filters: [{field: 'platform', value: U.hive}, {field: 'tags', values: [U.pii], negated: true}]}})).searchAcrossEntities
      expect(old.total).to.equal(2)
      // A field no document holds matches nothing and, negated, everything — as in DataHub's
      // Elasticsearch — so the SDK's env filter (origin, customProperties or env) works.
      const none = (await ok(lite.url, ACROSS, {input: {query: '*', orFilters: [{and: [{field: 'colour', values: ['red']}]}]}})).searchAcrossEntities
      expect(none.total).to.equal(0)
      const all = (await ok(lite.url, ACROSS, {input: {types: ['DATASET'], query: 'twin', orFilters: [{and: [{field: 'colour', values: ['red'], negated: true}]}]}})).searchAcrossEntities
      expect(all.total).to.equal(2)
      const env = ['origin', 'customProperties', 'customProperties', 'env'].map((field, i) => ({and: [{field, value: i === 1 ? 'env=PROD' : i === 2 ? 'instance=PROD' : 'PROD'}]}))
      const byEnv = (await ok(lite.url, ACROSS, {input: {types: ['DATASET'], query: 'twin', orFilters: env}})).searchAcrossEntities
      expect(byEnv.searchResults.map((x: any) => x.entity.urn)).to.have.members([ds('rank.twin_a'), ds('rank.twin_b')])
      // A filter on no values matches nothing (DataHub's terms query on an empty list), and negated everything.
      const noValues = (await ok(lite.url, ACROSS, {input: {query: '*', orFilters: [{and: [{field: 'urn', values: []}]}]}})).searchAcrossEntities
      expect(noValues.total).to.equal(0)
      const notNoValues = (await ok(lite.url, ACROSS, {input: {types: ['DATASET'], query: 'twin', orFilters: [{and: [{field: 'platform', values: [], negated: true}]}]}})).searchAcrossEntities
      expect(notNoValues.total).to.equal(2)
    })

    it('filters a dataset by the platform and environment its urn names, whatever a key aspect written later says', async () => {
      // DataHub stores a key aspect as sent (one of its own golden files has a dashboard key
      // naming another id than its urn), so the urn decides what the entity is filtered as.
      const liar = ds('key.liar')
      await ingest(lite.url, [mcp(liar, 'datasetProperties', {name: 'keyliar'}), mcp(liar, 'datasetKey', {platform: 'urn:li:dataPlatform:kafka', name: 'other.name', origin: 'DEV'})])
      const by = async (field: string, value: string) =>
        (await ok(lite.url, ACROSS, {input: {types: ['DATASET'], query: 'keyliar', orFilters: [{and: [{field, values: [value]}]}]}})).searchAcrossEntities.searchResults.map((x: any) => x.entity.urn)
      expect(await by('platform', U.hive)).to.deep.equal([liar])
      expect(await by('origin', 'PROD')).to.deep.equal([liar])
      expect(await by('platform', 'urn:li:dataPlatform:kafka')).to.deep.equal([])
      expect(await by('origin', 'DEV')).to.deep.equal([])
      const page = await ok(lite.url, `{ dataset(urn: "${liar}") { platform { urn } origin } }`)
      expect(page.dataset).to.deep.equal({platform: {urn: U.hive}, origin: 'PROD'})
    })

    it('lists the entities of a domain', async () => {
      const d = await ok(lite.url, `{ domain(urn: "${U.marketing}") { entities(input: {query: "*"}) { total searchResults { entity { urn } } } } }`)
      expect(d.domain.entities).to.deep.equal({total: 1, searchResults: [{entity: {urn: ds('find.me')}}]})
    })
  })

  describe('soft deletion', () => {
    const SOFT = `query ($q: String!, $inc: Boolean) { searchAcrossEntities(input: {query: $q, count: 50, searchFlags: {includeSoftDeleted: $inc}}) { searchResults { entity { urn } } } }`
    const found = async (q: string, inc = false) => (await ok(lite.url, SOFT, {q, inc})).searchAcrossEntities.searchResults.map((x: any) => x.entity.urn)

    it('hides soft-deleted entities from search, keeps them readable by urn, never touches children, and restores them', async () => {
      const gone = ds('soft.gone')
      const child = ds('soft.child')
      const parent = 'urn:li:container:softparent'
      expect(await found('soft')).to.include.members([gone, child])
      await ok(lite.url, `mutation { batchUpdateSoftDeleted(input: {urns: ["${gone}", "${parent}"], deleted: true}) }`)
      const after = await found('soft')
      expect(after).not.to.include(gone)
      expect(after).to.include(child)
      expect(await found('softparent')).to.deep.equal([])
      expect(await found('soft', true)).to.include.members([gone, child])
      const read = await ok(lite.url, `{ dataset(urn: "${gone}") { urn status { removed } } child: dataset(urn: "${child}") { status { removed } container { urn status { removed } } } }`)
      expect(read).to.deep.equal({dataset: {urn: gone, status: {removed: true}}, child: {status: null, container: {urn: parent, status: {removed: true}}}})
      await ok(lite.url, `mutation { batchUpdateSoftDeleted(input: {urns: ["${gone}"], deleted: false}) }`)
      expect(await found('soft')).to.include(gone)
      expect((await ok(lite.url, `{ dataset(urn: "${gone}") { status { removed } } }`)).dataset.status).to.deep.equal({removed: false})
    })

    it('a filter on removed decides by itself: removed = true finds the soft-deleted (the SDK’s ONLY_SOFT_DELETED)', async () => {
      const gone = ds('soft.gone')
      await ok(lite.url, `mutation { batchUpdateSoftDeleted(input: {urns: ["${gone}"], deleted: true}) }`)
      try {
        const only = async (negated: boolean) =>
          (await ok(lite.url, ACROSS, {input: {types: ['DATASET'], query: 'soft', count: 50, orFilters: [{and: [{field: 'removed', values: ['true'], negated}]}]}})).searchAcrossEntities.searchResults.map((x: any) => x.entity.urn)
        expect(await only(false)).to.deep.equal([gone])
        expect(await only(true)).to.include(ds('soft.child')).and.not.include(gone)
        const scroll = (await ok(lite.url, SCROLL, {input: {types: ['DATASET'], query: 'soft', count: 50, orFilters: [{and: [{field: 'removed', values: ['true']}]}]}})).scrollAcrossEntities
        expect(scroll.searchResults.map((x: any) => x.entity.urn)).to.deep.equal([gone])
      } finally {
        await ok(lite.url, `mutation { batchUpdateSoftDeleted(input: {urns: ["${gone}"], deleted: false}) }`)
      }
    })

    it('soft-deletes all or nothing, naming an urn that does not exist', async () => {
      const e = await fails(lite.url, `mutation { batchUpdateSoftDeleted(input: {urns: ["${ds('soft.gone')}", "${ds('soft.ghost')}"], deleted: true}) }`)
      expect(e.message).to.equal(`Failed to soft delete entity with urn ${ds('soft.ghost')}. Entity does not exist.`)
      expect(e.extensions?.code).to.equal(400)
      expect(await found('soft')).to.include(ds('soft.gone'))
    })
  })

  describe('the result window is a server setting', () => {
    const small = async (lite2: LiteProcess) => ingest(lite2.url, Array.from({length: 60}, (_, i) => mcp(ds(`w.t${i}`), 'datasetProperties', {name: `w ${i}`})))

    it('follows --max-result-window, and scrolling still reaches everything', async () => {
      const l = await startLite({args: ['--max-result-window', '50']})
      try {
        await small(l)
        expect((await ok(l.url, SEARCH, {input: {type: 'DATASET', query: '*', start: 45, count: 5}})).search.count).to.equal(5)
        const e = await fails(l.url, SEARCH, {input: {type: 'DATASET', query: '*', start: 46, count: 5}})
        expect(e.message).to.contain('start + count = 51 is over the maximum result window of 50')
        const seen: string[] = []
        let scrollId: string | null = null
        do {
          const p: any = (await ok(l.url, SCROLL, {input: {types: ['DATASET'], query: '*', count: 25, ...(scrollId ? {scrollId} : {})}})).scrollAcrossEntities
          seen.push(...p.searchResults.map((x: any) => x.entity.urn))
          scrollId = p.nextScrollId
        } while (scrollId)
        expect(new Set(seen).size).to.equal(60)
      } finally {
        await l.stop()
        cleanup(l.storeDir, l.home)
      }
    })

    it('follows MDCLI_SEARCH_MAX_RESULT_WINDOW', async () => {
      const l = await startLite({env: {MDCLI_SEARCH_MAX_RESULT_WINDOW: '20'}})
      try {
        await small(l)
        const e = await fails(l.url, SEARCH, {input: {type: 'DATASET', query: '*', start: 15, count: 10}})
        expect(e.message).to.contain('start + count = 25 is over the maximum result window of 20')
      } finally {
        await l.stop()
        cleanup(l.storeDir, l.home)
      }
    })
  })
})
