/**
 * Urns: `urn:li:<entityType>:<key>`.
 *
 * Glossary:
 * - simple key: `urn:li:tag:pii` — the key is the rest of the string after the third colon.
 * - tuple key: `urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)` — comma-separated parts
 *   inside one pair of parentheses; a part may itself be an urn with its own tuple.
 *
 * Parsing keeps every part as written, so `formatUrn(parseUrn(s)) === s` for every valid `s`.
 */
import {UrnError} from '../errors.js'

export const URN_NS = 'li'
const PREFIX = `urn:${URN_NS}:`

export interface Urn {
  /** The full urn as given. */
  readonly raw: string
  /** Third token, e.g. `dataset`. */
  readonly entityType: string
  /** Everything after `urn:li:<entityType>:`. */
  readonly key: string
  /** Tuple parts for `(a,b,c)` keys; a one-element array holding `key` for simple keys. */
  readonly parts: readonly string[]
  readonly isTuple: boolean
}

/**
 * `a,b,(c,d),e` split at the commas outside parentheses; `unbalanced` names the parenthesis that
 * does not balance (the parts are then incomplete).
 */
export function splitTopLevel(s: string): {parts: string[]; unbalanced?: '(' | ')'} {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 40 /* ( */) depth++
    else if (c === 41 /* ) */) {
      if (--depth < 0) return {parts, unbalanced: ')'}
    } else if (c === 44 /* , */ && depth === 0) {
      parts.push(s.slice(start, i))
      start = i + 1
    }
  }
  if (depth !== 0) return {parts, unbalanced: '('}
  parts.push(s.slice(start))
  return {parts}
}

/** A tuple key's parts. Throws on unbalanced parentheses. */
function splitTuple(inner: string, raw: string): string[] {
  const {parts, unbalanced} = splitTopLevel(inner)
  if (unbalanced) throw new UrnError(`Invalid urn ${raw}: unbalanced '${unbalanced}' in key`)
  return parts
}

/**
 * Urns parsed lately. A write parses each urn several times on its way (validation, the key
 * aspect, authorization, search) and a batch carries an entity's aspects together, so a small
 * memo answers most of them. Parsed urns are frozen: callers share them.
 */
const RECENT = new Map<string, Urn>()
const RECENT_MAX = 1024

/** Parses an urn; the error names what is wrong. */
export function parseUrn(raw: string): Urn {
  const known = RECENT.get(raw)
  if (known !== undefined) return known
  const urn = parseFresh(raw)
  if (RECENT.size >= RECENT_MAX) RECENT.clear()
  RECENT.set(raw, urn)
  return urn
}

function parseFresh(raw: string): Urn {
  if (typeof raw !== 'string' || raw.length === 0) throw new UrnError('Invalid urn: empty string')
  if (!raw.startsWith(PREFIX)) {
    throw new UrnError(`Invalid urn ${raw}: must start with '${PREFIX}'`)
  }
  const rest = raw.slice(PREFIX.length)
  const colon = rest.indexOf(':')
  if (colon <= 0) throw new UrnError(`Invalid urn ${raw}: expected urn:${URN_NS}:<entityType>:<key>`)
  const entityType = rest.slice(0, colon)
  if (!/^[a-z][A-Za-z0-9]*$/.test(entityType)) {
    throw new UrnError(`Invalid urn ${raw}: entity type '${entityType}' must start with a lower-case letter and hold only letters and digits`)
  }
  const key = rest.slice(colon + 1)
  if (key.length === 0) throw new UrnError(`Invalid urn ${raw}: empty key`)
  // A NUL also because PostgreSQL's text cannot hold one: an urn must read back from every store.
  if (/[\n\r\t\u0000]/.test(key)) throw new UrnError(`Invalid urn ${JSON.stringify(raw)}: key holds a control character`)
  if (key.startsWith('(')) {
    if (!key.endsWith(')')) throw new UrnError(`Invalid urn ${raw}: tuple key must end with ')'`)
    const parts = splitTuple(key.slice(1, -1), raw)
    parts.forEach((p, i) => {
      if (p.length === 0) throw new UrnError(`Invalid urn ${raw}: tuple part ${i + 1} is empty`)
      if (!p.startsWith('urn:')) return
      try {
        parseUrn(p)
      } catch (e) {
        // The user sent the outer urn: name it, then what is wrong with the part.
        throw new UrnError(`Invalid urn ${raw}: part ${i + 1}: ${(e as Error).message}`)
      }
    })
    return Object.freeze({raw, entityType, key, parts: Object.freeze(parts), isTuple: true})
  }
  // A simple key may hold parentheses (ids are free text), but they must balance so that the
  // urn can be nested inside a tuple of another urn.
  splitTuple(key, raw)
  return Object.freeze({raw, entityType, key, parts: Object.freeze([key]), isTuple: false})
}

/** Builds an urn from its entity type and key parts (one part = simple key). */
export function formatUrn(entityType: string, parts: readonly string[]): string {
  if (parts.length === 1 && !parts[0]!.startsWith('(')) return `${PREFIX}${entityType}:${parts[0]}`
  return `${PREFIX}${entityType}:(${parts.join(',')})`
}

/** Returns the entity type (third token) without a full parse. */
export function entityTypeOf(urn: string): string {
  const u = parseUrn(urn)
  return u.entityType
}

export function isUrn(s: unknown): s is string {
  if (typeof s !== 'string') return false
  try {
    parseUrn(s)
    return true
  } catch {
    return false
  }
}

/** `urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)` */
export function datasetUrn(platform: string, name: string, env = 'PROD'): string {
  const p = platform.startsWith(PREFIX) ? platform : `${PREFIX}dataPlatform:${platform}`
  return `${PREFIX}dataset:(${p},${name},${env})`
}

/**
 * A key part (a dataset name, say) made safe to sit inside an urn tuple: DataHub's builders
 * percent-encode `,` `(` `)` (UrnEncoder's reserved set), which would otherwise split the tuple.
 * Nothing else is touched, so encoding twice changes nothing.
 */
export function encodeUrnKeyPart(part: string): string {
  return part.replace(/[,()]/g, (c) => (c === ',' ? '%2C' : c === '(' ? '%28' : '%29'))
}

/** The valid fabric (environment) labels of a dataset key. */
export const FABRIC_TYPES = ['DEV', 'TEST', 'QA', 'UAT', 'EI', 'PRE', 'STG', 'NON_PROD', 'PROD', 'CORP'] as const

/** Percent-encodes an urn for a URL path segment (`:`, `(`, `,`, `)` and the rest). */
export function encodeUrnPath(urn: string): string {
  return encodeURIComponent(urn).replace(/\(/g, '%28').replace(/\)/g, '%29')
}
