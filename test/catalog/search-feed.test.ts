/**
 * The catalog's search feed as a background job: a rebuild hands the event loop back between its
 * batches, so requests are answered while it runs rather than after its first burst.
 */
import {expect} from 'chai'
import {SearchFeed} from '../../src/catalog/search-feed.js'
import {createMemoryStore, SEARCHABLE_TYPES} from '../../src/store/index.js'
import {MemorySearchIndex} from '../../src/store/search/memory-index.js'
import type {IndexItem, SearchIndex} from '../../src/store/types.js'
import {up} from '../store/conformance.js'

const DS = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,db.feed${i},PROD)`

describe('search feed', () => {
  it('a rebuild lets the event loop turn between its batches, and indexes every entity', async () => {
    const store = createMemoryStore()
    await store.open()
    await store.write(Array.from({length: 1000}, (_, i) => up(DS(i), 'datasetProperties', {name: `feed${i}`})))
    const index = new MemorySearchIndex(SEARCHABLE_TYPES)
    let batches = 0
    const counting: SearchIndex = {
      apply: async (items: IndexItem[]) => {
        batches++
        await index.apply(items)
      },
      query: (req) => index.query(req),
      clear: () => index.clear(),
      close: () => index.close(),
    }
    const feed = new SearchFeed(store, counting)
    // Every step of a rebuild on the memory store settles without the event loop: only the
    // feed's own turn between batches lets this callback in before the last batch.
    let atFirstTurn = -1
    setImmediate(() => (atFirstTurn = batches))
    await feed.rebuild()
    expect(batches).to.equal(4)
    expect(atFirstTurn).to.be.within(1, 3)
    const found = await feed.query({query: 'feed999', count: 10, start: 0})
    expect(found.hits.map((h) => h.urn)).to.deep.equal([DS(999)])
    await store.close()
  })
})
