/**
 * The HTTP client every command (and the REST sink) uses to reach the server.
 * Sends the token and the Rest.li protocol header; turns refused connections and error bodies
 * into typed errors with one readable line.
 *
 * It is built on node:http rather than undici: a one-shot command such as `mdcli get` spends
 * most of its life starting up, and undici costs ~90 ms to load plus ~100 ms of timers that
 * keep the process alive after close; node:http is already in the binary, and with a keep-alive
 * agent it serves the REST sink's batches just as well (the server, not the client, is the bound).
 */
import {Agent as HttpAgent, request as httpRequest, type IncomingMessage} from 'node:http'
import {createRequire} from 'node:module'
import {ConnectionError, errorFromWire, ServerError, type MdcliError} from '../errors.js'
import {maskUrl} from '../store/postgres/url.js'
import {encodeUrnPath} from '../model/urn.js'
import type {ProposalInput} from '../model/wire.js'
import type {DeleteReport, RelatedAspect} from '../catalog/delete.js'
import type {MigrateRequest, MigrationReport} from '../catalog/migrate.js'
import type {ChangeCategory, ChangeTransaction} from '../model/change-events.js'
import type {Settings} from '../config/settings.js'

/**
 * Told of each request a server client makes, with what a `--debug` log may show (method, URL
 * without secrets, status, time; never a token). The CLI makes one; this client and the SDK's
 * HttpClient call it.
 */
export type RequestLog = (r: {method: string; url: string; status: number | 'error'; ms: number}) => void

export interface ClientOptions {
  server: string
  token?: string
  /** Per-request timeout, ms. */
  timeoutMs?: number
  /** Shared connection pool; one is made when absent. */
  agent?: HttpAgent
  userAgent?: string
  /** Where `server` came from ("gms.server in ~/.mdclienv", "METADATA_GMS_URL"), named when it cannot be reached. */
  serverFrom?: string
  onRequest?: RequestLog
  /** TLS settings of an https server (DataHub's DatahubClientConfig: CA, client certificate, no verification). */
  tls?: ClientTls
}

/** What an https server connection trusts and presents; ignored for http. */
export interface ClientTls {
  /** False: the server's certificate is not checked (`disable_ssl_verification`). */
  rejectUnauthorized?: boolean
  /** PEM of the certificate authorities to trust instead of the system's (`ca_certificate_path`). */
  ca?: Buffer
  /** PEM holding the client certificate and its key (`client_certificate_path`). */
  cert?: Buffer
}

export interface EnvelopedAspect {
  name: string
  type: 'VERSIONED' | 'TIMESERIES'
  version: number
  value: unknown
  created?: {time: number; actor: string}
  systemMetadata?: Record<string, unknown>
}

export interface EntityResponse {
  entityName: string
  urn: string
  aspects: Record<string, EnvelopedAspect>
}

export interface BatchOutcome {
  written: number
  failed: number
  results: Array<{index: number; urn?: string; aspectName?: string; ok: boolean; changed?: boolean; keyAspect?: boolean; error?: {code: string; status: number; message: string}}>
}

/**
 * The server's version in a `/config` answer: under `acryldata/datahub`, where DataHub's clients
 * read it (`linkedin/datahub` on DataHub servers before 0.10), else the first one listed.
 */
export function serverVersionOf(config: Record<string, any> | undefined): string | undefined {
  const versions = (config?.versions ?? {}) as Record<string, {version?: unknown} | undefined>
  const v = versions['acryldata/datahub']?.version ?? versions['linkedin/datahub']?.version ?? Object.values(versions)[0]?.version
  return typeof v === 'string' ? v : undefined
}

/** The per-proposal outcomes in a batch answer's body, if it holds them. */
function batchOutcomeOf(text: string): BatchOutcome | undefined {
  try {
    const value = (JSON.parse(text) as {value?: BatchOutcome} | null)?.value
    return value && Array.isArray(value.results) && typeof value.written === 'number' && typeof value.failed === 'number' ? value : undefined
  } catch {
    return undefined
  }
}

