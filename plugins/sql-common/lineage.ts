/**
 * View lineage from node-sql-parser's AST: the tables a SELECT reads and, per output column, the
 * table columns it comes from.
 *
 * Glossary:
 * - source: what a FROM item stands for — a table (an upstream) or a derived relation (a CTE or a
 *   subquery), whose columns lead back to tables in turn.
 * - branch: one SELECT of a set operation (`UNION`, …); node-sql-parser chains them in `_next`.
 *
 * node-sql-parser returns `from` in several shapes: an array of items; for MySQL's parenthesised
 * joins (`from (a join b on(…))`) one object whose `expr` is the array; for PostgreSQL's an item
 * whose `expr` is `{type: 'tables', expr: [...]}`; a subquery is an item whose `expr.ast` is a
 * SELECT. Every shape is walked here, and whatever is not understood is skipped rather than
 * thrown, so that one odd view costs its own lineage only.
 */
import sqlParser from 'node-sql-parser'

const parser = new sqlParser.Parser()

export interface TableRef {
  /** Schema (PostgreSQL) or database (MySQL), as written; undefined when the SQL leaves it off. */
  schema?: string
  table: string
}

export interface ColumnRef {
  table: TableRef
  column: string
}

export interface SelectLineage {
  /** Tables read, in order of appearance, each once. */
  tables: TableRef[]
  /**
   * Output columns in order, with the table columns each comes from and the select item's
   * expression (for callers that render it); unnamed ones (`'x'`, `now()` without an alias) only
   * when asked for, with an empty name.
   */
  columns: Array<{name: string; from: ColumnRef[]; expr?: unknown}>
}

export interface LineageOptions {
  /** Keep output columns without a name (a literal, a function without alias), named ''. */
  keepUnnamed?: boolean
}

type Source = {kind: 'table'; ref: TableRef} | {kind: 'derived'; lineage: SelectLineage}

/** The name in a parser node that is a bare string or carries it as value / expr.value. */
export const nameOf = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v
  if (v && typeof v === 'object') {
    const o = v as {value?: unknown; expr?: {value?: unknown}}
    if (typeof o.value === 'string') return o.value
    if (typeof o.expr?.value === 'string') return o.expr.value
  }
  return undefined
}

const refKey = (r: TableRef): string => `${r.schema ?? ''}\u0000${r.table}`

function addTable(list: TableRef[], ref: TableRef): void {
  if (!list.some((t) => refKey(t) === refKey(ref))) list.push(ref)
}

/** The SELECT statement a node stands for (`{ast: select}` or the select itself), if any. */
function selectOf(node: any): any {
  if (!node || typeof node !== 'object') return undefined
  if (node.type === 'select') return node
  if (node.ast?.type === 'select') return node.ast
  return undefined
}

/** FROM items of every shape, flattened into a list of plain items. */
function fromItems(from: unknown): any[] {
  if (!from) return []
  if (Array.isArray(from)) return from.flatMap(fromItems)
  if (typeof from !== 'object') return []
  const f = from as any
  // MySQL's parenthesised join group: `{expr: [items], parentheses, joins}`.
  if (Array.isArray(f.expr)) return [...fromItems(f.expr), ...fromItems(f.joins)]
  // PostgreSQL's parenthesised join group.
  if (f.expr?.type === 'tables') return fromItems(f.expr.expr)
  return [f]
}

/** Lineage of one SELECT (with its WITH clause and set-operation branches). */
export function selectLineage(stmt: any, outer: Map<string, SelectLineage> = new Map(), opts: LineageOptions = {}): SelectLineage {
  const ctes = new Map(outer)
  for (const cte of Array.isArray(stmt?.with) ? stmt.with : []) {
    const name = nameOf(cte?.name)
    const body = selectOf(cte?.stmt)
    // A CTE sees the ones before it; its own name is not a table.
    if (name && body) ctes.set(name.toLowerCase(), selectLineage(body, ctes))
  }
  const branches: any[] = []
  for (let s = stmt; s && branches.length < 1000; s = s._next) branches.push(s)
  const result: SelectLineage = {tables: [], columns: []}
  branches.forEach((branch, i) => {
    const one = branchLineage(branch, ctes, opts)
    for (const t of one.tables) addTable(result.tables, t)
    if (i === 0) result.columns = one.columns.map((c) => ({name: c.name, from: [...c.from], expr: c.expr}))
    else
      // Set operations line columns up by position; the first branch names them.
      one.columns.forEach((c, pos) => {
        const target = result.columns[pos]
        if (target) for (const r of c.from) if (!target.from.some((x) => refKey(x.table) === refKey(r.table) && x.column === r.column)) target.from.push(r)
      })
  })
  return result
}

