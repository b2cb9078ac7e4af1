/**
 * Assembles `mdcli lite`: store → catalog → router → node:http listener.
 */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {Catalog, SYSTEM_ACTOR} from '../catalog/catalog.js'
import type {Authorizer} from '../catalog/authorize.js'
import {openStore} from '../store/index.js'
import type {MetadataStore} from '../store/types.js'
import {Router, type Logger} from './http.js'
import {createLogger} from './log.js'
import {registerRest} from './rest.js'
import {registerRuns} from './runs.js'

export interface ServerOptions {
  storeDir: string
  host?: string
  port?: number
  debug?: boolean
  logger?: Logger
  /** Largest request body accepted, in bytes. */
  bodyLimit?: number
  authorizer?: Authorizer
  checkpointBytes?: number
}

export interface RunningServer {
  url: string
  host: string
  port: number
  catalog: Catalog
  store: MetadataStore
  logger: Logger
  close(): Promise<void>
}

export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const logger = opts.logger ?? createLogger({debug: opts.debug ?? false})
  const store = await openStore({dir: opts.storeDir, checkpointBytes: opts.checkpointBytes, warn: (m) => logger.warn(m)})
  const catalog = new Catalog({store, authorizer: opts.authorizer})
  const router = new Router({
    bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT,
    logger,
    // Until access tokens exist every request acts as the root user; the resolution lives here alone.
    resolveActor: async () => SYSTEM_ACTOR,
  })
  registerRest(router, catalog, {startedAt: Date.now()})
  registerRuns(router, catalog)

  const server: Server = createServer((req, res) => {
    void router.handle(req, res)
  })
  server.keepAliveTimeout = 65_000
  const host = opts.host ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 8080, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  const shownHost = host.includes(':') ? `[${host}]` : host
  let closing: Promise<void> | undefined
  return {
    url: `http://${shownHost}:${port}`,
    host,
    port,
    catalog,
    store,
    logger,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeIdleConnections()
        })
        await store.close()
      })()
      return closing
    },
  }
}
