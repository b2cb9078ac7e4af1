/**
 * Typed errors with stable codes.
 *
 * Every failure a user can cause or fix is an `MdcliError` subclass with a `code` that never
 * changes (tests assert codes, not wording) and an HTTP-ish `status` that the REST layer, the
 * GraphQL layer and the CLI each map once: REST → status + JSON body, GraphQL → the spec's
 * `extensions { code type classification }`, CLI → one line on stderr and a non-zero exit.
 */

export type ErrorCode =
  | 'E_USAGE'
  | 'E_BAD_URN'
  | 'E_UNKNOWN_ENTITY_TYPE'
  | 'E_UNKNOWN_ASPECT'
  | 'E_INVALID_ASPECT'
  | 'E_BAD_REQUEST'
  | 'E_NOT_FOUND'
  | 'E_UNAUTHENTICATED'
  | 'E_UNAUTHORIZED'
  | 'E_CONFLICT'
  | 'E_TOO_LARGE'
  | 'E_CONNECTION'
  | 'E_SERVER'
  | 'E_CONFIG'
  | 'E_STORE_CORRUPT'
  | 'E_STORE_LOCKED'
  | 'E_STORE_VERSION'
  | 'E_STORE_FULL'
  | 'E_STORE_IO'
  | 'E_STORE_CONFLICT'
  | 'E_STORE_MEMORY'
  | 'E_STORE_UNAVAILABLE'
  | 'E_FILE'
  | 'E_PARSE'
  | 'E_PLUGIN'
  | 'E_INTERNAL'

export class MdcliError extends Error {
  readonly code: ErrorCode
  /** HTTP status that fits this error when it crosses the wire. */
  readonly status: number
  readonly details?: unknown
  /**
   * What only the server's log may say (a path on the server's disk): never in `toJSON`, never
   * sent to a client; the listener logs it beside the message.
   */
  serverDetail?: string

  constructor(code: ErrorCode, status: number, message: string, details?: unknown) {
    super(message)
    this.name = new.target.name
    this.code = code
    this.status = status
    this.details = details
  }

  toJSON(): Record<string, unknown> {
    return {code: this.code, status: this.status, message: this.message, ...(this.details === undefined ? {} : {details: this.details})}
  }
}

/** Bad flags or arguments: the user fixes the command line. */
export class UsageError extends MdcliError {
  constructor(message: string, details?: unknown) {
    super('E_USAGE', 400, message, details)
  }
}

/** A malformed urn. */
export class UrnError extends MdcliError {
  constructor(message: string) {
    super('E_BAD_URN', 400, message)
  }
}

export class UnknownEntityTypeError extends MdcliError {
  constructor(message: string) {
    super('E_UNKNOWN_ENTITY_TYPE', 400, message)
  }
}

/** An aspect name the registry does not know: 400 for a write, 404 for a read (nothing holds it). */
export class UnknownAspectError extends MdcliError {
  constructor(message: string, status = 400) {
    super('E_UNKNOWN_ASPECT', status, message)
  }
}

/** An aspect value that breaks its JSON Schema; `details` lists the violations. */
export class InvalidAspectError extends MdcliError {
  constructor(message: string, details?: unknown) {
    super('E_INVALID_ASPECT', 400, message, details)
  }
}

export class BadRequestError extends MdcliError {
  constructor(message: string, details?: unknown) {
    super('E_BAD_REQUEST', 400, message, details)
  }
}

export class NotFoundError extends MdcliError {
  constructor(message: string) {
    super('E_NOT_FOUND', 404, message)
  }
}

/** No credentials, or credentials the server does not accept. */
export class UnauthenticatedError extends MdcliError {
  constructor(message: string) {
    super('E_UNAUTHENTICATED', 401, message)
  }
}

/** Known actor without the privilege for the action. */
export class UnauthorizedError extends MdcliError {
  constructor(message = 'Unauthorized to perform this action. Please contact your DataHub administrator.') {
    super('E_UNAUTHORIZED', 403, message)
  }
}

/** The write contradicts what is stored; 409 unless a DataHub answer of its own applies (422). */
export class ConflictError extends MdcliError {
  constructor(message: string, status = 409) {
    super('E_CONFLICT', status, message)
  }
}

export class TooLargeError extends MdcliError {
  constructor(message: string) {
    super('E_TOO_LARGE', 413, message)
  }
}

/** The server did not answer (refused, timed out, reset). */
export class ConnectionError extends MdcliError {
  constructor(message: string) {
    super('E_CONNECTION', 503, message)
  }
}

