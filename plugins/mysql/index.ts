/**
 * Sources `mysql` and `mariadb`: a MySQL or MariaDB server, as DataHub's sources read it —
 * two-tier naming (`<db>.<table>`), one container per database, tables and views with DataHub's
 * aspects, view lineage, and profiles. Driver: mysql2.
 *
 * Config (DataHub's names): `host_port`, `database` (one) or every database allowed by
 * `database_pattern` (DataHub's deprecated `schema_pattern` means the same here), `username`,
 * `password` (use `${VAR}`), patterns, `include_tables`, `include_views`, `env`,
 * `platform_instance`, `domain`, `options` (`connect_timeout`), `profiling.*`.
 */
import mysql from 'mysql2/promise'
import {allowDeny, ConnectionError, type PluginContext, type Source, type SourcePlugin} from '../../src/sdk/index.js'
import {connectionOf, hostPort, sqlConfigSchema, sqlSource, type Column, type DatabaseSession, type ForeignKey, type Relation, type SqlDialect, type SqlSourceConfig} from '../sql-common/index.js'

/** `information_schema.columns.column_type` → SQLAlchemy's repr and class (DataHub's nativeDataType). */
export function mysqlNativeType(columnType: string): {nativeDataType: string; typeClass: string} {
  const t = columnType.trim()
  const unsigned = /\bunsigned\b/i.test(t)
  const m = /^(\w+)(?:\((.*)\))?/.exec(t)
  const base = (m?.[1] ?? t).toLowerCase()
  const args = m?.[2]
  const extra = unsigned ? 'unsigned=True' : ''
  const repr = (cls: string, ...parts: string[]) => ({nativeDataType: `${cls}(${parts.filter(Boolean).join(', ')})`, typeClass: cls})
  switch (base) {
    case 'varchar':
      return repr('VARCHAR', args ? `length=${args}` : '')
    case 'char':
      return repr('CHAR', args ? `length=${args}` : '')
    case 'int':
    case 'integer':
      return repr('INTEGER', extra)
    case 'bigint':
      return repr('BIGINT', extra)
    case 'smallint':
      return repr('SMALLINT', extra)
    case 'mediumint':
      return repr('MEDIUMINT', extra)
    case 'tinyint':
      return repr('TINYINT', args === '1' ? 'display_width=1' : '', extra)
    case 'decimal':
    case 'numeric': {
      const [p, s] = (args ?? '').split(',')
      return repr('DECIMAL', args ? `precision=${p}` : '', args ? `scale=${s ?? 0}` : '', extra)
    }
    case 'double':
      return repr('DOUBLE', 'asdecimal=True', extra)
    case 'float':
      return repr('FLOAT', extra)
    case 'datetime':
      return repr('DATETIME', args ? `fsp=${args}` : '')
    case 'timestamp':
      return repr('TIMESTAMP', args ? `fsp=${args}` : '')
    case 'time':
      return repr('TIME', args ? `fsp=${args}` : '')
    case 'date':
      return repr('DATE')
    case 'year':
      return repr('YEAR')
    case 'enum':
      return {nativeDataType: `ENUM(${(args ?? '').split(/,(?=')/).join(', ')})`, typeClass: 'ENUM'}
    case 'set':
      return {nativeDataType: `SET(${(args ?? '').split(/,(?=')/).join(', ')})`, typeClass: 'SET'}
    case 'text':
    case 'longtext':
    case 'mediumtext':
    case 'tinytext':
    case 'json':
    case 'blob':
    case 'longblob':
    case 'mediumblob':
    case 'tinyblob':
      return repr(base.toUpperCase())
    case 'binary':
    case 'varbinary':
      return repr(base.toUpperCase(), args ? `length=${args}` : '')
    case 'bit':
      return repr('BIT', args ?? '')
    default:
      return {nativeDataType: t.toUpperCase(), typeClass: 'NULL'}
  }
}

function describe(e: unknown, where: string, user?: string): Error {
  const err = e as {code?: string; errno?: number; message?: string}
  const why =
    err.code === 'ECONNREFUSED'
      ? 'connection refused'
      : err.code === 'ENOTFOUND'
        ? 'host not found'
        : err.code === 'ER_ACCESS_DENIED_ERROR' || err.errno === 1045
          ? `login refused for user "${user ?? ''}"`
          : err.code === 'ER_BAD_DB_ERROR' || err.errno === 1049
            ? 'the database does not exist'
            : err.code === 'ETIMEDOUT'
              ? 'timed out'
              : (err.message ?? String(e))
  return new ConnectionError(`${where}: ${why}`)
}

