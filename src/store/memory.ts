/**
 * An in-memory MetadataStore: no files, no threads, no locks. For fast unit tests of the catalog
 * and the server, in-process; it runs the same conformance suite as the embedded and SQL stores,
 * so what passes here means the same thing there.
 *
 * "Persistence" is the `data` object: a second MemoryStore opened on the same data sees every
 * write of the first (that is what the conformance suite's reopen checks). It knows nothing of
 * search: the catalog feeds an index (search/memory-index.ts in tests) from what it writes.
 */
import {RunCounts} from './run-counts.js'
import {existsFor, inReferenceOrder, latestSeriesRow, listingPage, seriesWindow} from './core/read.js'
import {applyWrite, type RowTable} from './core/write.js'
import type {
  AuditStamp,
  EntityRecord,
  EntityRules,
  EntityTexts,
  ReferenceQuery,
  ListUrnsRequest,
  MetadataStore,
  RunRow,
  RunSummary,
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
  /** Listing order; new when an entity is created again after a delete. */
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
  /** The data of an earlier instance, to reopen it; fresh and empty when absent. */
  data?: MemoryStoreData
}

export function emptyMemoryData(): MemoryStoreData {
  return {entities: new Map(), nextId: 1}
}

export class MemoryStore implements MetadataStore {
  readonly data: MemoryStoreData
  private opened = false

  constructor(private readonly opts: MemoryStoreOptions) {
    this.data = opts.data ?? emptyMemoryData()
  }

  async open(): Promise<void> {
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
    return applyWrite(op, this.table)
  }

  /** The memory map as the write core sees it (see core/write.ts). */
  private readonly table: RowTable<MemEntity> = {
    entity: (urn) => this.data.entities.get(urn),
    createEntity: (urn, type) => {
      const e: MemEntity = {id: this.data.nextId++, type, versions: new Map(), series: new Map()}
      this.data.entities.set(urn, e)
      return e
    },
    latestIs: (e, name, text) => {
      const rows = e.versions.get(name)
      return rows ? rows[0]!.text === text : undefined
    },
    latestText: (e, name) => e.versions.get(name)![0]!.text,
    latestSystemMetadata: (e, name) => e.versions.get(name)![0]!.systemMetadata,
    setLatestSystemMetadata: (e, name, sm) => {
      e.versions.get(name)![0]!.systemMetadata = sm
    },
    insertLatest: (_urn, e, name, text, created, sm) => {
      e.versions.set(name, [{text, created: {...created}, systemMetadata: {...sm}}])
    },
    replaceLatest: (_urn, e, name, text, created, sm) => {
      const rows = e.versions.get(name)!
      rows.push(rows[0]!)
      rows[0] = {text, created: {...created}, systemMetadata: {...sm}}
    },
    putSeries: (e, name, r) => {
      const row: MemRow = {text: r.text, created: {...r.created}, systemMetadata: {...r.systemMetadata}, timestampMillis: r.timestampMillis}
      const rows = e.series.get(name) ?? []
      e.series.set(name, rows)
      const same = rows.findIndex((x) => x.timestampMillis === r.timestampMillis)
      if (same < 0) {
        rows.push(row)
        return undefined
      }
      const was = rows[same]!
      rows[same] = row
      return {runId: was.systemMetadata.runId, time: was.created.time}
    },
    removeEntity: (_urn, e) => {
      let removed = 0
      for (const rows of e.versions.values()) removed += rows.length
      for (const rows of e.series.values()) removed += rows.length
      return removed
    },
    removeAspect: (_urn, e, name) => {
      const rows = e.versions.get(name) ?? e.series.get(name) ?? []
      e.versions.delete(name)
      e.series.delete(name)
      return rows.length
    },
    revertLatest: (_urn, e, name) => {
      const rows = e.versions.get(name)
      if (!rows) return false
      if (rows.length > 1) rows[0] = rows.pop()!
      else e.versions.delete(name)
      return true
    },
    removeSeries: (e, name, goes) => {
      const rows = e.series.get(name)
      if (!rows) return undefined
      const kept = rows.filter((r) => !goes({runId: r.systemMetadata.runId, timestampMillis: r.timestampMillis!}))
      if (kept.length > 0) e.series.set(name, kept)
      else e.series.delete(name)
      return rows.length - kept.length
    },
    isEmpty: (e) => e.versions.size === 0 && e.series.size === 0,
    forget: (urn) => {
      this.data.entities.delete(urn)
    },
    touched: () => undefined,
  }

  // ---------------------------------------------------------------- reads

  private aspect(urn: string, e: MemEntity, name: string, row: MemRow, version: number, kind: 'versioned' | 'timeseries'): StoredAspect {
    return {urn, entityType: e.type, aspectName: name, kind, version, value: JSON.parse(row.text), created: {...row.created}, systemMetadata: {...row.systemMetadata}}
  }

  private latestTs(rows: MemRow[] | undefined): MemRow | undefined {
    return latestSeriesRow(rows, (r) => r.timestampMillis!, (r) => r.created.time)
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
    return seriesWindow(rows, (r) => r.timestampMillis!, opts).map((r) => this.aspect(urn, e, aspectName, r, 0, 'timeseries'))
  }

  private removed(e: MemEntity): boolean {
    return this.opts.rules.isRemoved(e.versions.get(this.opts.rules.softDeleteAspect)?.[0]?.text)
  }

  async exists(urn: string, opts: {includeSoftDeleted?: boolean} = {}): Promise<boolean> {
    const e = this.data.entities.get(urn)
    if (!e) return false
    return existsFor(() => this.removed(e), opts)
  }

  async listUrns(req: ListUrnsRequest): Promise<{total: number; urns: string[]}> {
    return listingPage(
      [...this.data.entities].filter(([, e]) => (!req.entityType || e.type === req.entityType) && (req.includeSoftDeleted || !this.removed(e))),
      req,
    )
  }

  async latestTexts(urns: string[], aspectNames: readonly string[]): Promise<Map<string, EntityTexts>> {
    const out = new Map<string, EntityTexts>()
    for (const urn of urns) {
      const e = this.data.entities.get(urn)
      if (!e) continue
      const values: Record<string, string> = {}
      for (const n of aspectNames) {
        const rows = e.versions.get(n)
        if (rows) values[n] = rows[0]!.text
      }
      out.set(urn, {id: e.id, entityType: e.type, values})
    }
    return out
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
    return inReferenceOrder(out)
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
