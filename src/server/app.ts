/**
 * Assembles `mdcli lite`: store → catalog → router → node:http listener.
 */
import {chmodSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {Catalog} from '../catalog/catalog.js'
import {allowAll, type Authorizer} from '../catalog/authorize.js'
import {bootstrapAccess} from '../catalog/access/bootstrap.js'
import {PolicyAuthorizer} from '../catalog/access/policy-authorizer.js'
import {TokenService} from '../catalog/access/tokens.js'
import {openSearchIndex, openStore} from '../store/index.js'
import type {MetadataStore} from '../store/types.js'
import {type HttpResponse, Router, type Logger, type RequestContext} from './http.js'
import {registerHistory} from './history.js'
import {createLogger} from './log.js'
import {registerRest} from './rest.js'
import {openActorResolver, tokenActorResolver} from './auth.js'
import type {GraphqlOptions} from './graphql/index.js'
import {registerRuns} from './runs.js'
import {registerEvents} from './events.js'
import {registerGraphiql, registerWeb} from './web.js'
import {registerDataHubUi} from './web-ui.js'
import {registerFrontend} from './frontend.js'
import {NativeUsers} from '../catalog/access/native-users.js'
import {ChangeLog} from '../events/changelog.js'
import {storeFingerprint} from '../config/store-id.js'
import {Health} from './health.js'
import {Metrics} from './metrics.js'
import {registerOperations} from './operations.js'
import {DEFAULT_TIMEOUTS, type HostPolicy, type HttpTimeouts} from './guard.js'
import {trackConnections} from './drain.js'

export interface ServerOptions {
  storeDir: string
  host?: string
  port?: number
  debug?: boolean
  logger?: Logger
  /** Largest request body accepted, in bytes. */
  bodyLimit?: number
  /** Tokens and access policies (default). Off: every request acts as the root user. */
  auth?: boolean
  /** Overrides the policy authorizer (tests of the refusal path). */
  authorizer?: Authorizer
  checkpointBytes?: number
  /** Largest `start + count` of a GraphQL offset search (default 10,000). */
  maxResultWindow?: number
  /** Consume change proposals from a queue (`nats://host:port[/stream]`). */
  consume?: {url: string; subject?: string}
  /** Also publish the change log to a queue (`nats://host:port[/stream]`). */
  changelog?: {url: string; subject?: string}
  /**
   * Requests wait (their connections accepted) until `open()`: `mdcli lite` first writes the
   * config file with the new admin token and loads the sample data, so a script that polls
   * /health and then runs `mdcli` finds both.
   */
  held?: boolean
  /** `/metrics` answers without a token (a scraper on a private network). Default: token needed. */
  metricsOpen?: boolean
  /** A DataHub web-app build to serve at `/` (`--ui`). */
  uiDir?: string
  /** The admin's password when the admin has none yet (MDCLI_ADMIN_PASSWORD); else one is generated. */
  adminPassword?: string
  /** Set no admin password on this start unless one is given (the password could not be shown). */
  noGeneratedPassword?: boolean
  sessionTtlMs?: number
  /** Connection time limits (default DEFAULT_TIMEOUTS; `mdcli lite` reads them from the environment). */
  timeouts?: HttpTimeouts
  /**
   * More Host names the server answers to besides localhost, loopback addresses and `host`
   * (`*`: any). Without auth the Host header is always checked (DNS rebinding); with auth, only
   * when names are given.
   */
  allowedHosts?: string[]
}

export interface RunningServer {
  url: string
  host: string
  port: number
  catalog: Catalog
  changeLog: ChangeLog
  store: MetadataStore
  logger: Logger
  tokens: TokenService
  auth: boolean
  /** The checks behind /health and /ready; other parts (the queue consumer) add theirs. */
  health: Health
  /** The registry behind /metrics. */
  metrics: Metrics
  /** The admin token, when this start created it (first start of a store); shown once. */
  adminToken?: string
  /** The admin's web-app password, when this start generated it; shown once. */
  adminPassword?: string
  /** Starts answering a `held` server's requests, the waiting ones first. */
  open(): void
  close(): Promise<void>
}

export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024

/** `GET /ready` (with or without a query): the one request a held server answers at once. */
function isReadyProbe(req: IncomingMessage): boolean {
  const u = req.url ?? ''
  return req.method === 'GET' && (u === '/ready' || u.startsWith('/ready?') || u === '/ready/')
}

/** After this long the server builds its GraphQL schema unasked. */
const WARM_DELAY_MS = 50
/** After a held server opens, before its deferred work starts (see startDeferred). */
const OPEN_GRACE_MS = 50

/**
 * Routes `/api/graphql` to an endpoint loaded on first use; returns the loader, so the server
 * can also load it when idle. A schema that fails to build fails those requests (500) and is
 * logged; REST keeps serving.
 */
function registerLazyGraphql(router: Router, catalog: Catalog, opts: GraphqlOptions): {load: () => Promise<(ctx: RequestContext) => Promise<HttpResponse>>; serve: (ctx: RequestContext) => Promise<HttpResponse>} {
  let endpoint: Promise<(ctx: RequestContext) => Promise<HttpResponse>> | undefined
  const load = () => (endpoint ??= import('./graphql/index.js').then((m) => m.graphqlEndpoint(catalog, opts)))
  const serve = async (ctx: RequestContext) => (await load())(ctx)
  router.on('POST', '/api/graphql', serve)
  router.on('GET', '/api/graphql', serve)
  return {load, serve}
}

export interface AppOptions {
  logger: Logger
  bodyLimit?: number
  /** Tokens and access policies; off: every request acts as the root user. */
  auth: boolean
  tokens: TokenService
  changeLog: ChangeLog
  maxResultWindow?: number
  /** Checks behind /health and /ready (default: none, ready at once). */
  health?: Health
  /** Registry behind /metrics (default: a fresh one). */
  metrics?: Metrics
  /** `/metrics` answers without a token. */
  metricsOpen?: boolean
  /** A DataHub web-app build to serve at `/` in place of our pages. */
  uiDir?: string
  /** How long a web-app sign-in lasts. */
  sessionTtlMs?: number
  /** Refuse requests whose Host header names another server (see guard.ts). */
  hosts?: HostPolicy
  /** The body rate floor of the node listener. */
  bodyRate?: {minRate: number; graceMs: number}
  /** The store's fingerprint, shown by GET /config (storeFingerprint). */
  storeId?: string
}

/** How long a stop waits for requests in flight before it cuts their connections. */
const STOP_GRACE_MS = 5_000

/**
 * The routes of `mdcli lite` over a catalog, with no socket: `startServer` puts the node listener
 * (`router.handle`) in front of them; in-process tests call `router.respond` with request values.
 */
export function createApp(catalog: Catalog, opts: AppOptions): {router: Router; warmGraphql: () => Promise<unknown>; changeStream: {closeAll(): void}; health: Health; metrics: Metrics} {
  const health = opts.health ?? new Health()
  if (!opts.health) health.markReady()
  const metrics = opts.metrics ?? new Metrics()
  const requests = metrics.histogram('mdcli_http_request_duration_seconds', 'HTTP requests answered, by route and status, and how long they took', {labelNames: ['route', 'status']})
  metrics.gauge('mdcli_write_queue_depth', 'Write batches handed to the store and not yet committed', {collect: () => catalog.writesInFlight})
  metrics.gauge('mdcli_health_check_up', 'Each /health check: 1 passing, 0 failing (store, listener, consumer, changelog)', {
    labelNames: ['check'],
    async collect(g) {
      const report = await health.report()
      g.reset()
      for (const [name, r] of Object.entries(report.checks)) g.set({check: name}, r.ok ? 1 : 0)
    },
  })
  const resolveActor = opts.auth ? tokenActorResolver(opts.tokens) : openActorResolver
  const router = new Router({
    bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT,
    logger: opts.logger,
    resolveActor,
    observe: (route, status, seconds) => requests.observe({route, status: String(status)}, seconds),
    hosts: opts.hosts,
    bodyRate: opts.bodyRate,
  })
  registerOperations(router, {health, metrics, metricsOpen: opts.metricsOpen === true || !opts.auth})
  registerRest(router, catalog, {startedAt: Date.now(), storeId: opts.storeId, maxResultWindow: opts.maxResultWindow})
  registerHistory(router, catalog, {maxResultWindow: opts.maxResultWindow})
  registerRuns(router, catalog)
  const graphql = registerLazyGraphql(router, catalog, {maxResultWindow: opts.maxResultWindow, logger: opts.logger, changeLog: opts.changeLog})
  const changeStream = registerEvents(router, opts.changeLog, opts.auth ? (headers) => resolveActor(headers, 'GET') : undefined)
  metrics.gauge('mdcli_events_subscribers', 'Open GET /events streams', {collect: () => changeStream.subscribers()})
  metrics.gauge('mdcli_events_buffered_bytes', 'Bytes GET /events streams have written and their sockets not yet sent (in the server, beside the kernel\'s buffers)', {collect: () => changeStream.bufferedBytes()})
  registerFrontend(router, {auth: opts.auth, tokens: opts.tokens, users: new NativeUsers(catalog), sessionTtlMs: opts.sessionTtlMs, graphql: graphql.serve})
  if (opts.uiDir) {
    registerDataHubUi(router, opts.uiDir)
    registerGraphiql(router)
  } else registerWeb(router)
  return {router, warmGraphql: graphql.load, changeStream, health, metrics}
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const logger = opts.logger ?? createLogger({debug: opts.debug ?? false})
  if (opts.changelog) (await import('../events/outbox.js')).checkOutboxStore(opts.storeDir)
  const storeOpts = {dir: opts.storeDir, checkpointBytes: opts.checkpointBytes, warn: (m: string) => logger.warn(m), info: (m: string) => logger.info(m)}
  const store = await openStore(storeOpts)
  // The search index that goes with the store: the catalog feeds it; it closes with the store.
  const search = await openSearchIndex(storeOpts)
  const closeStore = async () => {
    await store.close()
    await search.close()
  }
  // The store holds token hashes and every aspect: owner-only, like ~/.mdclienv.
  try {
    chmodSync(opts.storeDir, 0o700)
  } catch {
    /* a store directory we do not own stays as it is */
  }
  const auth = opts.auth !== false
  const catalog = new Catalog({store, search, authorizer: opts.authorizer ?? (auth ? new PolicyAuthorizer(store) : allowAll)})
  const tokens = new TokenService(catalog)
  const changeLog = new ChangeLog()
  catalog.onChange((changes) => changeLog.append(changes))
  const health = new Health()
  for (const c of store.healthChecks?.() ?? []) health.add(c.name, () => c.check())
  const host = opts.host ?? '127.0.0.1'
  const timeouts = opts.timeouts ?? DEFAULT_TIMEOUTS
  const allowedHosts = opts.allowedHosts ?? []
  // Without tokens, a page of any site could reach the server by rebinding its name to this machine.
  const hosts = !auth || allowedHosts.length > 0 ? {bound: host, names: allowedHosts} : undefined
  let app: ReturnType<typeof createApp>
  try {
    app = createApp(catalog, {
      storeId: storeFingerprint(opts.storeDir),
      logger,
      bodyLimit: opts.bodyLimit,
      auth,
      tokens,
      changeLog,
      maxResultWindow: opts.maxResultWindow,
      health,
      metricsOpen: opts.metricsOpen,
      uiDir: opts.uiDir,
      sessionTtlMs: opts.sessionTtlMs,
      hosts,
      bodyRate: {minRate: timeouts.bodyMinRate, graceMs: timeouts.bodyGraceMs},
    })
  } catch (e) {
    // A schema that fails to build must not leave the store locked and open.
    await closeStore()
    throw e
  }

  const {router, warmGraphql, changeStream, metrics} = app
  let stopping = false
  let waiting: Array<[IncomingMessage, ServerResponse]> | undefined = opts.held ? [] : undefined
  /** Handlers still running: the store closes only after them, even if their socket was cut. */
  const inflight = new Set<Promise<void>>()
  // Headers and whole requests are timed by node:http (checked every second), the body's rate by
  // the router, idle kept-alive connections by keepAliveTimeout.
  const server: Server = createServer({headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: 1000}, (req, res) => {
    // /ready answers while a start holds the rest: "not yet" is its answer.
    if (waiting && !isReadyProbe(req)) {
      waiting.push([req, res])
      return
    }
    // Once a stop has begun, a request on a kept-alive connection is turned away unread, so that
    // busy clients cannot hold the stop open; nothing of it was written, and 503 says retry.
    if (stopping) {
      const body = JSON.stringify({status: 503, code: 'E_CONNECTION', message: 'The server is stopping; nothing of this request was written. Retry once it is back.'})
      res.writeHead(503, {'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close', 'retry-after': '1'})
      res.end(body)
      return
    }
    const handling = router.handle(req, res)
    inflight.add(handling)
    const done = () => void inflight.delete(handling)
    handling.then(done, done)
  })
  server.keepAliveTimeout = timeouts.idleMs
  const connections = trackConnections(server)
  // Bind before the first start writes anything: a busy port must not leave an admin token that
  // was never shown (nothing would print it again).
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(opts.port ?? 8080, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (e) {
    await closeStore()
    throw e
  }
  let publisher: {close(): Promise<void>} | undefined
  let outboxFile: {close(): void} | undefined
  /** Undoes a start that failed after the listener bound. */
  const abandon = async () => {
    server.close()
    await publisher?.close()
    outboxFile?.close()
    await closeStore()
  }
  // The change log's publisher before the first start's writes: a broker that cannot be reached
  // must fail the start before it makes an admin token it would never show, and the first start's
  // changes (roles, policies, the admin) are published like any other.
  if (opts.changelog) {
    try {
      const {publishChangeLog} = await import('../events/publish.js')
      const {ChangeOutbox} = await import('../events/outbox.js')
      const outbox = ChangeOutbox.open(opts.storeDir)
      outboxFile = outbox
      catalog.setOutbox(outbox)
      publisher = await publishChangeLog(changeLog, {url: opts.changelog.url, subject: opts.changelog.subject, log: logger, outbox, catalog, health, metrics})
    } catch (e) {
      await abandon()
      throw e
    }
  }
  let adminToken: string | undefined
  let adminPassword: string | undefined
  try {
    adminToken = (await bootstrapAccess(catalog)).adminToken
    if (auth && (opts.adminPassword || !opts.noGeneratedPassword)) adminPassword = (await new NativeUsers(catalog).bootstrapAdminPassword(opts.adminPassword)).generated
  } catch (e) {
    await abandon()
    throw e
  }
  let consumer: {close(): Promise<void>; stats?: unknown} | undefined
  if (opts.consume) {
    try {
      const {startConsumer} = await import('../events/consumer.js')
      consumer = await startConsumer(catalog, {url: opts.consume.url, subject: opts.consume.subject, log: logger, metrics, health})
      const stats = (consumer as {stats?: Record<string, number>}).stats
      if (stats) {
        metrics.counter('mdcli_consumer_applied_total', 'Queued proposals written', {collect: () => stats.applied ?? 0})
        metrics.counter('mdcli_consumer_unchanged_total', 'Queued proposals equal to the stored value', {collect: () => stats.unchanged ?? 0})
        metrics.counter('mdcli_consumer_dead_letters_total', 'Queued proposals refused and sent to the dead-letter subject', {collect: () => stats.deadLettered ?? 0})
        metrics.counter('mdcli_consumer_redelivered_total', 'Queued proposals delivered more than once', {collect: () => stats.redelivered ?? 0})
      }
    } catch (e) {
      await abandon()
      throw e
    }
  }
  // What a start leaves for once the server answers: filling a search index that does not outlive
  // the process (in the background), prom-client (see metrics.ts) and the GraphQL schema
  // (graphql's modules and ~100 ms of building); a scrape, search or GraphQL request that comes
  // sooner starts its own. A held server does this once the requests that waited for open() are
  // answered: either one, started here, ran before the first answer whenever the main thread's
  // "open" came later (0.1–0.15 s at a million aspects). And a moment after that (OPEN_GRACE_MS):
  // a client that waits for the banner sends its first request just after open(), when no request
  // has waited, and the search rebuild's first steps (listing every entity, reading and sending
  // its first batches: 0.13 s at a million aspects) ran before it.
  let warm: NodeJS.Timeout | undefined
  let grace: NodeJS.Timeout | undefined
  const startDeferred = () => {
    catalog.warmSearch()
    warm = setTimeout(() => {
      void metrics.load().catch((e: unknown) => logger.error(`metrics: ${(e as Error)?.stack ?? String(e)}`))
      void warmGraphql().catch((e: unknown) => logger.error(`GraphQL schema: ${(e as Error)?.stack ?? String(e)}`))
    }, WARM_DELAY_MS)
    warm.unref()
  }
  // A server that does not hold its requests has finished starting here; a held one at open().
  if (!opts.held) {
    startDeferred()
    health.markReady()
  }
  const port = (server.address() as AddressInfo).port
  const shownHost = host.includes(':') ? `[${host}]` : host
  let closing: Promise<void> | undefined
  const open = (): void => {
    const held = waiting !== undefined
    const queued = waiting ?? []
    waiting = undefined
    health.markReady()
    for (const [req, res] of queued) server.emit('request', req, res)
    // Once the requests that waited are answered: a turn or two later was not always enough.
    if (held) {
      void Promise.allSettled([...inflight]).then(() => {
        if (stopping) return
        grace = setTimeout(() => !stopping && startDeferred(), OPEN_GRACE_MS)
        grace.unref()
      })
    }
  }
  return {
    url: `http://${shownHost}:${port}`,
    host,
    port,
    catalog,
    changeLog,
    store,
    logger,
    tokens,
    auth,
    health,
    metrics,
    adminToken,
    adminPassword,
    open,
    close() {
      closing ??= (async () => {
        clearTimeout(grace)
        clearTimeout(warm)
        // The consumer first: what it took from the queue is written (and acknowledged) or redelivered.
        await consumer?.close()
        changeStream.closeAll()
        stopping = true
        // Requests held for an open that never came are answered as stopping.
        open()
        // Requests in flight are answered (their writes acknowledged), and so are those that come
        // on kept-alive connections meanwhile (503, Connection: close); a connection closes once
        // it has stayed idle (drain.ts). One still busy at the deadline (a stalled upload) is cut:
        // its request was never acknowledged, so nothing acknowledged is lost.
        await connections.drain(STOP_GRACE_MS)
        await Promise.allSettled([...inflight])
        // Only now that no request is being handled: a write whose outbox entry could not be
        // written after it was saved would be answered as failed though it was saved.
        await publisher?.close()
        outboxFile?.close()
        await closeStore()
      })()
      return closing
    },
  }
}
