/**
 * The latest value text of every aspect of the embedded store, as bytes outside V8's heap.
 *
 * Why: at a million aspects the texts were half of the server's heap (about 265 MiB of strings),
 * and V8 keeps a heap's worth of slack above what is live, marks it and copies it as strings are
 * promoted: the texts cost their size twice in RSS and a share of every collection. Here a text
 * is copied once into a large buffer, and memory holds a number (a ref) where it held the string.
 * A read decodes the bytes again (a fraction of a microsecond for a typical aspect).
 *
 * Glossary:
 * - chunk: a 16 MiB buffer texts are appended to; a text larger than a chunk gets one of its own,
 *   a shard file read at a start gets one of its size (`claim`), and the reservation's rest after
 *   the claims may make one shorter: each is filled up to its own size.
 * - ref: `chunk index * CHUNK + byte offset` of a record: a 4-byte length (its top bit set when
 *   the text is not plain ASCII), then the UTF-8 bytes.
 * - dead bytes: records of texts that are no longer anyone's latest value. Once they outweigh the
 *   live ones (and pass a floor), `compact` copies the live records to fresh chunks and the store
 *   rewrites its refs, so memory follows the live data, not the history of writes.
 */

const CHUNK = 16 * 2 ** 20
const NON_ASCII = 0x80000000
const LENGTH = 0x7fffffff
/** Dead bytes below this are never worth a compaction (the store scans all its rows for one). */
const COMPACT_FLOOR = 8 * 2 ** 20

export class ValueArena {
  private chunks: Array<Buffer | undefined> = []
  private cur = -1
  /** Bytes used in the current chunk. */
  private curUsed = 0
  /** Size of the current chunk: a chunk, less where the reservation's rest was shorter, more for one large text. */
  private curCap = 0
  private live = 0
  private dead = 0

  /** Bytes held by live records and by dead ones not yet compacted away. */
  get bytes(): {live: number; dead: number} {
    return {live: this.live, dead: this.dead}
  }

  /** Memory reserved for chunks to come (see reserve). */
  private spare: Buffer | undefined

  /**
   * Reserves about `bytes` for the chunks to come, in one allocation. Why: V8 counts each buffer
   * as external memory and starts a full marking of the heap at every 64 MiB of it, so a start
   * that fills the arena chunk by chunk marked the heap once per four chunks (a second at a time
   * at 5,000,000 aspects). Pages of the reservation that no chunk uses are never touched, so
   * they cost address space, not memory.
   */
  reserve(bytes: number): void {
    const chunks = Math.ceil(bytes / CHUNK)
    // Shared, so that a shard file can be read and summed into it on another thread (shard-reader.ts).
    if (chunks > 1) this.spare = Buffer.from(new SharedArrayBuffer(chunks * CHUNK))
  }

  /** Claimed buffers not yet given their records (see claim), by buffer, with their chunk's index. */
  private readonly claims = new Map<Buffer, number>()

  /**
   * A chunk of its own for a whole shard file of `size` bytes, cut from the reservation, for the
   * file to be read straight into; `putRecords` then takes the file's value region where it lies.
   * Why: copying each shard's records into the arena was a seventh of a start at a million
   * aspects on the server thread (the copy touches fresh pages, a fault every 4 KiB), while a
   * read into the same pages happens on another thread as the previous shard decodes. Undefined
   * when the file is larger than a chunk or the reservation has no room: it is read and copied.
   * The rest of the file (its head, columns, series texts) stays as dead bytes of the chunk.
   */
  claim(size: number): Buffer | undefined {
    if (size <= 0 || size > CHUNK || !this.spare || this.spare.length < size) return undefined
    const buf = this.spare.subarray(0, size)
    this.spare = this.spare.length > size ? this.spare.subarray(size) : undefined
    this.chunks.push(buf)
    this.claims.set(buf, this.chunks.length - 1)
    // Dead until its records are taken; a claim never taken (a shard of an older format, a file
    // that failed its check) stays dead.
    this.dead += size
    return buf
  }

  /** Room for `need` bytes at the end of the current chunk, or a chunk that has it. */
  private room(need: number): void {
    if (this.cur >= 0 && this.curUsed + need <= this.curCap) return
    // What claims left of the reservation may be less than a chunk: it serves while the text fits.
    const cut = this.spare ? Math.min(CHUNK, this.spare.length) : 0
    if (need <= cut) {
      this.chunks.push(this.spare!.subarray(0, cut))
      this.spare = this.spare!.length > cut ? this.spare!.subarray(cut) : undefined
    } else this.chunks.push(Buffer.allocUnsafeSlow(Math.max(CHUNK, need)))
    this.curCap = this.chunks[this.chunks.length - 1]!.length
    this.cur = this.chunks.length - 1
    this.curUsed = 0
  }

  put(text: string): number {
    // A string of n characters is at most 3n UTF-8 bytes; only a text near a chunk's end needs
    // its exact length first.
    const worst = text.length * 3 + 4
    if (this.cur < 0 || this.curUsed + worst > this.curCap) this.room(Buffer.byteLength(text, 'utf8') + 4)
    const chunk = this.chunks[this.cur]!
    const at = this.curUsed
    const n = chunk.write(text, at + 4, 'utf8')
    chunk.writeUInt32LE(((n === text.length ? 0 : NON_ASCII) | n) >>> 0, at)
    this.curUsed += n + 4
    this.live += n + 4
    return this.cur * CHUNK + at
  }

