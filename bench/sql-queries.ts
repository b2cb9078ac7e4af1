/**
 * sql-queries source benchmark: a synthetic query log of `QUERIES` lines (over 500 tables and 50
 * users in one day: INSERT … SELECT, CTAS, UPDATE and SELECTs with other literals each run, and
 * one temp-table chain in every 20 sessions) ingested into a file sink through the real CLI.
 * Prints queries per second, records per second, the CLI's CPU per query and peak RSS (VmHWM),
 * then one JSON line.
 *
 *   npm run build && node dist/bench/sql-queries.js [queries=100000]
 */
import {spawn} from 'node:child_process'
import {createWriteStream} from 'node:fs'
import {join} from 'node:path'
import {cleanup, tempDir} from '../test/helpers/lite.js'
import {procStatus} from './ingest.js'
import {BIN, cpuMs, machine} from './lib.js'

const TABLES = 500
const USERS = 50
const DAY = 1609459200

function line(i: number): string {
  const t = i % TABLES
  const u = `user${i % USERS}`
  const ts = DAY + Math.floor((i * 86_399) / 1_000_000)
  const q = (query: string, extra: Record<string, unknown> = {}) => JSON.stringify({query, timestamp: ts, user: u, ...extra})
  switch (i % 10) {
    case 0:
      return q(`INSERT INTO db.s.fact_${t} SELECT o.id, o.amount * ${i % 7} AS amount, c.region FROM db.s.orders_${t} o JOIN db.s.customers_${(t + 1) % TABLES} c ON c.id = o.customer_id WHERE o.day = '2021-01-01'`)
    case 1:
      return q(`CREATE TABLE db.s.daily_${t} AS SELECT DATE(created_at) AS day, COUNT(*) AS n, SUM(amount) AS total FROM db.s.orders_${t} GROUP BY DATE(created_at)`)
    case 2:
      return q(`UPDATE db.s.orders_${t} SET status = 'closed' WHERE id IN (SELECT order_id FROM db.s.refunds_${t} WHERE amount > ${i % 100})`)
    case 3: {
      const s = `s${Math.floor(i / 10)}`
      if (i % 200 !== 3) return q(`SELECT id, amount FROM db.s.orders_${t} WHERE amount > ${i % 1000}`)
      return [
        q(`CREATE TEMP TABLE tmp_${t} AS SELECT id, amount FROM db.s.orders_${t} WHERE amount > ${i % 50}`, {session_id: s}),
        q(`INSERT INTO db.s.big_orders_${t} SELECT id, amount FROM tmp_${t}`, {session_id: s}),
      ].join('\n')
    }
    default:
      return q(`SELECT id, region FROM db.s.customers_${t} WHERE region IN ('eu', 'us') AND score > ${i % 13}`)
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<Record<string, unknown>> {
  const queries = Number(argv.find((a) => /^\d+$/.test(a)) ?? 100_000)
  const dir = tempDir('mdcli-bench-sqlq-')
  try {
    const file = join(dir, 'queries.jsonl')
    const out = createWriteStream(file)
    let lines = 0
    for (let i = 0; lines < queries; i++) {
      const l = line(i)
      lines += l.split('\n').length
      if (!out.write(`${l}\n`)) await new Promise<void>((ok) => out.once('drain', () => ok()))
    }
    await new Promise<void>((ok) => out.end(ok))
    const recipe = join(dir, 'recipe.json')
    const {writeFileSync} = await import('node:fs')
    writeFileSync(recipe, JSON.stringify({source: {type: 'sql-queries', config: {query_file: file, platform: 'snowflake', usage: {start_time: '2021-01-01T00:00:00Z', end_time: '2021-01-02T00:00:00Z'}}}, sink: {type: 'file', config: {filename: join(dir, 'out.json')}}}))
    const started = Date.now()
    const child = spawn(process.execPath, [BIN, 'ingest', '-c', recipe, '--json'], {env: {...process.env, HOME: dir, METADATA_TELEMETRY_ENABLED: 'false'}, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    let peak = 0
    let cpu = 0
    const sampler = setInterval(() => {
      peak = Math.max(peak, procStatus(child.pid!)?.hwmKiB ?? 0)
      cpu = Math.max(cpu, cpuMs(child.pid!))
    }, 100)
    const code = await new Promise<number | null>((r) => child.on('exit', r))
    clearInterval(sampler)
    const seconds = (Date.now() - started) / 1000
    if (code !== 0) throw new Error(`ingest exited ${code}: ${(stderr + stdout).slice(0, 500)}`)
    const result = JSON.parse(stdout)
    const records = result.source.records as number
    const figures = {
      benchmark: 'sql-queries',
      machine: machine(),
      queries: lines,
      seconds,
      queriesPerSecond: Math.round(lines / seconds),
      records,
      recordsPerSecond: Math.round(records / seconds),
      peakRssMiB: Math.round(peak / 1024),
      cpuSeconds: Math.round(cpu) / 1000,
      cpuMsPerQuery: Math.round((cpu / lines) * 100) / 100,
    }
    console.log(`sql-queries source, ${lines} queries over ${TABLES} tables (${machine()}):`)
    console.log(`  ${lines} queries in ${seconds.toFixed(1)} s = ${figures.queriesPerSecond} queries/s; ${records} records (${figures.recordsPerSecond}/s); CLI peak RSS ${figures.peakRssMiB} MiB, CLI CPU ${figures.cpuSeconds} s (${figures.cpuMsPerQuery} ms a query)`)
    console.log(JSON.stringify(figures))
    return figures
  } finally {
    cleanup(dir)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
