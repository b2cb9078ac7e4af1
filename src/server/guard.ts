/**
 * What keeps a server on a laptop from being used by the web pages its owner visits, and keeps
 * slow or stalled clients from holding its connections.
 *
 * Glossary:
 * - simple request: what a browser sends cross-site without asking first (a CORS preflight):
 *   a form post or a `fetch` with `Content-Type: text/plain`, no custom header. Writes refuse
 *   it: they need a JSON content type (or an `X-Mdcli` / `X-Requested-With` header), which a page
 *   of another site can only send after a preflight that this server never grants.
 * - DNS rebinding: a page of `evil.example` whose name is made to resolve to 127.0.0.1 talks
 *   to this server as its own origin; its requests carry `Host: evil.example`. A server that
 *   answers only to its own names (and IP addresses) never serves it.
 * - timeouts: headers must arrive within `headersMs`; a body must keep arriving at
 *   `bodyMinRate` bytes a second on average once `bodyGraceMs` have passed, and the whole
 *   request within `requestMs`; a kept-alive connection with no request for `idleMs` is closed.
 */
import {isIP} from 'node:net'
import type {IncomingHttpHeaders} from 'node:http'
import {ConfigError, MdcliError} from '../errors.js'

/** Connection time limits of the listener; see the glossary. */
export interface HttpTimeouts {
  headersMs: number
  requestMs: number
  bodyMinRate: number
  bodyGraceMs: number
  idleMs: number
}

/** The documented defaults (README, "Limits"). */
export const DEFAULT_TIMEOUTS: HttpTimeouts = {
  headersMs: 20_000,
  requestMs: 120_000,
  bodyMinRate: 32 * 1024,
  bodyGraceMs: 10_000,
  // Longer than the 60 s idle timeout of common load balancers, so that they close first and
  // never send a request on a connection this server is closing.
  idleMs: 65_000,
}

const TIMEOUT_ENV: Record<keyof HttpTimeouts, [string, number]> = {
  headersMs: ['MDCLI_HTTP_HEADERS_TIMEOUT', 1000],
  requestMs: ['MDCLI_HTTP_REQUEST_TIMEOUT', 1000],
  bodyMinRate: ['MDCLI_HTTP_BODY_MIN_RATE', 1],
  bodyGraceMs: ['MDCLI_HTTP_BODY_GRACE', 1000],
  idleMs: ['MDCLI_HTTP_IDLE_TIMEOUT', 1000],
}

/** The timeouts in force: each default unless its variable (seconds; bytes/s for the rate) is set. */
export function timeoutsFromEnv(env: NodeJS.ProcessEnv = process.env): HttpTimeouts {
  const out = {...DEFAULT_TIMEOUTS}
  for (const [key, [name, unit]] of Object.entries(TIMEOUT_ENV) as Array<[keyof HttpTimeouts, [string, number]]>) {
    const raw = env[name]?.trim()
    if (raw === undefined || raw === '') continue
    const n = Number(raw)
    if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${name} must be a number of ${unit === 1 ? 'bytes per second' : 'seconds'} (0 or more), got '${raw}'`)
    out[key] = Math.round(n * unit)
  }
  // node:http refuses a headers timeout longer than the request timeout.
  if (out.requestMs > 0 && out.headersMs > out.requestMs) out.headersMs = out.requestMs
  return out
}

/** A request body that stopped arriving, or arrives slower than the floor: 408, connection closed. */
export class SlowBodyError extends MdcliError {
  constructor(message: string) {
    super('E_BAD_REQUEST', 408, message)
  }
}

// ---------------------------------------------------------------- Host

/** Which Host headers name this server. */
export interface HostPolicy {
  /** The address the server is bound to (`--host`). */
  bound: string
  /** More names it answers to (`--allowed-host`, MDCLI_ALLOWED_HOSTS); `*` turns the check off. */
  names: string[]
}

/** `Host: [::1]:8080` → `::1`; `Localhost.:80` → `localhost`. */
export function hostName(header: string): string {
  let h = header.trim().toLowerCase()
  if (h.startsWith('[')) {
    const end = h.indexOf(']')
    return end < 0 ? h : h.slice(1, end)
  }
  const colon = h.lastIndexOf(':')
  if (colon >= 0 && h.indexOf(':') === colon) h = h.slice(0, colon)
  return h.endsWith('.') ? h.slice(0, -1) : h
}

function loopbackIp(ip: string): boolean {
  if (ip === '::1') return true
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip
  return isIP(v4) === 4 && v4.startsWith('127.')
}

const WILDCARD = new Set(['0.0.0.0', '::', '[::]', ''])

/**
 * Whether a Host header names this server: localhost (and `*.localhost`, which browsers keep
 * on this machine), a loopback address, the bound address, a configured name, or — when bound
 * to every interface — any IP address: a rebinding page always comes with a name.
 */
export function hostAllowed(header: string | undefined, policy: HostPolicy): boolean {
  // HTTP/1.0 clients may send none; browsers always send one.
  if (header === undefined || header === '') return true
  if (policy.names.includes('*')) return true
  const name = hostName(header)
  if (name === 'localhost' || name.endsWith('.localhost')) return true
  if (name === hostName(policy.bound)) return true
  if (policy.names.some((n) => hostName(n) === name)) return true
  if (isIP(name) !== 0) return loopbackIp(name) || WILDCARD.has(policy.bound)
  return false
}

/** Names from MDCLI_ALLOWED_HOSTS (comma- or space-separated). */
export function allowedHostsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.MDCLI_ALLOWED_HOSTS ?? '').split(/[\s,]+/).filter((s) => s !== '')
}

// ---------------------------------------------------------------- writes

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Whether a request is one a browser would send cross-site without a preflight and that may
 * write: any method but GET/HEAD/OPTIONS without a JSON content type or a custom header.
 */
export function simpleWrite(method: string, headers: IncomingHttpHeaders): boolean {
  if (READ_METHODS.has(method)) return false
  if (headers['x-mdcli'] !== undefined || headers['x-requested-with'] !== undefined) return false
  const type = String(headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase()
  return !(type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json')))
}

/** The headers every page carries: a Content-Security-Policy of this origin only, and no framing. */
export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}
