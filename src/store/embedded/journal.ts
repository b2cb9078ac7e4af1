/**
 * The embedded store's journal: every acknowledged write batch, appended to numbered segment
 * files (`wal/NNNNNNNN.log`) as one line per batch, written in full and synced before the
 * batch is answered.
 *
 * Glossary:
 * - record: one batch, `{"l": <LSN of its first op>, "o": [<ops>]}` and a newline. In a store of
 *   format mdcli-lowdb-4 an op's aspect value may follow the JSON instead of sitting in it as an
 *   escaped string: the op's `value` is then the value's length, and the record reads
 *   `<JSON>\t<value><value>…\n` (see JournalEncoder).
 * - segment: one journal file. Writes go to the live segment; a checkpoint opens the next one and
 *   the segments before it are removed once a manifest no longer needs them.
 * - cut: a failed append may leave part of a record behind; the segment is truncated back to its
 *   last whole, synced record before anything else is written to it, so the journal never holds
 *   a torn record in its middle (a later start would take that for corruption).
 *
 * Reading the journal back (a start's replay) is the store's: it checks the segments against
 * its manifest and applies the records (lowdb-store.ts).
 */
import {join} from 'node:path'
import type {WriteOp} from '../types.js'
import {storeWriteError, writeFully, type AppendFile, type StoreFs} from './files.js'

export interface JournalRecord {
  /** LSN of the first op; op i has LSN l + i. */
  l: number
  o: WriteOp[]
}

/** A segment's file name. */
export const segName = (seq: number): string => `${String(seq).padStart(8, '0')}.log`
/** What a segment's file name looks like. */
export const SEGMENT = /^\d{8}\.log$/

/** Characters of journal text joined before one write into the buffer (see JournalEncoder.encode). */
const PUT_RUN = 16 * 1024

/** Largest journal buffer kept from one batch to the next. */
const JOURNAL_SCRATCH_MAX = 16 * 2 ** 20

/**
 * Journal records as UTF-8 lines, the bytes of `JSON.stringify(record) + '\n'` each, encoded op
 * by op into one buffer that is reused from batch to batch. A batch's record is about as large as
 * its request (half a megabyte for 1,000 aspects); as one string it went to V8's large-object
 * space, then again joined and flattened: old-generation garbage, a megabyte or more a batch. An
 * op's text is small and dies young, and reusing the buffer keeps a fresh external allocation
 * per batch from counting towards V8's next full collection.
 *
 * Given `hasEntity` (the store's entities as the batch finds them), an upsert leaves out its key
 * aspect when its entity exists before it: the key aspect is written only by the op that creates
 * the entity, so a replay, which meets the same entities in the same order, never reads it there.
 * A bulk load carries each entity's aspects together, and the key aspect (an escaped JSON string,
 * a third of a small aspect's op) went into every one of them. An op after a removal of its
 * entity in the same batch keeps it: a removal may take the entity with it.
 *
 * With `spliceValues` (a store whose manifest is of format mdcli-lowdb-4) the aspect values go
 * after the record's JSON as they are, not as JSON strings inside it: escaping every quote of a
 * value was most of the encoding's time for a large aspect (9 µs against 3 for a 1.4 kB schema)
 * and made the journal 5 % (small aspects) to 13 % (schemas) larger. A value the line could not carry unchanged stays inside: one holding a
 * newline (JSON whitespace a client may send) or a lone surrogate (UTF-8 cannot hold it).
 */
export class JournalEncoder {
  private buf = Buffer.allocUnsafeSlow(1 << 20)
  spliceValues = false

  /** The records' bytes: a view of the encoder's buffer, valid until the next call. */
  encode(records: JournalRecord[], hasEntity?: (urn: string) => boolean): Buffer {
    let at = 0
    const write = (text: string): void => {
      // A character is at most 3 bytes of UTF-8: room for the worst case, so no write is cut short.
      const need = at + text.length * 3
      if (need > this.buf.length) {
        const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, need))
        this.buf.copy(bigger, 0, 0, at)
        this.buf = bigger
      }
      at += this.buf.write(text, at, 'utf8')
    }
    // Small texts are gathered into runs of up to PUT_RUN characters and written a run at a time:
    // a write per op and per spliced value (two calls into C++ per aspect) cost more than the
    // joining, and a run stays well below V8's large-object size. A large text is written as it
    // is, not joined (joining would copy it once more to flatten the run).
    let run = ''
    const flush = (): void => {
      if (run.length === 0) return
      write(run)
      run = ''
    }
    const put = (text: string): void => {
      if (text.length >= PUT_RUN) {
        flush()
        write(text)
        return
      }
      run += text
      if (run.length >= PUT_RUN) flush()
    }
    // One huge batch does not keep its buffer for the batches after it.
    if (this.buf.length > JOURNAL_SCRATCH_MAX) this.buf = Buffer.allocUnsafeSlow(1 << 20)
    const spliced: string[] = []
    // Per urn, whether its entity exists at this point of the batch (absent: ask `hasEntity`).
    const exists = hasEntity ? new Map<string, boolean>() : undefined
    for (const r of records) {
      put(`{"l":${JSON.stringify(r.l)},"o":[`)
      for (let i = 0; i < r.o.length; i++) {
        const op = r.o[i]!
        const sep = i === 0 ? '' : ','
        if (op.op !== 'upsert' && op.op !== 'timeseries') {
          exists?.set(op.urn, false)
          put(sep + JSON.stringify(op))
          continue
        }
        // The op's own JSON with its value's length in place of the value and without a key
        // aspect it does not need: swapped out and back rather than copied, as a copy of the op
        // cost more than the escaping saved.
        const value = op.value
        const splice = this.spliceValues && splicable(value)
        const key = op.keyAspect
        const dropKey = exists !== undefined && key !== undefined && (exists.get(op.urn) ?? hasEntity!(op.urn))
        exists?.set(op.urn, true)
        if (splice) (op as {value: unknown}).value = value.length
        if (dropKey) op.keyAspect = undefined
        try {
          put(sep + JSON.stringify(op))
        } finally {
          op.value = value
          if (dropKey) op.keyAspect = key
        }
        if (splice) spliced.push(value)
      }
      if (spliced.length === 0) {
        put(']}\n')
        continue
      }
      put(']}\t')
      for (const v of spliced) put(v)
      put('\n')
      spliced.length = 0
    }
    flush()
    return this.buf.subarray(0, at)
  }
}

