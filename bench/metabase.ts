/**
 * Metabase source benchmark: a synthetic Metabase site of `DASHBOARDS` dashboards (two cards each,
 * as many cards; half native SQL, half query-builder questions over 200 tables; 50 collections),
 * served by a local node:http stand-in, ingested by the `metabase` source into a file sink through
 * the real CLI. Prints records per second, requests per second and the CLI's peak RSS (VmHWM),
 * then one JSON line.
 *
 *   npm run build && node dist/bench/metabase.js [dashboards=5000]
 */
import {spawn} from 'node:child_process'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {cleanup, tempDir} from '../test/helpers/lite.js'
import {procStatus} from './ingest.js'
import {BIN, machine} from './lib.js'

const COLLECTIONS = 50
const TABLES = 200

function card(id: number): Record<string, unknown> {
  const native = id % 2 === 0
  const t = id % TABLES
  return {
    id,
    name: `Question ${id}`,
    description: `About question ${id}`,
    display: ['table', 'bar', 'line', 'pie'][id % 4],
    creator_id: 1 + (id % 20),
    database_id: 1,
    query_type: native ? 'native' : 'query',
    dataset_query: native
      ? {type: 'native', native: {query: `SELECT o.status, count(*) AS n FROM sales.orders_${t} o JOIN customers_${(t + 1) % TABLES} c ON c.id = o.customer_id WHERE o.created > {{since}} GROUP BY o.status`}}
      : {type: 'query', query: {'source-table': t, filter: ['=', ['field', 10, null], 'open']}},
    result_metadata: [{display_name: 'status', field_ref: ['field', 'status', {}]}, {display_name: 'n', field_ref: ['aggregation', 0]}],
    'last-edit-info': {email: `user${id % 20}@example.com`, timestamp: '2024-03-01T10:00:00.123456Z'},
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<Record<string, unknown>> {
  const dashboards = Number(argv.find((a) => /^\d+$/.test(a)) ?? 5000)
  const cards = dashboards
  const perCollection = Math.ceil(dashboards / COLLECTIONS)
  let requests = 0
  const server = createServer((req, res) => {
    requests++
    const u = new URL(req.url ?? '/', 'http://x')
    const p = u.pathname
    let body: unknown
    let m: RegExpExecArray | null
    if (p === '/api/session') body = req.method === 'POST' ? {id: 'bench-session'} : undefined
    else if (p === '/api/user/current') body = {id: 1, email: 'bench@example.com'}
    else if ((m = /^\/api\/user\/(\d+)$/.exec(p))) body = {id: Number(m[1]), email: `user${m[1]}@example.com`}
    else if (p === '/api/card') body = Array.from({length: cards}, (_, i) => ({id: i + 1, name: `Question ${i + 1}`}))
    else if ((m = /^\/api\/card\/(\d+)$/.exec(p))) body = card(Number(m[1]))
    else if (p === '/api/database/1') body = {id: 1, engine: 'postgres', details: {dbname: 'shop'}}
    else if ((m = /^\/api\/table\/(\d+)$/.exec(p))) body = {id: Number(m[1]), schema: 'sales', name: `orders_${m[1]}`}
    else if (p === '/api/collection/') body = Array.from({length: COLLECTIONS}, (_, i) => ({id: i + 1, name: `Collection ${i + 1}`}))
    else if ((m = /^\/api\/collection\/(\d+)\/items$/.exec(p))) {
      const c = Number(m[1]) - 1
      const first = c * perCollection + 1
      const n = Math.max(0, Math.min(perCollection, dashboards - c * perCollection))
      body = {data: Array.from({length: n}, (_, i) => ({id: first + i, model: 'dashboard'}))}
    } else if ((m = /^\/api\/dashboard\/(\d+)$/.exec(p))) {
      const id = Number(m[1])
      body = {id, name: `Dashboard ${id}`, description: '', creator_id: 1 + (id % 20), dashcards: [{card: {id}}, {card: {id: 1 + (id % cards)}}, {card: {}}], 'last-edit-info': {email: 'bench@example.com', timestamp: '2024-03-02T10:00:00Z'}}
    }
    res.writeHead(body === undefined && req.method !== 'DELETE' ? 404 : 200, {'content-type': 'application/json'})
    res.end(body === undefined ? '' : JSON.stringify(body))
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const port = (server.address() as AddressInfo).port
  const dir = tempDir('mdcli-bench-metabase-')
  try {
    const recipe = join(dir, 'metabase.json')
    writeFileSync(recipe, JSON.stringify({source: {type: 'metabase', config: {connect_uri: `http://127.0.0.1:${port}`, username: 'bench', password: 'bench'}}, sink: {type: 'file', config: {filename: join(dir, 'out.json')}}}))
    const started = Date.now()
    const child = spawn(process.execPath, [BIN, 'ingest', '-c', recipe, '--json'], {env: {...process.env, HOME: dir, METADATA_TELEMETRY_ENABLED: 'false'}, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    let peak = 0
    const sampler = setInterval(() => (peak = Math.max(peak, procStatus(child.pid!)?.hwmKiB ?? 0)), 100)
    const code = await new Promise<number | null>((r) => child.on('exit', r))
    clearInterval(sampler)
    const seconds = (Date.now() - started) / 1000
    if (code !== 0) throw new Error(`ingest exited ${code}: ${out.slice(0, 500)}`)
    const result = JSON.parse(out)
    const records = result.source.records as number
    const figures = {
      benchmark: 'metabase',
      machine: machine(),
      dashboards,
      cards,
      // Each dashboard is listed once here (one collection each).
      seconds,
      records,
      recordsPerSecond: Math.round(records / seconds),
      requests,
      requestsPerSecond: Math.round(requests / seconds),
      peakRssMiB: Math.round(peak / 1024),
    }
    console.log(`metabase source, ${dashboards} dashboards + ${cards} cards from a local stand-in (${machine()}):`)
    console.log(`  ${records} records in ${seconds.toFixed(1)} s = ${figures.recordsPerSecond} records/s; ${requests} requests (${figures.requestsPerSecond}/s); CLI peak RSS ${figures.peakRssMiB} MiB`)
    console.log(JSON.stringify(figures))
    return figures
  } finally {
    await new Promise<void>((ok) => server.close(() => ok()))
    cleanup(dir)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
