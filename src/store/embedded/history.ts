/**
 * Old versions of aspects, on disk: `history.log` beside the shards and the journal.
 *
 * Why: a store that keeps every version in memory grows with its history (3,000 writes to one
 * entity cost 200 MiB). Here a version that stops being the latest is appended to this file, and
 * memory keeps only where it lies (offset, length) and the two facts runs need without a read
 * (run id, created time). Timeline, rollback and `version=N` read it back on demand.
 *
 * Durability without a sync on the write path: the journal is the source of truth. Each
 * checkpoint flushes and syncs this file before its manifest records the file's size, and the
 * shards it wrote point only below that size. Once a start has found the store consistent, bytes
 * past the recorded size (appended after the last checkpoint, perhaps torn by a crash) are cut,
 * and the versions replaying the journal appended again are written. So a record is written once per replay at most, and never synced alone.
 *
 * A record is the version's metadata as one JSON line (`[time, actor, systemMetadata]`) followed
 * by the value text exactly as received (which may itself hold newlines: lengths, not
 * delimiters, frame a record).
 *
 * When an append cannot reach the disk (full, I/O error), the bytes wait in memory and are
 * written by the next flush; reads find them there. A checkpoint fails until they are written.
 */
import {closeSync, constants, fchmodSync, fdatasync, fstatSync, ftruncateSync, openSync, readSync, writeSync} from 'node:fs'
import {promisify} from 'node:util'
import type {SystemMetadata} from '../types.js'

const fdatasyncAsync = promisify(fdatasync)

/** An old version: [byte offset in history.log, byte length, run id, created time]. */
export type OldRow = [number, number, string | undefined, number]

/** One version read back. */
export interface HistoryRecord {
  value: string
  time: number
  actor: string
  systemMetadata: SystemMetadata
}

export class HistoryFile {
  private fd = -1
  /** Bytes known to be written to the file (not necessarily synced). */
  private flushed = 0
  /** Appended records not yet written, in order, starting at `flushed`. */
  private pending: Buffer[] = []
  private pendingBytes = 0

  /** `damaged(why)`: the typed error for a record that cannot be read back (names the file; see read()). */
  constructor(
    readonly path: string,
    private readonly damaged: (why: string) => Error = (why) => new Error(`${path} ${why}`),
  ) {}

  /**
   * Opens the file to read only, checking that it holds the `keep` bytes the manifest records
   * (`missing` when it is absent although bytes are recorded, `short` when it holds fewer). Nothing
   * is cut or written yet: a start that is refused later (a damaged shard, a missing segment) must
   * leave the file as it found it. Appends wait in memory until commit(): the old versions a
   * replay moves out of the latest rows, at most about the journal written since the last
   * checkpoint, held briefly rather than written into a store not yet known to be whole.
   */
  openToCheck(keep: number, short: (size: number) => Error, missing: () => Error): void {
    try {
      this.fd = openSync(this.path, constants.O_RDONLY)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
      if (keep > 0) throw missing()
      this.fd = -1
    }
    const size = this.fd >= 0 ? fstatSync(this.fd).size : 0
    this.sizeFound = size
    if (size < keep) {
      this.close()
      throw short(size)
    }
    this.flushed = keep
    this.deferred = true
  }

  /**
   * The store was found consistent: opens the file to write (creating it), cuts what lies past
   * the recorded size (written after the last checkpoint; the journal has replayed it into
   * `pending`), then writes what waited. A failed write leaves the bytes in memory (see flush()).
   */
  commit(): void {
    // Owner-only like every store file (old values may hold anything); a store made before
    // this rule gets its mode put right here.
    const fd = openSync(this.path, constants.O_RDWR | constants.O_CREAT, 0o600)
    fchmodSync(fd, 0o600)
    this.close()
    this.fd = fd
    if (fstatSync(fd).size > this.flushed) ftruncateSync(fd, this.flushed)
    this.deferred = false
    this.flush()
  }

  /** Until commit(), appends stay in memory and nothing is written. */
  private deferred = false
  /** The file's size when the start opened it to check. */
  private sizeFound = 0

