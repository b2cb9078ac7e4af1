/**
 * The embedded store: lowdb snapshot shards beside a write-ahead journal.
 *
 * Why this shape. lowdb's stock JSON adapter rewrites the whole store, pretty-printed, on every
 * write (about 3 s at 100,000 entities) and cannot hold more than about 120,000 entities at all
 * (V8's maximum string length). So a write here never touches the snapshot:
 *
 *   write(ops) ─► queue ─► one append of every queued batch to wal/<seq>.log ─► fdatasync
 *                                   ─► apply to memory ─► acknowledge
 *
 * Concurrent writers share one append and one sync (group commit), so the cost of a write is
 * its own bytes, whatever the size of the store. Every op carries a log sequence number (LSN).
 *
 * Checkpoints keep the journal short: when it passes `checkpointBytes` (and on close), the
 * journal rotates to a new segment and each snapshot shard touched since the last checkpoint is
 * rewritten through lowdb (`shards/shard-NN.json`, `DataFile` with compact JSON; steno writes a
 * temp file and renames it, so an interrupted write never leaves a torn shard). Then
 * `manifest.json` records the first journal segment still needed, and older segments go.
 * Entities are spread over shards by a hash of the urn, so no single file nears V8's string
 * limit: 64 shards hold well over a million aspects.
 *
 * Recovery: load the shards, then replay the journal from the manifest's segment. Each entity
 * remembers the LSN of the last op applied to it, and replay skips ops at or below it, because a
 * shard may have been written after some ops of a later segment were applied. A torn last line
 * (a batch whose sync never completed, so it was never acknowledged) is cut off; any other
 * unreadable file stops the start with a StoreCorruptError and is left as it is.
 *
 * In memory every aspect value stays JSON text, parsed only when read: strings are far more
 * compact than object graphs, and the text is what the journal and the shards hold anyway.
 */
