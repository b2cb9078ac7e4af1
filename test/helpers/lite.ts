/**
 * Test helpers that drive the real product: start `mdcli lite` through the real binary on an
 * ephemeral port with a temporary store, and run CLI commands against it.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {createTestDatabase, type TestDatabase} from './pg.js'

/** Repository root (the compiled helper lives in dist/test/helpers). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
export const BIN = join(ROOT, 'bin', 'run.js')
/** The shared fixtures folder beside the repository. */
export const FIXTURES = join(ROOT, '..', 'shared', 'fixtures')
/** The project's own small catalog (scripts/make-catalog-fixture.mjs): pages and store tests run on it. */
export const CATALOG_SAMPLE = join(ROOT, 'test', 'fixtures', 'catalog', 'catalog-sample.json')

function readIfExists(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : ''
}

/** Every directory `tempDir` made: the root hook removes what a test left behind. */
const TEMP_DIRS = new Set<string>()

export function tempDir(prefix = 'mdcli-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  TEMP_DIRS.add(dir)
  return dir
}

/** Removes the temporary directories of the run (called once every test has finished). */
export function removeTempDirs(): void {
  for (const d of TEMP_DIRS) rmSync(d, {recursive: true, force: true})
  TEMP_DIRS.clear()
}

/** Admin token of each running test server, by origin, so `http()` can authenticate. */
const TOKENS = new Map<string, string>()

export interface LiteProcess {
  url: string
  /** The admin access token (printed at first start, or read back from the saved config). */
  token: string
  port: number
  storeDir: string
  home: string
  proc: ChildProcess
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string
  /** Environment for CLI commands aimed at this server. */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv
  /** Graceful stop (SIGTERM), waiting for exit. */
  stop(): Promise<number | null>
  /** SIGKILL, waiting for exit. */
  kill(): Promise<void>
}

export interface StartOptions {
  storeDir?: string
  home?: string
  args?: string[]
  env?: Record<string, string>
  timeoutMs?: number
}

/**
 * Which store a test server gets when the test names none: `MDCLI_TEST_STORE=postgres` runs the
 * same suites on a fresh PostgreSQL database per server (`npm run test:pg`), dropped by
 * `cleanup()`; anything else, a temporary embedded store.
 */
export const TEST_STORE = process.env.MDCLI_TEST_STORE === 'postgres' ? 'postgres' : 'embedded'
const TEST_DATABASES = new Map<string, TestDatabase>()
const DROPS: Array<Promise<void>> = []

async function defaultStore(): Promise<string> {
  if (TEST_STORE !== 'postgres') return tempDir('mdcli-store-')
  const db = await createTestDatabase(process.env.MDCLI_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'mdcli_suite')
  TEST_DATABASES.set(db.url, db)
  return db.url
}

/** Every `mdcli lite` the run started that has not exited yet. */
const LIVE = new Set<ChildProcess>()

/**
 * Kills the servers a test left running (it failed before its own stop): their pipes would keep
 * mocha from ever exiting, and their timers would go on costing CPU for the rest of the run.
 */
export async function killLeftoverServers(): Promise<number> {
  const left = [...LIVE]
  await Promise.all(
    left.map(
      (p) =>
        new Promise<void>((resolve) => {
          if (p.exitCode !== null || p.signalCode !== null) return resolve()
          p.once('exit', () => resolve())
          p.kill('SIGKILL')
        }),
    ),
  )
  LIVE.clear()
  return left.length
}

/** Waits for the test databases `cleanup()` dropped (the mocha root hook calls it at the end). */
export async function dropTestDatabases(): Promise<void> {
  for (const db of TEST_DATABASES.values()) DROPS.push(db.drop())
  TEST_DATABASES.clear()
  await Promise.allSettled(DROPS)
}

