/**
 * The embedded store's memtable: every entity's latest rows in memory (value texts in the arena,
 * old versions' places in the history file, timeseries rows), what the write core does to them
 * (`core/write.ts` through `table`), and every read the store answers from them. It knows nothing
 * of files: the journal, the shards and the manifest are the store's (lowdb-store.ts), which calls
 * `apply` for each journaled op and `onTouch` marks what the next checkpoint must write.
 *
 * Layout: columns, not an object per row. An entity is a slot (an index into the entity columns:
 * id, type, last LSN, first aspect row); a versioned aspect is a row (an index into the row
 * columns: name, next row of the same entity, value ref, time, actor, system metadata). Names,
 * types and actors are numbers into tables of their own. Why: a million aspects held as an
 * object per entity, a record of aspects and an object per aspect were about 1.6 million objects
 * that every full collection marked, and whose headers and hidden classes were a large share of
 * the heap; in typed arrays they are a few dozen objects, and a collection marks none of their
 * numbers. What stays objects is what is rare (old versions' places, timeseries rows) and the
 * system metadata, shared by the rows of a batch (a column of references to a few objects).
 *
 * Glossary:
 * - slot: an entity's index in the entity columns; a deleted entity's slot is used again.
 * - row: a versioned aspect's index in the row columns; an entity's rows form a list in the order
 *   the aspects were first written (`next`), as the aspects of an object were listed before.
 * - lsn: the journal position of the op being applied; each entity records the last it saw, and a
 *   replay skips ops a loaded shard reflects already.
 * - touch: the entity changed.
 */
import {existsFor, inReferenceOrder, latestSeriesRow, seriesWindow} from '../core/read.js'
import {applyWrite, noChange, type RowTable} from '../core/write.js'
import {ReferenceIndex} from '../reference-index.js'
import {RunCounts} from '../run-counts.js'
import type {EntityRecord, EntityRules, EntityTexts, ListUrnsRequest, ReferenceQuery, RunRow, RunSummary, StoredAspect, SystemMetadata, WriteOp, WriteResult} from '../types.js'
import type {HistoryFile, HistoryRecord, OldRow} from './history.js'
import {MentionIndex} from './mentions.js'
import {LazyAspect} from './rows.js'
import {grownF64, grownI32, ShardEncoder, type ShardSink, type TsRow} from './snapshot.js'
import type {ValueArena} from './values.js'

const NONE = -1

/** Strings numbered in the order they were first met; a number is never reused. */
class Table {
  readonly all: string[] = []
  private readonly ix = new Map<string, number>()

  /** The number of `s`, adding it when new. */
  id(s: string): number {
    let i = this.ix.get(s)
    if (i === undefined) {
      i = this.all.length
      this.all.push(s)
      this.ix.set(s, i)
    }
    return i
  }

  /** The number of `s`, or NONE when it was never met (a read must not grow the table). */
  find(s: string): number {
    return this.ix.get(s) ?? NONE
  }
}

export class Memtable {
  // ------------------------------------------------------------ entities, by slot
  private readonly slotOf = new Map<string, number>()
  private urnOf: Array<string | undefined> = []
  private eId = new Int32Array(1024)
  private eType = new Int32Array(1024)
  private eLsn = new Float64Array(1024)
  /** First row of the entity's list, NONE when it has no versioned aspect. */
  private eHead = new Int32Array(1024)
  /** Slots in use or freed: every slot below this was handed out once. */
  private slots = 0
  private readonly freeSlots: number[] = []
  /** Timeseries rows by slot, then aspect name, in arrival order (few entities have any). */
  private readonly series = new Map<number, Map<string, TsRow[]>>()

  // ------------------------------------------------------------ versioned aspects, by row
  /** The aspect's name; NONE for a free row. */
  private rName = new Int32Array(4096)
  private rNext = new Int32Array(4096)
  private rActor = new Int32Array(4096)
  /** The latest value's place in the arena (refs pass 2^31 past 128 chunks: not an Int32). */
  private rRef = new Float64Array(4096)
  private rTime = new Float64Array(4096)
  /** Shared objects (see `shared`): a column of references to a few hundred objects. */
  private rSm: Array<SystemMetadata | undefined> = []
  private rows = 0
  private readonly freeRows: number[] = []
  /** Versions 1, 2, … of a row (the version number less one is the index), where an aspect has them. */
  private readonly old = new Map<number, OldRow[]>()

