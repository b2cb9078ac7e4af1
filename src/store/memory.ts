/**
 * An in-memory MetadataStore: no files, no threads, no locks. For fast unit tests of the catalog
 * and the server, in-process; it runs the same conformance suite as the embedded and SQL stores,
 * so what passes here means the same thing there.
 *
 * "Persistence" is the `data` object: a second MemoryStore opened on the same data sees every
 * write of the first (that is what the conformance suite's reopen checks). Search uses the
 * embedded store's index (`search-index.ts`), in this thread, updated on every write.
 */
import {buildSearchDoc} from '../model/search-doc.js'
import {SearchIndex} from './search-index.js'
import {RunCounts} from './run-counts.js'
import {observedAgain} from './types.js'
import type {
  AuditStamp,
  EntityRecord,
  EntityRules,
  ReferenceQuery,
  ListUrnsRequest,
  MetadataStore,
  RunRow,
  RunSummary,
  SearchRequest,
  SearchResponse,
  StoredAspect,
  StoreStats,
  SystemMetadata,
  WriteOp,
  WriteResult,
} from './types.js'

/** One stored version: its value text exactly as written, its stamps. */
interface MemRow {
  text: string
  created: AuditStamp
  systemMetadata: SystemMetadata
  /** Timeseries rows only. */
  timestampMillis?: number
}

interface MemEntity {
  /** Search id and listing order; new when an entity is created again after a delete. */
  id: number
  type: string
  /** Versioned: [latest, oldest, …, newest of the old]. */
  versions: Map<string, MemRow[]>
  /** Timeseries rows in arrival order. */
  series: Map<string, MemRow[]>
}

/** What a MemoryStore keeps; share it between instances to "reopen" a store. */
export interface MemoryStoreData {
  entities: Map<string, MemEntity>
  nextId: number
}

export interface MemoryStoreOptions {
  rules: EntityRules
  searchableTypes: readonly string[]
  /** The data of an earlier instance, to reopen it; fresh and empty when absent. */
  data?: MemoryStoreData
}

export function emptyMemoryData(): MemoryStoreData {
  return {entities: new Map(), nextId: 1}
}

export class MemoryStore implements MetadataStore {
  readonly data: MemoryStoreData
  private index = new SearchIndex()
  private opened = false

  constructor(private readonly opts: MemoryStoreOptions) {
    this.data = opts.data ?? emptyMemoryData()
  }

  async open(): Promise<void> {
    this.index = new SearchIndex()
    const byId = [...this.data.entities].sort((a, b) => a[1].id - b[1].id)
    for (const [urn, e] of byId) this.reindex(urn, e)
    this.opened = true
  }

  async close(): Promise<void> {
    this.opened = false
  }

  // ---------------------------------------------------------------- writes

  async write(ops: WriteOp[]): Promise<WriteResult[]> {
    if (!this.opened) throw new Error('store is not open')
    return ops.map((op) => this.apply(op))
  }

