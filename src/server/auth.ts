/**
 * Who is asking: the actor of a request comes from `Authorization: Bearer <token>`, or — for
 * DataHub's web app, which sends no header — from the sign-in session cookie. No credential, or
 * one the catalog does not know, has revoked or let expire, is a 401 before any handler runs;
 * with auth switched off every request acts as the root user.
 *
 * A browser sends cookies with requests other sites make it send, so a request authenticated by
 * the cookie that could change something (any method but GET/HEAD) is refused unless the
 * browser says it came from our own pages (Sec-Fetch-Site, else Origin against Host). Bearer
 * tokens are never sent on their own, so they need no such check.
 */
import type {IncomingHttpHeaders} from 'node:http'
import {type Actor, SYSTEM_ACTOR} from '../catalog/catalog.js'
import type {TokenService} from '../catalog/access/tokens.js'
import {UnauthenticatedError, UnauthorizedError} from '../errors.js'

/** The HttpOnly cookie that holds a sign-in session (DataHub's frontend calls its own PLAY_SESSION). */
export const SESSION_COOKIE = 'mdcli_session'
/** The readable cookie DataHub's web app checks to decide that someone is signed in. */
export const ACTOR_COOKIE = 'actor'

export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const h = headers.authorization
  if (!h) return undefined
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h)
  return m ? m[1] : undefined
}

/** One cookie of a request's Cookie header, decoded; undefined when absent. */
export function cookieValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const header = headers.cookie
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue
    const raw = part.slice(eq + 1).trim()
    try {
      return decodeURIComponent(raw)
    } catch {
      return raw
    }
  }
  return undefined
}

/**
 * Whether a browser request came from a page of this server. Sec-Fetch-Site is what browsers
 * send today; an Origin header that names this host is what older ones send. Neither: no proof.
 */
export function sameOrigin(headers: IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site']
  if (typeof site === 'string') return site === 'same-origin' || site === 'none'
  const origin = headers.origin
  if (typeof origin !== 'string' || origin === 'null') return false
  let host: string
  try {
    host = new URL(origin).host
  } catch {
    return false
  }
  return host === headers.host || host === headers['x-forwarded-host']
}

/** True when the headers show a request another site made the browser send. */
export function crossSite(headers: IncomingHttpHeaders): boolean {
  return (headers['sec-fetch-site'] !== undefined || headers.origin !== undefined) && !sameOrigin(headers)
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export function tokenActorResolver(tokens: TokenService): (headers: IncomingHttpHeaders, method: string) => Promise<Actor> {
  return async (headers, method) => {
    const token = bearerToken(headers)
    if (!token) {
      const session = headers.authorization ? undefined : cookieValue(headers, SESSION_COOKIE)
      if (session) {
        if (!SAFE_METHODS.has(method) && !sameOrigin(headers)) {
          throw new UnauthorizedError('Refused: a request signed in by cookie must come from this server’s own pages (Sec-Fetch-Site or Origin did not match)')
        }
        return tokens.verifySession(session)
      }
      const why = headers.authorization ? 'the Authorization header is not "Bearer <token>"' : 'no access token was sent'
      throw new UnauthenticatedError(`Unauthorized: ${why}. Send Authorization: Bearer <token> (mdcli reads METADATA_GMS_TOKEN or the config written by mdcli init), or sign in to the web app.`)
    }
    return tokens.verify(token)
  }
}

export const openActorResolver = async (): Promise<Actor> => SYSTEM_ACTOR
