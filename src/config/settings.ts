/**
 * Settings: environment variables over the config file written by `mdcli init` over defaults.
 *
 * The config file is `~/.mdclienv` (YAML, `gms: {server, token}` as in DataHub's `~/.datahubenv`),
 * or the path in `MDCLI_CONFIG_FILE`. It is written owner-only (0600): it holds a token.
 */
import {chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, join} from 'node:path'
import yaml from 'js-yaml'
import {ConfigError} from '../errors.js'
import {maskUrl} from '../store/postgres/url.js'

export interface ConfigFile {
  gms?: {server?: string; token?: string | null}
  /** The store of `mdcli lite` and the store commands: a directory or a `postgres://` URL. */
  store?: string
  /** `mdcli lite`'s queue: `consume` / `changelog` as `nats://host:port[/stream]`, and their subjects. */
  events?: {consume?: string; consume_subject?: string; changelog?: string; changelog_subject?: string}
  [k: string]: unknown
}

export interface Settings {
  /** Base URL of the server, no trailing slash. */
  server: string
  token?: string
  debug: boolean
  skipConfig: boolean
  telemetryEnabled: boolean
  telemetryTimeoutSec: number
  /** Where the settings came from, for `--debug` and error messages. */
  serverSource: 'env' | 'config' | 'default'
  configPath: string
  /** Where the settings came from, for `init` and `--debug` (variables and files, never values). */
  sources: string[]
}

export const DEFAULT_SERVER = 'http://localhost:8080'

type Env = Record<string, string | undefined>

function truthy(v: string | undefined): boolean {
  return v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase())
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim()
}

export function configPath(env: Env = process.env): string {
  return nonEmpty(env.MDCLI_CONFIG_FILE) ?? join(env.HOME ?? homedir(), '.mdclienv')
}

/** The default directory of the `mdcli lite` store. */
export function defaultStoreDir(env: Env = process.env): string {
  // A database URL chosen for every command (`postgres://…`); the directory otherwise.
  const url = nonEmpty(env.METADATA_STORE_URL)
  if (url) return url
  if (!truthy(env.METADATA_SKIP_CONFIG)) {
    let file: ConfigFile | undefined
    try {
      file = readConfigFile(configPath(env))
    } catch {
      // A broken config file is reported by the commands that need its gms section.
    }
    if (typeof file?.store === 'string' && file.store.trim() !== '') return file.store.trim()
  }
  const data = nonEmpty(env.XDG_DATA_HOME) ?? join(env.HOME ?? homedir(), '.local', 'share')
  return join(data, 'mdcli', 'lite')
}

/** The `events:` section of the config file (lite's queue), when there is one. */
export function eventsFromConfig(env: Env = process.env): NonNullable<ConfigFile['events']> {
  if (truthy(env.METADATA_SKIP_CONFIG)) return {}
  try {
    const e = readConfigFile(configPath(env))?.events
    return e && typeof e === 'object' ? e : {}
  } catch {
    return {}
  }
}

/** The default store as `--help` shows it: a database URL's password masked. */
export async function defaultStoreHelp(): Promise<string> {
  return maskUrl(defaultStoreDir())
}

export function readConfigFile(path: string): ConfigFile | undefined {
  if (!existsSync(path)) return undefined
  let doc: unknown
  try {
    doc = yaml.load(readFileSync(path, 'utf8'))
  } catch (e) {
    throw new ConfigError(`Config file ${path} is not valid YAML: ${(e as Error).message.split('\n')[0]}`)
  }
  if (doc === null || doc === undefined) return {}
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(`Config file ${path} must hold a mapping with a 'gms' section`)
  return doc as ConfigFile
}

/** Writes the config file owner-only, keeping keys other than `gms` that were already there. */
export function writeConfigFile(path: string, gms: {server: string; token?: string | null}): void {
  const prev = readConfigFile(path) ?? {}
  const next: ConfigFile = {...prev, gms: {server: gms.server, token: gms.token ?? null}}
  mkdirSync(dirname(path), {recursive: true})
  writeFileSync(path, yaml.dump(next), {mode: 0o600})
  chmodSync(path, 0o600)
}

/** Expands `{VAR}` placeholders in a token from the environment, as DataHub's CLI does. */
function expandToken(t: string, env: Env): string {
  return t.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => env[name] ?? '')
}

