/**
 * DataHub's query fingerprint: the SHA-256 of the query "generalised" — literals replaced by `?`,
 * keywords and function names upper-cased, spacing and aliases as sqlglot prints them — so that
 * the same query run with other values gets the same id (`urn:li:query:<fingerprint>`), and
 * identical queries are one query entity.
 *
 * This works on tokens rather than a syntax tree so that any statement, parsable or not, gets a
 * stable fingerprint; the rules are the ones sqlglot's printer applies to the statements query
 * logs are made of.
 */
import {createHash} from 'node:crypto'

interface Token {
  kind: 'word' | 'quoted' | 'string' | 'number' | 'op' | 'punct'
  text: string
}

const KEYWORDS = new Set(
  (
    'SELECT FROM WHERE AND OR NOT IN IS NULL TRUE FALSE AS ON JOIN LEFT RIGHT INNER OUTER FULL CROSS NATURAL GROUP BY ORDER HAVING LIMIT OFFSET ' +
    'UNION ALL DISTINCT INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE VIEW TEMP TEMPORARY REPLACE IF EXISTS DROP WITH CASE WHEN THEN ELSE END ' +
    'BETWEEN LIKE ILIKE ASC DESC INTERSECT EXCEPT MERGE USING MATCHED OVER PARTITION QUALIFY NULLS FIRST LAST INTERVAL TRUNCATE ALTER RENAME TO ' +
    'CURRENT_DATE CURRENT_TIMESTAMP CURRENT_TIME LATERAL RECURSIVE OVERWRITE'
  ).split(' '),
)
/** Keywords after which a dotted name is a table (so a following `(` is a column list, not a call). */
const TABLE_CONTEXT = new Set(['INTO', 'TABLE', 'FROM', 'JOIN', 'UPDATE', 'VIEW', 'EXISTS'])
/** Keywords after which a table name may take an alias. */
const ALIAS_CONTEXT = new Set(['FROM', 'JOIN'])
const FUNCTION_NAMES: Record<string, Record<string, string>> = {snowflake: {DATE: 'TO_DATE'}}
/** Tokens after which a `-` is a sign, not a subtraction. */
const UNARY_AFTER = new Set(['(', ',', '=', '<>', '!=', '<', '>', '<=', '>=', '+', '-', '*', '/', 'AND', 'OR', 'NOT', 'SELECT', 'IN', 'VALUES', 'THEN', 'ELSE', 'WHEN', 'BETWEEN', 'IS', 'RETURN', 'SET'])

export function tokenize(sql: string): Token[] {
  const out: Token[] = []
  let i = 0
  const n = sql.length
  while (i < n) {
    const c = sql[i]!
    if (/\s/.test(c)) {
      i++
      continue
    }
    if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++
      continue
    }
    if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2)
      i = end < 0 ? n : end + 2
      continue
    }
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1
      while (j < n) {
        if (sql[j] === '\\' && c === "'") j += 2
        else if (sql[j] === c && sql[j + 1] === c) j += 2
        else if (sql[j] === c) break
        else j++
      }
      out.push({kind: c === "'" ? 'string' : 'quoted', text: sql.slice(i, j + 1)})
      i = j + 1
      continue
    }
    const num = /^(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)/.exec(sql.slice(i, i + 64))
    if (num && !(out.length && out[out.length - 1]!.text === '.' && /\d/.test(c) === false)) {
      out.push({kind: 'number', text: num[0]})
      i += num[0].length
      continue
    }
    const word = /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/.exec(sql.slice(i, i + 256))
    if (word) {
      out.push({kind: 'word', text: word[0]})
      i += word[0].length
      continue
    }
    const op = /^(?:<>|!=|>=|<=|\|\||::|=>|->>|->|[-+*/%<>=!~^&|])/.exec(sql.slice(i, i + 3))
    if (op) {
      out.push({kind: 'op', text: op[0]})
      i += op[0].length
      continue
    }
    out.push({kind: 'punct', text: c})
    i++
  }
  return out
}

