/**
 * A small router over node:http: routes by method and path pattern, reads bodies with a size
 * limit, and maps every thrown error to a JSON body once — a person-readable message, a fitting
 * status, a stable code, never a stack trace or an internal path.
 *
 * Glossary (graphql-http's shape):
 * - request value (`HttpRequest`): method, target, headers and a body to read — all a handler
 *   sees of the request, so handlers run in-process in tests with no socket.
 * - response value (`HttpResponse`): status, headers and body that a handler returns.
 * - listener (`Router.handle`): the one function that reads a node request into a request value
 *   and writes the response value to the socket, batched by `endResponse`.
 */
import {isUtf8} from 'node:buffer'
import {decodeUriPart, MAX_JSON_DEPTH, valueTooDeep} from '../model/limits.js'
import type {IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse} from 'node:http'
import {BadRequestError, BugError, TooLargeError} from '../errors.js'
import type {Actor} from '../catalog/catalog.js'
import {hostAllowed, type HostPolicy, simpleWrite, SlowBodyError} from './guard.js'

export interface HttpRequest {
  method: string
  /** The request target as sent: path and query. */
  url: string
  headers: IncomingHttpHeaders
  /** The body: text at hand (in-process callers), or a reader of its bytes that keeps within `limit`. */
  body?: string | ((limit: number) => Promise<string | Buffer>)
  /** Set by the router: the matched route (`GET /entitiesV2/*`), a label of bounded variety for metrics. */
  route?: string
}

export interface HttpResponse {
  status: number
  statusText?: string
  /** content-length is the listener's to set. */
  headers: OutgoingHttpHeaders
  body?: string | Buffer
}

/**
 * What a handler returns when it wrote to the socket itself: the SSE stream of `/events`, which
 * stays open and writes as changes come, so it has no response value to return.
 */
export const STREAMED = Symbol('streamed')

export interface RequestContext {
  request: HttpRequest
  method: string
  /** Decoded path segments after the route's prefix, e.g. the urn of `/entitiesV2/{urn}`. */
  params: string[]
  query: URLSearchParams
  actor: Actor
  /** Reads and parses a JSON body (once), within the server's body limit. */
  json<T = unknown>(): Promise<T>
  /** Reads the raw body text, within the server's body limit. */
  text(): Promise<string>
  /**
   * Waits until the whole body has arrived (within the limit), without decoding it: a handler
   * that then waits for its turn holds the bytes, outside V8's heap, not a string in it.
   */
  received(): Promise<void>
  /** The socket's response, for a handler that streams (see STREAMED); absent in-process. */
  stream?: ServerResponse
}

/** The actor of requests to public routes, which never write. */
export const ANONYMOUS: Actor = {urn: 'urn:li:corpuser:__anonymous'}

export type Handler = (ctx: RequestContext) => Promise<HttpResponse | typeof STREAMED>

interface Route {
  /** Reachable without a token (health, config, the GraphiQL page). */
  public: boolean
  method: string
  prefix: string
  /** True when the route also takes a remainder after the prefix (`/entitiesV2/<urn>`). */
  rest: boolean
  /** Rest.li action (`?action=`) this route serves; undefined = any action. */
  action?: string
  handler: Handler
}

export interface Logger {
  info(msg: string): void
  debug(msg: string): void
  /** false when debug lines are dropped, so callers can skip building them. */
  readonly debugEnabled?: boolean
  warn(msg: string): void
  error(msg: string): void
}

/** A JSON response value. */
export function json(status: number, body: unknown): HttpResponse {
  return {status, headers: {'content-type': 'application/json; charset=utf-8'}, body: body === undefined ? '' : JSON.stringify(body)}
}

/** Writes a response value to the socket: the listener's job, and the only place that does it. */
export function writeResponse(res: ServerResponse, r: HttpResponse): void {
  const length = r.body === undefined ? 0 : typeof r.body === 'string' ? Buffer.byteLength(r.body) : r.body.length
  // A length, not chunked encoding: the whole body is at hand.
  const headers = {...r.headers, 'content-length': length}
  if (r.statusText === undefined) res.writeHead(r.status, headers)
  else res.writeHead(r.status, r.statusText, headers)
  endResponse(res, r.body)
}

