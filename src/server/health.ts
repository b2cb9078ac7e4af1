/**
 * What `/health` and `/ready` answer: a list of named checks, each saying whether one part the
 * server needs to serve works, and why not when it does not.
 *
 * Glossary:
 * - check: a named function answering `{ok, reason?}`. The server adds `store` (the database
 *   answers) and `listener` (this replica hears the other replicas' writes) for a PostgreSQL
 *   store; the queue consumer adds `consumer`, the change-log publisher `changelog`. Any module
 *   may add one with `Health.add`.
 * - healthy: every check answered ok, within CHECK_TIMEOUT_MS (5 s). `/health` is 200 then, else 503
 *   with each failing check's reason, so a load balancer stops sending traffic to a replica that
 *   cannot serve.
 * - ready: healthy, and the server has finished starting (first-start bootstrap, sample data,
 *   the admin token written to the config file). `/ready` answers at once even while a starting
 *   server holds its other requests, with 503 until then.
 */

export interface CheckResult {
  ok: boolean
  /** Why not, in one line, when not ok (shown to operators; never a secret or a stack). */
  reason?: string
}

export type Check = () => CheckResult | Promise<CheckResult>

export interface HealthReport {
  healthy: boolean
  checks: Record<string, CheckResult>
}

/** A check that has not answered by then counts as failed: a hung database must not hang /health. */
export const CHECK_TIMEOUT_MS = 5_000

export class Health {
  private readonly checks = new Map<string, Check>()
  private started = false

  /**
   * Adds a named check (replacing one of the same name); returns a function that removes it,
   * for a part that stops (a consumer closed on purpose is not a failure).
   */
  add(name: string, check: Check): () => void {
    this.checks.set(name, check)
    return () => {
      if (this.checks.get(name) === check) this.checks.delete(name)
    }
  }

  /** Names of the checks now registered. */
  names(): string[] {
    return [...this.checks.keys()]
  }

  /** The server has finished starting: `/ready` follows the checks from now on. */
  markReady(): void {
    this.started = true
  }

  get ready(): boolean {
    return this.started
  }

  /** Runs every check at once (each within CHECK_TIMEOUT_MS). */
  async report(timeoutMs = CHECK_TIMEOUT_MS): Promise<HealthReport> {
    const entries = [...this.checks]
    const results = await Promise.all(entries.map(([name, check]) => runCheck(name, check, timeoutMs)))
    const checks: Record<string, CheckResult> = {}
    entries.forEach(([name], i) => (checks[name] = results[i]!))
    return {healthy: results.every((r) => r.ok), checks}
  }
}

async function runCheck(name: string, check: Check, timeoutMs: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => resolve({ok: false, reason: `${name} check did not answer within ${timeoutMs} ms`}), timeoutMs)
    timer.unref()
  })
  try {
    const r = await Promise.race([Promise.resolve().then(check), late])
    return r.ok ? {ok: true} : {ok: false, reason: r.reason ?? `${name} is not working`}
  } catch (e) {
    return {ok: false, reason: (e as Error)?.message ?? String(e)}
  } finally {
    clearTimeout(timer)
  }
}

/** The failing checks as one line: `store: …; listener: …`. */
export function reasonOf(report: HealthReport): string {
  return Object.entries(report.checks)
    .filter(([, r]) => !r.ok)
    .map(([name, r]) => `${name}: ${r.reason}`)
    .join('; ')
}
