/**
 * GraphQL benchmark: `mdcli lite` on a temporary store, loaded with synthetic datasets through
 * the REST batch endpoint, then driven over loopback by undici pools in this process.
 *
 * Scenarios (each after a short discarded warm-up):
 * - entity: `dataset(urn)` with properties, owners, tags and schema fields, random urns;
 * - search: `search(type: DATASET)` with one- or two-word queries drawn from the data's
 *   vocabulary (Zipf-like, so head words match most datasets, as in perf-baseline §3);
 * each at concurrency 1 and 32; the entity query also at c=32 on a Zipf(1.0) draw of the urns
 * (a few hot, most cold); then a mutation burst: 32 clients calling addTags on random
 * datasets. Prints a line per scenario and a final JSON line with every figure.
 *
 * Floors, measured in the same run (issue 33's targets are ratios to them): a bare node:http server
 * answering a fixed entity response (server CPU per request; entity query ≤ 3×), and the search
 * engine alone, in this process, on the same documents and queries (search p50 over GraphQL ≤ 3×).
 *
 * Glossary: c = concurrency (requests in flight); p50/p99 = latency percentiles of the requests
 * completed in the measured window, measured by the client (HTTP round trip included).
 *
 * Run: `node dist/bench/graphql.js [--entities=100000] [--seconds=10] [--burst-seconds=5] [--url=<running server> --server-pid=<its pid> [--loaded]]
 *      [--only=entity,search,mutation] [--concurrency=1,32]`.
 * Bounded: every phase has a deadline, traffic stays on 127.0.0.1, the server is stopped and its
 * store removed at the end.
 */
import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {pathToFileURL} from 'node:url'
import {Pool} from 'undici'
import {loadavg} from 'node:os'
import {cleanup, type LiteProcess, startLite} from '../test/helpers/lite.js'
import {MemorySearchIndex} from '../src/store/search/memory-index.js'
import {SEARCHABLE_TYPES} from '../src/store/index.js'
import type {IndexItem} from '../src/store/types.js'
import {rng, targetLine} from './lib.js'

export interface ScenarioResult {
  concurrency: number
  seconds: number
  requests: number
  errors: number
  rps: number
  p50ms: number
  p99ms: number
  /** Server CPU time (user + system) per request, from /proc; absent when it cannot be read. */
  serverCpuUsPerRequest?: number
}

export interface BenchResult {
  bench: 'graphql'
  entities: number
  load: {seconds: number; proposals: number; proposalsPerSec: number}
  scenarios: Record<string, ScenarioResult>
  floors?: {entityCpuOverBare?: number; searchEngineAloneP50ms?: number; searchOverEngine?: number; loadAverage: number}
}

export interface BenchOptions {
  entities?: number
  seconds?: number
  burstSeconds?: number
  warmupSeconds?: number
  /** Drive a server that is already running (e.g. one started with --cpu-prof) instead of starting one. */
  url?: string
  /** Process id of the server at `url`, to report its CPU per request. */
  serverPid?: number
  /** Run only these scenarios (`entity`, `search`, `mutation`); all by default. */
  only?: string[]
  /**
   * The server at `url` already holds the `entities` datasets (an earlier run loaded them): skip
   * the load, so that runs alternating two builds of the server read the very same store.
   */
  loaded?: boolean
  /** The concurrencies of the entity and search scenarios (1 and 32 by default; the targets read c=32 and c=1). */
  concurrency?: number[]
  log?: (line: string) => void
}

// ------------------------------------------------------------------------------ synthetic data


const REAL_WORDS = (
  'customer order invoice payment revenue sales product account user session event click page view campaign marketing ' +
  'finance ledger balance transaction refund shipment warehouse inventory stock supplier vendor contract employee payroll ' +
  'department region country city address email phone device browser country currency price discount coupon cart checkout ' +
  'subscription plan trial churn retention cohort funnel conversion attribution channel source medium referral search query ' +
  'report dashboard metric kpi daily weekly monthly quarterly yearly snapshot history archive raw staging clean curated mart ' +
  'fact dimension lookup mapping bridge aggregate summary detail log audit error alert incident ticket support feedback survey ' +
  'rating review score model feature prediction label training test experiment variant flag release deploy build pipeline job ' +
  'task schedule batch stream topic partition offset schema table column index key primary foreign unique null default'
).split(/\s+/)