/**
 * The qualifier of a table as written (`db`, `db.schema`): node-sql-parser puts a three-part
 * name's parts in `catalog`/`schema` (Snowflake's grammar) or `db`/`schema` (PostgreSQL's).
 */
export function qualifierOf(item: any): string | undefined {
  const catalog = nameOf(item?.catalog)
  const db = nameOf(item?.db)
  const schema = nameOf(item?.schema)
  if (catalog && schema) return `${catalog}.${schema}`
  if (db && schema && db !== schema) return `${db}.${schema}`
  return db ?? schema ?? undefined
}

function branchLineage(stmt: any, ctes: Map<string, SelectLineage>, opts: LineageOptions = {}): SelectLineage {
  const tables: TableRef[] = []
  const byAlias = new Map<string, Source>()
  const sources: Source[] = []
  for (const item of fromItems(stmt?.from)) {
    const sub = selectOf(item.expr)
    let source: Source | undefined
    if (sub) source = {kind: 'derived', lineage: selectLineage(sub, ctes)}
    else if (typeof item.table === 'string') {
      const schema = qualifierOf(item)
      const cte = schema ? undefined : ctes.get(item.table.toLowerCase())
      source = cte ? {kind: 'derived', lineage: cte} : {kind: 'table', ref: schema ? {schema, table: item.table} : {table: item.table}}
      if (!cte) byAlias.set(item.table, source)
    }
    if (!source) continue
    sources.push(source)
    const alias = nameOf(item.as)
    if (alias) byAlias.set(alias, source)
    else if (source.kind === 'derived' && typeof item.table === 'string') byAlias.set(item.table, source)
    if (source.kind === 'table') addTable(tables, source.ref)
    else for (const t of source.lineage.tables) addTable(tables, t)
  }
  // Subqueries elsewhere (WHERE … IN (SELECT …), scalar subqueries) read tables too.
  for (const key of ['columns', 'where', 'having', 'groupby', 'orderby']) {
    visitSubqueries(stmt?.[key], (sub) => {
      for (const t of selectLineage(sub, ctes).tables) addTable(tables, t)
    })
  }

  const resolve = (table: string | undefined, column: string): ColumnRef[] => {
    const source = table ? byAlias.get(table) : sources.length === 1 ? sources[0] : unqualified(column)
    if (!source) return []
    if (source.kind === 'table') return [{table: source.ref, column}]
    return source.lineage.columns.find((c) => c.name === column)?.from ?? []
  }
  // An unqualified column among several sources (as sqlglot resolves it without a schema): the
  // one derived source that has it; else, when no derived source has it, the only table (whose
  // columns are unknown). Anything else is ambiguous and left unresolved.
  function unqualified(column: string): Source | undefined {
    const derived = sources.filter((s) => s.kind === 'derived' && s.lineage.columns.some((c) => c.name === column))
    if (derived.length === 1) return derived[0]
    if (derived.length > 1) return undefined
    const tablesOnly = sources.filter((s) => s.kind === 'table')
    return tablesOnly.length === 1 ? tablesOnly[0] : undefined
  }
  const columns: SelectLineage['columns'] = []
  for (const c of Array.isArray(stmt?.columns) ? stmt.columns : []) {
    const refs: Array<{table?: string; column: string}> = []
    collectColumnRefs(c?.expr, refs)
    const own = c?.expr?.type === 'column_ref' ? nameOf(c.expr.column) : undefined
    const name = nameOf(c?.as) ?? own
    if (name === '*' || (c?.expr?.type === 'column_ref' && own === '*')) {
      // `t.*` / `*` over derived sources (subqueries, CTEs) expands to their columns; a table's
      // columns are unknown here, so it adds none.
      const qualifier = nameOf(c.expr.table) ?? undefined
      const expanded = qualifier ? [byAlias.get(qualifier)] : sources
      for (const s of expanded) if (s?.kind === 'derived') for (const col of s.lineage.columns) columns.push({name: col.name, from: [...col.from], expr: col.expr})
      continue
    }
    if (!name && !opts.keepUnnamed) continue
    const from: ColumnRef[] = []
    for (const r of refs) for (const x of resolve(r.table, r.column)) if (!from.some((y) => refKey(y.table) === refKey(x.table) && y.column === x.column)) from.push(x)
    columns.push({name: name ?? '', from, expr: c?.expr})
  }
  return {tables, columns}
}

