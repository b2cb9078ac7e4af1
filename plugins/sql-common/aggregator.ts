/**
 * From queries a warehouse ran to DataHub's lineage, query entities, usage and operations, as
 * DataHub's `SqlParsingAggregator` builds them: identical queries (same fingerprint) are one query
 * entity; a temporary table's creating query is folded into the queries that read the table (in
 * the same session) as one "composite" query, so lineage skips the temp table; per downstream
 * the most recent query of a kind wins a column's lineage; usage is counted per time bucket.
 *
 * Glossary:
 * - query id: DataHub's fingerprint of the query text (`queryFingerprint`), or `composite_<sha256>`
 *   of the ids a temp-table resolution combined.
 * - session: queries with the same `session_id` (none = one shared session); temporary tables are
 *   only seen by their session.
 * - bucket: the start of the usage window (day or hour) a query's timestamp falls in.
 *
 * Memory grows with the number of distinct queries and tables, not with the number of queries
 * run: repeated queries only add to counters.
 */
import {encodeUrnKeyPart, makeDatasetUrnWithPlatformInstance, makeSchemaFieldUrn, mcp, parseUrn, type WorkUnit} from '../../src/sdk/index.js'
import {queryFingerprint, sha256} from './fingerprint.js'
import {statementLineage, type QueryType, type StatementLineage} from './statement.js'

const MISSING_SESSION = '__MISSING_SESSION_ID'
const INGESTION_ACTOR = 'urn:li:corpuser:_ingestion'
const FULL_TABLE = {partition: 'FULL_TABLE_SNAPSHOT', type: 'FULL_TABLE'}
/** Parsed statements kept by fingerprint (cleared when full, so memory stays bounded). */
const PARSE_CACHE_SIZE = 20_000

export interface UsageConfig {
  bucket_duration: 'DAY' | 'HOUR'
  /** Milliseconds; the window whose buckets get query usage statistics. */
  startTime: number
  endTime: number
  top_n_queries: number
  include_top_n_queries: boolean
  queries_character_limit: number
}

export interface ObservedQuery {
  query: string
  /** Milliseconds since the epoch. */
  timestamp?: number
  /** A corpuser urn. */
  user?: string
  sessionId?: string
  defaultDb?: string
  defaultSchema?: string
}

export interface KnownQueryLineage {
  query: string
  downstream: string
  upstreams: string[]
  timestamp?: number
  sessionId?: string
}

interface ColumnLineageInfo {
  downstream: string
  upstreams: Array<{table: string; column: string}>
  logic?: string
}

interface QueryMetadata {
  id: string
  text: string
  sessionId: string
  queryType: QueryType
  latestTimestamp?: number
  actor?: string
  /** Direct upstreams, temporary tables included. */
  upstreams: string[]
  columnLineage: ColumnLineageInfo[]
  columnUsage: Map<string, Set<string>>
  confidence: number
  usedTempTables: boolean
}

export interface AggregatorOptions {
  platform: string
  platformInstance?: string
  env: string
  usage: UsageConfig
  /** Tables (names without the platform instance) to treat as temporary (DataHub's `temp_table_patterns`). */
  isTempTable?: (name: string) => boolean
  /** Upstream lineage as PATCH operations (DataHub's `incremental_lineage`). */
  incrementalLineage?: boolean
}

export interface AggregatorReport {
  observed: number
  failed: number
  failures: string[]
}

/** One dataset's usage in one bucket (DataHub's `GenericAggregatedDataset`). */
class UsageBucket {
  readonly users = new Map<string, number>()
  readonly queries = new Map<string, number>()
  readonly fields = new Map<string, number>()
  queryCount = 0
}

const mostCommon = (m: Map<string, number>): Array<[string, number]> => [...m.entries()].sort((a, b) => b[1] - a[1])

export function bucketStart(ms: number, duration: 'DAY' | 'HOUR'): number {
  const size = duration === 'HOUR' ? 3_600_000 : 86_400_000
  return Math.floor(ms / size) * size
}

