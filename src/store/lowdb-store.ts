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
 * Every byte goes through a file layer (`embedded/files.ts`) that checks each write's count and
 * each sync: a full disk, an I/O error or a short write fails the whole batch, which is never
 * acknowledged, and the segment is cut back to its last whole record, so the journal stays valid
 * and later writes succeed once there is space again. The journal's writing side (records,
 * appends, cuts, rotation) is `embedded/journal.ts`; reading it back is the start's, here.
 *
 * Checkpoints keep the journal short: when it passes `checkpointBytes` (and on close), the
 * journal rotates to a new segment and each snapshot shard touched since the last checkpoint is
 * written through lowdb under a new name (`shards/shard-NN.g<gen>.json`, a JSON head and binary
 * columns, see `embedded/snapshot.ts`; written to a temp file, synced, renamed). Then
 * `manifest.json` names every shard file with its size and SHA-256, and the first journal segment
 * still needed; only after that do older files go, so nothing a manifest names is ever overwritten.
 * Entities are spread over shards by a hash of the urn, so no single file nears V8's string limit:
 * 64 shards hold well over a million aspects.
 *
 * Recovery: load the shards the manifest names (a missing, truncated or altered one stops the
 * start, naming the file), then replay the journal from the manifest's segment; segments must run
 * without gaps, and the ones an earlier start replayed (`sealed` in the manifest) must match
 * their sums. Each entity remembers the LSN of the last op applied to it, and replay skips ops at
 * or below it. A torn last line (a batch whose sync never completed, so it was never
 * acknowledged) is cut off; any other unreadable file stops the start with a StoreCorruptError
 * and is left as it is.
 *
 * In memory every latest aspect value stays JSON text, parsed only when read: text is far more
 * compact than object graphs, and it is what the journal and the shards hold anyway. The texts
 * live outside V8's heap, in the value arena (`embedded/values.ts`); old versions are on disk.
 * The store knows nothing of search: the catalog feeds the search thread
 * (`embedded/search-thread.ts`) from what it writes.
 *
 * Parts, each a file in embedded/: what a write means is the write core's (`core/write.ts`); the
 * rows it changes and every read are the memtable's (`memtable.ts`); a start's reading of the
 * files is recovery's (`recovery.ts`), the manifest's format and sums `manifest.ts`, the journal
 * `journal.ts`, the file layer `files.ts` and `read-files.ts`. This file holds the lifecycle,
 * the group commit and the checkpoints.
 */
import {chmodSync, mkdirSync, readdirSync} from 'node:fs'
import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {Low} from 'lowdb'
import {FileError, StoreCorruptError} from '../errors.js'
import {HistoryFile} from './embedded/history.js'
import {ValueArena} from './embedded/values.js'
import {decodeShard, type LoadedShard} from './embedded/snapshot.js'
import {DirLock} from './embedded/lock.js'
import {FORMAT, FORMAT_3, LEGACY_SHARD, manifestChecksum, SHARD, shardFile, snapshotBytes, type FileSum, type Manifest} from './embedded/manifest.js'
import {duBytes, StoreJsonFile} from './embedded/read-files.js'
import {Recovery} from './embedded/recovery.js'
import {Memtable} from './embedded/memtable.js'
import {HeapGuard} from './embedded/memory.js'
import {JournalWriter, SEGMENT, type JournalRecord} from './embedded/journal.js'
import {nodeStoreFs, storeWriteError, type StoreFs} from './embedded/files.js'
import type {
  EntityRules,
  ReferenceQuery,
  EntityRecord,
  EntityTexts,
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
  /** Entity rules from the registry: key aspects, soft delete, timeseries. */
  rules: EntityRules
  /** Called with a warning line (torn journal tail cut, etc.). */
  warn?: (msg: string) => void
  /** Called with a progress line: a start with much to read says so, and how long it took. */
  info?: (msg: string) => void
  /** Bytes of snapshot and journal from which a start reports progress (PROGRESS_BYTES). */
  progressBytes?: number
  /** fsync journal appends (on by default; tests of throughput may turn it off). */
  sync?: boolean
  /** The file layer every write goes through (production: node:fs); tests inject failures here. */
  fs?: StoreFs
  /** Fraction of the heap's limit past which writes that add data are refused (E_STORE_MEMORY). */
  maxHeapFraction?: number
}