function collectColumnRefs(n: any, out: Array<{table?: string; column: string}>): void {
  if (!n || typeof n !== 'object') return
  if (selectOf(n)) return // a scalar subquery's columns are its own
  if (n.type === 'column_ref') {
    const column = nameOf(n.column)
    if (column && column !== '*') out.push({table: nameOf(n.table) ?? undefined, column})
    return
  }
  for (const v of Object.values(n)) if (v && typeof v === 'object') collectColumnRefs(v, out)
}

function visitSubqueries(n: any, fn: (select: any) => void, depth = 0): void {
  if (!n || typeof n !== 'object' || depth > 200) return
  const sub = selectOf(n)
  if (sub) {
    fn(sub)
    return
  }
  for (const v of Object.values(n)) if (v && typeof v === 'object') visitSubqueries(v, fn, depth + 1)
}

/**
 * Drops the parentheses MySQL and MariaDB put around join groups (`from ((a join b on(…)) join
 * c on(…))`), which node-sql-parser's MySQL grammar cannot nest. The tables read stay the same;
 * parentheses of subqueries and of expressions (`on(…)`) are kept.
 */
export function unparenthesiseJoins(sql: string): string {
  const drop = new Set<number>()
  const stack: Array<{at: number; group: boolean}> = []
  let prevWord = ''
  let prevOpenGroup = false
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i]!
    if (ch === '`' || ch === '"' || ch === "'") {
      // Quoted: skip to the closing quote (doubled quotes escape).
      let j = i + 1
      while (j < sql.length && !(sql[j] === ch && sql[j + 1] !== ch)) j += sql[j] === ch ? 2 : 1
      i = j
      prevWord = ''
      prevOpenGroup = false
      continue
    }
    if (/\s/.test(ch)) continue
    if (ch === '(') {
      const rest = sql.slice(i + 1).trimStart().toLowerCase()
      const startsQuery = /^(select|with)\b/.test(rest) || (rest.startsWith('(') && /^\(\s*(select|with)\b/.test(rest))
      const group: boolean = (prevWord === 'from' || prevWord === 'join' || prevOpenGroup) && !startsQuery
      stack.push({at: i, group})
      if (group) drop.add(i)
      prevOpenGroup = group
      prevWord = ''
      continue
    }
    prevOpenGroup = false
    if (ch === ')') {
      const open = stack.pop()
      if (open?.group) drop.add(i)
      prevWord = ''
      continue
    }
    const m = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i, i + 64))
    if (m) {
      prevWord = m[0].toLowerCase()
      i += m[0].length - 1
    } else prevWord = ''
  }
  if (drop.size === 0) return sql
  let out = ''
  for (let i = 0; i < sql.length; i++) out += drop.has(i) ? ' ' : sql[i]
  return out
}

const IDENT = String.raw`(?:"(?:[^"]|"")*"|[A-Za-z_][A-Za-z0-9_$]*)`
/**
 * A PostgreSQL cast's type as pg_get_viewdef prints it, after the `::`: a (qualified, quoted)
 * name, the second word of `character varying` / `bit varying` / `double precision`, a modifier,
 * `with(out) time zone`, array brackets.
 */
const CAST_TYPE = new RegExp(String.raw`^\s*${IDENT}(?:\s*\.\s*${IDENT})*(?:\s+(?:varying|precision)\b)?(?:\s*\([^()]*\))?(?:\s+with(?:out)?\s+time\s+zone\b)?(?:\s*\[\s*\d*\s*\])*`, 'i')

/**
 * PostgreSQL's own spellings that node-sql-parser's grammar rejects, as pg_get_viewdef prints
 * them, rewritten so the tables and columns read stay the same: every `::type` cast is dropped
 * (the grammar knows only built-in type names, and not even those after a LIKE pattern), `~~*`
 * `!~~*` `~~` `!~~` become ILIKE / NOT ILIKE / LIKE / NOT LIKE, and `IS [NOT] DISTINCT FROM`
 * becomes `<>` / `=` (its right side may only be a column in that grammar). What a comparison
 * means changes for NULLs; what it reads does not. Quoted text and identifiers are left alone.
 */