export class QueryAggregator {
  readonly report: AggregatorReport = {observed: 0, failed: 0, failures: []}
  private readonly queries = new Map<string, QueryMetadata>()
  /** downstream urn → query ids, in the order first seen. */
  private readonly lineage = new Map<string, Set<string>>()
  /** session → temp table urn → query ids that wrote it. */
  private readonly tempLineage = new Map<string, Map<string, Set<string>>>()
  /** query id → columns of the temporary table it created. */
  private readonly tempSchemas = new Map<string, string[]>()
  /** bucket → dataset urn → usage. */
  private readonly usage = new Map<number, Map<string, UsageBucket>>()
  /** query id → bucket → count. */
  private readonly queryUsage = new Map<string, Map<number, number>>()
  /** composite id → the query it was resolved from (whose usage it shows). */
  private readonly compositeOf = new Map<string, string>()
  private readonly parsed = new Map<string, StatementLineage | Error>()

  constructor(private readonly opts: AggregatorOptions) {}

  private urn(name: string): string {
    return makeDatasetUrnWithPlatformInstance(this.opts.platform, name, this.opts.platformInstance, this.opts.env)
  }

  private nameOf(urn: string): string | undefined {
    try {
      const u = parseUrn(urn)
      if (u.entityType !== 'dataset' || u.parts[0] !== `urn:li:dataPlatform:${this.opts.platform}`) return undefined
      const name = u.parts[1]!
      const inst = this.opts.platformInstance
      return inst && name.startsWith(`${inst}.`) ? name.slice(inst.length + 1) : name
    } catch {
      return undefined
    }
  }

  isTempTable(urn: string): boolean {
    if (!this.opts.isTempTable) return false
    const name = this.nameOf(urn)
    return name !== undefined && this.opts.isTempTable(name)
  }

  /** The columns of the temporary tables a session created so far, by table name. */
  private sessionSchemas(sessionId: string): Map<string, string[]> {
    const out = new Map<string, string[]>()
    for (const [urn, ids] of this.tempLineage.get(sessionId) ?? []) {
      const name = this.nameOf(urn)
      if (!name) continue
      for (const id of ids) {
        const cols = this.tempSchemas.get(id)
        if (cols) {
          out.set(name, cols)
          break
        }
      }
    }
    return out
  }

  /** The dataset urn of a table name as the queries write it (completed with the defaults). */
  datasetUrn(name: string): string {
    return this.urn(name)
  }

  /**
   * The tables a query reads, by name (for a caller that looks their columns up before adding
   * the query); none when it cannot be parsed.
   */
  tablesRead(q: ObservedQuery): string[] {
    const parsed = this.parse(q, queryFingerprint(q.query, this.opts.platform), new Map())
    return parsed instanceof Error ? [] : parsed.inTables
  }

  /**
   * A query's lineage. Queries with the same fingerprint have the same lineage (DataHub's
   * invariant), so a log's repeated queries are parsed once — unless tables with known columns
   * are involved, which can change it.
   */
  private parse(q: ObservedQuery, id: string, schemas: Map<string, string[]>): StatementLineage | Error {
    const key = `${id}\u0000${q.defaultDb ?? ''}\u0000${q.defaultSchema ?? ''}`
    const cacheable = schemas.size === 0
    const hit = cacheable ? this.parsed.get(key) : undefined
    if (hit) return hit
    let out: StatementLineage | Error
    try {
      out = statementLineage(q.query, {platform: this.opts.platform, defaultDb: q.defaultDb, defaultSchema: q.defaultSchema, schemas})
    } catch (e) {
      out = e instanceof Error ? e : new Error(String(e))
    }
    if (cacheable && (out instanceof Error || !out.literalNames)) {
      if (this.parsed.size >= PARSE_CACHE_SIZE) this.parsed.clear()
      this.parsed.set(key, out)
    }
    return out
  }

