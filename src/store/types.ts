/**
 * The store contract. Everything above `store/` talks to a `MetadataStore`; nothing above it
 * knows whether lowdb files or a SQL database sit behind it. The conformance suite in
 * `test/store/conformance.ts` is written against this interface alone.
 *
 * Glossary:
 * - row: one stored version of one aspect of one entity.
 * - version 0: the latest value of a versioned aspect; older values are versions 1 (oldest),
 *   2, … n (newest of the old), as in DataHub.
 * - timeseries aspect: appended rows, no versions; reads return the latest by timestamp.
 * - run: all rows written with the same `systemMetadata.runId`.
 */
import type {FacetField} from '../model/search-doc.js'

export type {AuditStamp, SystemMetadata} from '../model/wire.js'
import type {AuditStamp, SystemMetadata} from '../model/wire.js'

export const DEFAULT_RUN_ID = 'no-run-id-provided'

/**
 * The system metadata of an aspect written again with the value it holds (no new version): as
 * DataHub, lastObserved and lastRunId move; the write's properties are merged over the stored
 * ones, so a queue position (catalog/position.ts) moves with a value that came back unchanged.
 */
export function observedAgain(prev: SystemMetadata, next: SystemMetadata): SystemMetadata {
  const sm: SystemMetadata = {...prev, lastObserved: next.lastObserved ?? prev.lastObserved, lastRunId: next.runId ?? prev.lastRunId}
  if (next.properties) sm.properties = {...prev.properties, ...next.properties}
  return sm
}

/** One aspect as stored, with its envelope. */
export interface StoredAspect {
  urn: string
  entityType: string
  aspectName: string
  kind: 'versioned' | 'timeseries'
  /** 0 for the latest of a versioned aspect; 0 for every timeseries row. */
  version: number
  value: unknown
  /**
   * The value's JSON text as stored, where the store holds it as text: a caller that needs the
   * text (the change log's previous value, a REST entity read, GraphQL's raw aspects) then neither
   * parses nor serializes it. A copy whose `value` differs must not carry it (see defaults.ts).
   */
  readonly valueText?: string
  created: AuditStamp
  systemMetadata: SystemMetadata
}

export interface EntityRecord {
  urn: string
  entityType: string
  /** Latest value per aspect name (versioned: version 0; timeseries: latest row). */
  aspects: Record<string, StoredAspect>
}

export type WriteOp =
  | {
      op: 'upsert'
      urn: string
      entityType: string
      aspectName: string
      /** The aspect value as JSON text, as received (a store compares it by text, then by value: core/write.ts). */
      value: string
      created: AuditStamp
      systemMetadata: SystemMetadata
      /** Written too when the entity does not exist yet. */
      keyAspect?: {name: string; value: string}
    }
  | {
      op: 'timeseries'
      urn: string
      entityType: string
      aspectName: string
      value: string
      timestampMillis: number
      created: AuditStamp
      systemMetadata: SystemMetadata
      keyAspect?: {name: string; value: string}
    }
  /** Hard delete: every aspect, versions and timeseries rows of the entity. */
  | {op: 'deleteEntity'; urn: string}
  /** Hard delete of one aspect (all its versions or timeseries rows). */
  | {op: 'deleteAspect'; urn: string; aspectName: string}
  /**
   * Drops version 0 and makes the newest older version the latest (removes the aspect if none).
   * With `runId`, only when version 0 was written by that run: a rollback planned before another
   * write landed must not take that write away.
   */
  | {op: 'revert'; urn: string; aspectName: string; runId?: string}
  /** Removes the timeseries rows of an aspect written by a run. */
  | {op: 'deleteTimeseriesOfRun'; urn: string; aspectName: string; runId: string}
  /** Removes the timeseries rows of an aspect whose timestampMillis lies in [startTime, endTime]. */
  | {op: 'deleteTimeseriesRange'; urn: string; aspectName: string; startTime: number; endTime: number}

export interface WriteResult {
  urn: string
  aspectName?: string
  /** False when an upsert carried the value already stored (no new version). */
  changed: boolean
  /** True when the op brought the entity into being. */
  createdEntity: boolean
  /** Rows removed by a delete or revert. */
  rowsRemoved: number
}

