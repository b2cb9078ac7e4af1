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
 * Search runs on a thread of its own, fed the changed entities (`embedded/search-thread.ts`).
 */
import {createHash} from 'node:crypto'
import {chmodSync, closeSync, existsSync, mkdirSync, openSync, readSync, fstatSync, readdirSync, statSync} from 'node:fs'
import {open, readFile, rm} from 'node:fs/promises'
import {join} from 'node:path'
import {Low, type Adapter} from 'lowdb'
import {FileError, StoreCorruptError} from '../errors.js'
import {HistoryFile, type HistoryRecord, type OldRow} from './embedded/history.js'
import {ValueArena} from './embedded/values.js'
import {decodeShard, encodeShard, type Ent, type LoadedShard, own, put, type ShardData, type TsRow, Versions} from './embedded/snapshot.js'
import {DirLock} from './embedded/lock.js'
import {HeapGuard} from './embedded/memory.js'
import {SearchThread} from './embedded/search-thread.js'
import {RunCounts} from './run-counts.js'
import {JournalWriter, SEGMENT, segName, type JournalRecord} from './embedded/journal.js'
import {nodeStoreFs, storeWriteError, type StoreFs} from './embedded/files.js'
import type {IndexItem} from './search-worker.js'
import {ReferenceIndex} from './reference-index.js'
import {observedAgain, SEARCH_VALUE} from './types.js'
import type {
  AuditStamp,
  EntityRules,
  ReferenceQuery,
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

const FORMAT = 'mdcli-lowdb-3'
/** Old versions in the shards, not in the history file: read, then moved there by the next checkpoint. */
const FORMAT_2 = 'mdcli-lowdb-2'
/** Stores written before the manifest accounted for every file: read, then rewritten in FORMAT. */
const LEGACY_FORMAT = 'mdcli-lowdb-1'

/** A version of a versioned aspect, or a timeseries row. */
type AnyRow = Versions | OldRow | TsRow

/** An old version's [3] is its time; a timeseries row's, its system metadata. */
const isOld = (r: AnyRow): r is OldRow => Array.isArray(r) && typeof r[3] === 'number'
const runIdOf = (r: AnyRow): string | undefined => (r instanceof Versions ? r.sm.runId : isOld(r) ? r[2] : r[3].runId)
const timeOf = (r: AnyRow): number => (r instanceof Versions ? r.time : isOld(r) ? r[3] : r[1])


/** Size and SHA-256 of a file the manifest accounts for. */
interface FileSum {
  size: number
  sha256: string
}

interface Manifest {
  format: string
  shards: number
  /** First journal segment that recovery must replay. */
  walFrom: number
  nextId: number
  /** Checkpoints so far; shard files carry the number of the checkpoint that wrote them. */
  gen?: number
  /** Every snapshot shard file (path relative to the store directory) with its size and checksum. */
  files?: Record<string, FileSum>
  /** Journal segments closed since the last checkpoint (by number), with size and checksum. */
  sealed?: Record<string, FileSum>
  /** Bytes of history.log that the shards may point into (synced by the checkpoint that wrote this). */
  historyBytes?: number
  /**
   * The journal segment writes go to, recorded before the first write reaches it: every segment
   * from `walFrom` to this one must exist, so a deleted live segment (the writes since the last
   * checkpoint) stops the start. Absent in stores written before it was recorded.
   */
  live?: number
  /**
   * SHA-256 of the canonical JSON of every other field (see manifestChecksum): an edit that keeps
   * the JSON valid (a lower historyBytes, a dropped shard) would otherwise be believed, and the
   * store would cut or delete what it names. Absent in stores written before it was recorded.
   */
  checksum?: string
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
  /** Entity rules from the registry: key aspects, soft delete, which aspects feed search. */
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

const shardFile = (i: number, gen: number): string => `shards/shard-${String(i).padStart(2, '0')}.g${gen}.json`
const LEGACY_SHARD = /^shard-(\d{2})\.json$/
const SHARD = /^shard-(\d{2})\.g(\d+)\.json$/

/** Bytes of the snapshot shards a manifest names. */
function snapshotBytes(m: Manifest | null): number {
  let n = 0
  for (const [name, f] of Object.entries(m?.files ?? {})) if (name.startsWith('shards/')) n += f.size
  return n
}

/** JSON with object keys sorted at every level, so that a checksum does not depend on key order or layout. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`
  }
  return JSON.stringify(v)
}

function manifestChecksum(m: Manifest): string {
  const {checksum: _, ...rest} = m
  return sum(Buffer.from(canonicalJson(rest), 'utf8')).sha256
}

function sum(buf: Buffer): FileSum {
  return {size: buf.length, sha256: createHash('sha256').update(buf).digest('hex')}
}

/**
 * Whole files read into two buffers used in turn: one file is read while the other is decoded.
 *
 * Why not readFile: every buffer it allocates counts as V8 external memory, and each 64 MiB of
 * new external memory starts a full marking of the heap. A start at 5,000,000 aspects read
 * 1.6 GB of shards (and webcrypto's digest copied them again): it marked a heap of up to 800 MiB
 * about twice a second, most of a 20 s start. The sum is computed on this thread instead: SHA-256
 * runs at about 1.4 GB/s here, and the copy webcrypto made for its digest on libuv's pool cost this
 * thread nearly as much. A thread of its own for the sums was measured: 0.1 s sooner at a million
 * aspects, nothing at five million (the collector's threads had the other core), for a thread.
 * A decoder must copy what it keeps: the buffer is read into again two files later.
 */
class FileBuffers {
  private readonly bufs: Buffer[] = [Buffer.alloc(0), Buffer.alloc(0)]
  private turn = 0

  read(path: string): Promise<Buffer> {
    const slot = this.turn
    this.turn ^= 1
    const p = (async () => {
      const fh = await open(path, 'r')
      try {
        const size = (await fh.stat()).size
        if (this.bufs[slot]!.length < size) this.bufs[slot] = Buffer.allocUnsafeSlow(size)
        const buf = this.bufs[slot]!
        let got = 0
        while (got < size) {
          const {bytesRead} = await fh.read(buf, got, size - got, got)
          if (bytesRead === 0) break
          got += bytesRead
        }
        return buf.subarray(0, got)
      } finally {
        await fh.close()
      }
    })()
    // Awaited later, by the file's turn; until then a failure must not count as unhandled.
    p.catch(() => undefined)
    return p
  }
}

/**
 * lowdb's adapter for one JSON file of the store: read whole and checked against the manifest's
 * sum when there is one; written only through the file layer's atomic, synced replace, under a
 * name no earlier checkpoint used, so nothing the manifest points to is ever overwritten.
 */
class StoreJsonFile<T> implements Adapter<T> {
  /** Sum of the bytes last read or written. */
  last?: FileSum
  constructor(
    private readonly fs: StoreFs,
    readonly path: string,
    private readonly encode: (d: T) => string | Buffer,
    private readonly expect?: FileSum,
    private readonly onMismatch?: (why: string) => Error,
    /** The file's bytes, read ahead (see FileBuffers). */
    private readonly ahead?: Promise<Buffer>,
    private readonly decode: (buf: Buffer) => T = (buf) => JSON.parse(buf.toString('utf8')) as T,
  ) {}

  async read(): Promise<T | null> {
    let buf: Buffer
    try {
      buf = await (this.ahead ?? readFile(this.path))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        if (this.expect && this.onMismatch) throw this.onMismatch('is missing')
        return null
      }
      throw e
    }
    this.last = sum(buf)
    if (this.expect && this.onMismatch) {
      if (this.last.size !== this.expect.size) throw this.onMismatch(`has ${this.last.size} bytes, the manifest recorded ${this.expect.size} (truncated or altered)`)
      if (this.last.sha256 !== this.expect.sha256) throw this.onMismatch('does not match the checksum the manifest recorded (altered)')
    }
    return this.decode(buf)
  }

  async write(data: T): Promise<void> {
    const enc = this.encode(data)
    const buf = typeof enc === 'string' ? Buffer.from(enc, 'utf8') : enc
    await this.fs.replaceFile(this.path, buf)
    this.last = sum(buf)
  }
}

export class LowdbStore implements MetadataStore {
  private readonly dir: string
  private readonly nShards: number
  private readonly checkpointBytes: number
  private readonly opts: LowdbStoreOptions
  private readonly ents = new Map<string, Ent>()
  private readonly refs: ReferenceIndex
  private readonly runs = new RunCounts()
  private readonly searchThread: SearchThread
  private dirty = new Set<number>()
  private nextId = 1
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
      shared: (v) => this.shared(v),
      interned: (v) => this.interned(v),
      toHistory: (urn, text, time, actor, sm) => {
        this.dirty.add(this.shardOf(urn))
        return this.history.append(text, time, actor, sm)
      },
    })

  /** A latest value's text, decoded when asked for (see ReferenceIndex.add). */
  private latestText(v: Versions): () => string {
    const ref = v.ref
    return () => this.values.text(ref)
  }

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
    this.refs = new ReferenceIndex((aspect) => opts.rules.indexesReferences(aspect))
    this.searchThread = new SearchThread({itemsFor: (urn) => this.searchItems(urn), urnsById: () => this.urnsById()}, {searchableTypes: opts.searchableTypes, warn: opts.warn})
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
      const {manifest, fresh} = await this.readManifest()
      const toRead = this.bytesToRead(manifest)
      const report = toRead >= (this.opts.progressBytes ?? PROGRESS_BYTES)
      if (report) this.opts.info?.(`Opening the store ${this.dir}: ${Math.ceil(toRead / 2 ** 20).toLocaleString('en-US')} MiB of snapshot and journal to read…`)
      this.nextId = manifest.nextId
      const historyPath = join(this.dir, 'history.log')
      this.history.openToCheck(
        manifest.historyBytes ?? 0,
        (size) => this.corrupt(historyPath, `has ${size} bytes, the manifest recorded ${manifest.historyBytes} (truncated)`),
        () => this.corrupt(historyPath, `is missing (the manifest records ${manifest.historyBytes} bytes of old versions in it)`),
      )
      await this.loadShards(manifest)
      // Before the replay, which keeps it up to date as it applies the journal.
      for (const [urn, e] of this.ents) for (const name of Object.keys(e.a)) if (this.refs.indexes(name)) this.refs.add(urn, name, this.latestText(e.a[name]!))
      const {last: lastSeq, sums, cut} = await this.replay(manifest)

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
      if (this.values.compactionDue) this.compactValues()
      // Segments replayed now are closed for good: the manifest records them, so that a later
      // start notices one that went missing or changed.
      if (this.legacy) for (let i = 0; i < this.nShards; i++) this.dirty.add(i)
      // The new live segment exists (and is synced) before the manifest names it: a crash
      // between the two leaves an empty segment no manifest names, which the next start replays
      // as nothing; the other order would leave a manifest naming a missing segment.
      await this.journal.open(lastSeq + 1)
      await this.writeManifest({...manifest, sealed: {...(manifest.sealed ?? {}), ...sums}, live: this.journal.seq}).catch((e: unknown) => {
        // A full disk must not keep a store from opening to be read; the seals wait for a later
        // start, and writes wait until a manifest names the segment they go to (see flushLoop).
        if ((e as {code?: string}).code !== 'E_STORE_FULL') throw e
        this.opts.warn?.((e as Error).message)
        this.liveUnrecorded = true
      })
      for (const e of this.ents.values()) {
        if (e.id >= this.nextId) this.nextId = e.id + 1
        if (e.l >= this.nextLsn) this.nextLsn = e.l + 1
      }
      this.opened = true
      this.searchThread.start()
      if (report) this.opts.info?.(`Opened the store: ${this.ents.size.toLocaleString('en-US')} entities in ${((performance.now() - started) / 1000).toFixed(1)} s`)
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
    await this.searchThread.close()
    this.dirLock.release()
  }

  /** Bytes a start reads: the shards the manifest names and the journal from its segment on. */
  private bytesToRead(m: Manifest): number {
    let n = snapshotBytes(m)
    for (const f of listDir(join(this.dir, 'wal'))) {
      if (SEGMENT.test(f) && Number.parseInt(f, 10) >= m.walFrom) n += statSync(join(this.dir, 'wal', f)).size
    }
    return n
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

  /** The manifest; a store without one (and without files) is `fresh`: its manifest is written once the start succeeds. */
  private async readManifest(): Promise<{manifest: Manifest; fresh: boolean}> {
    const path = join(this.dir, 'manifest.json')
    const db = new Low<Manifest | null>(this.manifestFile(), null)
    try {
      await db.read()
    } catch (e) {
      throw this.corrupt(path, `cannot be read (${(e as Error).message})`)
    }
    if (db.data === null) {
      if (listDir(join(this.dir, 'shards')).some((f) => f.endsWith('.json'))) {
        throw this.corrupt(path, 'is missing but the store has shard files')
      }
      if (listDir(join(this.dir, 'wal')).some((f) => SEGMENT.test(f))) {
        throw this.corrupt(path, 'is missing but the store has journal segments')
      }
      const history = join(this.dir, 'history.log')
      if (existsSync(history) && statSync(history).size > 0) throw this.corrupt(path, 'is missing but the store has old versions in history.log')
      const fresh: Manifest = {format: FORMAT, shards: this.nShards, walFrom: 1, nextId: 1, gen: 0, files: {}, sealed: {}}
      this.manifest = fresh
      return {manifest: fresh, fresh: true}
    }
    const m = db.data
    if (typeof m === 'object' && m !== null && m.checksum !== undefined && m.checksum !== manifestChecksum(m)) {
      throw this.corrupt(path, 'does not match the checksum it carries (edited or damaged)')
    }
    if ((m.format !== FORMAT && m.format !== FORMAT_2 && m.format !== LEGACY_FORMAT) || typeof m.walFrom !== 'number' || typeof m.shards !== 'number') {
      throw this.corrupt(path, `is not a ${FORMAT} manifest`)
    }
    if (m.shards !== this.nShards) {
      throw new StoreCorruptError(`Store ${this.dir} was written with ${m.shards} shards, this build uses ${this.nShards}`)
    }
    this.legacy = m.format === LEGACY_FORMAT
    this.manifest = m
    return {manifest: m, fresh: false}
  }

  private async loadShards(m: Manifest): Promise<void> {
    const present = listDir(join(this.dir, 'shards')).filter((f) => f.endsWith('.json'))
    if (this.legacy) {
      for (const f of present) {
        if (!LEGACY_SHARD.test(f)) continue
        await this.loadShard(new StoreJsonFile<LoadedShard | null>(this.fs, join(this.dir, 'shards', f), JSON.stringify, undefined, undefined, undefined, this.decodeShard))
      }
      return
    }
    const files = m.files ?? {}
    // While one shard decodes (on this thread), the next is read on libuv's threads.
    const entries = Object.entries(files)
    // The shards' value texts go to the arena: its memory in one piece (see ValueArena.reserve).
    this.values.reserve(snapshotBytes(m))
    const buffers = new FileBuffers()
    let ahead = entries.length > 0 ? buffers.read(join(this.dir, entries[0]![0])) : undefined
    for (let i = 0; i < entries.length; i++) {
      const [rel, expect] = entries[i]!
      const path = join(this.dir, rel)
      const mine = ahead!
      ahead = i + 1 < entries.length ? buffers.read(join(this.dir, entries[i + 1]![0])) : undefined
      await this.loadShard(new StoreJsonFile<LoadedShard | null>(this.fs, path, JSON.stringify, expect, (why) => this.corrupt(path, why), mine, this.decodeShard))
    }
    // A failed start may leave one read ahead; its error is the start's error already.
    ahead?.catch(() => undefined)
    // A shard the manifest does not name was written by a checkpoint that never finished (its
    // manifest was not saved): the journal still holds its writes, so it is not needed.
    for (const f of present) {
      if (SHARD.test(f) && !Object.hasOwn(files, `shards/${f}`)) this.opts.warn?.(`shard ${join(this.dir, 'shards', f)} is not in the manifest (an interrupted checkpoint); ignored`)
      else if (LEGACY_SHARD.test(f)) throw this.corrupt(join(this.dir, 'shards', f), `is a shard of the ${LEGACY_FORMAT} layout in a ${FORMAT} store`)
    }
  }

  private async loadShard(file: StoreJsonFile<LoadedShard | null>): Promise<void> {
    const db = new Low<LoadedShard | null>(file, null)
    try {
      await db.read()
    } catch (e) {
      if (e instanceof StoreCorruptError) throw e
      throw this.corrupt(file.path, `cannot be parsed (${(e as Error).message})`)
    }
    if (db.data === null) return
    for (const [urn, e] of db.data) {
      // Runs are counted here, in the one pass over the rows, and kept by replay's ops after.
      for (const v of Object.values(e.a)) {
        this.runs.count(v.sm.runId, v.time, 1)
        for (const r of v.old ?? []) this.runs.count(r[2], r[3], 1)
      }
      for (const rows of Object.values(e.s ?? {})) for (const r of rows) this.runs.count(r[3].runId, r[1], 1)
      this.track(urn, e)
    }
    this.history.flush()
  }

  /**
   * Replays the journal segments the manifest says recovery needs. They must run without a gap
   * from `walFrom`; a segment the manifest sealed must have the size and checksum recorded.
   * Returns the last segment number seen and the sums of the segments replayed.
   */
  private async replay(m: Manifest): Promise<{last: number; sums: Record<string, FileSum>; cut?: {path: string; length: number}}> {
    const from = m.walFrom
    const walDir = join(this.dir, 'wal')
    // A torn tail found here is cut by open() once the rest of the store has been checked.
    let cut: {path: string; length: number} | undefined
    const segs = listDir(walDir)
      .filter((f) => SEGMENT.test(f))
      .map((f) => Number.parseInt(f, 10))
      .filter((seq) => seq >= from)
      .sort((a, b) => a - b)
    const sealed = m.sealed ?? {}
    const sums: Record<string, FileSum> = {}
    // A checkpoint creates (and syncs) the segment it names before it saves the manifest, so after
    // one, `walFrom` exists; sealed segments must all be there; numbers run without gaps.
    const expected = new Set<number>(Object.keys(sealed).map(Number).filter((n) => n >= from))
    if ((m.gen ?? 0) > 0 && !this.legacy) expected.add(from)
    // Every segment up to the live one was created before the manifest named it, and none is
    // removed until a manifest no longer needs it.
    if (typeof m.live === 'number') for (let n = from; n <= m.live; n++) expected.add(n)
    for (const n of [...expected].sort((a, b) => a - b)) {
      if (segs.includes(n)) continue
      const why = n === m.live ? 'is missing (the manifest records it as the live journal segment, which holds the writes acknowledged since the last checkpoint)' : 'is missing (the manifest needs it to recover acknowledged writes)'
      throw this.corrupt(join(walDir, segName(n)), why)
    }
    for (let i = 1; i < segs.length; i++) {
      if (segs[i] !== segs[i - 1]! + 1) throw this.corrupt(join(walDir, segName(segs[i - 1]! + 1)), `is missing (segments ${segName(segs[i - 1]!)} and ${segName(segs[i]!)} are there)`)
    }
    let last = from - 1
    for (const seq of segs) {
      last = seq
      const path = join(walDir, segName(seq))
      let buf = readWhole(path)
      const want = sealed[String(seq)]
      if (want) {
        const got = sum(buf)
        if (got.size !== want.size) throw this.corrupt(path, `has ${got.size} bytes, the manifest recorded ${want.size} (truncated or altered)`)
        if (got.sha256 !== want.sha256) throw this.corrupt(path, 'does not match the checksum the manifest recorded (altered)')
      }
      // A torn tail is an interrupted write only in the newest segment holding records: a
      // checkpoint creates the next (empty) segment before the last write to this one ends, so a
      // kill -9 in that window leaves a torn tail followed by empty segments.
      const isLastSeg = segs.every((later) => later <= seq || statSync(join(walDir, segName(later))).size === 0)
      let pos = 0
      while (pos < buf.length) {
        const nl = buf.indexOf(10, pos)
        if (nl === -1) {
          // A tail without its newline: a batch whose sync never finished (never acknowledged),
          // or a file cut short since — the bytes cannot tell which, and the warning says so.
          if (!isLastSeg) throw this.corrupt(path, 'ends in a torn record but is not the newest segment with records')
          this.opts.warn?.(`journal ${path}: ${tornTail(`dropped an incomplete last record (${buf.length - pos} bytes)`)}`)
          cut = {path, length: pos}
          buf = buf.subarray(0, pos)
          break
        }
        let rec: JournalRecord
        try {
          rec = JSON.parse(buf.toString('utf8', pos, nl)) as JournalRecord
        } catch {
          if (isLastSeg && nl === buf.length - 1) {
            this.opts.warn?.(`journal ${path}: ${tornTail('dropped an unreadable last record')}`)
            cut = {path, length: pos}
            buf = buf.subarray(0, pos)
            break
          }
          throw this.corrupt(path, `has an unreadable record at byte ${pos}`)
        }
        rec.o.forEach((op, i) => this.apply(op, rec.l + i, true))
        this.history.flush()
        if (rec.l + rec.o.length > this.nextLsn) this.nextLsn = rec.l + rec.o.length
        pos = nl + 1
      }
      sums[String(seq)] = want ?? sum(buf)
      this.walBytesSinceCheckpoint += buf.length
    }
    return {last, sums, cut}
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
          bytes = await this.journal.append(records)
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
          const results = p.ops.map((op) => this.apply(op, opLsn++, false))
          p.resolve(results)
        }
        try {
          this.history.flush()
        } catch (e) {
          // The batch is in the journal: the old versions wait in memory for the next flush,
          // and a checkpoint cannot complete until they are written.
          this.opts.warn?.(`old versions could not be written to ${this.history.path} (${(e as Error).message}); kept in memory until there is space`)
        }
        this.searchThread.schedule()
        if (this.values.compactionDue) this.compactValues()
        if (this.walBytesSinceCheckpoint >= this.checkpointDue() && !this.checkpointing) {
          void this.checkpoint().catch((e) => this.opts.warn?.(`checkpoint failed: ${(e as Error).message}`))
        }
      }
    } finally {
      this.flushing = null
    }
  }

  /**
   * Moves the live value texts to fresh chunks once replaced ones outweigh them: one pass over
   * the latest rows, paid for by at least as many bytes of writes since the last.
   */
  private compactValues(): void {
    this.values.compact((move) => {
      for (const e of this.ents.values()) for (const v of Object.values(e.a)) v.ref = move(v.ref)
    })
  }

  /** Names the live segment in the manifest (it could not be at the start: the disk was full). */
  private async recordLive(): Promise<void> {
    await this.writeManifest({...this.manifest!, live: this.journal.seq})
    this.liveUnrecorded = false
  }

  private shardOf(urn: string): number {
    return fnv1a(urn) % this.nShards
  }

  /** Marks the entity's shard for the next checkpoint and, when asked, the entity for re-indexing. */
  private touch(urn: string, reindex = true): void {
    this.dirty.add(this.shardOf(urn))
    if (reindex) this.searchThread.changed(urn)
  }

  /**
   * One object for equal system metadata: the rows of a batch (often of a whole run) share
   * runId and lastObserved, and a million rows each holding its own copy cost about 80 MiB.
   * Rows never mutate their metadata in place (an identical write replaces it), so sharing is safe.
   */
  private shared(sm: SystemMetadata): SystemMetadata {
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
  private interned(s: string): string {
    let hit = this.actorCache.get(s)
    if (hit === undefined) this.actorCache.set(s, (hit = s))
    return hit
  }

  private readonly actorCache = new Map<string, string>()

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
            put(e.a, op.keyAspect.name, new Versions(this.values.put(op.keyAspect.value), op.created.time, op.created.actor, sm))
            this.runs.count(op.systemMetadata.runId, op.created.time, 1)
          }
        }
        e.l = lsn
        let changed = true
        if (op.op === 'upsert') {
          const v = own(e.a, op.aspectName)
          // The text goes into the arena only when it becomes a version: an identical write stores nothing.
          if (!v) {
            put(e.a, op.aspectName, new Versions(this.values.put(op.value), op.created.time, op.created.actor, sm))
            this.refs.add(op.urn, op.aspectName, op.value)
          } else if (this.values.equals(v.ref, op.value)) {
            // DataHub: an identical value writes no version; only lastObserved and lastRunId move.
            const prev = v.sm
            v.sm = observedAgain(prev, op.systemMetadata)
            changed = false
          } else {
            // The version it replaces goes to disk; memory keeps where it lies.
            const prevText = this.values.text(v.ref)
            ;(v.old ??= []).push(this.history.append(prevText, v.time, v.actor, v.sm))
            this.refs.remove(op.urn, op.aspectName, prevText)
            this.refs.add(op.urn, op.aspectName, op.value)
            this.values.free(v.ref)
            v.ref = this.values.put(op.value)
            v.time = op.created.time
            v.actor = op.created.actor
            v.sm = sm
          }
        } else {
          const s = (e.s ??= {})
          let rows = own(s, op.aspectName)
          if (!rows) put(s, op.aspectName, (rows = []))
          const row: TsRow = [op.value, op.created.time, op.created.actor, sm, op.timestampMillis]
          const same = rows.findIndex((r) => r[4] === op.timestampMillis)
          if (same >= 0) {
            this.runs.count(rows[same]![3].runId, rows[same]![1], -1)
            rows[same] = row
          } else rows.push(row)
        }
        if (changed) this.runs.count(op.systemMetadata.runId, op.created.time, 1)
        if (op.op === 'upsert' && changed && this.opts.rules.feedsSearch(e.t, op.aspectName)) this.noteSearchValue(op.urn, op.aspectName, op[SEARCH_VALUE])
        // Search reads a few aspects only; identical writes and other aspects leave it as it was.
        this.touch(op.urn, createdEntity || (changed && op.op === 'upsert' && this.opts.rules.feedsSearch(e.t, op.aspectName)))
        return {urn: op.urn, aspectName: op.aspectName, changed, createdEntity, rowsRemoved: 0}
      }
      case 'deleteEntity': {
        if (!existing) return {urn: op.urn, changed: false, createdEntity: false, rowsRemoved: 0}
        let removed = 0
        for (const [name, v] of Object.entries(existing.a)) {
          this.refs.remove(op.urn, name, this.latestText(v))
          this.values.free(v.ref)
          for (const r of v.all()) (removed++, this.runs.count(runIdOf(r), timeOf(r), -1))
        }
        for (const rows of Object.values(existing.s ?? {})) for (const r of rows) (removed++, this.runs.count(r[3].runId, r[1], -1))
        this.forget(op.urn, existing)
        this.searchValues.delete(op.urn)
        this.touch(op.urn)
        return {urn: op.urn, changed: true, createdEntity: false, rowsRemoved: removed}
      }
      case 'deleteAspect': {
        if (!existing) return {urn: op.urn, aspectName, changed: false, createdEntity: false, rowsRemoved: 0}
        const latest = own(existing.a, op.aspectName)
        const rows: AnyRow[] = latest?.all() ?? own(existing.s, op.aspectName) ?? []
        for (const r of rows) this.runs.count(runIdOf(r), timeOf(r), -1)
        if (latest) {
          this.refs.remove(op.urn, op.aspectName, this.latestText(latest))
          this.values.free(latest.ref)
        }
        delete existing.a[op.aspectName]
        if (existing.s) delete existing.s[op.aspectName]
        this.noteSearchValue(op.urn, op.aspectName, undefined)
        existing.l = lsn
        this.dropIfEmpty(op.urn, existing)
        this.touch(op.urn)
        return {urn: op.urn, aspectName, changed: rows.length > 0, createdEntity: false, rowsRemoved: rows.length}
      }
      case 'revert': {
        const v = own(existing?.a, op.aspectName)
        if (!existing || !v) return {urn: op.urn, aspectName, changed: false, createdEntity: false, rowsRemoved: 0}
        this.runs.count(v.sm.runId, v.time, -1)
        this.refs.remove(op.urn, op.aspectName, this.latestText(v))
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
          this.refs.add(op.urn, op.aspectName, back.value)
        } else delete existing.a[op.aspectName]
        this.noteSearchValue(op.urn, op.aspectName, undefined)
        existing.l = lsn
        this.dropIfEmpty(op.urn, existing)
        this.touch(op.urn)
        return {urn: op.urn, aspectName, changed: true, createdEntity: false, rowsRemoved: 1}
      }
      case 'deleteTimeseriesOfRun':
      case 'deleteTimeseriesRange': {
        const rows = own(existing?.s, op.aspectName)
        if (!existing || !rows) return {urn: op.urn, aspectName, changed: false, createdEntity: false, rowsRemoved: 0}
        const goes = op.op === 'deleteTimeseriesOfRun' ? (r: TsRow) => r[3].runId === op.runId : (r: TsRow) => r[4] >= op.startTime && r[4] <= op.endTime
        const kept = rows.filter((r) => !goes(r))
        const removed = rows.length - kept.length
        for (const r of rows) if (goes(r)) this.runs.count(r[3].runId, r[1], -1)
        if (kept.length > 0) put(existing.s!, op.aspectName, kept)
        else delete existing.s![op.aspectName]
        existing.l = lsn
        this.dropIfEmpty(op.urn, existing)
        this.touch(op.urn)
        return {urn: op.urn, aspectName, changed: removed > 0, createdEntity: false, rowsRemoved: removed}
      }
    }
  }

  /**
   * Search projections (see SEARCH_VALUE) of aspects written since the last flush to the search
   * thread, by urn then aspect: sent instead of the whole text, then dropped. Only the latest
   * write of an aspect counts; one without a projection (or a revert, a delete) drops it.
   */
  private readonly searchValues = new Map<string, Record<string, string>>()

  private noteSearchValue(urn: string, aspectName: string, projection: string | undefined): void {
    let rec = this.searchValues.get(urn)
    if (projection === undefined) {
      if (rec && Object.hasOwn(rec, aspectName)) delete rec[aspectName]
      return
    }
    if (!rec) this.searchValues.set(urn, (rec = Object.create(null) as Record<string, string>))
    rec[aspectName] = projection
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
      const byShard = new Map<number, Record<string, Ent>>()
      for (const i of dirty) byShard.set(i, {})
      if (dirty.size > 0) {
        for (const [urn, e] of this.ents) {
          const s = byShard.get(this.shardOf(urn))
          if (s) s[urn] = e
        }
      }
      for (const [i, entities] of byShard) {
        for (const k of Object.keys(files)) if (k.startsWith(`shards/shard-${String(i).padStart(2, '0')}.`)) delete files[k]
        if (Object.keys(entities).length === 0) continue
        const rel = shardFile(i, gen)
        const file = new StoreJsonFile<ShardData | null>(this.fs, join(this.dir, rel), (d) => encodeShard(d!, this.values))
        const db = new Low<ShardData | null>(file, null)
        db.data = {format: FORMAT, entities}
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
      await this.writeManifest({format: FORMAT, shards: this.nShards, walFrom: keepFrom, nextId: this.nextId, gen, files, sealed: {}, historyBytes, live: keepFrom})
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

  // ---------------------------------------------------------------- search index

  /** Index messages the search thread has not finished and entities waiting to be sent to it. */
  indexBacklog(): {messages: number; entities: number} {
    return this.searchThread.backlog()
  }

  /** What the search thread needs of one changed entity: its search aspects as text, its removal, or both. */
  private searchItems(urn: string): IndexItem[] {
    const e = this.ents.get(urn)
    const deleted = this.deletedIds.get(urn)
    if (deleted !== undefined) this.deletedIds.delete(urn)
    if (!e) return deleted === undefined ? [] : [{id: deleted, urn, type: '', aspects: null}]
    const aspects: Record<string, string> = {}
    const projected = this.searchValues.get(urn)
    if (projected) this.searchValues.delete(urn)
    for (const [name, v] of Object.entries(e.a)) {
      if (this.opts.rules.feedsSearch(e.t, name)) aspects[name] = own(projected, name) ?? this.values.text(v.ref)
    }
    const item: IndexItem = {id: e.id, urn, type: e.t, aspects}
    // Deleted and written again before this flush: the old id leaves the index, the new one enters.
    return deleted !== undefined && deleted !== e.id ? [{id: deleted, urn, type: '', aspects: null}, item] : [item]
  }

  /** urn → search id of entities deleted since the last flush to the search thread. */
  private readonly deletedIds = new Map<string, number>()

  /**
   * Every urn in the order of the entities' ids. Ids are handed out one by one, so unless most
   * entities were deleted they fill a range little larger than the catalog: placed by id, in a
   * pass, where a sort took 0.6 s at a million entities before the server could listen.
   */
  private urnsById(): string[] {
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
    if (!rows || rows.length === 0) return undefined
    let best = rows[0]!
    for (const r of rows) if (r[4] > best[4] || (r[4] === best[4] && r[1] >= best[1])) best = r
    return best
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
    return rows
      .filter((r) => (opts.startTime === undefined || r[4] >= opts.startTime) && (opts.endTime === undefined || r[4] <= opts.endTime))
      .sort((a, b) => b[4] - a[4])
      .slice(0, opts.limit ?? 10000)
      .map((r) => this.envelope(urn, e, aspectName, r, 0, 'timeseries'))
  }

  private removed(e: Ent): boolean {
    const v = own(e.a, this.opts.rules.softDeleteAspect)
    return this.opts.rules.isRemoved(v === undefined ? undefined : this.values.text(v.ref))
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

  search(req: SearchRequest): Promise<SearchResponse> {
    return this.searchThread.query(req)
  }

  async referencesTo(targets: string[], opts: ReferenceQuery = {}): Promise<Array<{target: string; urn: string; aspectName: string}>> {
    const out: Array<{target: string; urn: string; aspectName: string}> = []
    if (targets.length === 0) return out
    if (opts.aspects && opts.aspects.every((a) => this.opts.rules.indexesReferences(a))) return this.refs.referencesTo(targets, opts.aspects)
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
      const keyName = this.opts.rules.keyAspectName(e.t)
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

  async stats(): Promise<StoreStats> {
    let aspectRows = 0
    for (const e of this.ents.values()) {
      for (const v of Object.values(e.a)) aspectRows += v.count
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

  get valueText(): string {
    return this.text
  }

  toJSON(): Record<string, unknown> {
    return {urn: this.urn, entityType: this.entityType, aspectName: this.aspectName, kind: this.kind, version: this.version, value: this.value, created: this.created, systemMetadata: this.systemMetadata}
  }
}

/** A directory's entries; none when it does not exist (a start must not create it to look). */
function listDir(path: string): string[] {
  try {
    return readdirSync(path)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw e
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

/**
 * The warning for a cut journal tail. A crash during a write leaves one that was never
 * acknowledged; a journal truncated afterwards (by hand, a restore, a failing disk) leaves the
 * same bytes for one that was. Only the first is harmless, and the store cannot tell them apart.
 */
function tornTail(what: string): string {
  return `${what}: either a write interrupted before it was acknowledged (a crash), or a journal cut short after it was written, which loses that write`
}
