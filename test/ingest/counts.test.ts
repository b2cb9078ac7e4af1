/**
 * One vocabulary of counts (#32 Deliver 4): for the same run, the ingest report, `list-runs`,
 * `ingest show`, rollback, the sample loader and `lite export` / `lite ls` give the same numbers,
 * each saying what it counts (aspects written + key aspects = rows; live + soft-deleted = entities).
 */
import {expect} from 'chai'
import {join} from 'node:path'
import {cleanup, ROOT, runCli, startLite, tempDir, TEST_STORE, type LiteProcess} from '../helpers/lite.js'
import {skipWithReason} from '../helpers/requires.js'

interface Listed {
  runId: string
  rows: number
  aspectsWritten: number
  keyAspects: number
  unchanged: number
}

describe('counts: every view of one run agrees', function () {
  this.timeout(240_000)
  let lite: LiteProcess
  let work: string
  before(async () => {
    work = tempDir('mdcli-counts-')
    lite = await startLite({args: ['--sample']})
  })
  after(async () => {
    await lite?.stop()
    cleanup(work, lite?.home, lite?.storeDir)
  })

  const cli = (args: string[]) => runCli(args, {env: lite.env()})
  const listed = async (runId: string): Promise<Listed> => {
    const r = await cli(['ingest', 'list-runs', '--json'])
    expect(r.code, r.stderr).to.equal(0)
    const run = (JSON.parse(r.stdout) as Listed[]).find((x) => x.runId === runId)
    expect(run, `${runId} in list-runs`).to.not.equal(undefined)
    return run!
  }
  const recipe = join(ROOT, 'examples', 'glossary-recipe.yml')
  let counts: {workUnits: number; aspectsSent: number; aspectsWritten: number; aspectsUnchanged: number; keyAspects: number; rows: number; failures: number}
  let runId: string

  it('the sample loader says its aspects, key aspects and rows, as list-runs lists them', async () => {
    const m = /Loaded (\d+) sample aspects: (\d+) aspects written \+ (\d+) key aspects = (\d+) rows of run mdcli-sample-data/.exec(lite.output())
    expect(m, lite.output()).to.not.equal(null)
    const [, loaded, written, key, rows] = m!.map(Number)
    expect(written).to.equal(loaded)
    expect(key).to.be.greaterThan(0)
    expect(await listed('mdcli-sample-data')).to.deep.include({rows, aspectsWritten: written, keyAspects: key})
  })

  it('the ingest report (text and --json), list-runs and ingest show agree on one run', async () => {
    const r = await cli(['ingest', '-c', recipe, '--json'])
    expect(r.code, r.stderr).to.equal(0)
    const result = JSON.parse(r.stdout)
    counts = result.counts
    runId = result.runId
    expect(counts.aspectsSent).to.equal(counts.aspectsWritten + counts.aspectsUnchanged)
    expect(counts.aspectsSent).to.equal(result.sink.recordsWritten)
    expect(counts.keyAspects).to.be.greaterThan(0)
    expect(counts.rows).to.equal(counts.aspectsWritten + counts.keyAspects)
    expect(counts.workUnits).to.equal(result.source.workUnits)

    const run = await listed(runId)
    expect(run).to.deep.include({rows: counts.rows, aspectsWritten: counts.aspectsWritten, keyAspects: counts.keyAspects, unchanged: counts.aspectsUnchanged})
    const table = await cli(['ingest', 'list-runs'])
    expect(table.stdout).to.match(new RegExp(`\\| ${runId} +\\| +${counts.rows} \\| .* \\| +${counts.aspectsWritten} \\| +${counts.keyAspects} \\| +${counts.aspectsUnchanged} \\| written +\\|`))

    const show = JSON.parse((await cli(['ingest', 'show', '--run-id', runId, '--count', '10000', '--json'])).stdout) as Array<{keyAspect: boolean; unchanged?: boolean}>
    expect(show.filter((x) => !x.unchanged).length, 'rows shown').to.equal(counts.rows)
    expect(show.filter((x) => x.keyAspect).length, 'key aspects shown').to.equal(counts.keyAspects)

    // The text report says the same numbers in the same words.
    const again = await cli(['ingest', '-c', recipe, '--no-progress'])
    expect(again.code, again.stderr).to.equal(0)
    expect(again.stdout).to.match(new RegExp(`work units: ${counts.workUnits}\\n`))
    // A second run of the same file writes nothing new: everything it sent is unchanged.
    expect(again.stdout).to.match(new RegExp(`aspects sent: ${counts.aspectsSent} \\(0 written \\+ ${counts.aspectsSent} unchanged\\)`))
    expect(again.stdout).to.include('rows: 0 aspects written + 0 key aspects = 0 rows')
  })

  it('a dry run counts the same work units, and says it sent nothing', async () => {
    const r = await cli(['ingest', '-c', recipe, '--dry-run', '--json'])
    expect(r.code, r.stderr).to.equal(0)
    const dry = JSON.parse(r.stdout)
    expect(dry.counts).to.deep.include({workUnits: counts.workUnits, aspectsSent: 0, rows: 0})
    const text = await cli(['ingest', '-c', recipe, '--dry-run', '--no-progress'])
    expect(text.stdout).to.match(new RegExp(`work units: ${counts.workUnits}\\n`))
    expect(text.stdout).to.include('aspects sent: 0 (dry run: the sink was not called)')
  })

  it('rollback reverts the rows list-runs listed, in the same words', async () => {
    const dry = JSON.parse((await cli(['ingest', 'rollback', '--run-id', runId, '--dry-run', '--json'])).stdout)
    expect(dry).to.deep.include({aspectsReverted: counts.rows, keyAspectsReverted: counts.keyAspects})
    const rb = await cli(['ingest', 'rollback', '--run-id', runId, '--force'])
    expect(rb.code, rb.stderr).to.equal(0)
    expect(rb.stdout).to.include(`Rows of run ${runId} rolled back: ${counts.aspectsWritten} aspects written + ${counts.keyAspects} key aspects = ${counts.rows} rows`)
  })

  it('lite ls and lite export count the same entities: live + soft-deleted', async function () {
    if (TEST_STORE === 'postgres') skipWithReason(this, '`lite ls` reads a store directory; this run serves a PostgreSQL database')
    await lite.stop()
    const store = ['--store', lite.storeDir]
    const ls = JSON.parse((await cli(['lite', 'ls', '/', ...store, '--json'])).stdout) as {entries: Array<{count: number; softDeleted: number}>}
    const live = ls.entries.reduce((n, e) => n + e.count, 0)
    const soft = ls.entries.reduce((n, e) => n + e.softDeleted, 0)
    // The rollback soft-deleted the glossary's entities.
    expect(soft).to.equal(counts.keyAspects)
    const text = await cli(['lite', 'ls', '/', ...store])
    expect(text.stdout).to.include(`${live} live + ${soft} soft-deleted = ${live + soft} entities`)
    const exp = await cli(['lite', 'export', ...store, '--file', join(work, 'backup.json'), '--json'])
    expect(exp.code, exp.stderr).to.equal(0)
    expect(JSON.parse(exp.stdout)).to.deep.include({entities: live + soft, entitiesLive: live, entitiesSoftDeleted: soft})
    const exp2 = await cli(['lite', 'export', ...store, '--file', join(work, 'backup2.json')])
    expect(exp2.stdout).to.include(`of ${live} live + ${soft} soft-deleted = ${live + soft} entities to`)
  })
})