/**
 * Responses finished during one turn of the event loop, written together at its end.
 *
 * Each write to a loopback or LAN socket wakes the client that waits on it, and on virtual
 * machines a wake-up is the dearest part of the write (an interrupt between cores). Requests
 * that arrive together finish together; writing their responses back to back lets one wake-up
 * serve several, which cut the server's CPU per GraphQL request by about a fifth at 32 clients
 * (bench/graphql.ts). The wait is at most the rest of the current turn: a lone request's
 * response goes out as soon as its own work is done.
 */
const finished: Array<[ServerResponse, string | Buffer | undefined]> = []

function writeFinished(): void {
  const batch = finished.splice(0)
  // A socket that closed meanwhile takes no response; its error, if any, is the socket's own.
  for (const [res, body] of batch) if (!res.destroyed && !res.writableEnded) res.end(body)
}

/** Ends a response whose head is set: the body goes out at the end of this event-loop turn. */
export function endResponse(res: ServerResponse, body?: string | Buffer): void {
  finished.push([res, body])
  if (finished.length === 1) setImmediate(writeFinished)
}

/** The slowest a body may arrive: `minRate` bytes a second on average, once `graceMs` have passed since `since`. */
export interface BodyRate {
  minRate: number
  graceMs: number
  /** When the request's headers arrived (Date.now()). */
  since: number
}

export function readBody(req: IncomingMessage, limit: number, rate?: BodyRate): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0)
    if (declared > limit) {
      reject(new TooLargeError(`Request body of ${declared} bytes is over the limit of ${limit} bytes`))
      req.resume()
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let failed = false
    // A client that trickles a large body would hold its connection and the bytes so far for as
    // long as it likes: below the floor the request is refused (408) and its connection closed.
    let floor: NodeJS.Timeout | undefined
    if (rate && rate.minRate > 0 && !req.complete) {
      floor = setInterval(() => {
        const ms = Date.now() - rate.since
        if (failed || ms < rate.graceMs || size >= (rate.minRate * ms) / 1000) return
        failed = true
        clearInterval(floor)
        reject(new SlowBodyError(`Request body arrived too slowly (${size} bytes in ${Math.round(ms / 1000)} s; at least ${rate.minRate} bytes a second are needed); nothing was written`))
      }, Math.min(1000, Math.max(100, rate.graceMs / 4)))
      floor.unref()
    }
    req.on('data', (c: Buffer) => {
      if (failed) return
      size += c.length
      if (size > limit) {
        failed = true
        clearInterval(floor)
        reject(new TooLargeError(`Request body is over the limit of ${limit} bytes`))
        return
      }
      chunks.push(c)
    })
    req.on('end', () => {
      clearInterval(floor)
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
    })
    req.on('error', (e) => {
      clearInterval(floor)
      if (!failed) reject(e)
    })
    req.on('close', () => clearInterval(floor))
  })
}

/**
 * A body as text. Bytes that are not UTF-8 are refused, not replaced: replaced by U+FFFD, two
 * different bad urns would become one entity.
 */
function decodeBody(b: string | Buffer): string {
  if (typeof b === 'string') return b
  if (!isUtf8(b)) throw new BadRequestError('Request body is not valid UTF-8')
  return b.toString('utf8')
}

/** A request target of plain RFC 3986 path characters, without dot segments: nothing to normalise. */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-_~%!$&'()*+,;=:@/]*$/

/**
 * Path and query of a request target. `new URL` costs microseconds on every request, and
 * clients send plain paths; anything else (dot segments, characters to escape) goes through it.
 */
export function splitTarget(target: string): {pathname: string; searchParams: URLSearchParams} {
  const q = target.indexOf('?')
  const path = q < 0 ? target : target.slice(0, q)
  if (PLAIN_PATH.test(path) && !path.includes('/.')) return {pathname: path, searchParams: new URLSearchParams(q < 0 ? '' : target.slice(q + 1))}
  let url: URL
  try {
    url = new URL(target, 'http://localhost')
  } catch {
    // `//` alone reads as a scheme-relative URL with no host.
    throw new BadRequestError(`Malformed request target: ${target.length > 80 ? `${target.slice(0, 80)}…` : target}`)
  }
  return {pathname: url.pathname, searchParams: url.searchParams}
}

