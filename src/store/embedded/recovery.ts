/**
 * The embedded store's start, the reading half: the manifest, the snapshot shards it names (each
 * checked against its size and SHA-256), then the journal from the manifest's segment on. It
 * writes nothing: a start that is refused leaves every file as it was. What it finds goes to the
 * store through `RecoveryContext`; the store decides what to write once everything was read.
 *
 * Glossary:
 * - fresh: a directory without a manifest and without files: a new store.
 * - legacy: a store of the first layout (mdcli-lowdb-1); its first checkpoint rewrites every shard.
 * - sealed: journal segments an earlier start replayed, whose sums the manifest recorded.
 * - torn tail: a last journal record without its newline or unreadable; cut, with a warning.
 */
import {existsSync, statSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {Low} from 'lowdb'
import {StoreCorruptError, StoreVersionError} from '../../errors.js'
import type {WriteOp} from '../types.js'
import type {StoreFs} from './files.js'
import {decodeRecord, SEGMENT, segName, type JournalRecord} from './journal.js'
import {FORMAT, FORMAT_2, FORMAT_3, LEGACY_FORMAT, LEGACY_SHARD, manifestChecksum, SHARD, snapshotBytes, sum, type FileSum, type Manifest} from './manifest.js'
import {FileBuffers, listDir, readWhole, StoreJsonFile} from './read-files.js'
import {ReaderUnavailable, ShardReader} from './shard-reader.js'
import type {LoadedShard} from './snapshot.js'
import type {ValueArena} from './values.js'

/** Shards of this many bytes in all are read and summed on a thread of their own (shard-reader.ts). */
const READER_MIN_BYTES = 16 * 2 ** 20

/** A file's bytes, and their sum when it was computed as they were read. */
type ReadAhead = {buf: Buffer; sum?: FileSum}

/** What a start needs of the store it reads into. */
export interface RecoveryContext {
  dir: string
  fs: StoreFs
  nShards: number
  values: ValueArena
  warn?: (msg: string) => void
  corrupt(file: string, why: string): StoreCorruptError
  manifestFile(): StoreJsonFile<Manifest | null>
  /** Decodes a shard's rows into the memtable (see ShardSink). */
  decodeShard(buf: Buffer): LoadedShard
  /** After a shard or a journal record: old versions met so far go to the history file. */
  flushHistory(): void
  /** Applies a journal op; ops a loaded shard reflects already are the store's to skip. */
  apply(op: WriteOp, lsn: number): void
}

/** One start's reading of the store (see the module comment); each method is one step of it. */
export class Recovery {
  /** True while reading a store of the first layout. */
  legacy = false
  /** The manifest as read (or, for a fresh store, as it will be written). */
  manifest: Manifest | null = null
  /** One past the highest LSN the journal holds. */
  nextLsn = 1
  /** Bytes of journal replayed. */
  journalBytes = 0

  constructor(private readonly c: RecoveryContext) {}

  /** Bytes a start reads: the shards the manifest names and the journal from its segment on. */
  bytesToRead(m: Manifest): number {
    let n = snapshotBytes(m)
    for (const f of listDir(join(this.c.dir, 'wal'))) {
      if (SEGMENT.test(f) && Number.parseInt(f, 10) >= m.walFrom) n += statSync(join(this.c.dir, 'wal', f)).size
    }
    return n
  }

  /** The manifest; a store without one (and without files) is `fresh`: its manifest is written once the start succeeds. */
  async readManifest(): Promise<{manifest: Manifest; fresh: boolean}> {
    const path = join(this.c.dir, 'manifest.json')
    const db = new Low<Manifest | null>(this.c.manifestFile(), null)
    try {
      await db.read()
    } catch (e) {
      throw this.c.corrupt(path, `cannot be read (${(e as Error).message})`)
    }
    if (db.data === null) {
      if (listDir(join(this.c.dir, 'shards')).some((f) => f.endsWith('.json'))) {
        throw this.c.corrupt(path, 'is missing but the store has shard files')
      }
      if (listDir(join(this.c.dir, 'wal')).some((f) => SEGMENT.test(f))) {
        throw this.c.corrupt(path, 'is missing but the store has journal segments')
      }
      const history = join(this.c.dir, 'history.log')
      if (existsSync(history) && statSync(history).size > 0) throw this.c.corrupt(path, 'is missing but the store has old versions in history.log')
      const fresh: Manifest = {format: FORMAT, shards: this.c.nShards, walFrom: 1, nextId: 1, gen: 0, files: {}, sealed: {}}
      this.manifest = fresh
      return {manifest: fresh, fresh: true}
    }
    const m = db.data
    // Before the checksum: a newer mdcli may sum its manifest otherwise.
    const newer = typeof m?.format === 'string' ? /^mdcli-lowdb-(\d+)$/.exec(m.format) : null
    if (newer && Number(newer[1]) > Number(FORMAT.slice('mdcli-lowdb-'.length))) {
      throw new StoreVersionError(
        `Store ${this.c.dir} was written by a newer mdcli (format ${m.format}; this build reads up to ${FORMAT}); it was left untouched. Open it with that mdcli or a later one`,
      )
    }
    if (typeof m === 'object' && m !== null && m.checksum !== undefined && m.checksum !== manifestChecksum(m)) {
      throw this.c.corrupt(path, 'does not match the checksum it carries (edited or damaged)')
    }
    if ((m.format !== FORMAT && m.format !== FORMAT_3 && m.format !== FORMAT_2 && m.format !== LEGACY_FORMAT) || typeof m.walFrom !== 'number' || typeof m.shards !== 'number') {
      throw this.c.corrupt(path, `is not a ${FORMAT} manifest`)
    }
    if (m.shards !== this.c.nShards) {
      throw new StoreCorruptError(`Store ${this.c.dir} was written with ${m.shards} shards, this build uses ${this.c.nShards}`)
    }
    this.legacy = m.format === LEGACY_FORMAT
    this.manifest = m
    return {manifest: m, fresh: false}
  }

  async loadShards(m: Manifest): Promise<void> {
    const present = listDir(join(this.c.dir, 'shards')).filter((f) => f.endsWith('.json'))
    if (this.legacy) {
      for (const f of present) {
        if (!LEGACY_SHARD.test(f)) continue
        await this.loadShard(new StoreJsonFile<LoadedShard | null>(this.c.fs, join(this.c.dir, 'shards', f), JSON.stringify, undefined, undefined, undefined, this.c.decodeShard))
      }
      return
    }
    const files = m.files ?? {}
    const entries = Object.entries(files)
    // The shards' value texts go to the arena: its memory in one piece (see ValueArena.reserve).
    const bytes = snapshotBytes(m)
    this.c.values.reserve(bytes)
    const buffers = new FileBuffers()
    // Shards go into memory the arena claims for them where they fit (ValueArena.claim), in the
    // manifest's order, else into one of two buffers of the reader's. Those from the second on are
    // read and summed on the shard reader's thread (shard-reader.ts) while this thread decodes the
    // one before; the first is read here while the thread starts. When every one of them has a
    // claim they are asked for at once, the thread working through them; else one ahead, as the
    // two buffers allow (the thread answers in order, so one asked early would hold the next
    // behind it). A file not of its recorded size is read whole here, and refused. A small store
    // is read here alone, on libuv's threads one ahead: a thread is not worth starting for it.
    const reader = bytes >= READER_MIN_BYTES ? new ShardReader() : undefined
    const pathOf = (i: number) => join(this.c.dir, entries[i]![0])
    const claims = entries.map(([, f]) => this.c.values.claim(f.size))
    const fromReader = (i: number, into: Buffer): Promise<ReadAhead> => {
      // Read here when the file is not the size recorded (to be refused as such), or when the
      // reader's thread is gone (the start goes on without it).
      const here = () => readFile(pathOf(i)).then((buf) => ({buf}))
      const p = reader!.read(pathOf(i), into).then<ReadAhead, ReadAhead>(
        (r) => r ?? here(),
        (e: unknown) => {
          if (e instanceof ReaderUnavailable) return here()
          throw e
        },
      )
      // Handled by the loop when its turn comes; until then a failure must not count as unhandled.
      p.catch(() => undefined)
      return p
    }
    const asked = reader && claims.every((into, i) => i === 0 || ShardReader.canRead(into)) ? claims.map((into, i) => (i === 0 ? undefined : fromReader(i, into!))) : []
    const readAhead = (i: number): Promise<ReadAhead> => {
      const early = asked[i]
      if (early) return early
      if (i === 0 || !reader) return buffers.read(pathOf(i), claims[i]).then((buf) => ({buf}))
      const into = claims[i]
      return fromReader(i, ShardReader.canRead(into) ? into : buffers.shared(entries[i]![1].size))
    }
    let ahead: Promise<ReadAhead> | undefined
    try {
      ahead = entries.length > 0 ? readAhead(0) : undefined
      for (let i = 0; i < entries.length; i++) {
        const [rel, expect] = entries[i]!
        const path = join(this.c.dir, rel)
        const mine = ahead!
        ahead = i + 1 < entries.length ? readAhead(i + 1) : undefined
        ahead?.catch(() => undefined)
        await this.loadShard(new StoreJsonFile<LoadedShard | null>(this.c.fs, path, JSON.stringify, expect, (why) => this.c.corrupt(path, why), mine, this.c.decodeShard))
      }
    } finally {
      await reader?.close()
    }
    // A shard the manifest does not name was written by a checkpoint that never finished (its
    // manifest was not saved): the journal still holds its writes, so it is not needed.
    for (const f of present) {
      if (SHARD.test(f) && !Object.hasOwn(files, `shards/${f}`)) this.c.warn?.(`shard ${join(this.c.dir, 'shards', f)} is not in the manifest (an interrupted checkpoint); ignored`)
      else if (LEGACY_SHARD.test(f)) throw this.c.corrupt(join(this.c.dir, 'shards', f), `is a shard of the ${LEGACY_FORMAT} layout in a ${FORMAT} store`)
    }
  }

  async loadShard(file: StoreJsonFile<LoadedShard | null>): Promise<void> {
    const db = new Low<LoadedShard | null>(file, null)
    try {
      await db.read()
    } catch (e) {
      if (e instanceof StoreCorruptError) throw e
      if (e instanceof StoreVersionError) throw new StoreVersionError(`Store file ${file.path} ${e.message}; it was left untouched. Open the store with that mdcli or a later one`)
      throw this.c.corrupt(file.path, `cannot be parsed (${(e as Error).message})`)
    }
    if (db.data === null) return
    this.c.flushHistory()
  }

  /**
   * Replays the journal segments the manifest says recovery needs. They must run without a gap
   * from `walFrom`; a segment the manifest sealed must have the size and checksum recorded.
   * Returns the last segment number seen and the sums of the segments replayed.
   */
  async replay(m: Manifest): Promise<{last: number; sums: Record<string, FileSum>; cut?: {path: string; length: number}}> {
    const from = m.walFrom
    const walDir = join(this.c.dir, 'wal')
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
      throw this.c.corrupt(join(walDir, segName(n)), why)
    }
    for (let i = 1; i < segs.length; i++) {
      if (segs[i] !== segs[i - 1]! + 1) throw this.c.corrupt(join(walDir, segName(segs[i - 1]! + 1)), `is missing (segments ${segName(segs[i - 1]!)} and ${segName(segs[i]!)} are there)`)
    }
    let last = from - 1
    for (const seq of segs) {
      last = seq
      const path = join(walDir, segName(seq))
      let buf = readWhole(path)
      const want = sealed[String(seq)]
      if (want) {
        const got = sum(buf)
        if (got.size !== want.size) throw this.c.corrupt(path, `has ${got.size} bytes, the manifest recorded ${want.size} (truncated or altered)`)
        if (got.sha256 !== want.sha256) throw this.c.corrupt(path, 'does not match the checksum the manifest recorded (altered)')
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
          if (!isLastSeg) throw this.c.corrupt(path, 'ends in a torn record but is not the newest segment with records')
          this.c.warn?.(`journal ${path}: ${tornTail(`dropped an incomplete last record (${buf.length - pos} bytes)`)}`)
          cut = {path, length: pos}
          buf = buf.subarray(0, pos)
          break
        }
        let rec: JournalRecord
        try {
          rec = decodeRecord(buf.toString('utf8', pos, nl))
        } catch {
          if (isLastSeg && nl === buf.length - 1) {
            this.c.warn?.(`journal ${path}: ${tornTail('dropped an unreadable last record')}`)
            cut = {path, length: pos}
            buf = buf.subarray(0, pos)
            break
          }
          throw this.c.corrupt(path, `has an unreadable record at byte ${pos}`)
        }
        rec.o.forEach((op, i) => this.c.apply(op, rec.l + i))
        this.c.flushHistory()
        if (rec.l + rec.o.length > this.nextLsn) this.nextLsn = rec.l + rec.o.length
        pos = nl + 1
      }
      sums[String(seq)] = want ?? sum(buf)
      this.journalBytes += buf.length
    }
    return {last, sums, cut}
  }
}

/**
 * The warning for a cut journal tail. A crash during a write leaves one that was never
 * acknowledged; a journal truncated afterwards (by hand, a restore, a failing disk) leaves the
 * same bytes for one that was. Only the first is harmless, and the store cannot tell them apart.
 */
export function tornTail(what: string): string {
  return `${what}: either a write interrupted before it was acknowledged (a crash), or a journal cut short after it was written, which loses that write`
}