  private readonly names = new Table()
  private readonly types = new Table()
  private readonly actors = new Table()

  readonly refs: ReferenceIndex
  /** Every urn a latest value mentions, built on the first question that needs it (see mentions.ts). */
  private mentions?: MentionIndex
  private mentionsBuilt?: Promise<MentionIndex>
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

  /** Entities held. */
  get size(): number {
    return this.slotOf.size
  }

  // ------------------------------------------------------------ slots and rows

  private newSlot(urn: string, id: number, type: string, lsn: number): number {
    let s = this.freeSlots.pop()
    if (s === undefined) {
      s = this.slots++
      if (s === this.eId.length) {
        this.eId = grownI32(this.eId)
        this.eType = grownI32(this.eType)
        this.eHead = grownI32(this.eHead)
        this.eLsn = grownF64(this.eLsn)
      }
    }
    this.eId[s] = id
    this.eType[s] = this.types.id(type)
    this.eLsn[s] = lsn
    this.eHead[s] = NONE
    this.urnOf[s] = urn
    this.slotOf.set(urn, s)
    return s
  }

  private newRow(s: number, name: number, ref: number, time: number, actor: string, sm: SystemMetadata): number {
    let r = this.freeRows.pop()
    if (r === undefined) {
      r = this.rows++
      if (r === this.rName.length) {
        this.rName = grownI32(this.rName)
        this.rNext = grownI32(this.rNext)
        this.rActor = grownI32(this.rActor)
        this.rRef = grownF64(this.rRef)
        this.rTime = grownF64(this.rTime)
      }
    }
    this.rName[r] = name
    this.rNext[r] = NONE
    this.rRef[r] = ref
    this.rTime[r] = time
    this.rActor[r] = this.actors.id(actor)
    this.rSm[r] = sm
    // At the end of the entity's list: aspects keep the order they were first written in.
    let at = this.eHead[s]!
    if (at === NONE) this.eHead[s] = r
    else {
      while (this.rNext[at] !== NONE) at = this.rNext[at]!
      this.rNext[at] = r
    }
    return r
  }

  /** Takes the row out of its entity's list and frees it. */
  private dropRow(s: number, r: number): void {
    if (this.eHead[s] === r) this.eHead[s] = this.rNext[r]!
    else {
      let at = this.eHead[s]!
      while (at !== NONE && this.rNext[at] !== r) at = this.rNext[at]!
      if (at !== NONE) this.rNext[at] = this.rNext[r]!
    }
    this.rName[r] = NONE
    this.rSm[r] = undefined
    this.old.delete(r)
    this.freeRows.push(r)
  }

  /** The entity's row of the aspect, or NONE. */
  private row(s: number, aspectName: string): number {
    const name = this.names.find(aspectName)
    if (name === NONE) return NONE
    for (let r = this.eHead[s]!; r !== NONE; r = this.rNext[r]!) if (this.rName[r] === name) return r
    return NONE
  }

  /** The entity's rows, in list order. */
  private rowsOf(s: number): number[] {
    const out: number[] = []
    for (let r = this.eHead[s]!; r !== NONE; r = this.rNext[r]!) out.push(r)
    return out
  }

  private nameOf(r: number): string {
    return this.names.all[this.rName[r]!]!
  }

  private smOf(r: number): SystemMetadata {
    return this.rSm[r]!
  }

  private oldOf(r: number): OldRow[] | undefined {
    return this.old.get(r)
  }

  /** Every slot in use. */
  private *liveSlots(): Generator<number> {
    for (let s = 0; s < this.slots; s++) if (this.urnOf[s] !== undefined) yield s
  }

  // ------------------------------------------------------------ loading

