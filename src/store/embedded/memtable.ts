/**
 * The embedded store's memtable: every entity's latest rows in memory (value texts in the arena,
 * old versions' places in the history file, timeseries rows), what the write core does to them
 * (`core/write.ts` through `table`), and every read the store answers from them. It knows nothing
 * of files: the journal, the shards and the manifest are the store's (lowdb-store.ts), which calls
 * `apply` for each journaled op and `onTouch` marks what the next checkpoint must write.
 *
 * Glossary:
 * - Ent: one entity (snapshot.ts): id (listing order), type, last LSN, aspects.
 * - lsn: the journal position of the op being applied; each entity records the last it saw, and a
 *   replay skips ops a loaded shard reflects already.
 * - touch: the entity changed.
 */
import {existsFor, latestSeriesRow, listingPage, seriesWindow} from '../core/read.js'
import {applyWrite, noChange, type RowTable} from '../core/write.js'
import {ReferenceIndex} from '../reference-index.js'
import {RunCounts} from '../run-counts.js'
import type {EntityRecord, EntityRules, EntityTexts, ListUrnsRequest, ReferenceQuery, RunRow, RunSummary, StoredAspect, SystemMetadata, WriteOp, WriteResult} from '../types.js'
import type {HistoryFile, HistoryRecord, OldRow} from './history.js'
import {type AnyRow, isOld, LazyAspect, runIdOf, timeOf} from './rows.js'
import {type Ent, own, put, type TsRow, Versions} from './snapshot.js'
import type {ValueArena} from './values.js'

export class Memtable {
  readonly ents = new Map<string, Ent>()
  /** Entities of each type, so that listing a type costs that type, not the whole store. */
  private readonly byType = new Map<string, Map<string, Ent>>()
  readonly refs: ReferenceIndex
  readonly runs = new RunCounts()
  /** The next entity's id. */
  nextId = 1

  constructor(
    private readonly rules: EntityRules,
    /** Latest value texts, outside the heap (see values.ts). */
    readonly values: ValueArena,
    /** Old versions, on disk (see history.ts). */
    private readonly history: HistoryFile,
    private readonly onTouch: (urn: string) => void,
  ) {
    this.refs = new ReferenceIndex((aspect) => rules.indexesReferences(aspect))
  }

  /** An entity read from a shard: its rows count for their runs, its references are indexed. */
  load(urn: string, e: Ent): void {
    // Runs are counted here, in the one pass over the rows, and kept by replay's ops after.
    for (const v of Object.values(e.a)) {
      this.runs.count(v.sm.runId, v.time, 1)
      for (const r of v.old ?? []) this.runs.count(r[2], r[3], 1)
    }
    for (const rows of Object.values(e.s ?? {})) for (const r of rows) this.runs.count(r[3].runId, r[1], 1)
    this.track(urn, e)
  }

  /** Indexes the references of every loaded entity (before a replay, which keeps them up to date). */
  indexReferences(): void {
    for (const [urn, e] of this.ents) for (const name of Object.keys(e.a)) if (this.refs.indexes(name)) this.refs.add(urn, name, this.latestText(e.a[name]!))
  }

  /** Rows of every entity (versions and timeseries rows). */
  rowCount(): number {
    let aspectRows = 0
    for (const e of this.ents.values()) {
      for (const v of Object.values(e.a)) aspectRows += v.count
      for (const rows of Object.values(e.s ?? {})) aspectRows += rows.length
    }
    return aspectRows
  }

  /** A latest value's text, decoded when asked for (see ReferenceIndex.add). */
  private latestText(v: Versions): () => string {
    const ref = v.ref
    return () => this.values.text(ref)
  }


  /**
   * Moves the live value texts to fresh chunks once replaced ones outweigh them: one pass over
   * the latest rows, paid for by at least as many bytes of writes since the last.
   */
  compactValues(): void {
    this.values.compact((move) => {
      for (const e of this.ents.values()) for (const v of Object.values(e.a)) v.ref = move(v.ref)
    })
  }


  /**
   * One object for equal system metadata: the rows of a batch (often of a whole run) share
   * runId and lastObserved, and a million rows each holding its own copy cost about 80 MiB.
   * Rows never mutate their metadata in place (an identical write replaces it), so sharing is safe.
   */
  shared(sm: SystemMetadata): SystemMetadata {
    // The common shape (a run id and a time) gets its key without JSON.stringify; the NUL in
    // front keeps it apart from any JSON text.
    let n = 0
    for (const _ in sm) n++
    const key = n === 2 && typeof sm.runId === 'string' && typeof sm.lastObserved === 'number' ? `\u0000${sm.runId}\u0000${sm.lastObserved}` : JSON.stringify(sm)
    let hit = this.smCache.get(key)
    if (!hit) {
      if (this.smCache.size >= 1024) this.smCache.clear()
      hit = sm
      this.smCache.set(key, hit)
    }
    return hit
  }