type Conn = mysql.Connection

class MysqlSession implements DatabaseSession {
  constructor(
    private readonly conn: Conn,
    private readonly db: string,
    private readonly mariadb: boolean,
  ) {}

  quote = (ident: string): string => `\`${ident.replaceAll('`', '``')}\``

  private async rows(sql: string, params: unknown[] = []): Promise<Array<Record<string, any>>> {
    const [rows] = await this.conn.query({sql, values: params})
    return rows as Array<Record<string, any>>
  }

  async schemas(): Promise<string[]> {
    return [this.db]
  }

  async relations(): Promise<Relation[]> {
    const rows = await this.rows('SELECT TABLE_NAME AS name, TABLE_TYPE AS type, TABLE_COMMENT AS comment FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME', [this.db])
    const out: Relation[] = []
    for (const r of rows) {
      const isView = r.type === 'VIEW'
      let definition: string | undefined
      let definitionError: string | undefined
      if (isView) {
        // Per view: a view the user may not SHOW (no SHOW VIEW privilege) loses its definition
        // only, not the tables of its database.
        try {
          const [def] = await this.rows(`SHOW CREATE VIEW ${this.quote(this.db)}.${this.quote(r.name)}`)
          definition = def?.['Create View'] as string | undefined
        } catch (e) {
          definitionError = (e as Error).message.split('\n')[0]
        }
      }
      out.push({name: r.name, kind: isView ? 'view' : 'table', comment: !isView && r.comment ? r.comment : undefined, definition, ...(definitionError ? {definitionError} : {})})
    }
    return out
  }

  async columns(): Promise<Map<string, Column[]>> {
    const rows = await this.rows(
      // MySQL 8 shows no comments on view columns; MariaDB copies the table's: DataHub saw none.
      `SELECT c.TABLE_NAME AS t, c.COLUMN_NAME AS name, c.COLUMN_TYPE AS type, c.IS_NULLABLE AS nullable,
              CASE WHEN t.TABLE_TYPE = 'VIEW' THEN '' ELSE c.COLUMN_COMMENT END AS comment
         FROM information_schema.COLUMNS c JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
        WHERE c.TABLE_SCHEMA = ? ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION`,
      [this.db],
    )
    const out = new Map<string, Column[]>()
    for (const r of rows) {
      const list = out.get(r.t) ?? []
      list.push({name: r.name, ...mysqlNativeType(String(r.type)), nullable: r.nullable === 'YES', comment: r.comment || undefined})
      out.set(r.t, list)
    }
    return out
  }

  async primaryKeys(): Promise<Map<string, string[]>> {
    const rows = await this.rows("SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY TABLE_NAME, ORDINAL_POSITION", [this.db])
    const out = new Map<string, string[]>()
    for (const r of rows) out.set(r.t, [...(out.get(r.t) ?? []), r.c])
    return out
  }

  async foreignKeys(): Promise<Map<string, ForeignKey[]>> {
    const rows = await this.rows(
      `SELECT TABLE_NAME AS t, CONSTRAINT_NAME AS name, COLUMN_NAME AS c, REFERENCED_TABLE_SCHEMA AS rs, REFERENCED_TABLE_NAME AS rt, REFERENCED_COLUMN_NAME AS rc
         FROM information_schema.KEY_COLUMN_USAGE
        WHERE TABLE_SCHEMA = ? AND REFERENCED_TABLE_NAME IS NOT NULL
        ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`,
      [this.db],
    )
    const out = new Map<string, ForeignKey[]>()
    for (const r of rows) {
      const list = out.get(r.t) ?? []
      let fk = list.find((f) => f.name === r.name)
      if (!fk) list.push((fk = {name: r.name, columns: [], referredSchema: r.rs, referredTable: r.rt, referredColumns: []}))
      fk.columns.push(r.c)
      fk.referredColumns.push(r.rc)
      out.set(r.t, list)
    }
    return out
  }

