import {expect} from 'chai'
import pg from 'pg'
import {SEARCHABLE_TYPES} from '../../src/store/index.js'
import {SearchThread} from '../../src/store/embedded/search-thread.js'
import {PgSearchIndex} from '../../src/store/postgres/search-index.js'
import {PgStore} from '../../src/store/postgres/pg-store.js'
import {REGISTRY_RULES} from '../../src/store/rules.js'
import {MemorySearchIndex} from '../../src/store/search/memory-index.js'
import {createTestDatabase} from '../helpers/pg.js'
import {requirePostgres} from '../helpers/requires.js'
import {item, searchConformance} from './search-conformance.js'

searchConformance('in this thread (memory store)', async () => {
  const index = new MemorySearchIndex(SEARCHABLE_TYPES)
  return {index, cleanup: () => index.close()}
})

searchConformance('search thread (embedded store)', async () => {
  const index = new SearchThread({searchableTypes: SEARCHABLE_TYPES})
  return {index, cleanup: () => index.close()}
})

describe('SearchIndex on PostgreSQL', function () {
  let adminUrl = ''
  before(async function () {
    adminUrl = await requirePostgres(this)
  })

  searchConformance('PostgreSQL full text', async () => {
    const db = await createTestDatabase(adminUrl)
    // The store's start creates the tables; the index then has them to itself.
    const store = new PgStore({url: db.url, rules: REGISTRY_RULES, poolMax: 2})
    await store.open()
    await store.close()
    const pool = new pg.Pool({connectionString: db.url, max: 2})
    const index = new PgSearchIndex(pool, SEARCHABLE_TYPES)
    return {
      index,
      async cleanup() {
        await index.close()
        await pool.end()
        await db.drop()
      },
    }
  })

  // Planning the search statement cost PostgreSQL as much as running it: it is prepared once per
  // connection, whatever the words, and run again under its name.
  it('plans a search statement once per connection, for every word', async function () {
    const db = await createTestDatabase(adminUrl)
    const store = new PgStore({url: db.url, rules: REGISTRY_RULES, poolMax: 1})
    await store.open()
    await store.close()
    const pool = new pg.Pool({connectionString: db.url, max: 1})
    const index = new PgSearchIndex(pool, SEARCHABLE_TYPES)
    try {
      const urn = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${n},PROD)`
      await index.apply([item(1, urn('orders'), {datasetProperties: {name: 'orders'}}), item(2, urn('customers'), {datasetProperties: {name: 'customers', description: 'orders by customer'}})])
      const names = async () => (await pool.query<{name: string}>("SELECT name FROM pg_prepared_statements WHERE name LIKE 'mdcli_search_%'")).rows.map((r) => r.name)
      expect(await names()).to.deep.equal([])
      const first = await index.query({types: ['dataset'], query: 'orders', start: 0, count: 10})
      expect(first.hits.map((h) => h.urn)).to.deep.equal([urn('orders'), urn('customers')])
      const prepared = await names()
      expect(prepared).to.have.length(1)
      const second = await index.query({types: ['dataset'], query: 'customers', start: 0, count: 10})
      expect(second.hits.map((h) => h.urn)).to.deep.equal([urn('customers')])
      expect(await names()).to.deep.equal(prepared)
    } finally {
      await index.close()
      await pool.end()
      await db.drop()
    }
  })
})