export function normalizeServerUrl(url: string): string {
  let u = url.trim()
  if (!/^https?:\/\//i.test(u)) u = `http://${u}`
  try {
    new URL(u)
  } catch {
    throw new ConfigError(`'${url}' is not a valid server URL (expected e.g. http://localhost:8080)`)
  }
  return u.replace(/\/+$/, '')
}

const GMS_KEYS = ['URL', 'HOST', 'PORT', 'PROTOCOL', 'TOKEN'] as const

/**
 * DataHub habits: `DATAHUB_GMS_*` stand in for an absent `METADATA_GMS_*` (ours win), and
 * `~/.datahubenv` for an absent `~/.mdclienv`. Returns the environment to read and what was used.
 */
function withDatahubFallbacks(env: Env): {env: Env; used: string[]} {
  const out: Env = {...env}
  const used: string[] = []
  for (const k of GMS_KEYS) {
    const ours = nonEmpty(env[`METADATA_GMS_${k}`])
    const theirs = nonEmpty(env[`DATAHUB_GMS_${k}`])
    if (ours) used.push(`METADATA_GMS_${k}`)
    else if (theirs) {
      out[`METADATA_GMS_${k}`] = theirs
      used.push(`DATAHUB_GMS_${k}`)
    }
  }
  return {env: out, used}
}

/** DataHub's config file, read when ours does not exist. */
export function datahubConfigPath(env: Env = process.env): string {
  return join(env.HOME ?? homedir(), '.datahubenv')
}

export function resolveSettings(rawEnv: Env = process.env): Settings {
  const {env, used} = withDatahubFallbacks(rawEnv)
  const path = configPath(env)
  const skipConfig = truthy(env.METADATA_SKIP_CONFIG)
  let file = skipConfig ? undefined : readConfigFile(path)
  let fileUsed = file ? path : undefined
  // Our file as first use wrote it (default server, no token) says nothing: DataHub's still speaks.
  const untouched = file !== undefined && (file.gms?.server === undefined || file.gms.server === DEFAULT_SERVER) && !file.gms?.token
  if (!skipConfig && (!file || (untouched && existsSync(datahubConfigPath(env)))) && !nonEmpty(env.MDCLI_CONFIG_FILE)) {
    file = readConfigFile(datahubConfigPath(env))
    if (file) fileUsed = datahubConfigPath(env)
  }
  let server: string | undefined
  let serverSource: Settings['serverSource'] = 'default'
  const envUrl = nonEmpty(env.METADATA_GMS_URL)
  const host = nonEmpty(env.METADATA_GMS_HOST)
  if (envUrl) {
    server = envUrl
    serverSource = 'env'
  } else if (host) {
    const port = nonEmpty(env.METADATA_GMS_PORT)
    const proto = nonEmpty(env.METADATA_GMS_PROTOCOL) ?? 'http'
    if (proto !== 'http' && proto !== 'https') throw new ConfigError(`METADATA_GMS_PROTOCOL must be http or https, got '${proto}'`)
    server = port ? `${proto}://${host}:${port}` : host.includes('://') ? host : `${proto}://${host}:8080`
    serverSource = 'env'
  } else if (nonEmpty(env.METADATA_GMS_PORT)) {
    const proto = nonEmpty(env.METADATA_GMS_PROTOCOL) ?? 'http'
    server = `${proto}://localhost:${env.METADATA_GMS_PORT!.trim()}`
    serverSource = 'env'
  } else if (file?.gms?.server) {
    server = file.gms.server
    serverSource = 'config'
  }
  const rawToken = nonEmpty(env.METADATA_GMS_TOKEN) ?? (typeof file?.gms?.token === 'string' ? nonEmpty(file.gms.token) : undefined)
  const timeout = Number(nonEmpty(env.METADATA_TELEMETRY_TIMEOUT) ?? '10')
  if (!Number.isFinite(timeout) || timeout < 0) throw new ConfigError(`METADATA_TELEMETRY_TIMEOUT must be a whole number of seconds, got '${env.METADATA_TELEMETRY_TIMEOUT}'`)
  return {
    server: normalizeServerUrl(server ?? DEFAULT_SERVER),
    token: rawToken ? expandToken(rawToken, env) : undefined,
    debug: truthy(env.METADATA_DEBUG),
    skipConfig,
    telemetryEnabled: env.METADATA_TELEMETRY_ENABLED === undefined ? true : truthy(env.METADATA_TELEMETRY_ENABLED),
    telemetryTimeoutSec: timeout,
    serverSource,
    configPath: path,
    sources: [...used.map((v) => `environment variable ${v}`), ...(fileUsed ? [`config file ${fileUsed}`] : [])],
  }
}