/** A start that reads this much (about 400,000 aspects) takes a second or more: it says so. */
const PROGRESS_BYTES = 128 * 2 ** 20

function fnv1a(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

export {duBytes}

export class LowdbStore implements MetadataStore {
  private readonly dir: string
  private readonly nShards: number
  private readonly checkpointBytes: number
  private readonly opts: LowdbStoreOptions
  /** Every entity's latest rows and the reads on them (embedded/memtable.ts). */
  private readonly mem: Memtable
  private dirty = new Set<number>()
  private nextLsn = 1
  private readonly journal: JournalWriter
  private readonly fs: StoreFs
  /** The manifest as last read or written. */
  private manifest: Manifest | null = null
  private walBytesSinceCheckpoint = 0
  private queue: Pending[] = []
  private flushing: Promise<void> | null = null
  private checkpointing: Promise<void> | null = null
  private opened = false
  private closed = false
  private readonly dirLock: DirLock
  /** Old versions of aspects, on disk (see embedded/history.ts). */
  private readonly history: HistoryFile
  /** Latest value texts, outside the heap (see embedded/values.ts). */
  private readonly values = new ValueArena()
  /** Shard files into memory: texts into the arena, metadata and actors shared. */
  private readonly decodeShard = (buf: Buffer): LoadedShard =>
    decodeShard(buf, {
      values: this.values,
      sink: this.mem.sink,
      shared: (v) => this.mem.shared(v),
      interned: (v) => this.mem.interned(v),
      toHistory: (urn, text, time, actor, sm) => {
        this.dirty.add(this.shardOf(urn))
        return this.history.append(text, time, actor, sm)
      },
    })

  constructor(opts: LowdbStoreOptions) {
    this.opts = opts
    this.dir = opts.dir
    this.nShards = opts.shards ?? 64
    this.checkpointBytes = opts.checkpointBytes ?? 256 * 1024 * 1024
    this.dirLock = new DirLock(this.dir)
    this.fs = opts.fs ?? nodeStoreFs
    this.journal = new JournalWriter(this.fs, this.dir, opts.sync !== false)
    const historyPath = join(this.dir, 'history.log')
    this.history = new HistoryFile(historyPath, (why) => this.damagedHistory(historyPath, why))
    this.heap = new HeapGuard(this.dir, opts.maxHeapFraction)
    this.mem = new Memtable(opts.rules, this.values, this.history, (urn) => this.touch(urn))
  }

  private readonly heap: HeapGuard

  // ---------------------------------------------------------------- lifecycle

  async open(): Promise<void> {
    // The store's directory and its LOCK are all a start touches before the store is found
    // consistent (LOCK goes again when the start is refused).
    try {
      mkdirSync(this.dir, {recursive: true, mode: 0o700})
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === 'EEXIST' || code === 'ENOTDIR') throw new FileError(`The store ${this.dir} is not a directory (a file is in the way); name a directory for the store, or one to create`)
      throw e
    }
    this.dirLock.acquire()
    try {
      const started = performance.now()
      // First, read and check everything, writing nothing: a start that is refused must leave
      // every file as it was, for a backup, an export or a closer look. Checks that fail throw.
      const recovery = this.recovery()
      const {manifest, fresh} = await recovery.readManifest()
      this.legacy = recovery.legacy
      this.manifest = recovery.manifest
      const toRead = recovery.bytesToRead(manifest)
      const report = toRead >= (this.opts.progressBytes ?? PROGRESS_BYTES)
      if (report) this.opts.info?.(`Opening the store ${this.dir}: ${Math.ceil(toRead / 2 ** 20).toLocaleString('en-US')} MiB of snapshot and journal to read…`)
      this.mem.nextId = manifest.nextId
      const historyPath = join(this.dir, 'history.log')
      this.history.openToCheck(
        manifest.historyBytes ?? 0,
        (size) => this.corrupt(historyPath, `has ${size} bytes, the manifest recorded ${manifest.historyBytes} (truncated)`),
        () => this.corrupt(historyPath, `is missing (the manifest records ${manifest.historyBytes} bytes of old versions in it)`),
      )
      await recovery.loadShards(manifest)
      // Before the replay, which keeps it up to date as it applies the journal.
      this.mem.indexReferences()
      const {last: lastSeq, sums, cut} = await recovery.replay(manifest)
      const unexplained = this.history.unexplainedBytes()
      if (unexplained > 0) {
        throw this.corrupt(join(this.dir, 'wal'), `lacks journal records: ${historyPath} holds ${unexplained.toLocaleString('en-US')} bytes of old versions past the last checkpoint that no journal record wrote (a journal segment emptied or cut short)`)
      }
      if (recovery.nextLsn > this.nextLsn) this.nextLsn = recovery.nextLsn
      this.walBytesSinceCheckpoint += recovery.journalBytes

      // The whole store is consistent: from here on the start may create, cut and write.
      // Owner-only, like every file in them (a store made before this rule is put right here).
      for (const sub of ['shards', 'wal']) {
        mkdirSync(join(this.dir, sub), {recursive: true, mode: 0o700})
        try {
          chmodSync(join(this.dir, sub), 0o700)
        } catch {
          /* a folder we do not own stays as it is */
        }
      }
      if (fresh) await this.writeManifest(manifest)
      // The torn tail is cut before the manifest seals the segment at its cut size.
      if (cut) await this.cutSegment(cut.path, cut.length)
      try {
        this.history.commit()
      } catch (e) {
        // As after a write: the old versions wait in memory until there is space (see HistoryFile.flush).
        this.opts.warn?.(`old versions could not be written to ${this.history.path} (${(e as Error).message}); kept in memory until there is space`)
      }
      if (this.values.compactionDue) this.mem.compactValues()
      // Segments replayed now are closed for good: the manifest records them, so that a later
      // start notices one that went missing or changed.
      if (this.legacy) for (let i = 0; i < this.nShards; i++) this.dirty.add(i)
      // The new live segment exists (and is synced) before the manifest names it: a crash
      // between the two leaves an empty segment no manifest names, which the next start replays
      // as nothing; the other order would leave a manifest naming a missing segment.
      await this.journal.open(lastSeq + 1)
      // Format 3 differs from this one only in the journal records it reads, and none of the new
      // kind has been written yet: naming this format here lets the writes splice their values.
      const format = manifest.format === FORMAT_3 ? FORMAT : manifest.format
      await this.writeManifest({...manifest, format, sealed: {...(manifest.sealed ?? {}), ...sums}, live: this.journal.seq}).catch((e: unknown) => {
        // A full disk must not keep a store from opening to be read; the seals wait for a later
        // start, and writes wait until a manifest names the segment they go to (see flushLoop).
        if ((e as {code?: string}).code !== 'E_STORE_FULL') throw e
        this.opts.warn?.((e as Error).message)
        this.liveUnrecorded = true
      })
      const highest = this.mem.highest()
      if (highest.id >= this.mem.nextId) this.mem.nextId = highest.id + 1
      if (highest.lsn >= this.nextLsn) this.nextLsn = highest.lsn + 1
      this.opened = true
      if (report) this.opts.info?.(`Opened the store: ${this.mem.size.toLocaleString('en-US')} entities in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    } catch (e) {
      this.history.close()
      this.dirLock.release()
      throw e
    }
  }

  async close(): Promise<void> {
    if (!this.opened || this.closed) return
    await this.drain()
    try {
      await this.checkpoint()
    } catch (e) {
      // The journal holds every acknowledged write: the next start replays it.
      this.opts.warn?.(`checkpoint at close failed (${(e as Error).message}); the journal keeps every write and the next start replays it`)
    }
    await this.journal.close()
    this.history.close()
    this.closed = true
    this.dirLock.release()
  }

  /** A start's reader of the store's files (embedded/recovery.ts), reading into this store. */
  private recovery(): Recovery {
    return new Recovery({
      dir: this.dir,
      fs: this.fs,
      nShards: this.nShards,
      values: this.values,
      warn: this.opts.warn,
      corrupt: (file, why) => this.corrupt(file, why),
      manifestFile: () => this.manifestFile(),
      decodeShard: this.decodeShard,
      flushHistory: () => this.history.flush(),
      apply: (op, lsn) => this.mem.apply(op, lsn, true),
    })
  }

  private manifestFile(): StoreJsonFile<Manifest | null> {
    return new StoreJsonFile<Manifest | null>(this.fs, join(this.dir, 'manifest.json'), (d) => JSON.stringify(d, null, 2))
  }

  /** The live segment is not yet named by the manifest on disk: no write may go to it until it is. */
  private liveUnrecorded = false
  /** Manifest writes in turn: each replaces the same file through the same temporary name. */
  private manifestQueue: Promise<unknown> = Promise.resolve()

  private writeManifest(m: Manifest): Promise<void> {
    const p = this.manifestQueue.then(() => this.writeManifestNow(m))
    this.manifestQueue = p.catch(() => undefined)
    return p
  }

  private async writeManifestNow(m: Manifest): Promise<void> {
    const db = new Low<Manifest | null>(this.manifestFile(), null)
    db.data = {...m, checksum: manifestChecksum(m)}
    try {
      await db.write()
    } catch (e) {
      throw storeWriteError(e, this.dir, join(this.dir, 'manifest.json'))
    }
    this.manifest = m
    this.journal.spliceValues = m.format === FORMAT
  }

  /** True while reading a store of the previous format (its first checkpoint rewrites every shard). */
  private legacy = false

  /** A damaged old version, found when it is read (see HistoryFile.read). */
  private damagedHistory(file: string, why: string): StoreCorruptError {
    return new StoreCorruptError(
      `Store file ${file} ${why}; that old version cannot be read back. Restore the store directory ${this.dir} from a backup (or \`mdcli lite import\` an export) to read it again`,
    )
  }

  private corrupt(file: string, why: string): StoreCorruptError {
    return new StoreCorruptError(
      `Store file ${file} ${why}; the store was left untouched. Restore the store directory ${this.dir} from a backup (or \`mdcli lite import\` an export into a new store), or move it aside to start empty`,
    )
  }

  /** Cuts a segment back to `length` bytes, durably. */
  private async cutSegment(path: string, length: number): Promise<void> {
    const f = await this.fs.openAppend(path)
    try {
      await f.truncate(length)
      await f.datasync()
    } finally {
      await f.close()
    }
  }

  // ---------------------------------------------------------------- writes

  write(ops: WriteOp[]): Promise<WriteResult[]> {
    if (!this.opened || this.closed) return Promise.reject(new Error('store is not open'))
    if (ops.length === 0) return Promise.resolve([])
    // Past the memory the machine gives the store, refuse what adds data (deletes still free it).
    if (ops.some((o) => o.op === 'upsert' || o.op === 'timeseries')) {
      try {
        this.heap.check()
      } catch (e) {
        return Promise.reject(e)
      }
    }
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
        const records: JournalRecord[] = []
        for (const p of batch) {
          records.push({l: lsn, o: p.ops})
          lsn += p.ops.length
        }
        let bytes: number
        try {
          if (this.liveUnrecorded) await this.recordLive()
          // Entities as the batch finds them: the batches before it are applied, and nothing
          // else changes which entities exist until this one is.
          bytes = await this.journal.append(records, this.hasEntity)
        } catch (e) {
          // Nothing of the batch is acknowledged (the journal cuts what reached the file).
          const err = storeWriteError(e, this.dir, this.journal.path)
          for (const p of batch) p.reject(err)
          continue
        }
        this.walBytesSinceCheckpoint += bytes
        this.nextLsn = lsn
        let opLsn = firstLsn
        for (const p of batch) {
          const results = p.ops.map((op) => this.mem.apply(op, opLsn++, false))
          p.resolve(results)
        }
        try {
          this.history.flush()
        } catch (e) {
          // The batch is in the journal: the old versions wait in memory for the next flush,
          // and a checkpoint cannot complete until they are written.
          this.opts.warn?.(`old versions could not be written to ${this.history.path} (${(e as Error).message}); kept in memory until there is space`)
        }
        if (this.values.compactionDue) this.mem.compactValues()
        if (this.walBytesSinceCheckpoint >= this.checkpointDue() && !this.checkpointing) {
          void this.checkpoint().catch((e) => this.opts.warn?.(`checkpoint failed: ${(e as Error).message}`))
        }
      }
    } finally {
      this.flushing = null
    }
  }

  /** Names the live segment in the manifest (it could not be at the start: the disk was full). */
  private async recordLive(): Promise<void> {
    await this.writeManifest({...this.manifest!, live: this.journal.seq})
    this.liveUnrecorded = false
  }

  private readonly hasEntity = (urn: string): boolean => this.mem.has(urn)

  private shardOf(urn: string): number {
    return fnv1a(urn) % this.nShards
  }

  /** Marks the entity's shard for the next checkpoint. */
  private touch(urn: string): void {
    this.dirty.add(this.shardOf(urn))
  }

  // ---------------------------------------------------------------- checkpoints

  /**
   * Journal bytes after which a checkpoint runs: `checkpointBytes`, or the size of the snapshot
   * when that is larger. A checkpoint rewrites every shard touched since the last, which in a bulk
   * load is all of them; with a fixed threshold, loading n aspects rewrote the store n/256 MiB
   * times (quadratic: 5,000,000 aspects spent more on checkpoints than on the writes). Growing the
   * threshold with the snapshot keeps the total linear. A crash costs a longer replay, at most
   * about the snapshot's size again; a clean stop still leaves an empty journal.
   */
  private checkpointDue(): number {
    return Math.max(this.checkpointBytes, snapshotBytes(this.manifest))
  }

  /** Rotates the journal, rewrites the shards touched since the last checkpoint, drops old segments. */
  checkpoint(): Promise<void> {
    if (this.checkpointing) return this.checkpointing
    this.checkpointing = this.runCheckpoint().finally(() => (this.checkpointing = null))
    return this.checkpointing
  }

  /**
   * A checkpoint writes each dirty shard under a new name (`shard-NN.g<gen>.json`), then the
   * manifest naming the new files with their sums, and only then removes the files and segments
   * the new manifest no longer needs. A crash at any point leaves a manifest whose every file is
   * whole; a full disk fails the checkpoint, which is retried later, and costs nothing else.
   */
  private async runCheckpoint(): Promise<void> {
    const keepFrom = this.journal.seq + 1
    const newFh = await this.journal.createNext()
    // The manifest names the new segment before any write goes to it (see Manifest.live). On a
    // full disk the checkpoint stops here and writes go on into the segment already named; the
    // empty new one is named by nothing, and the next checkpoint opens it again.
    try {
      await this.writeManifest({...this.manifest!, live: keepFrom})
    } catch (e) {
      await newFh.close().catch(() => undefined)
      throw e
    }
    this.liveUnrecorded = false
    // Rotate between two flushes, with no await between the check and the swap, so that every
    // op of the old segments is applied in memory and marked in `dirty` before it is taken.
    while (this.flushing) await this.flushing
    // Ops a flush applies from here on went to the new segment: they mark the next `dirty`.
    await this.journal.rotate(newFh)
    const dirty = this.dirty
    this.dirty = new Set()
    this.walBytesSinceCheckpoint = 0
    const prev = this.manifest!
    const gen = (prev.gen ?? 0) + 1
    const files: Record<string, FileSum> = this.legacy ? {} : {...(prev.files ?? {})}
    const written: string[] = []
    try {
      // Urns, not rows: a shard is encoded when its turn comes, from the rows as they are then
      // (an entity deleted meanwhile is left out; the new segment replays its deletion anyway).
      const byShard = new Map<number, string[]>()
      for (const i of dirty) byShard.set(i, [])
      if (dirty.size > 0) {
        for (const urn of this.mem.urns()) byShard.get(this.shardOf(urn))?.push(urn)
      }
      for (const [i, urns] of byShard) {
        for (const k of Object.keys(files)) if (k.startsWith(`shards/shard-${String(i).padStart(2, '0')}.`)) delete files[k]
        if (urns.length === 0) continue
        const rel = shardFile(i, gen)
        const file = new StoreJsonFile<string[] | null>(this.fs, join(this.dir, rel), (d) => this.mem.encodeShard(d!, FORMAT))
        const db = new Low<string[] | null>(file, null)
        db.data = urns
        try {
          await db.write()
        } catch (e) {
          throw storeWriteError(e, this.dir, join(this.dir, rel))
        }
        written.push(rel)
        files[rel] = file.last!
        // Let requests in between shards: a checkpoint must not stall the server.
        await new Promise((r) => setImmediate(r))
      }
      // Every shard written above points below this size; it must be on disk before the manifest says so.
      let historyBytes: number
      try {
        historyBytes = await this.history.sync()
      } catch (e) {
        throw storeWriteError(e, this.dir, this.history.path)
      }
      await this.writeManifest({format: FORMAT, shards: this.nShards, walFrom: keepFrom, nextId: this.mem.nextId, gen, files, sealed: {}, historyBytes, live: keepFrom})
    } catch (e) {
      for (const i of dirty) this.dirty.add(i)
      // Files of this failed checkpoint are named by no manifest; give their space back.
      for (const rel of written) await rm(join(this.dir, rel), {force: true}).catch(() => undefined)
      throw e
    }
    this.legacy = false
    // The new manifest is durable: what it does not name is no longer needed.
    for (const f of readdirSync(join(this.dir, 'shards'))) {
      if ((SHARD.test(f) || LEGACY_SHARD.test(f)) && !Object.hasOwn(files, `shards/${f}`)) await rm(join(this.dir, 'shards', f), {force: true})
    }
    for (const f of readdirSync(join(this.dir, 'wal'))) {
      const seq = Number.parseInt(f, 10)
      if (SEGMENT.test(f) && seq < keepFrom) await rm(join(this.dir, 'wal', f), {force: true})
    }
    await this.fs.syncDir(join(this.dir, 'shards')).catch(() => undefined)
    await this.fs.syncDir(join(this.dir, 'wal')).catch(() => undefined)
  }

  // ---------------------------------------------------------------- reads (the memtable's)

  getAspect(urn: string, aspectName: string, version = 0): Promise<StoredAspect | null> {
    return this.mem.getAspect(urn, aspectName, version)
  }

  getEntity(urn: string, aspectNames?: string[]): Promise<EntityRecord | null> {
    return this.mem.getEntity(urn, aspectNames)
  }

  getEntities(urns: string[], aspectNames?: string[]): Promise<Map<string, EntityRecord>> {
    return this.mem.getEntities(urns, aspectNames)
  }

  listVersions(urn: string, aspectName: string): Promise<StoredAspect[]> {
    return this.mem.listVersions(urn, aspectName)
  }

  listTimeseries(urn: string, aspectName: string, opts?: {startTime?: number; endTime?: number; limit?: number}): Promise<StoredAspect[]> {
    return this.mem.listTimeseries(urn, aspectName, opts)
  }

  exists(urn: string, opts?: {includeSoftDeleted?: boolean}): Promise<boolean> {
    return this.mem.exists(urn, opts)
  }

  listUrns(req: ListUrnsRequest): Promise<{total: number; urns: string[]}> {
    return this.mem.listUrns(req)
  }

  referencesTo(targets: string[], opts?: ReferenceQuery): Promise<Array<{target: string; urn: string; aspectName: string}>> {
    return this.mem.referencesTo(targets, opts)
  }

  listRuns(opts?: {start?: number; count?: number}): Promise<RunSummary[]> {
    return this.mem.listRuns(opts)
  }

  runRows(runId: string): Promise<RunRow[]> {
    return this.mem.runRows(runId)
  }

  latestTexts(urns: string[], aspectNames: readonly string[]): Promise<Map<string, EntityTexts>> {
    return this.mem.latestTexts(urns, aspectNames)
  }

  async stats(): Promise<StoreStats> {
    return {entities: this.mem.size, aspectRows: this.mem.rowCount(), diskBytes: duBytes(this.dir)}
  }
}
