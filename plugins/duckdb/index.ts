/**
 * Source `duckdb`: a local DuckDB warehouse file. DataHub has no DuckDB source, so this one
 * follows its PostgreSQL source (three tiers): platform `duckdb`, a database container named
 * after DuckDB's catalog (the file name without extension), a container per schema, and datasets
 * `urn:li:dataset:(urn:li:dataPlatform:duckdb,<database>.<schema>.<table>,<ENV>)` with
 * `schemaMetadata` (types, keys, nullability, comments, foreign keys), view definitions and view
 * lineage parsed from the view's SQL, and `datasetProfile` when profiling is on.
 *
 * The file is opened read-only, so a warehouse in use by another process is never changed.
 * Profiling runs in the database, one bounded query per table, with a time budget per table.
 */
import {existsSync} from 'node:fs'
import {basename} from 'node:path'
import {ALLOW_DENY_SCHEMA, allowDeny, ConfigError, ConnectionError, containerUrn, mcp, type AllowDeny, type PluginContext, type ProposalInput, type Source, type SourcePlugin, type WorkUnit, configSchema, type ConfigOf} from '../../src/sdk/index.js'
import {foreignKeyAspect, schemaMetadataAspect} from '../sql-common/index.js'
import {errorText, viewLineage, viewLineageAspect, type ViewLineage} from '../sql-common/lineage.js'

export type DuckdbConfig = ConfigOf<typeof CONFIG>

const PLATFORM = 'duckdb'
// DuckDB marks `main` internal although user tables live there; these two are the catalog's own.
const SYSTEM_SCHEMAS = new Set(['information_schema', 'pg_catalog'])

/** DuckDB type names → DataHub schema field types. */
export function duckdbFieldType(dataType: string): string {
  const t = dataType.toUpperCase()
  if (t.endsWith('[]') || t.startsWith('LIST') || /\[\d+\]$/.test(t)) return 'ArrayType'
  if (t.startsWith('STRUCT')) return 'RecordType'
  if (t.startsWith('MAP')) return 'MapType'
  if (t.startsWith('UNION')) return 'UnionType'
  if (t.startsWith('ENUM')) return 'EnumType'
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|REAL|DECIMAL|NUMERIC)/.test(t)) return 'NumberType'
  if (t === 'BOOLEAN') return 'BooleanType'
  if (t === 'DATE') return 'DateType'
  if (/^(TIME|TIMESTAMP|INTERVAL)/.test(t)) return 'TimeType'
  if (/^(VARCHAR|CHAR|TEXT|STRING|UUID|JSON|BIT)/.test(t)) return 'StringType'
  if (t === 'BLOB' || t === 'BYTEA') return 'BytesType'
  return 'NullType'
}

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|REAL|DECIMAL|NUMERIC)/i
const TEMPORAL = /^(DATE|TIME|TIMESTAMP)/i

/** The SELECT of a view as `duckdb_views().sql` renders it: `CREATE VIEW <name> [(<columns>)] AS <select>;`. */
export function duckdbViewSelect(sql: string): string {
  // Names may be quoted, with spaces or doubled quotes inside (`"my view"`, `"a""b"`).
  const name = String.raw`(?:"(?:[^"]|"")*"|[^\s".(]+)`
  const head = new RegExp(String.raw`^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?VIEW\s+${name}(?:\s*\.\s*${name})*\s*(?:\((?:"(?:[^"]|"")*"|[^"()])*\)\s*)?AS\s+`, 'i')
  return sql.replace(head, '')
}

const quoteIdent = (s: string): string => `"${s.replaceAll('"', '""')}"`
const str = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : typeof v === 'bigint' ? v.toString() : String(v))

interface Column {
  name: string
  type: string
  nullable: boolean
  comment?: string
}

interface Relation {
  schema: string
  name: string
  kind: 'table' | 'view'
  comment?: string
  sql?: string
  estimatedRows?: number
}

