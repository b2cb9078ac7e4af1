/**
 * Lineage of one SQL statement of any kind DataHub's SQL parser reads (SELECT, INSERT … SELECT,
 * CREATE TABLE … AS, CREATE VIEW, UPDATE, DELETE, DROP): the tables it reads and writes, and per
 * written column the table columns it comes from. The SELECT parts go through `selectLineage`,
 * the walk the SQL sources use for view lineage and the BI sources for chart lineage, so every
 * source resolves SQL the same way.
 *
 * Glossary:
 * - table name: dot-joined and completed with the default database/schema (`db.schema.table`);
 *   unquoted parts lower-cased on platforms whose identifiers are case-insensitive, as DataHub
 *   names their datasets.
 * - logic: DataHub's `transformOperation` of a column: `COPY: <expr> AS <col>` when the column is
 *   a plain copy, `SQL: <expr> AS <col>` otherwise, with identifiers qualified, quoted and cased
 *   as sqlglot prints them for the platform.
 * - temp schema: the columns a temporary table was created with, known to later statements of
 *   the same session (so `SELECT *` from it expands).
 */
import {errorText, nameOf, parseSelect, selectLineage, qualifierOf, type SelectLineage, type TableRef} from './lineage.js'

export type QueryType = 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE' | 'MERGE' | 'CREATE_TABLE_AS_SELECT' | 'CREATE_VIEW' | 'CREATE_DDL' | 'UNKNOWN'

export interface ColumnLineage {
  /** Output column (of the written table, or of the SELECT when nothing is written). */
  downstream: string
  upstreams: Array<{table: string; column: string}>
  logic?: string
}

export interface StatementLineage {
  queryType: QueryType
  /** CREATE TEMP/TEMPORARY TABLE. */
  temporary: boolean
  /** Tables read, sorted (as DataHub's parser returns them). */
  inTables: string[]
  /** Tables written (at most one). */
  outTables: string[]
  columns: ColumnLineage[]
  /** DataHub's confidence: 0.2 when a table's columns are unknown, else 0.9. */
  confidence: number
  /** Why column lineage is missing, when the tables are known but the columns are not. */
  columnError?: string
  /** An output column is named by a literal's value (`SELECT 'x'`): the same query with other values has other names. */
  literalNames?: boolean
}

export interface StatementOptions {
  /** Platform of the tables (decides identifier case and the grammar). */
  platform: string
  defaultDb?: string
  defaultSchema?: string
  /** Columns of tables known to the session (temporary tables), by table name. */
  schemas?: Map<string, string[]>
  /** Keep output columns without a name (a literal, a function): DataHub's parser names them. Default true. */
  unnamedColumns?: boolean
  /** Keep the case of names as written (the BI sources name tables as their tool wrote them). */
  keepCase?: boolean
}

/** Platforms whose unquoted identifiers are case-insensitive: DataHub names their datasets in lower case. */
const LOWER_CASE_PLATFORMS = new Set(['snowflake', 'postgres', 'redshift', 'oracle', 'db2', 'trino', 'presto', 'athena', 'hive', 'databricks', 'spark', 'vertica', 'teradata', 'duckdb', 'sqlite', 'mssql', 'clickhouse', 'dremio'])
/** Platforms sqlglot prints identifiers upper-cased for (Snowflake normalises unquoted names to upper case). */
const UPPER_CASE_LOGIC = new Set(['snowflake', 'oracle', 'db2'])

/** node-sql-parser's grammar for a platform (PostgreSQL's when it has none of its own). */
export function parserDialect(platform: string): string {
  const m: Record<string, string> = {postgres: 'postgresql', redshift: 'redshift', mysql: 'mysql', mariadb: 'mariadb', bigquery: 'bigquery', snowflake: 'snowflake', mssql: 'transactsql', trino: 'trino', presto: 'trino', athena: 'trino', hive: 'hive', sqlite: 'sqlite', db2: 'db2', spark: 'hive', databricks: 'hive'}
  return m[platform] ?? 'postgresql'
}