  private readonly smCache = new Map<string, SystemMetadata>()

  /** One string per distinct actor read from the shards. */
  interned(s: string): string {
    let hit = this.actorCache.get(s)
    if (hit === undefined) this.actorCache.set(s, (hit = s))
    return hit
  }

  private readonly actorCache = new Map<string, string>()

  /** The LSN of the op being applied: every entity it touches records it (see `apply`). */
  private lsn = 0

  /** Applies one op. During replay, ops already reflected in a loaded shard are skipped. */
  apply(op: WriteOp, lsn: number, replaying: boolean): WriteResult {
    if (replaying) {
      const existing = this.ents.get(op.urn)
      if (existing && existing.l >= lsn) return noChange(op)
    }
    this.lsn = lsn
    return applyWrite(op, this.table)
  }

  /** The memtable as the write core sees it (see core/write.ts): values in the arena, old versions in the history file. */
  private readonly table: RowTable<Ent> = {
    runs: this.runs,
    entity: (urn) => this.ents.get(urn),
    createEntity: (urn, type) => {
      const e: Ent = {id: this.nextId++, t: type, l: this.lsn, a: {}}
      this.track(urn, e)
      return e
    },
    // The text goes into the arena only when it becomes a version: an identical write stores nothing.
    latestIs: (e, name, text) => {
      const v = own(e.a, name)
      return v ? this.values.equals(v.ref, text) : undefined
    },
    latestSystemMetadata: (e, name) => own(e.a, name)!.sm,
    setLatestSystemMetadata: (e, name, sm) => {
      own(e.a, name)!.sm = sm
    },
    insertLatest: (urn, e, name, text, created, sm) => {
      put(e.a, name, new Versions(this.values.put(text), created.time, created.actor, this.shared(sm)))
      this.refs.add(urn, name, text)
    },
    replaceLatest: (urn, e, name, text, created, sm) => {
      const v = own(e.a, name)!
      // The version it replaces goes to disk; memory keeps where it lies.
      const prevText = this.values.text(v.ref)
      ;(v.old ??= []).push(this.history.append(prevText, v.time, v.actor, v.sm))
      this.refs.remove(urn, name, prevText)
      this.refs.add(urn, name, text)
      this.values.free(v.ref)
      v.ref = this.values.put(text)
      v.time = created.time
      v.actor = created.actor
      v.sm = this.shared(sm)
    },
    putSeries: (e, name, r) => {
      const s = (e.s ??= {})
      let rows = own(s, name)
      if (!rows) put(s, name, (rows = []))
      const row: TsRow = [r.text, r.created.time, r.created.actor, this.shared(r.systemMetadata), r.timestampMillis]
      const same = rows.findIndex((x) => x[4] === r.timestampMillis)
      if (same < 0) {
        rows.push(row)
        return undefined
      }
      const was = rows[same]!
      rows[same] = row
      return {runId: was[3].runId, time: was[1]}
    },
    removeEntity: (urn, e, gone) => {
      let removed = 0
      for (const [name, v] of Object.entries(e.a)) {
        this.refs.remove(urn, name, this.latestText(v))
        this.values.free(v.ref)
        for (const r of v.all()) (removed++, gone(runIdOf(r), timeOf(r)))
      }
      for (const rows of Object.values(e.s ?? {})) for (const r of rows) (removed++, gone(r[3].runId, r[1]))
      return removed
    },
    removeAspect: (urn, e, name, gone) => {
      const latest = own(e.a, name)
      const rows: AnyRow[] = latest?.all() ?? own(e.s, name) ?? []
      for (const r of rows) gone(runIdOf(r), timeOf(r))
      if (latest) {
        this.refs.remove(urn, name, this.latestText(latest))
        this.values.free(latest.ref)
      }
      delete e.a[name]
      if (e.s) delete e.s[name]
      return rows.length
    },
    revertLatest: (urn, e, name, gone) => {
      const v = own(e.a, name)
      if (!v) return false
      gone(v.sm.runId, v.time)
      this.refs.remove(urn, name, this.latestText(v))
      this.values.free(v.ref)
      const popped = v.old?.pop()
      if (popped) {
        // The newest old version becomes the latest again.
        const back = this.history.read(popped)
        v.ref = this.values.put(back.value)
        v.time = back.time
        v.actor = back.actor
        v.sm = this.shared(back.systemMetadata)
        if (v.old!.length === 0) v.old = undefined
        this.refs.add(urn, name, back.value)
      } else delete e.a[name]
      return true
    },
    removeSeries: (e, name, goes, gone) => {
      const rows = own(e.s, name)
      if (!rows) return undefined
      const kept: TsRow[] = []
      for (const r of rows) {
        if (goes({runId: r[3].runId, timestampMillis: r[4]})) gone(r[3].runId, r[1])
        else kept.push(r)
      }
      if (kept.length > 0) put(e.s!, name, kept)
      else delete e.s![name]
      return rows.length - kept.length
    },
    isEmpty: (e) => Object.keys(e.a).length === 0 && Object.keys(e.s ?? {}).length === 0,
    forget: (urn, e) => this.forget(urn, e),
    touched: (urn, e) => {
      e.l = this.lsn
      this.onTouch(urn)
    },
  }