  /**
   * Adds a query from the log; a query that cannot be parsed is counted and reported, not thrown.
   * `known` are columns of real tables by name (from the server's schemas); the session's
   * temporary tables take precedence.
   */
  addObserved(q: ObservedQuery, known?: Map<string, string[]>): void {
    this.report.observed++
    const sessionId = q.sessionId || MISSING_SESSION
    const temps = this.sessionSchemas(sessionId)
    const schemas = known?.size ? new Map([...known, ...temps]) : temps
    const id = queryFingerprint(q.query, this.opts.platform)
    const parsed = this.parse(q, id, schemas)
    if (parsed instanceof Error) {
      this.report.failed++
      if (this.report.failures.length < 10) this.report.failures.push(`${parsed.message} on query: ${q.query.slice(0, 100)}`)
      return
    }
    const upstreams = parsed.inTables.map((t) => this.urn(t))
    const downstream = parsed.outTables[0] !== undefined ? this.urn(parsed.outTables[0]) : undefined
    const columnLineage: ColumnLineageInfo[] = downstream || parsed.queryType === 'SELECT' ? parsed.columns.map((c) => ({downstream: c.downstream, upstreams: c.upstreams.map((u) => ({table: this.urn(u.table), column: u.column})), ...(c.logic ? {logic: c.logic} : {})})) : []
    const columnUsage = new Map<string, Set<string>>()
    for (const c of columnLineage) for (const u of c.upstreams) (columnUsage.get(u.table) ?? columnUsage.set(u.table, new Set()).get(u.table)!).add(u.column)
    const inferred = columnLineage.length ? columnLineage.map((c) => c.downstream) : undefined

    // Usage of every table read (temporary ones too, unless a pattern says they are temporary).
    if (q.timestamp !== undefined) {
      const bucket = bucketStart(q.timestamp, this.opts.usage.bucket_duration)
      for (const up of upstreams) {
        if (this.isTempTable(up)) continue
        const perBucket = this.usage.get(bucket) ?? this.usage.set(bucket, new Map()).get(bucket)!
        const u = perBucket.get(up) ?? perBucket.set(up, new UsageBucket()).get(up)!
        this.addRead(u, q.user, q.query, [...(columnUsage.get(up) ?? [])].sort())
      }
      const counts = this.queryUsage.get(id) ?? this.queryUsage.set(id, new Map()).get(id)!
      counts.set(bucket, (counts.get(bucket) ?? 0) + 1)
    }

    this.addToQueryMap({id, text: q.query, sessionId, queryType: parsed.queryType, latestTimestamp: q.timestamp, actor: q.user, upstreams, columnLineage, columnUsage, confidence: parsed.confidence, usedTempTables: temps.size > 0})
    if (!downstream) return
    if ((parsed.queryType === 'CREATE_TABLE_AS_SELECT' || parsed.queryType === 'CREATE_DDL') && parsed.temporary || this.isTempTable(downstream)) {
      if (inferred) this.tempSchemas.set(id, inferred)
      const session = this.tempLineage.get(sessionId) ?? this.tempLineage.set(sessionId, new Map()).get(sessionId)!
      ;(session.get(downstream) ?? session.set(downstream, new Set()).get(downstream)!).add(id)
    } else {
      ;(this.lineage.get(downstream) ?? this.lineage.set(downstream, new Set()).get(downstream)!).add(id)
    }
  }

  /** Adds a query whose lineage the log states (`upstream_tables` and `downstream_tables`). */
  addKnown(k: KnownQueryLineage): void {
    const id = queryFingerprint(k.query, this.opts.platform)
    this.addToQueryMap({id, text: k.query, sessionId: k.sessionId || MISSING_SESSION, queryType: 'UNKNOWN', latestTimestamp: k.timestamp, upstreams: k.upstreams, columnLineage: [], columnUsage: new Map(), confidence: 1, usedTempTables: true})
    ;(this.lineage.get(k.downstream) ?? this.lineage.set(k.downstream, new Set()).get(k.downstream)!).add(id)
  }

  private addRead(u: UsageBucket, user: string | undefined, query: string, fields: string[]): void {
    const key = user ?? ''
    u.users.set(key, (u.users.get(key) ?? 0) + 1)
    u.queryCount++
    u.queries.set(query, (u.queries.get(query) ?? 0) + 1)
    for (const f of fields) u.fields.set(f, (u.fields.get(f) ?? 0) + 1)
  }

  private addToQueryMap(q: QueryMetadata): void {
    const current = this.queries.get(q.id)
    if (!current) {
      this.queries.set(q.id, q)
      return
    }
    // Queries come in time order: the newer run is the more authoritative one.
    current.text = q.text
    current.latestTimestamp = q.latestTimestamp ?? current.latestTimestamp
    current.actor = q.actor ?? current.actor
    // Seen again in a session that did not capture the temp tables the first one did: keep the first.
    if (current.usedTempTables && !q.usedTempTables) return
    current.sessionId = q.sessionId
    current.upstreams = q.upstreams
    current.columnLineage = q.columnLineage
    current.columnUsage = q.columnUsage
    current.confidence = q.confidence
  }