export interface FacetFilter {
  /**
   * `name` is the entity's display name (DataHub's `name` keyword: the SDK finds a domain by it).
   * Any other name matches no document (negated: every one), as Elasticsearch treats a field no
   * document of an index holds: DataHub's clients send such fields in alternatives (the SDK's env
   * filter tries `origin`, `customProperties` and `env`).
   */
  field: FacetField | 'urn' | 'removed' | 'name' | (string & {})
  values: string[]
  negated?: boolean
  /**
   * How a value of the field is compared with `values` (DataHub's FilterOperator): EQUAL (the
   * default) exactly, IEQUAL ignoring case, CONTAIN / START_WITH / END_WITH as substrings, EXISTS
   * when the field holds any value (`values` unused).
   */
  match?: FacetMatch
}

export type FacetMatch = 'EQUAL' | 'IEQUAL' | 'CONTAIN' | 'START_WITH' | 'END_WITH' | 'EXISTS'

/** Whether one stored value satisfies a filter's comparison with its values (not EXISTS). */
export function facetValueMatches(match: FacetMatch | undefined, values: readonly string[]): (v: string) => boolean {
  switch (match ?? 'EQUAL') {
    case 'IEQUAL': {
      const lower = new Set(values.map((x) => x.toLowerCase()))
      return (v) => lower.has(v.toLowerCase())
    }
    case 'CONTAIN':
      return (v) => values.some((x) => v.includes(x))
    case 'START_WITH':
      return (v) => values.some((x) => v.startsWith(x))
    case 'END_WITH':
      return (v) => values.some((x) => v.endsWith(x))
    case 'EXISTS':
      return () => true
    default: {
      const set = new Set(values)
      return (v) => set.has(v)
    }
  }
}

export interface SearchRequest {
  /** Registry entity names; empty or absent = every searchable type. */
  types?: string[]
  /** Full text; `*` or empty lists everything. */
  query: string
  start?: number
  count?: number
  /** OR of AND-groups. */
  filters?: FacetFilter[][]
  includeSoftDeleted?: boolean
  /** Facet fields to aggregate over all matches. */
  facets?: FacetField[]
  /**
   * Cursor mode: results ordered by a stable internal sequence instead of relevance, starting
   * after this cursor. Entities that exist throughout a walk are never skipped or repeated.
   */
  after?: string | null
}

export interface SearchHit {
  urn: string
  entityType: string
  name: string
}

export interface SearchResponse {
  total: number
  hits: SearchHit[]
  facets?: Partial<Record<FacetField, Array<{value: string; count: number}>>>
  /** Cursor mode only: where the next page starts, null when done. */
  next?: string | null
}

/**
 * One entity as a search index is fed it: its search id (the store's entity id: a small integer,
 * new when an entity is created again after a delete; cursor walks order by it), urn, type, and
 * the latest values of the aspects that feed search, as JSON text. `aspects: null` takes the
 * entity out (whatever id it is indexed under); an entity indexed under another id is replaced.
 */
export interface IndexItem {
  id: number
  urn: string
  type: string
  aspects: Record<string, string> | null
  /**
   * Of some aspects, what search reads of the value, already parsed (the write side parsed it):
   * an index may use it instead of parsing the text. Given only within a write's transaction.
   */
  values?: Record<string, unknown>
}

/**
 * The search contract, beside the store's: full text over names, descriptions, tags, owners and
 * field paths (words split at camelCase, digits and `_ . - /`, the last query word a prefix),
 * facets, filters, the 10,000 window and the scroll cursor. Implementations: the embedded
 * store's thread (embedded/search-thread.ts), PostgreSQL's full text (postgres/search-index.ts)
 * and one in this thread (search/memory-index.ts); `test/store/search-conformance.ts` runs on each.
 */