  forget(urn: string, e: Ent): void {
    this.ents.delete(urn)
    this.byType.get(e.t)?.delete(urn)
  }

  track(urn: string, e: Ent): void {
    this.ents.set(urn, e)
    let ofType = this.byType.get(e.t)
    if (!ofType) this.byType.set(e.t, (ofType = new Map()))
    ofType.set(urn, e)
  }



  /**
   * Every urn in the order of the entities' ids. Ids are handed out one by one, so unless most
   * entities were deleted they fill a range little larger than the catalog: placed by id, in a
   * pass, where a sort took 0.6 s at a million entities before the server could listen.
   */
  urnsById(): string[] {
    if (this.nextId > 4 * this.ents.size + 1024) {
      // Sorted through pairs, not map lookups in the comparator (0.3 s at 200,000 entities).
      return [...this.ents].sort((a, b) => a[1].id - b[1].id).map(([u]) => u)
    }
    const slots = new Array<string | undefined>(this.nextId).fill(undefined)
    for (const [urn, e] of this.ents) slots[e.id] = urn
    return slots.filter((u): u is string => u !== undefined)
  }


  // ---------------------------------------------------------------- reads

  /** A version as text and metadata: an old one read back from the history file, a latest one decoded. */
  private materialize(r: AnyRow): HistoryRecord {
    if (r instanceof Versions) return {value: this.values.text(r.ref), time: r.time, actor: r.actor, systemMetadata: r.sm}
    if (isOld(r)) return this.history.read(r)
    return {value: r[0], time: r[1], actor: r[2], systemMetadata: r[3]}
  }

  private envelope(urn: string, e: Ent, name: string, version: AnyRow, v: number, kind: 'versioned' | 'timeseries'): StoredAspect {
    const row = this.materialize(version)
    return new LazyAspect(urn, e.t, name, kind, v, row.value, {time: row.time, actor: row.actor}, row.systemMetadata)
  }

  private latestTs(rows: TsRow[] | undefined): TsRow | undefined {
    return latestSeriesRow(rows, (r) => r[4], (r) => r[1])
  }

  async getAspect(urn: string, aspectName: string, version = 0): Promise<StoredAspect | null> {
    const e = this.ents.get(urn)
    if (!e) return null
    const versions = own(e.a, aspectName)
    if (versions) {
      const row = versions.at(version)
      return row ? this.envelope(urn, e, aspectName, row, version, 'versioned') : null
    }
    const ts = this.latestTs(own(e.s, aspectName))
    return ts && version === 0 ? this.envelope(urn, e, aspectName, ts, 0, 'timeseries') : null
  }

  private record(urn: string, e: Ent, names?: string[]): EntityRecord {
    const aspects: Record<string, StoredAspect> = {}
    const want = names && names.length > 0 ? names : [...Object.keys(e.a), ...Object.keys(e.s ?? {})]
    for (const n of want) {
      const versions = own(e.a, n)
      if (versions) aspects[n] = this.envelope(urn, e, n, versions, 0, 'versioned')
      else {
        const ts = this.latestTs(own(e.s, n))
        if (ts) aspects[n] = this.envelope(urn, e, n, ts, 0, 'timeseries')
      }
    }
    return {urn, entityType: e.t, aspects}
  }

  async getEntity(urn: string, aspectNames?: string[]): Promise<EntityRecord | null> {
    const e = this.ents.get(urn)
    return e ? this.record(urn, e, aspectNames) : null
  }

  async getEntities(urns: string[], aspectNames?: string[]): Promise<Map<string, EntityRecord>> {
    const out = new Map<string, EntityRecord>()
    for (const u of urns) {
      const e = this.ents.get(u)
      if (e) out.set(u, this.record(u, e, aspectNames))
    }
    return out
  }

  async listVersions(urn: string, aspectName: string): Promise<StoredAspect[]> {
    const e = this.ents.get(urn)
    const versions = own(e?.a, aspectName)
    if (!e || !versions) return []
    return versions.all().map((r, v) => this.envelope(urn, e, aspectName, r, v, 'versioned'))
  }

