/**
 * Regular expressions written for DataHub's recipes (Python's `re`), run here in JavaScript, and
 * DataHub's AllowDenyPattern built on them.
 *
 * Glossary:
 * - leading flags: Python's inline flag group at the start of a pattern (`(?i)`, `(?s)`, `(?m)`,
 *   `(?is)`), which applies to the whole pattern; JavaScript takes them as RegExp flags.
 * - Python-only syntax: what JavaScript's RegExp reads differently or not at all. Named groups
 *   (`(?P<n>…)`, `(?P=n)`) and the anchors `\A`, `\Z` are translated; the rest (verbose `(?x)`,
 *   `(?a)`, `(?L)`, scoped `(?i:…)`, a flag group anywhere but the start) is refused saying so,
 *   never run with another meaning.
 */
import {ConfigError} from '../errors.js'

/** Python's inline flags → JavaScript's ('' = nothing to do: `u`, Unicode, is Python's default for text). */
const PY_FLAGS: Record<string, string> = {i: 'i', s: 's', m: 'm', u: ''}
const LEADING_FLAGS = /^\(\?([a-zA-Z]+)\)/
const START = '(?<![\\s\\S])'
const END = '(?![\\s\\S])'

/**
 * Compiles a Python `re` pattern, matched from the start of the text as `re.match` does
 * (`flags`: JavaScript flags to add, e.g. `i`). `where` names the config key in errors.
 * Throws ConfigError for an invalid pattern or Python syntax JavaScript cannot express.
 */
export function pythonRegex(pattern: string, flags = '', where = 'pattern'): RegExp {
  const set = new Set(flags)
  let body = pattern
  for (let m = LEADING_FLAGS.exec(body); m; m = LEADING_FLAGS.exec(body)) {
    for (const f of m[1]!) {
      const js = PY_FLAGS[f]
      if (js === undefined) {
        throw new ConfigError(`${where}: '${pattern}' uses Python's inline flag (?${f}), which JavaScript regular expressions cannot express${f === 'x' ? ' (write the pattern without verbose-mode spaces and comments)' : ''}`)
      }
      if (js) set.add(js)
    }
    body = body.slice(m[0].length)
  }
  // Escapes are read pairwise so `\\A` stays a backslash and an A.
  body = body
    .replace(/\\([\s\S])|\(\?P<([A-Za-z_]\w*)>|\(\?P=([A-Za-z_]\w*)\)/g, (m, esc: string | undefined, name: string | undefined, ref: string | undefined) => {
      if (name) return `(?<${name}>`
      if (ref) return `\\k<${ref}>`
      return esc === 'A' ? START : esc === 'Z' ? END : m
    })
  if (/(^|[^\\])\(\?([a-zA-Z]+(-[a-zA-Z]*)?|-[a-zA-Z]+)[:)]/.test(body.replace(/\\\\/g, ''))) {
    throw new ConfigError(`${where}: '${pattern}' uses a Python inline flag group that is not at the start or is scoped ((?i:…)), which JavaScript regular expressions cannot express; put the flags first, as (?i) at the start of the pattern`)
  }
  // With (?m), ^ would match after every newline; re.match only tries the start.
  const anchor = set.has('m') ? START : '^'
  try {
    return new RegExp(`${anchor}(?:${body})`, [...set].join(''))
  } catch (e) {
    throw new ConfigError(`${where}: '${pattern}' is not a valid regular expression: ${(e as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /, '')}`)
  }
}

/**
 * DataHub's AllowDenyPattern: regexes matched from the start of a name (Python's `re.match`),
 * deny first, then any allow; case-insensitive unless `ignoreCase: false`.
 */
export interface AllowDeny {
  allow?: string[]
  deny?: string[]
  ignoreCase?: boolean
}

/** The JSON Schema of an AllowDenyPattern, for plugin config schemas. */
export const ALLOW_DENY_SCHEMA = {
  type: 'object',
  properties: {allow: {type: 'array', items: {type: 'string'}}, deny: {type: 'array', items: {type: 'string'}}, ignoreCase: {type: 'boolean'}},
  additionalProperties: false,
} as const

/**
 * A matcher for `pattern` (compiled once); undefined allows everything. `where` names the config
 * key in errors (a pattern that is not a valid regular expression, or Python-only syntax).
 */
export function allowDeny(pattern: AllowDeny | undefined, defaultIgnoreCase = true, where = 'pattern'): (name: string) => boolean {
  const flags = (pattern?.ignoreCase ?? defaultIgnoreCase) ? 'i' : ''
  const allow = (pattern?.allow ?? ['.*']).map((a, i) => pythonRegex(a, flags, `${where}.allow[${i}]`))
  const deny = (pattern?.deny ?? []).map((d, i) => pythonRegex(d, flags, `${where}.deny[${i}]`))
  return (name) => !deny.some((d) => d.test(name)) && allow.some((a) => a.test(name))
}