/**
 * The server answered with an error the client cannot attribute to its own input. `code` is
 * E_SERVER unless the server sent a code this client does not know (a newer server): that code
 * is kept, so scripts reading `--json` output see what the server said.
 */
export class ServerError extends MdcliError {
  constructor(message: string, status = 500, details?: unknown, code: string = 'E_SERVER') {
    super(code as ErrorCode, status, message, details)
  }
}

export class ConfigError extends MdcliError {
  constructor(message: string, details?: unknown) {
    super('E_CONFIG', 400, message, details)
  }
}

/** A store file that cannot be read back; the store refuses to start rather than overwrite it. */
export class StoreCorruptError extends MdcliError {
  constructor(message: string) {
    super('E_STORE_CORRUPT', 500, message)
  }
}

/**
 * The store was written by a newer mdcli, in a layout this build cannot read: nothing was read
 * into memory or changed on disk. Not damage: an upgraded mdcli opens it.
 */
export class StoreVersionError extends MdcliError {
  constructor(message: string) {
    super('E_STORE_VERSION', 500, message)
  }
}

export class StoreLockedError extends MdcliError {
  constructor(message: string) {
    super('E_STORE_LOCKED', 500, message)
  }
}

/**
 * The store's disk (or quota) is full: the write was refused and not acknowledged, the store
 * stays valid and keeps serving reads, and writes succeed again once space is freed. HTTP 507.
 */
export class StoreFullError extends MdcliError {
  constructor(message: string, details?: unknown) {
    super('E_STORE_FULL', 507, message, details)
  }

  /** The error for a full disk under store directory `dir`; the file that could not grow is for the server's log only. */
  static at(dir: string, file: string, errno: string): StoreFullError {
    const e = new StoreFullError(`The store's disk is full (${errno}); the write was not saved. Free space on the filesystem that holds the store and retry; reads keep working`, {errno})
    e.serverDetail = `writing ${file} (store ${dir})`
    return e
  }
}

/** The store's file layer failed (EIO and the like); the write was refused and not acknowledged. */
export class StoreIoError extends MdcliError {
  constructor(message: string, details?: unknown) {
    super('E_STORE_IO', 500, message, details)
  }

  static at(dir: string, file: string, errno: string): StoreIoError {
    // A file or directory of the store this user may not write is not a disk fault.
    const denied = errno === 'EACCES' || errno === 'EPERM'
    const e = new StoreIoError(
      denied
        ? `The store could not write to its disk: permission denied (${errno}); the write was not saved. Give the server's user write access to the store's directory and files`
        : `The store could not write to its disk (${errno}); the write was not saved. Check the disk that holds the store`,
      {errno},
    )
    e.serverDetail = `writing ${file} (store ${dir})`
    return e
  }
}

/**
 * The embedded store holds everything live in memory, and its heap is near the limit set from the
 * machine's memory: writes are refused (HTTP 507), reads keep working. The way on is a store that
 * keeps its data on disk: the PostgreSQL store.
 */
export class StoreMemoryError extends MdcliError {
  constructor(message: string, details?: unknown) {
    super('E_STORE_MEMORY', 507, message, details)
  }
}

/**
 * The store cannot be reached (a PostgreSQL server refusing connections, shut down, its database
 * gone): nothing was written by this request, and the same request may succeed once the store is
 * back, so clients retry it. HTTP 503 with Retry-After.
 */
export class StoreUnavailableError extends MdcliError {
  readonly retryable = true
  constructor(message: string, details?: unknown) {
    super('E_STORE_UNAVAILABLE', 503, message, details)
  }
}

/** A conditional write found another version than the one it expected (another writer came first). */
export class StoreConflictError extends MdcliError {
  constructor(message: string, details?: unknown) {
    super('E_STORE_CONFLICT', 409, message, details)
  }
}

export class FileError extends MdcliError {
  constructor(message: string) {
    super('E_FILE', 400, message)
  }
}

export class ParseError extends MdcliError {
  constructor(message: string, details?: unknown) {
    super('E_PARSE', 400, message, details)
  }
}

export class PluginError extends MdcliError {
  constructor(message: string) {
    super('E_PLUGIN', 400, message)
  }
}

export function isMdcliError(e: unknown): e is MdcliError {
  return e instanceof MdcliError
}

/**
 * A defect of mdcli itself, not something the user caused or can fix: the original error rides
 * along as `cause` for `--debug` and the server log, and the message never shows internals.
 */