  /** Copies an encoded text (from a shard file) without making a string of it. */
  putBytes(src: Buffer, start: number, length: number, ascii: boolean): number {
    this.room(length + 4)
    const chunk = this.chunks[this.cur]!
    const at = this.curUsed
    src.copy(chunk, at + 4, start, start + length)
    chunk.writeUInt32LE(((ascii ? 0 : NON_ASCII) | length) >>> 0, at)
    this.curUsed += length + 4
    this.live += length + 4
    return this.cur * CHUNK + at
  }

  /**
   * Copies whole records (as `record` returns them, one after another: a shard file's value
   * region) from `src[start, end)`, a run of records per copy rather than one copy each: a start
   * at a million aspects spent a seventh of its time in per-record copies. Returns each record's
   * ref in order; a record that runs past `end` throws.
   */
  putRecords(src: Buffer, start: number, end: number): number[] {
    const refs: number[] = []
    const claimed = this.claims.get(src)
    if (claimed !== undefined) {
      // The records are where the file was read: checked, counted live, not copied.
      this.claims.delete(src)
      for (let at = start; at < end; at += recordSize(src, at, end)) refs.push(claimed * CHUNK + at)
      this.live += end - start
      this.dead -= end - start
      return refs
    }
    let at = start
    while (at < end) {
      // The longest run of records from `at` that fits the current chunk (at least one record).
      const first = recordSize(src, at, end)
      this.room(first)
      const chunk = this.chunks[this.cur]!
      const base = this.cur * CHUNK + this.curUsed - at
      // Refs address CHUNK bytes per chunk; only a record larger than that has a chunk of its own.
      const room = Math.max(this.curCap - this.curUsed, first)
      let stop = at + first
      refs.push(base + at)
      while (stop < end) {
        const size = recordSize(src, stop, end)
        if (stop + size - at > room) break
        refs.push(base + stop)
        stop += size
      }
      src.copy(chunk, this.curUsed, at, stop)
      this.curUsed += stop - at
      this.live += stop - at
      at = stop
    }
    return refs
  }

  /** The record at `ref`, its 4-byte head and its bytes: a view, valid until the next compaction. */
  record(ref: number): Buffer {
    const {chunk, at, length} = this.locate(ref)
    return chunk.subarray(at - 4, at + length)
  }

  /**
   * Copies the record at `ref` (head and bytes, as `record` gives it) into `target` at `at`;
   * returns its size. `target` must have room (see `recordSize`).
   */
  copyRecord(ref: number, target: Buffer, at: number): number {
    const {chunk, at: from, length} = this.locate(ref)
    return chunk.copy(target, at, from - 4, from + length)
  }

  /** Size of the record at `ref`, its 4-byte head included. */
  recordSize(ref: number): number {
    return this.locate(ref).length + 4
  }

  private locate(ref: number): {chunk: Buffer; at: number; length: number; ascii: boolean} {
    const chunk = this.chunks[Math.floor(ref / CHUNK)]
    if (!chunk) throw new Error(`value ref ${ref} points at no chunk`)
    const at = ref % CHUNK
    const head = chunk.readUInt32LE(at)
    return {chunk, at: at + 4, length: head & LENGTH, ascii: (head & NON_ASCII) === 0}
  }

  text(ref: number): string {
    const {chunk, at, length, ascii} = this.locate(ref)
    return chunk.toString(ascii ? 'latin1' : 'utf8', at, at + length)
  }

  /** Whether the text at `ref` is `text`; a plain ASCII record of another length is told apart without decoding. */
  equals(ref: number, text: string): boolean {
    const {length, ascii} = this.locate(ref)
    if (ascii && length !== text.length) return false
    return this.text(ref) === text
  }

  /** Whether the text is plain ASCII (one byte per character). */
  ascii(ref: number): boolean {
    return this.locate(ref).ascii
  }

  /** The text at `ref` is no longer a latest value. */
  free(ref: number): void {
    const n = this.locate(ref).length + 4
    this.live -= n
    this.dead += n
  }

  get compactionDue(): boolean {
    return this.dead > COMPACT_FLOOR && this.dead > this.live
  }

  /**
   * Moves every live record to fresh chunks. `walk` must call `move` once with each live ref and
   * store the ref it returns in its place; records it does not name are dropped.
   */
  compact(walk: (move: (ref: number) => number) => void): void {
    const old = this.chunks
    const oldLocate = (ref: number) => {
      const chunk = old[Math.floor(ref / CHUNK)]!
      const at = ref % CHUNK
      const head = chunk.readUInt32LE(at)
      return {chunk, at, size: (head & LENGTH) + 4}
    }
    this.chunks = []
    // Chunks cut from a reservation would keep the old chunks' memory alive.
    this.spare = undefined
    this.claims.clear()
    this.cur = -1
    this.curUsed = 0
    this.curCap = 0
    this.live = 0
    this.dead = 0
    walk((ref) => {
      const {chunk, at, size} = oldLocate(ref)
      this.room(size)
      const to = this.chunks[this.cur]!
      chunk.copy(to, this.curUsed, at, at + size)
      const moved = this.cur * CHUNK + this.curUsed
      this.curUsed += size
      this.live += size
      return moved
    })
  }
}

/** Size of the record at `at` of `src` (head included), which must end by `end`. */
function recordSize(src: Buffer, at: number, end: number): number {
  if (at + 4 > end) throw new Error(`value record at byte ${at} has no whole length`)
  const size = (src.readUInt32LE(at) & LENGTH) + 4
  if (at + size > end) throw new Error(`value record at byte ${at} (${size} bytes) runs past the end of its region`)
  return size
}