/** The generalised text of a query (what DataHub hashes). */
export function generalizeQuery(sql: string, platform: string): string {
  const tokens = tokenize(sql)
  while (tokens.length && tokens[tokens.length - 1]!.text === ';') tokens.pop()
  const out: string[] = []
  /** Whether each output token is a function name (no space before its `(`). */
  const isCall: boolean[] = []
  let tableContext = false
  let aliasContext = false
  let prevKeyword = ''
  const push = (text: string, call = false) => {
    out.push(text)
    isCall.push(call)
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    const next = tokens[i + 1]
    if (t.kind === 'string' || t.kind === 'number') {
      // A negative number prints as `-?` (the sign stays, the literal goes).
      const before = out[out.length - 2]
      if (out[out.length - 1] === '-' && (before === undefined || UNARY_AFTER.has(before))) {
        out.pop()
        isCall.pop()
        push('-?')
        continue
      }
      push('?')
      continue
    }
    if (t.kind === 'word') {
      const upper = t.text.toUpperCase()
      const isKeyword = KEYWORDS.has(upper)
      if (isKeyword && !(upper === 'CURRENT_DATE' || upper === 'CURRENT_TIMESTAMP' || upper === 'CURRENT_TIME') ) {
        if (upper === 'NULL' && out.length >= 2 && out[out.length - 1] === 'NOT' && out[out.length - 2] === 'IS') {
          // sqlglot prints `x IS NOT NULL` as `NOT x IS NULL`.
          out.pop()
          isCall.pop()
          let start = out.length - 1 // the IS
          start--
          while (start > 0 && out[start - 1] === '.') start -= 2
          out.splice(start, 0, 'NOT')
          isCall.splice(start, 0, false)
          push('NULL')
          continue
        }
        if (aliasContext && (upper === 'AS')) aliasContext = false
        push(upper === 'TEMP' ? 'TEMPORARY' : upper)
        tableContext = TABLE_CONTEXT.has(upper) || (tableContext && (upper === 'IF' || upper === 'NOT' || upper === 'EXISTS'))
        aliasContext = ALIAS_CONTEXT.has(upper)
        prevKeyword = upper
        continue
      }
      if (upper === 'CURRENT_TIMESTAMP' && next?.text !== '(') {
        push('CURRENT_TIMESTAMP', true)
        push('(')
        push(')')
        continue
      }
      if (upper === 'CURRENT_DATE' || upper === 'CURRENT_TIME') {
        push(upper, next?.text === '(')
        continue
      }
      if (next?.text === '(' && !tableContext) {
        push(FUNCTION_NAMES[platform]?.[upper] ?? upper, true)
        continue
      }
      // An identifier: a table name in table context, then maybe its alias.
      const prev = out[out.length - 1]
      if (aliasContext && !tableContext && prev !== '.' && prev !== 'AS' && prevKeyword !== 'ON') {
        push('AS')
        aliasContext = false
      }
      push(t.text)
      if (tableContext && next?.text !== '.') {
        tableContext = false
      }
      continue
    }
    if (t.kind === 'quoted') {
      push(t.text)
      if (tableContext && next?.text !== '.') tableContext = false
      continue
    }
    if (t.text === '!=') {
      push('<>')
      continue
    }
    if (t.text === ',' && (aliasContext || prevKeyword === 'FROM')) {
      // `FROM a x, b y`: the next item may be aliased too; stay in table context.
      push(',')
      tableContext = true
      aliasContext = true
      continue
    }
    if (t.text === '(' && (prevKeyword === 'FROM' || prevKeyword === 'JOIN') && out[out.length - 1] === prevKeyword) {
      tableContext = false
      aliasContext = false
    }
    if (t.text === ')') {
      // A subquery's end: `(SELECT …) x` takes an alias like a table.
      aliasContext = false
    }
    push(t.text)
  }
  collapseLiteralLists(out, isCall)
  return join(out, isCall)
}

/** `IN (?, ?, ?)` → `IN (?)`, as sqlglot's generaliser keeps one placeholder per list. */
function collapseLiteralLists(out: string[], isCall: boolean[]): void {
  for (let i = 0; i < out.length; i++) {
    if (out[i] !== '(' || (out[i - 1] !== 'IN' && out[i - 1] !== 'VALUES')) continue
    let j = i + 1
    const items: Array<[number, number]> = []
    let start = j
    let depth = 0
    for (; j < out.length; j++) {
      if (out[j] === '(') depth++
      else if (out[j] === ')') {
        if (depth === 0) break
        depth--
      } else if (out[j] === ',' && depth === 0) {
        items.push([start, j])
        start = j + 1
      }
    }
    items.push([start, j])
    // Drop every literal but the last one, as sqlglot does (walking from the end).
    const literal = items.map(([a, b]) => b - a === 1 && out[a] === '?')
    const keep = items.filter((_, k) => !literal[k] || k === literal.lastIndexOf(true))
    if (keep.length === items.length) continue
    const replaced: string[] = []
    const calls: boolean[] = []
    keep.forEach(([a, b], k) => {
      if (k) {
        replaced.push(',')
        calls.push(false)
      }
      replaced.push(...out.slice(a, b))
      calls.push(...isCall.slice(a, b))
    })
    out.splice(i + 1, j - i - 1, ...replaced)
    isCall.splice(i + 1, j - i - 1, ...calls)
  }
}

function join(out: string[], isCall: boolean[]): string {
  let s = ''
  for (let i = 0; i < out.length; i++) {
    const t = out[i]!
    const prev = out[i - 1]
    const noSpace = i === 0 || t === ',' || t === ')' || t === '.' || prev === '(' || prev === '.' || (t === '(' && isCall[i - 1]) || t === ';'
    s += (noSpace ? '' : ' ') + t
  }
  return s
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/** DataHub's `get_query_fingerprint`: the id of a query entity. */
export function queryFingerprint(sql: string, platform: string): string {
  return sha256(generalizeQuery(sql, platform))
}
