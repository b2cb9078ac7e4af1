/**
 * The part DataHub's frontend server plays for its web app, played by `mdcli lite` itself:
 * sign-in, sign-out, sign-up with an invite, password reset, the redirect of a browser that is
 * not signed in, the GraphQL path the app posts to, the usage-tracking sink, and an empty
 * micro-frontends config.
 *
 * Glossary:
 * - session cookie: HttpOnly, SameSite=Lax, holds a sign-in session (a token kept hashed by the
 *   catalog, see access/tokens.ts); every request it comes with acts as its user.
 * - actor cookie: readable by the app's scripts, holds the user's urn; the app reads it to know
 *   that someone is signed in. It grants nothing: the session cookie does.
 *
 * These routes are public (the person is not signed in yet); what they write goes through the
 * catalog under the grant their one-time secret earns (see access/native-users.ts).
 */
import type {IncomingHttpHeaders} from 'node:http'
import type {NativeUsers} from '../catalog/access/native-users.js'
import type {TokenService} from '../catalog/access/tokens.js'
import {type Actor, SYSTEM_ACTOR} from '../catalog/catalog.js'
import {UnauthorizedError} from '../errors.js'
import {ACTOR_COOKIE, cookieValue, crossSite, SESSION_COOKIE} from './auth.js'
import {type Handler, type HttpResponse, json, type RequestContext, type Router} from './http.js'

/** DataHub's frontend keeps a session for a day (AUTH_SESSION_TTL_HOURS). */
export const DEFAULT_SESSION_TTL_MS = 24 * 3600_000

export interface FrontendOptions {
  auth: boolean
  tokens: TokenService
  users: NativeUsers
  sessionTtlMs?: number
  /** The GraphQL endpoint, served at DataHub's frontend path too. */
  graphql: Handler
}

/** Secure only when the browser reached us over TLS (directly or through a proxy that says so). */
function secure(headers: IncomingHttpHeaders): boolean {
  return headers['x-forwarded-proto'] === 'https'
}

function cookie(name: string, value: string, maxAgeSeconds: number, headers: IncomingHttpHeaders, httpOnly: boolean): string {
  return `${name}=${encodeURIComponent(value)}; Path=/; Max-Age=${maxAgeSeconds}; SameSite=Lax${httpOnly ? '; HttpOnly' : ''}${secure(headers) ? '; Secure' : ''}`
}

function sessionCookies(actor: Actor, session: string, ttlMs: number, headers: IncomingHttpHeaders): string[] {
  const age = Math.floor(ttlMs / 1000)
  return [cookie(SESSION_COOKIE, session, age, headers, true), cookie(ACTOR_COOKIE, actor.urn, age, headers, false)]
}

function clearedCookies(headers: IncomingHttpHeaders): string[] {
  return [cookie(SESSION_COOKIE, '', 0, headers, true), cookie(ACTOR_COOKIE, '', 0, headers, false)]
}

/** A path on this server to send a browser back to; anything else (another site) becomes `/`. */
function localPath(target: string | null): string {
  if (!target || !target.startsWith('/') || target.startsWith('//') || target.includes('\\')) return '/'
  return target
}

const redirect = (location: string, cookies?: string[]): HttpResponse => ({status: 302, headers: {location, 'cache-control': 'no-store', ...(cookies ? {'set-cookie': cookies} : {})}})

export function registerFrontend(router: Router, opts: FrontendOptions): void {
  const ttl = opts.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS

  /** Signs `actor` in: a new session and both cookies. */
  const signedIn = async (ctx: RequestContext, actor: Actor): Promise<HttpResponse> => {
    const {session} = await opts.tokens.startSession(actor.urn, ttl)
    const r = json(200, {actor: actor.urn})
    r.headers['set-cookie'] = sessionCookies(actor, session, ttl, ctx.request.headers)
    r.headers['cache-control'] = 'no-store'
    return r
  }

  /** The form posts of the sign-in pages: refused when another site made the browser send them. */
  const form = (f: (ctx: RequestContext, body: Record<string, unknown>) => Promise<HttpResponse>): Handler => async (ctx) => {
    if (crossSite(ctx.request.headers)) throw new UnauthorizedError('Refused: sign-in forms are accepted only from this server’s own pages')
    const body = await ctx.json<Record<string, unknown>>()
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return json(400, {status: 400, code: 'E_BAD_REQUEST', message: 'Expected a JSON object'})
    return f(ctx, body)
  }

  router.on('POST', '/logIn', form(async (ctx, body) => {
    // With auth off there are no passwords: whoever signs in acts as the root user, as every request does.
    if (!opts.auth) return signedInOpen(ctx)
    return signedIn(ctx, await opts.users.signIn(body.username, body.password))
  }), {public: true})

  const signedInOpen = (ctx: RequestContext): HttpResponse => {
    const r = json(200, {actor: SYSTEM_ACTOR.urn})
    r.headers['set-cookie'] = [cookie(ACTOR_COOKIE, SYSTEM_ACTOR.urn, Math.floor(ttl / 1000), ctx.request.headers, false)]
    return r
  }

  router.on('POST', '/signUp', form(async (ctx, body) => signedIn(ctx, await opts.users.signUp(body))), {public: true})
  router.on('POST', '/resetNativeUserCredentials', form(async (ctx, body) => signedIn(ctx, await opts.users.resetPassword(body))), {public: true})

  router.on('GET', '/logOut', async (ctx) => {
    const session = cookieValue(ctx.request.headers, SESSION_COOKIE)
    if (session) await opts.tokens.endSession(session)
    return redirect('/login', clearedCookies(ctx.request.headers))
  }, {public: true})

  // Where the app sends a browser that is not signed in: back where it was when it is, else the login page.
  router.on('GET', '/authenticate', async (ctx) => {
    const back = localPath(ctx.query.get('redirect_uri'))
    const session = cookieValue(ctx.request.headers, SESSION_COOKIE)
    if (!opts.auth) return redirect(back)
    if (session) {
      try {
        await opts.tokens.verifySession(session)
        return redirect(back)
      } catch {
        /* ended or expired: sign in again */
      }
    }
    return redirect(`/login?redirect_uri=${encodeURIComponent(back)}`, clearedCookies(ctx.request.headers))
  }, {public: true})

  // Usage events of the app: accepted and dropped (mdcli keeps no analytics).
  router.on('POST', '/openapi/v1/tracking/track', async (ctx) => {
    await ctx.received()
    return {status: 200, headers: {'content-type': 'application/json'}, body: '{}'}
  }, {public: true})

  // The app reads its micro-frontends' config (YAML) as it starts; mdcli has none to offer. Without
  // this route the app's own fallback answered index.html, which the app logged as broken YAML.
  router.on('GET', '/mfe/config', async () => ({status: 200, headers: {'content-type': 'text/yaml; charset=utf-8', 'cache-control': 'no-cache'}, body: 'microFrontends: []\n'}), {public: true})

  router.on('POST', '/api/v2/graphql', opts.graphql)
}
