/**
 * The HTTP client API sources share (Metabase, Mode, and the next BI tool): JSON over undici with
 * a timeout per request, retries with exponential backoff on 429 and 5xx (a server's
 * `Retry-After` is honoured), paging helpers, and credentials that never reach a message or a
 * `--debug` line.
 *
 * Glossary:
 * - attempt: one request on the wire; a call makes up to `maxAttempts` of them.
 * - secret: a credential the client was given (password, token, session id); every error message
 *   and request log has each secret replaced by `***`, and URLs lose their user-info.
 */
import type {Agent, Dispatcher} from 'undici'
import type {RequestLog} from '../client/client.js'
import {ConnectionError, ParseError, ServerError} from '../errors.js'

export interface RetryOptions {
  /** Requests per call, first one included (DataHub's Mode `max_attempts`: 5). */
  maxAttempts?: number
  /** First wait in ms; doubles (times `multiplier`) after each failed attempt. */
  initialDelayMs?: number
  multiplier?: number
  /** Longest wait between attempts, in ms (a server's Retry-After may ask for more, up to `maxRetryAfterMs`). */
  maxDelayMs?: number
  /** Cap on what a `Retry-After` header can make us wait, in ms. */
  maxRetryAfterMs?: number
}

export interface HttpClientOptions {
  /** Base URL; paths given to `get`/`post` are resolved against it. */
  baseUrl: string
  /** Sent with every request (may carry a credential: list it in `secrets` too). */
  headers?: Record<string, string>
  /** HTTP basic auth (Mode's token + secret); both parts are treated as secrets. */
  basicAuth?: {username: string; password: string}
  /** Values to hide from messages and logs (passwords, tokens, session ids). */
  secrets?: Array<string | undefined>
  /** Per attempt: connect + headers + body, in ms. Default 30 s. */
  timeoutMs?: number
  retry?: RetryOptions
  /** Told of every attempt (for `--debug`): method, redacted URL, status, time. */
  onRequest?: RequestLog
  /** Name used in messages (`metabase`, `mode`). */
  name?: string
  /** Waits between attempts; tests replace it. */
  sleep?: (ms: number) => Promise<void>
}

/** A non-2xx answer (after retries, if it was retryable). `status` is the HTTP status. */
export class HttpError extends ServerError {
  readonly httpStatus: number
  readonly url: string
  constructor(message: string, httpStatus: number, url: string) {
    super(message, httpStatus >= 400 && httpStatus < 600 ? httpStatus : 502)
    this.name = 'HttpError'
    this.httpStatus = httpStatus
    this.url = url
  }
}

export interface RequestOptions {
  /** Query parameters appended to the path's own. */
  query?: Record<string, string | number | boolean | undefined>
  /** A JSON body (POST/PUT). */
  body?: unknown
  headers?: Record<string, string>
  /** Statuses that are not errors for this call (e.g. 404 when absence is an answer). */
  okStatuses?: number[]
}

export interface JsonResponse<T> {
  status: number
  body: T
  headers: Record<string, string | string[] | undefined>
}

const RETRYABLE = new Set([429, 500, 502, 503, 504])
const DEFAULT_RETRY: Required<RetryOptions> = {maxAttempts: 5, initialDelayMs: 500, multiplier: 2, maxDelayMs: 10_000, maxRetryAfterMs: 120_000}

/** `text` with every secret replaced by `***` and URL user-info dropped. */
export function redactSecrets(text: string, secrets: Array<string | undefined>): string {
  let out = text.replace(/(\w+:\/\/)[^/@\s]*@/g, '$1')
  for (const s of secrets) if (s && s.length >= 3) out = out.split(s).join('***')
  return out
}

/** The wait a `Retry-After` header asks for, in ms (seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value
  if (v === undefined || v.trim() === '') return undefined
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000)
  const at = Date.parse(v)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.())

/**
 * A JSON client for one API. Requests are sequential per caller; the agent keeps connections
 * alive. `close()` aborts what is in flight (Ctrl-C ends a run without waiting on a slow server).
 */
