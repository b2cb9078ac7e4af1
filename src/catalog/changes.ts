/**
 * Turns a committed batch of store ops into change-log entries (MCL + entity change events).
 * Needs the values before the write (`before`) and, for reverts, after it (`after`).
 */
import type {LoggedChange, MetadataChangeLog} from '../events/changelog.js'
import {entityTypeOf} from '../model/urn.js'
import type {EntityRecord, WriteOp, WriteResult} from '../store/types.js'
import {aspectChangeEvents, type ChangeEvent} from './timeline.js'

const json = (text: string) => ({value: text, contentType: 'application/json' as const})

function parse(text: string | undefined): unknown {
  if (text === undefined) return null
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

export function changesOf(
  ops: WriteOp[],
  results: WriteResult[],
  before: Map<string, EntityRecord>,
  after: Map<string, EntityRecord>,
  actor: string,
  time: number,
): Array<Omit<LoggedChange, 'id'>> {
  const out: Array<Omit<LoggedChange, 'id'>> = []
  ops.forEach((op, i) => {
    const res = results[i]
    if (!res) return
    const prevEntity = before.get(op.urn)
    const entityType = prevEntity?.entityType ?? ('entityType' in op ? op.entityType : entityTypeOf(op.urn))
    const prevOf = (aspect: string) => {
      const a = prevEntity?.aspects[aspect]
      return a ? (a.valueText ?? JSON.stringify(a.value)) : undefined
    }
    let mcl: MetadataChangeLog | undefined
    switch (op.op) {
      case 'upsert':
      case 'timeseries': {
        if (!res.changed && op.op === 'upsert') return
        const prev = op.op === 'upsert' ? prevOf(op.aspectName) : undefined
        mcl = {entityType, entityUrn: op.urn, changeType: 'UPSERT', aspectName: op.aspectName, aspect: json(op.value), ...(prev ? {previousAspectValue: json(prev)} : {}), created: op.created, systemMetadata: op.systemMetadata as Record<string, unknown>}
        break
      }
      case 'deleteEntity':
        if (!prevEntity) return
        mcl = {entityType, entityUrn: op.urn, changeType: 'DELETE', created: {time, actor}}
        break
      case 'deleteAspect': {
        const prev = prevOf(op.aspectName)
        if (prev === undefined) return
        mcl = {entityType, entityUrn: op.urn, changeType: 'DELETE', aspectName: op.aspectName, previousAspectValue: json(prev), created: {time, actor}}
        break
      }
      case 'revert': {
        const prev = prevOf(op.aspectName)
        const now = after.get(op.urn)?.aspects[op.aspectName]
        if (prev === undefined && !now) return
        mcl = now
          ? {entityType, entityUrn: op.urn, changeType: 'UPSERT', aspectName: op.aspectName, aspect: json(JSON.stringify(now.value)), ...(prev ? {previousAspectValue: json(prev)} : {}), created: {time, actor}, systemMetadata: now.systemMetadata as Record<string, unknown>}
          : {entityType, entityUrn: op.urn, changeType: 'DELETE', aspectName: op.aspectName, ...(prev ? {previousAspectValue: json(prev)} : {}), created: {time, actor}}
        break
      }
      default:
        // Timeseries row removals change no aspect's latest value a subscriber tracks.
        return
    }
    out.push(withLazyEvents(mcl))
  })
  return out
}

/**
 * A change whose entity change events are worked out when first read: most writes have no
 * subscriber and no change-log publisher, and parsing both values to diff them was an eighth of
 * the write path's CPU. One object per change, with the events as a getter on its class, where
 * an accessor defined per entry cost three closures and a context: the change log's ring holds
 * 10,000 of them, so each outlives V8's young generation and is copied and promoted. `toJSON`
 * writes the events as a field, as JSON readers of the outbox and the change log expect.
 */
class Change implements Omit<LoggedChange, 'id'> {
  id?: number
  commit?: {seq: number; index: number}
  private events?: ChangeEvent[]

  constructor(readonly mcl: MetadataChangeLog) {}

  get changeEvents(): ChangeEvent[] {
    const m = this.mcl
    return (this.events ??= m.aspectName ? aspectChangeEvents(m.entityUrn, m.aspectName, parse(m.previousAspectValue?.value), parse(m.aspect?.value), m.created) : [])
  }

  toJSON(): Record<string, unknown> {
    return {...(this.id === undefined ? {} : {id: this.id}), mcl: this.mcl, changeEvents: this.changeEvents, ...(this.commit ? {commit: this.commit} : {})}
  }
}

function withLazyEvents(mcl: MetadataChangeLog): Omit<LoggedChange, 'id'> {
  return new Change(mcl)
}
