/**
 * What BI-tool sources (Metabase, Mode, and the next: Tableau, Superset, Power BI) share, so a new
 * one is only its API client: the aspects DataHub's BI sources emit in the same shape (owners,
 * containers for collections/spaces, browse paths, chart/dashboard edges), the SQL → warehouse
 * tables step through the parser the SQL sources use for view lineage, timestamps read as
 * DataHub's `dateutil` reads them, and the source object (progress, report, closing the client on
 * Ctrl-C).
 *
 * Glossary:
 * - input table: a warehouse table a chart's SQL reads, named as the warehouse's own source
 *   names it (`<db>.<schema>.<table>` on the warehouse platform), so lineage joins up.
 * - snapshot unit: a work unit from an MCE (DashboardSnapshot, ChartSnapshot), unpacked into
 *   one proposal per aspect; the file sink writes them as proposals.
 */
import {containerUrn, type ContainerKey, type HttpClient, type HttpClientOptions, makeDatasetUrnWithPlatformInstance, makeSchemaFieldUrn, mcp, type PluginContext, type Report, type Source, type WorkUnit} from '../../src/sdk/index.js'
import {errorText} from '../sql-common/lineage.js'
import {statementLineage} from '../sql-common/statement.js'

export const UNKNOWN_ACTOR = 'urn:li:corpuser:unknown'

/**
 * The answer kept under `key`, asked the first time only: every caller of one key shares one
 * request, and the fallback its failure handler gave (so a missing user is one warning).
 */
export function askOnce<T>(answers: Map<string, Promise<T>>, key: string, ask: () => Promise<T>): Promise<T> {
  let p = answers.get(key)
  if (!p) {
    p = ask()
    answers.set(key, p)
  }
  return p
}

/**
 * `api_options` of every API source: DataHub's Mode names (`max_attempts`,
 * `retry_backoff_multiplier`, `max_retry_interval` in seconds) plus the first wait and a timeout.
 */
export const API_OPTIONS_SCHEMA = {
  type: 'object',
  properties: {
    max_attempts: {type: 'integer', minimum: 1, default: 5},
    retry_backoff_multiplier: {type: 'number', exclusiveMinimum: 0, default: 2},
    max_retry_interval: {type: 'number', minimum: 0, default: 10},
    initial_retry_interval: {type: 'number', minimum: 0, default: 0.5},
    timeout_sec: {type: 'number', exclusiveMinimum: 0, default: 30},
  },
  additionalProperties: false,
  default: {},
} as const

export interface ApiOptions {
  max_attempts?: number
  retry_backoff_multiplier?: number
  max_retry_interval?: number
  initial_retry_interval?: number
  timeout_sec?: number
}

/** The HTTP client settings `api_options` asks for. */
export function httpOptions(o: ApiOptions | undefined): Pick<HttpClientOptions, 'timeoutMs' | 'retry'> {
  const sec = (v: number | undefined) => (v === undefined ? undefined : v * 1000)
  return {
    timeoutMs: sec(o?.timeout_sec),
    retry: {maxAttempts: o?.max_attempts, multiplier: o?.retry_backoff_multiplier, maxDelayMs: sec(o?.max_retry_interval), initialDelayMs: sec(o?.initial_retry_interval)},
  }
}

/** DataHub's `OwnershipClass(owners=[OwnerClass(owner, DATAOWNER)])` as it serialises. */
export function dataOwnership(ownerUrn: string): Record<string, unknown> {
  return {owners: [{owner: ownerUrn, type: 'DATAOWNER'}], ownerTypes: {}, lastModified: {time: 0, actor: UNKNOWN_ACTOR}}
}

export interface AuditStamp {
  time: number
  actor: string
}

/** A work unit of one entity's aspects (an MCE in DataHub), in the given order. */
export function snapshotUnit(urn: string, aspects: Array<[string, unknown]>): WorkUnit {
  return {id: urn, kind: 'mce', proposals: aspects.map(([name, value]) => mcp(urn, name, value))}
}

/** A work unit of one aspect (an MCP in DataHub). */
export function aspectUnit(urn: string, aspectName: string, value: unknown): WorkUnit {
  return {id: `${urn}-${aspectName}`, kind: 'mcp', proposals: [mcp(urn, aspectName, value)]}
}

/** `[{destinationUrn, lastModified}]`: DataHub's edges (chartEdges, inputEdges). */
export function edges(urns: string[], stamp: AuditStamp): Array<{destinationUrn: string; lastModified: AuditStamp}> {
  return urns.map((destinationUrn) => ({destinationUrn, lastModified: stamp}))
}

/**
 * A container as DataHub's `gen_containers` emits it for a BI collection/space: properties (the
 * key's fields as custom properties), status, platform, sub-type; then the browse path.
 */
export function containerUnits(key: ContainerKey, opts: {name: string; subType: string; browsePath: Array<{id: string; urn?: string}>; description?: string}): {urn: string; units: WorkUnit[]} {
  const urn = containerUrn(key)
  const customProperties: Record<string, string> = {}
  for (const [k, v] of Object.entries(key)) if (typeof v === 'string' && k !== 'env') customProperties[k] = v
  const props: Record<string, unknown> = {customProperties, name: opts.name}
  if (opts.description) props.description = opts.description
  return {
    urn,
    units: [
      aspectUnit(urn, 'containerProperties', props),
      aspectUnit(urn, 'status', {removed: false}),
      aspectUnit(urn, 'dataPlatformInstance', {platform: `urn:li:dataPlatform:${key.platform}`}),
      aspectUnit(urn, 'subTypes', {typeNames: [opts.subType]}),
      aspectUnit(urn, 'browsePathsV2', {path: opts.browsePath}),
    ],
  }
}