export class HttpClient {
  readonly baseUrl: string
  private agent?: Agent
  private readonly headers: Record<string, string>
  private readonly secrets: string[]
  private readonly retry: Required<RetryOptions>
  private readonly timeoutMs: number
  private readonly name: string
  private readonly sleep: (ms: number) => Promise<void>
  private readonly onRequest?: RequestLog
  private inflight = new AbortController()
  private closed = false
  /** Attempts made and retries taken, for the source's report. */
  readonly stats = {requests: 0, retries: 0}

  constructor(opts: HttpClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '') + '/'
    this.timeoutMs = opts.timeoutMs ?? 30_000
    this.headers = {accept: 'application/json', 'user-agent': 'mdcli', ...(opts.headers ?? {})}
    this.secrets = (opts.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length > 0)
    if (opts.basicAuth) {
      const {username, password} = opts.basicAuth
      const token = Buffer.from(`${username}:${password}`).toString('base64')
      this.headers.authorization = `Basic ${token}`
      this.secrets.push(username, password, token)
    }
    this.retry = {...DEFAULT_RETRY, ...Object.fromEntries(Object.entries(opts.retry ?? {}).filter(([, v]) => v !== undefined))}
    this.name = opts.name ?? 'http'
    this.sleep = opts.sleep ?? defaultSleep
    this.onRequest = opts.onRequest
  }

  /** Adds a credential learnt later (a session id) to the headers and the redaction list. */
  setHeader(name: string, value: string, secret = true): void {
    this.headers[name.toLowerCase()] = value
    if (secret) this.secrets.push(value)
  }

  /** Hides the client's secrets in `text`. */
  redact(text: string): string {
    return redactSecrets(text, this.secrets)
  }

  /** The absolute URL of `path` (a path, or a full URL that is kept). */
  url(path: string, query?: RequestOptions['query']): string {
    const u = /^https?:\/\//.test(path) ? new URL(path) : new URL(path.replace(/^\/+/, ''), this.baseUrl)
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v))
    return u.href
  }

  async get<T = unknown>(path: string, opts: RequestOptions = {}): Promise<T> {
    return (await this.requestJson<T>('GET', path, opts)).body
  }

  async post<T = unknown>(path: string, body: unknown, opts: RequestOptions = {}): Promise<T> {
    return (await this.requestJson<T>('POST', path, {...opts, body})).body
  }

  async delete(path: string, opts: RequestOptions = {}): Promise<number> {
    return (await this.requestJson('DELETE', path, opts)).status
  }

  /** One call: attempts until a non-retryable answer or `maxAttempts`; parses the JSON body. */
  async requestJson<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<JsonResponse<T>> {
    const url = this.url(path, opts.query)
    const shown = this.redact(url)
    const headers = {...this.headers, ...(opts.headers ?? {})}
    let body: string | undefined
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers['content-type'] = 'application/json'
    }
    let delay = this.retry.initialDelayMs
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw new ConnectionError(`${this.name}: ${method} ${shown} cancelled (the client is closed)`)
      const signal = this.inflight.signal
      // undici is loaded with the first request, so the SDK costs nothing to import.
      const undici = await import('undici')
      this.agent ??= new undici.Agent({connectTimeout: this.timeoutMs, keepAliveTimeout: 10_000})
      const started = performance.now()
      let res: Dispatcher.ResponseData
      try {
        this.stats.requests++
        res = await undici.request(url, {
          method: method as Dispatcher.HttpMethod,
          headers,
          body,
          dispatcher: this.agent,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
          signal,
        })
      } catch (e) {
        this.onRequest?.({method, url: shown, status: 'error', ms: Math.round(performance.now() - started)})
        const code = (e as {code?: string}).code ?? ''
        const why = /TIMEOUT/.test(code) ? `no answer within ${this.timeoutMs} ms` : this.redact((e as Error).message || String(e))
        if (signal.aborted) throw new ConnectionError(`${this.name}: ${method} ${shown} cancelled (the run is stopping)`)
        // A refused connection means nothing listens there: waiting will not help.
        if (code === 'ECONNREFUSED' || attempt >= this.retry.maxAttempts) throw new ConnectionError(`${this.name}: ${method} ${shown} failed: ${why}${attempt > 1 ? ` (after ${attempt} attempts)` : ''}`)
        this.stats.retries++
        await this.sleep(delay)
        delay = Math.min(delay * this.retry.multiplier, this.retry.maxDelayMs)
        continue
      }
      let text: string
      try {
        text = await res.body.text()
      } catch (e) {
        this.onRequest?.({method, url: shown, status: 'error', ms: Math.round(performance.now() - started)})
        if (attempt >= this.retry.maxAttempts) throw new ConnectionError(`${this.name}: ${method} ${shown}: the answer broke off: ${this.redact((e as Error).message)}`)
        this.stats.retries++
        await this.sleep(delay)
        delay = Math.min(delay * this.retry.multiplier, this.retry.maxDelayMs)
        continue
      }
      this.onRequest?.({method, url: shown, status: res.statusCode, ms: Math.round(performance.now() - started)})
      const ok = (res.statusCode >= 200 && res.statusCode < 300) || opts.okStatuses?.includes(res.statusCode)
      if (!ok && RETRYABLE.has(res.statusCode) && attempt < this.retry.maxAttempts) {
        const asked = retryAfterMs(res.headers['retry-after'])
        const wait = asked !== undefined ? Math.min(asked, this.retry.maxRetryAfterMs) : delay
        this.stats.retries++
        await this.sleep(wait)
        delay = Math.min(delay * this.retry.multiplier, this.retry.maxDelayMs)
        continue
      }
      if (!ok) {
        const snippet = this.redact(text.replace(/\s+/g, ' ').trim().slice(0, 200))
        const tries = attempt > 1 ? ` after ${attempt} attempts` : ''
        throw new HttpError(`${this.name}: ${method} ${shown} answered HTTP ${res.statusCode}${tries}${snippet ? `: ${snippet}` : ''}`, res.statusCode, shown)
      }
      let parsed: unknown = undefined
      if (text.trim() !== '') {
        try {
          parsed = JSON.parse(text)
        } catch (e) {
          throw new ParseError(`${this.name}: ${method} ${shown} returned malformed JSON (${(e as Error).message}): ${this.redact(text.slice(0, 80))}`)
        }
      }
      return {status: res.statusCode, body: parsed as T, headers: res.headers}
    }
  }

  /** Aborts the requests in flight (Ctrl-C); the client stays usable, e.g. to log out. */
  abortInFlight(): void {
    this.inflight.abort()
    this.inflight = new AbortController()
  }

  /** Aborts requests in flight and closes the connections. */
  async close(): Promise<void> {
    this.closed = true
    this.inflight.abort()
    await this.agent?.close().catch(() => undefined)
  }
}