  private apply(op: WriteOp): WriteResult {
    const ents = this.data.entities
    const existing = ents.get(op.urn)
    const aspectName = 'aspectName' in op ? op.aspectName : undefined
    const none: WriteResult = {urn: op.urn, aspectName, changed: false, createdEntity: false, rowsRemoved: 0}
    switch (op.op) {
      case 'upsert':
      case 'timeseries': {
        let e = existing
        let createdEntity = false
        if (!e) {
          e = {id: this.data.nextId++, type: op.entityType, versions: new Map(), series: new Map()}
          ents.set(op.urn, e)
          createdEntity = true
          if (op.keyAspect && op.keyAspect.name !== op.aspectName) {
            e.versions.set(op.keyAspect.name, [{text: op.keyAspect.value, created: {...op.created}, systemMetadata: {...op.systemMetadata}}])
          }
        }
        const row: MemRow = {text: op.value, created: {...op.created}, systemMetadata: {...op.systemMetadata}}
        let changed = true
        if (op.op === 'upsert') {
          const rows = e.versions.get(op.aspectName)
          if (!rows) e.versions.set(op.aspectName, [row])
          else if (rows[0]!.text === op.value) {
            // As DataHub: an identical value writes no version; lastObserved and lastRunId move.
            const prev = rows[0]!.systemMetadata
            rows[0]!.systemMetadata = observedAgain(prev, op.systemMetadata)
            changed = false
          } else {
            rows.push(rows[0]!)
            rows[0] = row
          }
        } else {
          row.timestampMillis = op.timestampMillis
          const rows = e.series.get(op.aspectName) ?? []
          e.series.set(op.aspectName, rows)
          const same = rows.findIndex((r) => r.timestampMillis === op.timestampMillis)
          if (same >= 0) rows[same] = row
          else rows.push(row)
        }
        if (createdEntity || (changed && op.op === 'upsert' && this.opts.rules.feedsSearch(e.type, op.aspectName))) this.reindex(op.urn, e)
        return {urn: op.urn, aspectName: op.aspectName, changed, createdEntity, rowsRemoved: 0}
      }
      case 'deleteEntity': {
        if (!existing) return none
        let removed = 0
        for (const rows of existing.versions.values()) removed += rows.length
        for (const rows of existing.series.values()) removed += rows.length
        this.forget(op.urn, existing)
        return {...none, changed: true, rowsRemoved: removed}
      }
      case 'deleteAspect': {
        if (!existing) return none
        const rows = existing.versions.get(op.aspectName) ?? existing.series.get(op.aspectName) ?? []
        existing.versions.delete(op.aspectName)
        existing.series.delete(op.aspectName)
        this.afterRemoval(op.urn, existing)
        return {...none, changed: rows.length > 0, rowsRemoved: rows.length}
      }
      case 'revert': {
        const rows = existing?.versions.get(op.aspectName)
        if (!existing || !rows) return none
        if (rows.length > 1) rows[0] = rows.pop()!
        else existing.versions.delete(op.aspectName)
        this.afterRemoval(op.urn, existing)
        return {...none, changed: true, rowsRemoved: 1}
      }
      case 'deleteTimeseriesOfRun':
      case 'deleteTimeseriesRange': {
        const rows = existing?.series.get(op.aspectName)
        if (!existing || !rows) return none
        const goes = op.op === 'deleteTimeseriesOfRun' ? (r: MemRow) => r.systemMetadata.runId === op.runId : (r: MemRow) => r.timestampMillis! >= op.startTime && r.timestampMillis! <= op.endTime
        const kept = rows.filter((r) => !goes(r))
        if (kept.length > 0) existing.series.set(op.aspectName, kept)
        else existing.series.delete(op.aspectName)
        this.afterRemoval(op.urn, existing)
        return {...none, changed: kept.length < rows.length, rowsRemoved: rows.length - kept.length}
      }
    }
  }

  private afterRemoval(urn: string, e: MemEntity): void {
    if (e.versions.size === 0 && e.series.size === 0) this.forget(urn, e)
    else this.reindex(urn, e)
  }

  private forget(urn: string, e: MemEntity): void {
    this.data.entities.delete(urn)
    this.index.remove(e.id)
  }

  private reindex(urn: string, e: MemEntity): void {
    const parsed: Record<string, unknown> = {}
    for (const [name, rows] of e.versions) if (this.opts.rules.feedsSearch(e.type, name)) parsed[name] = JSON.parse(rows[0]!.text)
    this.index.upsert(e.id, urn, e.type, buildSearchDoc(e.type, urn, parsed))
  }

  // ---------------------------------------------------------------- reads

  private aspect(urn: string, e: MemEntity, name: string, row: MemRow, version: number, kind: 'versioned' | 'timeseries'): StoredAspect {
    return {urn, entityType: e.type, aspectName: name, kind, version, value: JSON.parse(row.text), created: {...row.created}, systemMetadata: {...row.systemMetadata}}
  }

  private latestTs(rows: MemRow[] | undefined): MemRow | undefined {
    let best: MemRow | undefined
    for (const r of rows ?? []) if (!best || r.timestampMillis! > best.timestampMillis! || (r.timestampMillis === best.timestampMillis && r.created.time >= best.created.time)) best = r
    return best
  }

  async getAspect(urn: string, aspectName: string, version = 0): Promise<StoredAspect | null> {
    const e = this.data.entities.get(urn)
    if (!e) return null
    const rows = e.versions.get(aspectName)
    if (rows) return rows[version] ? this.aspect(urn, e, aspectName, rows[version]!, version, 'versioned') : null
    const ts = this.latestTs(e.series.get(aspectName))
    return ts && version === 0 ? this.aspect(urn, e, aspectName, ts, 0, 'timeseries') : null
  }

  private record(urn: string, e: MemEntity, names?: string[]): EntityRecord {
    const aspects: Record<string, StoredAspect> = {}
    const want = names && names.length > 0 ? names : [...e.versions.keys(), ...e.series.keys()]
    for (const n of want) {
      const rows = e.versions.get(n)
      if (rows) aspects[n] = this.aspect(urn, e, n, rows[0]!, 0, 'versioned')
      else {
        const ts = this.latestTs(e.series.get(n))
        if (ts) aspects[n] = this.aspect(urn, e, n, ts, 0, 'timeseries')
      }
    }
    return {urn, entityType: e.type, aspects}
  }