import {closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, fstatSync, unlinkSync, writeFileSync, readdirSync, statSync} from 'node:fs'
import {open as openFile, type FileHandle, rm, truncate} from 'node:fs/promises'
import {join} from 'node:path'
import {Low} from 'lowdb'
import {DataFile} from 'lowdb/node'
import {StoreCorruptError, StoreLockedError} from '../errors.js'
import {isSearchAspect} from '../model/search-doc.js'
import {Worker} from 'node:worker_threads'
import type {FromWorker, IndexItem, ToWorker} from './search-worker.js'
import type {
  AuditStamp,
  EntityRecord,
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

const FORMAT = 'mdcli-lowdb-1'

/** [value JSON, created time, created actor, system metadata]; the version is the array index. */
type Row = [string, number, string, SystemMetadata]
/** Timeseries row: a Row plus its timestampMillis. */
type TsRow = [string, number, string, SystemMetadata, number]

interface Ent {
  /** Stable small id (search index, cursor order). */
  id: number
  /** Entity type. */
  t: string
  /** LSN of the last op applied. */
  l: number
  /** Versioned aspects: rows[0] is version 0 (latest); rows[i] is version i. */
  a: Record<string, Row[]>
  /** Timeseries aspects, in arrival order. */
  s?: Record<string, TsRow[]>
}

interface ShardData {
  format: string
  entities: Record<string, Ent>
}

interface Manifest {
  format: string
  shards: number
  /** First journal segment that recovery must replay. */
  walFrom: number
  nextId: number
}

interface JournalRecord {
  /** LSN of the first op; op i has LSN l + i. */
  l: number
  o: WriteOp[]
}

interface Pending {
  ops: WriteOp[]
  resolve: (r: WriteResult[]) => void
  reject: (e: unknown) => void
}

export interface LowdbStoreOptions {
  /** Directory holding the store's files. */
  dir: string
  /** Journal bytes after which a checkpoint runs. */
  checkpointBytes?: number
  shards?: number
  /** Entity types listed by search when a request names none. */
  searchableTypes: readonly string[]
  /** Timeseries aspect names (their rows are appended, not versioned). */
  isTimeseries: (aspectName: string) => boolean
  /** Called with a warning line (torn journal tail cut, etc.). */
  warn?: (msg: string) => void
  /** fsync journal appends (on by default; tests of throughput may turn it off). */
  sync?: boolean
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

const segName = (seq: number): string => `${String(seq).padStart(8, '0')}.log`

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export class LowdbStore implements MetadataStore {
  private readonly dir: string
  private readonly nShards: number
  private readonly checkpointBytes: number
  private readonly opts: LowdbStoreOptions
  private readonly ents = new Map<string, Ent>()
  private readonly runs = new Map<string, RunSummary>()
  private worker: Worker | null = null
  private readonly queries = new Map<number, {resolve: (r: SearchResponse) => void; reject: (e: Error) => void}>()
  private querySeq = 0
  private readonly pendingIndex = new Set<string>()
  private indexScheduled = false
  private indexReady: Promise<void> = Promise.resolve()
  private dirty = new Set<number>()
  private nextId = 1
  private nextLsn = 1
  private walSeq = 0
  private walFh: FileHandle | null = null
  private walSize = 0
  private walBytesSinceCheckpoint = 0
  private queue: Pending[] = []
  private flushing: Promise<void> | null = null
  private checkpointing: Promise<void> | null = null
  private opened = false
  private closed = false
  private lockPath: string

  constructor(opts: LowdbStoreOptions) {
    this.opts = opts
    this.dir = opts.dir
    this.nShards = opts.shards ?? 64
    this.checkpointBytes = opts.checkpointBytes ?? 256 * 1024 * 1024
    this.lockPath = join(this.dir, 'LOCK')
  }

  // ---------------------------------------------------------------- lifecycle

  async open(): Promise<void> {
    mkdirSync(join(this.dir, 'shards'), {recursive: true})
    mkdirSync(join(this.dir, 'wal'), {recursive: true})
    this.lock()
    try {
      const manifest = await this.readManifest()
      this.nextId = manifest.nextId
      await this.loadShards(manifest)
      const lastSeq = await this.replay(manifest.walFrom)
      this.walSeq = lastSeq + 1
      await this.openSegment()
      for (const e of this.ents.values()) {
        if (e.id >= this.nextId) this.nextId = e.id + 1
        if (e.l >= this.nextLsn) this.nextLsn = e.l + 1
      }
      this.rebuildRuns()
      this.opened = true
      this.startWorker()
      this.indexReady = this.buildIndexInBackground()
    } catch (e) {
      this.unlock()
      throw e
    }
  }

  async close(): Promise<void> {
    if (!this.opened || this.closed) return
    await this.drain()
    await this.checkpoint()
    await this.walFh?.close()
    this.walFh = null
    this.closed = true
    await this.worker?.terminate()
    this.worker = null
    this.unlock()
  }

  private lock(): void {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.lockPath, 'wx')
        writeFileSync(fd, String(process.pid))
        closeSync(fd)
        return
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
        const pid = Number.parseInt(readFileSync(this.lockPath, 'utf8'), 10)
        if (Number.isFinite(pid) && pid !== process.pid && pidAlive(pid)) {
          throw new StoreLockedError(`Store ${this.dir} is in use by process ${pid}; stop it first or use another --store`)
        }
        // The holder died (kill -9 leaves the lock behind): take over.
        unlinkSync(this.lockPath)
      }
    }
    throw new StoreLockedError(`Could not lock store ${this.dir}`)
  }

  private unlock(): void {
    try {
      if (readFileSync(this.lockPath, 'utf8') === String(process.pid)) unlinkSync(this.lockPath)
    } catch {
      /* already gone */
    }
  }

  private manifestDb(): Low<Manifest | null> {
    return new Low<Manifest | null>(new DataFile<Manifest | null>(join(this.dir, 'manifest.json'), {parse: JSON.parse, stringify: (d) => JSON.stringify(d, null, 2)}), null)
  }

  private shardDb(i: number): Low<ShardData | null> {
    const file = join(this.dir, 'shards', `shard-${String(i).padStart(2, '0')}.json`)
    return new Low<ShardData | null>(new DataFile<ShardData | null>(file, {parse: JSON.parse, stringify: JSON.stringify}), null)
  }

  private async readManifest(): Promise<Manifest> {
    const db = this.manifestDb()
    try {
      await db.read()
    } catch (e) {
      throw new StoreCorruptError(`Store manifest ${join(this.dir, 'manifest.json')} cannot be read (${(e as Error).message}); the store was left untouched`)
    }
    if (db.data === null) {
      if (readdirSync(join(this.dir, 'shards')).some((f) => f.endsWith('.json'))) {
        throw new StoreCorruptError(`Store ${this.dir} has shard files but no manifest.json; the store was left untouched`)
      }
      const fresh: Manifest = {format: FORMAT, shards: this.nShards, walFrom: 1, nextId: 1}
      db.data = fresh
      await db.write()
      return fresh
    }
    const m = db.data
    if (m.format !== FORMAT || typeof m.walFrom !== 'number' || typeof m.shards !== 'number') {
      throw new StoreCorruptError(`Store manifest ${join(this.dir, 'manifest.json')} is not a ${FORMAT} manifest; the store was left untouched`)
    }
    if (m.shards !== this.nShards) {
      throw new StoreCorruptError(`Store ${this.dir} was written with ${m.shards} shards, this build uses ${this.nShards}`)
    }
    return m
  }

  private async loadShards(m: Manifest): Promise<void> {
    for (let i = 0; i < m.shards; i++) {
      const db = this.shardDb(i)
      try {
        await db.read()
      } catch (e) {
        throw new StoreCorruptError(`Store shard ${join(this.dir, 'shards', `shard-${String(i).padStart(2, '0')}.json`)} cannot be parsed (${(e as Error).message}); the store was left untouched`)
      }
      if (db.data === null) continue
      for (const [urn, e] of Object.entries(db.data.entities)) this.track(urn, e)
    }
  }

  /** Replays journal segments from `from`; returns the last segment number seen. */
  private async replay(from: number): Promise<number> {
    const walDir = join(this.dir, 'wal')
    const segs = readdirSync(walDir)
      .filter((f) => /^\d{8}\.log$/.test(f))
      .map((f) => Number.parseInt(f, 10))
      .sort((a, b) => a - b)
    let last = from - 1
    for (const seq of segs) {
      if (seq < from) continue
      last = seq
      const path = join(walDir, segName(seq))
      const buf = readWhole(path)
      let pos = 0
      while (pos < buf.length) {
        const nl = buf.indexOf(10, pos)
        const isLastSeg = seq === segs[segs.length - 1]
        if (nl === -1) {
          // A tail without its newline is a batch whose sync never finished: never acknowledged.
          if (!isLastSeg) throw new StoreCorruptError(`Journal ${path} ends in a torn record but is not the newest segment; the store was left untouched`)
          this.opts.warn?.(`journal ${path}: dropped an incomplete last record (${buf.length - pos} bytes) from an interrupted write`)
          await truncate(path, pos)
          break
        }
        let rec: JournalRecord
        try {
          rec = JSON.parse(buf.toString('utf8', pos, nl)) as JournalRecord
        } catch {
          if (isLastSeg && nl === buf.length - 1) {
            this.opts.warn?.(`journal ${path}: dropped an unreadable last record from an interrupted write`)
            await truncate(path, pos)
            break
          }
          throw new StoreCorruptError(`Journal ${path} has an unreadable record at byte ${pos}; the store was left untouched`)
        }
        rec.o.forEach((op, i) => this.apply(op, rec.l + i, true))
        if (rec.l + rec.o.length > this.nextLsn) this.nextLsn = rec.l + rec.o.length
        pos = nl + 1
      }
      this.walBytesSinceCheckpoint += buf.length
    }
    return last
  }

  private async openSegment(): Promise<void> {
    this.walFh = await openFile(join(this.dir, 'wal', segName(this.walSeq)), 'a')
    this.walSize = 0
  }

  // ---------------------------------------------------------------- writes

  write(ops: WriteOp[]): Promise<WriteResult[]> {
    if (!this.opened || this.closed) return Promise.reject(new Error('store is not open'))
    if (ops.length === 0) return Promise.resolve([])
    return new Promise<WriteResult[]>((resolve, reject) => {
      this.queue.push({ops, resolve, reject})
      if (!this.flushing) this.flushing = this.flushLoop()
    })
  }

  private async drain(): Promise<void> {
    while (this.flushing) await this.flushing
    if (this.checkpointing) await this.checkpointing
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue
        this.queue = []
        const firstLsn = this.nextLsn
        let lsn = firstLsn
        const lines: string[] = []
        for (const p of batch) {
          lines.push(JSON.stringify({l: lsn, o: p.ops} satisfies JournalRecord))
          lsn += p.ops.length
        }
        const buf = Buffer.from(lines.join('\n') + '\n', 'utf8')
        const fh = this.walFh!
        try {
          await fh.write(buf, 0, buf.length, null)
          if (this.opts.sync !== false) await fh.datasync()
        } catch (e) {
          // Cut the partial append so the journal never holds a torn record mid-file.
          await fh.truncate(this.walSize).catch(() => undefined)
          for (const p of batch) p.reject(e)
          continue
        }
        this.walSize += buf.length
        this.walBytesSinceCheckpoint += buf.length
        this.nextLsn = lsn
        let opLsn = firstLsn
        for (const p of batch) {
          const results = p.ops.map((op) => this.apply(op, opLsn++, false))
          p.resolve(results)
        }
        this.scheduleIndex()
        if (this.walBytesSinceCheckpoint >= this.checkpointBytes && !this.checkpointing) {
          void this.checkpoint().catch((e) => this.opts.warn?.(`checkpoint failed: ${(e as Error).message}`))
        }
      }
    } finally {
      this.flushing = null
    }
  }

  private shardOf(urn: string): number {
    return fnv1a(urn) % this.nShards
  }

  /** Marks the entity's shard for the next checkpoint and, when asked, the entity for re-indexing. */
  private touch(urn: string, reindex = true): void {
    this.dirty.add(this.shardOf(urn))
    if (reindex) this.pendingIndex.add(urn)
  }

  private countRun(sm: SystemMetadata, time: number, delta: number): void {
    const runId = sm.runId
    if (!runId) return
    let r = this.runs.get(runId)
    if (!r) {
      if (delta <= 0) return
      r = {runId, timestamp: time, rows: 0}
      this.runs.set(runId, r)
    }
    r.rows += delta
    if (delta > 0 && time < r.timestamp) r.timestamp = time
    if (r.rows <= 0) this.runs.delete(runId)
  }

  /**
   * One object for equal system metadata: the rows of a batch (often of a whole run) share
   * runId and lastObserved, and a million rows each holding its own copy cost about 80 MiB.
   * Rows never mutate their metadata in place (an identical write replaces it), so sharing is safe.
   */
  private shared(sm: SystemMetadata): SystemMetadata {
    const key = JSON.stringify(sm)
    let hit = this.smCache.get(key)
    if (!hit) {
      if (this.smCache.size >= 1024) this.smCache.clear()
      hit = sm
      this.smCache.set(key, hit)
    }
    return hit
  }

  private readonly smCache = new Map<string, SystemMetadata>()

  /** Applies one op. During replay, ops already reflected in a loaded shard are skipped. */
  private apply(op: WriteOp, lsn: number, replaying: boolean): WriteResult {
    const existing = this.ents.get(op.urn)
    const aspectName = 'aspectName' in op ? op.aspectName : undefined
    if (replaying && existing && existing.l >= lsn) return {urn: op.urn, aspectName, changed: false, createdEntity: false, rowsRemoved: 0}
    switch (op.op) {
      case 'upsert':
      case 'timeseries': {
        const sm = this.shared(op.systemMetadata)
        let e = existing
        let createdEntity = false
        if (!e) {
          e = {id: this.nextId++, t: op.entityType, l: lsn, a: {}}
          this.track(op.urn, e)
          createdEntity = true
          if (op.keyAspect && op.keyAspect.name !== op.aspectName) {
            e.a[op.keyAspect.name] = [[op.keyAspect.value, op.created.time, op.created.actor, sm]]
            this.countRun(op.systemMetadata, op.created.time, 1)
          }
        }
        e.l = lsn
        let changed = true
        if (op.op === 'upsert') {
          const rows = e.a[op.aspectName]
          const row: Row = [op.value, op.created.time, op.created.actor, sm]
          if (!rows) e.a[op.aspectName] = [row]
          else if (rows[0]![0] === op.value) {
            // DataHub: an identical value writes no version; only lastObserved and lastRunId move.
            const prev = rows[0]![3]
            rows[0]![3] = {...prev, lastObserved: op.systemMetadata.lastObserved ?? prev.lastObserved, lastRunId: op.systemMetadata.runId ?? prev.lastRunId}
            changed = false
          } else {
            rows.push(rows[0]!)
            rows[0] = row
          }
        } else {
          const s = (e.s ??= {})
          const rows = (s[op.aspectName] ??= [])
          const row: TsRow = [op.value, op.created.time, op.created.actor, sm, op.timestampMillis]
          const same = rows.findIndex((r) => r[4] === op.timestampMillis)
          if (same >= 0) {
            this.countRun(rows[same]![3], rows[same]![1], -1)
            rows[same] = row
          } else rows.push(row)
        }
        if (changed) this.countRun(op.systemMetadata, op.created.time, 1)
        // Search reads a few aspects only; identical writes and other aspects leave it as it was.
        this.touch(op.urn, createdEntity || (changed && op.op === 'upsert' && isSearchAspect(op.aspectName)))
        return {urn: op.urn, aspectName: op.aspectName, changed, createdEntity, rowsRemoved: 0}
      }
      case 'deleteEntity': {
        if (!existing) return {urn: op.urn, changed: false, createdEntity: false, rowsRemoved: 0}
        let removed = 0
        for (const rows of Object.values(existing.a)) for (const r of rows) (removed++, this.countRun(r[3], r[1], -1))
        for (const rows of Object.values(existing.s ?? {})) for (const r of rows) (removed++, this.countRun(r[3], r[1], -1))
        this.forget(op.urn, existing)
        this.touch(op.urn)
        return {urn: op.urn, changed: true, createdEntity: false, rowsRemoved: removed}
      }
      case 'deleteAspect': {
        if (!existing) return {urn: op.urn, aspectName, changed: false, createdEntity: false, rowsRemoved: 0}
        const rows: Array<Row | TsRow> = existing.a[op.aspectName] ?? existing.s?.[op.aspectName] ?? []
        for (const r of rows) this.countRun(r[3], r[1], -1)
        delete existing.a[op.aspectName]
        if (existing.s) delete existing.s[op.aspectName]
        existing.l = lsn
        this.dropIfEmpty(op.urn, existing)
        this.touch(op.urn)
        return {urn: op.urn, aspectName, changed: rows.length > 0, createdEntity: false, rowsRemoved: rows.length}
      }
      case 'revert': {
        const rows = existing?.a[op.aspectName]
        if (!existing || !rows) return {urn: op.urn, aspectName, changed: false, createdEntity: false, rowsRemoved: 0}
        const top = rows[0]!
        this.countRun(top[3], top[1], -1)
        if (rows.length > 1) rows[0] = rows.pop()!
        else delete existing.a[op.aspectName]
        existing.l = lsn
        this.dropIfEmpty(op.urn, existing)
        this.touch(op.urn)
        return {urn: op.urn, aspectName, changed: true, createdEntity: false, rowsRemoved: 1}
      }
      case 'deleteTimeseriesOfRun': {
        const rows = existing?.s?.[op.aspectName]
        if (!existing || !rows) return {urn: op.urn, aspectName, changed: false, createdEntity: false, rowsRemoved: 0}
        const kept = rows.filter((r) => r[3].runId !== op.runId)
        const removed = rows.length - kept.length
        for (const r of rows) if (r[3].runId === op.runId) this.countRun(r[3], r[1], -1)
        if (kept.length > 0) existing.s![op.aspectName] = kept
        else delete existing.s![op.aspectName]
        existing.l = lsn
        this.dropIfEmpty(op.urn, existing)
        this.touch(op.urn)
        return {urn: op.urn, aspectName, changed: removed > 0, createdEntity: false, rowsRemoved: removed}
      }
    }
  }

  /** Removes an entity, remembering its search id until the search thread has been told. */
  private forget(urn: string, e: Ent): void {
    this.ents.delete(urn)
    this.byType.get(e.t)?.delete(urn)
    this.deletedIds.set(urn, e.id)
  }

  /** Entities of each type, so that listing a type costs that type, not the whole store. */
  private readonly byType = new Map<string, Map<string, Ent>>()

  private track(urn: string, e: Ent): void {
    this.ents.set(urn, e)
    let ofType = this.byType.get(e.t)
    if (!ofType) this.byType.set(e.t, (ofType = new Map()))
    ofType.set(urn, e)
  }

  private dropIfEmpty(urn: string, e: Ent): void {
    if (Object.keys(e.a).length === 0 && Object.keys(e.s ?? {}).length === 0) this.forget(urn, e)
  }

  // ---------------------------------------------------------------- checkpoints

  /** Rotates the journal, rewrites the shards touched since the last checkpoint, drops old segments. */
  checkpoint(): Promise<void> {
    if (this.checkpointing) return this.checkpointing
    this.checkpointing = this.runCheckpoint().finally(() => (this.checkpointing = null))
    return this.checkpointing
  }

  private async runCheckpoint(): Promise<void> {
    const keepFrom = this.walSeq + 1
    const newFh = await openFile(join(this.dir, 'wal', segName(keepFrom)), 'a')
    // Rotate between two flushes, with no await between the check and the swap, so that every
    // op of the old segments is applied in memory and marked in `dirty` before it is taken.
    while (this.flushing) await this.flushing
    const dirty = this.dirty
    this.dirty = new Set()
    const oldFh = this.walFh
    this.walFh = newFh
    this.walSeq = keepFrom
    this.walSize = 0
    this.walBytesSinceCheckpoint = 0
    await oldFh?.close()
    try {
      const byShard = new Map<number, Record<string, Ent>>()
      for (const i of dirty) byShard.set(i, {})
      if (dirty.size > 0) {
        for (const [urn, e] of this.ents) {
          const s = byShard.get(this.shardOf(urn))
          if (s) s[urn] = e
        }
      }
      for (const [i, entities] of byShard) {
        const db = this.shardDb(i)
        db.data = {format: FORMAT, entities}
        await db.write()
        fsyncPath(join(this.dir, 'shards', `shard-${String(i).padStart(2, '0')}.json`))
        // Let requests in between shards: a checkpoint must not stall the server.
        await new Promise((r) => setImmediate(r))
      }
      fsyncPath(join(this.dir, 'shards'))
      const m = this.manifestDb()
      m.data = {format: FORMAT, shards: this.nShards, walFrom: keepFrom, nextId: this.nextId}
      await m.write()
      fsyncPath(join(this.dir, 'manifest.json'))
      for (const f of readdirSync(join(this.dir, 'wal'))) {
        const seq = Number.parseInt(f, 10)
        if (/^\d{8}\.log$/.test(f) && seq < keepFrom) await rm(join(this.dir, 'wal', f), {force: true})
      }
    } catch (e) {
      for (const i of dirty) this.dirty.add(i)
      throw e
    }
  }

  // ---------------------------------------------------------------- search index

  /**
   * Full-text search runs on its own thread: parsing aspects, building documents and updating
   * FlexSearch took a fifth of the write path's CPU, and the index's memory stays out of the
   * heap the main thread collects. Unref'd, so an open store never keeps a process alive.
   */
  private startWorker(): void {
    const w = new Worker(new URL('./search-worker.js', import.meta.url), {workerData: {searchableTypes: [...this.opts.searchableTypes]}})
    w.on('message', (m: FromWorker) => {
      const q = this.queries.get(m.seq)
      if (!q) return
      this.queries.delete(m.seq)
      if (this.queries.size === 0) w.unref()
      if (m.error !== undefined) q.reject(new Error(`search failed: ${m.error}`))
      else q.resolve(m.result as SearchResponse)
    })
    w.on('error', (e) => this.searchThreadDown(w, `failed: ${e.message}`))
    w.on('exit', (code) => this.searchThreadDown(w, `stopped (exit code ${code})`))
    // Idle, the thread must not keep the process alive; while a query waits for it, it must
    // (see search()). Unref after the listeners: attaching one refs the thread again.
    w.unref()
    this.worker = w
  }

  /** When the search thread last restarted (ms), within the last minute. */
  private searchRestarts: number[] = []

  /**
   * The search thread died: its waiting queries fail, and a new thread gets the whole index again
   * (searches wait for it, as after a start). A thread that keeps dying is given up on after three
   * restarts in a minute; searches then fail with a clear error until the server restarts.
   */
  private searchThreadDown(w: Worker, why: string): void {
    if (this.worker !== w) return
    this.worker = null
    for (const q of this.queries.values()) q.reject(new Error(`search is unavailable: the search thread ${why}`))
    this.queries.clear()
    if (this.closed) return
    const now = Date.now()
    this.searchRestarts = this.searchRestarts.filter((t) => now - t < 60_000)
    if (this.searchRestarts.length >= 3) {
      this.opts.warn?.(`search thread ${why} again; not restarting it (three restarts this minute): searches fail until the server restarts`)
      return
    }
    this.searchRestarts.push(now)
    this.opts.warn?.(`search thread ${why}; restarting it and rebuilding the index`)
    this.startWorker()
    this.indexReady = this.buildIndexInBackground()
  }

  private send(m: ToWorker): void {
    this.worker?.postMessage(m)
  }

  private scheduleIndex(): void {
    if (this.indexScheduled) return
    this.indexScheduled = true
    setImmediate(() => {
      this.indexScheduled = false
      this.flushIndex()
    })
  }

  /** What the search thread needs of one entity: its search aspects as text, or its removal. */
  private indexItem(urn: string): IndexItem | undefined {
    const e = this.ents.get(urn)
    const deleted = this.deletedIds.get(urn)
    if (deleted !== undefined) this.deletedIds.delete(urn)
    if (!e) return deleted === undefined ? undefined : {id: deleted, urn, type: '', aspects: null}
    // Deleted and written again before this flush: the old id leaves the index, the new one enters.
    if (deleted !== undefined && deleted !== e.id) this.send({kind: 'index', items: [{id: deleted, urn, type: '', aspects: null}]})
    const aspects: Record<string, string> = {}
    for (const [name, rows] of Object.entries(e.a)) if (isSearchAspect(name)) aspects[name] = rows[0]![0]
    return {id: e.id, urn, type: e.t, aspects}
  }

  /** urn → search id of entities deleted since the last flush to the search thread. */
  private readonly deletedIds = new Map<string, number>()

  private flushIndex(): void {
    if (this.pendingIndex.size === 0) return
    const items: IndexItem[] = []
    for (const urn of this.pendingIndex) {
      const it = this.indexItem(urn)
      if (it) items.push(it)
    }
    this.pendingIndex.clear()
    if (items.length > 0) this.send({kind: 'index', items})
  }

  private async buildIndexInBackground(): Promise<void> {
    const urns = [...this.ents.keys()]
    urns.sort((a, b) => this.ents.get(a)!.id - this.ents.get(b)!.id)
    for (let i = 0; i < urns.length; i += 1000) {
      if (this.closed) return
      const items: IndexItem[] = []
      for (const urn of urns.slice(i, i + 1000)) {
        this.pendingIndex.delete(urn)
        const it = this.indexItem(urn)
        if (it) items.push(it)
      }
      this.send({kind: 'index', items})
      await new Promise((r) => setImmediate(r))
    }
  }

  // ---------------------------------------------------------------- reads

  private envelope(urn: string, e: Ent, name: string, row: Row | TsRow, version: number, kind: 'versioned' | 'timeseries'): StoredAspect {
    return new LazyAspect(urn, e.t, name, kind, version, row[0], {time: row[1], actor: row[2]}, row[3])
  }

  private latestTs(rows: TsRow[] | undefined): TsRow | undefined {
    if (!rows || rows.length === 0) return undefined
    let best = rows[0]!
    for (const r of rows) if (r[4] > best[4] || (r[4] === best[4] && r[1] >= best[1])) best = r
    return best
  }

  async getAspect(urn: string, aspectName: string, version = 0): Promise<StoredAspect | null> {
    const e = this.ents.get(urn)
    if (!e) return null
    const rows = e.a[aspectName]
    if (rows) {
      const row = rows[version]
      return row ? this.envelope(urn, e, aspectName, row, version, 'versioned') : null
    }
    const ts = this.latestTs(e.s?.[aspectName])
    return ts && version === 0 ? this.envelope(urn, e, aspectName, ts, 0, 'timeseries') : null
  }

  private record(urn: string, e: Ent, names?: string[]): EntityRecord {
    const aspects: Record<string, StoredAspect> = {}
    const want = names && names.length > 0 ? names : [...Object.keys(e.a), ...Object.keys(e.s ?? {})]
    for (const n of want) {
      const rows = e.a[n]
      if (rows) aspects[n] = this.envelope(urn, e, n, rows[0]!, 0, 'versioned')
      else {
        const ts = this.latestTs(e.s?.[n])
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
    const rows = e?.a[aspectName]
    if (!e || !rows) return []
    return rows.map((r, v) => this.envelope(urn, e, aspectName, r, v, 'versioned'))
  }

  async listTimeseries(urn: string, aspectName: string, opts: {startTime?: number; endTime?: number; limit?: number} = {}): Promise<StoredAspect[]> {
    const e = this.ents.get(urn)
    const rows = e?.s?.[aspectName]
    if (!e || !rows) return []
    return rows
      .filter((r) => (opts.startTime === undefined || r[4] >= opts.startTime) && (opts.endTime === undefined || r[4] <= opts.endTime))
      .sort((a, b) => b[4] - a[4])
      .slice(0, opts.limit ?? 10000)
      .map((r) => this.envelope(urn, e, aspectName, r, 0, 'timeseries'))
  }

  private removed(e: Ent): boolean {
    const s = e.a.status?.[0]?.[0]
    return s !== undefined && s.includes('"removed":true')
  }

  async exists(urn: string, opts: {includeSoftDeleted?: boolean} = {}): Promise<boolean> {
    const e = this.ents.get(urn)
    if (!e) return false
    return opts.includeSoftDeleted === false ? !this.removed(e) : true
  }

  async listUrns(req: ListUrnsRequest): Promise<{total: number; urns: string[]}> {
    const all: Array<[string, Ent]> = []
    const candidates = req.entityType ? (this.byType.get(req.entityType) ?? new Map<string, Ent>()) : this.ents
    for (const [urn, e] of candidates) {
      if (!req.includeSoftDeleted && this.removed(e)) continue
      all.push([urn, e])
    }
    all.sort((a, b) => a[1].id - b[1].id)
    const start = req.start ?? 0
    return {total: all.length, urns: all.slice(start, start + (req.count ?? all.length)).map(([u]) => u)}
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    await this.indexReady
    this.flushIndex()
    if (!this.worker) throw new Error('search is unavailable: the search thread is not running')
    const seq = ++this.querySeq
    return new Promise<SearchResponse>((resolve, reject) => {
      if (this.queries.size === 0) this.worker!.ref()
      this.queries.set(seq, {resolve, reject})
      this.send({kind: 'query', seq, req})
    })
  }

  async referencesTo(targets: string[]): Promise<Array<{target: string; urn: string; aspectName: string}>> {
    const out: Array<{target: string; urn: string; aspectName: string}> = []
    if (targets.length === 0) return out
    const wanted = new Set(targets)
    const needles = targets.map((t) => ({target: t, text: JSON.stringify(t)}))
    // A few targets: substring tests. Many: pull every quoted urn out of each value once and
    // look it up, so the cost stays one pass over the store.
    const few = targets.length <= 8
    const QUOTED_URN = /"(urn:li:(?:[^"\\]|\\.)*)"/g
    let seen = 0
    for (const [u, e] of this.ents) {
      for (const [name, rows] of Object.entries(e.a)) {
        const text = rows[0]![0]
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

  private rebuildRuns(): void {
    this.runs.clear()
    for (const e of this.ents.values()) {
      for (const rows of Object.values(e.a)) for (const r of rows) this.countRun(r[3], r[1], 1)
      for (const rows of Object.values(e.s ?? {})) for (const r of rows) this.countRun(r[3], r[1], 1)
    }
  }

  async listRuns(opts: {start?: number; count?: number} = {}): Promise<RunSummary[]> {
    const all = [...this.runs.values()].sort((a, b) => b.timestamp - a.timestamp || (a.runId < b.runId ? -1 : 1))
    const start = opts.start ?? 0
    return all.slice(start, start + (opts.count ?? 100)).map((r) => ({...r}))
  }

  async runRows(runId: string): Promise<RunRow[]> {
    const out: RunRow[] = []
    for (const [urn, e] of this.ents) {
      const keyName = `${e.t}Key`
      for (const [name, rows] of Object.entries(e.a)) {
        rows.forEach((r, v) => {
          if (r[3].runId === runId) out.push({urn, entityType: e.t, aspectName: name, version: v, kind: 'versioned', keyAspect: name === keyName, created: {time: r[1], actor: r[2]}})
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

  async stats(): Promise<StoreStats> {
    let aspectRows = 0
    for (const e of this.ents.values()) {
      for (const rows of Object.values(e.a)) aspectRows += rows.length
      for (const rows of Object.values(e.s ?? {})) aspectRows += rows.length
    }
    return {entities: this.ents.size, aspectRows, diskBytes: duBytes(this.dir)}
  }
}

/**
 * A stored aspect whose value is parsed on first read: a GraphQL query that selects two
 * aspects of an entity parses two, not all of them. JSON.stringify sees `value` like a field.
 */
class LazyAspect implements StoredAspect {
  private parsed?: unknown
  constructor(
    readonly urn: string,
    readonly entityType: string,
    readonly aspectName: string,
    readonly kind: 'versioned' | 'timeseries',
    readonly version: number,
    private readonly text: string,
    readonly created: AuditStamp,
    readonly systemMetadata: SystemMetadata,
  ) {}

  get value(): unknown {
    if (this.parsed === undefined) this.parsed = JSON.parse(this.text)
    return this.parsed
  }

  toJSON(): Record<string, unknown> {
    return {urn: this.urn, entityType: this.entityType, aspectName: this.aspectName, kind: this.kind, version: this.version, value: this.value, created: this.created, systemMetadata: this.systemMetadata}
  }
}

function readWhole(path: string): Buffer {
  const fd = openSync(path, 'r')
  try {
    const size = fstatSync(fd).size
    const buf = Buffer.allocUnsafe(size)
    let off = 0
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, off)
      if (n === 0) break
      off += n
    }
    return buf.subarray(0, off)
  } finally {
    closeSync(fd)
  }
}

function fsyncPath(path: string): void {
  let fd: number | undefined
  try {
    fd = openSync(path, 'r')
    fsyncSync(fd)
  } catch {
    /* best effort: some filesystems refuse fsync on directories */
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Bytes of every file below `dir` (0 when it does not exist). */
export function duBytes(dir: string): number {
  if (!existsSync(dir)) return 0
  let total = 0
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    const st = statSync(p)
    total += st.isDirectory() ? duBytes(p) : st.size
  }
  return total
}