/**
 * Items of a page-numbered listing (`?page=1`, `?page=2`…), fetched one page at a time, until a
 * page comes back empty (Mode, DataHub's convention) or shorter than `pageSize` when it is given,
 * or `maxPages` pages were read.
 */
export async function* pagedItems<T>(fetchPage: (page: number) => Promise<T[] | undefined>, opts: {firstPage?: number; pageSize?: number; maxPages?: number} = {}): AsyncGenerator<T> {
  const first = opts.firstPage ?? 1
  const last = first + (opts.maxPages ?? 100_000) - 1
  for (let page = first; page <= last; page++) {
    const items = (await fetchPage(page)) ?? []
    yield* items
    if (items.length === 0 || (opts.pageSize !== undefined && items.length < opts.pageSize)) return
  }
}

/**
 * Items of an offset-based listing (`?offset=0&limit=50`), until a page is shorter than `limit`
 * or `total` (when the API tells it) is reached.
 */
export async function* offsetItems<T>(fetchPage: (offset: number, limit: number) => Promise<{items: T[]; total?: number}>, opts: {limit?: number} = {}): AsyncGenerator<T> {
  const limit = opts.limit ?? 100
  for (let offset = 0; ; offset += limit) {
    const {items, total} = await fetchPage(offset, limit)
    yield* items
    if (items.length < limit || (total !== undefined && offset + items.length >= total)) return
  }
}
