/**
 * Anonymous usage statistics, as the spec describes them: one event per command invocation with
 * the command's name, the tool's version, the OS, the Node version and whether it succeeded —
 * nothing else (no arguments, no content, no urls, no ids of the user or machine).
 *
 * Sent only when an endpoint is configured (`METADATA_TELEMETRY_ENDPOINT`) and telemetry is on
 * (`mdcli telemetry disable` / `METADATA_TELEMETRY_ENABLED=false` switch it off); posted after the
 * command's output by a detached process (bounded by `METADATA_TELEMETRY_TIMEOUT`), so that the
 * command never waits for the collector, and every failure is silent.
 */
import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {readTelemetry, setTelemetry, telemetryPath} from '../config/telemetry.js'

export interface TelemetryEvent {
  event: 'command'
  command: string
  version: string
  os: string
  node: string
  success: boolean
}

export interface TelemetryOptions {
  env?: NodeJS.ProcessEnv
  /** Where a first-run notice goes. */
  notice?: (text: string) => void
}

/** Whether METADATA_TELEMETRY_ENABLED turns telemetry off, whatever the saved switch says. */
export function telemetryOffInEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.METADATA_TELEMETRY_ENABLED !== undefined && /^(false|0|no|off)$/i.test(env.METADATA_TELEMETRY_ENABLED.trim())
}

/** The endpoint events go to, or undefined when telemetry is off or nowhere to send. */
export function telemetryEndpoint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const endpoint = env.METADATA_TELEMETRY_ENDPOINT?.trim()
  if (!endpoint) return undefined
  if (telemetryOffInEnv(env)) return undefined
  const path = telemetryPath(env)
  if (existsSync(path) && !readTelemetry(path).enabled) return undefined
  return endpoint
}

export const FIRST_RUN_NOTICE = `mdcli sends anonymous usage statistics: the command's name, mdcli's version, the OS, the Node
version and whether the command succeeded — never arguments, metadata, addresses or credentials.
Turn it off with \`mdcli telemetry disable\` or METADATA_TELEMETRY_ENABLED=false.`

/**
 * Hands one event to a detached process that posts it, and returns at once: whatever the
 * collector does (answers slowly, never answers, is down), the command's exit waits for nothing
 * but the start of that process. Never throws.
 */
export async function sendTelemetry(ev: Omit<TelemetryEvent, 'event' | 'os' | 'node'>, opts: TelemetryOptions = {}): Promise<void> {
  const env = opts.env ?? process.env
  try {
    const endpoint = telemetryEndpoint(env)
    if (!endpoint) return
    const path = telemetryPath(env)
    if (!existsSync(path)) {
      opts.notice?.(FIRST_RUN_NOTICE)
      setTelemetry(true, path)
    }
    const seconds = Number.parseInt(env.METADATA_TELEMETRY_TIMEOUT ?? '', 10)
    const body: TelemetryEvent = {event: 'command', ...ev, os: process.platform, node: process.version}
    const job: TelemetryJob = {endpoint, body, timeoutMs: (Number.isFinite(seconds) && seconds > 0 ? seconds : 10) * 1000}
    const child = spawn(process.execPath, [fileURLToPath(new URL('./telemetry-send.js', import.meta.url)), JSON.stringify(job)], {
      detached: true,
      stdio: 'ignore',
      // The event is all it needs: none of the user's settings or secrets go along.
      env: {PATH: env.PATH ?? ''},
    })
    child.on('error', () => {})
    child.unref()
  } catch {
    // Telemetry never changes a command's outcome.
  }
}

/** What the detached sender (telemetry-send.ts) is given. */
export interface TelemetryJob {
  endpoint: string
  body: TelemetryEvent
  timeoutMs: number
}

/** Posts one event within `timeoutMs`; resolves when sent, refused or timed out, never rejects. */
export async function postTelemetry(job: TelemetryJob): Promise<void> {
  try {
    const res = await fetch(job.endpoint, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify(job.body),
      signal: AbortSignal.timeout(job.timeoutMs),
    })
    await res.arrayBuffer().catch(() => undefined)
  } catch {
    // Nobody is waiting for the answer.
  }
}