const PROFILING_SCHEMA = {
  type: 'object',
  properties: {
    enabled: {type: 'boolean', default: false},
    profile_table_level_only: {type: 'boolean', default: false},
    include_field_null_count: {type: 'boolean', default: true},
    include_field_distinct_count: {type: 'boolean', default: true},
    include_field_min_value: {type: 'boolean', default: true},
    include_field_max_value: {type: 'boolean', default: true},
    include_field_mean_value: {type: 'boolean', default: true},
    include_field_median_value: {type: 'boolean', default: true},
    include_field_stddev_value: {type: 'boolean', default: true},
    include_field_sample_values: {type: 'boolean', default: true},
    field_sample_values_limit: {type: 'integer', minimum: 0, default: 20},
    max_number_of_fields_to_profile: {type: 'integer', minimum: 1},
    profile_pattern: ALLOW_DENY_SCHEMA,
    profile_table_row_limit: {type: 'integer', minimum: 1, default: 5_000_000},
    max_seconds_per_table: {type: 'number', exclusiveMinimum: 0, default: 30},
  },
  additionalProperties: false,
  default: {},
} as const

const CONFIG = configSchema({
  type: 'object',
  properties: {
    path: {type: 'string', minLength: 1},
    database_alias: {type: 'string', minLength: 1},
    env: {type: 'string', default: 'PROD'},
    platform_instance: {type: 'string', minLength: 1},
    schema_pattern: ALLOW_DENY_SCHEMA,
    table_pattern: ALLOW_DENY_SCHEMA,
    view_pattern: ALLOW_DENY_SCHEMA,
    // DataHub's place for it (SQLCommonConfig); `profiling.profile_pattern` is still read.
    profile_pattern: ALLOW_DENY_SCHEMA,
    include_tables: {type: 'boolean', default: true},
    include_views: {type: 'boolean', default: true},
    include_view_lineage: {type: 'boolean', default: true},
    domain: {type: 'object', additionalProperties: ALLOW_DENY_SCHEMA},
    profiling: PROFILING_SCHEMA,
  },
  required: ['path'],
  additionalProperties: false,
})

