/**
 * The change log: the committed changes (model/changelog.ts) kept in a bounded ring for
 * `GET /events` subscribers (Server-Sent Events, resumable with `Last-Event-ID` while the id is
 * still in the ring) and handed to an optional publisher (JetStream).
 */
import {Change, type LoggedChange, type MetadataChangeLog} from '../model/changelog.js'
import type {ChangeEvent} from '../model/change-events.js'

type Listener = (c: LoggedChange) => void

/** Small strings the ring keeps as codes (entity types, aspect names, actors): few distinct values. */
class Codes {
  private readonly codeOf = new Map<string, number>()
  readonly values: string[] = []

  code(s: string): number {
    let c = this.codeOf.get(s)
    if (c === undefined) {
      c = this.values.length
      this.codeOf.set(s, c)
      this.values.push(s)
    }
    return c
  }
}

/** Bytes a text takes in the ring: ASCII as its bytes, anything else as UTF-16. */
function exactBytes(text: string | undefined): number {
  if (text === undefined) return 0
  return Buffer.byteLength(text, 'utf8') === text.length ? text.length : 2 * text.length
}

/** Per text slot of an entry: the aspect's value, the previous value. */
const TEXTS = 2
/** A text's length word: its top bit set when the bytes are UTF-16 (the text was not ASCII). */
const WIDE = 0x80000000

/**
 * The change log's memory of recent changes. It holds the last `capacity` changes, fewer when
 * their value texts pass `maxBytes`.
 *
 * An entry is kept as numbers, codes and the few objects it shares with the store (urn, audit
 * stamp, system metadata), its value texts as bytes in reused chunks outside V8's heap, and it
 * is made an object again only when read (a resumed `GET /events`, `recentlyChanged`). Why: a
 * ring of 10,000 change objects, each with two value texts, outlives V8's young generation and
 * is copied, promoted and marked again and again while an ingest turns it over: measured, about
 * 5 % of the server's CPU per aspect written.
 */
class Ring {
  /** Oldest id held, and the next id to be given; slot of id i: i % capacity. */
  first: number
  next: number
  private readonly urn: Array<string | undefined>
  private readonly created: Array<MetadataChangeLog['created'] | undefined>
  private readonly systemMetadata: Array<Record<string, unknown> | undefined>
  private readonly events: Array<ChangeEvent[] | undefined>
  private readonly chunkOf: Array<Buffer | undefined>
  /** Per slot: entity type code, aspect name code + 1 (0: none), changeType (1: DELETE), commit index. */
  private readonly ints: Int32Array
  /** Per slot: commit seq + 1 (0: none). */
  private readonly commitSeq: Float64Array
  /** Per slot and text: byte offset in its chunk, and length word (-1: absent). */
  private readonly at: Int32Array
  private readonly len: Uint32Array
  /** Per slot: bytes it counts against maxBytes. */
  private readonly size: Float64Array
  private bytes = 0
  private readonly codes = new Codes()
  /** Chunks oldest first, with the last id written into each; the last one is being filled. */
  private readonly chunks: Array<{buf: Buffer; lastId: number}> = []
  private used = 0

  constructor(
    private readonly capacity: number,
    private readonly maxBytes: number,
    private readonly chunkBytes: number,
    firstId: number,
  ) {
    this.first = firstId
    this.next = firstId
    this.urn = new Array(capacity).fill(undefined)
    this.created = new Array(capacity).fill(undefined)
    this.systemMetadata = new Array(capacity).fill(undefined)
    this.events = new Array(capacity).fill(undefined)
    this.chunkOf = new Array(capacity).fill(undefined)
    this.ints = new Int32Array(capacity * 4)
    this.commitSeq = new Float64Array(capacity)
    this.at = new Int32Array(capacity * TEXTS)
    this.len = new Uint32Array(capacity * TEXTS)
    this.size = new Float64Array(capacity)
  }

  get length(): number {
    return this.next - this.first
  }