/** Parses the first statement with the platform's grammar, then PostgreSQL's and MySQL's. */
export function parseStatement(sql: string, platform: string): any {
  // Snowflake's `CREATE TEMP TABLE` is `TEMPORARY` to the grammar.
  const text = sql.trim().replace(/;\s*$/, '').replace(/^(\s*create\s+(?:or\s+replace\s+)?)(?:local\s+|global\s+)?temp\s+table\b/i, '$1TEMPORARY TABLE')
  let firstError: unknown
  const texts = [text]
  const moved = withIntoInsert(text)
  if (moved) texts.push(moved)
  for (const t of texts) {
    for (const dialect of [...new Set([parserDialect(platform), 'postgresql', 'mysql'])]) {
      try {
        const stmt = parseSelect(t, dialect)
        if (stmt && typeof stmt === 'object') return stmt
      } catch (e) {
        firstError ??= e
      }
    }
  }
  throw new Error(errorText(firstError))
}

/**
 * `WITH x AS (…) INSERT INTO t SELECT …` (Snowflake's, SQL Server's order) as
 * `INSERT INTO t WITH x AS (…) SELECT …`, the order the grammars read; undefined when the
 * statement is not of that shape.
 */
export function withIntoInsert(sql: string): string | undefined {
  if (!/^\s*with\b/i.test(sql)) return undefined
  let depth = 0
  let quote = ''
  let insertAt = -1
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!
    if (quote) {
      if (c === quote) quote = ''
      continue
    }
    if (c === "'" || c === '"' || c === '`') quote = c
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (depth === 0 && insertAt < 0 && /^insert\s+(into|overwrite)\b/i.test(sql.slice(i, i + 24)) && /\W/.test(sql[i - 1] ?? ' ')) insertAt = i
    else if (depth === 0 && insertAt >= 0 && /^(select|\()/i.test(sql.slice(i, i + 7)) && /\W/.test(sql[i - 1] ?? ' ')) {
      return `${sql.slice(insertAt, i)}${sql.slice(0, insertAt).trim()} ${sql.slice(i)}`
    }
  }
  return undefined
}

/** Builds the names of one platform's tables and columns. */
export class Namer {
  readonly lower: boolean
  constructor(readonly opts: StatementOptions) {
    this.lower = !opts.keepCase && LOWER_CASE_PLATFORMS.has(opts.platform)
  }
  ident(s: string): string {
    return this.lower ? s.toLowerCase() : s
  }
  /** `qualifier.table` completed with the defaults: `db.schema.table`. */
  table(ref: TableRef): string {
    const parts = ref.schema ? ref.schema.split('.') : []
    const {defaultDb, defaultSchema} = this.opts
    let full: string[]
    if (parts.length >= 2) full = [...parts, ref.table]
    else if (parts.length === 1) full = defaultDb ? [defaultDb, parts[0]!, ref.table] : [parts[0]!, ref.table]
    else full = [defaultDb, defaultSchema, ref.table].filter((p): p is string => !!p)
    return full.map((p) => this.ident(p)).join('.')
  }
}

function refOf(item: any): TableRef | undefined {
  const table = nameOf(item?.table) ?? nameOf(item?.view)
  if (!table) return undefined
  const schema = qualifierOf(item)
  return schema ? {schema, table} : {table}
}

/** Every SELECT nested anywhere in `n` (subqueries in WHERE, SET, VALUES …). */
function nestedSelects(n: any, out: any[], depth = 0): void {
  if (!n || typeof n !== 'object' || depth > 200) return
  if (n.type === 'select') {
    out.push(n)
    return
  }
  if (n.ast?.type === 'select') {
    out.push(n.ast)
    return
  }
  for (const v of Object.values(n)) if (v && typeof v === 'object') nestedSelects(v, out, depth + 1)
}

