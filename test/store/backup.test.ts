/**
 * `mdcli lite export` / `mdcli lite import`: a store written through the real server goes to a
 * DataHub change-event file and back into a new store with every version, timeseries row, audit
 * stamp and run id; both refuse a store a running server holds.
 */
import {expect} from 'chai'
import {cpSync, existsSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {ChangeOutbox, OUTBOX_FILE} from '../../src/events/outbox.js'
import {openStore} from '../../src/store/index.js'
import {cleanup, http, runCli, startLite, tempDir} from '../helpers/lite.js'

const DS = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${n},PROD)`

describe('mdcli lite export / import', function () {
  this.timeout(120_000)
  let work: string
  before(() => (work = tempDir('mdcli-backup-')))
  after(() => cleanup(work))

  it('round-trips a store through a change-event file: versions, timeseries rows, stamps and run ids', async () => {
    const storeDir = join(work, 'original')
    const lite = await startLite({storeDir})
    const propose = (urn: string, aspectName: string, value: unknown, runId: string) =>
      http(`${lite.url}/aspects?action=ingestProposal`, {
        body: {proposal: {entityType: urn.split(':')[2], entityUrn: urn, aspectName, changeType: 'UPSERT', aspect: {contentType: 'application/json', value: JSON.stringify(value)}, systemMetadata: {runId}}},
      })
    try {
      for (const t of ['a', 'b', 'c']) expect((await propose(DS('orders'), 'globalTags', {tags: [{tag: `urn:li:tag:${t}`}]}, `run-${t}`)).status).to.equal(200)
      for (const ts of [1700000000000, 1700000001000]) expect((await propose(DS('orders'), 'datasetProfile', {timestampMillis: ts, rowCount: ts % 7}, 'run-prof')).status).to.equal(200)
      expect((await propose('urn:li:corpuser:ann', 'corpUserInfo', {active: true, displayName: 'Ann'}, 'run-users')).status).to.equal(200)
      expect((await propose(DS('gone'), 'status', {removed: true}, 'run-gone')).status).to.equal(200)
      // While the server holds the store, export refuses and says why.
      const held = await runCli(['lite', 'export', '--store', storeDir, '--file', join(work, 'held.json')], {env: lite.env()})
      expect(held.code).to.equal(1)
      expect(held.stderr).to.match(/in use by process/)
    } finally {
      await lite.stop()
    }
    const file = join(work, 'backup.json')
    const exp = await runCli(['lite', 'export', '--store', storeDir, '--file', file, '--json'], {env: {...process.env, HOME: work}})
    expect(exp.code, exp.stderr).to.equal(0)
    const report = JSON.parse(exp.stdout)
    expect(report.records).to.be.greaterThan(8)
    // It holds password hashes and tokens: owner-only, as the store's own files.
    expect(statSync(file).mode & 0o777).to.equal(0o600)
    // DataHub's MCP shape, one record per line.
    const records = JSON.parse(readFileSync(file, 'utf8')) as Array<Record<string, any>>
    expect(records).to.have.length(report.records)
    const tags = records.filter((r) => r.entityUrn === DS('orders') && r.aspectName === 'globalTags')
    expect(tags.map((r) => r.aspect.json.tags[0].tag)).to.deep.equal(['urn:li:tag:a', 'urn:li:tag:b', 'urn:li:tag:c'])
    expect(tags.map((r) => r.systemMetadata.runId)).to.deep.equal(['run-a', 'run-b', 'run-c'])
    expect(records[0]).to.include.keys('entityType', 'entityUrn', 'changeType', 'aspectName', 'aspect', 'systemMetadata')

    const restoredDir = join(work, 'restored')
    const imp = await runCli(['lite', 'import', '--store', restoredDir, '--file', file, '--json'], {env: {...process.env, HOME: work}})
    expect(imp.code, imp.stderr).to.equal(0)
    expect(JSON.parse(imp.stdout)).to.include({records: report.records, failed: 0})

    // Exporting the restored store gives the same file, record for record.
    const again = join(work, 'again.json')
    expect((await runCli(['lite', 'export', '--store', restoredDir, '--file', again], {env: {...process.env, HOME: work}})).code).to.equal(0)
    expect(JSON.parse(readFileSync(again, 'utf8'))).to.deep.equal(records)

    const a = await openStore({dir: storeDir})
    const b = await openStore({dir: restoredDir})
    try {
      for (const s of [a, b]) {
        expect((await s.listVersions(DS('orders'), 'globalTags')).map((v) => [v.version, (v.value as any).tags[0].tag])).to.deep.equal([[0, 'urn:li:tag:c'], [1, 'urn:li:tag:a'], [2, 'urn:li:tag:b']])
        expect(await s.listTimeseries(DS('orders'), 'datasetProfile')).to.have.length(2)
        expect(await s.exists(DS('gone'), {includeSoftDeleted: false})).to.equal(false)
        expect(await s.exists(DS('gone'))).to.equal(true)
      }
      expect(await b.listRuns({count: 1000})).to.deep.equal(await a.listRuns({count: 1000}))
      expect((await b.getAspect('urn:li:corpuser:ann', 'corpUserInfo'))!.created).to.deep.equal((await a.getAspect('urn:li:corpuser:ann', 'corpUserInfo'))!.created)
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('an export that fails leaves no half-written file behind, so the retry is not refused for it', async () => {
    const damaged = join(work, 'damaged')
    cpSync(join(work, 'original'), damaged, {recursive: true})
    const history = join(damaged, 'history.log')
    const text = readFileSync(history, 'utf8')
    expect(text).to.include('urn:li:tag:a"}]}')
    writeFileSync(history, text.replace('urn:li:tag:a"}]}', 'urn:li:tag:a"}]]'))
    const file = join(work, 'damaged.json')
    for (let attempt = 0; attempt < 2; attempt++) {
      const r = await runCli(['lite', 'export', '--store', damaged, '--file', file], {env: {...process.env, HOME: work}})
      expect(r.code, `attempt ${attempt}`).to.equal(1)
      expect(r.stderr, `attempt ${attempt}`).to.match(/corrupt|damaged/i)
      expect(existsSync(file), `attempt ${attempt}: no partial backup`).to.equal(false)
    }
  })

  it('an import that refused records exits 1; one into a store with data says the records add up', async () => {
    const env = {...process.env, HOME: work}
    const file = join(work, 'partly-bad.json')
    const ok = {entityType: 'tag', entityUrn: 'urn:li:tag:imp-ok', changeType: 'UPSERT', aspectName: 'tagProperties', aspect: {json: {name: 'imp-ok'}}}
    writeFileSync(file, JSON.stringify([ok, {...ok, entityUrn: 'urn:li:tag:imp-bad', aspect: {json: {name: 5}}}]))
    const storeDir = join(work, 'partly')
    const first = await runCli(['lite', 'import', '--store', storeDir, '--file', file], {env})
    expect(first.code, first.stderr).to.equal(1)
    expect(first.stdout).to.match(/Imported 1 records \(1 new entities\) from .*; 1 refused/)
    expect(first.stderr).to.not.match(/already holds entities/)
    const again = await runCli(['lite', 'import', '--store', storeDir, '--file', file], {env})
    expect(again.stderr).to.include(`Note: ${storeDir} already holds entities; the file's records are added to them`)
  })

  it('an import from a file cut short says what the store holds now and how to recover', async () => {
    const env = {...process.env, HOME: work}
    const rec = (n: number) => ({entityType: 'tag', entityUrn: `urn:li:tag:cut-${n}`, changeType: 'UPSERT', aspectName: 'tagProperties', aspect: {json: {name: `cut-${n}`}}})
    const whole = JSON.stringify([rec(1), rec(2), rec(3), rec(4)])
    const file = join(work, 'cut-short.json')
    // A copy that stopped inside the fourth record.
    writeFileSync(file, whole.slice(0, whole.lastIndexOf('{"entityType"') + 20))
    const storeDir = join(work, 'cut')
    const r = await runCli(['lite', 'import', '--store', storeDir, '--file', file], {env})
    expect(r.code).to.equal(1)
    expect(r.stderr.trim().split('\n'), r.stderr).to.have.length(1)
    expect(r.stderr).to.match(/The import stopped: .*cut-short\.json is cut short \(line 1: the file ends .*\(truncated\?\)\)\. .*cut now holds its first 3 records: remove it \(mdcli lite nuke --store .*cut --force\) and import a whole file into an empty store\./)
    const out = join(work, 'cut-export.json')
    expect((await runCli(['lite', 'export', '--store', storeDir, '--file', out], {env})).code).to.equal(0)
    const held = (JSON.parse(readFileSync(out, 'utf8')) as Array<{entityUrn: string}>).map((x) => x.entityUrn).filter((u) => u.startsWith('urn:li:tag:cut-'))
    expect([...new Set(held)]).to.have.members(['urn:li:tag:cut-1', 'urn:li:tag:cut-2', 'urn:li:tag:cut-3'])
    // Cut inside the first record: nothing was written, and it says so.
    writeFileSync(file, whole.slice(0, 30))
    const none = await runCli(['lite', 'import', '--store', join(work, 'cut-none'), '--file', file], {env})
    expect(none.code).to.equal(1)
    expect(none.stderr).to.match(/is cut short .*Nothing of it was written to .*cut-none\./)
  })

  it('an import into a store whose change log a server publishes leaves its changes in that outbox', async () => {
    // What `lite --changelog` leaves beside its store; the next such server publishes what it holds.
    const storeDir = join(work, 'publishing')
    const store = await openStore({dir: storeDir})
    await store.close()
    ChangeOutbox.open(storeDir).close()
    const file = join(work, 'outbox-in.json')
    writeFileSync(file, JSON.stringify([{entityType: 'tag', entityUrn: 'urn:li:tag:out', changeType: 'UPSERT', aspectName: 'tagProperties', aspect: {json: {name: 'out'}}}]))
    const imp = await runCli(['lite', 'import', '--store', storeDir, '--file', file], {env: {...process.env, HOME: work}})
    expect(imp.code, imp.stderr).to.equal(0)
    const lines = readFileSync(join(storeDir, OUTBOX_FILE), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as {c?: number; changes?: Array<{mcl: {entityUrn: string; aspectName?: string}}>})
    const logged = lines.flatMap((l) => l.changes ?? []).map((c) => `${c.mcl.entityUrn} ${c.mcl.aspectName}`)
    expect(logged).to.include('urn:li:tag:out tagProperties')
  })

  it('refuses a directory or an empty file to import before it opens the store, so no store is left behind', async () => {
    const into = join(work, 'never-made')
    const empty = join(work, 'empty.json')
    writeFileSync(empty, '')
    for (const [file, why] of [[work, /is not a file/], [empty, /is empty/]] as const) {
      const r = await runCli(['lite', 'import', '--store', into, '--file', file], {env: {...process.env, HOME: work}})
      expect(r.code).to.equal(1)
      expect(r.stderr).to.match(why)
      expect(r.stderr.trim().split('\n')).to.have.length(1)
      expect(existsSync(into)).to.equal(false)
    }
  })

  it('refuses an existing output file and a missing input file with one line', async () => {
    const storeDir = join(work, 'empty')
    const env = {...process.env, HOME: work}
    const exists = join(work, 'exists.json')
    // No store there yet: refused, and none made.
    const none = await runCli(['lite', 'export', '--store', storeDir, '--file', exists], {env})
    expect(none.code).to.equal(1)
    expect(none.stderr).to.match(/No lite store at .*empty/)
    expect(existsSync(storeDir)).to.equal(false)
    writeFileSync(join(work, 'nothing.json'), '[]')
    const made = await runCli(['lite', 'import', '--store', storeDir, '--file', join(work, 'nothing.json')], {env})
    expect(made.code, made.stderr).to.equal(0)
    expect((await runCli(['lite', 'export', '--store', storeDir, '--file', exists], {env})).code).to.equal(0)
    const again = await runCli(['lite', 'export', '--store', storeDir, '--file', exists], {env})
    expect(again.code).to.equal(1)
    expect(again.stderr).to.match(/^Error: Cannot write .*exists\.json/)
    const missing = await runCli(['lite', 'import', '--store', storeDir, '--file', join(work, 'nope.json')], {env})
    expect(missing.code).to.equal(1)
    expect(missing.stderr).to.match(/File not found/)
  })
})