/** Which changes `followChanges` asks for (GET /events's filters) and from where. */
export interface ChangeStreamOptions {
  entityType?: string
  aspect?: string
  urnPrefix?: string
  /** Resume after this change id. */
  since?: number
  signal?: AbortSignal
}

/** A change as the change log's stream carries it: DataHub's MCL and the entity change events it implies. */
export interface StreamedChange {
  id: number
  mcl: {entityType: string; entityUrn: string; changeType: string; aspectName?: string; created: {time: number; actor: string}; [k: string]: unknown}
  changeEvents: Array<{category: string; operation: string; description: string; [k: string]: unknown}>
}

/**
 * `open`: the server accepted the subscription; `gap`: it no longer holds changes asked for;
 * `refused`: the server closed the stream because its credentials no longer hold (revoked,
 * expired, suspended).
 */
export type ChangeStreamMessage = {kind: 'open'} | {kind: 'change'; change: StreamedChange} | {kind: 'gap'; message: string} | {kind: 'refused'; message: string}

/** The query of GET /events for these filters. */
export function changeStreamQuery(opts: Pick<ChangeStreamOptions, 'entityType' | 'aspect' | 'urnPrefix'>): URLSearchParams {
  const q = new URLSearchParams()
  if (opts.entityType) q.set('entityType', opts.entityType)
  if (opts.aspect) q.set('aspect', opts.aspect)
  if (opts.urnPrefix) q.set('urnPrefix', opts.urnPrefix)
  return q
}

/** One Server-Sent Events block (`id:`, `event:`, `data:` lines) as a message; undefined when it carries no data (a comment, a keep-alive). */
function sseMessage(block: string): ChangeStreamMessage | undefined {
  const lines = block.split('\n')
  const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n')
  if (!data) return undefined
  const event = lines.find((l) => l.startsWith('event: '))?.slice(7)
  if (event === 'gap') return {kind: 'gap', message: (JSON.parse(data) as {message: string}).message}
  if (event === 'error') return {kind: 'refused', message: (JSON.parse(data) as {message: string}).message}
  const id = Number(lines.find((l) => l.startsWith('id: '))?.slice(4))
  return {kind: 'change', change: {id, ...JSON.parse(data)} as StreamedChange}
}

/** Timeout of calls that work through many entities in one request (delete, migrate). */
const LONG_TIMEOUT_MS = 30 * 60_000

export class MdcliClient {
  readonly server: string
  private readonly token?: string
  private readonly timeoutMs: number
  private readonly agent: HttpAgent
  private readonly ownsAgent: boolean
  private readonly send: typeof httpRequest
  private readonly onRequest?: ClientOptions['onRequest']
  private readonly serverFrom?: string

  constructor(opts: ClientOptions) {
    this.server = opts.server.replace(/\/+$/, '')
    this.serverFrom = opts.serverFrom
    this.token = opts.token
    this.timeoutMs = opts.timeoutMs ?? 30_000
    this.onRequest = opts.onRequest
    // node:https brings TLS in (a few ms of every command's start); only an https server needs it.
    const https = this.server.startsWith('https:') ? (createRequire(import.meta.url)('node:https') as typeof import('node:https')) : undefined
    this.send = https ? https.request : httpRequest
    this.ownsAgent = !opts.agent
    const tls = opts.tls
    // One PEM file may hold the certificate and the key (requests' `cert`); each reader takes its own block.
    const tlsOptions = tls ? {...(tls.rejectUnauthorized === false ? {rejectUnauthorized: false} : {}), ...(tls.ca ? {ca: tls.ca} : {}), ...(tls.cert ? {cert: tls.cert, key: tls.cert} : {})} : {}
    this.agent = opts.agent ?? (https ? new https.Agent({keepAlive: true, maxSockets: 32, ...tlsOptions}) : new HttpAgent({keepAlive: true, maxSockets: 32}))
  }

  static fromSettings(s: Settings, extra: Partial<ClientOptions> = {}): MdcliClient {
    return new MdcliClient({server: s.server, token: s.token, serverFrom: s.serverFrom, ...extra})
  }

