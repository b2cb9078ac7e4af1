/**
 * Telling "PostgreSQL is not there to answer" from "this statement failed", so that the first
 * reaches clients as E_STORE_UNAVAILABLE (503, retry) instead of a bug (500).
 *
 * Glossary:
 * - connection failure: the socket could not be opened or was cut (ECONNREFUSED, ECONNRESET…),
 *   the server is shutting down or ended our backend (SQLSTATE 57P01–57P04), the database does
 *   not exist or takes no connections (3D000, 55000 "not currently accepting connections"),
 *   too many connections (53300), class 08 (connection exception), or node-postgres' own
 *   messages for a connection that ended or could not be had in time.
 * - guarded pool: a pg.Pool whose `query` and `connect` (and the queries of the clients it hands
 *   out) throw StoreUnavailableError for a connection failure and rethrow anything else as is.
 */
import type pg from 'pg'
import {StoreUnavailableError} from '../../errors.js'

const SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P04', '3D000', '53300', '08000', '08001', '08003', '08004', '08006', '08007'])
const ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED'])
const MESSAGES = [
  /^Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /is not queryable/i,
  /not currently accepting connections/i,
  /Cannot use a pool after calling end on the pool/i,
]

/** Whether `e` says the database could not be reached (see the glossary). */
export function isConnectionFailure(e: unknown): boolean {
  if (!(e instanceof Error)) return false
  if (e instanceof StoreUnavailableError) return true
  const code = (e as {code?: unknown}).code
  if (typeof code === 'string' && (SQLSTATES.has(code) || ERRNOS.has(code))) return true
  // An AggregateError (every address of a host refused) carries its codes on its parts.
  if (e instanceof AggregateError && e.errors.some(isConnectionFailure)) return true
  return MESSAGES.some((m) => m.test(e.message))
}

/** What a client is told: the kind of failure, never the database's address. */
export function unavailableError(e: unknown): StoreUnavailableError {
  if (e instanceof StoreUnavailableError) return e
  const code = (e as {code?: unknown}).code
  const reason = typeof code === 'string' ? code : 'connection lost'
  return new StoreUnavailableError(`The PostgreSQL store cannot be reached (${reason}); retry once it is back`, {reason})
}

/** `e` as E_STORE_UNAVAILABLE when it is a connection failure, else `e` itself. */
export function translate(e: unknown): unknown {
  return isConnectionFailure(e) ? unavailableError(e) : e
}

function guardQuery<T extends object>(target: T, query: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  return (...args) => {
    let r: unknown
    try {
      r = query.apply(target, args)
    } catch (e) {
      throw translate(e)
    }
    // A submittable (a cursor) is returned as is; promises have their failures translated.
    return r instanceof Promise ? r.catch((e: unknown) => Promise.reject(translate(e))) : r
  }
}

function guardClient(c: pg.PoolClient): pg.PoolClient {
  const query = guardQuery(c, c.query as (...args: unknown[]) => unknown)
  return new Proxy(c, {
    get(t, key) {
      if (key === 'query') return query
      const v = Reflect.get(t, key, t) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v
    },
  })
}

/** Clients given an error listener of their own, once each. */
const QUIETED = new WeakSet<pg.PoolClient>()

/** The guarded pool of `pool` (see the glossary); the pool itself is used as before. */
export function guardPool(pool: pg.Pool): pg.Pool {
  const query = guardQuery(pool, pool.query as (...args: unknown[]) => unknown)
  const connect = async (): Promise<pg.PoolClient> => {
    let c: pg.PoolClient
    try {
      c = await pool.connect()
    } catch (e) {
      throw translate(e)
    }
    // The pool listens for a client's errors only while it is idle: a backend ended while a
    // client is checked out (pg_terminate_backend, a failover) would raise an unhandled 'error'
    // and end the process. Its query fails instead, answered E_STORE_UNAVAILABLE, and the pool
    // drops the dead client when it comes back.
    if (!QUIETED.has(c)) {
      c.on('error', () => undefined)
      QUIETED.add(c)
    }
    return guardClient(c)
  }
  return new Proxy(pool, {
    get(t, key) {
      if (key === 'query') return query
      if (key === 'connect') return connect
      const v = Reflect.get(t, key, t) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v
    },
  })
}
