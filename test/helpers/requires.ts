/**
 * Preconditions of test suites that use things outside the repository: DataHub's fixtures in
 * `../shared/fixtures`, and the machine's PostgreSQL, MariaDB and NATS servers.
 *
 * Outside CI a missing precondition skips the suite with a visible reason (a newcomer's clone
 * without `../shared`, a laptop without MariaDB); in CI (`CI=true`) it fails the suite, so a
 * green run always means the tests really ran.
 */
import {existsSync} from 'node:fs'
import {createConnection} from 'node:net'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

// Not imported from lite.ts: that helper imports this module (through pg.ts), and a cycle would
// leave the constant uninitialised when this one loads first.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** DataHub's fixtures beside the repository (not part of it). */
export const SHARED_FIXTURES = join(ROOT, '..', 'shared', 'fixtures')

export const IN_CI = process.env.CI === 'true' || process.env.CI === '1'

/**
 * Skips what `ctx` runs (the test, or in a `before` hook every test of the suite) with `reason`
 * written into each skipped test's title, so the reporter shows why beside every one of them.
 */
export function skipWithReason(ctx: Mocha.Context, reason: string): never {
  const note = ` (skipped: ${reason})`
  const mark = (suite: Mocha.Suite): void => {
    for (const t of suite.tests) if (!t.title.endsWith(note)) t.title += note
    for (const s of suite.suites) mark(s)
  }
  const runnable = ctx.test as (Mocha.Runnable & {type?: string}) | undefined
  if (runnable?.type === 'test') runnable.title += note
  // A beforeEach hook skips the one test it runs for; a before hook, the whole suite.
  else if (runnable?.type === 'hook' && /before each/.test(runnable.title) && ctx.currentTest) ctx.currentTest.title += note
  else if (runnable?.parent) mark(runnable.parent)
  ctx.skip()
}

function unavailable(ctx: Mocha.Context, reason: string): void {
  if (IN_CI) throw new Error(`${reason} (CI=true: required)`)
  skipWithReason(ctx, reason)
}

/**
 * In a `before` hook (use `function () {…}`, not an arrow): skips the suite when
 * `../shared/fixtures` (or the named file inside it) is absent.
 */
export function requireSharedFixtures(ctx: Mocha.Context, ...relPath: string[]): string {
  const path = join(SHARED_FIXTURES, ...relPath)
  if (!existsSync(path)) unavailable(ctx, `DataHub fixture ${relPath.length ? relPath.join('/') : 'folder'} not found at ${path}`)
  return path
}

/** True when something accepts TCP connections on host:port within `timeoutMs`. */
export function portAnswers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({host, port})
    const done = (ok: boolean) => {
      sock.destroy()
      resolve(ok)
    }
    sock.setTimeout(timeoutMs, () => done(false))
    sock.once('connect', () => done(true))
    sock.once('error', () => done(false))
  })
}

async function requireService(ctx: Mocha.Context, name: string, host: string, port: number): Promise<void> {
  if (!(await portAnswers(host, port))) unavailable(ctx, `${name} does not answer on ${host}:${port}`)
}

/** PostgreSQL: `MDCLI_TEST_POSTGRES_URL`, else the local server on 127.0.0.1:5432 (trust auth). */
export async function requirePostgres(ctx: Mocha.Context): Promise<string> {
  const url = process.env.MDCLI_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const u = new URL(url)
  await requireService(ctx, 'PostgreSQL', u.hostname, Number(u.port || 5432))
  return url
}

/** MariaDB/MySQL on 127.0.0.1:3306 (root, empty password), or `MDCLI_TEST_MYSQL_URL`. */
export async function requireMariadb(ctx: Mocha.Context): Promise<string> {
  const url = process.env.MDCLI_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test'
  const u = new URL(url)
  await requireService(ctx, 'MariaDB', u.hostname, Number(u.port || 3306))
  return url
}

/** NATS with JetStream on 127.0.0.1:4222, or `MDCLI_TEST_NATS_URL`. */
export async function requireNats(ctx: Mocha.Context): Promise<string> {
  const url = process.env.MDCLI_TEST_NATS_URL ?? 'nats://127.0.0.1:4222'
  const u = new URL(url)
  await requireService(ctx, 'NATS', u.hostname, Number(u.port || 4222))
  return url
}

/** A name no other test run uses at the same time (databases, streams, subjects). */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`
}