/** 3,000 words: the real ones first, then synthetic ones; drawn Zipf-like (head words are common). */
const VOCAB = [...REAL_WORDS, ...Array.from({length: 3000 - REAL_WORDS.length}, (_, i) => `w${i.toString(36)}x`)]
const PLATFORMS = ['hive', 'snowflake', 'postgres', 'kafka', 'bigquery']

function word(rand: () => number): string {
  return VOCAB[Math.floor(VOCAB.length * Math.pow(rand(), 2.2))]!
}

function words(rand: () => number, min: number, max: number): string {
  const n = min + Math.floor(rand() * (max - min + 1))
  return Array.from({length: n}, () => word(rand)).join(' ')
}

const FIELD_TYPES = ['StringType', 'NumberType', 'BooleanType', 'DateType', 'RecordType']
const STAMP = {time: 1700000000000, actor: 'urn:li:corpuser:datahub'}

function proposal(entityUrn: string, aspectName: string, value: unknown) {
  return {entityUrn, aspectName, changeType: 'UPSERT', aspect: {contentType: 'application/json', value: JSON.stringify(value)}}
}

export function datasetUrnOf(i: number): string {
  return `urn:li:dataset:(urn:li:dataPlatform:${PLATFORMS[i % PLATFORMS.length]},db${i % 97}.table_${i},PROD)`
}

function datasetProposals(i: number, rand: () => number) {
  const urn = datasetUrnOf(i)
  const platform = `urn:li:dataPlatform:${PLATFORMS[i % PLATFORMS.length]}`
  const fields = Array.from({length: 10}, (_, f) => ({
    fieldPath: `${word(rand)}_${f}`,
    nullable: rand() < 0.5,
    type: {type: {[`com.linkedin.schema.${FIELD_TYPES[f % FIELD_TYPES.length]}`]: {}}},
    nativeDataType: FIELD_TYPES[f % FIELD_TYPES.length]!.replace('Type', '').toLowerCase(),
  }))
  return [
    proposal(urn, 'datasetProperties', {name: `${word(rand)}_${word(rand)}_${i}`, description: words(rand, 12, 25), customProperties: {team: word(rand), tier: String(1 + (i % 3))}}),
    proposal(urn, 'ownership', {owners: Array.from({length: 1 + Math.floor(rand() * 3)}, (_, k) => ({owner: `urn:li:corpuser:${word(rand)}${k}`, type: 'TECHNICAL_OWNER'})), lastModified: STAMP}),
    proposal(urn, 'globalTags', {tags: [...new Set(Array.from({length: 2 + Math.floor(rand() * 3)}, () => `urn:li:tag:${word(rand)}`))].map((tag) => ({tag}))}),
    proposal(urn, 'schemaMetadata', {schemaName: `table_${i}`, platform, version: 0, hash: '', platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: ''}}, fields}),
    proposal(urn, 'status', {removed: false}),
  ]
}

/**
 * Zipf(1.0) over `n` items: item of rank k drawn with probability ∝ 1/k. Ranks are mapped to
 * datasets through a fixed shuffle, so the hot ones are spread over the load order.
 */
function zipfSampler(n: number, rand: () => number): () => number {
  const cdf = new Float64Array(n)
  let sum = 0
  for (let k = 0; k < n; k++) cdf[k] = sum += 1 / (k + 1)
  const perm = new Uint32Array(n)
  for (let i = 0; i < n; i++) perm[i] = i
  const shuffle = rng(99)
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(shuffle() * (i + 1))
    const t = perm[i]!
    perm[i] = perm[j]!
    perm[j] = t
  }
  return () => {
    const x = rand() * sum
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (cdf[mid]! < x) lo = mid + 1
      else hi = mid
    }
    return perm[lo]!
  }
}

/**
 * The search engine alone: the embedded store's word index (what its search thread runs) built
 * in this process from the same documents the server was loaded with, answering the same queries
 * for `seconds`; latency of each `query` call, no HTTP, GraphQL or thread hop.
 */