/** The lineage of one statement; throws (a short message) when it cannot be parsed or is of no kind it knows. */
export function statementLineage(sql: string, opts: StatementOptions): StatementLineage {
  const stmt = parseStatement(sql, opts.platform)
  const namer = new Namer(opts)
  const type = String(stmt.type ?? '').toLowerCase()
  const keyword = String(stmt.keyword ?? '').toLowerCase()
  const inTables = new Set<string>()
  const readSelect = (select: any): SelectLineage => {
    const lineage = selectLineage(select, new Map(), {keepUnnamed: opts.unnamedColumns !== false})
    for (const t of lineage.tables) inTables.add(namer.table(t))
    return lineage
  }
  const readNested = (n: any) => {
    const subs: any[] = []
    nestedSelects(n, subs)
    for (const s of subs) readSelect(s)
  }
  let queryType: QueryType = 'UNKNOWN'
  let out: TableRef | undefined
  let select: any
  let targetColumns: string[] | undefined
  let temporary = false
  let columns: ColumnLineage[] = []

  if (type === 'select') {
    queryType = 'SELECT'
    select = stmt
  } else if (type === 'insert' || type === 'replace') {
    queryType = 'INSERT'
    out = refOf(stmt.table?.[0])
    if (Array.isArray(stmt.columns)) targetColumns = stmt.columns.map((c: unknown) => nameOf(c) ?? String(c))
    if (stmt.values?.type === 'select') select = stmt.values
    else if (stmt.select?.type === 'select') select = stmt.select
    else readNested(stmt.values)
  } else if (type === 'create' && (keyword === 'table' || keyword === 'view')) {
    out = keyword === 'view' ? refOf(stmt.view) : refOf(stmt.table?.[0])
    temporary = keyword === 'table' && !!stmt.temporary
    select = keyword === 'view' ? stmt.select : stmt.query_expr
    if (select?.ast) select = select.ast
    if (select?.type !== 'select') select = undefined
    queryType = keyword === 'view' ? 'CREATE_VIEW' : select ? 'CREATE_TABLE_AS_SELECT' : 'CREATE_DDL'
    if (Array.isArray(stmt.columns)) targetColumns = stmt.columns.map((c: unknown) => nameOf(c) ?? nameOf((c as any)?.column) ?? String(c))
  } else if (type === 'update') {
    queryType = 'UPDATE'
    out = refOf(stmt.table?.[0])
    readNested(stmt.where)
    readNested(stmt.from)
    for (const f of Array.isArray(stmt.from) ? stmt.from : []) {
      const r = refOf(f)
      if (r) inTables.add(namer.table(r))
    }
    // The table updated is read too (its rows are rewritten), as DataHub lists it.
    if (out) inTables.add(namer.table(out))
    for (const s of Array.isArray(stmt.set) ? stmt.set : []) {
      const name = nameOf(s?.column)
      if (!name) continue
      const refs: string[] = []
      collectColumns(s.value, refs)
      readNested(s.value)
      const target = out ? namer.table(out) : undefined
      columns.push({downstream: namer.ident(name), upstreams: target ? refs.map((c) => ({table: target, column: namer.ident(c)})) : []})
    }
  } else if (type === 'delete') {
    queryType = 'DELETE'
    out = refOf(stmt.table?.[0]) ?? refOf(stmt.from?.[0])
    readNested(stmt.where)
  } else if (type === 'drop') {
    out = refOf(stmt.name?.[0])
  } else if (type === 'merge') {
    queryType = 'MERGE'
    out = refOf(stmt.table?.[0] ?? stmt.into)
  } else {
    throw new Error(`unsupported statement (${type || 'unknown'})`)
  }

  let columnError: string | undefined
  let literalNames = false
  if (select) {
    const lineage = readSelect(select)
    const star = starColumns(select, namer, opts.schemas)
    const outColumns = star ?? lineage.columns.map((c) => ({name: c.name || unnamed(c.expr, namer), from: c.from.map((r) => ({table: namer.table(r.table), column: namer.ident(r.column)})), expr: c.expr}))
    literalNames = !star && lineage.columns.some((c) => !c.name && isStringLiteral(c.expr))
    const qualifier = singleSource(select)
    columns = outColumns.map((c, i) => {
      const downstream = namer.ident(targetColumns?.[i] ?? c.name)
      const logic = 'expr' in c && c.expr !== undefined ? logicOf(c.expr, downstream, qualifier, opts.platform) : undefined
      return {downstream, upstreams: dedupe(c.from), ...(logic ? {logic} : {})}
    })
    if (targetColumns && targetColumns.length !== outColumns.length) columnError = 'the INSERT names a different number of columns than its SELECT returns'
  }

  const outTables = out ? [namer.table(out)] : []
  const confidence = [...inTables].every((t) => (opts.schemas?.get(t)?.length ?? 0) > 0) && inTables.size > 0 ? 0.9 : 0.2
  return {queryType, temporary, inTables: [...inTables].sort(), outTables, columns, confidence, ...(columnError ? {columnError} : {}), ...(literalNames ? {literalNames} : {})}
}

