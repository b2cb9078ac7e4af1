/**
 * Data-lake benchmark: a lake of `FILES` small files of mixed formats (CSV, JSON lines, Parquet,
 * Avro; 25 rows each) generated into a temp dir, ingested by the `s3` source on local paths into
 * a file sink with profiling on — every file its own dataset, so the run reads and profiles each
 * one. Run at a fifth of the size and at full size: records per second and the CLI's peak RSS
 * (VmHWM), which must stay flat as the lake grows. Prints one JSON line at the end.
 *
 *   npm run build && node dist/bench/lake.js [files=10000]
 */
import {spawn} from 'node:child_process'
import {copyFileSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import avro from 'avsc'
import {cleanup, tempDir} from '../test/helpers/lite.js'
import {procStatus} from './ingest.js'
import {cpuMs, machine} from './lib.js'

const BIN = join(fileURLToPath(new URL('../../', import.meta.url)), 'bin', 'run.js')
const ROWS = 25

/** One template file per format, copied (with its own name) into each folder. */
async function templates(dir: string): Promise<Record<string, string>> {
  const rows = Array.from({length: ROWS}, (_, i) => ({id: i, name: `name-${i % 7}`, amount: (i * 1.25) % 17, ok: i % 2 === 0}))
  const csv = join(dir, 't.csv')
  writeFileSync(csv, ['id,name,amount,ok', ...rows.map((r) => `${r.id},${r.name},${r.amount},${r.ok}`)].join('\n') + '\n')
  const jsonl = join(dir, 't.jsonl')
  writeFileSync(jsonl, rows.map((r) => JSON.stringify(r)).join('\n') + '\n')
  const parquet = join(dir, 't.parquet')
  const {DuckDBInstance} = await import('@duckdb/node-api')
  const db = await DuckDBInstance.create(':memory:')
  const conn = await db.connect()
  await conn.run(`COPY (SELECT range AS id, 'name-' || (range % 7) AS name, (range * 1.25) % 17 AS amount, range % 2 = 0 AS ok FROM range(${ROWS})) TO '${parquet}' (FORMAT parquet)`)
  conn.closeSync()
  db.closeSync()
  const avroPath = join(dir, 't.avro')
  const type = avro.Type.forSchema({type: 'record', name: 'Row', fields: [{name: 'id', type: 'long'}, {name: 'name', type: 'string'}, {name: 'amount', type: 'double'}, {name: 'ok', type: 'boolean'}]})
  await new Promise<void>((resolve, reject) => {
    const enc = avro.createFileEncoder(avroPath, type)
    enc.on('finish', resolve).on('error', reject)
    for (const r of rows) enc.write(r)
    enc.end()
  })
  return {csv, jsonl, parquet, avro: avroPath}
}

function makeLake(root: string, files: number, t: Record<string, string>): void {
  const formats = Object.keys(t)
  // 100 files a folder, formats interleaved.
  for (let i = 0; i < files; i++) {
    const folder = join(root, `f${Math.floor(i / 100)}`)
    if (i % 100 === 0) mkdirSync(folder, {recursive: true})
    const ext = formats[i % formats.length]!
    copyFileSync(t[ext]!, join(folder, `part-${i}.${ext}`))
  }
}

async function run(dir: string, lake: string): Promise<{seconds: number; records: number; peakRssMiB: number; cpuSeconds: number}> {
  const recipe = join(dir, 'lake.yml')
  writeFileSync(recipe, JSON.stringify({source: {type: 's3', config: {path_specs: [{include: `${lake}/*/*.*`}], profiling: {enabled: true}}}, sink: {type: 'file', config: {filename: join(dir, 'out.json')}}}))
  const started = Date.now()
  const child = spawn(process.execPath, [BIN, 'ingest', '-c', recipe, '--json'], {env: {...process.env, HOME: dir, METADATA_TELEMETRY_ENABLED: 'false'}, stdio: ['ignore', 'pipe', 'pipe']})
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  let peak = 0
  let cpu = 0
  const sampler = setInterval(() => {
    peak = Math.max(peak, procStatus(child.pid!)?.hwmKiB ?? 0)
    try {
      cpu = Math.max(cpu, cpuMs(child.pid!))
    } catch {
      /* the process has just exited */
    }
  }, 100)
  const code = await new Promise<number | null>((r) => child.on('exit', r))
  clearInterval(sampler)
  if (code !== 0) throw new Error(`ingest exited ${code}: ${out.slice(0, 500)}`)
  const result = JSON.parse(out)
  return {seconds: (Date.now() - started) / 1000, records: result.source.records, peakRssMiB: Math.round(peak / 1024), cpuSeconds: Math.round(cpu) / 1000}
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<Record<string, unknown>> {
  const files = Number(argv.find((a) => /^\d+$/.test(a)) ?? 10_000)
  const dir = tempDir('mdcli-bench-lake-')
  try {
    const t = await templates(dir)
    const runs: Array<Record<string, number>> = []
    for (const n of [Math.max(100, Math.round(files / 5)), files]) {
      const lake = join(dir, `lake-${n}`)
      makeLake(lake, n, t)
      const r = await run(dir, lake)
      const figures = {files: n, ...r, recordsPerSecond: Math.round(r.records / r.seconds), filesPerSecond: Math.round(n / r.seconds)}
      runs.push(figures)
      console.log(`s3 source, ${n} files (csv, jsonl, parquet, avro; ${ROWS} rows each), schema + profile of every file: ${r.records} records in ${r.seconds.toFixed(1)} s = ${figures.recordsPerSecond} records/s (${figures.filesPerSecond} files/s), CLI peak RSS ${r.peakRssMiB} MiB, CLI CPU ${r.cpuSeconds.toFixed(1)} s (${((r.cpuSeconds * 1000) / n).toFixed(1)} ms a file)`)
    }
    const result = {benchmark: 'lake', machine: machine(), rowsPerFile: ROWS, runs}
    console.log(JSON.stringify(result))
    return result
  } finally {
    cleanup(dir)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
