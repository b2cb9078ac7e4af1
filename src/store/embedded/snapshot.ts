/**
 * Snapshot shard files of the embedded store: written from the memtable's rows (`ShardEncoder`),
 * read back into them (`ShardSink`).
 *
 * A shard file of this format (`mdcli-shard 4`) is laid out for a fast start:
 *
 *   mdcli-shard 4\n
 *   head\n              JSON: tables (system metadata, actors, aspect names, entity types), the
 *                       urns in order, the rare parts (old versions, timeseries rows) by entity
 *                       index, and the sizes of the four regions below
 *   padding             to a multiple of 8 bytes from the file's start
 *   numbers             float64, little-endian: per entity its id and LSN, then per versioned
 *                       aspect its time
 *   indexes             uint32, little-endian: per entity its type and its count of versioned
 *                       aspects, then per aspect its name, actor and system metadata (table indexes)
 *   records             each versioned aspect's latest value as the value arena keeps it (a 4-byte
 *                       head, the UTF-8 bytes), in the order of the indexes
 *   texts               timeseries rows' value texts, which the head's rows point into
 *
 * Why: format 3 kept every row in its JSON line, and at a million aspects parsing those 90 MB of
 * JSON was the largest part of a start (a second of 3.9 on the project machine, plus the
 * collections of the arrays it made); the records region is copied into the arena a run at a
 * time instead of a copy per value. Shards of formats up to 3 are still read; a checkpoint
 * rewrites them in this one.
 */
import {isAscii as bufferIsAscii} from 'node:buffer'
import {endianness} from 'node:os'
import {StoreVersionError} from '../../errors.js'
import type {OldRow} from './history.js'
import type {ValueArena} from './values.js'
import type {SystemMetadata} from '../types.js'

/** Timeseries row: [value JSON, created time, created actor, system metadata, timestampMillis]. */
export type TsRow = [string, number, string, SystemMetadata, number]

/** A latest version as a shard of format 3 or earlier is read: its value in the arena, its old versions' places. */
interface LegacyVersion {
  ref: number
  time: number
  actor: string
  sm: SystemMetadata
  old?: OldRow[]
}

/** An entity as a shard of format 3 or earlier holds it (its JSON line, rows rebuilt in place). */
interface Ent {
  id: number
  t: string
  l: number
  a: Record<string, LegacyVersion>
  s?: Record<string, TsRow[]>
}

/**
 * Where a shard's rows go as they are read: the memtable's columns (memtable.ts). `entity`
 * returns a handle the aspect and series calls of that entity take.
 */
export interface ShardSink {
  entity(urn: string, id: number, type: string, lsn: number): number
  aspect(entity: number, name: string, ref: number, time: number, actor: string, sm: SystemMetadata, old: OldRow[] | undefined): void
  series(entity: number, name: string, rows: TsRow[]): void
}

interface ShardData {
  format: string
  /**
   * System metadata and actors of the shard's rows, each once: a row's [2] and [3] are indexes
   * into these (absent in shards written before them, whose rows hold the values). A million
   * rows share a handful of values, and parsing a copy of each cost a fifth of a start.
   */
  sm?: SystemMetadata[]
  actors?: string[]
  entities: Record<string, Ent>
}

/**
 * First line of a shard file of format 3, the format before this one. The second line is the shard as JSON, whose rows
 * hold [offset, length] of their value text in the bytes after it instead of the text: parsing
 * JSON strings full of escaped quotes was most of a start, and slicing raw text is several times
 * faster. Shards of earlier formats are plain JSON (they start with `{`).
 */
const SHARD_MAGIC_3 = 'mdcli-shard 3\n'

/** How a shard's rows are rebuilt in memory: texts into the arena, shared metadata and actors. */
export interface ShardContext {
  values: ValueArena
  sink: ShardSink
  shared(sm: SystemMetadata): SystemMetadata
  interned(actor: string): string
  /**
   * An old version that a shard of format 2 still holds whole: appended to history.log, and its
   * entity's shard rewritten by the next checkpoint.
   */
  toHistory(urn: string, text: string, time: number, actor: string, sm: SystemMetadata): OldRow
}

/**
 * Reads a shard file of format 3 or earlier into objects: a latest version with its value in the
 * arena, a timeseries row as [text, time, actor, sm, timestamp], old versions as they are
 * ([offset, length, run id, time] in history.log).
 */