function dedupe(refs: Array<{table: string; column: string}>): Array<{table: string; column: string}> {
  const seen = new Set<string>()
  return refs.filter((r) => {
    const k = `${r.table}\u0000${r.column}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

function collectColumns(n: any, out: string[]): void {
  if (!n || typeof n !== 'object') return
  if (n.type === 'select' || n.ast) return
  if (n.type === 'column_ref') {
    const c = nameOf(n.column)
    if (c && c !== '*') out.push(c)
    return
  }
  for (const v of Object.values(n)) if (v && typeof v === 'object') collectColumns(v, out)
}

/**
 * `SELECT *` from one table whose columns the session knows (a temporary table created earlier):
 * its columns, each copied.
 */
function starColumns(select: any, namer: Namer, schemas: Map<string, string[]> | undefined): Array<{name: string; from: Array<{table: string; column: string}>; expr: unknown}> | undefined {
  const cols = Array.isArray(select?.columns) ? select.columns : []
  const isStar = cols.length === 1 && cols[0]?.expr?.type === 'column_ref' && nameOf(cols[0].expr.column) === '*'
  const from = Array.isArray(select?.from) ? select.from : []
  if (!isStar || from.length !== 1 || select._next || !schemas) return undefined
  const ref = refOf(from[0])
  if (!ref) return undefined
  const table = namer.table(ref)
  const known = schemas.get(table)
  if (!known?.length) return undefined
  const qualifier = nameOf(from[0]?.as) ?? ref.table
  // Each expanded column is a copy, as sqlglot's `*` expansion makes it.
  return known.map((c) => ({name: c, from: [{table, column: c}], expr: {type: 'column_ref', table: qualifier, column: c}}))
}

/** The alias or name sqlglot qualifies an unqualified column with: the only FROM item's. */
function singleSource(select: any): string | undefined {
  const from = Array.isArray(select?.from) ? select.from : []
  if (from.length !== 1) return undefined
  return nameOf(from[0]?.as) ?? nameOf(from[0]?.table)
}

const isStringLiteral = (expr: any): boolean => expr?.type === 'single_quote_string' || expr?.type === 'string' || expr?.type === 'double_quote_string'

/** sqlglot's name of an unaliased output column: a string literal's value, else the expression's text. */
function unnamed(expr: any, namer: Namer): string {
  if (isStringLiteral(expr)) return String(expr.value)
  const text = renderExpr(expr, {quote: false, upper: false, platform: ''})
  return text === undefined ? '' : namer.lower ? text.toLowerCase() : text
}

interface RenderOptions {
  quote: boolean
  upper: boolean
  platform: string
  qualifier?: string
}

/** Function names sqlglot prints differently for a platform. */
const FUNCTION_NAMES: Record<string, Record<string, string>> = {
  snowflake: {DATE: 'TO_DATE'},
}
/** Functions written without parentheses that sqlglot prints with them. */
const NILADIC_WITH_PARENS = new Set(['CURRENT_TIMESTAMP'])

function ident(s: string, o: RenderOptions): string {
  const cased = o.upper ? s.toUpperCase() : s.toLowerCase()
  return o.quote ? `"${cased.replace(/"/g, '""')}"` : s
}

