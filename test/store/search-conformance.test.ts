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

  /** A PostgreSQL index on a database of its own; the store's start creates the tables, the index then has them to itself. */
  async function pgHarness(): Promise<{index: PgSearchIndex; pool: pg.Pool; url: string; cleanup(): Promise<void>}> {
    const db = await createTestDatabase(adminUrl)
    const store = new PgStore({url: db.url, rules: REGISTRY_RULES, poolMax: 2})
    await store.open()
    await store.close()
    const pool = new pg.Pool({connectionString: db.url, max: 2})
    // pg-pool's end() resolves once it has asked its clients to end, not once they have: the
    // database's drop right after (WITH (FORCE)) can still reach a backend whose client then
    // reports "terminating connection" through the pool, which throws when nobody listens (an
    // uncaught error in the next hook, seen once in eight loaded runs). The stores' own pools listen.
    pool.on('error', () => undefined)
    const index = new PgSearchIndex(pool, SEARCHABLE_TYPES)
    return {
      index,
      pool,
      url: db.url,
      async cleanup() {
        await index.close()
        await pool.end()
        await db.drop()
      },
    }
  }

  searchConformance('PostgreSQL full text', pgHarness)

  // The statistics a bulk load's first ANALYZE gathers must count the load: run while the write
  // that made it due was still open, it saw an empty table (and the next one came 3,000 documents later).
  it('refreshes the planner statistics after the write that made them due has committed', async function () {
    const {index, pool, url, cleanup} = await pgHarness()
    const writer = new pg.Client({connectionString: url})
    await writer.connect()
    try {
      const items = Array.from({length: 1000}, (_, i) => item(i + 1, `urn:li:dataset:(urn:li:dataPlatform:hive,bulk.t${i},PROD)`, {datasetProperties: {name: `t${i}`}}))
      await writer.query('BEGIN')
      await index.applyWithin(writer, items)
      // Long enough for an ANALYZE started at once to have run and counted nothing.
      await new Promise((r) => setTimeout(r, 500))
      await writer.query('COMMIT')
      let tuples = 0
      for (let t = 0; t < 100 && tuples !== 1000; t++) {
        await new Promise((r) => setTimeout(r, 50))
        tuples = Number((await pool.query<{n: string}>("SELECT reltuples::bigint AS n FROM pg_class WHERE relname = 'mdcli_search_doc'")).rows[0]!.n)
      }
      expect(tuples).to.equal(1000)
    } finally {
      await writer.end()
      await cleanup()
    }
  })
})