  async close(): Promise<void> {
    if (this.ownsAgent) this.agent.destroy()
  }

  /** One exchange: status and body text; a connection that stalls for `timeoutMs` fails. */
  private exchange(method: string, url: string, headers: Record<string, string>, payload: string | undefined, timeoutMs: number): Promise<{status: number; text: string}> {
    return new Promise((resolve, reject) => {
      const req = this.send(url, {method, headers, agent: this.agent}, (res: IncomingMessage) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8')}))
        res.on('error', reject)
      })
      req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), {code: 'ETIMEDOUT'})))
      req.on('error', reject)
      req.end(payload)
    })
  }

  /**
   * Sends a request; resolves the parsed JSON body (undefined when empty) of a 2xx answer.
   * `timeoutMs` overrides the client's timeout for calls that do long work (delete, migrate).
   */
  async call<T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, extraHeaders: Record<string, string> = {}, timeoutMs = this.timeoutMs): Promise<T> {
    return this.bodyOf<T>(await this.request(method, path, body, extraHeaders, timeoutMs))
  }

  /** Sends a request and answers its status and body text, whatever the status. */
  private async request(method: 'GET' | 'POST' | 'DELETE', path: string, body: unknown, extraHeaders: Record<string, string>, timeoutMs: number): Promise<{status: number; text: string}> {
    const headers: Record<string, string> = {
      'x-restli-protocol-version': '2.0.0',
      accept: 'application/json',
      ...extraHeaders,
    }
    if (this.token) headers.authorization = `Bearer ${this.token}`
    let payload: string | undefined
    if (body !== undefined) payload = typeof body === 'string' ? body : JSON.stringify(body)
    // The server refuses a POST without a JSON content type, body or not (a cross-site form could send one).
    if (payload !== undefined || method !== 'GET') headers['content-type'] ??= 'application/json'
    if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload))
    let res: {status: number; text: string}
    const started = performance.now()
    try {
      res = await this.exchange(method, this.server + path, headers, payload, timeoutMs)
    } catch (e) {
      this.onRequest?.({method, url: maskUrl(this.server) + path, status: 'error', ms: performance.now() - started})
      throw this.connectionError(e)
    }
    this.onRequest?.({method, url: maskUrl(this.server) + path, status: res.status, ms: performance.now() - started})
    return res
  }

  /** The parsed JSON body (undefined when empty) of a 2xx answer; the typed error of any other. */
  private bodyOf<T>(res: {status: number; text: string}): T {
    const text = res.text
    if (res.status >= 200 && res.status < 300) {
      if (text === '') return undefined as T
      try {
        return JSON.parse(text) as T
      } catch {
        throw new ServerError(`Server at ${maskUrl(this.server)} answered ${res.status} with a body that is not JSON`, res.status)
      }
    }
    let parsed: {code?: string; status?: number; message?: string; details?: unknown} = {}
    try {
      parsed = text ? JSON.parse(text) : {}
    } catch {
      // Not an mdcli answer (a web server on that port, a proxy's error page): name who answered,
      // rather than print its HTML.
      const html = /^\s*</.test(text)
      parsed = {message: html || text.trim() === '' ? `Server at ${maskUrl(this.server)} answered ${res.status} with ${html ? 'an HTML page' : 'nothing'}, not an mdcli or DataHub answer: is METADATA_GMS_URL (or mdcli init) pointing at the right server?` : text.slice(0, 200).split('\n')[0]}
    }
    throw errorFromWire(parsed, res.status)
  }

  private connectionError(e: unknown): MdcliError {
    const err = e as {code?: string; message?: string; cause?: {code?: string}}
    const code = err.code ?? err.cause?.code ?? ''
    const why =
      code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'host not found' : code.includes('TIMEOUT') ? 'timed out' : (err.message ?? 'no answer')
    // Which setting gave the address: a stale one is the usual cause, and the fix is to change it.
    const from = this.serverFrom ? `; the address is from ${this.serverFrom}` : ''
    return new ConnectionError(`Could not reach the mdcli server at ${maskUrl(this.server)} (${why}${from}). Is \`mdcli lite\` running? Set METADATA_GMS_URL or run \`mdcli init\` to point elsewhere.`)
  }

  /**
   * Follows the server's change log (`GET /events`, Server-Sent Events): every committed change
   * as it happens, after `since` when given (the server holds the last 10,000), and a `gap`
   * message where the server no longer holds what was asked for. Ends when `signal` aborts;
   * refused connections and error answers throw the client's typed errors.
   */
  async *followChanges(opts: ChangeStreamOptions = {}): AsyncGenerator<ChangeStreamMessage> {
    const q = changeStreamQuery(opts)
    const url = `${this.server}/events${q.size > 0 ? `?${q}` : ''}`
    const headers: Record<string, string> = {accept: 'text/event-stream'}
    if (this.token) headers.authorization = `Bearer ${this.token}`
    if (opts.since !== undefined) headers['last-event-id'] = String(opts.since)
    const started = performance.now()
    let res: IncomingMessage
    try {
      res = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = this.send(url, {method: 'GET', headers, agent: this.agent, signal: opts.signal}, resolve)
        // Only the answer's head is timed: the stream itself may be quiet for as long as nothing changes.
        req.setTimeout(this.timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${this.timeoutMs} ms`), {code: 'ETIMEDOUT'})))
        req.on('response', () => req.setTimeout(0))
        req.on('error', reject)
        req.end()
      })
    } catch (e) {
      this.onRequest?.({method: 'GET', url, status: 'error', ms: performance.now() - started})
      if (opts.signal?.aborted) return
      throw this.connectionError(e)
    }
    this.onRequest?.({method: 'GET', url, status: res.statusCode ?? 0, ms: performance.now() - started})
    if (res.statusCode !== 200) {
      const chunks: Buffer[] = []
      for await (const c of res) chunks.push(c as Buffer)
      this.bodyOf({status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8')})
      throw new ServerError(`The server answered ${res.statusCode} to GET /events`, res.statusCode ?? 0)
    }
    yield {kind: 'open'}
    let buf = ''
    try {
      for await (const chunk of res) {
        buf += (chunk as Buffer).toString('utf8')
        let end: number
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const message = sseMessage(buf.slice(0, end))
          buf = buf.slice(end + 2)
          if (message) yield message
        }
      }
    } catch (e) {
      if (opts.signal?.aborted) return
      throw this.connectionError(e)
    } finally {
      res.destroy()
    }
  }

  health(): Promise<void> {
    return this.call('GET', '/health')
  }

  config(): Promise<Record<string, any>> {
    return this.call('GET', '/config')
  }

  /** The server's version (`GET /config`, see serverVersionOf). */
  async serverVersion(): Promise<string | undefined> {
    return serverVersionOf(await this.config())
  }

  async ingestProposal(proposal: ProposalInput): Promise<string> {
    const r = await this.call<{value: string}>('POST', '/aspects?action=ingestProposal', {proposal, async: 'false'})
    return r.value
  }

  /**
   * Sends proposals as one batch; resolves every proposal's outcome, also when some failed. The
   * server then answers non-2xx (so that DataHub's emitter, which reads only the status, does not
   * lose them) with the outcomes in the body as on success; any other failure throws.
   */
  async ingestProposals(proposals: ProposalInput[], opts: {atomic?: boolean; headers?: Record<string, string>} = {}): Promise<BatchOutcome> {
    const res = await this.request('POST', '/aspects?action=ingestProposalBatch', {proposals, atomic: opts.atomic ?? false}, opts.headers ?? {}, this.timeoutMs)
    if (res.status >= 300) {
      const outcome = batchOutcomeOf(res.text)
      if (outcome) return outcome
    }
    return this.bodyOf<{value: BatchOutcome}>(res).value
  }

  /** The entity, or a NotFound error: without the key aspect DataHub's route adds for a urn nobody wrote. */
  getEntity(urn: string, aspects?: string[]): Promise<EntityResponse> {
    const q = aspects && aspects.length > 0 ? `&aspects=List(${aspects.map(encodeURIComponent).join(',')})` : ''
    return this.call('GET', `/entitiesV2/${encodeUrnPath(urn)}?alwaysIncludeKeyAspect=false${q}`)
  }

  getAspect(urn: string, aspect: string, version = 0): Promise<{aspect: Record<string, unknown>; version: number}> {
    return this.call('GET', `/aspects/${encodeUrnPath(urn)}?aspect=${encodeURIComponent(aspect)}&version=${version}`)
  }

  /** The change transactions of a dataset (`GET /openapi/timeline/v1/{urn}`). */
  timeline(urn: string, opts: {categories?: ChangeCategory[]; startTime?: number; endTime?: number; raw?: boolean} = {}): Promise<ChangeTransaction[]> {
    const q = new URLSearchParams()
    if (opts.categories && opts.categories.length > 0) q.set('categories', opts.categories.join(','))
    if (opts.startTime !== undefined) q.set('startTime', String(opts.startTime))
    if (opts.endTime !== undefined) q.set('endTime', String(opts.endTime))
    if (opts.raw) q.set('raw', 'true')
    const qs = q.toString()
    return this.call('GET', `/openapi/timeline/v1/${encodeUrnPath(urn)}${qs ? `?${qs}` : ''}`)
  }

  /** Hard or soft delete of up to 10,000 urns (`POST /entities?action=delete`). */
  async deleteEntities(req: {urns: string[]; soft?: boolean; dryRun?: boolean; checkReferences?: boolean; aspectName?: string; startTimeMillis?: number; endTimeMillis?: number}): Promise<DeleteReport> {
    const r = await this.call<{value: DeleteReport}>('POST', '/entities?action=delete', req, {}, LONG_TIMEOUT_MS)
    return r.value
  }

  /** Aspects of other entities referring to `urn`; removes the references unless `dryRun`. */
  async deleteReferences(urn: string, dryRun = true): Promise<{total: number; relatedAspects: RelatedAspect[]}> {
    const r = await this.call<{value: {total: number; relatedAspects: RelatedAspect[]}}>('POST', '/entities?action=deleteReferences', {urn, dryRun}, {}, LONG_TIMEOUT_MS)
    return r.value
  }

  /**
   * One page of urns matching an entity type, a query and facet filters
   * (`POST /entities?action=search`); pass `after` (null to start) to walk past 10,000 matches.
   */
  async searchEntities(req: {
    entity?: string
    input?: string
    filter?: {or: Array<{and: Array<{field: string; value: string}>}>}
    includeSoftDeleted?: boolean
    start?: number
    count?: number
    after?: string | null
  }): Promise<{numEntities: number; entities: Array<{entity: string; entityType: string}>; next?: string | null}> {
    const r = await this.call<{value: {numEntities: number; entities: Array<{entity: string; entityType: string}>; next?: string | null}}>('POST', '/entities?action=search', req)
    return r.value
  }

  /** Plans (dryRun) or runs `migrate dataplatform2instance` on the server. */
  async migratePlatformInstance(req: MigrateRequest): Promise<MigrationReport> {
    const r = await this.call<{value: MigrationReport}>('POST', '/migrate?action=dataplatform2instance', req, {}, LONG_TIMEOUT_MS)
    return r.value
  }

  /**
   * Runs a GraphQL operation and returns its data; the first error becomes a typed error of the
   * class its `extensions.code` names (400, 403, 404, else a server error).
   */
  async graphqlData<T = unknown>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const r = await this.graphql<T>(query, variables)
    const e = r.errors?.[0]
    if (e) {
      const code = Number((e.extensions as {code?: unknown} | undefined)?.code ?? 500)
      throw errorFromWire({message: e.message, status: code}, code)
    }
    return r.data as T
  }

  graphql<T = unknown>(query: string, variables: Record<string, unknown> = {}): Promise<{data?: T; errors?: Array<{message: string; path?: string[]; extensions?: Record<string, unknown>}>}> {
    return this.call('POST', '/api/graphql', {query, variables}, {'content-type': 'application/json'})
  }
}
