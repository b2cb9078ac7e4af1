/**
 * Who is asking: the actor of a request comes from `Authorization: Bearer <token>` and nowhere
 * else. No token, or one the catalog does not know, has revoked or let expire, is a 401 before
 * any handler runs; with auth switched off every request acts as the root user.
 */
import type {IncomingHttpHeaders} from 'node:http'
import {type Actor, SYSTEM_ACTOR} from '../catalog/catalog.js'
import type {TokenService} from '../catalog/access/tokens.js'
import {UnauthenticatedError} from '../errors.js'

export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const h = headers.authorization
  if (!h) return undefined
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h)
  return m ? m[1] : undefined
}

export function tokenActorResolver(tokens: TokenService): (headers: IncomingHttpHeaders) => Promise<Actor> {
  return async (headers) => {
    const token = bearerToken(headers)
    if (!token) {
      const why = headers.authorization ? 'the Authorization header is not "Bearer <token>"' : 'no access token was sent'
      throw new UnauthenticatedError(`Unauthorized: ${why}. Send Authorization: Bearer <token> (mdcli reads METADATA_GMS_TOKEN or the config written by mdcli init).`)
    }
    return tokens.verify(token)
  }
}

export const openActorResolver = async (): Promise<Actor> => SYSTEM_ACTOR
