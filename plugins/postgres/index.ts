/**
 * Source `postgres`: a PostgreSQL server, as DataHub's `postgres` source reads it — databases and
 * schemas as containers, tables and views as `<db>.<schema>.<table>` datasets with DataHub's
 * aspects, view lineage, and profiles. Driver: node-postgres (`pg`).
 *
 * Config (DataHub's names): `host_port`, `database` (one) or `initial_database` (default
 * `postgres`, to list every database, filtered by `database_pattern`), `username`, `password`
 * (use `${VAR}`), patterns, `include_tables`, `include_views`, `include_view_lineage`, `env`,
 * `platform_instance`, `domain`, `options` (`connect_timeout`, `sslmode`), `profiling.*`.
 *
 * A server that does not answer, a refused login or a missing database is one line naming the
 * host and database (never the password); problems of one table go into the report.
 */
import pg from 'pg'
import {allowDeny, ConnectionError, type ConfigOf, type PluginContext, type Source, type SourcePlugin} from '../../src/sdk/index.js'
import {connectionOf, hostPort, sqlConfigSchema, sqlSource, type Column, type DatabaseSession, type ForeignKey, type Relation, type SqlDialect, type SqlSourceConfig} from '../sql-common/index.js'

const CONFIG = sqlConfigSchema({
  initial_database: {type: 'string', minLength: 1, default: 'postgres'},
})
export type PostgresConfig = ConfigOf<typeof CONFIG>

/** `format_type()` text → SQLAlchemy's repr and class, as DataHub prints `nativeDataType`. */
export function pgNativeType(formatted: string, typtype: string, labels: string[] = []): {nativeDataType: string; typeClass: string} {
  if (formatted.endsWith('[]')) {
    const inner = pgNativeType(formatted.slice(0, -2), 'b')
    return {nativeDataType: `ARRAY(${inner.nativeDataType})`, typeClass: 'ARRAY'}
  }
  // SQLAlchemy's repr: the labels, then the type's name (unqualified).
  if (typtype === 'e') return {nativeDataType: `ENUM(${[...labels.map((l) => (l.includes("'") && !l.includes('"') ? `"${l}"` : `'${l.replaceAll("'", "\\'")}'`)), `name='${formatted.replace(/^.*\./, '').replaceAll('"', '')}'`].join(', ')})`, typeClass: 'ENUM'}
  const m = /^([a-z ]+?)(?:\(([^)]*)\))?( with(?:out)? time zone)?$/.exec(formatted)
  const base = m?.[1] ?? formatted
  const args = m?.[2]
  const tz = m?.[3] === ' with time zone'
  const simple = (cls: string, repr = `${cls}()`) => ({nativeDataType: repr, typeClass: cls})
  switch (base) {
    case 'character varying':
      return simple('VARCHAR', args ? `VARCHAR(length=${args})` : 'VARCHAR()')
    case 'character':
      return simple('CHAR', args ? `CHAR(length=${args})` : 'CHAR()')
    case 'text':
      return simple('TEXT')
    case 'bigint':
      return simple('BIGINT')
    case 'integer':
      return simple('INTEGER')
    case 'smallint':
      return simple('SMALLINT')
    case 'numeric': {
      const [p, s] = (args ?? '').split(',')
      return simple('NUMERIC', args ? `NUMERIC(precision=${p}, scale=${s ?? 0})` : 'NUMERIC()')
    }
    case 'double precision':
      return simple('DOUBLE_PRECISION', 'DOUBLE_PRECISION(precision=53)')
    case 'real':
      return simple('REAL')
    case 'boolean':
      return simple('BOOLEAN')
    case 'timestamp':
      return simple('TIMESTAMP', tz || args ? `TIMESTAMP(${[tz ? 'timezone=True' : '', args ? `precision=${args}` : ''].filter(Boolean).join(', ')})` : 'TIMESTAMP()')
    case 'time':
      return simple('TIME', tz || args ? `TIME(${[tz ? 'timezone=True' : '', args ? `precision=${args}` : ''].filter(Boolean).join(', ')})` : 'TIME()')
    case 'date':
      return simple('DATE')
    case 'interval':
      return simple('INTERVAL')
    case 'json':
      return simple('JSON', 'JSON(astext_type=Text())')
    case 'jsonb':
      return simple('JSONB', 'JSONB(astext_type=Text())')
    case 'uuid':
      return simple('UUID', 'UUID(as_uuid=True)')
    case 'bytea':
      return simple('BYTEA')
    case 'inet':
      return simple('INET')
    case 'macaddr':
      return simple('MACADDR')
    case 'money':
      return simple('MONEY')
    case 'oid':
      return simple('OID')
    case 'tsvector':
      return simple('TSVECTOR')
    case 'bit':
      return simple('BIT', args && args !== '1' ? `BIT(length=${args})` : 'BIT()')
    case 'bit varying':
      return simple('BIT', `BIT(${[args ? `length=${args}` : '', 'varying=True'].filter(Boolean).join(', ')})`)
    case 'hstore':
      return simple('HSTORE', 'HSTORE(text_type=Text())')
    case 'name':
      return simple('NAME')
    default:
      return {nativeDataType: formatted, typeClass: 'NULL'}
  }
}

