/**
 * What DataHub's SQL sources have in common, for our `postgres` and `mysql`/`mariadb` sources:
 * the walk (databases → schemas → tables, views → profiles → view lineage), the aspects and their
 * order, schema fields, profiles computed in the database, and view lineage from a SQL parser.
 *
 * Glossary:
 * - dialect: how one database product is asked for its catalog (`SqlDialect`), and how its
 *   types read (`Column.typeClass`, SQLAlchemy's class name, which decides the DataHub type).
 * - two-tier: MySQL's `db.table` naming (no schema container); PostgreSQL is three-tier
 *   (`db.schema.table`).
 * - relation: a table or a view.
 *
 * Memory stays bounded by one schema: columns and keys are read per schema, work units are
 * yielded table by table, and only view definitions wait for the lineage pass at the end.
 */
import {ALLOW_DENY_SCHEMA, allowDeny, cardinality, ConfigError, configSchema, containerUrn, encodeUrnKeyPart, envOf, FULL_TABLE, mcp, pyFloat, schemaMetadata, type AllowDeny, type ConfigOf, type JSONSchema, type PluginContext, type ProposalInput, type Report, type Source, type WorkUnit} from '../../src/sdk/index.js'
import {errorText, schemaField, viewLineage, viewLineageAspect, type ViewLineage} from './lineage.js'

export interface Column {
  name: string
  /** What DataHub prints: SQLAlchemy's repr, e.g. `VARCHAR(length=500)`, `BIGINT()`. */
  nativeDataType: string
  /** SQLAlchemy's class name (`VARCHAR`, `JSON`, `ENUM`…), which decides the DataHub type. */
  typeClass: string
  nullable: boolean
  comment?: string
}

export interface ForeignKey {
  name: string
  columns: string[]
  /** Referred schema (PostgreSQL) or database (MySQL); undefined = the same one. */
  referredSchema?: string
  referredTable: string
  referredColumns: string[]
}

export interface Relation {
  name: string
  kind: 'table' | 'view'
  comment?: string
  /** Views: the definition as the server renders it. */
  definition?: string
  /** Views: why the definition could not be read (the view is still emitted, without it). */
  definitionError?: string
}

/** The catalog of one database, as one connection sees it. */
export interface DatabaseSession {
  /** Schemas (PostgreSQL) or the database itself (MySQL, two-tier). */
  schemas(): Promise<string[]>
  relations(schema: string): Promise<Relation[]>
  /** Columns of every relation of the schema, in ordinal order. */
  columns(schema: string): Promise<Map<string, Column[]>>
  primaryKeys(schema: string): Promise<Map<string, string[]>>
  foreignKeys(schema: string): Promise<Map<string, ForeignKey[]>>
  /** Runs a profiling query with the dialect's statement time limit. */
  query(sql: string, timeoutMs: number): Promise<Array<Record<string, unknown>>>
  quote(ident: string): string
  estimatedRows(schema: string, table: string): Promise<number | undefined>
  /**
   * The relations a view reads as the server recorded them (PostgreSQL's pg_depend), for a view
   * whose SQL the parser cannot follow: its table-level lineage all the same, as DataHub's
   * postgres source falls back to.
   */
  viewUpstreams?(schema: string, view: string): Promise<Array<{schema: string; table: string}>>
  sizeInBytes?(schema: string, table: string): Promise<number | undefined>
  close(): Promise<void>
}

export interface SqlDialect {
  platform: string
  twoTier: boolean
  /** node-sql-parser's name for the dialect. */
  parserDialect: string
  /** Databases to visit, in order (already filtered by `database_pattern`). */
  databases(): Promise<string[]>
  open(database: string): Promise<DatabaseSession>
  /** Strips what precedes the SELECT of a view definition (MySQL's CREATE … VIEW … AS). */
  viewSelect?(definition: string): string
  /** The database part of dataset names (default: the catalog's name). */
  datasetDatabase?(database: string): string
  /** The database of container keys and properties (default: the catalog's name). */
  containerDatabase?(database: string): string
  /** An aggregate as a double, where the server would round it (MySQL's AVG/STDDEV give DECIMAL). */
  asDouble?(expr: string): string
  close(): Promise<void>
}

