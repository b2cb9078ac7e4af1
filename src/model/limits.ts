/**
 * Documented limits of what the catalog accepts. A request past one is refused with a 4xx that
 * names the limit, and nothing is written.
 *
 * - MAX_URN_LENGTH: DataHub's `metadata_aspect_v2.urn` column holds 500 characters; a longer urn
 *   could not move to DataHub or to our PostgreSQL store.
 * - MAX_ASPECT_BYTES: DataHub refuses aspects over about 15 MB (its Kafka and database limits).
 * - MAX_JSON_DEPTH: nesting of JSON bodies and aspect values. Real aspects nest under 20 levels;
 *   a deeper document is hostile, and recursive code over it would exhaust the stack.
 */
import {BadRequestError} from '../errors.js'

export const MAX_URN_LENGTH = 500
export const MAX_ASPECT_BYTES = 15 * 1024 * 1024
export const MAX_JSON_DEPTH = 100

/**
 * Whether JSON text nests arrays/objects deeper than `max`, found in one pass over the text
 * (strings skipped), before anything parses it.
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  // Cheap exit: a text with no more opening brackets than the limit cannot exceed it. indexOf
  // runs natively, several times faster than the scan below (ingest checks every aspect).
  let open = 0
  for (let i = text.indexOf('{'); i !== -1 && open <= max; i = text.indexOf('{', i + 1)) open++
  for (let i = text.indexOf('['); i !== -1 && open <= max; i = text.indexOf('[', i + 1)) open++
  if (open <= max) return false
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // A string is skipped with native searches for its closing quote (most of an aspect's
      // text is in strings), past quotes that an odd run of backslashes escapes.
      let j = text.indexOf('"', i + 1)
      while (j !== -1 && escaped(text, j)) j = text.indexOf('"', j + 1)
      // Unterminated: not JSON, which the parser refuses with its own message.
      if (j === -1) return false
      i = j
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}

/**
 * Whether a parsed JSON value nests arrays/objects deeper than `max` (the top container is level
 * 1, as in `jsonTooDeep`). V8's JSON.parse does not recurse, so a large body can be parsed first
 * and checked here: a walk over its containers, where the text scan visits every escaped quote
 * of every aspect value the body carries as a string.
 */
export function valueTooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false
  const stack: unknown[] = [value]
  const depths: number[] = [1]
  const visit = (c: unknown, d: number): void => {
    if (c !== null && typeof c === 'object') {
      stack.push(c)
      depths.push(d)
    }
  }
  while (stack.length > 0) {
    const v = stack.pop() as object
    const d = depths.pop()!
    if (d > max) return true
    // Indexed and for-in loops: Object.values would make an array per object of every body.
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) visit(v[i], d + 1)
    else for (const k in v) visit((v as Record<string, unknown>)[k], d + 1)
  }
  return false
}

/** Whether the character at `at` follows an odd number of backslashes. */
function escaped(text: string, at: number): boolean {
  let n = 0
  for (let k = at - 1; k >= 0 && text.charCodeAt(k) === 0x5c; k--) n++
  return n % 2 === 1
}

/** Throws BadRequestError when `text` nests deeper than MAX_JSON_DEPTH. */
export function checkJsonDepth(text: string, what: string): void {
  if (jsonTooDeep(text)) throw new BadRequestError(`${what} nests deeper than ${MAX_JSON_DEPTH} levels, the limit`)
}

/** decodeURIComponent that answers a malformed escape with a 400 instead of a URIError. */
export function decodeUriPart(s: string, what: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    throw new BadRequestError(`Malformed percent-escape in ${what}: ${s.length > 80 ? `${s.slice(0, 80)}…` : s}`)
  }
}