  push(c: LoggedChange): void {
    if (this.length === this.capacity) this.dropOldest()
    const id = c.id
    const slot = id % this.capacity
    const m = c.mcl
    const value = m.aspect?.value
    const prev = m.previousAspectValue?.value
    // Room for the worst case (3 bytes a character); a text too large for a chunk gets a buffer
    // of its exact size instead (its bytes if ASCII, else 2 a character).
    let need = (value === undefined ? 0 : value.length * 3) + (prev === undefined ? 0 : prev.length * 3)
    if (need > this.chunkBytes) need = exactBytes(value) + exactBytes(prev)
    const buf = need === 0 ? undefined : this.room(need, id)
    let bytes = 0
    for (let t = 0; t < TEXTS; t++) {
      const text = t === 0 ? value : prev
      const k = slot * TEXTS + t
      if (text === undefined || !buf) {
        this.at[k] = -1
        continue
      }
      this.at[k] = this.used
      // ASCII (nearly every aspect) as its bytes; anything else as UTF-16, which keeps any string
      // exactly (UTF-8 would replace a lone surrogate).
      let n = buf.write(text, this.used, 'utf8')
      if (n !== text.length) n = buf.write(text, this.used, 'utf16le')
      this.len[k] = (n === text.length ? 0 : WIDE) | n
      this.used += n
      bytes += n
    }
    this.chunkOf[slot] = buf
    this.urn[slot] = m.entityUrn
    this.created[slot] = m.created
    this.systemMetadata[slot] = m.systemMetadata
    this.events[slot] = c instanceof Change ? c.knownEvents : c.changeEvents
    this.ints[slot * 4] = this.codes.code(m.entityType)
    this.ints[slot * 4 + 1] = m.aspectName === undefined ? 0 : this.codes.code(m.aspectName) + 1
    this.ints[slot * 4 + 2] = m.changeType === 'DELETE' ? 1 : 0
    this.ints[slot * 4 + 3] = c.commit?.index ?? 0
    this.commitSeq[slot] = c.commit ? c.commit.seq + 1 : 0
    this.size[slot] = bytes
    this.bytes += bytes
    this.next = id + 1
    while (this.bytes > this.maxBytes && this.length > 1) this.dropOldest()
  }

  private dropOldest(): void {
    const slot = this.first % this.capacity
    this.bytes -= this.size[slot]!
    this.urn[slot] = undefined
    this.created[slot] = undefined
    this.systemMetadata[slot] = undefined
    this.events[slot] = undefined
    this.chunkOf[slot] = undefined
    this.first++
  }

  /**
   * A chunk with `need` bytes free for entry `id`: the current one, else the oldest if no held
   * entry is in it any more, else a new one. A text larger than a chunk gets a buffer of its own.
   */
  private room(need: number, id: number): Buffer {
    const cur = this.chunks[this.chunks.length - 1]
    if (cur && this.used + need <= cur.buf.length) {
      cur.lastId = id
      return cur.buf
    }
    const oldest = this.chunks[0]
    let buf: Buffer
    if (oldest && oldest !== cur && oldest.lastId < this.first && oldest.buf.length >= need) {
      this.chunks.shift()
      buf = oldest.buf
    } else {
      // Chunks no held entry uses are let go (a large text's own buffer, or more than are needed).
      while (this.chunks.length > 0 && this.chunks[0]!.lastId < this.first) this.chunks.shift()
      buf = Buffer.allocUnsafeSlow(Math.max(this.chunkBytes, need))
    }
    this.chunks.push({buf, lastId: id})
    this.used = 0
    return buf
  }

  /** Entry `id` (held) as an object again. */
  get(id: number): LoggedChange {
    const slot = id % this.capacity
    const buf = this.chunkOf[slot]
    const text = (t: number): string | undefined => {
      const k = slot * TEXTS + t
      const at = this.at[k]!
      if (at < 0 || !buf) return undefined
      const word = this.len[k]!
      const n = word & ~WIDE
      return buf.toString((word & WIDE) === 0 ? 'latin1' : 'utf16le', at, at + n)
    }
    const value = text(0)
    const prev = text(1)
    const aspectCode = this.ints[slot * 4 + 1]!
    const sm = this.systemMetadata[slot]
    const mcl: MetadataChangeLog = {
      entityType: this.codes.values[this.ints[slot * 4]!]!,
      entityUrn: this.urn[slot]!,
      changeType: this.ints[slot * 4 + 2] === 1 ? 'DELETE' : 'UPSERT',
      ...(aspectCode === 0 ? {} : {aspectName: this.codes.values[aspectCode - 1]!}),
      ...(value === undefined ? {} : {aspect: {value, contentType: 'application/json' as const}}),
      ...(prev === undefined ? {} : {previousAspectValue: {value: prev, contentType: 'application/json' as const}}),
      created: this.created[slot]!,
      ...(sm === undefined ? {} : {systemMetadata: sm}),
    }
    const c = new Change(mcl, this.events[slot]) as LoggedChange
    c.id = id
    const seq = this.commitSeq[slot]!
    if (seq > 0) c.commit = {seq: seq - 1, index: this.ints[slot * 4 + 3]!}
    return c
  }

