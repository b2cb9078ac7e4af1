/**
 * Runs `mdcli lite`'s server on a worker thread of its own, so that its heap can be sized for
 * serving: the command's thread only parses flags, prints, and relays Ctrl-C.
 *
 * Why a thread: every request allocates short-lived objects (parsed aspects, results, HTTP
 * objects) while a large, long-lived store sits in the old generation. With V8's default young
 * generation (16 MiB semi-spaces) the server spends about a tenth of its time in scavenges at
 * 100,000 datasets; a 64 MiB semi-space makes them four times rarer (bench/graphql.ts measured
 * +25 % entity queries/s). V8 fixes that size when a heap is created, and a worker's
 * `resourceLimits` is the one place a running Node process can choose it for a new heap.
 *
 * The worker is the same process: `kill -9` stops both, and what it acknowledged is on disk.
 */
import {statSync} from 'node:fs'
import {setFlagsFromString} from 'node:v8'
import {Worker} from 'node:worker_threads'
import {BugError, errorFromWire, type MdcliError} from '../errors.js'
import {serverHeapMb, storeProfile} from '../store/profile.js'
import type {HttpTimeouts} from './guard.js'

/** What the server thread needs; plain data, since it crosses to the worker by structured clone. */
export interface ServerThreadOptions {
  storeDir: string
  host: string
  port: number
  debug: boolean
  auth: boolean
  checkpointBytes: number
  maxResultWindow: number
  /** Load the sample catalog when the store lacks it. */
  sample: boolean
  consume?: {url: string; subject?: string}
  changelog?: {url: string; subject?: string}
  /** `/metrics` answers without a token. */
  metricsOpen?: boolean
  uiDir?: string
  sessionTtlMs?: number
  adminPassword?: string
  noGeneratedPassword?: boolean
  timeouts?: HttpTimeouts
  allowedHosts?: string[]
}

export interface ServerThread {
  url: string
  auth: boolean
  /** The admin token, when this start created it; shown once. */
  adminToken?: string
  /** The admin's web-app password, when this start generated it; shown once. */
  adminPassword?: string
  /** Sample aspects written by this start (0 when the store had them). */
  sampleAspects: number
  /** Key aspects of the sample entities this start created (rows of the sample's run, never sent). */
  sampleKeyAspects: number
  /** Starts answering requests (they wait until then: see ServerOptions.held). */
  open(): void
  /** Stops the server cleanly (listener closed, store checkpointed and closed). */
  stop(): Promise<void>
  /** Resolves after a clean stop; rejects with the failure when the thread dies or cannot stop. */
  ended: Promise<void>
}

/** Young generation of the server's heap: three semi-spaces' worth (V8 counts them so). */
export const SERVER_YOUNG_GENERATION_MB = 192

/** An error as it crosses threads. */
export interface WireError {
  message: string
  /** An mdcli error code, or a system error code such as EADDRINUSE. */
  code?: string
  status?: number
  details?: unknown
  stack?: string
  /** MdcliError.serverDetail (a path on this machine): the command that started the thread is on it too. */
  serverDetail?: string
  /** A system error's call and path (mkdir of the store, listen), so the start names what was refused. */
  syscall?: string
  path?: string
}

export type ToHost =
  | {type: 'ready'; url: string; auth: boolean; adminToken?: string; adminPassword?: string; sampleAspects: number; sampleKeyAspects: number}
  | {type: 'failed'; error: WireError}
  | {type: 'stopped'}

export function toWire(e: unknown): WireError {
  const err = e as Partial<MdcliError> & {code?: string; stack?: string; syscall?: unknown; path?: unknown}
  return {
    message: err?.message ?? String(e),
    ...(typeof err?.code === 'string' ? {code: err.code} : {}),
    ...(typeof err?.serverDetail === 'string' ? {serverDetail: err.serverDetail} : {}),
    ...(typeof err?.syscall === 'string' ? {syscall: err.syscall} : {}),
    ...(typeof err?.path === 'string' ? {path: err.path} : {}),
    ...(typeof err?.status === 'number' ? {status: err.status} : {}),
    ...(err?.details === undefined ? {} : {details: err.details}),
    ...(err?.stack ? {stack: err.stack} : {}),
  }
}

/** The error to raise on this side: typed errors keep their code; system errors keep `code`. */
export function fromWire(w: WireError): Error {
  if (w.code?.startsWith('E_') && typeof w.status === 'number') {
    const e = errorFromWire(w, w.status)
    if (w.stack) e.stack = w.stack
    if (w.serverDetail) e.serverDetail = w.serverDetail
    return e
  }
  const e = Object.assign(new Error(w.message), w.code ? {code: w.code} : {}, w.syscall ? {syscall: w.syscall} : {}, w.path ? {path: w.path} : {})
  if (w.stack) e.stack = w.stack
  return e
}

