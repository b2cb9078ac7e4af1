/**
 * Serves a build of DataHub's own web app (`mdcli lite --ui <dir>`) at `/`, in place of our
 * pages, as DataHub's frontend server does: `index.html` with `@basePath` filled in for every
 * path the app routes on the client, and its static files — the hashed ones under `assets/`
 * cached for a year, the rest revalidated.
 *
 * The build is read from the given folder as it is; nothing of it is part of mdcli.
 */
import {existsSync, readFileSync, statSync} from 'node:fs'
import {readFile, stat} from 'node:fs/promises'
import {extname, join, resolve, sep} from 'node:path'
import {UsageError} from '../errors.js'
import type {HttpResponse, RequestContext, Router} from './http.js'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.eot': 'application/vnd.ms-fontobject',
  '.wasm': 'application/wasm',
}

/**
 * What DataHub's app needs of a page policy: its own scripts (Monaco's workers from blob URLs),
 * styles its components inject at run time, images from anywhere (platform logos, avatars are
 * URLs in the metadata), and requests to this server only.
 */
export const DATAHUB_UI_CSP = [
  "default-src 'self'",
  "script-src 'self' blob:",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https: http:",
  "font-src 'self' data:",
  "connect-src 'self'",
  // A dashboard's or chart's `embed.renderUrl` (Looker, Tableau, …) is shown in a frame.
  "frame-src 'self' https: http:",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ')

/** A file name vite stamped with its content hash: safe to cache for good. */
const HASHED = /-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/

/** Checks that `dir` holds a DataHub web-app build; returns its absolute path. */
export function checkUiDir(dir: string): string {
  const abs = resolve(dir)
  if (!existsSync(join(abs, 'index.html')) || !statSync(abs).isDirectory()) {
    throw new UsageError(`--ui ${dir}: not a DataHub web-app build (no index.html in ${abs})`)
  }
  if (!readFileSync(join(abs, 'index.html'), 'utf8').includes('@basePath')) {
    throw new UsageError(`--ui ${dir}: index.html has no @basePath placeholder; expected the output of datahub-web-react's vite build`)
  }
  return abs
}

export function registerDataHubUi(router: Router, dir: string): void {
  const root = checkUiDir(dir)
  const page = Buffer.from(readFileSync(join(root, 'index.html'), 'utf8').replaceAll('@basePath', '/'))
  const pageHeaders = {'content-type': TYPES['.html']!, 'cache-control': 'no-cache', 'content-security-policy': DATAHUB_UI_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin'}
  const index = async (): Promise<HttpResponse> => ({status: 200, headers: {...pageHeaders}, body: page})

  /** A file of the build; the app's page for a path that names none (a client-side route). */
  const file = async (ctx: RequestContext, rel: string, fallbackToPage: boolean): Promise<HttpResponse> => {
    const parts = rel.split('/')
    if (rel.includes('\0') || rel.includes('\\') || parts.some((p) => p === '..' || p === '.')) return {status: 400, headers: {'content-type': 'text/plain'}, body: 'Bad path'}
    const path = join(root, ...parts)
    if (!path.startsWith(root + sep)) return {status: 400, headers: {'content-type': 'text/plain'}, body: 'Bad path'}
    let info
    try {
      info = await stat(path)
    } catch {
      info = undefined
    }
    if (!info?.isFile()) return fallbackToPage ? index() : {status: 404, headers: {'content-type': 'text/plain'}, body: 'Not found'}
    if (rel === 'index.html') return index()
    const etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`
    const headers = {
      'content-type': TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
      'cache-control': rel.startsWith('assets/') && HASHED.test(rel) ? 'public, max-age=31536000, immutable' : 'no-cache',
      etag,
      'x-content-type-options': 'nosniff',
    }
    if (ctx.request.headers['if-none-match'] === etag) return {status: 304, headers}
    return {status: 200, headers, body: await readFile(path)}
  }

  router.on('GET', '/', index, {public: true})
  // Assets answer 404 when missing: a page in their place would only confuse the browser.
  router.on('GET', '/assets/*', (ctx) => file(ctx, `assets/${ctx.params[0]}`, false), {public: true})
  router.on('GET', '/node_modules/*', (ctx) => file(ctx, `node_modules/${ctx.params[0]}`, false), {public: true})
  // Anything else: a top-level file of the build (manifest.json, robots.txt…) or a route of the app.
  router.fallback((ctx) => {
    const path = ctx.params[0]!.slice(1)
    return !path.includes('/') && path !== '' ? file(ctx, path, true) : index()
  })
}