function decodeShardJson(buf: Buffer, ctx: ShardContext): ShardData {
  const magic = buf.length >= SHARD_MAGIC_3.length && buf.toString('latin1', 0, SHARD_MAGIC_3.length) === SHARD_MAGIC_3
  let data: ShardData
  let base = 0
  if (!magic) data = JSON.parse(buf.toString('utf8')) as ShardData
  else {
    const nl = buf.indexOf(10, SHARD_MAGIC_3.length)
    if (nl < 0) throw new Error('shard has no end of its JSON line')
    data = JSON.parse(buf.toString('utf8', SHARD_MAGIC_3.length, nl)) as ShardData
    base = nl + 1
  }
  const bounds = (off: number, len: number): void => {
    if (base + off + len > buf.length) throw new Error(`shard value at ${off} (${len} bytes) runs past the end of the file`)
  }
  // Rows of a shard with tables point into them (one shared object per distinct value); shards
  // written before the tables hold the values.
  const sms = data.sm?.map((v) => ctx.shared(v))
  const actors = data.actors?.map((v) => ctx.interned(v))
  const sm = (x: unknown): SystemMetadata => (typeof x === 'number' && sms ? sms[x]! : ctx.shared(x as SystemMetadata))
  const actor = (x: unknown): string => (typeof x === 'number' && actors ? actors[x]! : ctx.interned(x as string))
  for (const [urn, e] of Object.entries(data.entities)) {
    const versioned = e.a as unknown as Record<string, unknown[][]>
    for (const name of Object.keys(versioned)) {
      const rows = versioned[name]!
      const old: OldRow[] = []
      let latest: LegacyVersion | undefined
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!
        // A whole version: [offset, length, time, actor, sm] in a shard of this format, [text,
        // time, actor, sm] in a JSON one. Anything else is an old version's place in history.log.
        let ref: number | undefined
        let text: string | undefined
        // Indexed reads, not destructuring: this loop runs once per aspect at every start.
        if (magic && r.length === 5) {
          const off = r[0] as number
          const len = r[1] as number
          bounds(off, len)
          if (i === 0) ref = ctx.values.putBytes(buf, base + off, len, isAscii(buf, base + off, len))
          else text = buf.toString('utf8', base + off, base + off + len)
        } else if (!magic && typeof r[0] === 'string') {
          if (i === 0) ref = ctx.values.put(r[0])
          else text = r[0]
        }
        const k = magic ? 2 : 1
        const time = r[k]
        const by = r[k + 1]
        const meta = r[k + 2]
        if (ref !== undefined) latest = {ref, time: time as number, actor: actor(by), sm: sm(meta)}
        else if (text !== undefined) old.push(ctx.toHistory(urn, text, time as number, actor(by), sm(meta)))
        else old.push(r as OldRow)
      }
      if (!latest) throw new Error(`aspect ${name} of ${urn} has no latest version`)
      if (old.length > 0) latest.old = old
      put(e.a, name, latest)
    }
    for (const rows of Object.values(e.s ?? {}) as unknown as unknown[][]) {
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i] as unknown[]
        if (magic) {
          const off = r[0] as number
          const len = r[1] as number
          bounds(off, len)
          rows[i] = [buf.toString('utf8', base + off, base + off + len), r[2], actor(r[3]), sm(r[4]), r[5]]
        } else rows[i] = [r[0], r[1], actor(r[2]), sm(r[3]), r[4]]
      }
    }
  }
  return data
}

/** Whether `len` bytes from `start` are all below 0x80 (so latin1 decoding is exact and fastest). */
function isAscii(buf: Buffer, start: number, len: number): boolean {
  return bufferIsAscii(buf.subarray(start, start + len))
}

/**
 * An own property of a record keyed by aspect name. Aspect names come from requests, and a plain
 * object answers `constructor`, `toString` or `__proto__` from its prototype.
 */
export function own<T>(rec: Record<string, T> | undefined, key: string): T | undefined {
  return rec !== undefined && Object.hasOwn(rec, key) ? rec[key] : undefined
}

/** Sets an own property, even one named `__proto__` (a plain assignment would set the prototype). */
export function put<T>(rec: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(rec, key, {value, writable: true, enumerable: true, configurable: true})
  else rec[key] = value
}

/** First line of a shard file of this format (see the top of this file). */
const SHARD_MAGIC = 'mdcli-shard 4\n'
const LITTLE_ENDIAN = endianness() === 'LE'

/** What a shard decoded into its sink: the number of entities. */
export type LoadedShard = number

/** The head of a shard file of this format. */
interface ShardHead {
  format: string
  sm: SystemMetadata[]
  actors: string[]
  names: string[]
  types: string[]
  urns: string[]
  /** By entity index: its old versions (`o`) and timeseries rows (`s`, texts in the texts region). */
  x: Record<string, {o?: Record<string, OldRow[]>; s?: Record<string, unknown[][]>}>
  numbers: number
  indexes: number
  records: number
  texts: number
}

/** Index of `v` in a table being built. */
function tableIndex<T>(ix: Map<T, number>, v: T): number {
  let i = ix.get(v)
  if (i === undefined) ix.set(v, (i = ix.size))
  return i
}