  /** The urn of entry `id` (held), without making the entry. */
  urnOf(id: number): string {
    return this.urn[id % this.capacity]!
  }
}

/**
 * The first id of a change log made now: the clock in microseconds. A later process of the same
 * store starts above every id this one gives out unless this one averaged more than a thousand
 * changes a millisecond, so an id is never handed out twice across restarts and a client resuming
 * with an id of an earlier process is told of a gap instead of silently skipping changes. Ids stay
 * below 2^53 (exact in JSON numbers) until the year 2255.
 */
export function clockFirstId(now = Date.now()): number {
  return now * 1000
}

export class ChangeLog {
  private readonly ring: Ring
  /** The first id this log gives out; ids below it are an earlier process's. */
  readonly firstId: number
  private nextId: number
  private readonly listeners = new Set<Listener>()
  private readonly sinks: Array<(batch: LoggedChange[]) => void> = []

  /**
   * Keeps the last `capacity` changes, fewer when their value texts pass `maxBytes`: a ring of
   * large aspects (a wide schema is megabytes) must not hold the server's memory. Ids start at
   * `firstId` (default: clockFirstId()).
   */
  constructor(
    private readonly capacity = 10_000,
    maxBytes = 16 * 2 ** 20,
    opts: {firstId?: number} = {},
  ) {
    this.firstId = opts.firstId ?? clockFirstId()
    this.nextId = this.firstId
    this.ring = new Ring(Math.max(1, capacity), maxBytes, Math.min(2 ** 20, Math.max(4096, maxBytes >>> 4)), this.firstId)
  }

  append(batch: Array<Omit<LoggedChange, 'id'>>): void {
    const logged: LoggedChange[] = []
    for (const c of batch) {
      // In place, not a spread: a spread would work out the entry's lazy change events now.
      const entry = c as LoggedChange
      entry.id = this.nextId++
      logged.push(entry)
      for (const l of this.listeners) l(entry)
      this.ring.push(entry)
    }
    if (logged.length > 0) for (const s of this.sinks) s(logged)
  }

  /**
   * Entries after `lastId` still in the ring; `gap` when some were already dropped. 0 asks for
   * everything held. An id this log never gave out — an earlier process's (below `firstId`: a
   * client resuming across a restart, whose changes between its id and this start are not known
   * here) or one from the future — is a gap too, and every held entry is new to that client.
   */
  since(lastId: number): {entries: LoggedChange[]; gap: boolean} {
    const {from, gap} = this.resume(lastId)
    const entries: LoggedChange[] = []
    for (let id = from; id < this.ring.next; id++) entries.push(this.ring.get(id))
    return {entries, gap}
  }

  /** Where a client resuming after `lastId` starts in the ring, and whether it missed changes. */
  resume(lastId: number): {from: number; gap: boolean} {
    const first = this.ring.first
    if (lastId === 0) return {from: first, gap: first > this.firstId}
    if (lastId < this.firstId || lastId >= this.nextId) return {from: first, gap: true}
    return {from: Math.max(first, lastId + 1), gap: lastId + 1 < first}
  }

  /** Entry `id` as an object, if the ring still holds it. */
  entry(id: number): LoggedChange | undefined {
    return id >= this.ring.first && id < this.ring.next ? this.ring.get(id) : undefined
  }

  /** The oldest id the ring holds (or `end` when it holds none). */
  get oldest(): number {
    return this.ring.first
  }

  /** The id the next change will get. */
  get end(): number {
    return this.nextId
  }

  /**
   * The entities changed most recently, newest first, each once with its latest change; walks the
   * ring from its end and stops after `count` entities (or `scanLimit` entries).
   */
  recentEntities(count: number, scanLimit = this.capacity): LoggedChange[] {
    const out: LoggedChange[] = []
    const seen = new Set<string>()
    for (let id = this.ring.next - 1, n = 0; id >= this.ring.first && out.length < count && n < scanLimit; id--, n++) {
      const urn = this.ring.urnOf(id)
      if (seen.has(urn)) continue
      seen.add(urn)
      out.push(this.ring.get(id))
    }
    return out
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l)
    return () => this.listeners.delete(l)
  }

  /** Every appended batch also goes to `sink` (a publisher), in order. */
  addSink(sink: (batch: LoggedChange[]) => void): void {
    this.sinks.push(sink)
  }

  get subscribers(): number {
    return this.listeners.size
  }
}