  /** Where a start's shards put their rows: entities and rows made here, their runs counted. */
  readonly sink: ShardSink = {
    entity: (urn, id, type, lsn) => {
      // Loading happens before any question; should it not, the index is built again.
      this.mentions = this.mentionsBuilt = undefined
      const was = this.slotOf.get(urn)
      if (was !== undefined) this.forget(urn, was)
      return this.newSlot(urn, id, type, lsn)
    },
    aspect: (s, name, ref, time, actor, sm, old) => {
      // Runs are counted here, in the one pass over the rows, and kept by replay's ops after.
      this.runs.count(sm.runId, time, 1)
      const r = this.newRow(s, this.names.id(name), ref, time, actor, sm)
      if (old && old.length > 0) {
        for (const o of old) this.runs.count(o[2], o[3], 1)
        this.old.set(r, old)
      }
    },
    series: (s, name, rows) => {
      for (const r of rows) this.runs.count(r[3].runId, r[1], 1)
      let m = this.series.get(s)
      if (!m) this.series.set(s, (m = new Map()))
      m.set(name, rows)
    },
  }

  /** Indexes the references of every loaded entity (before a replay, which keeps them up to date). */
  indexReferences(): void {
    for (const s of this.liveSlots()) {
      for (let r = this.eHead[s]!; r !== NONE; r = this.rNext[r]!) {
        const name = this.nameOf(r)
        if (this.refs.indexes(name)) this.refs.add(this.urnOf[s]!, name, this.latestText(r))
      }
    }
  }

  /** The highest entity id and LSN held (a start continues past both). */
  highest(): {id: number; lsn: number} {
    let id = 0
    let lsn = 0
    for (const s of this.liveSlots()) {
      if (this.eId[s]! > id) id = this.eId[s]!
      if (this.eLsn[s]! > lsn) lsn = this.eLsn[s]!
    }
    return {id, lsn}
  }

  /** Rows of every entity (versions and timeseries rows). */
  rowCount(): number {
    let n = 0
    for (let r = 0; r < this.rows; r++) if (this.rName[r] !== NONE) n += 1 + (this.old.get(r)?.length ?? 0)
    for (const m of this.series.values()) for (const rows of m.values()) n += rows.length
    return n
  }

  /** A latest value's text, decoded when asked for (see ReferenceIndex.add). */
  private latestText(r: number): () => string {
    const ref = this.rRef[r]!
    return () => this.values.text(ref)
  }