export async function startLite(opts: StartOptions = {}): Promise<LiteProcess> {
  const storeDir = opts.storeDir ?? (await defaultStore())
  const home = opts.home ?? tempDir('mdcli-home-')
  const baseEnv: NodeJS.ProcessEnv = {...process.env, HOME: home, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1', ...opts.env}
  delete baseEnv.METADATA_GMS_URL
  const proc = spawn(process.execPath, [BIN, 'lite', '--port', '0', '--store', storeDir, ...(opts.args ?? [])], {
    env: baseEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  proc.stdout!.on('data', (d) => (out += d.toString()))
  proc.stderr!.on('data', (d) => (out += d.toString()))
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
  LIVE.add(proc)
  proc.once('exit', () => LIVE.delete(proc))
  const url = await new Promise<string>((resolve, reject) => {
    // A hang guard, not a measure: a start on a loaded 2-core machine (or a PostgreSQL store) may
    // take tens of seconds. A server that did not start is killed, so it cannot outlive the run.
    const timer = setTimeout(() => {
      proc.kill('SIGKILL')
      reject(new Error(`mdcli lite did not start in time:\n${out}`))
    }, opts.timeoutMs ?? 90_000)
    const check = () => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    }
    proc.stdout!.on('data', check)
    proc.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`mdcli lite exited with ${code} before listening:\n${out}`))
    })
  })
  const port = Number(new URL(url).port)
  const printed = /^\s+(mdt_[A-Za-z0-9_-]+)\s*$/m.exec(out)?.[1]
  const saved = /token: (mdt_[A-Za-z0-9_-]+)/.exec(readIfExists(join(home, '.mdclienv')))?.[1]
  const token = printed ?? saved ?? ''
  if (token) TOKENS.set(new URL(url).origin, token)
  return {
    url,
    token,
    port,
    storeDir,
    home,
    proc,
    output: () => out,
    env: (extra = {}) => ({...process.env, HOME: home, METADATA_GMS_URL: url, METADATA_GMS_TOKEN: token, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1', ...extra}),
    async stop() {
      if (proc.exitCode !== null) return proc.exitCode
      proc.kill('SIGTERM')
      return exited
    },
    async kill() {
      if (proc.exitCode !== null || proc.signalCode !== null) return
      proc.kill('SIGKILL')
      await exited
    },
  }
}

/**
 * Starts one `mdcli lite` for the enclosing mocha `describe` (before) and stops and removes it
 * after. The returned object stands for that server once `before` has run.
 */
export function useLite(opts: StartOptions = {}): LiteProcess {
  let current: LiteProcess | undefined
  before(async () => {
    current = await startLite(opts)
  })
  after(async () => {
    if (!current) return
    await current.stop()
    cleanup(current.storeDir, current.home)
  })
  return new Proxy({} as LiteProcess, {
    get(_target, key) {
      if (!current) throw new Error('useLite(): the server starts in before(); use it inside hooks and tests')
      return current[key as keyof LiteProcess]
    },
  })
}

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `mdcli <args>` as a user would; never throws on a non-zero exit. */
/** `inputAfterMs`: stdin stays open and empty that long before `input` is written (a slow producer upstream in a pipe). */
export function runCli(args: string[], opts: {env?: NodeJS.ProcessEnv; input?: string; inputAfterMs?: number; cwd?: string; timeoutMs?: number} = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], {env: opts.env ?? {...process.env, NO_COLOR: '1'}, cwd: opts.cwd ?? ROOT, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    p.stdout.on('data', (d) => (stdout += d.toString()))
    p.stderr.on('data', (d) => (stderr += d.toString()))
    // A hang guard: a command on a loaded machine may take a minute; its speed is not checked here.
    const timer = setTimeout(() => {
      p.kill('SIGKILL')
      reject(new Error(`mdcli ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, opts.timeoutMs ?? 180_000)
    p.on('error', reject)
    p.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    })
    if (opts.inputAfterMs === undefined) p.stdin.end(opts.input ?? '')
    else setTimeout(() => p.stdin.end(opts.input ?? ''), opts.inputAfterMs)
  })
}

/**
 * JSON over HTTP to the server (fetch), returning status and parsed body. Authenticates as the
 * admin of the test server it talks to, unless `token` says otherwise (null: send none).
 */
export async function http(url: string, init: {method?: string; body?: unknown; headers?: Record<string, string>; token?: string | null} = {}): Promise<{status: number; body: any; headers: Headers}> {
  const token = init.token === undefined ? TOKENS.get(new URL(url).origin) : init.token
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {'content-type': 'application/json', 'x-restli-protocol-version': '2.0.0', ...(token ? {authorization: `Bearer ${token}`} : {}), ...init.headers},
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  })
  const text = await res.text()
  let body: any = text
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    /* not JSON */
  }
  return {status: res.status, body, headers: res.headers}
}

/**
 * Waits until `cond` holds (polling), for output that another thread writes: the server's log
 * lines reach the process's stderr a moment after the response that caused them.
 */
export async function eventually(cond: () => boolean, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) return false
    await new Promise((r) => setTimeout(r, 20))
  }
  return true
}

/** Removes test directories; one a skipped suite never made (undefined) is passed over. */
export function cleanup(...dirs: Array<string | undefined>): void {
  for (const d of dirs) {
    if (!d) continue
    const db = TEST_DATABASES.get(d)
    if (db) {
      TEST_DATABASES.delete(d)
      DROPS.push(db.drop().catch(() => undefined))
    } else rmSync(d, {recursive: true, force: true})
  }
}
