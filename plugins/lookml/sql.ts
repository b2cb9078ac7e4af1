/**
 * The SQL of derived tables: which tables it reads and which columns it selects, through a SQL
 * parser (node-sql-parser), with DataHub's fallbacks for what a parser cannot read (Liquid
 * templates, fragments without SELECT).
 */
import sqlParser from 'node-sql-parser'

const parser = new sqlParser.Parser()
const DIALECTS = ['snowflake', 'postgresql', 'bigquery', 'mysql']

/** `${view.SQL_TABLE_NAME}` → `view.SQL_TABLE_NAME`, a name the parser reads as a table. */
function unLiquidRefs(sql: string): string {
  return sql.replace(/\$\{\s*([\w]+)\.SQL_TABLE_NAME\s*\}/gi, '$1.SQL_TABLE_NAME')
}

/** Names of the CTEs (`WITH x AS …`) anywhere in a parsed statement: they are not tables. */
function cteNames(node: unknown, out = new Set<string>(), depth = 0): Set<string> {
  if (!node || typeof node !== 'object' || depth > 200) return out
  const w = (node as {with?: unknown}).with
  if (Array.isArray(w)) {
    for (const cte of w) {
      const n = (cte as {name?: unknown})?.name
      const name = typeof n === 'string' ? n : (n as {value?: unknown})?.value
      if (typeof name === 'string') out.add(name.toLowerCase())
    }
  }
  for (const v of Object.values(node)) if (v && typeof v === 'object') cteNames(v, out, depth + 1)
  return out
}

function parseTables(sql: string): string[] | undefined {
  for (const database of DIALECTS) {
    try {
      const ctes = cteNames(parser.astify(sql, {database}))
      return parser
        .tableList(sql, {database})
        .map((entry) => entry.split('::'))
        .filter(([, db, table]) => (db && db !== 'null') || !ctes.has(table!.toLowerCase()))
        .map(([, db, table]) => (db && db !== 'null' ? `${db}.${table}` : table!))
    } catch {
      /* try the next dialect */
    }
  }
  return undefined
}

function parseColumns(sql: string): string[] | undefined {
  for (const database of DIALECTS) {
    try {
      const ast = parser.astify(sql, {database})
      const stmt = (Array.isArray(ast) ? ast[0] : ast) as {type?: string; columns?: Array<{as?: string | null; expr?: {column?: unknown; type?: string}}> | string}
      if (stmt?.type !== 'select' || !Array.isArray(stmt.columns)) return undefined
      const names: string[] = []
      for (const c of stmt.columns) {
        const col = c.expr?.column as string | {expr?: {value?: string}} | undefined
        const name = c.as ?? (typeof col === 'string' ? col : col?.expr?.value)
        if (typeof name === 'string' && name !== '*') names.push(name)
      }
      return names
    } catch {
      /* try the next dialect */
    }
  }
  return undefined
}

/** Splits a select list at top-level commas: `a, f(b, c) AS d` → [`a`, `f(b, c) AS d`]. */
function selectItems(list: string): string[] {
  const items: string[] = []
  let depth = 0
  let cur = ''
  for (const ch of list) {
    if (ch === '(') depth++
    else if (ch === ')') depth--
    if (ch === ',' && depth === 0) {
      items.push(cur)
      cur = ''
    } else cur += ch
  }
  if (cur.trim()) items.push(cur)
  return items.map((s) => s.trim()).filter(Boolean)
}

export interface DerivedSql {
  /** Table names the SQL reads, as written (quotes kept off), in order, each once. */
  tables: string[]
  /** Output columns, when the SQL could be read; undefined otherwise. */
  columns?: string[]
}

const unquote = (s: string): string => s.replace(/["`[\]]/g, '')

/**
 * What a derived table's SQL reads. `viewName` stands in for the FROM of a fragment (a select
 * list alone), as DataHub wraps it.
 */
export function analyseDerivedSql(rawSql: string, viewName: string): DerivedSql {
  let sql = unLiquidRefs(rawSql.trim())
  if (sql.includes('{%') || sql.includes('{{')) {
    // Liquid: no parser reads it; DataHub falls back to the names after FROM.
    const tables = [...sql.matchAll(/\bFROM\s+([\w."`]+)/gi)].map((m) => unquote(m[1]!))
    return {tables: [...new Set(tables)].filter((t) => !t.includes('#'))}
  }
  if (!/\bselect\b/i.test(sql) && !/\bfrom\b/i.test(sql)) sql = `SELECT ${sql} FROM ${viewName}`
  const tables = parseTables(sql)
  let columns = parseColumns(sql)
  if (!columns) {
    // Dialects the parser does not know (column definitions such as `x VARCHAR(20) encode ZSTD`):
    // a column is its alias, else its first word.
    const m = /^\s*select\s+([\s\S]*?)\s+from\s+[\w."`]+\s*$/i.exec(sql)
    if (m) columns = selectItems(m[1]!).map((item) => unquote(/\bAS\s+([\w"`]+)\s*$/i.exec(item)?.[1] ?? item.split(/\s+/)[0]!))
  }
  const found = tables ?? [...sql.matchAll(/\bFROM\s+([\w."`]+)/gi)].map((m) => m[1]!)
  return {tables: [...new Set(found.map(unquote))].filter((t) => !t.includes('#') && !t.includes('{')), columns: columns?.map(unquote)}
}
