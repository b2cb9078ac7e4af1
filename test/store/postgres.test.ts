import pg from 'pg'
import {SEARCHABLE_TYPES} from '../../src/store/index.js'
import {PgStore} from '../../src/store/postgres/pg-store.js'
import {REGISTRY_RULES} from '../../src/store/rules.js'
import type {MetadataStore} from '../../src/store/types.js'
import {requirePostgres, uniqueName} from '../helpers/requires.js'
import {storeConformance} from './conformance.js'

/** A fresh database on the test server; returns its URL and a function that drops it. */
export async function createTestDatabase(adminUrl: string, prefix = 'mdcli_t'): Promise<{url: string; drop: () => Promise<void>}> {
  const name = uniqueName(prefix).toLowerCase()
  const admin = new pg.Client({connectionString: adminUrl})
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const u = new URL(adminUrl)
  u.pathname = `/${name}`
  return {
    url: u.toString(),
    async drop() {
      const a = new pg.Client({connectionString: adminUrl})
      await a.connect()
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await a.end()
    },
  }
}

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
