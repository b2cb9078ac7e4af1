/**
 * Shared pieces of the benchmarks: start the real `mdcli lite` as a child process, read its
 * peak memory, time things, summarise latencies. Every benchmark talks to 127.0.0.1 only and
 * stops by itself.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {closeSync, createWriteStream, fdatasyncSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync} from 'node:fs'
import {cpus, tmpdir, totalmem} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
export {duBytes} from '../src/store/lowdb-store.js'
import {keyAspectOf} from '../src/model/registry.js'
import {rng} from '../test/helpers/random.js'
import {createStore} from '../src/store/index.js'
import type {WriteOp} from '../src/store/types.js'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
export const BIN = join(ROOT, 'bin', 'run.js')

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

export function rmDir(dir: string): void {
  rmSync(dir, {recursive: true, force: true})
}

export interface LiteChild {
  url: string
  /** Admin token printed at first start (empty on a restart). */
  token: string
  /** Headers that authenticate as the admin. */
  auth: Record<string, string>
  proc: ChildProcess
  /** ms from spawn to the listening line. */
  startMs: number
  stop(): Promise<number>
  kill(): Promise<void>
}

/** Servers a benchmark started: a benchmark that throws must not leave one running (and its store growing). */
const CHILDREN = new Set<ChildProcess>()
process.once('exit', () => {
  for (const c of CHILDREN) c.kill('SIGKILL')
})

export async function startLiteChild(storeDir: string, extraArgs: string[] = [], nodeArgs: string[] = [], givenHome?: string): Promise<LiteChild> {
  // A home made here is the server's alone: it goes when the server exits.
  const home = givenHome ?? tempDir('mdcli-bench-home-')
  const t0 = performance.now()
  // BENCH_NODE_ARGS (e.g. `--trace-gc`) and BENCH_SERVER_LOG (a file for the server's output) are for looking into a run.
  const extraNode = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a.length > 0)
  const proc = spawn(process.execPath, [...nodeArgs, ...extraNode, BIN, 'lite', '--port', '0', '--store', storeDir, ...extraArgs], {
    env: {...process.env, HOME: home, METADATA_TELEMETRY_ENABLED: 'false'},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  CHILDREN.add(proc)
  proc.once('exit', () => {
    CHILDREN.delete(proc)
    if (givenHome === undefined) rmDir(home)
  })
  let out = ''
  proc.stderr!.on('data', (d) => (out += d))
  if (process.env.BENCH_SERVER_LOG) {
    const log = createWriteStream(process.env.BENCH_SERVER_LOG, {flags: 'a'})
    proc.stdout!.pipe(log)
    proc.stderr!.pipe(log)
  }
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    proc.once('exit', (c) => reject(new Error(`mdcli lite exited ${c}: ${out}`)))
  })
  const startMs = performance.now() - t0
  const token = /^\s+(mdt_[A-Za-z0-9_-]+)\s*$/m.exec(out)?.[1] ?? ''
  const exited = new Promise<void>((r) => proc.once('exit', () => r()))
  return {
    url,
    token,
    auth: token ? {authorization: `Bearer ${token}`} : {},
    proc,
    startMs,
    async stop() {
      const t = performance.now()
      proc.kill('SIGTERM')
      await exited
      return performance.now() - t
    },
    async kill() {
      proc.kill('SIGKILL')
      await exited
    },
  }
}

/** Peak resident set size of a live process, bytes (VmHWM). */
export function peakRss(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) * 1024 : 0
}


/**
 * CPU time the machine's PostgreSQL server processes have used so far, ms (0 where /proc shows
 * none, e.g. a server elsewhere): with the server's own, it says where an ingest's CPU goes,
 * which holds better across machines of different speeds than aspects per second.
 */