  /**
   * Moves the live value texts to fresh chunks once replaced ones outweigh them: one pass over
   * the latest rows, paid for by at least as many bytes of writes since the last.
   */
  compactValues(): void {
    this.values.compact((move) => {
      for (let r = 0; r < this.rows; r++) if (this.rName[r] !== NONE) this.rRef[r] = move(this.rRef[r]!)
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
    return this.actors.all[this.actors.id(s)]!
  }

  /** The LSN of the op being applied: every entity it touches records it (see `apply`). */
  private lsn = 0

  /** Whether the entity has a row here, soft-deleted or not (its key aspect was written). */
  has(urn: string): boolean {
    return this.slotOf.has(urn)
  }

  /** Applies one op. During replay, ops already reflected in a loaded shard are skipped. */
  apply(op: WriteOp, lsn: number, replaying: boolean): WriteResult {
    if (replaying) {
      const existing = this.slotOf.get(op.urn)
      if (existing !== undefined && this.eLsn[existing]! >= lsn) return noChange(op)
    }
    this.lsn = lsn
    return applyWrite(op, this.table)
  }

  /** The memtable as the write core sees it (see core/write.ts): an entity is its slot. */
  private readonly table: RowTable<number> = {
    runs: this.runs,
    entity: (urn) => this.slotOf.get(urn),
    createEntity: (urn, type) => this.newSlot(urn, this.nextId++, type, this.lsn),
    // The text goes into the arena only when it becomes a version: an identical write stores nothing.
    latestIs: (s, name, text) => {
      const r = this.row(s, name)
      return r === NONE ? undefined : this.values.equals(this.rRef[r]!, text)
    },
    latestText: (s, name) => this.values.text(this.rRef[this.row(s, name)]!),
    latestSystemMetadata: (s, name) => this.smOf(this.row(s, name)),
    setLatestSystemMetadata: (s, name, sm) => {
      this.rSm[this.row(s, name)] = this.shared(sm)
    },
    insertLatest: (urn, s, name, text, created, sm) => {
      this.newRow(s, this.names.id(name), this.values.put(text), created.time, created.actor, this.shared(sm))
      this.refs.add(urn, name, text)
      this.noteMentions(s, urn, text)
    },
    replaceLatest: (urn, s, name, text, created, sm) => {
      const r = this.row(s, name)
      // The version it replaces goes to disk; memory keeps where it lies.
      const prevText = this.values.text(this.rRef[r]!)
      const placed = this.history.append(prevText, this.rTime[r]!, this.actors.all[this.rActor[r]!]!, this.smOf(r))
      const old = this.old.get(r)
      if (old) old.push(placed)
      else this.old.set(r, [placed])
      this.refs.remove(urn, name, prevText)
      this.refs.add(urn, name, text)
      this.noteMentions(s, urn, text)
      this.values.free(this.rRef[r]!)
      this.rRef[r] = this.values.put(text)
      this.rTime[r] = created.time
      this.rActor[r] = this.actors.id(created.actor)
      this.rSm[r] = this.shared(sm)
    },
    putSeries: (s, name, r) => {
      let m = this.series.get(s)
      if (!m) this.series.set(s, (m = new Map()))
      let rows = m.get(name)
      if (!rows) m.set(name, (rows = []))
      const row: TsRow = [r.text, r.created.time, this.interned(r.created.actor), this.shared(r.systemMetadata), r.timestampMillis]
      const same = rows.findIndex((x) => x[4] === r.timestampMillis)
      if (same < 0) {
        rows.push(row)
        return undefined
      }
      const was = rows[same]!
      rows[same] = row
      return {runId: was[3].runId, time: was[1]}
    },
    removeEntity: (urn, s, gone) => {
      let removed = 0
      for (const r of this.rowsOf(s)) {
        removed += this.dropVersions(urn, s, r, gone)
      }
      for (const rows of this.series.get(s)?.values() ?? []) for (const r of rows) (removed++, gone(r[3].runId, r[1]))
      this.series.delete(s)
      return removed
    },
    removeAspect: (urn, s, name, gone) => {
      const r = this.row(s, name)
      const m = this.series.get(s)
      let removed = 0
      if (r !== NONE) removed = this.dropVersions(urn, s, r, gone)
      else for (const row of m?.get(name) ?? []) (removed++, gone(row[3].runId, row[1]))
      if (m) {
        m.delete(name)
        if (m.size === 0) this.series.delete(s)
      }
      return removed
    },
    revertLatest: (urn, s, name, gone) => {
      const r = this.row(s, name)
      if (r === NONE) return false
      gone(this.smOf(r).runId, this.rTime[r]!)
      this.refs.remove(urn, name, this.latestText(r))
      this.values.free(this.rRef[r]!)
      const old = this.old.get(r)
      const popped = old?.pop()
      if (popped) {
        // The newest old version becomes the latest again.
        const back = this.history.read(popped)
        this.rRef[r] = this.values.put(back.value)
        this.rTime[r] = back.time
        this.rActor[r] = this.actors.id(back.actor)
        this.rSm[r] = this.shared(back.systemMetadata)
        if (old!.length === 0) this.old.delete(r)
        this.refs.add(urn, name, back.value)
        this.noteMentions(s, urn, back.value)
      } else this.dropRow(s, r)
      return true
    },
    removeSeries: (s, name, goes, gone) => {
      const m = this.series.get(s)
      const rows = m?.get(name)
      if (!m || !rows) return undefined
      const kept: TsRow[] = []
      for (const r of rows) {
        if (goes({runId: r[3].runId, timestampMillis: r[4]})) gone(r[3].runId, r[1])
        else kept.push(r)
      }
      if (kept.length > 0) m.set(name, kept)
      else {
        m.delete(name)
        if (m.size === 0) this.series.delete(s)
      }
      return rows.length - kept.length
    },
    isEmpty: (s) => this.eHead[s] === NONE && !this.series.has(s),
    forget: (urn, s) => this.forget(urn, s),
    touched: (urn, s) => {
      this.eLsn[s] = this.lsn
      this.onTouch(urn)
    },
  }

  /** Removes a versioned aspect with every version of it, each counted `gone`; returns how many. */
  private dropVersions(urn: string, s: number, r: number, gone: (runId: string | undefined, time: number) => void): number {
    this.refs.remove(urn, this.nameOf(r), this.latestText(r))
    this.values.free(this.rRef[r]!)
    gone(this.smOf(r).runId, this.rTime[r]!)
    const old = this.old.get(r) ?? []
    for (const o of old) gone(o[2], o[3])
    this.dropRow(s, r)
    return 1 + old.length
  }

  private forget(urn: string, s: number): void {
    // Rows still listed (a shard naming an urn twice) go with the slot.
    for (let r = this.eHead[s]!; r !== NONE; ) {
      const next = this.rNext[r]!
      this.values.free(this.rRef[r]!)
      this.dropRow(s, r)
      r = next
    }
    this.series.delete(s)
    this.slotOf.delete(urn)
    this.urnOf[s] = undefined
    this.freeSlots.push(s)
  }

  // ------------------------------------------------------------ checkpoints

  /** Every urn held, in no particular order. */
  urns(): IterableIterator<string> {
    return this.slotOf.keys()
  }

  /** A shard file of the entities of `urns` still held (one deleted since it was listed is left out). */
  encodeShard(urns: readonly string[], format: string): Buffer {
    const enc = new ShardEncoder()
    for (const urn of urns) {
      const s = this.slotOf.get(urn)
      if (s === undefined) continue
      const rows = this.rowsOf(s)
      enc.entity(urn, this.eId[s]!, this.types.all[this.eType[s]!]!, this.eLsn[s]!, rows.length)
      for (const r of rows) enc.aspect(this.nameOf(r), this.values, this.rRef[r]!, this.rTime[r]!, this.actors.all[this.rActor[r]!]!, this.smOf(r), this.oldOf(r))
      for (const [name, ts] of this.series.get(s) ?? []) enc.series(name, ts)
    }
    return enc.finish(format)
  }

  /**
   * Every urn in the order of the entities' ids. Ids are handed out one by one, so unless most
   * entities were deleted they fill a range little larger than the catalog: placed by id, in a
   * pass, where a sort took 0.6 s at a million entities before the server could listen.
   */
  urnsById(): string[] {
    if (this.nextId > 4 * this.slotOf.size + 1024) return this.sortedById([...this.liveSlots()]).map((s) => this.urnOf[s]!)
    const slots = new Array<string | undefined>(this.nextId).fill(undefined)
    for (const s of this.liveSlots()) slots[this.eId[s]!] = this.urnOf[s]
    return slots.filter((u): u is string => u !== undefined)
  }

  /** Slots in listing order (by entity id). */
  private sortedById(slots: number[]): number[] {
    const ids = this.eId
    return slots.sort((a, b) => ids[a]! - ids[b]!)
  }

  // ---------------------------------------------------------------- reads

  private latestEnvelope(urn: string, s: number, name: string, r: number): StoredAspect {
    return new LazyAspect(urn, this.types.all[this.eType[s]!]!, name, 'versioned', 0, this.values.text(this.rRef[r]!), {time: this.rTime[r]!, actor: this.actors.all[this.rActor[r]!]!}, this.smOf(r))
  }

  private oldEnvelope(urn: string, s: number, name: string, o: OldRow, v: number): StoredAspect {
    const row: HistoryRecord = this.history.read(o)
    return new LazyAspect(urn, this.types.all[this.eType[s]!]!, name, 'versioned', v, row.value, {time: row.time, actor: row.actor}, row.systemMetadata)
  }

  private seriesEnvelope(urn: string, s: number, name: string, t: TsRow): StoredAspect {
    return new LazyAspect(urn, this.types.all[this.eType[s]!]!, name, 'timeseries', 0, t[0], {time: t[1], actor: t[2]}, t[3])
  }

  private latestTs(rows: TsRow[] | undefined): TsRow | undefined {
    return latestSeriesRow(rows, (r) => r[4], (r) => r[1])
  }

  async getAspect(urn: string, aspectName: string, version = 0): Promise<StoredAspect | null> {
    const s = this.slotOf.get(urn)
    if (s === undefined) return null
    const r = this.row(s, aspectName)
    if (r !== NONE) {
      if (version === 0) return this.latestEnvelope(urn, s, aspectName, r)
      const o = this.oldOf(r)?.[version - 1]
      return o ? this.oldEnvelope(urn, s, aspectName, o, version) : null
    }
    const ts = this.latestTs(this.series.get(s)?.get(aspectName))
    return ts && version === 0 ? this.seriesEnvelope(urn, s, aspectName, ts) : null
  }

  private record(urn: string, s: number, names?: string[]): EntityRecord {
    const aspects: Record<string, StoredAspect> = {}
    const series = this.series.get(s)
    if (names && names.length > 0) {
      for (const n of names) {
        const r = this.row(s, n)
        if (r !== NONE) aspects[n] = this.latestEnvelope(urn, s, n, r)
        else {
          const ts = this.latestTs(series?.get(n))
          if (ts) aspects[n] = this.seriesEnvelope(urn, s, n, ts)
        }
      }
    } else {
      for (let r = this.eHead[s]!; r !== NONE; r = this.rNext[r]!) {
        const n = this.nameOf(r)
        aspects[n] = this.latestEnvelope(urn, s, n, r)
      }
      for (const [n, rows] of series ?? []) {
        if (Object.hasOwn(aspects, n)) continue
        const ts = this.latestTs(rows)
        if (ts) aspects[n] = this.seriesEnvelope(urn, s, n, ts)
      }
    }
    return {urn, entityType: this.types.all[this.eType[s]!]!, aspects}
  }

  async getEntity(urn: string, aspectNames?: string[]): Promise<EntityRecord | null> {
    const s = this.slotOf.get(urn)
    return s === undefined ? null : this.record(urn, s, aspectNames)
  }

  async getEntities(urns: string[], aspectNames?: string[]): Promise<Map<string, EntityRecord>> {
    const out = new Map<string, EntityRecord>()
    for (const u of urns) {
      const s = this.slotOf.get(u)
      if (s !== undefined) out.set(u, this.record(u, s, aspectNames))
    }
    return out
  }

  async listVersions(urn: string, aspectName: string): Promise<StoredAspect[]> {
    const s = this.slotOf.get(urn)
    if (s === undefined) return []
    const r = this.row(s, aspectName)
    if (r === NONE) return []
    const out = [this.latestEnvelope(urn, s, aspectName, r)]
    ;(this.oldOf(r) ?? []).forEach((o, i) => out.push(this.oldEnvelope(urn, s, aspectName, o, i + 1)))
    return out
  }

  async listTimeseries(urn: string, aspectName: string, opts: {startTime?: number; endTime?: number; limit?: number} = {}): Promise<StoredAspect[]> {
    const s = this.slotOf.get(urn)
    const rows = s === undefined ? undefined : this.series.get(s)?.get(aspectName)
    if (s === undefined || !rows) return []
    return seriesWindow(rows, (r) => r[4], opts).map((r) => this.seriesEnvelope(urn, s, aspectName, r))
  }

  private removed(s: number): boolean {
    const r = this.row(s, this.rules.softDeleteAspect)
    return this.rules.isRemoved(r === NONE ? undefined : this.values.text(this.rRef[r]!))
  }

  async exists(urn: string, opts: {includeSoftDeleted?: boolean} = {}): Promise<boolean> {
    const s = this.slotOf.get(urn)
    if (s === undefined) return false
    return existsFor(() => this.removed(s), opts)
  }

  async latestTexts(urns: string[], aspectNames: readonly string[]): Promise<Map<string, EntityTexts>> {
    const out = new Map<string, EntityTexts>()
    for (const urn of urns) {
      const s = this.slotOf.get(urn)
      if (s === undefined) continue
      const values: Record<string, string> = {}
      for (const n of aspectNames) {
        const r = this.row(s, n)
        if (r !== NONE) values[n] = this.values.text(this.rRef[r]!)
      }
      out.set(urn, {id: this.eId[s]!, entityType: this.types.all[this.eType[s]!]!, values})
    }
    return out
  }

  async listUrns(req: ListUrnsRequest): Promise<{total: number; urns: string[]}> {
    // Everything, in id order (a search rebuild asks this of a million-aspect store at its start).
    if (!req.entityType && req.includeSoftDeleted && !req.start && req.count === undefined) {
      const urns = this.urnsById()
      return {total: urns.length, urns}
    }
    const type = req.entityType ? this.types.find(req.entityType) : NONE
    if (req.entityType && type === NONE) return {total: 0, urns: []}
    const all: number[] = []
    // One pass over a column of numbers: cheaper than the map per type it replaces was to keep.
    for (const s of this.liveSlots()) {
      if (type !== NONE && this.eType[s] !== type) continue
      if (!req.includeSoftDeleted && this.removed(s)) continue
      all.push(s)
    }
    // As core/read.ts's listingPage: by id, then the page.
    this.sortedById(all)
    const start = req.start ?? 0
    return {total: all.length, urns: all.slice(start, start + (req.count ?? all.length)).map((s) => this.urnOf[s]!)}
  }

  async referencesTo(targets: string[], opts: ReferenceQuery = {}): Promise<Array<{target: string; urn: string; aspectName: string}>> {
    const out: Array<{target: string; urn: string; aspectName: string}> = []
    if (targets.length === 0) return out
    if (opts.aspects && opts.aspects.every((a) => this.rules.indexesReferences(a))) return inReferenceOrder(this.refs.referencesTo(targets, opts.aspects))
    const mentions = await this.mentionIndex()
    for (const target of new Set(targets)) {
      const needle = JSON.stringify(target)
      const live: number[] = []
      // Synchronous from candidates to settle (see MentionIndex.settle).
      for (const s of mentions.candidates(target)) {
        const u = this.urnOf[s]
        if (u === undefined || u === target) continue
        let holds = false
        for (let r = this.eHead[s]!; r !== NONE; r = this.rNext[r]!) {
          if (!this.values.text(this.rRef[r]!).includes(needle)) continue
          holds = true
          const name = this.nameOf(r)
          if (!opts.aspects || opts.aspects.includes(name)) out.push({target, urn: u, aspectName: name})
        }
        if (holds) live.push(s)
      }
      mentions.settle(target, live)
    }
    return inReferenceOrder(out)
  }

  private noteMentions(s: number, urn: string, text: string): void {
    const m = this.mentions
    if (!m) return
    m.note(s, urn, text)
    if (m.outgrown) this.mentions = this.mentionsBuilt = undefined
  }

  /** The mention index, built by one pass over the values the first time it is asked for. */
  private mentionIndex(): Promise<MentionIndex> {
    if (this.mentionsBuilt) return this.mentionsBuilt
    const index = new MentionIndex()
    // Writes while the pass yields are noted from now on; the pass notes what it finds.
    this.mentions = index
    const built = (async () => {
      let seen = 0
      for (const s of [...this.liveSlots()]) {
        const u = this.urnOf[s]
        if (u === undefined) continue
        for (let r = this.eHead[s]!; r !== NONE; r = this.rNext[r]!) index.note(s, u, this.values.text(this.rRef[r]!))
        // A long pass yields now and then so that the server keeps answering.
        if (++seen % 20000 === 0) await new Promise((r) => setImmediate(r))
      }
      index.markBuilt()
      return index
    })()
    this.mentionsBuilt = built
    return built
  }

  async listRuns(opts: {start?: number; count?: number} = {}): Promise<RunSummary[]> {
    return this.runs.list(opts)
  }

  async runRows(runId: string): Promise<RunRow[]> {
    const out: RunRow[] = []
    for (const s of this.liveSlots()) {
      const urn = this.urnOf[s]!
      const entityType = this.types.all[this.eType[s]!]!
      const keyName = this.rules.keyAspectName(entityType)
      for (let r = this.eHead[s]!; r !== NONE; r = this.rNext[r]!) {
        const name = this.nameOf(r)
        const row = (version: number, created: {time: number; actor: string}): RunRow => ({urn, entityType, aspectName: name, version, kind: 'versioned', keyAspect: name === keyName, created})
        if (this.smOf(r).runId === runId) out.push(row(0, {time: this.rTime[r]!, actor: this.actors.all[this.rActor[r]!]!}))
        ;(this.oldOf(r) ?? []).forEach((o, i) => {
          if (o[2] !== runId) return
          // The actor of an old version is on disk; read only for the rows of this run.
          const back = this.history.read(o)
          out.push(row(i + 1, {time: back.time, actor: back.actor}))
        })
      }
      for (const [name, rows] of this.series.get(s) ?? []) {
        for (const r of rows) {
          if (r[3].runId === runId) out.push({urn, entityType, aspectName: name, version: 0, kind: 'timeseries', keyAspect: false, created: {time: r[1], actor: r[2]}})
        }
      }
    }
    return out
  }
}
