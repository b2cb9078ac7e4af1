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

/** A matcher for `pattern` (compiled once); undefined allows everything. */
export function allowDeny(pattern: AllowDeny | undefined, defaultIgnoreCase = true): (name: string) => boolean {
  const flags = (pattern?.ignoreCase ?? defaultIgnoreCase) ? 'i' : ''
  const allow = (pattern?.allow ?? ['.*']).map((a) => new RegExp(`^(?:${a})`, flags))
  const deny = (pattern?.deny ?? []).map((d) => new RegExp(`^(?:${d})`, flags))
  return (name) => !deny.some((d) => d.test(name)) && allow.some((a) => a.test(name))
}