  /** A query with the temporary tables it reads replaced by what they were made from. */
  private resolveTemp(base: QueryMetadata, generated: Set<string>): QueryMetadata {
    const composed = new Set<string>()
    type Info = {upstreams: string[]; columnLineage: ColumnLineageInfo[]; confidence: number}
    const recurse = (query: QueryMetadata, path: string[]): Info => {
      if (path.includes(query.id)) return {upstreams: query.upstreams, columnLineage: query.columnLineage, confidence: query.confidence}
      path = [...path, query.id]
      composed.add(query.id)
      const temps = new Map<string, Info>()
      for (const up of query.upstreams) {
        for (const qid of this.tempLineage.get(base.sessionId)?.get(up) ?? []) {
          const upQuery = this.queries.get(qid)
          if (!upQuery || composed.has(upQuery.id)) continue
          const info = recurse(upQuery, path)
          const prev = temps.get(up)
          if (prev) {
            prev.upstreams.push(...info.upstreams)
            prev.columnLineage.push(...info.columnLineage)
            prev.confidence = Math.min(prev.confidence, info.confidence)
          } else temps.set(up, {upstreams: [...info.upstreams], columnLineage: [...info.columnLineage], confidence: info.confidence})
        }
      }
      const upstreams = new Set<string>()
      for (const up of query.upstreams) for (const u of temps.get(up)?.upstreams ?? [up]) upstreams.add(u)
      const columnLineage = query.columnLineage.map((c) => {
        const ups: Array<{table: string; column: string}> = []
        for (const u of c.upstreams) {
          const t = temps.get(u.table)
          if (t) for (const tc of t.columnLineage) if (tc.downstream === u.column) ups.push(...tc.upstreams)
          if (!t) ups.push(u)
        }
        // A column made through a temp table has no single expression: no logic.
        return temps.size ? {downstream: c.downstream, upstreams: ups} : c
      })
      return {upstreams: [...upstreams], columnLineage, confidence: Math.min(query.confidence, ...[...temps.values()].map((t) => t.confidence))}
    }
    const info = recurse(base, [])
    if (composed.size === 1) return base
    let ordered = [...composed].reverse().map((id) => this.queries.get(id)!)
    if (ordered.every((q) => q.latestTimestamp)) ordered = [...ordered].sort((a, b) => (a.latestTimestamp ?? 0) - (b.latestTimestamp ?? 0))
    // Python's json.dumps of the list of ids.
    const id = `composite_${sha256(`[${ordered.map((q) => JSON.stringify(q.id)).join(', ')}]`)}`
    for (const c of composed) generated.add(c)
    this.compositeOf.set(id, base.id)
    return {...base, id, text: ordered.map((q) => q.text).join(';\n\n'), upstreams: info.upstreams, columnLineage: info.columnLineage, confidence: info.confidence}
  }

  /** Everything to emit, in DataHub's order: lineage (with its queries), usage, operations, the other queries. */
  *workunits(now: number): Generator<WorkUnit> {
    const generated = new Set<string>()
    const resolved = new Map<string, QueryMetadata>()
    const resolve = (id: string) => resolved.get(id) ?? resolved.set(id, this.resolveTemp(this.queries.get(id)!, generated)).get(id)!
    for (const downstream of [...this.lineage.keys()].sort()) yield* this.lineageFor(downstream, resolve, generated, now)
    yield* this.usageUnits()
    for (const [downstream, ids] of this.lineage) {
      for (const raw of ids) {
        const q = resolve(raw)
        const op = operationType(q.queryType)
        if (q.latestTimestamp === undefined || !op || this.isTempTable(downstream)) continue
        const aspect: Record<string, unknown> = {timestampMillis: now, partitionSpec: FULL_TABLE, ...(q.actor ? {actor: q.actor} : {}), operationType: op, sourceType: 'DATA_PLATFORM', lastUpdatedTimestamp: q.latestTimestamp, queries: [queryUrn(q.id)]}
        yield unit(downstream, 'operation', aspect)
        if (!generated.has(q.id)) {
          generated.add(q.id)
          yield* this.queryUnits(q, downstream)
        }
      }
    }
    for (const id of this.queryUsage.keys()) {
      if (generated.has(id)) continue
      generated.add(id)
      yield* this.queryUnits(this.queries.get(id)!)
    }
  }