  async getEntity(urn: string, aspectNames?: string[]): Promise<EntityRecord | null> {
    const e = this.data.entities.get(urn)
    return e ? this.record(urn, e, aspectNames) : null
  }

  async getEntities(urns: string[], aspectNames?: string[]): Promise<Map<string, EntityRecord>> {
    const out = new Map<string, EntityRecord>()
    for (const u of urns) {
      const e = this.data.entities.get(u)
      if (e) out.set(u, this.record(u, e, aspectNames))
    }
    return out
  }

  async listVersions(urn: string, aspectName: string): Promise<StoredAspect[]> {
    const e = this.data.entities.get(urn)
    const rows = e?.versions.get(aspectName)
    return e && rows ? rows.map((r, v) => this.aspect(urn, e, aspectName, r, v, 'versioned')) : []
  }

  async listTimeseries(urn: string, aspectName: string, opts: {startTime?: number; endTime?: number; limit?: number} = {}): Promise<StoredAspect[]> {
    const e = this.data.entities.get(urn)
    const rows = e?.series.get(aspectName)
    if (!e || !rows) return []
    return rows
      .filter((r) => (opts.startTime === undefined || r.timestampMillis! >= opts.startTime) && (opts.endTime === undefined || r.timestampMillis! <= opts.endTime))
      .sort((a, b) => b.timestampMillis! - a.timestampMillis!)
      .slice(0, opts.limit ?? 10000)
      .map((r) => this.aspect(urn, e, aspectName, r, 0, 'timeseries'))
  }

  private removed(e: MemEntity): boolean {
    return this.opts.rules.isRemoved(e.versions.get(this.opts.rules.softDeleteAspect)?.[0]?.text)
  }

  async exists(urn: string, opts: {includeSoftDeleted?: boolean} = {}): Promise<boolean> {
    const e = this.data.entities.get(urn)
    if (!e) return false
    return opts.includeSoftDeleted === false ? !this.removed(e) : true
  }

  async listUrns(req: ListUrnsRequest): Promise<{total: number; urns: string[]}> {
    const all = [...this.data.entities]
      .filter(([, e]) => (!req.entityType || e.type === req.entityType) && (req.includeSoftDeleted || !this.removed(e)))
      .sort((a, b) => a[1].id - b[1].id)
    const start = req.start ?? 0
    return {total: all.length, urns: all.slice(start, start + (req.count ?? all.length)).map(([u]) => u)}
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    return this.index.query(req, this.opts.searchableTypes)
  }

  async referencesTo(targets: string[], opts: ReferenceQuery = {}): Promise<Array<{target: string; urn: string; aspectName: string}>> {
    const out: Array<{target: string; urn: string; aspectName: string}> = []
    const needles = targets.map((t) => ({target: t, text: JSON.stringify(t)}))
    // A store for tests: a scan is fine here.
    for (const [u, e] of this.data.entities) {
      for (const [name, rows] of e.versions) {
        if (opts.aspects && !opts.aspects.includes(name)) continue
        for (const n of needles) if (n.target !== u && rows[0]!.text.includes(n.text)) out.push({target: n.target, urn: u, aspectName: name})
      }
    }
    return out
  }

  private *rows(): Generator<{urn: string; e: MemEntity; name: string; row: MemRow; version: number; kind: 'versioned' | 'timeseries'}> {
    for (const [urn, e] of this.data.entities) {
      for (const [name, rows] of e.versions) for (let v = 0; v < rows.length; v++) yield {urn, e, name, row: rows[v]!, version: v, kind: 'versioned'}
      for (const [name, rows] of e.series) for (const row of rows) yield {urn, e, name, row, version: 0, kind: 'timeseries'}
    }
  }

  async listRuns(opts: {start?: number; count?: number} = {}): Promise<RunSummary[]> {
    // Counted afresh from the rows: a store for tests keeps no running totals.
    const runs = new RunCounts()
    for (const {row} of this.rows()) runs.count(row.systemMetadata.runId, row.created.time, 1)
    return runs.list(opts)
  }

  async runRows(runId: string): Promise<RunRow[]> {
    const out: RunRow[] = []
    for (const {urn, e, name, row, version, kind} of this.rows()) {
      if (row.systemMetadata.runId !== runId) continue
      const keyAspect = kind === 'versioned' && name === this.opts.rules.keyAspectName(e.type)
      out.push({urn, entityType: e.type, aspectName: name, version, kind, keyAspect, created: {...row.created}})
    }
    return out
  }

  async stats(): Promise<StoreStats> {
    let aspectRows = 0
    for (const _ of this.rows()) aspectRows++
    return {entities: this.data.entities.size, aspectRows, diskBytes: 0}
  }
}