function functionName(expr: any): string | undefined {
  const n = expr?.name
  if (typeof n === 'string') return n
  if (Array.isArray(n?.name)) return n.name.map((p: any) => nameOf(p) ?? '').join('.')
  return nameOf(n)
}

/** An expression as sqlglot prints it (enough of it for `transformOperation`); undefined for a shape it does not know. */
export function renderExpr(expr: any, o: RenderOptions): string | undefined {
  if (!expr || typeof expr !== 'object') return undefined
  const r = (e: any) => renderExpr(e, o)
  const list = (xs: any[]) => {
    const parts = xs.map(r)
    return parts.some((p) => p === undefined) ? undefined : parts.join(', ')
  }
  switch (expr.type) {
    case 'column_ref': {
      const col = nameOf(expr.column)
      if (!col) return undefined
      if (col === '*') return '*'
      const table = nameOf(expr.table) ?? o.qualifier
      return table && o.quote ? `${ident(table, o)}.${ident(col, o)}` : table ? `${table}.${col}` : col
    }
    case 'number':
      return String(expr.value)
    case 'single_quote_string':
    case 'string':
      return `'${String(expr.value).replace(/'/g, "''")}'`
    case 'bool':
      return expr.value ? 'TRUE' : 'FALSE'
    case 'null':
      return 'NULL'
    case 'star':
      return '*'
    case 'aggr_func': {
      const name = String(expr.name).toUpperCase()
      const arg = expr.args?.expr
      const inner = arg?.type === 'star' ? '*' : r(arg)
      if (inner === undefined) return undefined
      const distinct = expr.args?.distinct ? 'DISTINCT ' : ''
      return `${name}(${distinct}${inner})`
    }
    case 'function': {
      const raw = functionName(expr)
      if (!raw) return undefined
      const upper = raw.toUpperCase()
      const name = FUNCTION_NAMES[o.platform]?.[upper] ?? upper
      const args = Array.isArray(expr.args?.value) ? expr.args.value : expr.args ? [expr.args] : []
      if (!expr.args && !NILADIC_WITH_PARENS.has(upper)) return name
      const inner = list(args)
      return inner === undefined ? undefined : `${name}(${inner})`
    }
    case 'binary_expr': {
      const l = r(expr.left)
      const rr = Array.isArray(expr.right?.value) && expr.right?.type === 'expr_list' ? `(${list(expr.right.value)})` : r(expr.right)
      if (l === undefined || rr === undefined) return undefined
      return `${l} ${String(expr.operator).toUpperCase()} ${rr}`
    }
    case 'cast': {
      const inner = r(expr.expr)
      const target = expr.target?.[0]?.dataType ?? expr.target?.dataType
      return inner === undefined || !target ? undefined : `CAST(${inner} AS ${String(target).toUpperCase()})`
    }
    default:
      return undefined
  }
}

/** DataHub's `transformOperation` of one output column. */
function logicOf(expr: any, downstream: string, qualifier: string | undefined, platform: string): string | undefined {
  const o: RenderOptions = {quote: true, upper: UPPER_CASE_LOGIC.has(platform), platform, qualifier}
  const text = renderExpr(expr, o)
  if (text === undefined) return undefined
  const copy = expr?.type === 'column_ref'
  return `${copy ? 'COPY' : 'SQL'}: ${text} AS ${ident(downstream, o)}`
}