  private *lineageFor(downstream: string, resolve: (id: string) => QueryMetadata, generated: Set<string>, now: number): Generator<WorkUnit> {
    if (this.isTempTable(downstream)) return
    const all = [...this.lineage.get(downstream)!].map(resolve)
    // Highest precedence first (all are TRANSFORMED here), then the latest; ties: the one added last.
    const queries = all.reverse().sort((a, b) => (b.latestTimestamp ?? 0) - (a.latestTimestamp ?? 0) || Number(a.queryType === 'UNKNOWN') - Number(b.queryType === 'UNKNOWN'))
    const byId = new Map(queries.map((q) => [q.id, q]))
    const upstreams = new Map<string, string>()
    const cll = new Map<string, Map<string, {query: string; logic?: string}>>()
    for (const q of queries) {
      for (const u of q.upstreams) if (!upstreams.has(u)) upstreams.set(u, q.id)
      for (const c of q.columnLineage) {
        const m = cll.get(c.downstream) ?? cll.set(c.downstream, new Map()).get(c.downstream)!
        for (const u of c.upstreams) {
          const f = fieldUrn(u.table, u.column)
          if (!m.has(f)) m.set(f, {query: q.id, logic: c.logic})
        }
      }
    }
    const required = new Set<string>()
    // DataHub stamps every upstream with the `created` of the last query of the sorted list.
    const last = queries[queries.length - 1]!
    const created = {time: last.latestTimestamp ?? 0, actor: last.actor ?? INGESTION_ACTOR}
    const ups = [...upstreams].map(([dataset, qid]) => {
      required.add(qid)
      return {auditStamp: {time: now, actor: INGESTION_ACTOR}, created, dataset, type: 'TRANSFORMED', query: queryUrn(qid)}
    })
    const fine: Array<Record<string, unknown>> = []
    for (const [column, from] of cll) {
      const groups = new Map<string, {query: string; logic?: string; fields: string[]}>()
      for (const [field, {query, logic}] of from) {
        const key = `${query}\u0000${logic ?? ''}`
        const g = groups.get(key) ?? groups.set(key, {query, logic, fields: []}).get(key)!
        g.fields.push(field)
      }
      for (const g of groups.values()) {
        required.add(g.query)
        fine.push({upstreamType: 'FIELD_SET', upstreams: g.fields, downstreamType: 'FIELD', downstreams: [fieldUrn(downstream, column)], ...(g.logic ? {transformOperation: g.logic} : {}), confidenceScore: byId.get(g.query)!.confidence, query: queryUrn(g.query)})
      }
    }
    if (!ups.length && !fine.length) return
    if (this.opts.incrementalLineage) {
      const ops: unknown[] = ups.map((u) => ({op: 'add', path: `/upstreams/${u.dataset}`, value: u}))
      for (const f of fine) for (const up of f.upstreams as string[]) ops.push({op: 'add', path: `/fineGrainedLineages/${(f.transformOperation as string | undefined) ?? 'NONE'}/${(f.downstreams as string[])[0]}/${f.query ?? 'NONE'}/${up}`, value: {confidenceScore: f.confidenceScore}})
      yield {id: `${downstream}-upstreamLineage`, kind: 'mcp', proposals: [{entityType: 'dataset', entityUrn: downstream, changeType: 'PATCH', aspectName: 'upstreamLineage', aspect: {json: ops}}]}
    } else yield unit(downstream, 'upstreamLineage', {upstreams: ups, ...(fine.length ? {fineGrainedLineages: fine} : {})})
    for (const qid of required) {
      if (generated.has(qid)) continue
      generated.add(qid)
      yield* this.queryUnits(byId.get(qid)!, downstream)
    }
  }