/** A value a record's line carries unchanged after its JSON: no newline to end the line early, UTF-8 for every character. */
function splicable(value: string): boolean {
  return value.indexOf('\n') < 0 && (value as unknown as {isWellFormed(): boolean}).isWellFormed()
}

/**
 * A record from one journal line (without its newline), in either layout. Throws on a line that
 * is not a whole record: the spliced values must fill the rest of the line exactly.
 */
export function decodeRecord(line: string): JournalRecord {
  // JSON.stringify escapes every tab inside strings, so the first one ends the record's JSON.
  const tab = line.indexOf('\t')
  if (tab < 0) return JSON.parse(line) as JournalRecord
  const rec = JSON.parse(line.slice(0, tab)) as JournalRecord
  let at = tab + 1
  for (const op of rec.o) {
    const n = (op as {value?: unknown}).value
    if (typeof n !== 'number') continue
    if ((op.op !== 'upsert' && op.op !== 'timeseries') || !Number.isSafeInteger(n) || n < 0 || at + n > line.length) {
      throw new Error(`journal record with a bad spliced value (op ${JSON.stringify(op.op)}, length ${n})`)
    }
    op.value = line.slice(at, (at += n))
  }
  if (at !== line.length) throw new Error(`journal record with ${line.length - at} characters past its values`)
  return rec
}

/** The live segment, appended to. One append at a time (the store's flush loop is the only writer). */
export class JournalWriter {
  /** The live segment's number. */
  seq = 0
  private fh: AppendFile | null = null
  /** Bytes of whole, synced records in the live segment. */
  private size = 0
  /** A failed append may have left bytes past `size` that could not be cut yet. */
  private needsCut = false
  private readonly encoder = new JournalEncoder()
  private readonly walDir: string

  /** `sync: false` skips the syncs (tests and benchmarks that measure everything else). */
  constructor(
    private readonly fs: StoreFs,
    private readonly storeDir: string,
    private readonly sync = true,
  ) {
    this.walDir = join(storeDir, 'wal')
  }

  /**
   * Whether records may carry their values after their JSON (see JournalEncoder): only once a
   * manifest of the format that reads them is on disk, so an older mdcli refuses the store
   * instead of taking such a record for a torn one.
   */
  set spliceValues(on: boolean) {
    this.encoder.spliceValues = on
  }

  /** The live segment's path. */
  get path(): string {
    return join(this.walDir, segName(this.seq))
  }

  /** Opens segment `seq` as the live one (creating it, and syncing its name into the directory). */
  async open(seq: number): Promise<void> {
    this.seq = seq
    const path = this.path
    try {
      this.fh = await this.fs.openAppend(path)
      this.size = await this.fh.size()
      // The new segment's name must survive a crash as surely as the records written into it.
      await this.fs.syncDir(this.walDir)
    } catch (e) {
      throw storeWriteError(e, this.storeDir, path)
    }
    this.needsCut = false
  }

  /**
   * Appends the records durably; resolves to the bytes appended. On failure nothing of them is
   * acknowledged: what reached the file is cut (now, or before the next append), and the typed
   * error names the segment. `hasEntity` as the encoder takes it (see JournalEncoder).
   */
  async append(records: JournalRecord[], hasEntity?: (urn: string) => boolean): Promise<number> {
    // A view of the encoder's buffer: the write below completes before the next batch encodes.
    const buf = this.encoder.encode(records, hasEntity)
    const fh = this.fh!
    try {
      if (this.needsCut) await this.cut()
      await writeFully((b, o, n, pos) => fh.write(b, o, n, pos), buf, this.size)
      if (this.sync) await fh.datasync()
    } catch (e) {
      this.needsCut = true
      await this.cut().catch(() => undefined)
      throw storeWriteError(e, this.storeDir, this.path)
    }
    this.size += buf.length
    return buf.length
  }

  /** Creates the segment after the live one (synced into the directory), for a checkpoint to rotate to. */
  async createNext(): Promise<AppendFile> {
    const path = join(this.walDir, segName(this.seq + 1))
    try {
      const fh = await this.fs.openAppend(path)
      await this.fs.syncDir(this.walDir)
      return fh
    } catch (e) {
      throw storeWriteError(e, this.storeDir, path)
    }
  }

  /**
   * Makes `next` (from createNext) the live segment. The old one is cut back to its last whole
   * record first; if that fails, nothing changes and `next` is closed.
   */
  async rotate(next: AppendFile): Promise<void> {
    if (this.needsCut) {
      try {
        await this.cut()
      } catch (e) {
        await next.close().catch(() => undefined)
        throw storeWriteError(e, this.storeDir, this.path)
      }
    }
    const old = this.fh
    this.fh = next
    this.seq++
    this.size = 0
    await old?.close().catch(() => undefined)
  }

  async close(): Promise<void> {
    await this.fh?.close().catch(() => undefined)
    this.fh = null
  }

  /** Cuts the live segment back to its last whole, synced record. */
  private async cut(): Promise<void> {
    const fh = this.fh!
    await fh.truncate(this.size)
    await fh.datasync()
    this.needsCut = false
  }
}
