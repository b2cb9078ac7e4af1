/**
 * Anonymous usage telemetry, as the spec says: the command's name, the tool's version, the OS,
 * the Node version and whether the command succeeded — nothing else (no arguments, no urns, no
 * server address, no client id). Sent only when an endpoint is configured
 * (`METADATA_TELEMETRY_ENDPOINT`) and telemetry is on (`mdcli telemetry disable` or
 * `METADATA_TELEMETRY_ENABLED=false` turn it off).
 *
 * The post never delays a command: a detached child process sends it after the command has
 * finished, gives up after `METADATA_TELEMETRY_TIMEOUT` seconds and reports nothing on failure,
 * while the command's own process exits at once.
 */
import {spawn} from 'node:child_process'
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {readTelemetry, telemetryPath} from '../config/telemetry.js'
import {resolveSettings} from '../config/settings.js'

export interface TelemetryEvent {
  command: string
  version: string
  os: string
  node: string
  success: boolean
}

const SENDER = fileURLToPath(new URL('./telemetry-send.js', import.meta.url))

/** The one-time notice shown before the first event is sent. */
export function firstRunNotice(endpoint: string): string {
  return `mdcli sends anonymous usage statistics to ${endpoint}: command name, mdcli version, OS, Node version and success or failure — no arguments, no metadata. Turn it off with \`mdcli telemetry disable\` or METADATA_TELEMETRY_ENABLED=false.\n`
}

/** Sends one event in the background when telemetry is on and an endpoint is set; never throws. */
export function sendTelemetry(event: TelemetryEvent, env: NodeJS.ProcessEnv = process.env): void {
  try {
    const endpoint = env.METADATA_TELEMETRY_ENDPOINT?.trim()
    if (!endpoint) return
    const settings = resolveSettings(env)
    if (!settings.telemetryEnabled) return
    const path = telemetryPath(env)
    if (!readTelemetry(path).enabled) return
    const notified = join(dirname(path), 'telemetry-notified')
    if (!existsSync(notified)) {
      // First event: say what is sent and how to stop it, once.
      process.stderr.write(firstRunNotice(endpoint))
      mkdirSync(dirname(path), {recursive: true})
      writeFileSync(notified, `${new Date().toISOString()}\n`)
    }
    const child = spawn(process.execPath, [SENDER, endpoint, String(settings.telemetryTimeoutSec), JSON.stringify(event)], {detached: true, stdio: 'ignore', env: {}})
    child.on('error', () => undefined)
    child.unref()
  } catch {
    // Telemetry failures are silent by design.
  }
}
