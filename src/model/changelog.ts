/**
 * The change log's vocabulary: every committed change as DataHub's MetadataChangeLog (MCL) JSON,
 * with the entity change events (model/change-events.ts) it implies. The catalog makes them after
 * each commit; src/events keeps, serves and publishes them.
 *
 * Glossary:
 * - MCL: `{entityType, entityUrn, changeType, aspectName, aspect, previousAspectValue, created,
 *   systemMetadata}`; aspect values as DataHub writes them, `{value: <JSON text>, contentType}`.
 * - id: an event's SSE id: increasing within a server process and never reused by a later one
 *   (events/changelog.ts, clockFirstId).
 */
import {aspectChangeEvents, type ChangeEvent} from './change-events.js'

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
  changeEvents: ChangeEvent[]
  /** The commit (outbox sequence) and position in it, when an outbox records commits. */
  commit?: {seq: number; index: number}
}

export interface ChangeFilter {
  entityType?: string
  urnPrefix?: string
  aspect?: string
}

/**
 * Whether a subscriber with filter `f` gets change `c`. A hard delete of a whole entity (an MCL
 * without `aspectName`) passes every aspect filter: it removes that aspect too, and a subscriber
 * following one aspect would otherwise keep a value the server dropped.
 */
export function matches(f: ChangeFilter, c: LoggedChange): boolean {
  if (f.entityType && c.mcl.entityType !== f.entityType) return false
  if (f.urnPrefix && !c.mcl.entityUrn.startsWith(f.urnPrefix)) return false
  if (f.aspect && c.mcl.aspectName !== undefined && c.mcl.aspectName !== f.aspect) return false
  return true
}

/**
 * A change whose entity change events are worked out when first read: most writes have no
 * subscriber and no change-log publisher, and parsing both values to diff them was an eighth of
 * the write path's CPU. The events are a getter on the class, not an accessor per entry (three
 * closures and a context each). `toJSON` writes the events as a field, as JSON readers of the
 * outbox and the change log expect.
 */
export class Change implements Omit<LoggedChange, 'id'> {
  id?: number
  commit?: {seq: number; index: number}
  private events?: ChangeEvent[]

  constructor(readonly mcl: MetadataChangeLog, events?: ChangeEvent[]) {
    this.events = events
  }

  get changeEvents(): ChangeEvent[] {
    const m = this.mcl
    return (this.events ??= m.aspectName ? aspectChangeEvents(m.entityUrn, m.aspectName, parseText(m.previousAspectValue?.value), parseText(m.aspect?.value), m.created) : [])
  }

  /** The events if they were given or already worked out (the ring keeps them only then). */
  get knownEvents(): ChangeEvent[] | undefined {
    return this.events
  }

  toJSON(): Record<string, unknown> {
    return {...(this.id === undefined ? {} : {id: this.id}), mcl: this.mcl, changeEvents: this.changeEvents, ...(this.commit ? {commit: this.commit} : {})}
  }
}

function parseText(text: string | undefined): unknown {
  if (text === undefined) return null
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}