/**
 * How far V8 lets an old generation grow past what its last full collection kept: 75 %, where V8
 * picks up to 100 % on its own. The server's heap is mostly the store, which lives for the whole
 * run, while a batch ingest promotes short-lived batch data at a steady rate; each full collection
 * marks the whole store (on V8's helper threads, which share the machine's two cores), so the
 * setting trades CPU for the slack above what is live. 50 % was chosen first, for the memory
 * target (< 1.2 GiB at a million aspects: V8's choice was 140–220 MiB over it on earlier
 * machines). Once the change log's ring stopped promoting its entries, it cost more than it saved
 * (bench/store.ts, 1,000,000 aspects, AMD EPYC family 25 model 17): 50 % gave 35,002–36,711
 * aspects/s at 40.6–43.7 µs of CPU per aspect and 1,069–1,076 MiB peak RSS; 75 % 36,235–38,736/s at
 * 38.0–40.6 µs and 1,071–1,106 MiB; V8's choice 37,716–40,472/s at 35.4–37.1 µs and 1,131–1,164 MiB.
 * 75 % keeps the memory target with room on slower machines. The flag is process-wide and read at
 * every full collection; a --heap-growing-percent of the user's own wins (0 = V8's choice: the
 * fastest ingest where memory is plentiful).
 *
 * Set once the store is open: while a start loads the shards, the heap only grows, and with 50 %
 * V8 collected it in full over and over (a third of a start at a million aspects; V8's own choice
 * starts the server 0.3–0.4 s sooner there, for 40 MiB more RSS until the next full collection).
 *
 * Only for the embedded store. On PostgreSQL the heap holds little more than the requests in
 * flight, and a small heap allowed to grow 50 % is collected in full over and over: V8's choice
 * took the server's CPU per ingested aspect from 45–48 µs to 35–36 µs and the ingest from
 * 18,000–19,000 to 21,000–21,700 aspects/s (bench/pg-store.ts, 400,000 aspects, two pairs).
 */
export const HEAP_GROWING_PERCENT = 75

/** The V8 flag the server's process takes for a store (see HEAP_GROWING_PERCENT), if any. */
export function heapGrowingFlag(store: string, execArgv: readonly string[]): string | undefined {
  if (!storeProfile(store).inHeap || execArgv.some((a) => a.startsWith('--heap-growing-percent'))) return undefined
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`
}

/**
 * The server thread's module: the build's bundle of thread-worker.js and what it reaches
 * (scripts/bundle-server-thread.mjs: the worker then loads a few modules instead of ~160), unless
 * it is missing or older than the modules it was made from (dist/ emitted by tsc alone since).
 */
export function serverThreadModule(): URL {
  const plain = new URL('./thread-worker.js', import.meta.url)
  const bundled = new URL('./thread-bundle/thread-worker.js', import.meta.url)
  try {
    if (statSync(bundled).mtimeMs >= statSync(plain).mtimeMs) return bundled
  } catch {
    // No bundle: the plain module.
  }
  return plain
}

function serverWorker(): Worker {
  return new Worker(serverThreadModule(), {
    // graphql-js skips its development-only checks (a multi-realm guard on every type test) when
    // NODE_ENV is production; it reads it when it loads, which may be before the command sets it.
    env: {...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production'},
    // The old generation is sized from the machine's memory; the store refuses writes
    // (E_STORE_MEMORY) before the heap reaches it, rather than dying there.
    resourceLimits: {maxYoungGenerationSizeMb: SERVER_YOUNG_GENERATION_MB, maxOldGenerationSizeMb: serverHeapMb()},
  })
}

/** A server thread started before the command knew its options, and what befell it meanwhile. */
interface EarlyThread {
  worker: Worker
  error?: Error
  exitCode?: number
}
let early: EarlyThread | undefined

/**
 * Starts the server thread at once, for `startServerThread` to hand its options to later: the
 * thread loads the server's modules (GraphQL, the store, the catalog: most of a start's CPU)
 * while the command's thread loads oclif and parses the flags. The thread waits for its options
 * before it touches a store or a port, and does not keep the process alive until it is used, so
 * a command that fails on its flags exits as before.
 */
export function prestartServerThread(): void {
  if (early) return
  const e: EarlyThread = {worker: serverWorker()}
  e.worker.on('error', (err) => (e.error ??= err))
  e.worker.once('exit', (code) => (e.exitCode = code))
  e.worker.unref()
  early = e
}

export function startServerThread(opts: ServerThreadOptions): Promise<ServerThread> {
  const flag = heapGrowingFlag(opts.storeDir, process.execArgv)
  const pre = early
  early = undefined
  const worker = pre?.worker ?? serverWorker()
  worker.ref()
  return new Promise<ServerThread>((resolveStart, rejectStart) => {
    let started = false
    let stopped: (() => void) | undefined
    let failEnded: (e: Error) => void = () => {}
    const ended = new Promise<void>((resolve, reject) => {
      stopped = resolve
      failEnded = reject
    })
    // Nobody may be waiting on `ended` when the thread fails during start.
    ended.catch(() => {})
    const fail = (e: Error) => (started ? failEnded(e) : rejectStart(e))

    worker.on('message', (m: ToHost) => {
      if (m.type === 'ready') {
        started = true
        if (flag) setFlagsFromString(flag)
        resolveStart({
          url: m.url,
          auth: m.auth,
          adminToken: m.adminToken,
          adminPassword: m.adminPassword,
          sampleAspects: m.sampleAspects,
          sampleKeyAspects: m.sampleKeyAspects,
          open: () => worker.postMessage({type: 'open'}),
          stop: () => {
            worker.postMessage({type: 'stop'})
            return ended
          },
          ended,
        })
      } else if (m.type === 'failed') {
        fail(fromWire(m.error))
        // A server that could not stop cleanly must not keep the process waiting on it.
        if (started) void worker.terminate()
      }
      else if (m.type === 'stopped') {
        // The store is closed: nothing the thread still holds may keep the process alive.
        worker.unref()
        stopped?.()
      }
    })
    worker.on('error', (e) => fail(e))
    worker.on('exit', (code) => {
      fail(new BugError(`The server thread ended unexpectedly (exit code ${code})`))
    })
    if (pre?.error) fail(pre.error)
    else if (pre?.exitCode !== undefined) fail(new BugError(`The server thread ended unexpectedly (exit code ${pre.exitCode})`))
    else worker.postMessage({type: 'start', opts})
  })
}
