/**
 * The search conformance suite: every SearchIndex implementation (the embedded store's thread,
 * PostgreSQL's full text, the in-thread index) runs these tests unchanged, fed items as a caller
 * feeds them: an entity's search id, urn, type and the JSON text of the aspects search reads.
 *
 * `factory()` gives a fresh empty index; `cleanup` releases it.
 */
import {expect} from 'chai'
import {keyAspectOf} from '../../src/model/registry.js'
import type {IndexItem, SearchIndex, SearchRequest} from '../../src/store/types.js'

export interface SearchHarness {
  index: SearchIndex
  cleanup(): Promise<void>
}

const DS = (n: string, platform = 'hive', env = 'PROD') => `urn:li:dataset:(urn:li:dataPlatform:${platform},${n},${env})`
const typeOf = (urn: string) => urn.split(':')[2]!

/** An entity with these aspect values (given as objects, fed as text) and its key aspect, as a store feeds it. */
export function item(id: number, urn: string, aspects: Record<string, unknown>): IndexItem {
  const key = keyAspectOf(urn)
  const all = {[key.name]: key.value, ...aspects}
  return {id, urn, type: typeOf(urn), aspects: Object.fromEntries(Object.entries(all).map(([k, v]) => [k, JSON.stringify(v)]))}
}

const gone = (id: number, urn: string): IndexItem => ({id, urn, type: typeOf(urn), aspects: null})
const props = (name: string, description = '') => ({datasetProperties: {name, description}})
const tags = (...t: string[]) => ({tags: t.map((x) => ({tag: `urn:li:tag:${x}`}))})
const owners = (...o: string[]) => ({owners: o.map((x) => ({owner: `urn:li:corpuser:${x}`, type: 'DATAOWNER'}))})