  async query(sql: string, timeoutMs: number): Promise<Array<Record<string, unknown>>> {
    // MySQL bounds SELECTs in milliseconds, MariaDB any statement in seconds.
    if (this.mariadb) await this.conn.query(`SET SESSION max_statement_time = ${Math.max(1, Math.ceil(timeoutMs / 1000))}`)
    else await this.conn.query(`SET SESSION max_execution_time = ${Math.ceil(timeoutMs)}`)
    return this.rows(sql)
  }

  async estimatedRows(_schema: string, table: string): Promise<number | undefined> {
    const [r] = await this.rows('SELECT TABLE_ROWS AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [this.db, table])
    return r?.n === null || r?.n === undefined ? undefined : Number(r.n)
  }

  async sizeInBytes(_schema: string, table: string): Promise<number | undefined> {
    const [r] = await this.rows('SELECT DATA_LENGTH AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [this.db, table])
    return r?.n === null || r?.n === undefined ? undefined : Number(r.n)
  }

  async close(): Promise<void> {
    await this.conn.end()
  }
}

class MysqlDialect implements SqlDialect {
  readonly twoTier = true
  readonly parserDialect = 'mysql'
  private readonly host: string
  private readonly port: number
  private mariadbServer = false

  constructor(
    readonly platform: 'mysql' | 'mariadb',
    private readonly config: SqlSourceConfig & {host_port: string},
  ) {
    const hp = hostPort(config.host_port, 3306)
    this.host = hp.host
    this.port = hp.port
  }

  private async connect(database?: string): Promise<Conn> {
    const where = `${this.platform === 'mariadb' ? 'MariaDB' : 'MySQL'} at ${this.host}:${this.port}${database ? `/${database}` : ''}`
    try {
      const conn = await mysql.createConnection({
        host: this.host,
        port: this.port,
        user: this.config.username,
        password: this.config.password,
        database,
        connectTimeout: Number(this.config.options?.connect_timeout ?? 10) * 1000,
        dateStrings: true,
        // JSON as the server's text (what pymysql gives DataHub), not objects that print as [object Object].
        jsonStrings: true,
        supportBigNumbers: true,
        bigNumberStrings: false,
      })
      conn.on('error', () => {})
      const [[v]] = (await conn.query('SELECT VERSION() AS v')) as unknown as [[{v: string}]]
      this.mariadbServer = /mariadb/i.test(v?.v ?? '')
      return conn
    } catch (e) {
      throw describe(e, where, this.config.username)
    }
  }

  asDouble(expr: string): string {
    // AVG and STDDEV_SAMP of integers and decimals are DECIMALs with 4 places (68303.1161); DataHub
    // shows the full double (68303.11607142857). CAST … AS DOUBLE: MariaDB 10.4+, MySQL 8.0.17+.
    return `CAST(${expr} AS DOUBLE)`
  }

  viewSelect(definition: string): string {
    // Names may be backquoted with spaces or doubled backquotes inside (`my view`, `a``b`).
    return definition.replace(/^[\s\S]*?\bVIEW\s+(?:`(?:[^`]|``)*`|[^\s`.]+)(?:\.(?:`(?:[^`]|``)*`|[^\s`.]+))?\s+AS\s+/i, '')
  }

  async databases(): Promise<string[]> {
    // Connects even when the database is named, so a bad address or login fails the run at once.
    const conn = await this.connect(this.config.database)
    try {
      if (this.config.database) return [this.config.database]
      const [rows] = await conn.query('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA ORDER BY SCHEMA_NAME')
      const ok = allowDeny(this.config.database_pattern ?? this.config.schema_pattern)
      return (rows as Array<{name: string}>).map((r) => r.name).filter(ok)
    } finally {
      await conn.end()
    }
  }

  async open(database: string): Promise<DatabaseSession> {
    const conn = await this.connect(database)
    return new MysqlSession(conn, database, this.mariadbServer)
  }

  async close(): Promise<void> {}
}

function sourcePlugin(platform: 'mysql' | 'mariadb'): SourcePlugin<SqlSourceConfig> {
  return {
    description: `A ${platform === 'mysql' ? 'MySQL' : 'MariaDB'} server: databases, tables, views, view lineage and profiles, as DataHub emits them.`,
    platform,
    configSchema: sqlConfigSchema(),
    async create(config, ctx: PluginContext): Promise<Source> {
      const conn = connectionOf(config, 'mysql', 3306)
      return sqlSource(new MysqlDialect(platform, conn), conn, ctx)
    },
  }
}

export const mariadb = sourcePlugin('mariadb')
export default sourcePlugin('mysql')