/**
 * Builds a shard file of this format from the rows in memory, entity by entity: `entity`, then
 * `aspect` for each of its versioned aspects (as many as `entity` announced), then `series`.
 * The columns grow in typed arrays, not arrays of numbers: a checkpoint at a million aspects
 * made arrays of three million numbers.
 */
export class ShardEncoder {
  private readonly smIx = new Map<SystemMetadata, number>()
  private readonly actorIx = new Map<string, number>()
  private readonly nameIx = new Map<string, number>()
  private readonly typeIx = new Map<string, number>()
  private readonly urns: string[] = []
  private numbers: Float64Array<ArrayBuffer> = new Float64Array(1024)
  private nNumbers = 0
  private indexes = new Uint32Array(1024)
  private nIndexes = 0
  /** The value records, copied here one after another (views of the arena, one per aspect, were a million objects a checkpoint). */
  private records = Buffer.allocUnsafe(1 << 16)
  private recordBytes = 0
  private readonly texts: Buffer[] = []
  private textBytes = 0
  private readonly x: ShardHead['x'] = {}
  private extra: ShardHead['x'][string] | undefined

  private num(v: number): void {
    if (this.nNumbers === this.numbers.length) this.numbers = grownF64(this.numbers)
    this.numbers[this.nNumbers++] = v
  }

  private ix(v: number): void {
    if (this.nIndexes === this.indexes.length) {
      const next = new Uint32Array(this.indexes.length * 2)
      next.set(this.indexes)
      this.indexes = next
    }
    this.indexes[this.nIndexes++] = v
  }

  entity(urn: string, id: number, type: string, lsn: number, aspects: number): void {
    this.endEntity()
    this.urns.push(urn)
    this.num(id)
    this.num(lsn)
    this.ix(tableIndex(this.typeIx, type))
    this.ix(aspects)
  }

  /** `ref` is the latest value's place in `values`; its record is copied now. */
  aspect(name: string, values: ValueArena, ref: number, time: number, actor: string, sm: SystemMetadata, old: OldRow[] | undefined): void {
    const size = values.recordSize(ref)
    if (this.recordBytes + size > this.records.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.records.length * 2, this.recordBytes + size))
      this.records.copy(bigger, 0, 0, this.recordBytes)
      this.records = bigger
    }
    this.recordBytes += values.copyRecord(ref, this.records, this.recordBytes)
    this.num(time)
    this.ix(tableIndex(this.nameIx, name))
    this.ix(tableIndex(this.actorIx, actor))
    this.ix(tableIndex(this.smIx, sm))
    if (old && old.length > 0) put(((this.extra ??= {}).o ??= {}), name, old)
  }

  series(name: string, rows: readonly TsRow[]): void {
    const out = rows.map((r) => {
      const b = Buffer.from(r[0], 'utf8')
      this.texts.push(b)
      this.textBytes += b.length
      return [this.textBytes - b.length, b.length, r[1], tableIndex(this.actorIx, r[2]), tableIndex(this.smIx, r[3]), r[4]]
    })
    put(((this.extra ??= {}).s ??= {}), name, out)
  }

  private endEntity(): void {
    if (this.extra) this.x[this.urns.length - 1] = this.extra
    this.extra = undefined
  }

  get entities(): number {
    return this.urns.length
  }

  /** The file's bytes. */
  finish(format: string): Buffer {
    this.endEntity()
    const head: ShardHead = {
      format,
      sm: [...this.smIx.keys()],
      actors: [...this.actorIx.keys()],
      names: [...this.nameIx.keys()],
      types: [...this.typeIx.keys()],
      urns: this.urns,
      x: this.x,
      numbers: this.nNumbers,
      indexes: this.nIndexes,
      records: this.recordBytes,
      texts: this.textBytes,
    }
    const top = Buffer.from(`${SHARD_MAGIC}${JSON.stringify(head)}\n`, 'utf8')
    const pad = Buffer.alloc((8 - (top.length % 8)) % 8)
    const nums = Buffer.from(this.numbers.buffer, 0, this.nNumbers * 8)
    const ixs = Buffer.from(this.indexes.buffer, 0, this.nIndexes * 4)
    if (!LITTLE_ENDIAN) {
      nums.swap64()
      ixs.swap32()
    }
    return Buffer.concat([top, pad, nums, ixs, this.records.subarray(0, this.recordBytes), ...this.texts])
  }
}

/** A Float64Array twice as long, holding the same numbers. */
export function grownF64(a: Float64Array, min = 0): Float64Array<ArrayBuffer> {
  const next = new Float64Array(Math.max(a.length * 2, min, 16))
  next.set(a)
  return next
}

/** An Int32Array twice as long (at least `min`), holding the same numbers. */
export function grownI32(a: Int32Array, min = 0): Int32Array<ArrayBuffer> {
  const next = new Int32Array(Math.max(a.length * 2, min, 16))
  next.set(a)
  return next
}

