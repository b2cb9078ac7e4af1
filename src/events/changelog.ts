/**
 * The change log: every committed change as DataHub's MetadataChangeLog (MCL) JSON, with the
 * entity change events (ECE) it implies, kept in a bounded ring for `GET /events` subscribers
 * (Server-Sent Events, resumable with `Last-Event-ID` while the id is still in the ring) and
 * handed to an optional publisher (JetStream).
 *
 * Glossary:
 * - MCL: `{entityType, entityUrn, changeType, aspectName, aspect, previousAspectValue, created,
 *   systemMetadata}`; aspect values as DataHub writes them, `{value: <JSON text>, contentType}`.
 * - id: a per-server sequence number; an event's SSE id.
 */
import type {ChangeEvent as EntityChangeEvent} from '../catalog/timeline.js'

export interface GenericAspect {
  value: string
  contentType: 'application/json'
}

export interface MetadataChangeLog {
  entityType: string
  entityUrn: string
  changeType: 'UPSERT' | 'DELETE'
  aspectName?: string
  aspect?: GenericAspect
  previousAspectValue?: GenericAspect
  created: {time: number; actor: string}
  systemMetadata?: Record<string, unknown>
}

export interface LoggedChange {
  id: number
  mcl: MetadataChangeLog
  /** DataHub's entity change events derived from this change (may be empty). */
  changeEvents: EntityChangeEvent[]
  /** The commit (outbox sequence) and position in it, when an outbox records commits. */
  commit?: {seq: number; index: number}
}

export interface ChangeFilter {
  entityType?: string
  urnPrefix?: string
  aspect?: string
}

export function matches(f: ChangeFilter, c: LoggedChange): boolean {
  if (f.entityType && c.mcl.entityType !== f.entityType) return false
  if (f.urnPrefix && !c.mcl.entityUrn.startsWith(f.urnPrefix)) return false
  if (f.aspect && c.mcl.aspectName !== f.aspect) return false
  return true
}

type Listener = (c: LoggedChange) => void

/** Rough bytes an entry keeps alive: its value texts and the objects around them. */
function entryBytes(c: LoggedChange): number {
  return 400 + 2 * ((c.mcl.aspect?.value.length ?? 0) + (c.mcl.previousAspectValue?.value.length ?? 0))
}

export class ChangeLog {
  private readonly ring: LoggedChange[] = []
  /** entryBytes of each ring entry, and their sum. */
  private readonly sizes: number[] = []
  private bytes = 0
  private start = 0
  private nextId = 1
  private readonly listeners = new Set<Listener>()
  private readonly sinks: Array<(batch: LoggedChange[]) => void> = []

  /**
   * Keeps the last `capacity` changes, fewer when their values pass `maxBytes`: a ring of large
   * aspects (a wide schema is megabytes) must not hold the server's memory.
   */
  constructor(
    private readonly capacity = 10_000,
    private readonly maxBytes = 16 * 2 ** 20,
  ) {}

  append(batch: Array<Omit<LoggedChange, 'id'>>): void {
    const logged: LoggedChange[] = []
    for (const c of batch) {
      // In place, not a spread: a spread would work out the entry's lazy change events now.
      const entry = c as LoggedChange
      entry.id = this.nextId++
      this.ring.push(entry)
      const size = entryBytes(entry)
      this.sizes.push(size)
      this.bytes += size
      logged.push(entry)
      for (const l of this.listeners) l(entry)
    }
    // Amortised trimming: the ring is cut once it holds twice its capacity (or bytes).
    if (this.ring.length >= 2 * this.capacity || this.bytes >= 2 * this.maxBytes) {
      let drop = Math.max(0, this.ring.length - this.capacity)
      let bytes = this.bytes
      for (let i = 0; i < drop; i++) bytes -= this.sizes[i]!
      while (bytes > this.maxBytes && drop < this.ring.length - 1) bytes -= this.sizes[drop++]!
      this.ring.splice(0, drop)
      this.sizes.splice(0, drop)
      this.bytes = bytes
      this.start += drop
    }
    if (logged.length > 0) for (const s of this.sinks) s(logged)
  }

  /** Entries after `lastId` still in the ring; `gap` when some were already dropped. */
  since(lastId: number): {entries: LoggedChange[]; gap: boolean} {
    const first = this.ring[0]?.id ?? this.nextId
    const gap = lastId + 1 < first && lastId < this.nextId - 1
    return {entries: this.ring.filter((e) => e.id > lastId), gap}
  }

  /**
   * The entities changed most recently, newest first, each once with its latest change; walks the
   * ring from its end and stops after `count` entities (or `scanLimit` entries).
   */
  recentEntities(count: number, scanLimit = this.capacity): LoggedChange[] {
    const out: LoggedChange[] = []
    const seen = new Set<string>()
    for (let i = this.ring.length - 1, n = 0; i >= 0 && out.length < count && n < scanLimit; i--, n++) {
      const e = this.ring[i]!
      if (seen.has(e.mcl.entityUrn)) continue
      seen.add(e.mcl.entityUrn)
      out.push(e)
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