export class BugError extends MdcliError {
  /** What a client is told about an exception nobody expected; the details are in the server log. */
  static readonly MESSAGE = 'Internal server error; the server log has the details'

  constructor(message: string, options?: {cause?: unknown}) {
    super('E_INTERNAL', 500, message)
    if (options?.cause !== undefined) (this as {cause?: unknown}).cause = options.cause
  }

  /**
   * The error to report for `e` at a server's edge: typed errors stay as they are; anything else
   * is a bug whose cause is kept for the log and never serialised (toJSON leaves `cause` out).
   */
  static wrap(e: unknown): MdcliError {
    return e instanceof MdcliError ? e : new BugError(BugError.MESSAGE, {cause: e})
  }

  /** The line for the server log: this error's stack, then its cause's. */
  logText(): string {
    const cause = (this as {cause?: unknown}).cause
    if (cause === undefined) return this.stack ?? this.message
    const causeText = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)
    return `${this.message}\ncaused by: ${causeText}`
  }
}

type WireFactory = (message: string, details: unknown, status: number) => MdcliError

/**
 * Each code's own class, so the client rebuilds exactly what the server threw. A full Record: a
 * code added to ErrorCode without a line here does not compile.
 */
const FROM_WIRE: Record<ErrorCode, WireFactory> = {
  E_USAGE: (m, d) => new UsageError(m, d),
  E_BAD_URN: (m) => new UrnError(m),
  E_UNKNOWN_ENTITY_TYPE: (m) => new UnknownEntityTypeError(m),
  E_UNKNOWN_ASPECT: (m, _d, s) => new UnknownAspectError(m, s),
  E_INVALID_ASPECT: (m, d) => new InvalidAspectError(m, d),
  E_BAD_REQUEST: (m, d) => new BadRequestError(m, d),
  E_NOT_FOUND: (m) => new NotFoundError(m),
  E_UNAUTHENTICATED: (m) => new UnauthenticatedError(m),
  E_UNAUTHORIZED: (m) => new UnauthorizedError(m),
  E_CONFLICT: (m, _d, s) => new ConflictError(m, s),
  E_TOO_LARGE: (m) => new TooLargeError(m),
  E_CONNECTION: (m) => new ConnectionError(m),
  E_SERVER: (m, d, s) => new ServerError(m, s, d),
  E_CONFIG: (m, d) => new ConfigError(m, d),
  E_STORE_CORRUPT: (m) => new StoreCorruptError(m),
  E_STORE_LOCKED: (m) => new StoreLockedError(m),
  E_STORE_VERSION: (m) => new StoreVersionError(m),
  E_STORE_FULL: (m, d) => new StoreFullError(m, d),
  E_STORE_IO: (m, d) => new StoreIoError(m, d),
  E_STORE_CONFLICT: (m, d) => new StoreConflictError(m, d),
  E_STORE_MEMORY: (m, d) => new StoreMemoryError(m, d),
  E_STORE_UNAVAILABLE: (m, d) => new StoreUnavailableError(m, d),
  E_FILE: (m) => new FileError(m),
  E_PARSE: (m, d) => new ParseError(m, d),
  E_PLUGIN: (m) => new PluginError(m),
  E_INTERNAL: (m) => new BugError(m),
}

/** Every code in the ErrorCode union. */
export const ERROR_CODES = Object.keys(FROM_WIRE) as ErrorCode[]

/**
 * Builds an error of the right class from a wire body `{code, status, message}`: every code
 * survives the trip; a code this client does not know keeps its code and status; a body with no
 * code is classed by its HTTP status.
 */
export function errorFromWire(body: {code?: string; status?: number; message?: string; details?: unknown}, httpStatus: number): MdcliError {
  const message = body.message ?? `server answered with status ${httpStatus}`
  const status = body.status ?? httpStatus
  const code = body.code
  if (code) {
    const known = Object.hasOwn(FROM_WIRE, code) ? FROM_WIRE[code as ErrorCode] : undefined
    if (known) return known(message, body.details, status)
    if (/^E_[A-Z_]+$/.test(code)) return new ServerError(message, status, body.details, code)
  }
  if (status === 401) return new UnauthenticatedError(message)
  if (status === 403) return new UnauthorizedError(message)
  if (status === 404) return new NotFoundError(message)
  if (status === 409) return new ConflictError(message)
  if (status === 413) return new TooLargeError(message)
  if (status >= 400 && status < 500) return new BadRequestError(message, body.details)
  return new ServerError(message, status, body.details)
}