/**
 * Milliseconds of a timestamp as the API wrote it (`2021-12-13T17:48:39.999`,
 * `2024-01-16T09:51:34.904+00:00`, `...Z`); a time without a zone is UTC, as DataHub reads it on
 * its servers. Undefined when it cannot be read.
 */
export function parseTimestampMs(value: unknown): number | undefined {
  if (typeof value !== 'string' || value.trim() === '' || value === 'None') return undefined
  const v = value.trim()
  const hasZone = /(Z|[+-]\d\d:?\d\d)$/i.test(v)
  const ms = Date.parse(hasZone || !/T|\d \d/.test(v) ? v : `${v.replace(' ', 'T')}Z`)
  return Number.isNaN(ms) ? undefined : ms
}

export {parserDialect} from '../sql-common/statement.js'

export interface WarehouseRef {
  /** The warehouse's DataHub platform (`postgres`, `bigquery`…). */
  platform: string
  /** Database (project, catalog) used when the SQL leaves it off. */
  defaultDb?: string
  /** Schema used when the SQL leaves it off; none means a two-part name (`<db>.<table>`). */
  defaultSchema?: string
  platformInstance?: string
  env: string
}

export interface SqlInputs {
  /** Dataset urns of the tables read, sorted (as DataHub's parser returns them). */
  tables: string[]
  /** Output columns in order, each with the table columns it comes from (schemaField form: dataset + column). */
  columns: Array<{name: string; from: Array<{dataset: string; column: string}>}>
}

/**
 * The warehouse tables (and column lineage) of a SELECT, through the parser the SQL sources use
 * for view lineage. Tries the warehouse's grammar, then PostgreSQL's and MySQL's. Throws a short
 * message when none can read it, so the caller reports that one chart and goes on.
 */
export function sqlInputs(sql: string, wh: WarehouseRef): SqlInputs {
  // The statement parser and table resolver every SQL-reading source shares (sql-queries too).
  let lineage
  try {
    lineage = statementLineage(sql, {platform: wh.platform, defaultDb: wh.defaultDb, defaultSchema: wh.defaultSchema, unnamedColumns: false, keepCase: true})
  } catch (e) {
    throw new Error(errorText(e))
  }
  if (lineage.queryType !== 'SELECT') throw new Error(`not a SELECT (${lineage.queryType})`)
  const urn = (name: string) => makeDatasetUrnWithPlatformInstance(wh.platform, name, wh.platformInstance, wh.env)
  const tables = [...new Set(lineage.inTables.map(urn))].sort()
  const columns = lineage.columns.map((c) => ({name: c.downstream, from: c.upstreams.map((r) => ({dataset: urn(r.table), column: r.column}))}))
  return {tables, columns}
}

/** DataHub's `fineGrainedLineages` entry for one output column of `downstream`. */
export function fineGrained(downstream: string, column: string, from: Array<{dataset: string; column: string}>): Record<string, unknown> {
  return {
    upstreamType: 'FIELD_SET',
    upstreams: from.map((f) => makeSchemaFieldUrn(f.dataset, f.column)),
    downstreamType: 'FIELD',
    downstreams: [makeSchemaFieldUrn(downstream, column)],
    confidenceScore: 1.0,
  }
}

export interface BiWalk {
  /** Entities of the site seen so far and in all (for the progress bar), when known. */
  done?: number
  total?: number
}

/**
 * The source object of a BI plugin: runs `walk`, reports the client's request/retry counts, and
 * closes the client at the end or when the run is stopped (Ctrl-C aborts requests in flight).
 */
export function biSource(ctx: PluginContext, client: HttpClient, walk: (report: Report, progress: BiWalk) => AsyncGenerator<WorkUnit>, beforeClose?: () => Promise<void>): Source {
  const report = ctx.report
  const progress: BiWalk = {}
  let closed = false
  // Ctrl-C: abort the request in flight instead of waiting for its answer or timeout; what the
  // cancelled calls would report is noise, not findings.
  const signal = ctx.signal
  if (signal) {
    const {warning, failure} = report
    report.warning = (k, m) => (signal.aborted ? undefined : warning.call(report, k, m))
    report.failure = (k, m) => (signal.aborted ? undefined : failure.call(report, k, m))
    signal.addEventListener('abort', () => client.abortInFlight(), {once: true})
  }
  const close = async () => {
    if (closed) return
    closed = true
    try {
      await beforeClose?.()
    } catch (e) {
      report.warning('closing', client.redact((e as Error).message))
    }
    report.info('http requests', client.stats.requests)
    if (client.stats.retries) report.info('http retries', client.stats.retries)
    await client.close()
  }
  return {
    report,
    progress: () => (progress.total ? Math.min(1, (progress.done ?? 0) / progress.total) : undefined),
    async *workunits() {
      try {
        for await (const wu of walk(report, progress)) {
          if (signal?.aborted) throw new Error('stopped by the user')
          yield wu
        }
        if (signal?.aborted) throw new Error('stopped by the user')
      } finally {
        await close()
      }
    },
    close,
  }
}

/**
 * Python's `repr` of a JSON value (`['=', ['field', 136, None], 2006]`): DataHub writes some API
 * values into custom properties this way, and a user comparing with DataHub sees the same text.
 */
export function pythonRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None'
  if (v === true) return 'True'
  if (v === false) return 'False'
  if (typeof v === 'number') return String(v)
  if (typeof v === 'string') {
    const quote = v.includes("'") && !v.includes('"') ? '"' : "'"
    const body = v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote
  }
  if (Array.isArray(v)) return `[${v.map(pythonRepr).join(', ')}]`
  if (typeof v === 'object') return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${pythonRepr(k)}: ${pythonRepr(x)}`).join(', ')}}`
  return String(v)
}