export interface SearchIndex {
  /**
   * Brings the documents of these entities up to date, in order. A query made after the
   * promise resolves sees every item.
   */
  apply(items: IndexItem[]): Promise<void>
  /**
   * Optional, for an index kept by the store's own database (PostgreSQL): `apply` inside a
   * write's transaction, through the handle a transactional store gives a write's sidecar
   * (`WriteTransaction.handle`), so the documents commit or roll back with the write.
   */
  applyWithin?(handle: unknown, items: IndexItem[]): Promise<void>
  query(req: SearchRequest): Promise<SearchResponse>
  /** Forgets every document (a rebuild is `clear`, then `apply` of every entity in id order). */
  clear(): Promise<void>
  close(): Promise<void>
  /** True when the documents outlive the process (PostgreSQL): nothing to rebuild at a start. */
  readonly durable?: boolean
  /**
   * Optional: calls `listen` when the index lost its documents (the embedded search thread died
   * and was restarted empty), so that its feeder sends everything again.
   */
  onLost?(listen: () => void): void
}

export interface RunSummary {
  runId: string
  /** Time of the first row written by the run. */
  timestamp: number
  rows: number
}

export interface RunRow {
  urn: string
  entityType: string
  aspectName: string
  version: number
  kind: 'versioned' | 'timeseries'
  keyAspect: boolean
  created: AuditStamp
}

export interface ListUrnsRequest {
  entityType?: string
  start?: number
  count?: number
  includeSoftDeleted?: boolean
}

export interface StoreStats {
  entities: number
  aspectRows: number
  /** Bytes on disk, all files of the store. */
  diskBytes: number
}

/**
 * Entity rules a store needs, from the registry (`src/store/rules.ts` has the production set).
 * A store never guesses them from names: `corpuser`'s key aspect is `corpUserKey`, not `corpuserKey`.
 */
export interface EntityRules {
  /** The key aspect of an entity type; undefined for a type the registry does not know. */
  keyAspectName(entityType: string): string | undefined
  /** The aspect whose value marks an entity soft-deleted (`status`). */
  softDeleteAspect: string
  /** Whether the soft-delete aspect's JSON text (as stored) marks the entity removed. */
  isRemoved(statusText: string | undefined): boolean
  isTimeseries(aspectName: string): boolean
  /** Whether the store keeps an index of the urns this aspect mentions (the lineage aspects). */
  indexesReferences(aspectName: string): boolean
}

export interface ReferenceQuery {
  /**
   * Only references through these aspects. When the rules index all of them
   * (`indexesReferences`), the answer costs what it returns, not a pass over the store.
   */
  aspects?: readonly string[]
}

export interface MetadataStore {
  /** Loads the store; throws StoreCorruptError when a file cannot be read back. */
  open(): Promise<void>
  /** Flushes, checkpoints and releases the store. */
  close(): Promise<void>

  /**
   * Applies ops in order as one durable batch; resolves only once the batch survives a crash
   * of the process. Concurrent calls are grouped into one disk write.
   *
   * `sidecar`: work that must commit or roll back with the batch. A store with transactions
   * (`capabilities.transactions`) runs it inside the batch's, after the ops; others ignore it.
   */
  write(ops: WriteOp[], sidecar?: WriteSidecar): Promise<WriteResult[]>

  /**
   * How many write batches are worth having parsed and checked at once. One store thread writes
   * a batch while the next is prepared, so 2 (the default) keeps it busy, and a batch prepared
   * early only holds memory while it waits; a database with a pool of connections takes more.
   */
  readonly writeConcurrency?: number

  getAspect(urn: string, aspectName: string, version?: number): Promise<StoredAspect | null>
  /** Latest aspects of an entity (all, or the named ones); null when the entity does not exist. */
  getEntity(urn: string, aspectNames?: string[]): Promise<EntityRecord | null>
  getEntities(urns: string[], aspectNames?: string[]): Promise<Map<string, EntityRecord>>
  /** Every version of a versioned aspect, version 0 first then 1, 2, …. */
  listVersions(urn: string, aspectName: string): Promise<StoredAspect[]>
  /** Timeseries rows, newest first. */
  listTimeseries(urn: string, aspectName: string, opts?: {startTime?: number; endTime?: number; limit?: number}): Promise<StoredAspect[]>
  exists(urn: string, opts?: {includeSoftDeleted?: boolean}): Promise<boolean>
  listUrns(req: ListUrnsRequest): Promise<{total: number; urns: string[]}>
  /**
   * The latest values of the named versioned aspects as stored text (no envelope, nothing
   * parsed), with each entity's id and type: what indexes derived from the rows are built from.
   * Entities that do not exist are absent; so are aspects they do not hold.
   */
  latestTexts(urns: string[], aspectNames: readonly string[]): Promise<Map<string, EntityTexts>>
  /**
   * Aspects (latest versions) of other entities that mention any of `targets`, in one pass over
   * the store whatever the number of targets.
   */
  referencesTo(targets: string[], opts?: ReferenceQuery): Promise<Array<{target: string; urn: string; aspectName: string}>>

