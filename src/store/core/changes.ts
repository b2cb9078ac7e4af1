/**
 * What change-log entries (MCL + entity change events) a committed batch of store ops makes,
 * decided once, beside what the ops do to the rows (write.ts): an upsert that changed nothing
 * logs nothing, a delete logs the value it removed, a revert the value it brought back. Needs the
 * values before the write (`before`) and, for reverts, after it (`after`); the catalog reads them
 * and publishes what this returns.
 */
import {Change, type LoggedChange, type MetadataChangeLog} from '../../model/changelog.js'
import {entityTypeOf} from '../../model/urn.js'
import {SECRET_ASPECTS} from '../../model/registry.js'
import type {EntityRecord, WriteOp, WriteResult} from '../types.js'

const json = (text: string) => ({value: text, contentType: 'application/json' as const})

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
    // Secrets (password hashes, invite tokens) never leave the server, not even to subscribers.
    if ('aspectName' in op && SECRET_ASPECTS.has(op.aspectName)) return
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
        if (!res.changed) return
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
    // Its entity change events are worked out when first read (see Change).
    out.push(new Change(mcl))
  })
  return out
}