  /**
   * Bytes found past the recorded size that the journal's replay did not write again and that
   * hold at least one whole record's metadata line. Old versions reach this file only after the
   * journal records that moved them there are durable, and a replay writes each of them again;
   * records it did not account for were written by journal records that are gone (a live
   * segment emptied or cut short), and commit() would cut them. A fragment without a line end
   * is no record (a torn write) and is cut as before.
   */
  unexplainedBytes(): number {
    const extra = this.sizeFound - this.size
    if (extra <= 0 || this.fd < 0) return 0
    const probe = Buffer.allocUnsafe(Math.min(extra, 1 << 20))
    const n = readSync(this.fd, probe, 0, probe.length, this.size)
    return probe.subarray(0, n).includes(10) || extra > probe.length ? extra : 0
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd)
    this.fd = -1
  }

  /** Size of the file once everything appended is written. */
  get size(): number {
    return this.flushed + this.pendingBytes
  }

  /** Appends one version; returns where it lies. Written by the next flush(). */
  append(value: string, time: number, actor: string, sm: SystemMetadata): OldRow {
    const buf = Buffer.from(`${JSON.stringify([time, actor, sm])}\n${value}`, 'utf8')
    const off = this.size
    this.pending.push(buf)
    this.pendingBytes += buf.length
    return [off, buf.length, sm.runId, time]
  }

  /**
   * Writes what was appended. Throws on a full disk or an I/O error; the bytes then stay in
   * memory and the next flush tries again from the same offset (a partly written record is
   * overwritten in place, and nothing past `flushed` is named by any manifest).
   */
  flush(): void {
    if (this.pendingBytes === 0 || this.deferred) return
    const buf = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes)
    this.pending = [buf]
    let done = 0
    while (done < buf.length) {
      const n = writeSync(this.fd, buf, done, buf.length - done, this.flushed + done)
      if (!(n > 0)) throw Object.assign(new Error(`short write to ${this.path}: ${done} of ${buf.length} bytes, then none`), {code: 'ENOSPC'})
      done += n
    }
    this.flushed += buf.length
    this.pending = []
    this.pendingBytes = 0
  }

  /** Flushes, then syncs: every byte below the returned size survives a crash. */
  async sync(): Promise<number> {
    this.flush()
    const size = this.flushed
    await fdatasyncAsync(this.fd)
    return size
  }

  private bytes(r: OldRow): Buffer {
    const [off, len] = r
    if (off >= this.flushed) {
      // Still waiting to be written (the disk was full): read it from memory.
      let at = this.flushed
      for (const b of this.pending) {
        if (off >= at && off + len <= at + b.length) return b.subarray(off - at, off - at + len)
        at += b.length
      }
      throw this.damaged(`has no record at byte ${off} (${len} bytes)`)
    }
    const buf = Buffer.allocUnsafe(len)
    let got = 0
    while (got < len) {
      const n = readSync(this.fd, buf, got, len - got, off + got)
      if (n === 0) throw this.damaged(`ends before the record at byte ${off} (${len} bytes)`)
      got += n
    }
    return buf
  }

  /**
   * Reads one old version back. The file is not checked whole at a start (it only grows, and may
   * be large), so a record altered on disk is found here: one whose metadata line or value text
   * is not JSON of the shape written throws `damaged`, a typed store-corruption error naming the
   * file and the byte, instead of failing later as if it were a bug. (A change that leaves valid
   * JSON, a digit of a time, is not detectable without a sum per record.)
   */
  read(r: OldRow): HistoryRecord {
    const buf = this.bytes(r)
    const at = `the record at byte ${r[0]} (${r[1]} bytes)`
    const nl = buf.indexOf(10)
    if (nl < 0) throw this.damaged(`has a damaged record: ${at} has no metadata line`)
    let meta: unknown
    try {
      meta = JSON.parse(buf.toString('utf8', 0, nl))
    } catch {
      throw this.damaged(`has a damaged record: the metadata of ${at} is not JSON`)
    }
    if (!Array.isArray(meta) || typeof meta[0] !== 'number' || typeof meta[1] !== 'string' || typeof meta[2] !== 'object' || meta[2] === null) {
      throw this.damaged(`has a damaged record: the metadata of ${at} is not [time, actor, systemMetadata]`)
    }
    const value = buf.toString('utf8', nl + 1)
    try {
      JSON.parse(value)
    } catch {
      throw this.damaged(`has a damaged record: the value of ${at} is not JSON`)
    }
    const [time, actor, systemMetadata] = meta as [number, string, SystemMetadata]
    return {value, time, actor, systemMetadata}
  }
}
