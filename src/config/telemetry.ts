/**
 * Telemetry settings. mdcli keeps DataHub's switch and file (`~/.mdcli/telemetry-config.json`,
 * `{client_id, enabled}`) so scripts that toggle it keep working; what is sent, and when, is in
 * `src/cli/telemetry.ts`.
 */
import {randomUUID} from 'node:crypto'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, join} from 'node:path'

export interface TelemetryConfig {
  client_id: string
  enabled: boolean
}

export function telemetryPath(env: Record<string, string | undefined> = process.env): string {
  return join(env.HOME ?? homedir(), '.mdcli', 'telemetry-config.json')
}

export function readTelemetry(path = telemetryPath()): TelemetryConfig {
  if (existsSync(path)) {
    try {
      const c = JSON.parse(readFileSync(path, 'utf8')) as Partial<TelemetryConfig>
      if (typeof c.client_id === 'string' && typeof c.enabled === 'boolean') return {client_id: c.client_id, enabled: c.enabled}
    } catch {
      /* rewritten below */
    }
  }
  return {client_id: randomUUID(), enabled: true}
}

export function setTelemetry(enabled: boolean, path = telemetryPath()): TelemetryConfig {
  const c = {...readTelemetry(path), enabled}
  mkdirSync(dirname(path), {recursive: true})
  writeFileSync(path, JSON.stringify(c, null, 2))
  return c
}
