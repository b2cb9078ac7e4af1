/**
 * Source `sql-queries`: a file of queries a warehouse ran (JSON lines, DataHub's format) → query
 * entities, table- and column-level lineage, usage statistics and operations, as DataHub's
 * `sql-queries` source makes them with its SQL parsing aggregator.
 *
 * Each line: `query` (required), `timestamp` (epoch seconds, or a date text), `user`,
 * `session_id`, and `upstream_tables` + `downstream_tables` (lineage stated rather than parsed,
 * used when both are given). A line that is not such an object is a warning naming the line, and
 * skipped, as DataHub does; a file none of whose lines can be read fails the run.
 *
 * The SQL goes through the parser and resolver in `plugins/sql-common` (the one the database
 * sources use for view lineage and the BI sources for chart lineage).
 */
import {createReadStream, statSync} from 'node:fs'
import {createInterface} from 'node:readline'
import {ConfigError, configSchema, FileError, makeDatasetUrnWithPlatformInstance, makeUserUrn, type ConfigOf, type PluginContext, type Source, type SourcePlugin, type WorkUnit, envOf} from '../../src/sdk/index.js'
import {QueryAggregator, type UsageConfig} from '../sql-common/aggregator.js'

const USAGE_SCHEMA = {
  type: 'object',
  properties: {
    bucket_duration: {type: 'string', enum: ['DAY', 'HOUR'], default: 'DAY'},
    // YAML reads an unquoted date as a date, so any form is taken and read below.
    start_time: {},
    end_time: {},
    top_n_queries: {type: 'integer', exclusiveMinimum: 0, default: 10},
    include_top_n_queries: {type: 'boolean', default: true},
    queries_character_limit: {type: 'integer', minimum: 1, default: 24000},
    user_email_pattern: {type: 'object'},
    include_operational_stats: {type: 'boolean', default: true},
    include_read_operational_stats: {type: 'boolean', default: false},
    format_sql_queries: {type: 'boolean', default: false},
    apply_view_usage_to_tables: {type: 'boolean', default: false},
  },
  additionalProperties: false,
  default: {},
} as const

const CONFIG = configSchema({
  type: 'object',
  properties: {
    query_file: {type: 'string', minLength: 1},
    platform: {type: 'string', minLength: 1},
    platform_instance: {type: 'string', minLength: 1},
    env: {type: 'string', default: 'PROD'},
    usage: USAGE_SCHEMA,
    use_schema_resolver: {type: 'boolean', default: true},
    default_db: {type: 'string', minLength: 1},
    default_schema: {type: 'string', minLength: 1},
    override_dialect: {type: 'string', minLength: 1},
    temp_table_patterns: {type: 'array', items: {type: 'string'}, default: []},
    incremental_lineage: {type: 'boolean', default: false},
  },
  required: ['query_file', 'platform'],
  additionalProperties: false,
} as const)
export type SqlQueriesConfig = ConfigOf<typeof CONFIG>

/** A time from the config: a date (YAML), epoch seconds, or an ISO text. */
function timeOf(v: unknown, key: string): number | undefined {
  if (v === undefined || v === null) return undefined
  if (v instanceof Date) return v.getTime()
  if (typeof v === 'number') return v * 1000
  if (typeof v === 'string') {
    const ms = Date.parse(v)
    if (!Number.isNaN(ms)) return ms
  }
  throw new ConfigError(`usage.${key}: not a date or time: ${JSON.stringify(v)}`)
}

/** DataHub's usage window: by default the last full bucket before now up to now. */
export function usageConfig(u: SqlQueriesConfig['usage'], now: number): UsageConfig {
  const duration = u.bucket_duration as 'DAY' | 'HOUR'
  const end = timeOf(u.end_time, 'end_time') ?? now
  const size = duration === 'HOUR' ? 3_600_000 : 86_400_000
  const start = timeOf(u.start_time, 'start_time') ?? Math.floor((end - size) / size) * size
  if (start > end) throw new ConfigError('usage.start_time is after usage.end_time')
  return {bucket_duration: duration, startTime: start, endTime: end, top_n_queries: u.top_n_queries, include_top_n_queries: u.include_top_n_queries, queries_character_limit: u.queries_character_limit}
}

