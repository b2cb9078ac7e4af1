/**
 * Mocha root hooks (loaded by `.mocharc*.json`'s `require`). Under `MDCLI_TEST_STORE=postgres`
 * every server a suite starts gets a database of its own: the run needs PostgreSQL (skipped with a
 * visible reason without one, failed in CI), and the databases are dropped at the end, as are
 * the temporary directories the run made.
 */
import {dropTestDatabases, killLeftoverServers, removeTempDirs, TEST_STORE} from './lite.js'
import {requirePostgres} from './requires.js'

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    if (TEST_STORE === 'postgres') await requirePostgres(this)
  },
  async afterAll() {
    const left = await killLeftoverServers()
    if (left > 0) console.log(`      (${left} mdcli lite server${left === 1 ? '' : 's'} left running by failed tests: killed)`)
    await dropTestDatabases()
    // Stores and homes of tests that stopped before their own cleanup (a failed assertion).
    removeTempDirs()
  },
}