  private *queryUnits(q: QueryMetadata, downstream?: string): Generator<WorkUnit> {
    // A query that touches no allowed table is left out (DataHub's filters).
    if (!downstream && !q.upstreams.some((u) => !this.isTempTable(u))) return
    const urn = queryUrn(q.id)
    const stamp = {time: q.latestTimestamp ?? 0, actor: q.actor ?? INGESTION_ACTOR}
    const subjects: string[] = []
    const add = (u: string) => subjects.includes(u) || subjects.push(u)
    for (const up of q.upstreams) {
      add(up)
      for (const c of [...(q.columnUsage.get(up) ?? [])].sort()) add(fieldUrn(up, c))
    }
    if (downstream) {
      add(downstream)
      for (const c of q.columnLineage) add(fieldUrn(downstream, c.downstream))
    }
    const units = [
      unit(urn, 'queryProperties', {customProperties: {}, statement: {value: q.text, language: 'SQL'}, source: 'SYSTEM', created: stamp, lastModified: stamp}),
      unit(urn, 'querySubjects', {subjects: subjects.map((entity) => ({entity}))}),
      unit(urn, 'dataPlatformInstance', {platform: `urn:li:dataPlatform:${this.opts.platform}`}),
    ]
    yield* units
    const counts = this.queryUsage.get(this.compositeOf.get(q.id) ?? q.id)
    if (!counts) return
    const {usage} = this.opts
    for (const [bucket, count] of counts) {
      if (bucket < bucketStart(usage.startTime, usage.bucket_duration) || bucket >= usage.endTime) continue
      yield unit(urn, 'queryUsageStatistics', {timestampMillis: bucket, eventGranularity: {unit: usage.bucket_duration, multiple: 1}, partitionSpec: FULL_TABLE, queryCount: count, uniqueUserCount: 1, ...(q.actor ? {userCounts: [{user: q.actor, count}]} : {})})
    }
  }

  private *usageUnits(): Generator<WorkUnit> {
    const {usage} = this.opts
    const budget = Math.floor(usage.queries_character_limit / usage.top_n_queries)
    for (const [bucket, datasets] of this.usage) {
      for (const [urn, u] of datasets) {
        const top = mostCommon(u.queries).slice(0, usage.top_n_queries).map(([q]) => trimQuery(q, budget))
        yield unit(urn, 'datasetUsageStatistics', {
          timestampMillis: bucket,
          eventGranularity: {unit: usage.bucket_duration, multiple: 1},
          partitionSpec: FULL_TABLE,
          uniqueUserCount: u.users.size,
          totalSqlQueries: u.queryCount,
          ...(usage.include_top_n_queries ? {topSqlQueries: top} : {}),
          userCounts: mostCommon(u.users).filter(([user]) => user).map(([user, count]) => ({user, count})),
          fieldCounts: mostCommon(u.fields).map(([fieldPath, count]) => ({fieldPath, count})),
        })
      }
    }
  }
}

/** DataHub's `trim_query`: a query longer than its share of the budget ends in `...`. */
function trimQuery(q: string, budget: number): string {
  return q.length > budget && budget > 3 ? `${q.slice(0, budget - 3)}...` : q
}

/** A column's urn; a name like `current_timestamp()` is encoded, as DataHub does. */
function fieldUrn(dataset: string, column: string): string {
  return makeSchemaFieldUrn(dataset, encodeUrnKeyPart(column))
}

function queryUrn(id: string): string {
  return `urn:li:query:${id}`
}

function unit(urn: string, aspectName: string, value: unknown): WorkUnit {
  return {id: `${urn}-${aspectName}`, kind: 'mcp', proposals: [mcp(urn, aspectName, value)]}
}

/** DataHub's `QueryType.to_operation_type`; none for a SELECT. */
function operationType(t: QueryType): string | undefined {
  switch (t) {
    case 'SELECT':
      return undefined
    case 'INSERT':
      return 'INSERT'
    case 'UPDATE':
      return 'UPDATE'
    case 'DELETE':
      return 'DELETE'
    case 'MERGE':
      return 'UPDATE'
    case 'CREATE_TABLE_AS_SELECT':
    case 'CREATE_VIEW':
    case 'CREATE_DDL':
      return 'CREATE'
    default:
      return 'UNKNOWN'
  }
}