// date, timestamp, timestamptz: as the server's text. node-postgres would build a JS Date in this
// machine's time zone, shifting dates and dropping microseconds from profiles. Per client, so
// other users of pg in the process keep their parsers.
const TEXT_OIDS = new Set([1082, 1114, 1184])
const TEXT_TEMPORALS = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (TEXT_OIDS.has(oid) && format !== 'binary' ? (v: string) => v : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser,
}

function describe(e: unknown, where: string, user?: string): Error {
  const err = e as {code?: string; message?: string}
  const why =
    err.code === 'ECONNREFUSED'
      ? 'connection refused'
      : err.code === 'ENOTFOUND'
        ? 'host not found'
        : err.code === '28P01' || err.code === '28000'
          ? `login refused for user "${user ?? ''}" (${err.message})`
          : err.code === '3D000'
            ? 'the database does not exist'
            : (err.message ?? String(e))
  return new ConnectionError(`PostgreSQL at ${where}: ${why}`)
}

class PgSession implements DatabaseSession {
  constructor(private readonly client: pg.Client) {}

  quote = (ident: string): string => `"${ident.replaceAll('"', '""')}"`

  async schemas(): Promise<string[]> {
    const r = await this.client.query("SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY nspname")
    return r.rows.map((x) => x.nspname as string)
  }

  async relations(schema: string): Promise<Relation[]> {
    const r = await this.client.query(
      `SELECT c.relname, c.relkind, obj_description(c.oid, 'pg_class') AS comment,
              CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END AS definition
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'f', 'v', 'm') AND NOT c.relispartition
        ORDER BY c.relname`,
      [schema],
    )
    return r.rows.map((x) => ({name: x.relname, kind: x.relkind === 'v' || x.relkind === 'm' ? 'view' : 'table', comment: x.comment ?? undefined, definition: x.definition ?? undefined}))
  }

  async columns(schema: string): Promise<Map<string, Column[]>> {
    const r = await this.client.query(
      // A DOMAIN column reads as the domain's base type, as SQLAlchemy reflects it (following a
      // domain over a domain down to the first type that is not one, with that domain's modifier);
      // a NOT NULL on any domain of the chain makes the column not nullable.
      `SELECT c.relname, a.attname, format_type(t.oid, COALESCE(dom.typmod, a.atttypmod)) AS type, t.typtype,
              a.attnotnull OR COALESCE(dom.nn, false) AS attnotnull,
              CASE WHEN t.typtype = 'e' THEN ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) END AS labels,
              col_description(c.oid, a.attnum) AS comment
         FROM pg_attribute a
         JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN LATERAL (
           WITH RECURSIVE chain(base, typmod, nn, depth) AS (
             SELECT d.typbasetype, d.typtypmod, d.typnotnull, 1 FROM pg_type d WHERE d.oid = a.atttypid AND d.typtype = 'd'
             UNION ALL
             SELECT d.typbasetype, d.typtypmod, chain.nn OR d.typnotnull, chain.depth + 1 FROM chain JOIN pg_type d ON d.oid = chain.base AND d.typtype = 'd' WHERE chain.depth < 32
           )
           SELECT base, typmod, nn FROM chain ORDER BY depth DESC LIMIT 1
         ) dom ON true
         JOIN pg_type t ON t.oid = COALESCE(dom.base, a.atttypid)
        WHERE n.nspname = $1 AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'f', 'v', 'm')
        ORDER BY c.relname, a.attnum`,
      [schema],
    )
    const out = new Map<string, Column[]>()
    for (const x of r.rows) {
      const list = out.get(x.relname) ?? []
      list.push({name: x.attname, ...pgNativeType(x.type, x.typtype, x.labels ?? []), nullable: !x.attnotnull, comment: x.comment ?? undefined})
      out.set(x.relname, list)
    }
    return out
  }

  async primaryKeys(schema: string): Promise<Map<string, string[]>> {
    const r = await this.client.query(
      `SELECT c.relname, a.attname
         FROM pg_index i
         JOIN pg_class c ON c.oid = i.indrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) ON true
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
        WHERE i.indisprimary AND n.nspname = $1
        ORDER BY c.relname, k.ord`,
      [schema],
    )
    const out = new Map<string, string[]>()
    for (const x of r.rows) out.set(x.relname, [...(out.get(x.relname) ?? []), x.attname])
    return out
  }

  async foreignKeys(schema: string): Promise<Map<string, ForeignKey[]>> {
    const r = await this.client.query(
      `SELECT con.conname, c.relname, fc.relname AS ftable, fn.nspname AS fschema,
              ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.o) AS cols,
              ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.o) AS fcols
         FROM pg_constraint con
         JOIN pg_class c ON c.oid = con.conrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_class fc ON fc.oid = con.confrelid
         JOIN pg_namespace fn ON fn.oid = fc.relnamespace
        WHERE con.contype = 'f' AND n.nspname = $1
        ORDER BY c.relname, con.conname`,
      [schema],
    )
    const out = new Map<string, ForeignKey[]>()
    for (const x of r.rows) {
      out.set(x.relname, [...(out.get(x.relname) ?? []), {name: x.conname, columns: x.cols, referredSchema: x.fschema, referredTable: x.ftable, referredColumns: x.fcols}])
    }
    return out
  }