async function engineAlone(entities: number, queries: string[], seconds: number): Promise<{p50ms: number; p99ms: number; queries: number}> {
  const index = new MemorySearchIndex(SEARCHABLE_TYPES)
  const rand = rng(42)
  let items: IndexItem[] = []
  for (let i = 0; i < entities; i++) {
    const aspects: Record<string, string> = {}
    for (const p of datasetProposals(i, rand)) aspects[p.aspectName] = p.aspect.value
    items.push({id: i + 1, urn: datasetUrnOf(i), type: 'dataset', aspects})
    if (items.length === 1000) {
      await index.apply(items)
      items = []
    }
  }
  await index.apply(items)
  const lat: number[] = []
  const deadline = performance.now() + seconds * 1000
  for (let qi = 0; performance.now() < deadline; qi++) {
    const t = performance.now()
    await index.query({types: ['dataset'], query: queries[qi % queries.length]!, start: 0, count: 10, filters: [], includeSoftDeleted: false, facets: []})
    lat.push(performance.now() - t)
  }
  const sorted = Float64Array.from(lat).sort()
  return {p50ms: Number(percentile(sorted, 50).toFixed(4)), p99ms: Number(percentile(sorted, 99).toFixed(4)), queries: lat.length}
}

// ------------------------------------------------------------------------------------- driving

const ENTITY_QUERY = `query getDataset($urn: String!) {
  dataset(urn: $urn) {
    urn
    name
    properties { name description }
    ownership { owners { owner { ... on CorpUser { urn } ... on CorpGroup { urn } } type } }
    tags { tags { tag { urn name } } }
    schemaMetadata { fields { fieldPath type nativeDataType } }
  }
}`

const SEARCH_QUERY = `query find($q: String!) {
  search(input: {type: DATASET, query: $q, start: 0, count: 10}) {
    total
    searchResults { entity { urn ... on Dataset { name } } }
  }
}`

const MUTATION = `mutation tag($urn: String!, $tag: String!) { addTags(input: {tagUrns: [$tag], resourceUrn: $urn}) }`

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

/**
 * CPU seconds (user + system) a process has used, from /proc/<pid>/stat; undefined off Linux.
 * On a shared machine throughput moves with the neighbours' load, CPU per request much less.
 */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the command name).
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

/** Authenticates every request as the admin of the server under test (set in main). */
let AUTH: Record<string, string> = {}

/**
 * One GraphQL POST through undici's low-level dispatch API: the load generator shares the two
 * cores with the server, and `request()`'s body stream costs it about 20 µs per request.
 */
function send(pool: Pool, headers: Record<string, string>, body: string): Promise<{status: number; body: Buffer}> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let status = 0
    // The callback style Pool.dispatch still requires in undici 7 (the controller-style handler
    // is only accepted through interceptors).
    pool.dispatch({path: '/api/graphql', method: 'POST', headers, body}, {
      onConnect() {},
      onHeaders(code: number) {
        status = code
        return true
      },
      onData(chunk: Buffer) {
        chunks.push(chunk)
        return true
      },
      onComplete() {
        resolve({status, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)})
      },
      onError: reject,
    })
  })
}

/**
 * A bare node:http server in a child process that reads each request's body and answers `body`
 * (with content-length) to every request: the comparison point for the entity query.
 */
async function startBare(body: string): Promise<{url: string; pid: number; stop: () => void}> {
  const script = `const http = require('node:http'); const b = Buffer.from(process.env.BARE_BODY);
http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, {'content-type': 'application/json', 'content-length': b.length}); res.end(b) }) })
  .listen(0, '127.0.0.1', function () { process.stdout.write('port ' + this.address().port + '\\n') })`
  const child = spawn(process.execPath, ['-e', script], {env: {...process.env, BARE_BODY: body}, stdio: ['ignore', 'pipe', 'inherit']})
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d) => {
      out += d
      const m = /port (\d+)/.exec(out)
      if (m) resolve(Number(m[1]))
    })
    child.once('exit', (c) => reject(new Error(`bare server exited ${c}`)))
  })
  return {url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill()}
}

