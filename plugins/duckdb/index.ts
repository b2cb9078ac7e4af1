/**
 * Source `duckdb`: a local DuckDB warehouse file. DataHub has no DuckDB source, so this one
 * follows its PostgreSQL source (three tiers): platform `duckdb`, a database container named
 * after DuckDB's catalog (the file name without extension), a container per schema, and datasets
 * `urn:li:dataset:(urn:li:dataPlatform:duckdb,<database>.<schema>.<table>,<ENV>)` with
 * `schemaMetadata` (types, keys, nullability, comments, foreign keys), view definitions and view
 * lineage parsed from the view's SQL, and `datasetProfile` when profiling is on.
 *
 * The walk, the aspects, profiling and view lineage are sql-common's, as for the other SQL
 * sources; this file says only how DuckDB lists its catalog and reads its types. The file is
 * opened read-only, so a warehouse in use by another process is never changed.
 */
import {existsSync} from 'node:fs'
import {basename} from 'node:path'
import {ALLOW_DENY_SCHEMA, ConfigError, ConnectionError, configSchema, type ConfigOf, type PluginContext, type Source, type SourcePlugin, envOf} from '../../src/sdk/index.js'
import {PROFILING_SCHEMA, SQL_SOURCE_PROPERTIES, sqlSource, type Column, type DatabaseSession, type ForeignKey, type Relation, type SqlDialect} from '../sql-common/index.js'

export type DuckdbConfig = ConfigOf<typeof CONFIG>

// DuckDB marks `main` internal although user tables live there; these two are the catalog's own.
const SYSTEM_SCHEMAS = new Set(['information_schema', 'pg_catalog'])

/**
 * A DuckDB type as the SQLAlchemy class sql-common reads it by (which decides the DataHub type
 * and whether a column is profiled); `nativeDataType` keeps DuckDB's own spelling.
 */
export function duckdbTypeClass(dataType: string): string {
  const t = dataType.toUpperCase()
  if (t.endsWith(']') || t.startsWith('LIST')) return 'ARRAY'
  const base = /^[A-Z_]+/.exec(t)?.[0] ?? t
  if (/^(STRUCT|MAP|UNION|ENUM|BOOLEAN|DATE|INTERVAL|UUID|BLOB|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|REAL|DOUBLE|DECIMAL|NUMERIC)$/.test(base)) return base
  if (base === 'BYTEA') return 'BLOB'
  if (base.startsWith('TIMESTAMP')) return 'TIMESTAMP'
  if (base === 'TIME') return 'TIME'
  // JSON and BIT are text in DuckDB, and read as such.
  if (/^(VARCHAR|CHAR|TEXT|STRING|JSON|BIT)$/.test(base)) return 'VARCHAR'
  return 'NULL'
}

/** The SELECT of a view as `duckdb_views().sql` renders it: `CREATE VIEW <name> [(<columns>)] AS <select>;`. */
export function duckdbViewSelect(sql: string): string {
  // Names may be quoted, with spaces or doubled quotes inside (`"my view"`, `"a""b"`).
  const name = String.raw`(?:"(?:[^"]|"")*"|[^\s".(]+)`
  const head = new RegExp(String.raw`^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?VIEW\s+${name}(?:\s*\.\s*${name})*\s*(?:\((?:"(?:[^"]|"")*"|[^"()])*\)\s*)?AS\s+`, 'i')
  return sql.replace(head, '')
}

const str = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : String(v))
const list = (v: unknown): string[] => ((v as {items?: unknown[]})?.items ?? []).map(String)
/** A value as the server's text: DuckDB's dates, decimals and timestamps arrive as objects that print it. */
const plain = (v: unknown): unknown => (v !== null && typeof v === 'object' ? String(v) : v)

const CONFIG = configSchema({
  type: 'object',
  properties: {
    path: {type: 'string', minLength: 1},
    database_alias: {type: 'string', minLength: 1},
    ...SQL_SOURCE_PROPERTIES,
    // `profiling.profile_pattern` is still read; DataHub's place for it is beside table_pattern.
    profiling: {...PROFILING_SCHEMA, properties: {...PROFILING_SCHEMA.properties, profile_pattern: ALLOW_DENY_SCHEMA}},
  },
  required: ['path'],
  additionalProperties: false,
} as const)

type Connection = Awaited<ReturnType<Awaited<ReturnType<typeof import('@duckdb/node-api').DuckDBInstance.create>>['connect']>>

/** One DuckDB file: a single catalog, read through its `duckdb_*()` table functions. */
class DuckdbSession implements DatabaseSession {
  constructor(
    private readonly conn: Connection,
    private readonly db: string,
  ) {}

  quote = (ident: string): string => `"${ident.replaceAll('"', '""')}"`

  private async rows(sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
    return (await this.conn.runAndReadAll(sql, params as never)).getRowObjects() as Array<Record<string, unknown>>
  }

  async schemas(): Promise<string[]> {
    const rows = await this.rows('SELECT schema_name FROM duckdb_schemas() WHERE database_name = ? ORDER BY schema_name', [this.db])
    return rows.map((r) => String(r.schema_name)).filter((s) => !SYSTEM_SCHEMAS.has(s))
  }

