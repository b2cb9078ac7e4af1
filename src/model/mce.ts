/**
 * MetadataChangeEvents (MCEs) into change proposals (MCPs).
 *
 * Glossary:
 * - MCE: `{proposedSnapshot: {"<ns>.metadata.snapshot.<X>Snapshot": {urn, aspects: [...]}}}`, where
 *   each aspect is a one-key object naming the aspect's record class, e.g.
 *   `{"com.linkedin.pegasus2avro.common.Ownership": {...}}`. Files written by DataHub use the
 *   avro namespace (`com.linkedin.pegasus2avro.`), the REST API the Pegasus one (`com.linkedin.`).
 * - unpacking: one UPSERT proposal per snapshot aspect, the value normalised (nulls dropped,
 *   avro `{"string": x}` wrappers removed, union keys renamed) so it reads like any MCP.
 */
import {BadRequestError} from '../errors.js'
import type {ProposalInput, SystemMetadata} from './wire.js'
import {ASPECT_SPECS_BY_CLASS} from './aspects/index.js'
import {normalizeAspectValue} from './normalize.js'
import {entitySpecs} from './registry.js'
import {parseUrn} from './urn.js'

const AVRO_PREFIX = 'com.linkedin.pegasus2avro.'
const PEGASUS_PREFIX = 'com.linkedin.'

const SNAPSHOT_ENTITY = new Map<string, string>(entitySpecs().filter((e) => e.snapshot).map((e) => [e.snapshot!, e.name]))

/** `com.linkedin.pegasus2avro.x.Y` → `com.linkedin.x.Y`. */
export function pegasusClassName(fqn: string): string {
  return fqn.startsWith(AVRO_PREFIX) ? PEGASUS_PREFIX + fqn.slice(AVRO_PREFIX.length) : fqn
}

/** True for an object shaped like an MCE (it has `proposedSnapshot`). */
export function isMce(record: unknown): record is {proposedSnapshot: unknown; systemMetadata?: unknown} {
  return record !== null && typeof record === 'object' && !Array.isArray(record) && 'proposedSnapshot' in record
}

function oneKey(v: unknown, what: string, where: string): [string, unknown] {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new BadRequestError(`${where}: ${what} must be an object with one key naming its class`)
  const entries = Object.entries(v as Record<string, unknown>)
  if (entries.length !== 1) throw new BadRequestError(`${where}: ${what} must have exactly one key naming its class, found ${entries.length}`)
  return entries[0]!
}

/**
 * Unpacks an MCE into one UPSERT proposal per aspect. Throws BadRequestError naming the
 * problem (unknown snapshot or aspect class, missing urn, urn of the wrong entity type).
 */
export function mceToProposals(mce: unknown, where = 'MCE'): ProposalInput[] {
  if (!isMce(mce)) throw new BadRequestError(`${where}: not an MCE (no 'proposedSnapshot')`)
  const [snapshotClass, snapshot] = oneKey(mce.proposedSnapshot, 'proposedSnapshot', where)
  const shortName = snapshotClass.slice(snapshotClass.lastIndexOf('.') + 1)
  const expectedType = SNAPSHOT_ENTITY.get(shortName)
  if (!expectedType) throw new BadRequestError(`${where}: unknown snapshot class ${snapshotClass}`)
  if (snapshot === null || typeof snapshot !== 'object') throw new BadRequestError(`${where}: ${shortName} must be an object with 'urn' and 'aspects'`)
  const snap = normalizeUrnField(snapshot as {urn?: unknown; aspects?: unknown})
  if (typeof snap.urn !== 'string') throw new BadRequestError(`${where}: ${shortName} has no 'urn'`)
  const urn = snap.urn
  const entityType = parseUrn(urn).entityType
  if (entityType !== expectedType) throw new BadRequestError(`${where}: ${shortName} holds urn ${urn} of entity type ${entityType}, expected ${expectedType}`)
  if (!Array.isArray(snap.aspects)) throw new BadRequestError(`${where}: ${shortName} of ${urn} has no 'aspects' list`)
  const sm = mce.systemMetadata && typeof mce.systemMetadata === 'object' ? (normalizeAspectValue(mce.systemMetadata) as SystemMetadata) : undefined
  return snap.aspects.map((a, i) => {
    const [cls, value] = oneKey(a, `aspect ${i} of ${urn}`, where)
    const spec = Object.hasOwn(ASPECT_SPECS_BY_CLASS, pegasusClassName(cls)) ? ASPECT_SPECS_BY_CLASS[pegasusClassName(cls)] : undefined
    if (!spec) throw new BadRequestError(`${where}: aspect ${i} of ${urn} has unknown class ${cls}`)
    const p: ProposalInput = {entityType, entityUrn: urn, changeType: 'UPSERT', aspectName: spec.name, aspect: {json: normalizeAspectValue(value)}}
    if (sm) p.systemMetadata = {...sm}
    return p
  })
}

function normalizeUrnField(s: {urn?: unknown; aspects?: unknown}): {urn?: unknown; aspects?: unknown} {
  // Avro-JSON may wrap even the urn ({"string": "urn:li:..."}) in hand-written files.
  if (s.urn !== null && typeof s.urn === 'object' && typeof (s.urn as {string?: unknown}).string === 'string') return {...s, urn: (s.urn as {string: string}).string}
  return s
}
