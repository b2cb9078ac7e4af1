/**
 * What `mdcli telemetry enable|disable|status` report: whether events are sent, and why not
 * when they are not (the switch, the environment, no endpoint).
 */
import {existsSync} from 'node:fs'
import {readTelemetry, telemetryPath} from '../config/telemetry.js'
import {telemetryEndpoint, telemetryOffInEnv} from './telemetry.js'

export interface TelemetryState {
  /** The saved switch (`telemetry enable|disable`; on until turned off). */
  enabled: boolean
  /** Whether a command run now would send its event. */
  sending: boolean
  /** Why nothing is sent, when nothing is. */
  reason?: string
  /** METADATA_TELEMETRY_ENABLED turns it off here, whatever the saved switch says. */
  offInEnv?: true
  endpoint?: string
  path: string
}

export function telemetryState(env: NodeJS.ProcessEnv = process.env): TelemetryState {
  const path = telemetryPath(env)
  const enabled = existsSync(path) ? readTelemetry(path).enabled : true
  const endpoint = env.METADATA_TELEMETRY_ENDPOINT?.trim() || undefined
  const sending = telemetryEndpoint(env) !== undefined
  const offInEnv = !sending && enabled && telemetryOffInEnv(env)
  let reason: string | undefined
  if (!sending) {
    if (!enabled) reason = 'turned off (mdcli telemetry disable)'
    else if (offInEnv) reason = `METADATA_TELEMETRY_ENABLED=${env.METADATA_TELEMETRY_ENABLED!.trim()} turns it off here`
    else reason = 'no METADATA_TELEMETRY_ENDPOINT is set'
  }
  return {enabled, sending, ...(reason ? {reason} : {}), ...(offInEnv ? {offInEnv: true as const} : {}), ...(endpoint ? {endpoint} : {}), path}
}

/** One line for a person. */
export function telemetryLine(s: TelemetryState): string {
  const state = `Telemetry is ${s.enabled ? 'enabled' : 'disabled'} (${s.path})`
  if (s.sending) return `${state}; events go to ${s.endpoint}.`
  if (!s.enabled) return `${state}; nothing is sent.`
  // The saved switch is on but the environment overrides it: say the override first, not "enabled".
  if (s.offInEnv) return `Telemetry is off: ${s.reason} (the saved switch in ${s.path} is on); nothing is sent.`
  return `${state}; nothing is sent: ${s.reason}.`
}