/** DataHub's `profiling` block (GEProfilingConfig); keys it has that mdcli does not use are accepted. */
export const PROFILING_SCHEMA = {
  type: 'object',
  properties: {
    enabled: {type: 'boolean', default: false},
    profile_table_level_only: {type: 'boolean', default: false},
    profile_table_row_count_estimate_only: {type: 'boolean', default: false},
    include_field_null_count: {type: 'boolean', default: true},
    include_field_distinct_count: {type: 'boolean', default: true},
    include_field_min_value: {type: 'boolean', default: true},
    include_field_max_value: {type: 'boolean', default: true},
    include_field_mean_value: {type: 'boolean', default: true},
    include_field_median_value: {type: 'boolean', default: true},
    include_field_stddev_value: {type: 'boolean', default: true},
    // No defaults for these two: turn_off_expensive_profiling_metrics changes them only when the
    // recipe leaves them out (see `settleProfiling`), so leaving out must be seen.
    include_field_sample_values: {type: 'boolean'},
    include_field_distinct_value_frequencies: {type: 'boolean'},
    include_field_quantiles: {type: 'boolean'},
    include_field_histogram: {type: 'boolean'},
    field_sample_values_limit: {type: 'integer', minimum: 0, default: 20},
    max_number_of_fields_to_profile: {type: 'integer', minimum: 1},
    profile_table_row_limit: {type: 'integer', minimum: 1, default: 5_000_000},
    profile_table_size_limit: {type: 'integer'},
    max_seconds_per_table: {type: 'number', exclusiveMinimum: 0, default: 60},
    turn_off_expensive_profiling_metrics: {type: 'boolean'},
    partition_profiling_enabled: {type: 'boolean'},
    catch_exceptions: {type: 'boolean'},
    max_workers: {type: 'integer'},
    query_combiner_enabled: {type: 'boolean'},
    report_dropped_profiles: {type: 'boolean'},
    limit: {type: 'integer', minimum: 0},
    offset: {type: 'integer', minimum: 0},
  },
  additionalProperties: false,
  default: {},
} as const

/** Where a server is and who logs in: the keys a database in a file (DuckDB) has no use for. */
const CONNECTION_PROPERTIES = {
  host_port: {type: 'string', minLength: 1},
  // DataHub's escape hatch: host, port, user, password and database from one SQLAlchemy URI.
  sqlalchemy_uri: {type: 'string', minLength: 1},
  // The SQLAlchemy driver (`postgresql+psycopg2`, `mysql+pymysql`): the dialect must match; the driver is ours.
  scheme: {type: 'string', minLength: 1},
  database: {type: 'string', minLength: 1},
  username: {type: 'string'},
  password: {type: 'string'},
  database_pattern: ALLOW_DENY_SCHEMA,
  options: {type: 'object'},
} as const

/** The recipe keys of every SQL source however it reaches its database (DataHub's names): what the walk reads. */
export const SQL_SOURCE_PROPERTIES = {
  env: {type: 'string', default: 'PROD'},
  platform_instance: {type: 'string', minLength: 1},
  schema_pattern: ALLOW_DENY_SCHEMA,
  table_pattern: ALLOW_DENY_SCHEMA,
  view_pattern: ALLOW_DENY_SCHEMA,
  profile_pattern: ALLOW_DENY_SCHEMA,
  include_tables: {type: 'boolean', default: true},
  include_views: {type: 'boolean', default: true},
  include_view_lineage: {type: 'boolean', default: true},
  include_view_column_lineage: {type: 'boolean', default: true},
  include_table_location_lineage: {type: 'boolean'},
  convert_urns_to_lowercase: {type: 'boolean'},
  domain: {type: 'object', additionalProperties: ALLOW_DENY_SCHEMA},
  profiling: PROFILING_SCHEMA,
  classification: {type: 'object', properties: {enabled: {type: 'boolean'}}},
  // DataHub's lineage as PATCH operations; only its default (false) is supported here, see `connectionOf`.
  incremental_lineage: {type: 'boolean'},
  // DataHub's spill-to-disk switch for large runs: this walk streams, so it changes nothing here.
  use_file_backed_cache: {type: 'boolean'},
} as const

/** The config schema of a SQL server's source: connection, the common keys, and a dialect's own (`extra`). */
export function sqlConfigSchema<const E extends Record<string, JSONSchema> = {}>(extra: E = {} as E) {
  return configSchema({type: 'object', properties: {...CONNECTION_PROPERTIES, ...SQL_SOURCE_PROPERTIES, ...extra}, additionalProperties: false} as const)
}

const SQL_CONFIG = sqlConfigSchema()
/** What every SQL server's source's `create` receives (defaults filled). */
export type SqlSourceConfig = ConfigOf<typeof SQL_CONFIG>
const WALK_CONFIG = configSchema({type: 'object', properties: SQL_SOURCE_PROPERTIES, additionalProperties: false} as const)
/** What the walk (`sqlWorkunits`) reads of a config (defaults filled). */
export type SqlWalkConfig = ConfigOf<typeof WALK_CONFIG>
export type ProfilingConfig = SqlWalkConfig['profiling']

/**
 * The profiling switches as DataHub's GEProfilingConfig settles them before profiling:
 * sample values are on and distinct value frequencies, quantiles and histograms off unless the
 * recipe says otherwise, and `turn_off_expensive_profiling_metrics` turns all four off and
 * profiles at most 10 columns of a table, where the recipe does not set them itself.
 */