  async relations(schema: string): Promise<Relation[]> {
    const tables = await this.rows('SELECT table_name, comment FROM duckdb_tables() WHERE database_name = ? AND schema_name = ? AND NOT internal ORDER BY table_name', [this.db, schema])
    const views = await this.rows('SELECT view_name, comment, sql FROM duckdb_views() WHERE database_name = ? AND schema_name = ? AND NOT internal ORDER BY view_name', [this.db, schema])
    return [
      ...tables.map((r): Relation => ({name: String(r.table_name), kind: 'table', comment: str(r.comment) || undefined})),
      ...views.map((r): Relation => ({name: String(r.view_name), kind: 'view', comment: str(r.comment) || undefined, definition: str(r.sql)})),
    ]
  }

  async columns(schema: string): Promise<Map<string, Column[]>> {
    const rows = await this.rows('SELECT table_name, column_name, data_type, is_nullable, comment FROM duckdb_columns() WHERE database_name = ? AND schema_name = ? ORDER BY table_name, column_index', [this.db, schema])
    const out = new Map<string, Column[]>()
    for (const r of rows) {
      const type = String(r.data_type)
      const column: Column = {name: String(r.column_name), nativeDataType: type, typeClass: duckdbTypeClass(type), nullable: r.is_nullable !== false, comment: str(r.comment) || undefined}
      out.set(String(r.table_name), [...(out.get(String(r.table_name)) ?? []), column])
    }
    return out
  }

  private constraints(schema: string, type: 'PRIMARY KEY' | 'FOREIGN KEY') {
    return this.rows(
      'SELECT table_name, constraint_name, constraint_column_names, referenced_table, referenced_column_names FROM duckdb_constraints() WHERE database_name = ? AND schema_name = ? AND constraint_type = ? ORDER BY table_name, constraint_index',
      [this.db, schema, type],
    )
  }

  async primaryKeys(schema: string): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>()
    for (const r of await this.constraints(schema, 'PRIMARY KEY')) out.set(String(r.table_name), [...(out.get(String(r.table_name)) ?? []), ...list(r.constraint_column_names)])
    return out
  }

  async foreignKeys(schema: string): Promise<Map<string, ForeignKey[]>> {
    const out = new Map<string, ForeignKey[]>()
    for (const r of await this.constraints(schema, 'FOREIGN KEY')) {
      // DuckDB's foreign keys stay within their schema.
      const fk: ForeignKey = {name: String(r.constraint_name), columns: list(r.constraint_column_names), referredTable: String(r.referenced_table), referredColumns: list(r.referenced_column_names)}
      out.set(String(r.table_name), [...(out.get(String(r.table_name)) ?? []), fk])
    }
    return out
  }

  async query(sql: string, timeoutMs: number): Promise<Array<Record<string, unknown>>> {
    // DuckDB has no statement timeout: the connection is interrupted when the budget runs out.
    let timer: NodeJS.Timeout | undefined
    const budget = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.conn.interrupt()
        reject(new Error(`took longer than ${timeoutMs / 1000} s (profiling.max_seconds_per_table)`))
      }, timeoutMs)
    })
    try {
      const rows = await Promise.race([this.rows(sql), budget])
      return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)])))
    } finally {
      clearTimeout(timer)
    }
  }

  async estimatedRows(schema: string, table: string): Promise<number | undefined> {
    const [r] = await this.rows('SELECT estimated_size FROM duckdb_tables() WHERE database_name = ? AND schema_name = ? AND table_name = ?', [this.db, schema, table])
    return r ? Number(r.estimated_size ?? 0) : undefined
  }

  // The connection is the dialect's, closed with it.
  async close(): Promise<void> {}
}

/** The file as one database named `database_alias` or the file's name; its connection lives as long as the run. */
class DuckdbDialect implements SqlDialect {
  readonly platform = 'duckdb'
  readonly twoTier = false
  // DuckDB's SQL reads as PostgreSQL's for the parser.
  readonly parserDialect = 'postgresql'
  private closed = false

  constructor(
    private readonly instance: {closeSync(): void},
    private readonly conn: Connection,
    private readonly name: string,
  ) {}

  async databases(): Promise<string[]> {
    return [this.name]
  }

  async open(): Promise<DatabaseSession> {
    const db = String((await this.conn.runAndReadAll('SELECT current_database() AS db')).getRowObjects()[0]!.db)
    return new DuckdbSession(this.conn, db)
  }

  viewSelect(definition: string): string {
    return duckdbViewSelect(definition)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.conn.closeSync()
    this.instance.closeSync()
  }
}

const plugin: SourcePlugin<DuckdbConfig> = {
  description: 'A DuckDB warehouse file: schemas, tables, views, view lineage and profiles.',
  platform: 'duckdb',
  configSchema: CONFIG,
  async create(config, ctx: PluginContext): Promise<Source> {
    config.env = envOf(config.env)
    const path = ctx.resolvePath(config.path)
    if (!existsSync(path)) throw new ConfigError(`duckdb: no database file at ${path}`)
    // Loaded here so that listing plugins never loads the native driver.
    const {DuckDBInstance} = await import('@duckdb/node-api')
    let instance
    try {
      instance = await DuckDBInstance.create(path, {access_mode: 'READ_ONLY'})
    } catch (e) {
      throw new ConnectionError(`duckdb: cannot open ${path}: ${(e as Error).message.split('\n')[0]}`)
    }
    const dialect = new DuckdbDialect(instance, await instance.connect(), config.database_alias ?? basename(path).replace(/\.[^.]*$/, ''))
    return sqlSource(dialect, {...config, profile_pattern: config.profile_pattern ?? config.profiling.profile_pattern}, ctx)
  },
}

export default plugin
