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
import {storeIdentity} from './store-id.js'

export interface ConfigFile {
  gms?: {server?: string; token?: string | null}
  /** The store of `mdcli lite` and the store commands: a directory or a `postgres://` URL. */
  store?: string
  /** `mdcli lite`'s queue: `consume` / `changelog` as `nats://host:port[/stream]`, and their subjects. */
  events?: {consume?: string; consume_subject?: string; changelog?: string; changelog_subject?: string}
  /**
   * The store of the `mdcli lite` that wrote `gms.server` (see storeIdentity): a later start of
   * that store on another port updates the address; a start of another store leaves it alone.
   */
  lite_store?: string
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
  /**
   * Where the server address came from, as a person reads it ("METADATA_GMS_URL",
   * "gms.server in /home/me/.mdclienv", "the default"), for a message that cannot connect.
   */
  serverFrom: string
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

/** METADATA_DEBUG as the settings read it, without resolving (and so without validating) the rest. */
export function debugFromEnv(env: Env = process.env): boolean {
  return truthy(env.METADATA_DEBUG)
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

/**
 * Writes the config file owner-only, keeping keys other than `gms` that were already there.
 * `liteStore`: the store of the `mdcli lite` whose address this is (see ConfigFile.lite_store);
 * another address written without one drops the mark, since it is no longer that server's.
 */
export function writeConfigFile(path: string, gms: {server: string; token?: string | null}, liteStore?: string): void {
  const prev = readConfigFile(path) ?? {}
  const {lite_store: oldStore, ...rest} = prev
  const mark = liteStore ?? (prev.gms?.server === gms.server ? oldStore : undefined)
  const next: ConfigFile = {...rest, gms: {server: gms.server, token: gms.token ?? null}, ...(typeof mark === 'string' ? {lite_store: mark} : {})}
  mkdirSync(dirname(path), {recursive: true})
  writeFileSync(path, yaml.dump(next), {mode: 0o600})
  chmodSync(path, 0o600)
}

export {storeFingerprint, storeIdentity} from './store-id.js'

/** The config file's saved address and token, and whether `mdcli lite` wrote them for `store`. */
export function savedAddress(path: string, store: string): {server?: string; token?: string; ofStore: boolean} | undefined {
  let file: ConfigFile | undefined
  try {
    file = readConfigFile(path)
  } catch {
    return undefined
  }
  const gms = file?.gms
  if (!file || !gms || typeof gms !== 'object') return undefined
  return {
    ...(typeof gms.server === 'string' ? {server: gms.server} : {}),
    ...(typeof gms.token === 'string' && gms.token !== '' ? {token: gms.token} : {}),
    ofStore: typeof file.lite_store === 'string' && file.lite_store === storeIdentity(store),
  }
}

/** Expands `{VAR}` placeholders in a token from the environment, as DataHub's CLI does. */
function expandToken(t: string, env: Env): string {
  return t.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => env[name] ?? '')
}

/** `from` names where the URL came from, for the error (a variable, a config file's key, a flag). */
export function normalizeServerUrl(url: string, from?: string): string {
  let u = url.trim()
  const of = from ? ` (from ${from})` : ''
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(u)?.[1]
  if (scheme && !/^https?$/i.test(scheme)) throw new ConfigError(`'${url}'${of} is not a valid server URL: the scheme must be http or https, not ${scheme}`)
  if (!scheme) u = `http://${u}`
  let parsed: URL
  try {
    parsed = new URL(u)
  } catch {
    throw new ConfigError(`'${url}'${of} is not a valid server URL (expected e.g. http://localhost:8080)`)
  }
  if (parsed.hostname === '') throw new ConfigError(`'${url}'${of} is not a valid server URL: it names no host`)
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
  const gms = file?.gms
  if (gms !== undefined && gms !== null) {
    if (typeof gms !== 'object' || Array.isArray(gms)) throw new ConfigError(`Config file ${fileUsed}: 'gms' must be a mapping with 'server' and 'token'`)
    if (gms.server !== undefined && gms.server !== null && typeof gms.server !== 'string') throw new ConfigError(`Config file ${fileUsed}: 'gms.server' must be a URL string, e.g. http://localhost:8080`)
    if (gms.token !== undefined && gms.token !== null && typeof gms.token !== 'string') throw new ConfigError(`Config file ${fileUsed}: 'gms.token' must be a string (or null)`)
  }
  let server: string | undefined
  let serverFrom: string | undefined
  // A DataHub variable standing in for ours is named as the user set it.
  const varName = (k: (typeof GMS_KEYS)[number]): string => (used.includes(`DATAHUB_GMS_${k}`) ? `DATAHUB_GMS_${k}` : `METADATA_GMS_${k}`)
  let serverSource: Settings['serverSource'] = 'default'
  const envUrl = nonEmpty(env.METADATA_GMS_URL)
  const host = nonEmpty(env.METADATA_GMS_HOST)
  const port = nonEmpty(env.METADATA_GMS_PORT)
  const proto = nonEmpty(env.METADATA_GMS_PROTOCOL)
  // Checked only where used: METADATA_GMS_URL makes the other three unused.
  const checkPortAndProtocol = () => {
    if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) throw new ConfigError(`METADATA_GMS_PORT must be a port number (1-65535), got '${port}'`)
    if (proto !== undefined && proto !== 'http' && proto !== 'https') throw new ConfigError(`METADATA_GMS_PROTOCOL must be http or https, got '${proto}'`)
  }
  if (envUrl) {
    server = envUrl
    serverFrom = varName('URL')
    serverSource = 'env'
  } else if (host) {
    checkPortAndProtocol()
    const p = proto ?? 'http'
    server = port ? `${p}://${host}:${port}` : host.includes('://') ? host : `${p}://${host}:8080`
    serverFrom = port ? `${varName('HOST')} and ${varName('PORT')}` : varName('HOST')
    serverSource = 'env'
  } else if (port) {
    checkPortAndProtocol()
    server = `${proto ?? 'http'}://localhost:${port}`
    serverFrom = varName('PORT')
    serverSource = 'env'
  } else if (gms?.server) {
    server = gms.server
    serverFrom = `gms.server in ${fileUsed}`
    serverSource = 'config'
  }
  const rawToken = nonEmpty(env.METADATA_GMS_TOKEN) ?? (typeof gms?.token === 'string' ? nonEmpty(gms.token) : undefined)
  const timeoutText = nonEmpty(env.METADATA_TELEMETRY_TIMEOUT) ?? '10'
  if (!/^\d+$/.test(timeoutText)) throw new ConfigError(`METADATA_TELEMETRY_TIMEOUT must be a whole number of seconds, got '${env.METADATA_TELEMETRY_TIMEOUT}'`)
  const timeout = Number(timeoutText)
  return {
    server: normalizeServerUrl(server ?? DEFAULT_SERVER, serverFrom),
    token: rawToken ? expandToken(rawToken, env) : undefined,
    debug: truthy(env.METADATA_DEBUG),
    skipConfig,
    telemetryEnabled: env.METADATA_TELEMETRY_ENABLED === undefined ? true : truthy(env.METADATA_TELEMETRY_ENABLED),
    telemetryTimeoutSec: timeout,
    serverSource,
    serverFrom: serverFrom ?? 'the default',
    configPath: path,
    sources: [...used.map((v) => `environment variable ${v}`), ...(fileUsed ? [`config file ${fileUsed}`] : [])],
  }
}