/** A top-level column of a schemaMetadata field path (v2 paths carry `[version=2.0].[type=…].` parts). */
function fieldName(path: string): string {
  return path
    .split('.')
    .filter((p) => !p.startsWith('['))
    .join('.')
}

/** A `timestamp` of a line: epoch seconds (DataHub's format) or a date text. */
function lineTime(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v === 'number' && Number.isFinite(v)) return Math.round(v * 1000)
  if (typeof v === 'string') {
    if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000)
    const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v.replace(' ', 'T')}Z`)
    if (!Number.isNaN(ms)) return ms
  }
  throw new Error(`timestamp is not a time: ${JSON.stringify(v)}`)
}

function tableList(v: unknown, key: string): string[] {
  if (v === undefined || v === null) return []
  // A bare string would fan out into one table per character.
  if (!Array.isArray(v)) throw new Error(`${key} must be a list of table names, not ${JSON.stringify(v)}`)
  return v.filter((t): t is string => typeof t === 'string' && t.trim() !== '').map((t) => t.trim())
}

const plugin: SourcePlugin<SqlQueriesConfig> = {
  description: 'Reads a file of queries (JSON lines): query entities, table and column lineage, usage, operations.',
  // Queries only add lineage and usage to datasets other sources own.
  autoStatus: false,
  configSchema: CONFIG,
  create(config, ctx: PluginContext): Source {
    config.env = envOf(config.env)
    const report = ctx.report
    const file = ctx.resolvePath(config.query_file)
    if (/^s3:\/\//i.test(config.query_file)) throw new ConfigError('query_file: s3:// files are not read by mdcli; copy the file locally')
    // Checked before the run, as the file source checks its path: a file that is not there is one line, not a report.
    let stat
    try {
      stat = statSync(file)
    } catch (e) {
      throw new FileError(`query_file ${config.query_file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`)
    }
    if (stat.isDirectory()) throw new FileError(`query_file ${config.query_file}: is a directory, not a JSON-lines file`)
    const patterns = config.temp_table_patterns.map((p) => {
      try {
        return new RegExp(`^(?:${p})`, 'i')
      } catch (e) {
        throw new ConfigError(`temp_table_patterns: invalid regex '${p}': ${(e as Error).message}`)
      }
    })
    const usage = usageConfig(config.usage, ctx.now())
    if (config.override_dialect) report.info('override_dialect', `${config.override_dialect}: mdcli parses with ${config.platform}'s grammar, then PostgreSQL's and MySQL's`)
    const aggregator = new QueryAggregator({
      platform: config.platform,
      platformInstance: config.platform_instance,
      env: config.env,
      usage,
      incrementalLineage: config.incremental_lineage,
      isTempTable: patterns.length ? (name) => patterns.some((p) => p.test(name)) : undefined,
    })
    const urn = (t: string) => makeDatasetUrnWithPlatformInstance(config.platform, t, config.platform_instance, config.env)
    // use_schema_resolver: the columns of the tables a query reads, from the server's
    // schemaMetadata (DataHub's lazy schema resolver), so `SELECT *` expands; read once per table.
    const columnsByUrn = new Map<string, string[] | undefined>()
    let lookups = 0
    // Asked once; without a server (a file sink and no datahub_api) nothing is looked up.
    let serverPromise: ReturnType<PluginContext['graph']> | undefined
    const serverOf = () => (serverPromise ??= config.use_schema_resolver ? ctx.graph() : Promise.resolve(undefined))
    const knownColumns = async (tables: string[]): Promise<Map<string, string[]> | undefined> => {
      const graph = await serverOf()
      if (!graph || !tables.length) return undefined
      const out = new Map<string, string[]>()
      for (const t of tables) {
        const u = aggregatorUrn(t)
        if (!columnsByUrn.has(u)) {
          lookups++
          let cols: string[] | undefined
          try {
            const {aspect} = await graph.getAspect(u, 'schemaMetadata')
            const fields = (aspect as {fields?: Array<{fieldPath?: unknown}>}).fields ?? (aspect as any)?.['com.linkedin.schema.SchemaMetadata']?.fields ?? []
            cols = fields.map((f: {fieldPath?: unknown}) => fieldName(String(f.fieldPath ?? ''))).filter((c: string) => c && !c.includes('.'))
          } catch {
            cols = undefined // not known to the server: the query's own columns are used
          }
          columnsByUrn.set(u, cols?.length ? cols : undefined)
        }
        const cols = columnsByUrn.get(u)
        if (cols) out.set(t, cols)
      }
      return out
    }
    const aggregatorUrn = (t: string) => aggregator.datasetUrn(t)
    let bytes = 0
    let size = 0
    return {
      report,
      progress: () => (size ? Math.min(1, bytes / size) : undefined),
      async *workunits(): AsyncGenerator<WorkUnit> {
        let stream
        try {
          const {statSync} = await import('node:fs')
          size = statSync(file).size
          stream = createReadStream(file, {encoding: 'utf8'})
        } catch (e) {
          throw new FileError(`query_file ${config.query_file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`)
        }
        const lines = createInterface({input: stream, crlfDelay: Infinity})
        let lineNo = 0
        let entries = 0
        let failed = 0
        try {
          for await (const raw of lines) {
            lineNo++
            bytes += Buffer.byteLength(raw, 'utf8') + 1
            if (ctx.signal?.aborted) throw new Error('stopped by the user')
            const line = raw.trim()
            if (!line) continue
            let entry
            try {
              const o = JSON.parse(line) as Record<string, unknown>
              if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error('not a JSON object')
              if (typeof o.query !== 'string') throw new Error('"query" is missing or not a string')
              const user = typeof o.user === 'string' && o.user.trim() ? makeUserUrn(o.user.trim()) : undefined
              entry = {
                query: o.query,
                timestamp: lineTime(o.timestamp),
                user,
                sessionId: typeof o.session_id === 'string' ? o.session_id : o.session_id !== undefined && o.session_id !== null ? String(o.session_id) : undefined,
                upstreams: tableList(o.upstream_tables, 'upstream_tables').map(urn),
                downstreams: tableList(o.downstream_tables, 'downstream_tables').map(urn),
              }
            } catch (e) {
              failed++
              report.warning('Error processing query entry', `${config.query_file} line ${lineNo}: ${(e as Error).message.split('\n')[0]} — skipped`)
              continue
            }
            entries++
            if (entry.upstreams.length && entry.downstreams.length) {
              for (const downstream of entry.downstreams) aggregator.addKnown({query: entry.query, downstream, upstreams: entry.upstreams, timestamp: entry.timestamp, sessionId: entry.sessionId})
            } else {
              const observed = {query: entry.query, timestamp: entry.timestamp, user: entry.user, sessionId: entry.sessionId, defaultDb: config.default_db, defaultSchema: config.default_schema}
              aggregator.addObserved(observed, (await serverOf()) ? await knownColumns(aggregator.tablesRead(observed)) : undefined)
            }
          }
        } catch (e) {
          if (e instanceof FileError) throw e
          if ((e as Error).message === 'stopped by the user') throw e
          throw new FileError(`query_file ${config.query_file}: ${(e as Error).message}`)
        } finally {
          lines.close()
          stream.destroy()
        }
        report.info('num_entries_processed', entries)
        report.info('num_entries_failed', failed)
        report.info('num_queries_parse_failures', aggregator.report.failed)
        if (lookups) report.info('schema_lookups', lookups)
        for (const f of aggregator.report.failures) report.warning('query not parsed', f)
        if (entries === 0 && failed > 0) report.failure('All entries failed to parse', `every line of ${config.query_file} failed to parse (expected JSON lines with a "query")`)
        else if (entries === 0) report.warning('Empty input', `no query entries in ${config.query_file}`)
        const now = ctx.now()
        for (const wu of aggregator.workunits(now)) {
          const aspect = wu.proposals[0]?.aspectName ?? 'records'
          if (aspect !== 'querySubjects' && aspect !== 'dataPlatformInstance') report.count(aspect === 'queryProperties' ? 'queries' : aspect)
          yield wu
        }
      },
    }
  },
}

export default plugin