/** Runs `concurrency` loops of `body()` until the deadline; latencies in ms. */
async function drive(pool: Pool, concurrency: number, seconds: number, body: () => string, serverPid?: number): Promise<ScenarioResult> {
  const cpu0 = cpuSeconds(serverPid)
  const deadline = performance.now() + seconds * 1000
  let lat = new Float64Array(1 << 16)
  let n = 0
  let errors = 0
  const started = performance.now()
  const headers = {'content-type': 'application/json', ...AUTH}
  const loop = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now()
      try {
        const res = await send(pool, headers, body())
        if (res.status !== 200 || res.body.includes('"errors":')) errors++
      } catch {
        errors++
      }
      if (n === lat.length) {
        const bigger = new Float64Array(lat.length * 2)
        bigger.set(lat)
        lat = bigger
      }
      lat[n++] = performance.now() - t0
    }
  }
  await Promise.all(Array.from({length: concurrency}, loop))
  const elapsed = (performance.now() - started) / 1000
  const cpu1 = cpuSeconds(serverPid)
  const sorted = lat.subarray(0, n).sort()
  return {
    ...(cpu0 !== undefined && cpu1 !== undefined && n > 0 ? {serverCpuUsPerRequest: Math.round(((cpu1 - cpu0) * 1e6) / n)} : {}),
    concurrency,
    seconds: Number(elapsed.toFixed(2)),
    requests: n,
    errors,
    rps: Math.round(n / elapsed),
    p50ms: Number(percentile(sorted, 50).toFixed(3)),
    p99ms: Number(percentile(sorted, 99).toFixed(3)),
  }
}

