/**
 * SQL source benchmark: a PostgreSQL database of `TABLES` tables × 30 columns, ingested by the
 * `postgres` source into a file sink, schema only and with table-level profiling. Prints records
 * per second and the CLI's peak RSS (VmHWM), then one JSON line. The database is created and
 * dropped here, on the local server (127.0.0.1:5432, trust auth).
 *
 *   npm run build && node dist/bench/sql-source.js [tables=2000]
 */
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import pg from 'pg'
import {cleanup, tempDir} from '../test/helpers/lite.js'
import {procStatus} from './ingest.js'

const BIN = join(fileURLToPath(new URL('../../', import.meta.url)), 'bin', 'run.js')
const URL_ADMIN = process.env.MDCLI_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

async function run(dir: string, db: string, profiling: boolean): Promise<{seconds: number; records: number; peakRssMiB: number}> {
  const recipe = join(dir, `r-${profiling}.yml`)
  writeFileSync(
    recipe,
    JSON.stringify({
      source: {type: 'postgres', config: {host_port: '127.0.0.1:5432', database: db, username: 'postgres', schema_pattern: {allow: ['^bench$']}, profiling: {enabled: profiling, profile_table_level_only: true}}},
      sink: {type: 'file', config: {filename: join(dir, `out-${profiling}.json`)}},
    }),
  )
  const started = Date.now()
  const child = spawn(process.execPath, [BIN, 'ingest', '-c', recipe, '--json'], {env: {...process.env, HOME: dir, METADATA_TELEMETRY_ENABLED: 'false'}, stdio: ['ignore', 'pipe', 'pipe']})
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  let peak = 0
  const sampler = setInterval(() => (peak = Math.max(peak, procStatus(child.pid!)?.hwmKiB ?? 0)), 100)
  const code = await new Promise<number | null>((r) => child.on('exit', r))
  clearInterval(sampler)
  if (code !== 0) throw new Error(`ingest exited ${code}: ${out.slice(0, 500)}`)
  const result = JSON.parse(out)
  return {seconds: (Date.now() - started) / 1000, records: result.source.records, peakRssMiB: Math.round(peak / 1024)}
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<Record<string, unknown>> {
  const tables = Number(argv.find((a) => /^\d+$/.test(a)) ?? 2000)
  const db = `mdcli_bench_${process.pid}`
  const admin = new pg.Client({connectionString: URL_ADMIN})
  await admin.connect()
  const dir = tempDir('mdcli-bench-sql-')
  try {
    await admin.query(`CREATE DATABASE ${db}`)
    const c = new pg.Client({connectionString: URL_ADMIN.replace(/\/[^/]*$/, `/${db}`)})
    await c.connect()
    await c.query('CREATE SCHEMA bench')
    const cols = Array.from({length: 29}, (_, i) => `c${i} ${['integer', 'text', 'varchar(40)', 'timestamp', 'numeric(12,2)', 'boolean'][i % 6]}`).join(', ')
    for (let i = 0; i < tables; i += 100) {
      const batch = Array.from({length: Math.min(100, tables - i)}, (_, k) => `CREATE TABLE bench.t${i + k} (id bigint PRIMARY KEY, ${cols}); COMMENT ON TABLE bench.t${i + k} IS 'table ${i + k}';`).join('\n')
      await c.query(batch)
    }
    await c.query('ANALYZE')
    await c.end()
    const schemaOnly = await run(dir, db, false)
    const profiled = await run(dir, db, true)
    const figures = {
      benchmark: 'sql-source',
      tables,
      columnsPerTable: 30,
      schemaOnly: {...schemaOnly, recordsPerSecond: Math.round(schemaOnly.records / schemaOnly.seconds)},
      tableLevelProfiling: {...profiled, recordsPerSecond: Math.round(profiled.records / profiled.seconds)},
    }
    console.log(`postgres source, ${tables} tables x 30 columns:`)
    console.log(`  schema only:            ${figures.schemaOnly.records} records in ${schemaOnly.seconds.toFixed(1)} s = ${figures.schemaOnly.recordsPerSecond} records/s, CLI peak RSS ${schemaOnly.peakRssMiB} MiB`)
    console.log(`  table-level profiling:  ${figures.tableLevelProfiling.records} records in ${profiled.seconds.toFixed(1)} s = ${figures.tableLevelProfiling.recordsPerSecond} records/s, CLI peak RSS ${profiled.peakRssMiB} MiB`)
    console.log(JSON.stringify(figures))
    return figures
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => {})
    await admin.end()
    cleanup(dir)
  }
}
