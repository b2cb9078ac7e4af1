/**
 * Serves the pages (built into dist/web by `npm run build`): `/`, `/search`, `/entity/<urn>`
 * answer the app's HTML, `/api/graphiql` GraphiQL's, `/app/*` their scripts and styles. Public like the GraphiQL page: the
 * pages hold no data; everything they show comes from the GraphQL API under the person's token.
 */
import {existsSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {gzipSync} from 'node:zlib'
import type {HttpResponse, RequestContext, Router} from './http.js'
import {PAGE_SECURITY_HEADERS} from './guard.js'

const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url))
const TYPES: Record<string, string> = {'.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.html': 'text/html; charset=utf-8'}

interface Asset {
  body: Buffer
  gzip: Buffer
  type: string
}

/** A handler maker for the built pages' files, gzipped when the browser takes it. */
function assetSender(dir: string): (name: string, cache: string) => (ctx: RequestContext) => Promise<HttpResponse> {
  const assets = new Map<string, Asset>()
  const load = (name: string): Asset | undefined => {
    if (assets.has(name)) return assets.get(name)
    const path = `${dir}${name}`
    if (!/^[a-z0-9.-]+$/i.test(name) || !existsSync(path)) return undefined
    const body = readFileSync(path)
    const a = {body, gzip: gzipSync(body), type: TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream'}
    assets.set(name, a)
    return a
  }
  return (name: string, cache: string) => async (ctx: RequestContext): Promise<HttpResponse> => {
    const a = load(name)
    if (!a) return {status: 404, headers: {'content-type': 'text/plain'}, body: name === 'index.html' ? 'The pages are not built: run `npm run build`.' : 'Not found'}
    const gz = /\bgzip\b/.test(String(ctx.request.headers['accept-encoding'] ?? ''))
    return {status: 200, headers: {'content-type': a.type, 'cache-control': cache, ...(gz ? {'content-encoding': 'gzip'} : {}), vary: 'accept-encoding', ...PAGE_SECURITY_HEADERS}, body: gz ? a.gzip : a.body}
  }
}

export function registerWeb(router: Router, dir = WEB_DIR): void {
  const send = assetSender(dir)
  const page = send('index.html', 'no-cache')
  for (const path of ['/', '/search']) router.on('GET', path, page, {public: true})
  router.on('GET', '/entity/*', page, {public: true})
  registerGraphiql(router, dir)
}

/**
 * GraphiQL and the pages' files: with `--ui`, DataHub's app takes `/` and its routes, and
 * GraphiQL stays at /api/graphiql (the app links there).
 */
export function registerGraphiql(router: Router, dir = WEB_DIR): void {
  const send = assetSender(dir)
  router.on('GET', '/api/graphiql', send('graphiql.html', 'no-cache'), {public: true})
  router.on('GET', '/app/*', async (ctx) => send(ctx.params[0]!, 'no-cache')(ctx), {public: true})
}