export function normalisePostgres(sql: string): string {
  let out = ''
  let i = 0
  while (i < sql.length) {
    const ch = sql[i]!
    if (ch === "'" || ch === '"') {
      let j = i + 1
      while (j < sql.length && !(sql[j] === ch && sql[j + 1] !== ch)) j += sql[j] === ch ? 2 : 1
      out += sql.slice(i, j + 1)
      i = j + 1
      continue
    }
    if (ch === ':' && sql[i + 1] === ':') {
      const m = CAST_TYPE.exec(sql.slice(i + 2))
      if (m) {
        i += 2 + m[0].length
        continue
      }
    }
    const op = /^(?:!~~\*|~~\*|!~~|~~)/.exec(sql.slice(i, i + 4))
    if (op) {
      out += {'!~~*': ' NOT ILIKE ', '~~*': ' ILIKE ', '!~~': ' NOT LIKE ', '~~': ' LIKE '}[op[0]]
      i += op[0].length
      continue
    }
    const distinct = /^IS\s+(NOT\s+)?DISTINCT\s+FROM\b/i.exec(sql.slice(i, i + 40))
    if (distinct && !/[A-Za-z0-9_$]/.test(sql[i - 1] ?? '')) {
      out += distinct[1] ? '=' : '<>'
      i += distinct[0].length
      continue
    }
    out += ch
    i++
  }
  return out
}

/**
 * The first statement of `sql` as a SELECT AST; throws (the first parser error) when it cannot be
 * parsed. SQL the grammar rejects is tried again rewritten: PostgreSQL's spellings normalised
 * (`normalisePostgres`), MySQL's join groups unparenthesised. Only on failure, so SQL that
 * parses as written is read as written.
 */
export function parseSelect(sql: string, database: string): any {
  let ast
  try {
    ast = parser.astify(sql, {database})
  } catch (first) {
    const retries = [database.toLowerCase() === 'postgresql' ? normalisePostgres(sql) : sql, unparenthesiseJoins(sql)].filter((s) => s !== sql)
    for (const retry of retries) {
      try {
        ast = parser.astify(retry, {database})
        break
      } catch {
        /* the next rewrite, else the first error */
      }
    }
    if (ast === undefined) throw first
  }
  const stmt = Array.isArray(ast) ? ast[0] : ast
  return stmt
}

/** What a view reads, as dataset urns: the tables, and per output column the columns it comes from. */
export interface ViewLineage {
  upstreams: string[]
  columns: Map<string, Array<{dataset: string; column: string}>>
}

/**
 * The lineage of a view from its SELECT (a trailing `;` is allowed); `urnOf` names a table as the
 * source names datasets. Throws when the SQL cannot be parsed or is not a SELECT, so that the
 * caller can report that one view and go on.
 */
export function viewLineage(select: string, parserDialect: string, urnOf: (ref: TableRef) => string): ViewLineage {
  const stmt = parseSelect(select.trim().replace(/;\s*$/, ''), parserDialect)
  if (stmt?.type !== 'select') throw new Error(`not a SELECT (${String(stmt?.type)})`)
  const lineage = selectLineage(stmt)
  const upstreams = [...new Set(lineage.tables.map(urnOf))]
  const columns = new Map<string, Array<{dataset: string; column: string}>>()
  for (const c of lineage.columns) {
    const ups = c.from.map((r) => ({dataset: urnOf(r.table), column: r.column}))
    if (ups.length && !columns.has(c.name)) columns.set(c.name, ups)
  }
  return {upstreams, columns}
}

/** A column's schemaField urn. */
export const schemaField = (dataset: string, col: string): string => `urn:li:schemaField:(${dataset},${col})`
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The upstreamLineage aspect of a view: the datasets it reads and, unless `columns` is false, per
 * column the view has (a column list `CREATE VIEW v (a, b) AS …` renames the SELECT's columns:
 * lineage under a name the view does not have would point at no field) the columns it comes
 * from, ordered by `order`.
 */
export function viewLineageAspect(viewUrn: string, lineage: ViewLineage, viewColumns: ReadonlyArray<{name: string}>, opts: {columns?: boolean; order?: (a: string, b: string) => number} = {}): Record<string, unknown> {
  const order = opts.order ?? byCodePoint
  const fine =
    opts.columns === false
      ? []
      : [...lineage.columns.entries()]
          .filter(([col]) => viewColumns.some((c) => c.name === col))
          .sort(([a], [b]) => order(a, b))
          .map(([col, ups]) => ({upstreamType: 'FIELD_SET', upstreams: ups.map((u) => schemaField(u.dataset, u.column)), downstreamType: 'FIELD', downstreams: [schemaField(viewUrn, col)], confidenceScore: 1.0}))
  return {
    upstreams: lineage.upstreams.map((dataset) => ({auditStamp: {time: 0, actor: 'urn:li:corpuser:unknown'}, dataset, type: 'VIEW'})),
    ...(fine.length ? {fineGrainedLineages: fine} : {}),
  }
}

/** The message of whatever a parser threw (PEG parsers throw objects, some libraries strings). */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message.split('\n')[0]!
  if (typeof e === 'string') return e.split('\n')[0]!
  const m = (e as {message?: unknown})?.message
  return typeof m === 'string' ? m.split('\n')[0]! : String(e)
}
