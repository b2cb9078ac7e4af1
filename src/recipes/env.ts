/**
 * `${VAR}` expansion in recipes, as DataHub does it: on the string values of the parsed
 * document (never on raw text, so a value cannot inject YAML), never on keys.
 *
 * - a value holding `${` and a later `}` (DataHub's test, `re.search(r"(\$\{).+(\})")`): every
 *   `${VAR}`, `${VAR:-default}` (default when unset or empty) and `${VAR-default}` (default when
 *   unset) is replaced; an unset `${VAR}` without a default is an error naming the variable and
 *   the key path; a `${` with no `}` after it is taken literally (`p4ss${word`);
 * - a value starting with `$` (`$VAR...`): `$VAR` tokens are replaced when set and left as they
 *   are when not (so `$ecret`-like literals survive);
 * - `$$` stands for a literal `$` in both forms.
 */
import {ConfigError} from '../errors.js'
import {isSecretKey, keyPath} from '../sdk/validate.js'

type Env = Record<string, string | undefined>

const BRACED = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}/g
const BARE = /\$\$|\$([A-Za-z_][A-Za-z0-9_]*)/g
/** DataHub's test for a value to expand (config_loader's `_resolve_element`). */
const HAS_BRACED = /\$\{.+\}/

/** `secret`: the value belongs to a secret-looking key, and no error may show it. */
function expandString(s: string, env: Env, where: () => string, file: string, secret: boolean): string {
  if (HAS_BRACED.test(s)) {
    const out = s.replace(BRACED, (m, name: string | undefined, op: string | undefined, def: string | undefined) => {
      if (m === '$$') return '$'
      const v = env[name!]
      if (op === ':-') return v === undefined || v === '' ? def! : v
      if (op === '-') return v === undefined ? def! : v
      if (v === undefined) throw new ConfigError(`${file}: environment variable ${name} is not set (used at ${where()}); set it or write \${${name}:-default}`)
      return v
    })
    if (s.replace(BRACED, '').includes('${')) {
      const shown = secret ? 'the value (not shown: a secret)' : `'${s}'`
      throw new ConfigError(`${file}: malformed variable reference in ${shown} at ${where()} (expected \${NAME} or \${NAME:-default}; write $\${ for a literal \${)`)
    }
    return out
  }
  if (s.startsWith('$')) return s.replace(BARE, (m, name: string | undefined) => (m === '$$' ? '$' : (env[name!] ?? m)))
  return s
}

/** Returns a copy of `doc` with variables in string values expanded. */
export function expandEnv(doc: unknown, env: Env, file: string): unknown {
  const walk = (v: unknown, path: string, secret = false): unknown => {
    if (typeof v === 'string') return expandString(v, env, () => keyPath('', path), file, secret)
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}/${i}`, secret))
    // YAML reads an unquoted timestamp as a date; configs take times as ISO text.
    if (v instanceof Date) return v.toISOString()
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = walk(x, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, secret || isSecretKey(k))
      return out
    }
    return v
  }
  return walk(doc, '')
}