  listRuns(opts?: {start?: number; count?: number}): Promise<RunSummary[]>
  /** Every row (any version, and timeseries rows) whose systemMetadata.runId is `runId`. */
  runRows(runId: string): Promise<RunRow[]>

  stats(): Promise<StoreStats>

  /**
   * Optional, for stores several servers share (PostgreSQL): runs `fn` holding locks on these
   * entities that other processes' edits respect too. The catalog takes them around
   * read-modify-write edits, after its in-process locks.
   */
  withEntityLocks?<T>(urns: string[], fn: () => Promise<T>): Promise<T>
  /**
   * Optional, for shared stores: calls `listen` with the urns written by OTHER processes, once
   * committed, so caches of stored state (tokens, policies, groups) are dropped everywhere.
   */
  onExternalWrite?(listen: (urns: string[]) => void): void
  /**
   * Optional, for shared stores: calls `listen` when writes by other processes may have gone
   * unannounced (the notification channel was down and is back), so caches of stored state drop
   * everything rather than what `onExternalWrite` named.
   */
  onResync?(listen: () => void): void
  /**
   * Optional, for stores reached over a network: named checks for the server's `/health`
   * (`store`: the database answers; `listener`: other processes' writes are heard).
   */
  healthChecks?(): StoreCheck[]
  /**
   * Optional, for stores that can hold rows written by another program (DataHub's
   * `metadata_aspect_v2`): makes the entities of `urns` whose rows are there but not indexed yet
   * readable, as `store reindex` would, without changing any row (search is the catalog's). The first start calls it on
   * the urns it is about to fill in, so it sees what is there and overwrites nothing.
   */
  indexExisting?(urns: string[]): Promise<void>
  /**
   * What this store can do beyond the contract, declared by the store itself: a caller asks here,
   * never by the store's class.
   */
  readonly capabilities?: StoreCapabilities
}

/** An entity's id, type and the latest texts of some aspects (see `MetadataStore.latestTexts`). */
export interface EntityTexts {
  /** Listing order; new when the entity is created again after a delete. */
  id: number
  entityType: string
  values: Record<string, string>
}

/** A write's transaction as its sidecar sees it (see `MetadataStore.write`). */
export interface WriteTransaction {
  /** `latestTexts` as the transaction sees the rows: its own writes included. */
  latestTexts(urns: string[], aspectNames: readonly string[]): Promise<Map<string, EntityTexts>>
  /**
   * The store's own handle on the transaction (PostgreSQL: the connection), opaque to whoever
   * passes it on; only a component of the same database (its search index) looks inside.
   */
  readonly handle: unknown
}

/** Work run inside a write's transaction, with the batch's results (see `MetadataStore.write`). */
export type WriteSidecar = (tx: WriteTransaction, results: WriteResult[]) => Promise<void>

/** Optional work a store offers (see `MetadataStore.capabilities`). */
export interface StoreCapabilities {
  /** Writes are transactions that run a write's sidecar inside (see `MetadataStore.write`). */
  transactions?: boolean
  /**
   * DataHub's "restore indices": rebuilds what the store derives from its rows (entity list,
   * references), for a store whose rows another program may have written. Search documents are
   * the catalog's to rebuild after it (`Catalog.reindex`).
   */
  reindex?(onProgress?: (done: number) => void): Promise<{entities: number; removed: number}>
  /**
   * Runs `fn` with every read of this store seeing one moment, whatever other processes write
   * meanwhile (PostgreSQL: one REPEATABLE READ, READ ONLY transaction); `fn` must not write. For a
   * store other servers may write while it is read (a backup); a store that only one process opens
   * needs none.
   */
  snapshot?<T>(fn: () => Promise<T>): Promise<T>
}

/** A named health check of a store (see `MetadataStore.healthChecks`). */
export interface StoreCheck {
  name: string
  check(): Promise<{ok: boolean; reason?: string}>
}