  async listTimeseries(urn: string, aspectName: string, opts: {startTime?: number; endTime?: number; limit?: number} = {}): Promise<StoredAspect[]> {
    const e = this.ents.get(urn)
    const rows = own(e?.s, aspectName)
    if (!e || !rows) return []
    return seriesWindow(rows, (r) => r[4], opts).map((r) => this.envelope(urn, e, aspectName, r, 0, 'timeseries'))
  }

  private removed(e: Ent): boolean {
    const v = own(e.a, this.rules.softDeleteAspect)
    return this.rules.isRemoved(v === undefined ? undefined : this.values.text(v.ref))
  }

  async exists(urn: string, opts: {includeSoftDeleted?: boolean} = {}): Promise<boolean> {
    const e = this.ents.get(urn)
    if (!e) return false
    return existsFor(() => this.removed(e), opts)
  }

  async latestTexts(urns: string[], aspectNames: readonly string[]): Promise<Map<string, EntityTexts>> {
    const out = new Map<string, EntityTexts>()
    for (const urn of urns) {
      const e = this.ents.get(urn)
      if (!e) continue
      const values: Record<string, string> = {}
      for (const n of aspectNames) {
        const v = own(e.a, n)
        if (v) values[n] = this.values.text(v.ref)
      }
      out.set(urn, {id: e.id, entityType: e.t, values})
    }
    return out
  }

  async listUrns(req: ListUrnsRequest): Promise<{total: number; urns: string[]}> {
    // Everything, in id order (a search rebuild asks this of a million-aspect store at its start).
    if (!req.entityType && req.includeSoftDeleted && !req.start && req.count === undefined) {
      const urns = this.urnsById()
      return {total: urns.length, urns}
    }
    const all: Array<[string, Ent]> = []
    const candidates = req.entityType ? (this.byType.get(req.entityType) ?? new Map<string, Ent>()) : this.ents
    for (const [urn, e] of candidates) {
      if (!req.includeSoftDeleted && this.removed(e)) continue
      all.push([urn, e])
    }
    return listingPage(all, req)
  }


  async referencesTo(targets: string[], opts: ReferenceQuery = {}): Promise<Array<{target: string; urn: string; aspectName: string}>> {
    const out: Array<{target: string; urn: string; aspectName: string}> = []
    if (targets.length === 0) return out
    if (opts.aspects && opts.aspects.every((a) => this.rules.indexesReferences(a))) return this.refs.referencesTo(targets, opts.aspects)
    const wanted = new Set(targets)
    const needles = targets.map((t) => ({target: t, text: JSON.stringify(t)}))
    // A few targets: substring tests. Many: pull every quoted urn out of each value once and
    // look it up, so the cost stays one pass over the store.
    const few = targets.length <= 8
    const QUOTED_URN = /"(urn:li:(?:[^"\\]|\\.)*)"/g
    let seen = 0
    for (const [u, e] of this.ents) {
      for (const [name, v] of Object.entries(e.a)) {
        if (opts.aspects && !opts.aspects.includes(name)) continue
        const text = this.values.text(v.ref)
        if (few) {
          for (const n of needles) if (n.target !== u && text.includes(n.text)) out.push({target: n.target, urn: u, aspectName: name})
        } else if (text.includes('urn:li:')) {
          const hit = new Set<string>()
          for (const m of text.matchAll(QUOTED_URN)) {
            const t = JSON.parse(`"${m[1]}"`) as string
            if (t !== u && wanted.has(t) && !hit.has(t)) {
              hit.add(t)
              out.push({target: t, urn: u, aspectName: name})
            }
          }
        }
      }
      // Long scans yield now and then so that the server keeps answering.
      if (++seen % 20000 === 0) await new Promise((r) => setImmediate(r))
    }
    return out
  }

  async listRuns(opts: {start?: number; count?: number} = {}): Promise<RunSummary[]> {
    return this.runs.list(opts)
  }

  async runRows(runId: string): Promise<RunRow[]> {
    const out: RunRow[] = []
    for (const [urn, e] of this.ents) {
      const keyName = this.rules.keyAspectName(e.t)
      for (const [name, versions] of Object.entries(e.a)) {
        versions.all().forEach((r, v) => {
          if (runIdOf(r) !== runId) return
          // The actor of an old version is on disk; read only for the rows of this run.
          const created = r instanceof Versions ? r : this.history.read(r as OldRow)
          out.push({urn, entityType: e.t, aspectName: name, version: v, kind: 'versioned', keyAspect: name === keyName, created: {time: created.time, actor: created.actor}})
        })
      }
      for (const [name, rows] of Object.entries(e.s ?? {})) {
        for (const r of rows) {
          if (r[3].runId === runId) out.push({urn, entityType: e.t, aspectName: name, version: 0, kind: 'timeseries', keyAspect: false, created: {time: r[1], actor: r[2]}})
        }
      }
    }
    return out
  }
}