/** The body reader of a node request, or the text of an in-process one. */
function bodyReader(request: HttpRequest, limit: number): () => Promise<string | Buffer> {
  const b = request.body
  if (typeof b === 'function') return () => b(limit)
  return async () => {
    const text = b ?? ''
    if (Buffer.byteLength(text) > limit) throw new TooLargeError(`Request body is over the limit of ${limit} bytes`)
    return text
  }
}

export class Router {
  private readonly routes: Route[] = []
  private fallbackRoute?: Route

  constructor(
    private readonly opts: {
      bodyLimit: number
      logger: Logger
      resolveActor: (headers: IncomingHttpHeaders, method: string) => Promise<Actor>
      /** Told of every request the listener answered: its route, status and duration (metrics). */
      observe?: (route: string, status: number, seconds: number) => void
      /** When set, requests whose Host header does not name this server are refused (421). */
      hosts?: HostPolicy
      /** The body rate floor of the node listener (see guard.ts); none in-process. */
      bodyRate?: {minRate: number; graceMs: number}
    },
  ) {}

  /**
   * `path` is a literal; a trailing `/*` takes the rest of the path as one decoded param.
   * `opts.action` binds the route to one Rest.li action (`POST /entities?action=delete`), so that
   * modules can each register their own actions on a shared path; a route with an action wins
   * over one without for that action. `opts.public` routes answer without a token.
   */
  on(method: string, path: string, handler: Handler, opts: {action?: string; public?: boolean} = {}): this {
    const rest = path.endsWith('/*')
    this.routes.push({method, prefix: rest ? path.slice(0, -1) : path, rest, action: opts.action, handler, public: opts.public === true})
    return this
  }

  /**
   * A public handler for GET requests no route matches (its one param is the path): the
   * single-page app served with `--ui`, whose client-side routes are any path.
   */
  fallback(handler: Handler): this {
    this.fallbackRoute = {method: 'GET', prefix: '/', rest: true, handler, public: true}
    return this
  }

  private match(method: string, path: string, action: string | null): {route: Route; params: string[]} | 'method' | {actions: string[]} | undefined {
    let pathMatched = false
    let fallback: {route: Route; params: string[]} | undefined
    const actions: string[] = []
    for (const r of this.routes) {
      let params: string[] | undefined
      if (r.rest) {
        if (path.startsWith(r.prefix) && path.length > r.prefix.length) params = [decodeUriPart(path.slice(r.prefix.length), 'the request path')]
      } else if (path === r.prefix || path === `${r.prefix}/`) params = []
      if (!params) continue
      pathMatched = true
      if (r.method !== method) continue
      if (r.action === undefined) fallback ??= {route: r, params}
      else if (r.action === action) return {route: r, params}
      else actions.push(r.action)
    }
    if (fallback) return fallback
    if (actions.length > 0) return {actions}
    return pathMatched ? 'method' : undefined
  }