export function settleProfiling(p: ProfilingConfig) {
  const cheap = p.turn_off_expensive_profiling_metrics === true
  return {
    ...p,
    include_field_sample_values: p.include_field_sample_values ?? !cheap,
    include_field_distinct_value_frequencies: p.include_field_distinct_value_frequencies ?? false,
    include_field_quantiles: p.include_field_quantiles ?? false,
    include_field_histogram: p.include_field_histogram ?? false,
    max_number_of_fields_to_profile: p.max_number_of_fields_to_profile ?? (cheap ? 10 : undefined),
  }
}
type SettledProfiling = ReturnType<typeof settleProfiling>

/**
 * SQLAlchemy classes → DataHub field types (`_field_type_mapping`, with the dialects' extras:
 * MySQL's MEDIUMINT and YEAR, DuckDB's unsigned and huge integers, STRUCT, MAP and UNION).
 */
export function fieldType(typeClass: string): string {
  const t = typeClass.toUpperCase()
  if (t === 'ARRAY') return 'ArrayType'
  if (t === 'JSON' || t === 'JSONB' || t === 'STRUCT') return 'RecordType'
  if (t === 'HSTORE' || t === 'MAP') return 'MapType'
  if (t === 'UNION') return 'UnionType'
  if (t === 'ENUM') return 'EnumType'
  if (t === 'BOOLEAN' || t === 'BOOL') return 'BooleanType'
  if (NUMERIC_CLASS.test(t) || t === 'YEAR_NUM') return 'NumberType'
  if (/^(BYTEA|BLOB|LONGBLOB|MEDIUMBLOB|TINYBLOB|BINARY|VARBINARY|BIT|TSVECTOR|REGCLASS)$/.test(t)) return 'BytesType'
  if (/^(VARCHAR|CHAR|TEXT|LONGTEXT|MEDIUMTEXT|TINYTEXT|NVARCHAR|NCHAR|SET|UUID|INET|CIDR_STR|MACADDR|OID|CITEXT|NAME)$/.test(t)) return 'StringType'
  if (t === 'DATE') return 'DateType'
  if (/^(TIME|TIMESTAMP|DATETIME|INTERVAL)$/.test(t)) return 'TimeType'
  return 'NullType'
}

const NUMERIC_CLASS = /^(SMALLINT|INTEGER|INT|BIGINT|TINYINT|MEDIUMINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|NUMERIC|DECIMAL|FLOAT|REAL|DOUBLE|DOUBLE_PRECISION|MONEY)$/i
const TEMPORAL_CLASS = /^(DATE|TIME|TIMESTAMP|DATETIME)$/i
const UNPROFILED_CLASS = /^(JSON|JSONB|ARRAY|STRUCT|MAP|UNION|HSTORE|BYTEA|BLOB|LONGBLOB|MEDIUMBLOB|TINYBLOB|BINARY|VARBINARY|TSVECTOR|NULL)$/i

/**
 * Python's `str()` of a date, time or timestamp the driver returned as the server's text:
 * microseconds in six digits when there are any (`10:00:00.123000`), none when zero, and an
 * offset as `+09:00`. Drivers are asked for text so that the value is the one stored, not one
 * moved through this machine's time zone.
 */
