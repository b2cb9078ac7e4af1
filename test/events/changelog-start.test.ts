/**
 * How a `lite --changelog` server starts: what it refuses before writing anything, and what its
 * first start publishes.
 */
import {expect} from 'chai'
import {jetstreamManager} from '@nats-io/jetstream'
import {connect} from '@nats-io/transport-node'
import pg from 'pg'
import {createServer} from 'node:net'
import {cleanup, runCli, startLite, tempDir} from '../helpers/lite.js'
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

  it('a first start whose broker cannot be reached writes nothing: the next start still shows the admin token and password', async function () {
    // A port nothing listens on: taken and let go.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as {port: number}).port
        s.close(() => resolve(p))
      })
    })
    const storeDir = tempDir('mdcli-store-')
    const home = tempDir('mdcli-home-')
    const env = {...process.env, HOME: home, NO_COLOR: '1', METADATA_TELEMETRY_ENABLED: 'false'}
    const failed = await runCli(['lite', '--port', '0', '--store', storeDir, '--changelog', `nats://127.0.0.1:${port}/fixev_unreachable`], {env, timeoutMs: 60_000})
    expect(failed.code, failed.stdout + failed.stderr).to.not.equal(0)
    expect(failed.stderr).to.match(/Could not reach NATS/)
    expect(failed.stdout).to.not.match(/mdt_/)
    const next = await startLite({storeDir, home})
    try {
      // The first start that got through made the admin and showed its token and password.
      expect(next.output()).to.match(/^\s+mdt_[A-Za-z0-9_-]+\s*$/m)
      expect(next.output()).to.include('Password of the admin user datahub')
    } finally {
      await next.stop()
      cleanup(storeDir, home)
    }
  })

  it('publishes the first start\'s own changes (roles, policies, the admin)', async function () {
    const url = await requireNats(this)
    const stream = `fixev_${uniqueName('first').replace(/[^A-Za-z0-9_]/g, '_')}`
    const subject = `${stream}.changelog`
    const nc = await connect({servers: url.replace(/^nats:\/\//, '')})
    const jsm = await jetstreamManager(nc)
    const lite = await startLite({storeDir: tempDir('mdcli-store-'), args: ['--changelog', `${url}/${stream}`, '--changelog-subject', subject]})
    try {
      const urns = new Set<string>()
      for (let i = 0; i < 100 && !urns.has('urn:li:corpuser:datahub'); i++) {
        const info = await jsm.streams.info(stream)
        urns.clear()
        for (let seq = Number(info.state.first_seq); seq <= Number(info.state.last_seq); seq++) {
          const m = await jsm.streams.getMessage(stream, {seq}).catch(() => null)
          if (m) urns.add(m.json<any>().mcl.entityUrn)
        }
        if (!urns.has('urn:li:corpuser:datahub')) await new Promise((r) => setTimeout(r, 200))
      }
      expect([...urns]).to.include('urn:li:corpuser:datahub')
      expect([...urns].some((u) => u.startsWith('urn:li:dataHubPolicy:'))).to.equal(true)
    } finally {
      await lite.stop()
      cleanup(lite.storeDir, lite.home)
      await jsm.streams.delete(stream).catch(() => undefined)
      await nc.close()
    }
  })
})
