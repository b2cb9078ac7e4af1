/**
 * How a `lite --changelog` server starts: what it refuses before writing anything, and what its
 * first start publishes.
 */
import {expect} from 'chai'
import {jetstreamManager} from '@nats-io/jetstream'
import {connect} from '@nats-io/transport-node'
import pg from 'pg'
import {cleanup, runCli, tempDir} from '../helpers/lite.js'
import {createTestDatabase} from '../helpers/pg.js'
import {requireNats, requirePostgres, uniqueName} from '../helpers/requires.js'

describe('events: starting a server with --changelog', function () {
  this.timeout(120_000)

  it('refuses a PostgreSQL store up front, in one line that does not show its password', async function () {
    const url = await requireNats(this)
    const db = await createTestDatabase(await requirePostgres(this), 'fixev')
    // A password in the URL (trust authentication lets it through): it must never be printed.
    const store = new URL(db.url)
    store.password = 'S3cretPW'
    const stream = `fixev_${uniqueName('pg').replace(/[^A-Za-z0-9_]/g, '_')}`
    const home = tempDir('mdcli-home-')
    try {
      const r = await runCli(['lite', '--port', '0', '--store', store.toString(), '--changelog', `${url}/${stream}`], {
        env: {...process.env, HOME: home, NO_COLOR: '1', METADATA_TELEMETRY_ENABLED: 'false'},
        timeoutMs: 60_000,
      })
      expect(r.code, r.stdout + r.stderr).to.not.equal(0)
      expect(r.stdout + r.stderr).to.not.include('S3cretPW')
      expect(r.stderr).to.match(/--changelog needs a store directory/)
      expect(r.stderr.trim().split('\n')).to.have.length(1)
      // Refused before anything was opened: the database holds no table, the broker no stream.
      const client = new pg.Client({connectionString: db.url})
      await client.connect()
      try {
        expect((await client.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'")).rows[0].n).to.equal(0)
      } finally {
        await client.end()
      }
      const nc = await connect({servers: url.replace(/^nats:\/\//, '')})
      try {
        const names: string[] = []
        for await (const s of (await jetstreamManager(nc)).streams.names()) names.push(s)
        expect(names).to.not.include(stream)
      } finally {
        await nc.close()
      }
    } finally {
      cleanup(home)
      await db.drop()
    }
  })
})