/** A shard file of any format as rows in memory: texts into the arena, metadata and actors shared. */
export function decodeShard(buf: Buffer, ctx: ShardContext): LoadedShard {
  const first = buf.toString('latin1', 0, Math.min(buf.length, 32))
  if (first.startsWith(SHARD_MAGIC)) return decodeShard4(buf, ctx)
  if (first.startsWith('mdcli-shard ') && !first.startsWith(SHARD_MAGIC_3)) {
    throw new StoreVersionError(`is a shard of format "${first.slice(0, first.indexOf('\n') >>> 0).trim()}", which this build of mdcli cannot read (a newer mdcli wrote it)`)
  }
  // A shard of an earlier format becomes objects first (its JSON), then rows in the sink.
  const entities = decodeShardJson(buf, ctx).entities
  let n = 0
  for (const urn of Object.keys(entities)) {
    const e = entities[urn]!
    const h = ctx.sink.entity(urn, e.id, e.t, e.l)
    for (const name of Object.keys(e.a)) {
      const v = e.a[name]!
      ctx.sink.aspect(h, name, v.ref, v.time, v.actor, v.sm, v.old)
    }
    for (const name of Object.keys(e.s ?? {})) ctx.sink.series(h, name, e.s![name]!)
    n++
  }
  return n
}

function decodeShard4(buf: Buffer, ctx: ShardContext): LoadedShard {
  const nl = buf.indexOf(10, SHARD_MAGIC.length)
  if (nl < 0) throw new Error('shard has no end of its head')
  const head = JSON.parse(buf.toString('utf8', SHARD_MAGIC.length, nl)) as ShardHead
  const numbersAt = nl + 1 + ((8 - ((nl + 1) % 8)) % 8)
  const indexesAt = numbersAt + head.numbers * 8
  const recordsAt = indexesAt + head.indexes * 4
  const textsAt = recordsAt + head.records
  if (textsAt + head.texts !== buf.length) throw new Error(`shard has ${buf.length} bytes, its head accounts for ${textsAt + head.texts}`)
  // Copies, so that the columns are aligned whatever the file buffer's offset.
  const numBytes = Buffer.from(buf.subarray(numbersAt, indexesAt))
  const ixBytes = Buffer.from(buf.subarray(indexesAt, recordsAt))
  if (!LITTLE_ENDIAN) {
    numBytes.swap64()
    ixBytes.swap32()
  }
  const numbers = new Float64Array(numBytes.buffer, numBytes.byteOffset, head.numbers)
  const indexes = new Uint32Array(ixBytes.buffer, ixBytes.byteOffset, head.indexes)
  const refs = ctx.values.putRecords(buf, recordsAt, textsAt)
  const sms = head.sm.map((v) => ctx.shared(v))
  const actors = head.actors.map((v) => ctx.interned(v))
  const table = <T>(t: T[], i: number, what: string): T => {
    if (i >= t.length) throw new Error(`shard row names ${what} ${i} of ${t.length}`)
    return t[i]!
  }
  let n = 0
  let k = 0
  let r = 0
  for (let i = 0; i < head.urns.length; i++) {
    const urn = head.urns[i]!
    const id = numbers[n++]!
    const type = table(head.types, indexes[k++]!, 'entity type')
    const h = ctx.sink.entity(urn, id, type, numbers[n++]!)
    const count = indexes[k++]!
    const extra = Object.hasOwn(head.x, i) ? head.x[i] : undefined
    for (let j = 0; j < count; j++) {
      const name = table(head.names, indexes[k++]!, 'aspect name')
      if (r >= refs.length) throw new Error('shard has fewer value records than aspects')
      const ref = refs[r++]!
      const time = numbers[n++]!
      const actor = table(actors, indexes[k++]!, 'actor')
      const sm = table(sms, indexes[k++]!, 'system metadata')
      const old = own(extra?.o, name)
      ctx.sink.aspect(h, name, ref, time, actor, sm, old && old.length > 0 ? old : undefined)
    }
    if (extra?.s) {
      for (const [name, rows] of Object.entries(extra.s)) {
        ctx.sink.series(h, name, rows.map((row): TsRow => {
          const off = row[0] as number
          const len = row[1] as number
          if (off + len > head.texts) throw new Error(`shard text at ${off} (${len} bytes) runs past the end of the file`)
          return [buf.toString('utf8', textsAt + off, textsAt + off + len), row[2] as number, table(actors, row[3] as number, 'actor'), table(sms, row[4] as number, 'system metadata'), row[5] as number]
        }))
      }
    }
  }
  if (n !== head.numbers || k !== head.indexes || r !== refs.length) throw new Error('shard columns do not match its entities')
  return head.urns.length
}