export function postgresCpuMs(): number {
  let total = 0
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${d}/stat`, 'utf8')
    } catch {
      continue // the process ended meanwhile
    }
    if (!stat.includes('(postgres)') && !stat.includes('(postmaster)')) continue
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    total += ((Number(f[11]) + Number(f[12])) * 1000) / 100
  }
  return total
}

/** CPU time (user + system, all threads) a live process has used so far, ms. */
export function cpuMs(pid: number): number {
  // Fields after the command name (which may hold spaces): utime is the 12th, stime the 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export function machine(): string {
  return `${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`
}

export const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`

/** Deterministic PRNG (mulberry32), so every run generates the same data. */
export {rng}

const WORDS = 'customer order revenue invoice payment account product inventory shipment supplier campaign session event click user profile address region country currency price discount refund return warehouse store employee salary department ledger journal balance forecast budget metric report dashboard churn retention cohort funnel conversion signup login device browser page search query result rank score model feature label training sample batch stream topic partition offset schema table view column index key value record field type status state flag date time timestamp created updated deleted source target lineage owner steward domain tag term glossary policy audit log error warning'.split(' ')

/** A Zipf-like word source over a fixed vocabulary: a few words are common, most are rare. */
export function wordSource(r: () => number): () => string {
  const vocab = [...WORDS, ...Array.from({length: 2800}, (_, i) => `w${i.toString(36)}`)]
  return () => vocab[Math.floor(vocab.length * r() ** 2.2)]!
}

/** Five aspects of a synthetic dataset, about 250 bytes each on average. */
export function datasetAspects(i: number, word: () => string, r: () => number): Array<{urn: string; aspectName: string; value: unknown}> {
  const name = `db${i % 50}.${word()}_${word()}_${i}`
  const urn = `urn:li:dataset:(urn:li:dataPlatform:${['hive', 'postgres', 'snowflake', 'kafka'][i % 4]},${name},PROD)`
  const desc = Array.from({length: 12 + Math.floor(r() * 13)}, word).join(' ')
  const fields = Array.from({length: 6}, (_, k) => ({
    fieldPath: `${word()}_${k}`,
    nullable: true,
    type: {type: {'com.linkedin.schema.StringType': {}}},
    nativeDataType: 'varchar',
  }))
  return [
    {urn, aspectName: 'datasetProperties', value: {name, description: desc, customProperties: {team: word()}}},
    {urn, aspectName: 'ownership', value: {owners: [{owner: `urn:li:corpuser:user${i % 500}`, type: 'TECHNICAL_OWNER'}], lastModified: {time: 1700000000000, actor: 'urn:li:corpuser:bench'}}},
    {urn, aspectName: 'globalTags', value: {tags: [{tag: `urn:li:tag:${word()}`}, {tag: `urn:li:tag:${word()}`}]}},
    {urn, aspectName: 'schemaMetadata', value: {schemaName: name, platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: ''}}, fields}},
    {urn, aspectName: 'status', value: {removed: false}},
  ]
}

export function proposal(a: {urn: string; aspectName: string; value: unknown}, runId?: string): Record<string, unknown> {
  return {
    entityUrn: a.urn,
    changeType: 'UPSERT',
    aspectName: a.aspectName,
    aspect: {contentType: 'application/json', value: JSON.stringify(a.value)},
    ...(runId ? {systemMetadata: {runId, lastObserved: Date.now()}} : {}),
  }
}

/**
 * Writes `datasets` synthetic datasets (five aspects each) straight into an embedded store in
 * `dir` (no HTTP), and closes it cleanly, as a stopped server leaves it. Returns the last urn.
 */
export async function writeDatasetStore(dir: string, datasets: number, runId: string): Promise<string> {
  const store = createStore({dir})
  await store.open()
  const word = wordSource(rng(1))
  const r = rng(2)
  let last = ''
  for (let e = 0; e < datasets; ) {
    const ops: WriteOp[] = []
    while (ops.length < 1000 && e < datasets) {
      for (const a of datasetAspects(e++, word, r)) {
        const k = keyAspectOf(a.urn)
        last = a.urn
        ops.push({
          op: 'upsert',
          urn: a.urn,
          entityType: 'dataset',
          aspectName: a.aspectName,
          value: JSON.stringify(a.value),
          created: {time: 1700000000000, actor: 'urn:li:corpuser:bench'},
          systemMetadata: {runId, lastObserved: 1700000000000},
          keyAspect: {name: k.name, value: JSON.stringify(k.value)},
        })
      }
    }
    await store.write(ops)
  }
  await store.close()
  return last
}

/**
 * The floor an ingest is held to: parsing the same request bodies (the body, then each
 * proposal's aspect value, as the server must) and appending each body to a file with an
 * fdatasync per body, in this process, nothing else. CPU (user + system, from
 * process.cpuUsage) per aspect, µs; the file is removed after.
 */
export function parseAppendFloor(bodies: Array<{body: Buffer; n: number}>): {cpuUsPerAspect: number; aspects: number} {
  const dir = tempDir('mdcli-bench-floor-')
  const fd = openSync(join(dir, 'append.log'), 'a')
  let aspects = 0
  let keep = 0
  const c0 = process.cpuUsage()
  try {
    for (const {body, n} of bodies) {
      const parsed = JSON.parse(body.toString('utf8')) as {proposals: Array<{aspect: {value: string}}>}
      for (const p of parsed.proposals) keep += (JSON.parse(p.aspect.value) as object) ? 1 : 0
      writeSync(fd, body)
      fdatasyncSync(fd)
      aspects += n
    }
  } finally {
    closeSync(fd)
    rmDir(dir)
  }
  const c = process.cpuUsage(c0)
  if (keep !== aspects) throw new Error('floor: a value did not parse')
  return {cpuUsPerAspect: (c.user + c.system) / aspects, aspects}
}

/** One line per target: the figure, its floor measured in the same run, and whether it is met. */
export function targetLine(what: string, figure: string, target: string, met: boolean, floor?: string): string {
  return `  target ${met ? 'met    ' : 'NOT met'}  ${what}: ${figure} (target ${target}${floor ? `; floor ${floor}` : ''})`
}
