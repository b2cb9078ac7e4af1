import {SEARCHABLE_TYPES} from '../../src/store/index.js'
import {PgStore} from '../../src/store/postgres/pg-store.js'
import {REGISTRY_RULES} from '../../src/store/rules.js'
import type {MetadataStore} from '../../src/store/types.js'
import {createTestDatabase} from '../helpers/pg.js'
import {requirePostgres} from '../helpers/requires.js'
import {storeConformance} from './conformance.js'

let adminUrl = ''
const made: Array<() => Promise<void>> = []

describe('PostgreSQL store', function () {
  before(async function () {
    adminUrl = await requirePostgres(this)
  })
  after(async () => {
    for (const d of made.splice(0)) await d()
  })

  storeConformance('postgres', async () => {
    const db = await createTestDatabase(adminUrl)
    made.push(db.drop)
    const make = () => new PgStore({url: db.url, rules: REGISTRY_RULES, searchableTypes: SEARCHABLE_TYPES, poolMax: 4})
    let store = make()
    await store.open()
    return {
      get store(): MetadataStore {
        return store
      },
      async reopen() {
        await store.close()
        store = make()
        await store.open()
        return store
      },
      async cleanup() {
        await store.close()
        await db.drop()
      },
    }
  })
})
