import {expect} from 'chai'
import {existsSync, readFileSync} from 'node:fs'
import {spawn} from 'node:child_process'
import {join} from 'node:path'
import {createTestDatabase, type TestDatabase} from '../helpers/pg.js'
import pg from 'pg'
import {BIN, cleanup, http, runCli, startLite, tempDir} from '../helpers/lite.js'
import {requirePostgres, requireSharedFixtures} from '../helpers/requires.js'

/** The records of an export as a sorted list of JSON texts (order of entities may differ between stores). */
function records(file: string): string[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as unknown[]).map((r) => JSON.stringify(r)).sort()
}

describe('moving a catalog between the embedded store and PostgreSQL', function () {
  this.timeout(180000)
  let db: TestDatabase
  const dirs: string[] = []

  after(async () => {
    cleanup(...dirs)
    await db?.drop()
  })

  it('exports one moment of a PostgreSQL store while a server deletes entities: none that existed is left out', async function () {
    const url = await requirePostgres(this)
    const live = await createTestDatabase(url)
    const work = tempDir('mdcli-live-export-')
    dirs.push(work)
    const lite = await startLite({storeDir: live.url})
    try {
      const N = 4000
      const urn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,live.t${String(i).padStart(5, '0')},PROD)`
      for (let b = 0; b < N; b += 1000) {
        const proposals = Array.from({length: 1000}, (_, k) => ({entityUrn: urn(b + k), aspectName: 'status', changeType: 'UPSERT', aspect: {json: {removed: false}}}))
        expect((await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {proposals, atomic: true}})).status).to.equal(200)
      }
      const file = join(work, 'live.json')
      const env = {...process.env, HOME: lite.home, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1'}
      const exporting = spawn(process.execPath, [BIN, 'lite', 'export', '--store', live.url, '--file', file], {env, stdio: 'ignore'})
      const done = new Promise<number | null>((resolve) => exporting.on('close', resolve))
      // Once the first entities are in the file, the oldest 600 go (the first page's and more).
      const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').length : 0)
      while (lines() < 300) await new Promise((r) => setTimeout(r, 10))
      const gone = await http(`${lite.url}/entities?action=delete`, {body: {urns: Array.from({length: 600}, (_, i) => urn(i)), soft: false}})
      expect(gone.status, JSON.stringify(gone.body)).to.equal(200)
      expect(await done).to.equal(0)
      const exported = new Set((JSON.parse(readFileSync(file, 'utf8')) as Array<{entityUrn: string}>).map((r) => r.entityUrn))
      // The store as it was when the export began: every dataset, the 600 deleted meanwhile too.
      const missing = Array.from({length: N}, (_, i) => urn(i)).filter((u) => !exported.has(u))
      expect(missing, `${missing.length} missing, e.g. ${missing[0]}`).to.deep.equal([])
    } finally {
      await lite.stop()
      dirs.push(lite.home)
      await live.drop()
    }
  })

  it('round-trips the bootstrap file embedded → PostgreSQL → embedded unchanged', async function () {
    const bootstrap = requireSharedFixtures(this, 'datahub', 'bootstrap_mce.json')
    db = await createTestDatabase(await requirePostgres(this))
    const work = tempDir('mdcli-move-')
    const first = join(work, 'first-store')
    const second = join(work, 'second-store')
    dirs.push(work)
    const lite = await startLite({storeDir: first})
    dirs.push(lite.home)
    const ing = await runCli(['ingest', '-c', '-'], {env: lite.env(), input: `run_id: move-run\nsource: {type: file, config: {path: "${bootstrap}"}}\n`})
    expect(ing.code, ing.stdout + ing.stderr).to.equal(0)
    await lite.stop()
    const env = {...process.env, HOME: lite.home, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1'}
    const run = async (args: string[]) => {
      const r = await runCli(args, {env})
      expect(r.code, `${args.join(' ')}\n${r.stdout}${r.stderr}`).to.equal(0)
      return r
    }
    const f1 = join(work, 'embedded.json')
    const f2 = join(work, 'postgres.json')
    const f3 = join(work, 'back.json')
    await run(['lite', 'export', '--store', first, '--file', f1])
    await run(['lite', 'import', '--store', db.url, '--file', f1])
    await run(['lite', 'export', '--store', db.url, '--file', f2])
    await run(['lite', 'import', '--store', second, '--file', f2])
    await run(['lite', 'export', '--store', second, '--file', f3])
    const a = records(f1)
    expect(a.length).to.be.greaterThan(50)
    expect(a.some((r) => r.includes('SampleKafkaDataset'))).to.equal(true)
    expect(records(f2)).to.deep.equal(a)
    expect(records(f3)).to.deep.equal(a)
  })

  it('read-only verbs and token recovery refuse a database without mdcli\'s schema, and write nothing to it', async function () {
    const empty = await createTestDatabase(await requirePostgres(this))
    const home = tempDir('mdcli-home-')
    dirs.push(home)
    const env = {...process.env, HOME: home, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1'}
    try {
      const file = join(home, 'backup.json')
      for (const args of [
        ['lite', 'export', '--store', empty.url, '--file', file],
        ['lite', 'list-urns', '--store', empty.url],
        ['lite', 'ls', '/', '--store', empty.url],
        ['token', 'create', '--admin', '--store', empty.url],
      ]) {
        const r = await runCli(args, {env})
        expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).to.equal(1)
        expect(r.stderr).to.match(/No mdcli store in database postgres:\/\/.*\/mdcli_t\w*: it has no mdcli schema/)
      }
      expect(existsSync(file)).to.equal(false)
      const c = new pg.Client({connectionString: empty.url})
      await c.connect()
      try {
        const {rows} = await c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")
        expect(rows[0].n, 'tables created in the database').to.equal(0)
      } finally {
        await c.end()
      }
    } finally {
      await empty.drop()
    }
  })
})