const plugin: SourcePlugin<DuckdbConfig> = {
  description: 'A DuckDB warehouse file: schemas, tables, views, view lineage and profiles.',
  platform: PLATFORM,
  configSchema: CONFIG,
  async create(config, ctx: PluginContext): Promise<Source> {
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
    const conn = await instance.connect()
    const report = ctx.report
    const env = config.env.toUpperCase()
    const catalog = config.database_alias ?? basename(path).replace(/\.[^.]*$/, '')
    const query = async (sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> =>
      (await conn.runAndReadAll(sql, params as never)).getRowObjects() as Record<string, unknown>[]
    const dbCatalog = String((await query('SELECT current_database() AS db'))[0]!.db)
    const schemaOk = allowDeny(config.schema_pattern)
    const tableOk = allowDeny(config.table_pattern)
    const viewOk = allowDeny(config.view_pattern ?? config.table_pattern)
    const profileOk = allowDeny(config.profile_pattern ?? config.profiling.profile_pattern)
    const domains = Object.entries(config.domain ?? {}).map(([urn, p]) => ({urn: urn.startsWith('urn:li:domain:') ? urn : `urn:li:domain:${urn}`, ok: allowDeny(p)}))
    const instanceUrn = config.platform_instance ? `urn:li:dataPlatformInstance:(urn:li:dataPlatform:${PLATFORM},${config.platform_instance})` : undefined
    const dbUrn = containerUrn({platform: PLATFORM, instance: config.platform_instance, env, database: catalog}, {envAsInstance: true})
    const schemaUrn = (schema: string) => containerUrn({platform: PLATFORM, instance: config.platform_instance, env, database: catalog, schema}, {envAsInstance: true})
    const datasetName = (schema: string, table: string) => `${config.platform_instance ? `${config.platform_instance}.` : ''}${catalog}.${schema}.${table}`
    const datasetUrn = (schema: string, table: string) => `urn:li:dataset:(urn:li:dataPlatform:${PLATFORM},${datasetName(schema, table)},${env})`
    const platformInstance = () => (instanceUrn ? {platform: `urn:li:dataPlatform:${PLATFORM}`, instance: instanceUrn} : {platform: `urn:li:dataPlatform:${PLATFORM}`})
    const pathPrefix = instanceUrn ? [{id: instanceUrn, urn: instanceUrn}] : []
    const domainOf = (name: string): string | undefined => domains.filter((d) => d.ok(name)).pop()?.urn

    function containerProposals(urn: string, name: string, subType: string, parent: string | undefined, props: Record<string, string>, domainName: string): ProposalInput[] {
      const domain = domainOf(domainName)
      return [
        mcp(urn, 'containerProperties', {customProperties: {platform: PLATFORM, ...(config.platform_instance ? {instance: config.platform_instance} : {}), env, ...props}, name}),
        mcp(urn, 'status', {removed: false}),
        mcp(urn, 'dataPlatformInstance', platformInstance()),
        mcp(urn, 'subTypes', {typeNames: [subType]}),
        ...(domain ? [mcp(urn, 'domains', {domains: [domain]})] : []),
        ...(parent ? [mcp(urn, 'container', {container: parent})] : []),
        mcp(urn, 'browsePathsV2', {path: [...pathPrefix, ...(parent ? [{id: parent, urn: parent}] : [])]}),
      ]
    }

    async function columnsOf(schema: string, name: string): Promise<Column[]> {
      const rows = await query('SELECT column_name, data_type, is_nullable, comment FROM duckdb_columns() WHERE database_name = ? AND schema_name = ? AND table_name = ? ORDER BY column_index', [dbCatalog, schema, name])
      return rows.map((r) => ({name: String(r.column_name), type: String(r.data_type), nullable: r.is_nullable !== false, comment: str(r.comment) || undefined}))
    }

    async function constraintsOf(schema: string, name: string): Promise<{primaryKey: string[]; foreignKeys: Array<Record<string, unknown>>}> {
      const rows = await query(
        "SELECT constraint_type, constraint_name, constraint_column_names, referenced_table, referenced_column_names FROM duckdb_constraints() WHERE database_name = ? AND schema_name = ? AND table_name = ? AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')",
        [dbCatalog, schema, name],
      )
      const list = (v: unknown): string[] => ((v as {items?: unknown[]})?.items ?? []).map(String)
      const primaryKey = rows.filter((r) => r.constraint_type === 'PRIMARY KEY').flatMap((r) => list(r.constraint_column_names))
      const self = datasetUrn(schema, name)
      const foreignKeys = rows
        .filter((r) => r.constraint_type === 'FOREIGN KEY')
        .map((r) => foreignKeyAspect(String(r.constraint_name), self, list(r.constraint_column_names), datasetUrn(schema, String(r.referenced_table)), list(r.referenced_column_names)))
      return {primaryKey, foreignKeys}
    }

    function schemaMetadata(schema: string, name: string, columns: Column[], primaryKey: string[], foreignKeys: Array<Record<string, unknown>>) {
      return schemaMetadataAspect(`${catalog}.${schema}.${name}`, PLATFORM, columns.map((c) => ({...c, fieldType: duckdbFieldType(c.type), nativeDataType: c.type})), primaryKey, foreignKeys)
    }

    async function profile(schema: string, rel: Relation, columns: Column[]): Promise<Record<string, unknown> | undefined> {
      const p = config.profiling
      const table = `${quoteIdent(schema)}.${quoteIdent(rel.name)}`
      if ((rel.estimatedRows ?? 0) > p.profile_table_row_limit) {
        report.warning('profiling skipped', `${datasetName(schema, rel.name)}: about ${rel.estimatedRows} rows, over profile_table_row_limit ${p.profile_table_row_limit}`)
        return undefined
      }
      const name = datasetName(schema, rel.name)
      const profiled = p.profile_table_level_only ? [] : columns.filter((c) => profileOk(`${name}.${c.name}`) && !/^(STRUCT|MAP|UNION)/i.test(c.type) && !/\[\]$/.test(c.type)).slice(0, p.max_number_of_fields_to_profile ?? Infinity)
      const exprs = ['COUNT(*) AS "rows"']
      profiled.forEach((c, i) => {
        const col = quoteIdent(c.name)
        exprs.push(`COUNT(${col}) AS "nn${i}"`)
        if (p.include_field_distinct_count) exprs.push(`COUNT(DISTINCT ${col}) AS "u${i}"`)
        if (NUMERIC.test(c.type) || TEMPORAL.test(c.type)) {
          if (p.include_field_min_value) exprs.push(`CAST(MIN(${col}) AS VARCHAR) AS "min${i}"`)
          if (p.include_field_max_value) exprs.push(`CAST(MAX(${col}) AS VARCHAR) AS "max${i}"`)
        }
        if (NUMERIC.test(c.type)) {
          if (p.include_field_mean_value) exprs.push(`CAST(AVG(${col}) AS VARCHAR) AS "mean${i}"`)
          if (p.include_field_median_value) exprs.push(`CAST(MEDIAN(${col}) AS VARCHAR) AS "med${i}"`)
          if (p.include_field_stddev_value) exprs.push(`CAST(STDDEV_SAMP(${col}) AS VARCHAR) AS "sd${i}"`)
        }
      })
      // A time budget per table: a huge or slow table is interrupted and reported, never stalls the run.
      let timer: NodeJS.Timeout | undefined
      const budget = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          conn.interrupt()
          reject(new Error(`took longer than ${p.max_seconds_per_table} s (profiling.max_seconds_per_table)`))
        }, p.max_seconds_per_table * 1000)
      })
      try {
        const [row] = await Promise.race([query(`SELECT ${exprs.join(', ')} FROM ${table}`), budget])
        const rows = Number(row!.rows)
        const samples = new Map<string, string[]>()
        if (p.include_field_sample_values && p.field_sample_values_limit > 0 && rows > 0 && profiled.length) {
          const sampleRows = await Promise.race([query(`SELECT ${profiled.map((c) => `CAST(${quoteIdent(c.name)} AS VARCHAR) AS ${quoteIdent(c.name)}`).join(', ')} FROM ${table} LIMIT ${p.field_sample_values_limit}`), budget])
          for (const c of profiled) samples.set(c.name, sampleRows.map((r) => r[c.name]).filter((v) => v !== null && v !== undefined).map(String))
        }
        const fieldProfiles = p.profile_table_level_only
          ? []
          : columns.map((c) => {
              const i = profiled.indexOf(c)
              if (i < 0) return {fieldPath: c.name}
              const nonNull = Number(row![`nn${i}`])
              const unique = row![`u${i}`] === undefined ? undefined : Number(row![`u${i}`])
              const nulls = Math.max(0, rows - nonNull)
              const fp: Record<string, unknown> = {fieldPath: c.name}
              if (unique !== undefined) fp.uniqueCount = unique
              if (unique !== undefined && nonNull > 0) fp.uniqueProportion = Math.min(1, unique / nonNull)
              if (p.include_field_null_count) {
                fp.nullCount = nulls
                if (rows > 0) fp.nullProportion = Math.min(1, nulls / rows)
              }
              if (rows === 0) return fp
              for (const [key, alias] of [['min', 'min'], ['max', 'max'], ['mean', 'mean'], ['median', 'med'], ['stdev', 'sd']] as const) {
                const v = str(row![`${alias}${i}`])
                if (v !== undefined) fp[key] = v
              }
              const s = samples.get(c.name)
              if (s?.length) fp.sampleValues = s
              return fp
            })
        return {timestampMillis: ctx.now(), partitionSpec: {type: 'FULL_TABLE', partition: 'FULL_TABLE_SNAPSHOT'}, rowCount: rows, columnCount: columns.length, fieldProfiles}
      } catch (e) {
        report.warning('profiling failed', `${name}: ${(e as Error).message.split('\n')[0]}`)
        return undefined
      } finally {
        clearTimeout(timer)
      }
    }

    async function* workunits(): AsyncGenerator<WorkUnit> {
      yield {id: `container-${dbUrn}`, kind: 'mcp', proposals: containerProposals(dbUrn, catalog, 'Database', undefined, {database: catalog}, catalog)}
      const schemas = (await query('SELECT schema_name FROM duckdb_schemas() WHERE database_name = ? ORDER BY schema_name', [dbCatalog])).map((r) => String(r.schema_name))
      const profiles: Array<{urn: string; schema: string; rel: Relation; columns: Column[]}> = []
      const views: Array<{urn: string; schema: string; name: string; sql: string; columns: Column[]}> = []
      for (const schema of schemas) {
        if (SYSTEM_SCHEMAS.has(schema) || !schemaOk(schema)) continue
        const sUrn = schemaUrn(schema)
        yield {id: `container-${sUrn}`, kind: 'mcp', proposals: containerProposals(sUrn, schema, 'Schema', dbUrn, {database: catalog, schema}, `${catalog}.${schema}`)}
        const relations: Relation[] = []
        if (config.include_tables) {
          for (const r of await query('SELECT table_name, comment, estimated_size FROM duckdb_tables() WHERE database_name = ? AND schema_name = ? AND NOT internal ORDER BY table_name', [dbCatalog, schema])) {
            relations.push({schema, name: String(r.table_name), kind: 'table', comment: str(r.comment) || undefined, estimatedRows: Number(r.estimated_size ?? 0)})
          }
        }
        if (config.include_views) {
          for (const r of await query('SELECT view_name, comment, sql FROM duckdb_views() WHERE database_name = ? AND schema_name = ? AND NOT internal ORDER BY view_name', [dbCatalog, schema])) {
            relations.push({schema, name: String(r.view_name), kind: 'view', comment: str(r.comment) || undefined, sql: str(r.sql)})
          }
        }
        for (const rel of relations) {
          const name = `${catalog}.${schema}.${rel.name}`
          if (!(rel.kind === 'table' ? tableOk(name) : viewOk(name))) {
            report.count(rel.kind === 'table' ? 'tablesFiltered' : 'viewsFiltered')
            continue
          }
          const urn = datasetUrn(schema, rel.name)
          try {
            const columns = await columnsOf(schema, rel.name)
            const {primaryKey, foreignKeys} = rel.kind === 'table' ? await constraintsOf(schema, rel.name) : {primaryKey: [], foreignKeys: []}
            const domain = domainOf(name)
            const proposals: ProposalInput[] = [
              mcp(urn, 'container', {container: sUrn}),
              mcp(urn, 'status', {removed: false}),
              mcp(urn, 'datasetProperties', {
                name: rel.name,
                ...(rel.comment ? {description: rel.comment} : {}),
                customProperties: rel.kind === 'view' ? {view_definition: rel.sql ?? '', is_view: 'True'} : {},
                tags: [],
              }),
              mcp(urn, 'schemaMetadata', schemaMetadata(schema, rel.name, columns, primaryKey, foreignKeys)),
              ...(instanceUrn ? [mcp(urn, 'dataPlatformInstance', platformInstance())] : []),
              mcp(urn, 'subTypes', {typeNames: [rel.kind === 'table' ? 'Table' : 'View']}),
              ...(rel.kind === 'view' ? [mcp(urn, 'viewProperties', {materialized: false, viewLogic: rel.sql ?? '', viewLanguage: 'SQL'})] : []),
              ...(domain ? [mcp(urn, 'domains', {domains: [domain]})] : []),
              mcp(urn, 'browsePathsV2', {path: [...pathPrefix, {id: dbUrn, urn: dbUrn}, {id: sUrn, urn: sUrn}]}),
            ]
            report.count(rel.kind === 'table' ? 'tablesScanned' : 'viewsScanned')
            yield {id: urn, kind: 'mcp', proposals}
            if (rel.kind === 'view' && rel.sql && config.include_view_lineage) views.push({urn, schema, name: rel.name, sql: rel.sql, columns})
            if (rel.kind === 'table' && config.profiling.enabled && profileOk(name)) profiles.push({urn, schema, rel, columns})
          } catch (e) {
            report.failure('table failed', `${name}: ${(e as Error).message.split('\n')[0]}`)
          }
        }
      }
      for (const p of profiles) {
        const value = await profile(p.schema, p.rel, p.columns)
        if (value) yield {id: `profile-${p.urn}`, kind: 'mcp', proposals: [mcp(p.urn, 'datasetProfile', value)]}
      }
      for (const v of views) {
        // One view whose SQL cannot be read costs its own lineage, never the run.
        let lineage: ViewLineage
        try {
          // DuckDB binds a view's unqualified names in the view's own schema.
          lineage = viewLineage(duckdbViewSelect(v.sql), 'postgresql', (ref) => datasetUrn(ref.schema ?? v.schema, ref.table))
        } catch (e) {
          report.warning('view lineage', `${datasetName(v.schema, v.name)}: the view's SQL could not be parsed: ${errorText(e)}`)
          continue
        }
        if (lineage.upstreams.length === 0) continue
        yield {
          id: `lineage-${v.urn}`,
          kind: 'mcp',
          proposals: [
            mcp(v.urn, 'upstreamLineage', viewLineageAspect(v.urn, lineage, v.columns, {order: (a, b) => a.localeCompare(b)})),
          ],
        }
      }
    }

    return {
      report,
      workunits,
      async close() {
        conn.closeSync()
        instance.closeSync()
      },
    }
  },
}

export default plugin
