import {expect} from 'chai'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {createTestDatabase, type TestDatabase} from '../helpers/pg.js'
import {cleanup, runCli, startLite, tempDir} from '../helpers/lite.js'
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
})