  /**
   * The response to a request value: routing, the actor, the handler, and every thrown error
   * mapped to its JSON body. No socket is touched, unless a streaming handler is given `stream`.
   */
  async respond(request: HttpRequest, stream?: ServerResponse): Promise<HttpResponse | typeof STREAMED> {
    const method = request.method
    let url: {pathname: string; searchParams: URLSearchParams}
    try {
      url = splitTarget(request.url)
    } catch (e) {
      return this.fail(e, method, '?')
    }
    try {
      if (this.opts.hosts && !hostAllowed(request.headers.host, this.opts.hosts)) {
        const host = String(request.headers.host).slice(0, 100)
        return json(421, {status: 421, code: 'E_BAD_REQUEST', message: `Host '${host}' is not a name of this server; to serve it under that name, start it with --allowed-host (MDCLI_ALLOWED_HOSTS)`})
      }
      let m = this.match(method, url.pathname, url.searchParams.get('action'))
      if (m === undefined && this.fallbackRoute && method === 'GET') m = {route: this.fallbackRoute, params: [url.pathname]}
      if (m === undefined) return json(404, {status: 404, code: 'E_NOT_FOUND', message: `No endpoint ${method} ${url.pathname}`})
      if (m === 'method') return json(405, {status: 405, code: 'E_BAD_REQUEST', message: `Method ${method} is not allowed on ${url.pathname}`})
      if ('actions' in m) {
        const a = url.searchParams.get('action')
        throw new BadRequestError(`${a ? `Unknown action '${a}'` : "Missing '?action=' query parameter"} on ${method} ${url.pathname} (expected ${m.actions.join(', ')})`)
      }
      request.route = `${method} ${m.route.prefix}${m.route.rest ? '*' : ''}${m.route.action === undefined ? '' : `?action=${m.route.action}`}`
      // What a page of another site can send without a preflight never writes (see guard.ts).
      if (simpleWrite(method, request.headers)) {
        return json(415, {status: 415, code: 'E_BAD_REQUEST', message: `${method} ${url.pathname} needs Content-Type: application/json (or an X-Mdcli header); got ${String(request.headers['content-type'] ?? 'none').slice(0, 80)}`})
      }
      let bodyBytes: Promise<string | Buffer> | undefined
      let bodyText: Promise<string> | undefined
      const read = bodyReader(request, this.opts.bodyLimit)
      const bytes = (): Promise<string | Buffer> => (bodyBytes ??= read())
      const text = (): Promise<string> => (bodyText ??= bytes().then(decodeBody))
      const actor = m.route.public ? ANONYMOUS : await this.opts.resolveActor(request.headers, method)
      const ctx: RequestContext = {
        request,
        method,
        params: m.params,
        query: url.searchParams,
        actor,
        text,
        async received(): Promise<void> {
          await bytes()
        },
        stream,
        async json<T>(): Promise<T> {
          const t = await text()
          if (t.trim() === '') throw new BadRequestError('Request body is empty; expected JSON')
          let body: unknown
          try {
            body = JSON.parse(t)
          } catch (e) {
            throw new BadRequestError(`Request body is not valid JSON: ${(e as Error).message}`)
          }
          if (valueTooDeep(body)) throw new BadRequestError(`Request body nests deeper than ${MAX_JSON_DEPTH} levels, the limit`)
          return body as T
        },
      }
      return await m.route.handler(ctx)
    } catch (e) {
      return this.fail(e, method, url.pathname)
    }
  }

  /** The node listener: the request into a value, the handler's response value onto the socket. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = this.opts.logger.debugEnabled === false && !this.opts.observe ? 0n : process.hrtime.bigint()
    const rate = this.opts.bodyRate ? {...this.opts.bodyRate, since: Date.now()} : undefined
    const request: HttpRequest = {method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: (limit) => readBody(req, limit, rate)}
    const r = await this.respond(request, res)
    if (r !== STREAMED) {
      // A streaming handler that failed after its head went out cannot answer any more.
      if (res.headersSent) res.destroy()
      // A body refused for arriving too slowly: the connection closes rather than wait for the
      // rest. Any other early answer (too large, unauthorized) lets node read the rest away, so
      // a client still sending reads its answer instead of a reset; the whole-request time limit
      // bounds that read.
      else writeResponse(res, req.complete || r.status !== 408 ? r : {...r, headers: {...r.headers, connection: 'close'}})
    }
    if (started !== 0n) {
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      const status = r === STREAMED ? 200 : r.status
      // Unmatched paths share one label: a scan of random paths must not grow the metrics.
      this.opts.observe?.(request.route ?? 'unmatched', status, ms / 1000)
      if (this.opts.logger.debugEnabled !== false) this.opts.logger.debug(`${request.method} ${request.url.split('?')[0]} ${status} ${ms.toFixed(1)}ms`)
    }
  }

  private fail(e: unknown, method: string, path: string): HttpResponse {
    const err = BugError.wrap(e)
    // A bug's cause stays in the server log; the client gets E_INTERNAL and a message without internals.
    if (err instanceof BugError) this.opts.logger.error(`${method} ${path} failed: ${err.logText()}`)
    else if (err.serverDetail) this.opts.logger.warn(`${method} ${path}: ${err.message} (${err.serverDetail})`)
    const body: Record<string, unknown> = {status: err.status, code: err.code, message: err.message, ...(err.details === undefined ? {} : {details: err.details})}
    if (err.status === 503) {
      // E_STORE_UNAVAILABLE before a GraphQL request ran (checking its token): GraphQL clients
      // read `errors`, in the shape the GraphQL endpoint gives the same failure.
      if (path === '/api/graphql') body.errors = [{message: err.message, extensions: {code: 503, type: 'SERVICE_UNAVAILABLE', classification: 'DataFetchingException'}}]
      const r = json(503, body)
      // The same request may succeed in a moment.
      r.headers['retry-after'] = '1'
      return r
    }
    return json(err.status, body)
  }
}
