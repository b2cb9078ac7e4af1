/**
 * Ingestion benchmark: end-to-end aspects per second and the CLI's peak memory.
 *
 * Generates a change-event file (MCP form) of `DATASETS × 5` aspects in a temp dir, starts
 * `mdcli lite` on a temp store, runs `mdcli ingest` (file → datahub-rest) as a child process,
 * and samples the CLI's /proc/<pid>/status (VmHWM = peak resident set) while it runs.
 * Targets: ≥ 15,000 aspects/s, CLI peak RSS < 300 MiB. Prints one JSON line at the end.
 *
 *   npm run build && node dist/bench/ingest.js [datasets=40000]
 */
import {spawn} from 'node:child_process'
import {closeSync, createWriteStream, fsyncSync, openSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {cleanup, http, startLite, tempDir} from '../test/helpers/lite.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const BIN = join(ROOT, 'bin', 'run.js')

const TARGET_RATE = 15_000
const TARGET_RSS_MIB = 300

/** Writes the file streaming; returns the number of aspects. */
export async function generateFile(path: string, datasets: number): Promise<number> {
  const out = createWriteStream(path)
  const write = (s: string): Promise<void> => (out.write(s) ? Promise.resolve() : new Promise((r) => out.once('drain', () => r())))
  await write('[\n')
  let n = 0
  for (let i = 0; i < datasets; i++) {
    const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,bench_db.table_${i},PROD)`
    const aspects: Array<[string, unknown]> = [
      ['datasetProperties', {name: `table_${i}`, description: `Generated table number ${i} for the ingestion benchmark`, customProperties: {team: `team_${i % 50}`, tier: String(i % 3)}}],
      ['status', {removed: false}],
      ['globalTags', {tags: [{tag: `urn:li:tag:tag_${i % 10}`}]}],
      ['ownership', {owners: [{owner: `urn:li:corpuser:user_${i % 100}`, type: 'DATAOWNER'}], lastModified: {time: 0, actor: 'urn:li:corpuser:unknown'}}],
      ['subTypes', {typeNames: ['Table']}],
    ]
    let chunk = ''
    for (const [aspectName, value] of aspects) {
      chunk += (n === 0 ? '' : ',\n') + JSON.stringify({entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: {json: value}})
      n++
    }
    await write(chunk)
  }
  await write('\n]')
  await new Promise<void>((resolve) => out.end(() => resolve()))
  // Flush the file to disk now, so its write-back does not compete with the store's fsyncs
  // during the measured run.
  const fd = openSync(path, 'r')
  fsyncSync(fd)
  closeSync(fd)
  return n
}

export function procStatus(pid: number): {rssKiB: number; hwmKiB: number} | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kib = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? 0)
    return {rssKiB: kib('VmRSS'), hwmKiB: kib('VmHWM')}
  } catch {
    return undefined
  }
}

export async function main(argv: string[] = []): Promise<Record<string, unknown>> {
  const datasets = Number(argv.find((a) => /^\d+$/.test(a)) ?? 40_000)
  const dir = tempDir('mdcli-bench-ingest-')
  const lite = await startLite({args: ['--checkpoint-mb', '256']})
  try {
    const file = join(dir, 'events.json')
    const genStart = Date.now()
    const aspects = await generateFile(file, datasets)
    const bytes = statSync(file).size
    process.stderr.write(`generated ${aspects} aspects (${(bytes / 2 ** 20).toFixed(1)} MiB) in ${Date.now() - genStart} ms\n`)
    const recipe = join(dir, 'recipe.yml')
    writeFileSync(recipe, `source:\n  type: file\n  config:\n    path: ${file}\nsink:\n  type: datahub-rest\n  config:\n    server: ${lite.url}\nrun_id: bench-ingest\n`)

    const started = Date.now()
    const child = spawn(process.execPath, [BIN, 'ingest', '-c', recipe, '--json'], {env: lite.env(), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d.toString()))
    child.stderr.on('data', (d) => (stderr += d.toString()))
    let peakKiB = 0
    const sample = (): void => {
      const s = procStatus(child.pid!)
      if (s) peakKiB = Math.max(peakKiB, s.hwmKiB, s.rssKiB)
    }
    const timer = setInterval(sample, 25)
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
    clearInterval(timer)
    const seconds = (Date.now() - started) / 1000
    if (code !== 0) throw new Error(`mdcli ingest exited ${code}\n${stderr}\n${stdout.slice(-2000)}`)
    const result = JSON.parse(stdout) as {sink: {recordsWritten: number}; failures: number}
    const runs = await http(`${lite.url}/runs?action=list`, {body: {pageOffset: 0, pageSize: 10}})
    const rows = (runs.body.value as Array<{runId: string; rows: number}>).find((r) => r.runId === 'bench-ingest')?.rows ?? 0
    const rate = Math.round(aspects / seconds)
    const peakMiB = Math.round((peakKiB / 1024) * 10) / 10
    const out = {
      bench: 'ingest',
      aspects,
      fileMiB: Math.round((bytes / 2 ** 20) * 10) / 10,
      seconds: Math.round(seconds * 100) / 100,
      aspectsPerSec: rate,
      cliPeakRssMiB: peakMiB,
      recordsWritten: result.sink.recordsWritten,
      failures: result.failures,
      storeRowsOfRun: rows,
      targets: {aspectsPerSec: TARGET_RATE, cliPeakRssMiB: TARGET_RSS_MIB},
      pass: rate >= TARGET_RATE && peakMiB < TARGET_RSS_MIB && result.failures === 0,
    }
    console.log(JSON.stringify(out))
    return out
  } finally {
    await lite.stop()
    cleanup(dir, lite.storeDir, lite.home)
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(e)
    process.exitCode = 1
  })
}
