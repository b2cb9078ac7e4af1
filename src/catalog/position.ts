/**
 * Queue positions: where in a queue's stream an aspect's value came from, kept in the aspect's
 * `systemMetadata.properties`, so a store (and every replica sharing it) knows it after a restart.
 *
 * Glossary:
 * - source: the stream a position counts in, named with its creation time
 *   (`MDCLI_PROPOSALS@2026-11-27T09:25:53.1Z`): a stream deleted and made again starts counting
 *   at 1, and its positions must not be compared with the old stream's.
 * - seq: the message's stream sequence, the broker's order of record.
 *
 * A proposal with a position is stale when the stored aspect records the same source at the same
 * or a later seq: the aspect already holds that message's value or a newer one.
 */
import type {SystemMetadata} from '../store/types.js'

export const POSITION_SOURCE = 'mdcli.queue.source'
export const POSITION_SEQ = 'mdcli.queue.seq'

export interface QueuePosition {
  source: string
  seq: number
}

/** The position recorded in `sm`, if any. */
export function positionOf(sm: SystemMetadata | undefined): QueuePosition | undefined {
  const source = sm?.properties?.[POSITION_SOURCE]
  const seq = Number(sm?.properties?.[POSITION_SEQ])
  return typeof source === 'string' && Number.isSafeInteger(seq) ? {source, seq} : undefined
}

/** `sm` with `position` recorded (replacing whatever position a publisher put there). */
export function withPosition(sm: unknown, position: QueuePosition): SystemMetadata {
  const base = sm && typeof sm === 'object' && !Array.isArray(sm) ? (sm as SystemMetadata) : {}
  const props = base.properties && typeof base.properties === 'object' && !Array.isArray(base.properties) ? base.properties : {}
  return {...base, properties: {...props, [POSITION_SOURCE]: position.source, [POSITION_SEQ]: String(position.seq)}}
}
