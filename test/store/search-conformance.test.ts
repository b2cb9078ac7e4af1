import pg from 'pg'
import {SEARCHABLE_TYPES} from '../../src/store/index.js'
import {SearchThread} from '../../src/store/embedded/search-thread.js'
import {PgSearchIndex} from '../../src/store/postgres/search-index.js'
import {PgStore} from '../../src/store/postgres/pg-store.js'
import {REGISTRY_RULES} from '../../src/store/rules.js'
import {MemorySearchIndex} from '../../src/store/search/memory-index.js'
import {createTestDatabase} from '../helpers/pg.js'
import {requirePostgres} from '../helpers/requires.js'
import {searchConformance} from './search-conformance.js'

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
})
