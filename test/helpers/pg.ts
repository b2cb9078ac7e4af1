/** Throwaway PostgreSQL databases for tests: one per run, dropped after. */
import pg from 'pg'
import {uniqueName} from './requires.js'

export interface TestDatabase {
  url: string
  drop(): Promise<void>
}

export async function createTestDatabase(adminUrl: string, prefix = 'mdcli_t'): Promise<TestDatabase> {
  const name = uniqueName(prefix).toLowerCase()
  const admin = new pg.Client({connectionString: adminUrl})
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const u = new URL(adminUrl)
  u.pathname = `/${name}`
  return {
    url: u.toString(),
    async drop() {
      const a = new pg.Client({connectionString: adminUrl})
      await a.connect()
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await a.end()
      }
    },
  }
}
