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
  | 'E_FILE'
  | 'E_PARSE'
  | 'E_PLUGIN'
  | 'E_INTERNAL'

export class MdcliError extends Error {
  readonly code: ErrorCode
  /** HTTP status that fits this error when it crosses the wire. */
  readonly status: number
  readonly details?: unknown

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

export class UnknownAspectError extends MdcliError {
  constructor(message: string) {
    super('E_UNKNOWN_ASPECT', 400, message)
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
  constructor(message = 'Unauthorized to perform this action. Please contact your administrator.') {
    super('E_UNAUTHORIZED', 403, message)
  }
}

export class ConflictError extends MdcliError {
  constructor(message: string) {
    super('E_CONFLICT', 409, message)
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

/** The server answered with an error the client cannot attribute to its own input. */
export class ServerError extends MdcliError {
  constructor(message: string, status = 500, details?: unknown) {
    super('E_SERVER', status, message, details)
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

export class StoreLockedError extends MdcliError {
  constructor(message: string) {
    super('E_STORE_LOCKED', 500, message)
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

/** Builds an error of the right class from a wire body `{code, status, message}`. */
export function errorFromWire(body: {code?: string; status?: number; message?: string; details?: unknown}, httpStatus: number): MdcliError {
  const message = body.message ?? `server answered with status ${httpStatus}`
  const status = body.status ?? httpStatus
  const code = (body.code ?? '') as ErrorCode
  switch (code) {
    case 'E_BAD_URN':
      return new UrnError(message)
    case 'E_UNKNOWN_ENTITY_TYPE':
      return new UnknownEntityTypeError(message)
    case 'E_UNKNOWN_ASPECT':
      return new UnknownAspectError(message)
    case 'E_INVALID_ASPECT':
      return new InvalidAspectError(message, body.details)
    case 'E_NOT_FOUND':
      return new NotFoundError(message)
    case 'E_UNAUTHENTICATED':
      return new UnauthenticatedError(message)
    case 'E_UNAUTHORIZED':
      return new UnauthorizedError(message)
    case 'E_CONFLICT':
      return new ConflictError(message)
    case 'E_TOO_LARGE':
      return new TooLargeError(message)
    case 'E_USAGE':
    case 'E_BAD_REQUEST':
      return new BadRequestError(message, body.details)
    default:
      if (status === 401) return new UnauthenticatedError(message)
      if (status === 403) return new UnauthorizedError(message)
      if (status === 404) return new NotFoundError(message)
      if (status >= 400 && status < 500) return new BadRequestError(message, body.details)
      return new ServerError(message, status, body.details)
  }
}
