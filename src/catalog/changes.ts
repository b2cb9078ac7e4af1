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
 * the write path's CPU. Reading `changeEvents` (an own, enumerable property, so JSON.stringify
 * sees it) computes them once; a spread of the entry would compute them too, so the change log
 * adds its fields to the entry in place.
 */
function withLazyEvents(mcl: MetadataChangeLog): Omit<LoggedChange, 'id'> {
  // Defined here, not in changesOf: a closure there would keep the batch's before and after
  // entities alive for as long as the change log holds the entry.
  const compute = (): ChangeEvent[] =>
    mcl.aspectName ? aspectChangeEvents(mcl.entityUrn, mcl.aspectName, parse(mcl.previousAspectValue?.value), parse(mcl.aspect?.value), mcl.created) : []
  let events: ChangeEvent[] | undefined
  const entry = {mcl} as Omit<LoggedChange, 'id'>
  Object.defineProperty(entry, 'changeEvents', {
    enumerable: true,
    get: () => (events ??= compute()),
    set: (v: ChangeEvent[]) => void (events = v),
  })
  return entry
}
