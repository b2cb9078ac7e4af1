/**
 * The one mapping of errors to the spec's GraphQL error model: an error raised while resolving
 * carries `message`, `locations`, `path` (the response key first: the field, or its alias) and
 * `extensions {code, type, classification}`; an error of the request itself has no path (below).
 *
 * - Our typed errors (MdcliError) map by their status: 400 BAD_REQUEST, 403 UNAUTHORIZED,
 *   404 NOT_FOUND (409 CONFLICT too, as DataHub has it), with their own message.
 * - A full store (E_STORE_FULL, E_STORE_MEMORY) is 500 SERVER_ERROR with its own message, naming the store.
 * - A store that cannot be reached (E_STORE_UNAVAILABLE) is 503 SERVICE_UNAVAILABLE with its own
 *   message, and the response's HTTP status is 503 too (see `unavailableIn`): retry later.
 * - Anything else thrown while resolving is a bug: 500 SERVER_ERROR with DataHub's message
 *   `An unknown error occurred.`; the cause goes to the server log, never to the client.
 * - Errors of the request itself (syntax, validation, variable coercion, limits) have no path:
 *   400 BAD_REQUEST, classification InvalidSyntax or ValidationError as graphql-java names them.
 */
import {GraphQLError} from 'graphql'
import {BugError, MdcliError} from '../../errors.js'
import type {Logger} from '../http.js'

export const UNKNOWN_ERROR = 'An unknown error occurred.'

const TYPES: Record<number, string> = {400: 'BAD_REQUEST', 403: 'UNAUTHORIZED', 404: 'NOT_FOUND', 409: 'CONFLICT', 500: 'SERVER_ERROR', 503: 'SERVICE_UNAVAILABLE'}

export interface ErrorExtensions {
  code: number
  type: string
  classification: string
}

export function extensions(code: number, classification: string): ErrorExtensions {
  return {code, type: TYPES[code] ?? 'SERVER_ERROR', classification}
}

/** The spec's code for an HTTP-ish status of a typed error. */
export function codeForStatus(status: number): number {
  if (status === 401 || status === 403) return 403
  if (status === 404) return 404
  if (status === 409) return 409
  if (status >= 400 && status < 500) return 400
  return 500
}

function relocated(err: GraphQLError, message: string, ext: ErrorExtensions): GraphQLError {
  const out = new GraphQLError(message, {nodes: err.nodes, source: err.source, positions: err.positions, path: err.path, extensions: {...ext}})
  // Errors of compiled execution (graphql-jit) carry their locations without the AST nodes.
  if (out.locations === undefined && err.locations !== undefined && err.locations.length > 0) {
    ;(out as {locations?: GraphQLError['locations']}).locations = err.locations
  }
  return out
}

export function makeFormatError(logger: Logger): (err: Readonly<GraphQLError | Error>) => GraphQLError {
  return (err) => {
    // graphql-http's own request errors ("Missing query", "Unparsable JSON body", …).
    if (!(err instanceof GraphQLError)) return new GraphQLError(err.message, {extensions: {...extensions(400, 'ValidationError')}})
    if (err.path === undefined) {
      const classification = err.message.startsWith('Syntax Error') ? 'InvalidSyntax' : 'ValidationError'
      return relocated(err, err.message, extensions(400, classification))
    }
    const orig = err.originalError
    if (orig instanceof MdcliError) {
      const code = codeForStatus(orig.status)
      // A full store is the user's to fix (free space), not a bug: its message says so.
      if (orig.code === 'E_STORE_FULL' || orig.code === 'E_STORE_MEMORY') {
        if (orig.serverDetail) logger.warn(`GraphQL ${err.path.join('.')}: ${orig.message} (${orig.serverDetail})`)
        return relocated(err, orig.message, extensions(500, 'DataFetchingException'))
      }
      if (orig.code === 'E_STORE_UNAVAILABLE') return relocated(err, orig.message, extensions(503, 'DataFetchingException'))
      if (code === 500) {
        logger.error(`GraphQL ${err.path.join('.')} failed: ${orig instanceof BugError ? orig.logText() : (orig.stack ?? orig.message)}${orig.serverDetail ? ` (${orig.serverDetail})` : ''}`)
        return relocated(err, UNKNOWN_ERROR, extensions(500, 'DataFetchingException'))
      }
      return relocated(err, orig.message, extensions(code, 'DataFetchingException'))
    }
    const bug = new BugError(UNKNOWN_ERROR, {cause: orig ?? err})
    logger.error(`GraphQL ${err.path.join('.')} failed: ${bug.logText()}`)
    return relocated(err, UNKNOWN_ERROR, extensions(500, 'DataFetchingException'))
  }
}

/** Whether formatted errors say the store could not be reached: the response is then a 503. */
export function unavailableIn(errors: readonly GraphQLError[]): boolean {
  return errors.some((e) => e.extensions?.code === 503)
}
