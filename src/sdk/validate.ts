/**
 * Config validation for recipes and plugin configs: one ajv instance (defaults filled in, no
 * type coercion but YAML 1.1's `yes`/`no`/`on`/`off` where a boolean belongs, numeric text
 * where a number belongs and any case of an upper-case enum name, as DataHub's pydantic reads
 * them), errors turned into lines that name
 * the key path and what was expected, e.g.
 * `source.config.path: expected string, got number` or
 * `sink: unknown key 'confg' (did you mean 'config'?)`.
 */
import {Ajv, type ErrorObject, type ValidateFunction} from 'ajv'
import {ConfigError} from '../errors.js'
import {nearest} from '../model/registry.js'
import {FABRIC_TYPES} from '../model/urn.js'
import {redactSecrets} from './http.js'
import type {JsonSchema} from './plugin.js'

const ajv = new Ajv({allErrors: true, strict: false, useDefaults: true, allowUnionTypes: true, verbose: true})
const cache = new WeakMap<object, ValidateFunction>()

function compile(schema: JsonSchema): ValidateFunction {
  let v = cache.get(schema)
  if (!v) {
    v = ajv.compile(schema)
    cache.set(schema, v)
  }
  return v
}

/** DataHub's REDACT_KEYS and REDACT_SUFFIXES (configuration/common.py). */
const SECRET_KEYS = new Set(['password', 'token', 'secret', 'options', 'sqlalchemy_uri'])
const SECRET_SUFFIXES = ['_password', '_secret', '_token', '_key', '_key_id']

/**
 * Whether a config key holds a secret, by DataHub's rule (`password`, `token`, `*_secret`,
 * `*_key`, …): its value, and everything under it, is never shown in an error.
 */
export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key) || SECRET_SUFFIXES.some((s) => key.endsWith(s))
}

/** The string values under secret-looking keys of `data` (see isSecretKey). */
function secretValues(data: unknown, secret = false, out: string[] = []): string[] {
  if (typeof data === 'string') {
    if (secret) out.push(data)
  } else if (Array.isArray(data)) {
    for (const x of data) secretValues(x, secret, out)
  } else if (data !== null && typeof data === 'object') {
    for (const [k, x] of Object.entries(data)) secretValues(x, secret || isSecretKey(k), out)
  }
  return out
}

function typeName(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}

/** `/source/config/0/x` → `source.config[0].x`, prefixed with `base`. */
export function keyPath(base: string, instancePath: string): string {
  let out = base
  for (const seg of instancePath.split('/').slice(1)) {
    const s = seg.replace(/~1/g, '/').replace(/~0/g, '~')
    out += /^\d+$/.test(s) ? `[${s}]` : out === '' ? s : `.${s}`
  }
  return out === '' ? '(top level)' : out
}