  async query(sql: string, timeoutMs: number): Promise<Array<Record<string, unknown>>> {
    // A time budget per statement, so one huge table never stalls the run.
    await this.client.query(`SET statement_timeout = ${Math.ceil(timeoutMs)}`)
    try {
      return (await this.client.query(sql)).rows
    } finally {
      await this.client.query('SET statement_timeout = 0')
    }
  }

  async estimatedRows(schema: string, table: string): Promise<number | undefined> {
    const r = await this.client.query('SELECT c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2', [schema, table])
    const n = Number(r.rows[0]?.reltuples)
    return Number.isFinite(n) ? Math.max(0, Math.round(n)) : undefined
  }

  // The relations the view's rewrite rule depends on, as the server recorded them when the view
  // was created: what DataHub's postgres source falls back to (its VIEW_LINEAGE_QUERY) for a
  // view its parser cannot read. Only pg_class entries (not the types or functions the rule also
  // depends on), never the view itself, nor the system catalogs.
  async viewUpstreams(schema: string, view: string): Promise<Array<{schema: string; table: string}>> {
    const r = await this.client.query(
      `SELECT DISTINCT sn.nspname AS schema, src.relname AS table
         FROM pg_class v
         JOIN pg_namespace vn ON vn.oid = v.relnamespace
         JOIN pg_rewrite rw ON rw.ev_class = v.oid
         JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = rw.oid AND d.refclassid = 'pg_class'::regclass
         JOIN pg_class src ON src.oid = d.refobjid
         JOIN pg_namespace sn ON sn.oid = src.relnamespace
        WHERE vn.nspname = $1 AND v.relname = $2 AND src.oid <> v.oid AND sn.nspname NOT IN ('pg_catalog', 'information_schema')
        ORDER BY 1, 2`,
      [schema, view],
    )
    return r.rows.map((x) => ({schema: x.schema as string, table: x.table as string}))
  }

  async close(): Promise<void> {
    await this.client.end()
  }
}

class PostgresDialect implements SqlDialect {
  readonly platform = 'postgres'
  readonly twoTier = false
  readonly parserDialect = 'postgresql'
  private readonly host: string
  private readonly port: number

  constructor(private readonly config: PostgresConfig & {host_port: string}) {
    const hp = hostPort(config.host_port, 5432)
    this.host = hp.host
    this.port = hp.port
  }

  private where(db: string): string {
    return `${this.host}:${this.port}/${db}`
  }

  private async connect(database: string): Promise<pg.Client> {
    const o = this.config.options ?? {}
    const client = new pg.Client({
      host: this.host,
      port: this.port,
      user: this.config.username,
      password: this.config.password,
      database,
      connectionTimeoutMillis: Number(o.connect_timeout ?? 10) * 1000,
      ssl: o.sslmode === 'require' ? {rejectUnauthorized: false} : undefined,
      application_name: 'mdcli',
      types: TEXT_TEMPORALS,
    })
    // A server that drops the connection must not crash the process with an unhandled error.
    client.on('error', () => {})
    try {
      await client.connect()
    } catch (e) {
      await client.end().catch(() => {})
      throw describe(e, this.where(database), this.config.username)
    }
    return client
  }

  // DataHub's case rules (reference 2.7): containers always key the database by its name without
  // quotes, lower-cased; dataset names use `database` as the recipe writes it, else that same
  // lower-cased name (SQLAlchemy's url.database).
  containerDatabase(database: string): string {
    return database.replaceAll('"', '').toLowerCase()
  }

  datasetDatabase(database: string): string {
    return this.config.database ? database : this.containerDatabase(database)
  }

  async databases(): Promise<string[]> {
    // Connects even when the database is named, so a bad address or login fails the run at once.
    const client = await this.connect(this.config.database ?? this.config.initial_database)
    try {
      if (this.config.database) return [this.config.database]
      const r = await client.query("SELECT datname FROM pg_database WHERE datname NOT IN ('template0', 'template1') AND datallowconn ORDER BY datname")
      const ok = allowDeny(this.config.database_pattern, true, 'source.config.database_pattern')
      return r.rows.map((x) => x.datname as string).filter(ok)
    } finally {
      await client.end()
    }
  }

  async open(database: string): Promise<DatabaseSession> {
    return new PgSession(await this.connect(database))
  }

  async close(): Promise<void> {}
}

const plugin: SourcePlugin<PostgresConfig> = {
  description: 'A PostgreSQL server: databases, schemas, tables, views, view lineage and profiles, as DataHub emits them.',
  platform: 'postgres',
  configSchema: CONFIG,
  async create(config, ctx: PluginContext): Promise<Source> {
    const conn = connectionOf(config, 'postgresql', 5432)
    return sqlSource(new PostgresDialect(conn), conn, ctx)
  },
}

export default plugin
