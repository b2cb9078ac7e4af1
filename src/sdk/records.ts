/**
 * The proposal form sinks write (DataHub's file-sink layout): key order `entityType, entityUrn,
 * changeType, aspectName, aspect, systemMetadata`, the aspect as `{"json": {...}}`.
 */
import type {ProposalInput} from '../model/wire.js'

/** A proposal in file-sink form; `{value: "<json text>"}` aspects are parsed into `{json}`. */
export function toFileRecord(p: ProposalInput): Record<string, unknown> {
  const out: Record<string, unknown> = {
    entityType: p.entityType ?? (typeof p.entityUrn === 'string' ? p.entityUrn.split(':')[2] : undefined),
    entityUrn: p.entityUrn,
    changeType: p.changeType ?? 'UPSERT',
    aspectName: p.aspectName,
  }
  const a = p.aspect
  if (a && typeof a === 'object') {
    if (a.json !== undefined) out.aspect = {json: a.json}
    else if (typeof a.value === 'string') {
      try {
        out.aspect = {json: JSON.parse(a.value)}
      } catch {
        out.aspect = {value: a.value, contentType: a.contentType ?? 'application/json'}
      }
    } else if (a.value !== undefined) out.aspect = {json: a.value}
  }
  if (p.systemMetadata) out.systemMetadata = p.systemMetadata
  return out
}
