/**
 * Anonymous usage statistics, as the spec describes them: one event per command invocation with
 * the command's name, the tool's version, the OS, the Node version and whether it succeeded —
 * nothing else (no arguments, no content, no urls, no ids of the user or machine).
 *
 * Sent only when an endpoint is configured (`METADATA_TELEMETRY_ENDPOINT`) and telemetry is on
 * (`mdcli telemetry disable` / `METADATA_TELEMETRY_ENABLED=false` switch it off); posted after the
 * command's output, bounded by `METADATA_TELEMETRY_TIMEOUT`, and every failure is silent.
 */
import {existsSync} from 'node:fs'
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

/** The endpoint events go to, or undefined when telemetry is off or nowhere to send. */
export function telemetryEndpoint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const endpoint = env.METADATA_TELEMETRY_ENDPOINT?.trim()
  if (!endpoint) return undefined
  if (env.METADATA_TELEMETRY_ENABLED !== undefined && /^(false|0|no|off)$/i.test(env.METADATA_TELEMETRY_ENABLED.trim())) return undefined
  const path = telemetryPath(env)
  if (existsSync(path) && !readTelemetry(path).enabled) return undefined
  return endpoint
}

export const FIRST_RUN_NOTICE = `mdcli sends anonymous usage statistics: the command's name, mdcli's version, the OS, the Node
version and whether the command succeeded — never arguments, metadata, addresses or credentials.
Turn it off with \`mdcli telemetry disable\` or METADATA_TELEMETRY_ENABLED=false.`

/** Posts one event; resolves when sent, refused or timed out, never rejects. */
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
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify(body),
      signal: AbortSignal.timeout((Number.isFinite(seconds) && seconds > 0 ? seconds : 10) * 1000),
    })
    await res.arrayBuffer().catch(() => undefined)
  } catch {
    // Telemetry never changes a command's outcome.
  }
}