export function searchConformance(name: string, factory: () => Promise<SearchHarness>): void {
  describe(`SearchIndex conformance: ${name}`, function () {
    this.timeout(60_000)
    let h: SearchHarness
    let index: SearchIndex
    beforeEach(async () => {
      h = await factory()
      index = h.index
    })
    afterEach(async () => h.cleanup())

    const urns = async (req: Partial<SearchRequest> & {query: string}) => (await index.query({types: ['dataset'], ...req})).hits.map((x) => x.urn)

    it('splits names into words at camelCase, digits and snake_case, and finds them whole or by their parts', async () => {
      const KAFKA = DS('SampleKafkaDataset', 'kafka')
      const SNAKE = DS('shop.customer_orders_2024')
      await index.apply([item(1, KAFKA, props('SampleKafkaDataset', 'events about each customer')), item(2, SNAKE, props('customer_orders_2024', 'daily'))])
      for (const q of ['SampleKafkaDataset', 'samplekafkadataset', 'sample', 'Kafka Dataset', 'SampleKafka']) expect(await urns({query: q}), q).to.include(KAFKA)
      for (const q of ['customer_orders_2024', 'orders', '2024', 'customer orders', 'orders 2024', 'shop']) expect(await urns({query: q}), q).to.include(SNAKE)
      expect(await urns({query: 'orders'})).to.deep.equal([SNAKE])
      expect(await urns({query: 'SampleKafkaDatasetX'})).to.deep.equal([])
    })

    it('takes a NUL in the query as a space between words, as in the documents', async () => {
      await index.apply([item(1, DS('nul.doc'), props('nuldoc', 'zeta omega')), item(2, DS('nul.other'), props('other', 'zetaomega'))])
      expect(await urns({query: 'zeta\u0000omega'})).to.deep.equal([DS('nul.doc')])
    })

    it('takes the last query word as a prefix from three letters, and no other', async () => {
      await index.apply([item(1, DS('kw.one'), props('kafkaesque', 'third')), item(2, DS('kw.two'), props('other', 'kafka'))])
      expect(await urns({query: 'kafkaes'})).to.deep.equal([DS('kw.one')])
      expect((await urns({query: 'kaf'})).sort()).to.deep.equal([DS('kw.one'), DS('kw.two')].sort())
      expect(await urns({query: 'ka'})).to.deep.equal([])
      expect(await urns({query: 'third kafkaes'})).to.deep.equal([DS('kw.one')])
      expect(await urns({query: 'kafkaes third'})).to.deep.equal([])
      expect(await urns({query: 'kafkaes kw'})).to.deep.equal([])
    })

    it('ranks the exact name first, then a word in the name, then text only; ties by the older id', async () => {
      // Fed out of id order: the id, not the order of arrival, breaks ties.
      await index.apply([
        item(4, DS('rk.four'), props('beta', 'zeta again')),
        item(1, DS('rk.one'), props('alpha', 'zeta mentioned here')),
        item(3, DS('rk.three'), props('Zeta', 'other')),
        item(2, DS('rk.two'), props('zeta orders', 'other')),
      ])
      expect(await urns({query: 'zeta'})).to.deep.equal([DS('rk.three'), DS('rk.two'), DS('rk.one'), DS('rk.four')])
      expect(await urns({query: 'ZETA'})).to.deep.equal([DS('rk.three'), DS('rk.two'), DS('rk.one'), DS('rk.four')])
    })

    it('pages a ranked result with its total, and answers past the end with no hits', async () => {
      await index.apply(Array.from({length: 9}, (_, i) => item(i + 1, DS(`pg${i}`), props(`pg${i}`, 'paged'))))
      const page = await index.query({types: ['dataset'], query: 'paged', start: 3, count: 4})
      expect(page.total).to.equal(9)
      expect(page.hits.map((x) => x.urn)).to.deep.equal([3, 4, 5, 6].map((i) => DS(`pg${i}`)))
      expect((await index.query({types: ['dataset'], query: 'paged', start: 20, count: 4})).hits).to.deep.equal([])
      const all = await index.query({types: ['dataset'], query: '*', count: 0})
      expect(all.total).to.equal(9)
      expect(all.hits).to.deep.equal([])
    })

    it('walks every match with the scroll cursor: each once, the total on every page, null after the last', async () => {
      const n = 30
      await index.apply(Array.from({length: n}, (_, i) => item(i + 1, DS(`w${String(i).padStart(2, '0')}`), props(`w${i}`, 'walk'))))
      const seen: string[] = []
      let after: string | null = null
      for (let pages = 0; pages < 20; pages++) {
        const r = await index.query({types: ['dataset'], query: 'walk', count: 7, after})
        expect(r.total).to.equal(n)
        seen.push(...r.hits.map((x) => x.urn))
        after = r.next ?? null
        if (after === null) break
      }
      expect(after).to.equal(null)
      expect(seen).to.have.length(n)
      expect(new Set(seen).size).to.equal(n)
    })

    describe('filters and facets', () => {
      const F1 = DS('fx.orders')
      const F2 = DS('fx.refunds')
      const F3 = DS('fx.clicks', 'kafka', 'DEV')
      const CH = 'urn:li:chart:(looker,fx-orders-chart)'
      beforeEach(async () => {
        await index.apply([
          item(1, F1, {...props('fx_orders', 'daily orders'), globalTags: tags('pii', 'gold'), ownership: owners('alice')}),
          item(2, F2, {...props('fx_refunds', 'orders refunded'), globalTags: tags('pii'), ownership: owners('bob')}),
          item(3, F3, {...props('fx_clicks', 'click orders stream'), ownership: owners('alice', 'bob')}),
          item(4, CH, {chartInfo: {title: 'Orders chart', description: 'orders by day'}}),
        ])
      })

      it('counts facets over every match, most frequent first then by value, whatever the page', async () => {
        const r = await index.query({query: 'orders', facets: ['_entityType', 'platform', 'origin', 'tags', 'owners'], count: 1})
        expect(r.total).to.equal(4)
        expect(r.hits).to.have.length(1)
        expect(r.facets!._entityType).to.deep.equal([{value: 'dataset', count: 3}, {value: 'chart', count: 1}])
        expect(r.facets!.origin).to.deep.equal([{value: 'PROD', count: 2}, {value: 'DEV', count: 1}])
        expect(r.facets!.tags).to.deep.equal([{value: 'urn:li:tag:pii', count: 2}, {value: 'urn:li:tag:gold', count: 1}])
        expect(r.facets!.owners).to.deep.equal([{value: 'urn:li:corpuser:alice', count: 2}, {value: 'urn:li:corpuser:bob', count: 2}])
        expect((await index.query({query: 'nothingmatches', facets: ['tags']})).facets!.tags).to.deep.equal([])
      })

      it('filters by an OR of AND groups, negated too, by urn and by type', async () => {
        const q = async (filters: SearchRequest['filters']) => (await urns({query: 'orders', filters})).sort()
        expect(await q([[{field: 'tags', values: ['urn:li:tag:pii']}, {field: 'owners', values: ['urn:li:corpuser:bob']}]])).to.deep.equal([F2])
        expect(await q([[{field: 'tags', values: ['urn:li:tag:gold']}], [{field: 'origin', values: ['DEV']}]])).to.deep.equal([F1, F3].sort())
        expect(await q([[{field: 'tags', values: ['urn:li:tag:pii'], negated: true}]])).to.deep.equal([F3])
        expect(await q([[{field: 'urn', values: [F2]}]])).to.deep.equal([F2])
        expect(await q([[{field: 'noSuchField', values: ['x']}]])).to.deep.equal([])
        // The display name, exactly (the SDK finds a domain by it); a NUL in a value matches nothing.
        expect(await q([[{field: 'name', values: ['fx_refunds']}]])).to.deep.equal([F2])
        expect(await q([[{field: 'name', values: ['fx_Refunds']}]])).to.deep.equal([])
        expect(await q([[{field: 'name', values: ['fx_refunds'], negated: true}]])).to.deep.equal([F1, F3].sort())
        expect(await q([[{field: 'platform', values: ['urn:li:dataPlatform:hi\u0000ve']}]])).to.deep.equal([])
        const charts = await index.query({query: '*', filters: [[{field: '_entityType', values: ['chart']}]]})
        expect(charts.hits.map((x) => x.urn)).to.deep.equal([CH])
      })
    })

    it('takes deleted entities out, and an entity created again under a new id is found once', async () => {
      await index.apply([item(1, DS('del.a'), props('del_a', 'first')), item(2, DS('del.b'), props('del_b', 'first'))])
      await index.apply([gone(1, DS('del.a'))])
      expect(await urns({query: 'first'})).to.deep.equal([DS('del.b')])
      // Deleted and written again in one feed: the old id leaves, the new one enters.
      await index.apply([gone(2, DS('del.b')), item(3, DS('del.b'), props('del_b', 'second'))])
      expect(await urns({query: 'first'})).to.deep.equal([])
      expect(await urns({query: 'second'})).to.deep.equal([DS('del.b')])
      // A later document of the same id replaces the earlier one.
      await index.apply([item(3, DS('del.b'), props('del_b', 'third'))])
      expect(await urns({query: 'second'})).to.deep.equal([])
      expect(await urns({query: 'third'})).to.deep.equal([DS('del.b')])
    })

    it('hides soft-deleted entities unless asked, and shows them again once restored', async () => {
      await index.apply([item(1, DS('soft'), {...props('soft', 'hidden'), status: {removed: true}}), item(2, DS('kept'), props('kept', 'hidden'))])
      expect(await urns({query: 'hidden'})).to.deep.equal([DS('kept')])
      expect((await urns({query: 'hidden', includeSoftDeleted: true})).sort()).to.deep.equal([DS('kept'), DS('soft')].sort())
      expect((await index.query({types: ['dataset'], query: '*', filters: [[{field: 'removed', values: ['true']}]], includeSoftDeleted: true})).hits.map((x) => x.urn)).to.deep.equal([DS('soft')])
      await index.apply([item(1, DS('soft'), {...props('soft', 'hidden'), status: {removed: false}})])
      expect((await urns({query: 'hidden'})).sort()).to.deep.equal([DS('kept'), DS('soft')].sort())
    })

    it('rebuilds: cleared, it finds nothing; fed again in id order, it answers as before', async () => {
      const items = [item(1, DS('rb.one'), {...props('rb_one', 'rebuild'), globalTags: tags('x')}), item(2, DS('rb.two'), props('rb_two', 'rebuild')), item(3, DS('rb.three'), props('rebuild', 'x'))]
      await index.apply(items)
      const before = await index.query({types: ['dataset'], query: 'rebuild', facets: ['tags']})
      await index.clear()
      expect((await index.query({types: ['dataset'], query: '*'})).total).to.equal(0)
      await index.apply(items)
      expect(await index.query({types: ['dataset'], query: 'rebuild', facets: ['tags']})).to.deep.equal(before)
    })
  })
}