function valueAt(root: unknown, instancePath: string): unknown {
  let v: any = root
  for (const seg of instancePath.split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined
    v = v[seg.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  return v
}

/** One line per problem. `schema` is used to suggest near names for unknown keys. */
export function describeConfigErrors(errors: readonly ErrorObject[], base: string, data: unknown): string[] {
  const lines: string[] = []
  for (const e of errors) {
    const at = keyPath(base, e.instancePath)
    const p = e.params as Record<string, any>
    switch (e.keyword) {
      case 'required':
        lines.push(`${keyPath(base, e.instancePath)}: missing required key '${p.missingProperty}'`)
        break
      case 'additionalProperties': {
        const known = Object.keys(((e.parentSchema as {properties?: object})?.properties ?? {}) as object)
        const hint = nearest(p.additionalProperty, known)
        lines.push(`${at}: unknown key '${p.additionalProperty}'${hint ? ` (did you mean '${hint}'?)` : known.length > 0 ? ` (expected one of: ${known.join(', ')})` : ''}`)
        break
      }
      case 'type': {
        const got = valueAt(data, e.instancePath)
        // Text where a number belongs is coerced when it is numeric (see coerceScalars): say it was not.
        const numeric = typeof got === 'string' && String(p.type).split(',').some((t) => t === 'integer' || t === 'number')
        lines.push(`${at}: expected ${String(p.type).replace(/,/g, ' or ')}, got ${typeName(got)}${numeric ? ` that is not ${String(p.type).includes('integer') ? 'a whole number' : 'a number'}` : ''}`)
        break
      }
      case 'enum':
        lines.push(`${at}: expected one of ${(p.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}, got ${JSON.stringify(valueAt(data, e.instancePath))}`)
        break
      case 'minLength':
        lines.push(`${at}: must not be empty`)
        break
      case 'minItems':
        lines.push(`${at}: expected at least ${p.limit} item(s)`)
        break
      case 'anyOf':
      case 'oneOf':
        // The member errors say more; skip the summary line.
        break
      default:
        lines.push(`${at}: ${e.message ?? 'is invalid'}`)
    }
  }
  return [...new Set(lines)]
}

/** YAML 1.1's words for true and false, which DataHub's recipes (PyYAML) read as booleans. */
const YAML11_BOOLEAN: Record<string, boolean> = {}
for (const [words, value] of [[['yes', 'on', 'true'], true], [['no', 'off', 'false'], false]] as const) {
  for (const w of words) for (const form of [w, w[0]!.toUpperCase() + w.slice(1), w.toUpperCase()]) YAML11_BOOLEAN[form] = value
}

const INTEGER_TEXT = /^[+-]?\d+$/
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/

/** The scalar `text` stands for where one of `types` is expected, if any. */
function scalarOf(text: string, types: string[]): boolean | number | undefined {
  const t = text.trim()
  if (types.includes('boolean') && Object.hasOwn(YAML11_BOOLEAN, t)) return YAML11_BOOLEAN[t]
  if (types.includes('integer') && INTEGER_TEXT.test(t)) return Number(t)
  if (types.includes('number') && NUMBER_TEXT.test(t)) return Number(t)
  return undefined
}

/**
 * Where a boolean was expected and a YAML 1.1 word (`yes`, `No`, `on`, `OFF`, …) or a `${VAR}`
 * that expanded to `true`/`false` stands, puts the boolean in its place: YAML 1.2 (js-yaml)
 * reads those words as strings; PyYAML, and so DataHub's recipes, as booleans. Where a number or
 * an integer was expected and numeric text stands (`max_threads: ${MAX_THREADS}` expands to
 * text), puts the number in its place, as pydantic does. Where one of an enum of upper-case names
 * was expected (DataHub's ConfigEnum: `semantics`, the sink's `mode`), puts the upper-cased
 * value in its place, as ConfigEnum does. Returns whether anything changed.
 */
function coerceScalars(errors: readonly ErrorObject[], data: unknown): boolean {
  let changed = false
  for (const e of errors) {
    const types = e.keyword === 'type' ? String((e.params as {type?: unknown}).type).split(',') : []
    const allowed = e.keyword === 'enum' ? ((e.params as {allowedValues?: unknown[]}).allowedValues ?? []) : []
    // An enum of upper-case names is DataHub's ConfigEnum, which upper-cases what it reads.
    const configEnum = allowed.length > 0 && allowed.every((a) => typeof a === 'string' && a === a.toUpperCase())
    if (!configEnum && !types.some((t) => t === 'boolean' || t === 'integer' || t === 'number')) continue
    const segs = e.instancePath.split('/').slice(1).map((x) => x.replace(/~1/g, '/').replace(/~0/g, '~'))
    const key = segs.pop()
    if (key === undefined) continue
    const parent = valueAt(data, segs.length === 0 ? '' : `/${segs.map((x) => x.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`) as Record<string, unknown> | undefined
    if (parent === null || typeof parent !== 'object') continue
    const v = parent[key]
    if (configEnum) {
      if (typeof v === 'string' && v !== v.toUpperCase() && allowed.includes(v.toUpperCase())) {
        parent[key] = v.toUpperCase()
        changed = true
      }
      continue
    }
    const scalar = typeof v === 'string' ? scalarOf(v, types) : undefined
    if (scalar !== undefined) {
      parent[key] = scalar
      changed = true
    }
  }
  return changed
}

/**
 * Validates `data` in place (filling schema defaults); throws ConfigError naming `file`, the
 * key paths and what was expected.
 */
export function validateConfig(schema: JsonSchema, data: unknown, opts: {file: string; base: string; what: string}): void {
  const v = compile(schema)
  if (v(data)) return
  // Each pass turns the YAML 1.1 words and numeric text the last one found where a boolean or a
  // number belongs; a value reached only through one fixed before is found by the next.
  for (let pass = 0; pass < 8 && coerceScalars(v.errors ?? [], data); pass++) if (v(data)) return
  // No line shows a secret's value, whatever check it failed.
  const secrets = secretValues(data)
  const problems = describeConfigErrors(v.errors ?? [], opts.base, data).map((line) => redactSecrets(line, secrets))
  const shown = problems.slice(0, 5)
  const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : ''
  throw new ConfigError(`Invalid ${opts.what} in ${opts.file}: ${shown.join('; ')}${more}`, problems)
}

/**
 * A recipe's `env` as DataHub's sources take it: one of DataHub's FabricType values, in any case
 * (DataHub upper-cases it), returned upper-cased. Anything else is refused when the config is
 * read, before a source writes anything: every dataset urn needs a valid one.
 */
export function envOf(value: string, key = 'source.config.env'): string {
  const env = value.toUpperCase()
  if (!(FABRIC_TYPES as readonly string[]).includes(env)) throw new ConfigError(`${key}: '${value}' is not an environment (one of ${FABRIC_TYPES.join(', ')})`)
  return env
}