async function post(pool: Pool, path: string, body: unknown): Promise<any> {
  const res = await pool.request({path, method: 'POST', headers: {'content-type': 'application/json', 'x-restli-protocol-version': '2.0.0', ...AUTH}, body: JSON.stringify(body)})
  const text = await res.body.text()
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${text.slice(0, 300)}`)
  return JSON.parse(text)
}

async function load(pool: Pool, entities: number, log: (l: string) => void): Promise<BenchResult['load']> {
  const rand = rng(42)
  const started = performance.now()
  let proposals = 0
  const perBatch = 400 // datasets per request: 2,000 proposals
  const inFlight = new Set<Promise<void>>()
  for (let i = 0; i < entities; i += perBatch) {
    const batch = []
    for (let j = i; j < Math.min(entities, i + perBatch); j++) batch.push(...datasetProposals(j, rand))
    proposals += batch.length
    const p = post(pool, '/aspects?action=ingestProposalBatch', {proposals: batch, atomic: true}).then((r) => {
      if (r.value.failed !== 0) throw new Error(`load failed: ${JSON.stringify(r.value.results.find((x: any) => !x.ok))}`)
    })
    const tracked: Promise<void> = p.finally(() => inFlight.delete(tracked))
    inFlight.add(tracked)
    // Two batches in flight: the client builds the next while the server writes the last.
    if (inFlight.size >= 2) await Promise.race(inFlight)
    if ((i / perBatch) % 50 === 0 && i > 0) log(`  loaded ${i} datasets…`)
  }
  await Promise.all(inFlight)
  const seconds = (performance.now() - started) / 1000
  return {seconds: Number(seconds.toFixed(1)), proposals, proposalsPerSec: Math.round(proposals / seconds)}
}

function describe(name: string, r: ScenarioResult): string {
  const cpu = r.serverCpuUsPerRequest === undefined ? '' : `, server CPU ${r.serverCpuUsPerRequest} µs/request`
  return `${name.padEnd(14)} c=${String(r.concurrency).padEnd(3)} ${String(r.rps).padStart(7)} req/s   p50 ${r.p50ms.toFixed(2)} ms   p99 ${r.p99ms.toFixed(2)} ms   (${r.requests} requests, ${r.errors} errors${cpu})`
}

export async function main(opts: BenchOptions = {}): Promise<BenchResult> {
  const entities = opts.entities ?? 100_000
  const seconds = opts.seconds ?? 10
  const burstSeconds = opts.burstSeconds ?? 5
  const warmup = opts.warmupSeconds ?? 2
  const log = opts.log ?? ((l: string) => console.log(l))
  // No checkpoint during the run: measure GraphQL, not snapshot rewrites.
  const lite: LiteProcess | undefined = opts.url ? undefined : await startLite({args: ['--checkpoint-mb', '8192'], timeoutMs: 30_000})
  const url = opts.url ?? lite!.url
  const token = lite?.token ?? process.env.METADATA_GMS_TOKEN
  AUTH = token ? {authorization: `Bearer ${token}`} : {}
  const pid = opts.serverPid ?? lite?.proc.pid
  const pool = new Pool(url, {connections: 32, pipelining: 1, keepAliveTimeout: 30_000})
  try {
    log(`mdcli lite at ${url}; loading ${entities} datasets through POST /aspects?action=ingestProposalBatch`)
    const loaded = opts.loaded && opts.url ? {seconds: 0, proposals: 0, proposalsPerSec: 0} : await load(pool, entities, log)
    if (loaded.proposals > 0) log(`loaded ${loaded.proposals} proposals in ${loaded.seconds} s (${loaded.proposalsPerSec} proposals/s)`)
    // The search thread indexes behind the writes; a search answers only once it has caught up.
    // Waiting for one keeps the indexing backlog out of the measured queries (steady state).
    const caughtUp = performance.now()
    const probe = await send(pool, {'content-type': 'application/json', ...AUTH}, JSON.stringify({query: SEARCH_QUERY, variables: {q: 'customer'}}))
    if (probe.status !== 200) throw new Error(`search probe answered ${probe.status}: ${probe.body.toString().slice(0, 300)}`)
    log(`search index caught up ${((performance.now() - caughtUp) / 1000).toFixed(1)} s after the load`)

    const rand = rng(7)
    const urn = () => datasetUrnOf(Math.floor(rand() * entities))
    const queries = Array.from({length: 200}, (_, i) => (i % 2 === 0 ? word(rand) : `${word(rand)} ${word(rand)}`))
    let qi = 0
    // The documents are constant: only the variables are encoded per request.
    const entityHead = `{"query":${JSON.stringify(ENTITY_QUERY)},"variables":{"urn":`
    const searchHead = `{"query":${JSON.stringify(SEARCH_QUERY)},"variables":{"q":`
    const entityBody = () => `${entityHead}${JSON.stringify(urn())}}}`
    const searchBody = () => `${searchHead}${JSON.stringify(queries[qi++ % queries.length])}}}`

    const zipf = zipfSampler(entities, rand)
    const zipfBody = () => `${entityHead}${JSON.stringify(datasetUrnOf(zipf()))}}}`

    const scenarios: Record<string, ScenarioResult> = {}
    const wanted = (name: string) => !opts.only || opts.only.includes(name)
    for (const [name, body] of [['entity', entityBody], ['search', searchBody]] as const) {
      if (!wanted(name)) continue
      await drive(pool, 32, warmup, body)
      for (const c of opts.concurrency ?? [1, 32]) {
        const r = await drive(pool, c, seconds, body, pid)
        scenarios[`${name}_c${c}`] = r
        log(describe(name, r))
      }
      if (name === 'entity' && (opts.concurrency ?? [32]).includes(32)) {
        await drive(pool, 32, warmup, zipfBody)
        const r = await drive(pool, 32, seconds, zipfBody, pid)
        scenarios.entity_zipf_c32 = r
        log(describe('entity Zipf1.0', r))
      }
    }
    const floors: NonNullable<BenchResult['floors']> = {loadAverage: +loadavg()[0]!.toFixed(1)}

    // The same client against a bare node:http server (its own process, like lite) that answers
    // every request with one fixed entity response: the floor of what serving costs here.
    if (wanted('entity') && scenarios.entity_c32) {
      const sample = await send(pool, {'content-type': 'application/json', ...AUTH}, entityBody())
      const bare = await startBare(sample.body.toString())
      const barePool = new Pool(bare.url, {connections: 32, pipelining: 1, keepAliveTimeout: 30_000})
      try {
        await drive(barePool, 32, warmup, entityBody)
        const r = await drive(barePool, 32, seconds, entityBody, bare.pid)
        scenarios.bare_http_c32 = r
        log(describe('bare node:http', r))
        log(`entity query at c=32 against bare node:http with a fixed body: ${(scenarios.entity_c32.rps / r.rps).toFixed(2)} of its throughput`)
        const mine = scenarios.entity_c32.serverCpuUsPerRequest
        if (mine !== undefined && r.serverCpuUsPerRequest) {
          floors.entityCpuOverBare = +(mine / r.serverCpuUsPerRequest).toFixed(2)
          log(targetLine('entity query c=32 server CPU per request, uniform over the datasets', `${mine} µs = ${floors.entityCpuOverBare}×`, '≤ 3× bare node:http', floors.entityCpuOverBare <= 3, `bare node:http ${r.serverCpuUsPerRequest} µs`))
          const z = scenarios.entity_zipf_c32?.serverCpuUsPerRequest
          if (z !== undefined) log(`  (reported) entity query c=32, Zipf(1.0) draw: ${z} µs = ${(z / r.serverCpuUsPerRequest).toFixed(2)}× bare node:http`)
        }
        // One request at a time: the round trip any answer over HTTP pays, beside the search
        // target's floor (the engine alone, with no HTTP at all).
        const one = await drive(barePool, 1, Math.min(seconds, 5), entityBody, bare.pid)
        scenarios.bare_http_c1 = one
        log(describe('bare node:http', one))
      } finally {
        await barePool.close()
        bare.stop()
      }
    }

    if (wanted('search') && scenarios.search_c1) {
      const alone = await engineAlone(entities, queries, seconds)
      floors.searchEngineAloneP50ms = alone.p50ms
      floors.searchOverEngine = +(scenarios.search_c1.p50ms / alone.p50ms).toFixed(2)
      log(`search engine alone (same documents and queries, in process): p50 ${alone.p50ms.toFixed(3)} ms, p99 ${alone.p99ms.toFixed(3)} ms (${alone.queries} queries)`)
      log(targetLine('search p50 over GraphQL, c=1', `${scenarios.search_c1.p50ms.toFixed(3)} ms = ${floors.searchOverEngine}×`, '≤ 3× the engine alone', floors.searchOverEngine <= 3, `engine alone ${alone.p50ms.toFixed(3)} ms`))
    }
    log(`load average: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)

    const tags = Array.from({length: 50}, (_, i) => `urn:li:tag:bench_${i}`)
    if (!wanted('mutation')) {
      const partial: BenchResult = {bench: 'graphql', entities, load: loaded, scenarios, floors}
      log(JSON.stringify(partial))
      return partial
    }
    await post(pool, '/aspects?action=ingestProposalBatch', {proposals: tags.map((t, i) => proposal(t, 'tagProperties', {name: `bench_${i}`})), atomic: true})
    const burst = await drive(pool, 32, burstSeconds, () => JSON.stringify({query: MUTATION, variables: {urn: urn(), tag: tags[Math.floor(rand() * tags.length)]}}), pid)
    scenarios.mutation_addTags_c32 = burst
    log(describe('addTags burst', burst).replace('req/s', 'mutations/s'))

    const result: BenchResult = {bench: 'graphql', entities, load: loaded, scenarios, floors}
    log(JSON.stringify(result))
    return result
  } finally {
    await pool.close()
    if (lite) {
      await lite.stop()
      cleanup(lite.storeDir, lite.home)
    }
  }
}

function arg(name: string): number | undefined {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`))
  return a ? Number(a.slice(name.length + 3)) : undefined
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const url = process.argv.find((x) => x.startsWith('--url='))?.slice('--url='.length)
  const only = process.argv.find((x) => x.startsWith('--only='))?.slice('--only='.length).split(',')
  const concurrency = process.argv.find((x) => x.startsWith('--concurrency='))?.slice('--concurrency='.length).split(',').map(Number)
  main({entities: arg('entities'), seconds: arg('seconds'), burstSeconds: arg('burst-seconds'), url, serverPid: arg('server-pid'), only, loaded: process.argv.includes('--loaded'), concurrency}).catch((e) => {
    console.error(e)
    process.exitCode = 1
  })
}