export function pyTemporal(text: string): string {
  const m = /^(.*?\d{2}:\d{2}:\d{2})(?:\.(\d+))?([+-]\d{2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(text) ?? /^(.*?\d{2}:\d{2}:\d{2})(?:\.(\d+))?()$/.exec(text)
  if (!m) return text
  const micro = (m[2] ?? '').padEnd(6, '0').slice(0, 6)
  const fraction = /^0*$/.test(micro) ? '' : `.${micro}`
  const offset = m[3] ? `${m[3]}:${m[4] ?? '00'}${m[5] ? `:${m[5]}` : ''}` : ''
  return `${m[1]}${fraction}${offset}`
}

/** A foreign key as schemaMetadata holds it: the datasets at both ends and their columns. */
export function foreignKeyAspect(name: string, self: string, columns: string[], foreign: string, referredColumns: string[]): Record<string, unknown> {
  return {name, foreignFields: referredColumns.map((c) => schemaField(foreign, c)), sourceFields: columns.map((c) => schemaField(self, c)), foreignDataset: foreign}
}

const MYSQL_DDL = {'com.linkedin.schema.MySqlDDL': {tableSchema: ''}}

/** A column as schemaMetadata describes it: `fieldType` is DataHub's type class (`StringType`, …). */
export interface SchemaColumn {
  name: string
  nullable: boolean
  comment?: string
  fieldType: string
  nativeDataType: string
}

/** The schemaMetadata aspect of a table or view, as DataHub's SQL sources write it (an empty MySqlDDL whatever the database). */
export function schemaMetadataAspect(schemaName: string, platform: string, columns: SchemaColumn[], primaryKey: string[], foreignKeys: Array<Record<string, unknown>>): Record<string, unknown> {
  const fields = columns.map((c) => ({
    fieldPath: c.name,
    nullable: c.nullable,
    ...(c.comment ? {description: c.comment} : {}),
    type: {type: {[`com.linkedin.schema.${c.fieldType}`]: {}}},
    nativeDataType: c.nativeDataType,
    recursive: false,
    isPartOfKey: primaryKey.includes(c.name),
  }))
  return schemaMetadata(schemaName, platform, fields, {platformSchema: MYSQL_DDL, extra: foreignKeys.length ? {foreignKeys} : {}})
}

/** Python's `str()` of a value a driver returned. */
function pyStr(v: unknown, typeClass: string): string {
  if (typeof v === 'string' && TEMPORAL_CLASS.test(typeClass)) return pyTemporal(v)
  if (v instanceof Date) return v.toISOString().slice(0, typeClass.toUpperCase() === 'DATE' ? 10 : 19).replace('T', ' ')
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  if (typeof v === 'number' && /^(FLOAT|REAL|DOUBLE|DOUBLE_PRECISION)$/i.test(typeClass) && Number.isInteger(v)) return `${v}.0`
  return String(v)
}

export interface SqlRun {
  dialect: SqlDialect
  /** From `dialect.databases()`, asked before the run so that a bad login fails it at once. */
  databases: string[]
  config: SqlWalkConfig
  ctx: PluginContext
  report: Report
}

/**
 * The Source of a dialect: its databases are asked now, so that a wrong address or a refused
 * login fails the run before it starts; the walk runs when the work units are read.
 */
export async function sqlSource(dialect: SqlDialect, config: SqlWalkConfig, ctx: PluginContext): Promise<Source> {
  let databases: string[]
  try {
    envOf(config.env)
    databases = await dialect.databases()
  } catch (e) {
    await dialect.close()
    throw e
  }
  return {report: ctx.report, workunits: () => sqlWorkunits({dialect, databases, config, ctx, report: ctx.report}), close: () => dialect.close()}
}

/** The work units of one run of a SQL source, in DataHub's order. */
export async function* sqlWorkunits({dialect, databases, config, ctx, report}: SqlRun): AsyncGenerator<WorkUnit> {
  const env = envOf(config.env)
  const platform = dialect.platform
  const inst = config.platform_instance
  const instanceUrn = inst ? `urn:li:dataPlatformInstance:(urn:li:dataPlatform:${platform},${inst})` : undefined
  const platformInstance = instanceUrn ? {platform: `urn:li:dataPlatform:${platform}`, instance: instanceUrn} : {platform: `urn:li:dataPlatform:${platform}`}
  const pathPrefix = instanceUrn ? [{id: instanceUrn, urn: instanceUrn}] : []
  const schemaOk = allowDeny(config.schema_pattern, true, 'source.config.schema_pattern')
  const tableOk = allowDeny(config.table_pattern, true, 'source.config.table_pattern')
  const viewOk = allowDeny(config.view_pattern ?? config.table_pattern, true, config.view_pattern ? 'source.config.view_pattern' : 'source.config.table_pattern')
  const profileOk = allowDeny(config.profile_pattern, true, 'source.config.profile_pattern')
  const domains = Object.entries(config.domain ?? {}).map(([urn, p]) => ({urn: urn.startsWith('urn:li:domain:') ? urn : `urn:li:domain:${urn}`, ok: allowDeny(p, true, `source.config.domain.${urn}`)}))
  const domainOf = (name: string): string | undefined => domains.filter((d) => d.ok(name)).pop()?.urn
  if (config.classification?.enabled) report.warning('classification', 'classification is not supported by mdcli; columns are not classified')
  const profiling = settleProfiling(config.profiling)
  // Great Expectations' quantiles and histogram bins are not reproduced here: said once per run
  // rather than ignored.
  const notComputed = ([['include_field_quantiles', 'quantiles'], ['include_field_histogram', 'histograms']] as const).filter(([key]) => profiling[key])
  if (profiling.enabled && notComputed.length) report.warning('profiling', `${notComputed.map(([key]) => `profiling.${key}`).join(', ')}: not computed by mdcli, profiles have no ${notComputed.map(([, what]) => what).join(' or ')}`)

  const dbKey = (db: string) => ({platform, instance: inst, env, database: db})
  const dbUrn = (db: string) => containerUrn(dbKey(db), {envAsInstance: true})
  const schemaUrn = (db: string, schema: string) => containerUrn({...dbKey(db), schema}, {envAsInstance: true})
  const datasetName = (db: string, schema: string, table: string) => (dialect.twoTier ? `${db}.${table}` : `${db}.${schema}.${table}`)
  // convert_urns_to_lowercase lower-cases the name part of every dataset urn (DataHub's
  // auto_lowercase_urns, reference 2.6); every urn of the run is built here, so all agree.
  const urnName = (name: string) => (config.convert_urns_to_lowercase ? name.toLowerCase() : name)
  const datasetUrn = (db: string, schema: string, table: string) => `urn:li:dataset:(urn:li:dataPlatform:${platform},${encodeUrnKeyPart(urnName(`${inst ? `${inst}.` : ''}${datasetName(db, schema, table)}`))},${env})`

  function container(urn: string, name: string, subType: string, props: Record<string, string>, domainName: string, parent?: string): WorkUnit {
    const domain = domainOf(domainName)
    return {
      id: `container-${urn}`,
      kind: 'mcp',
      proposals: [
        mcp(urn, 'containerProperties', {customProperties: {platform, ...(inst ? {instance: inst} : {}), env, ...props}, name}),
        mcp(urn, 'status', {removed: false}),
        mcp(urn, 'dataPlatformInstance', platformInstance),
        mcp(urn, 'subTypes', {typeNames: [subType]}),
        ...(domain ? [mcp(urn, 'domains', {domains: [domain]})] : []),
        ...(parent ? [mcp(urn, 'container', {container: parent})] : []),
        mcp(urn, 'browsePathsV2', {path: [...pathPrefix, ...(parent ? [{id: parent, urn: parent}] : [])]}),
      ],
    }
  }

  // Views' lineage waits for the end of the run (DataHub's order); it is read while the view's
  // database is open, so that a view the parser cannot follow can ask the server instead.
  const views: Array<{db: string; schema: string; name: string; urn: string; columns: Column[]; lineage?: ViewLineage; parseError?: string}> = []
  try {
    for (const catalogDb of databases) {
      let session: DatabaseSession
      try {
        session = await dialect.open(catalogDb)
      } catch (e) {
        report.failure('database failed', `${catalogDb}: ${(e as Error).message}`)
        continue
      }
      // The database as dataset names and as containers spell it (PostgreSQL's differ, §2.7).
      const db = dialect.datasetDatabase ? dialect.datasetDatabase(catalogDb) : catalogDb
      const cdb = dialect.containerDatabase ? dialect.containerDatabase(catalogDb) : catalogDb
      try {
        const dUrn = dbUrn(cdb)
        yield container(dUrn, cdb, 'Database', {database: cdb}, cdb)
        const profiles: Array<{schema: string; table: string; urn: string; columns: Column[]}> = []
        for (const schema of await session.schemas()) {
          if (!dialect.twoTier && !schemaOk(schema)) continue
          const parent = dialect.twoTier ? dUrn : schemaUrn(cdb, schema)
          if (!dialect.twoTier) yield container(parent, schema, 'Schema', {database: cdb, schema}, `${cdb}.${schema}`, dUrn)
          let relations: Relation[]
          let columns: Map<string, Column[]>
          let keys: Map<string, string[]>
          let fks: Map<string, ForeignKey[]>
          try {
            relations = await session.relations(schema)
            columns = await session.columns(schema)
            keys = await session.primaryKeys(schema)
            fks = await session.foreignKeys(schema)
          } catch (e) {
            report.failure('schema failed', `${datasetName(db, schema, '').replace(/\.$/, '')}: ${(e as Error).message}`)
            continue
          }
          const ordered = [...relations.filter((r) => r.kind === 'table'), ...relations.filter((r) => r.kind === 'view')]
          for (const rel of ordered) {
            const name = datasetName(db, schema, rel.name)
            if (rel.kind === 'table' ? !config.include_tables || !tableOk(name) : !config.include_views || !viewOk(name)) {
              report.count(rel.kind === 'table' ? 'tablesFiltered' : 'viewsFiltered')
              continue
            }
            const urn = datasetUrn(db, schema, rel.name)
            // Views reflect every column as nullable, whatever the tables below say (as in DataHub).
            const cols = (columns.get(rel.name) ?? []).map((c) => (rel.kind === 'view' ? {...c, nullable: true} : c))
            const pk = rel.kind === 'table' ? (keys.get(rel.name) ?? []) : []
            const foreign = rel.kind === 'table' ? (fks.get(rel.name) ?? []) : []
            // One relation that cannot be described is a failure of the run, not its end.
            let proposals: ProposalInput[]
            try {
              proposals = ((): ProposalInput[] => {
                const domain = domainOf(name)
                const props = {
                  customProperties: rel.kind === 'view' ? {view_definition: rel.definition ?? '', is_view: 'True'} : {},
                  name: rel.name,
                  ...(rel.comment ? {description: rel.comment} : {}),
                  tags: [],
                }
                const schemaMetadata = schemaMetadataAspect(
                  name,
                  platform,
                  cols.map((c) => ({...c, fieldType: fieldType(c.typeClass)})),
                  pk,
                  foreign.map((fk) => foreignKeyAspect(fk.name, urn, fk.columns, datasetUrn(dialect.twoTier ? (fk.referredSchema ?? db) : db, fk.referredSchema ?? schema, fk.referredTable), fk.referredColumns)),
                )
                const proposals: ProposalInput[] = [
                  mcp(urn, 'container', {container: parent}),
                  mcp(urn, 'status', {removed: false}),
                  mcp(urn, 'datasetProperties', props),
                  mcp(urn, 'schemaMetadata', schemaMetadata),
                  ...(instanceUrn ? [mcp(urn, 'dataPlatformInstance', platformInstance)] : []),
                  mcp(urn, 'subTypes', {typeNames: [rel.kind === 'table' ? 'Table' : 'View']}),
                  ...(rel.kind === 'view' ? [mcp(urn, 'viewProperties', {materialized: false, viewLogic: rel.definition ?? '', viewLanguage: 'SQL'})] : []),
                  ...(domain ? [mcp(urn, 'domains', {domains: [domain]})] : []),
                  mcp(urn, 'browsePathsV2', {path: [...pathPrefix, {id: dUrn, urn: dUrn}, ...(dialect.twoTier ? [] : [{id: parent, urn: parent}])]}),
                ]
                return proposals
              })()
            } catch (e) {
              report.failure('table failed', `${name}: ${(e as Error).message}`)
              continue
            }
            if (rel.definitionError) report.warning('view definition', `${name}: the definition could not be read: ${rel.definitionError}`)
            report.count(rel.kind === 'table' ? 'tablesScanned' : 'viewsScanned')
            yield {id: urn, kind: 'mcp', proposals}
            if (rel.kind === 'view' && rel.definition && config.include_view_lineage) views.push(await readViewLineage(session, db, schema, rel.name, urn, rel.definition, cols))
            if (rel.kind === 'table' && config.profiling.enabled && profileOk(name)) profiles.push({schema, table: rel.name, urn, columns: cols})
          }
        }
        for (const p of profiles) {
          const value = await profileTable(session, dialect, profiling, p.schema, p.table, p.columns, datasetName(db, p.schema, p.table), ctx, report, profileOk)
          if (value) yield {id: `profile-${p.urn}`, kind: 'mcp', proposals: [mcp(p.urn, 'datasetProfile', value)]}
        }
      } finally {
        await session.close()
      }
    }
    for (const v of views) {
      if (v.parseError !== undefined) report.warning('view lineage', `${datasetName(v.db, v.schema, v.name)}: the view's SQL could not be parsed: ${v.parseError}`)
      const lineage = v.lineage
      if (!lineage || lineage.upstreams.length === 0) continue
      yield {
        id: `lineage-${v.urn}`,
        kind: 'mcp',
        proposals: [
          mcp(v.urn, 'upstreamLineage', viewLineageAspect(v.urn, lineage, v.columns, {columns: config.include_view_column_lineage === true})),
        ],
      }
    }
  } finally {
    await dialect.close()
  }

  /**
   * A view's lineage from its SQL; when the parser cannot follow it, the tables the server says
   * it reads (table level only), if the dialect can tell. One view whose SQL cannot be read costs
   * at most its own column lineage, never the run.
   */
  async function readViewLineage(session: DatabaseSession, db: string, schema: string, name: string, urn: string, definition: string, columns: Column[]) {
    const urnOf = (ref: {schema?: string; table: string}) => (dialect.twoTier ? datasetUrn(ref.schema ?? db, '', ref.table) : datasetUrn(db, ref.schema ?? schema, ref.table))
    const view = {db, schema, name, urn, columns}
    try {
      const select = dialect.viewSelect ? dialect.viewSelect(definition) : definition
      return {...view, lineage: viewLineage(select, dialect.parserDialect, urnOf)}
    } catch (e) {
      const parseError = errorText(e)
      if (!session.viewUpstreams) return {...view, parseError}
      try {
        const upstreams = [...new Set((await session.viewUpstreams(schema, name)).map(urnOf))]
        return {...view, parseError, lineage: {upstreams, columns: new Map()}}
      } catch (e2) {
        report.warning('view dependencies', `${datasetName(db, schema, name)}: ${(e2 as Error).message.split('\n')[0]}`)
        return {...view, parseError}
      }
    }
  }
}

/** `datasetProfile` of one table, from bounded queries run in the database. */
async function profileTable(
  session: DatabaseSession,
  dialect: SqlDialect,
  p: SettledProfiling,
  schema: string,
  table: string,
  columns: Column[],
  name: string,
  ctx: PluginContext,
  report: Report,
  profileOk: (n: string) => boolean,
): Promise<Record<string, unknown> | undefined> {
  const q = session.quote
  const whole = dialect.twoTier ? `${q(table)}` : `${q(schema)}.${q(table)}`
  // profiling.limit / offset: the columns are profiled on those rows only, the row count is the
  // whole table's (DataHub counts the table itself, and its null counts are taken against that
  // count too). A limit of 0 is none, as in DataHub. The largest BIGINT stands for "no limit"
  // where only an offset is given: MySQL has no OFFSET without LIMIT.
  const limited = Boolean(p.limit) || Boolean(p.offset)
  const from = limited ? `(SELECT * FROM ${whole} LIMIT ${p.limit || '9223372036854775807'} OFFSET ${p.offset ?? 0}) AS ${q('profiled_rows')}` : whole
  const budget = p.max_seconds_per_table * 1000
  try {
    const estimate = await session.estimatedRows(schema, table)
    if (p.profile_table_row_limit !== undefined && estimate !== undefined && estimate > p.profile_table_row_limit && !p.profile_table_row_count_estimate_only) {
      report.warning('profiling skipped', `${name}: about ${estimate} rows, over profiling.profile_table_row_limit ${p.profile_table_row_limit}`)
      return undefined
    }
    const rowCount = p.profile_table_row_count_estimate_only ? Math.max(0, estimate ?? 0) : Number((await session.query(`SELECT COUNT(*) AS n FROM ${whole}`, budget))[0]!.n)
    // Nulls are counted among the rows profiled: against the whole table's count, a limit made
    // every row left out a null (DataHub's profiler does that; the figure would mislead).
    const rowsProfiled = limited && !p.profile_table_row_count_estimate_only ? Number((await session.query(`SELECT COUNT(*) AS n FROM ${from}`, budget))[0]!.n) : rowCount
    const fieldsWanted = p.include_field_null_count || p.include_field_distinct_count || p.include_field_min_value || p.include_field_max_value || p.include_field_mean_value || p.include_field_median_value || p.include_field_stddev_value || p.include_field_sample_values
    const profiled = p.profile_table_level_only || !fieldsWanted ? [] : columns.filter((c) => !UNPROFILED_CLASS.test(c.typeClass) && profileOk(`${name}.${c.name}`)).slice(0, p.max_number_of_fields_to_profile ?? Infinity)
    const fieldProfiles: Array<Record<string, unknown>> = []
    if (!p.profile_table_level_only) {
      for (const c of columns) {
        if (!profiled.includes(c)) {
          fieldProfiles.push({fieldPath: c.name})
          continue
        }
        const col = q(c.name)
        const [counts] = await session.query(`SELECT COUNT(${col}) AS nn, COUNT(DISTINCT ${col}) AS u FROM ${from}`, budget)
        const nonNull = Number(counts!.nn)
        const unique = Number(counts!.u)
        const nulls = Math.max(0, rowsProfiled - nonNull)
        const fp: Record<string, unknown> = {fieldPath: c.name}
        if (p.include_field_distinct_count) fp.uniqueCount = unique
        if (p.include_field_distinct_count && nonNull > 0) fp.uniqueProportion = Math.min(1, unique / nonNull)
        if (p.include_field_null_count) {
          fp.nullCount = nulls
          if (rowsProfiled > 0) fp.nullProportion = Math.min(1, nulls / rowsProfiled)
        }
        if (rowCount > 0 && nonNull > 0) {
          const numeric = NUMERIC_CLASS.test(c.typeClass)
          const temporal = TEMPORAL_CLASS.test(c.typeClass)
          if (numeric || temporal) {
            const exprs: string[] = []
            if (p.include_field_min_value) exprs.push(`MIN(${col}) AS mn`)
            if (p.include_field_max_value) exprs.push(`MAX(${col}) AS mx`)
            const dbl = (e: string) => (dialect.asDouble ? dialect.asDouble(e) : e)
            if (numeric && p.include_field_mean_value) exprs.push(`${dbl(`AVG(${col})`)} AS mean`)
            if (numeric && p.include_field_stddev_value) exprs.push(`${dbl(`STDDEV_SAMP(${col})`)} AS sd`)
            if (exprs.length) {
              const [s] = await session.query(`SELECT ${exprs.join(', ')} FROM ${from}`, budget)
              if (s!.mn !== undefined && s!.mn !== null) fp.min = pyStr(s!.mn, c.typeClass)
              if (s!.mx !== undefined && s!.mx !== null) fp.max = pyStr(s!.mx, c.typeClass)
              if (s!.mean !== undefined && s!.mean !== null) fp.mean = pyFloat(Number(s!.mean))
              if (numeric && p.include_field_median_value) {
                // The middle value (or the mean of the two middle ones), as Great Expectations computes it.
                const middle = await session.query(`SELECT ${col} AS v FROM ${from} WHERE ${col} IS NOT NULL ORDER BY ${col} LIMIT ${nonNull % 2 === 0 ? 2 : 1} OFFSET ${Math.floor((nonNull - 1) / 2)}`, budget)
                if (middle.length === 1) fp.median = pyStr(middle[0]!.v, c.typeClass)
                else if (middle.length === 2) fp.median = pyFloat((Number(middle[0]!.v) + Number(middle[1]!.v)) / 2)
              }
              // A float in Python, so `1.0`, never `1`.
              if (s!.sd !== undefined && s!.sd !== null) fp.stdev = pyFloat(Number(s!.sd))
            }
          }
          const card = cardinality(unique, unique / nonNull)
          // DataHub's profiler lists the values of a numeric column up to VERY_FEW of them (from FEW
          // on, quantiles and a histogram describe it instead); of any other column, up to FEW.
          const listed = NUMERIC_CLASS.test(c.typeClass) ? ['ONE', 'TWO', 'VERY_FEW'] : ['ONE', 'TWO', 'VERY_FEW', 'FEW']
          if (p.include_field_distinct_value_frequencies && listed.includes(card)) {
            const rows = await session.query(`SELECT ${col} AS v, COUNT(*) AS f FROM ${from} WHERE ${col} IS NOT NULL GROUP BY ${col} ORDER BY ${col}`, budget)
            fp.distinctValueFrequencies = rows.map((r) => ({value: pyStr(r.v, c.typeClass), frequency: Number(r.f)}))
          }
          if (p.include_field_sample_values && p.field_sample_values_limit > 0) {
            const rows = await session.query(`SELECT ${col} AS v FROM ${from} WHERE ${col} IS NOT NULL LIMIT ${p.field_sample_values_limit}`, budget)
            fp.sampleValues = rows.map((r) => pyStr(r.v, c.typeClass))
          }
        }
        fieldProfiles.push(fp)
      }
    }
    const size = session.sizeInBytes ? await session.sizeInBytes(schema, table) : undefined
    return {
      timestampMillis: ctx.now(),
      // Python's json.dumps of DataHub's {limit, offset}, with an offset not given as null.
      partitionSpec: p.limit ? {partition: `{"limit": ${p.limit}, "offset": ${p.offset ?? 'null'}}`, type: 'QUERY'} : FULL_TABLE,
      rowCount,
      columnCount: columns.length,
      fieldProfiles,
      ...(size !== undefined ? {sizeInBytes: size} : {}),
    }
  } catch (e) {
    report.warning('profiling failed', `${name}: ${(e as Error).message.split('\n')[0]}`)
    return undefined
  }
}

/** `host:port` → its parts, with the dialect's default port. */
/**
 * A SQL source's config with `sqlalchemy_uri` taken apart into `host_port`, `username`,
 * `password` and `database` (the URI wins over the keys it names), after checking what this
 * source cannot honour: a scheme of another dialect, `incremental_lineage: true`. Errors name the
 * key and never print the URI (it may hold a password).
 */
export function connectionOf<C extends {host_port?: string; sqlalchemy_uri?: string; scheme?: string; username?: string; password?: string; database?: string; incremental_lineage?: boolean}>(config: C, dialect: 'postgresql' | 'mysql', defaultPort: number): C & {host_port: string} {
  if (config.incremental_lineage === true) throw new ConfigError('source.config.incremental_lineage: true is not supported by this source (lineage is written whole, as with false)')
  const ofDialect = (scheme: string) => scheme === dialect || scheme.startsWith(`${dialect}+`) || (dialect === 'mysql' && (scheme === 'mariadb' || scheme.startsWith('mariadb+')))
  if (config.scheme !== undefined && !ofDialect(config.scheme)) throw new ConfigError(`source.config.scheme: '${config.scheme}' is not a ${dialect} scheme (e.g. ${dialect}+${dialect === 'mysql' ? 'pymysql' : 'psycopg2'})`)
  if (config.sqlalchemy_uri === undefined) {
    if (config.host_port === undefined) throw new ConfigError("source.config: needs 'host_port' (or 'sqlalchemy_uri')")
    return config as C & {host_port: string}
  }
  const m = /^([a-z0-9+]+):\/\//i.exec(config.sqlalchemy_uri)
  if (!m || !ofDialect(m[1]!.toLowerCase())) throw new ConfigError(`source.config.sqlalchemy_uri: must be a ${dialect} URI such as ${dialect}+${dialect === 'mysql' ? 'pymysql' : 'psycopg2'}://user:password@host:port/database`)
  let u: URL
  try {
    u = new URL(`http://${config.sqlalchemy_uri.slice(m[0].length)}`)
  } catch {
    throw new ConfigError(`source.config.sqlalchemy_uri: not a valid URI (expected ${dialect}://user:password@host:port/database)`)
  }
  if (!u.hostname) throw new ConfigError('source.config.sqlalchemy_uri: names no host')
  const database = decodeURIComponent(u.pathname.slice(1))
  return {
    ...config,
    host_port: `${u.hostname}:${u.port || defaultPort}`,
    username: decodeURIComponent(u.username) || config.username,
    password: u.password ? decodeURIComponent(u.password) : config.password,
    database: database || config.database,
  }
}

export function hostPort(value: string, defaultPort: number): {host: string; port: number} {
  const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(value.trim())
  return {host: m?.[1] ?? value, port: m?.[2] ? Number(m[2]) : defaultPort}
}
