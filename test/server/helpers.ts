/**
 * The server's handlers called in-process: a request value in, a response value out, on the
 * in-memory store — no child process, no socket. The binary tests (test/integration) cover the
 * listener.
 */
import {bootstrapAccess} from '../../src/catalog/access/bootstrap.js'
import {TokenService} from '../../src/catalog/access/tokens.js'
import type {Authorizer} from '../../src/catalog/authorize.js'
import {Catalog} from '../../src/catalog/catalog.js'
import {ChangeLog} from '../../src/events/changelog.js'
import {createApp} from '../../src/server/app.js'
import {type HttpRequest, type HttpResponse, type Logger, type Router, STREAMED} from '../../src/server/http.js'
import {createMemoryStore} from '../../src/store/index.js'

export interface App {
  catalog: Catalog
  router: Router
  errors: string[]
  adminToken?: string
}

export async function app(opts: {auth: boolean; authorizer?: (store: ReturnType<typeof createMemoryStore>) => Authorizer}): Promise<App> {
  const store = createMemoryStore()
  await store.open()
  const catalog = new Catalog({store, authorizer: opts.authorizer?.(store)})
  const errors: string[] = []
  const logger: Logger = {info() {}, debug() {}, warn() {}, error: (m) => errors.push(m), debugEnabled: false}
  const {router} = createApp(catalog, {logger, auth: opts.auth, tokens: new TokenService(catalog), changeLog: new ChangeLog()})
  const {adminToken} = opts.auth ? await bootstrapAccess(catalog) : {adminToken: undefined}
  return {catalog, router, errors, adminToken}
}

export async function call(a: App, method: string, url: string, body?: unknown, token = a.adminToken): Promise<{status: number; json: any; response: HttpResponse}> {
  const request: HttpRequest = {
    method,
    url,
    headers: {...(token ? {authorization: `Bearer ${token}`} : {}), ...(body === undefined ? {} : {'content-type': 'application/json'})},
    ...(body === undefined ? {} : {body: JSON.stringify(body)}),
  }
  const response = await a.router.respond(request)
  if (response === STREAMED) throw new Error(`${method} ${url} streamed`)
  const text = response.body === undefined ? '' : response.body.toString()
  return {status: response.status, json: text === '' ? undefined : JSON.parse(text), response}
}
