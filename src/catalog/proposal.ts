/**
 * Change proposals (DataHub's MetadataChangeProposal) in, store write ops out.
 *
 * Glossary:
 * - proposal: `{entityType, entityUrn, changeType, aspectName, aspect, systemMetadata}`; the
 *   aspect arrives as `{value: "<json text>", contentType}` (REST, older files) or `{json: {...}}`
 *   (newer file-sink output).
 * - prepared proposal: a proposal checked against the registry and its aspect's schema, with
 *   the value normalised and serialised once, ready to become a `WriteOp`.
 * - condition: what CREATE and UPDATE (DataHub's ChangeType.pdl) ask of the stored aspect before
 *   they write like an UPSERT: CREATE that it is absent, UPDATE that it is present. The catalog
 *   checks it under the urn's lock (Catalog.propose), where no other write can come between.
 * - new entity: what CREATE_ENTITY asks: that the entity (soft-deleted or not) did not exist when
 *   its batch began. As in DataHub's CreateIfNotExistsValidator, which judges by whether the batch
 *   had to make the entity's key: every proposal of a batch that brings the entity into being
 *   passes, so the SDK's `entities.create()` (the key as CREATE_ENTITY, then its aspects) lands whole.
 */
import {BadRequestError, BugError, ConflictError, InvalidAspectError, MdcliError, NotFoundError, TooLargeError} from '../errors.js'
import {checkJsonDepth, MAX_ASPECT_BYTES} from '../model/limits.js'
import {normalizeAspectValue} from '../model/normalize.js'
import {applyAspectPatch, checkPatch, type PatchOp} from '../model/patch.js'
import {isKeyAspect, keyValueOf, requireAspect, validateUrn} from '../model/registry.js'
import {validateAspect} from '../model/schemas.js'
import {isSearchAspect, searchProjection} from '../model/search-doc.js'
import type {AuditStamp, SystemMetadata, WriteOp} from '../store/types.js'
import type {WriteCondition} from '../store/core/write.js'
import {noteSearchProjection} from './search-feed.js'

import type {ProposalInput} from '../model/wire.js'

export interface PreparedProposal {
  urn: string
  entityType: string
  aspectName: string
  changeType: 'UPSERT' | 'DELETE' | 'PATCH'
  /** CREATE: the aspect must not exist yet; UPDATE: it must. Absent for a plain UPSERT. */
  condition?: WriteCondition
  /** CREATE_ENTITY: the entity must not have existed before this batch (see the glossary). */
  newEntity?: true
  /** PATCH only: the checked JSON Patch operations. */
  patch?: PatchOp[]
  kind: 'versioned' | 'timeseries'
  /** Normalised aspect value (absent for DELETE). */
  value?: unknown
  /** The value as canonical JSON text. */
  valueJson?: string
  /** The key aspect derived from the urn, as JSON text. */
  keyAspect: {name: string; value: string}
  systemMetadata: SystemMetadata
}

const SUPPORTED_CHANGE_TYPES = ['UPSERT', 'CREATE', 'UPDATE', 'CREATE_ENTITY', 'DELETE', 'PATCH'] as const

/** Whether a JSON value holds a NUL character in any string or key. */
function holdsNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\u0000')
  if (v === null || typeof v !== 'object') return false
  if (Array.isArray(v)) return v.some(holdsNul)
  for (const k in v) if (k.includes('\u0000') || holdsNul((v as Record<string, unknown>)[k])) return true
  return false
}

/** The JSON Patch document of a PATCH proposal: `aspect.json`, or `aspect.value` as JSON text. */
function patchOps(p: ProposalInput, where: string): unknown {
  const a = p.aspect
  if (a === null || a === undefined || typeof a !== 'object') throw new BadRequestError(`${where}: missing 'aspect' (a JSON Patch array)`)
  if ('json' in a && a.json !== undefined) return a.json
  if (typeof a.value === 'string') {
    checkJsonDepth(a.value, `${where}: aspect.value`)
    try {
      return JSON.parse(a.value)
    } catch (e) {
      throw new BadRequestError(`${where}: aspect.value is not valid JSON (${(e as Error).message})`)
    }
  }
  return a.value
}

/**
 * A PATCH proposal made whole: its ops applied to the current value (DataHub's keyed-array
 * semantics, from the aspect's default when there is none), as the UPSERT the catalog then
 * checks and writes; `now` stamps what the default fills in.
 */
export function patchedInput(p: PreparedProposal, current: Record<string, unknown> | undefined, now: number): ProposalInput {
  const value = applyAspectPatch(p.aspectName, current, p.patch ?? [], `patch of ${p.aspectName} (${p.urn})`, now)
  return {entityUrn: p.urn, entityType: p.entityType, aspectName: p.aspectName, changeType: 'UPSERT', aspect: {json: value}, systemMetadata: p.systemMetadata}
}

function parseAspectPayload(p: ProposalInput, where: string): unknown {
  const a = p.aspect
  if (a === null || a === undefined || typeof a !== 'object') throw new BadRequestError(`${where}: missing 'aspect' (expected {value, contentType} or {json})`)
  if ('json' in a && a.json !== undefined) return a.json
  const ct = a.contentType ?? 'application/json'
  if (ct !== 'application/json') throw new BadRequestError(`${where}: contentType ${ct} is not supported (expected application/json)`)
  if (typeof a.value === 'string') {
    // A string of n characters is at most 3n UTF-8 bytes: most aspects need no count.
    if (a.value.length * 3 > MAX_ASPECT_BYTES && Buffer.byteLength(a.value, 'utf8') > MAX_ASPECT_BYTES) throw new TooLargeError(`${where}: aspect of ${Buffer.byteLength(a.value, 'utf8')} bytes is over the limit of ${MAX_ASPECT_BYTES} bytes`)
    checkJsonDepth(a.value, `${where}: aspect.value`)
    try {
      return JSON.parse(a.value)
    } catch (e) {
      throw new BadRequestError(`${where}: aspect.value is not valid JSON (${(e as Error).message})`)
    }
  }
  if (a.value !== null && typeof a.value === 'object') return a.value
  throw new BadRequestError(`${where}: aspect.value must be the aspect serialised as a JSON string`)
}

/**
 * Text that may hold something `normalizeAspectValue` changes (a null value, an avro prefix, a
 * union wrapper key); plain JSON skips the copy. `"nullable": true` must not count as a null.
 */
const NEEDS_NORMALIZING = /[:,[]\s*null\s*[,}\]]|pegasus2avro|"(?:string|long|int|boolean|double|float|bytes|array|map)"\s*:/

/**
 * The last urn checked, with its key aspect's text: an ingest sends an entity's aspects one after
 * another, and parsing the same urn again was about 2 % of a batch's CPU.
 */
let lastUrn: {raw: string; checked: ReturnType<typeof validateUrn>; keyText: string} | undefined

function checkedUrn(raw: string): {checked: ReturnType<typeof validateUrn>; keyText: string} {
  if (lastUrn !== undefined && lastUrn.raw === raw) return lastUrn
  const checked = validateUrn(raw)
  lastUrn = {raw, checked, keyText: JSON.stringify(keyValueOf(checked.spec, checked.urn))}
  return lastUrn
}

/**
 * systemMetadata as the wire gave it when normalizing cannot change it (strings and numbers under
 * plain keys, as every emitter sends): the copy was about 1 % of a batch's CPU. Ops copy it again.
 */
function flatSystemMetadata(sm: Record<string, unknown>): boolean {
  for (const k in sm) {
    const v = sm[k]
    if ((typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') || k.startsWith('com.linkedin.')) return false
  }
  return true
}

/** Checks one proposal completely; throws a typed error naming what is wrong. */
export function prepareProposal(p: ProposalInput, where = 'proposal'): PreparedProposal {
  if (p === null || typeof p !== 'object' || Array.isArray(p)) throw new BadRequestError(`${where}: expected an object`)
  if (typeof p.entityUrn !== 'string' || p.entityUrn.length === 0) throw new BadRequestError(`${where}: missing 'entityUrn'`)
  const {checked, keyText} = checkedUrn(p.entityUrn)
  const {urn, spec} = checked
  if (p.entityType !== undefined && p.entityType !== spec.name) {
    throw new BadRequestError(`${where}: entityType '${String(p.entityType)}' does not match the urn's entity type '${spec.name}'`)
  }
  if (typeof p.aspectName !== 'string' || p.aspectName.length === 0) throw new BadRequestError(`${where}: missing 'aspectName'`)
  const aspect = requireAspect(spec.name, p.aspectName)
  const changeType = (p.changeType ?? 'UPSERT') as string
  if (!(SUPPORTED_CHANGE_TYPES as readonly string[]).includes(changeType)) {
    throw new BadRequestError(`${where}: changeType ${changeType} is not supported (use one of ${SUPPORTED_CHANGE_TYPES.join(', ')})`)
  }
  const keyAspect = {name: spec.keyAspect, value: keyText}
  const given = p.systemMetadata
  const sm: SystemMetadata =
    given && typeof given === 'object' ? (!Array.isArray(given) && flatSystemMetadata(given as Record<string, unknown>) ? given : (normalizeAspectValue(given) as SystemMetadata)) : {}
  // Run ids and the rest of systemMetadata are keys the stores look things up by; PostgreSQL's
  // text and jsonb cannot hold a NUL, so no store takes one.
  if (holdsNul(sm)) throw new BadRequestError(`${where}: systemMetadata holds a NUL character (\\u0000)`)
  checkSystemMetadata(sm, where)
  if (changeType === 'DELETE') {
    return {urn: urn.raw, entityType: spec.name, aspectName: aspect.name, changeType: 'DELETE', kind: aspect.kind, systemMetadata: sm, keyAspect}
  }
  if (changeType === 'PATCH') {
    // The ops are checked here; the catalog applies them to the stored value (patchedInput).
    if (aspect.kind === 'timeseries') throw new BadRequestError(`${where}: timeseries aspect ${aspect.name} cannot be patched`)
    const patch = checkPatch(patchOps(p, where), `${where} (${urn.raw} ${aspect.name})`)
    return {urn: urn.raw, entityType: spec.name, aspectName: aspect.name, changeType: 'PATCH', kind: aspect.kind, patch, systemMetadata: sm, keyAspect}
  }
  // DataHub appends timeseries points whatever is stored, so "exists" means nothing for them.
  if ((changeType === 'CREATE' || changeType === 'UPDATE') && aspect.kind === 'timeseries') {
    throw new BadRequestError(`${where}: changeType ${changeType} is not supported for timeseries aspect ${aspect.name} (use UPSERT)`)
  }
  const raw = parseAspectPayload(p, where)
  const rawText = p.aspect && typeof p.aspect.value === 'string' ? p.aspect.value : undefined
  const value = rawText !== undefined && !NEEDS_NORMALIZING.test(rawText) ? raw : normalizeAspectValue(raw)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidAspectError(`${where}: aspect ${aspect.name} must be a JSON object`)
  }
  try {
    validateAspect(aspect.name, value)
  } catch (e) {
    if (e instanceof MdcliError) throw new InvalidAspectError(`${where} (${urn.raw}): ${e.message}`, e.details)
    throw e
  }
  if (aspect.kind === 'timeseries' && typeof (value as {timestampMillis?: unknown}).timestampMillis !== 'number') {
    throw new InvalidAspectError(`${where}: timeseries aspect ${aspect.name} needs a numeric timestampMillis`)
  }
  // The text as received when nothing was normalized: stored exactly as written (no second
  // serialization); equality with the stored version is by this text.
  const valueJson = rawText !== undefined && value === raw ? rawText : JSON.stringify(value)
  if (valueJson.length > MAX_ASPECT_BYTES) throw new TooLargeError(`${where}: aspect ${aspect.name} of ${valueJson.length} characters is over the limit of ${MAX_ASPECT_BYTES} bytes`)
  return {
    urn: urn.raw,
    entityType: spec.name,
    aspectName: aspect.name,
    changeType: 'UPSERT',
    ...(changeType === 'CREATE' ? {condition: 'absent' as const} : changeType === 'UPDATE' ? {condition: 'present' as const} : changeType === 'CREATE_ENTITY' ? {newEntity: true as const} : {}),
    kind: aspect.kind,
    value,
    valueJson,
    systemMetadata: sm,
    keyAspect,
  }
}

const SYSTEM_METADATA_STRINGS = ['runId', 'lastRunId', 'pipelineName', 'registryName', 'registryVersion', 'version'] as const

/**
 * The fields of DataHub's SystemMetadata that runs and listings rely on, with their types: a run
 * id of 5 or a lastObserved of "__proto__" would be stored and then listed as a run of 1970.
 */
function checkSystemMetadata(sm: SystemMetadata, where: string): void {
  const o = sm as Record<string, unknown>
  for (const k of SYSTEM_METADATA_STRINGS) {
    if (o[k] !== undefined && o[k] !== null && typeof o[k] !== 'string') throw new BadRequestError(`${where}: systemMetadata.${k} must be a string, not ${JSON.stringify(o[k])?.slice(0, 40)}`)
  }
  const seen = o.lastObserved
  if (seen !== undefined && seen !== null && !(typeof seen === 'number' && Number.isSafeInteger(seen) && seen >= 0)) {
    throw new BadRequestError(`${where}: systemMetadata.lastObserved must be a time in milliseconds since the epoch, not ${JSON.stringify(seen)?.slice(0, 40)}`)
  }
  const props = o.properties
  if (props !== undefined && props !== null && (typeof props !== 'object' || Array.isArray(props) || Object.values(props).some((v) => typeof v !== 'string'))) {
    throw new BadRequestError(`${where}: systemMetadata.properties must map names to strings`)
  }
}

/**
 * The refusal of a CREATE_ENTITY of an entity that exists: 422, as GMS answers the
 * ValidationException its CreateIfNotExistsValidator raises, code E_CONFLICT.
 */
export function newEntityFailure(p: PreparedProposal, where: string): MdcliError {
  return new ConflictError(`${where}: cannot CREATE_ENTITY ${p.urn} (aspect ${p.aspectName}): the entity already exists (UPSERT writes to it)`, 422)
}

/**
 * The refusal of a proposal whose condition does not hold: CREATE of a stored aspect is a
 * conflict (409), UPDATE of a missing one is not found (404). DataHub's reference gives no
 * status of its own for these; these are HTTP's.
 */
export function conditionFailure(p: PreparedProposal, where: string): MdcliError {
  return p.condition === 'absent'
    ? new ConflictError(`${where}: cannot CREATE aspect ${p.aspectName} of ${p.urn}: it already exists (UPSERT replaces it)`)
    : new NotFoundError(`${where}: cannot UPDATE aspect ${p.aspectName} of ${p.urn}: it does not exist (CREATE or UPSERT writes it)`)
}

/** Turns a prepared proposal into the store op, stamping audit and system metadata. */
export function toWriteOp(p: PreparedProposal, created: AuditStamp, defaults: SystemMetadata): WriteOp {
  if (p.changeType === 'DELETE') {
    // Deleting the key aspect deletes the entity, as in DataHub: an entity without its key would
    // still answer reads and searches while `exists` said no.
    return isKeyAspect(p.entityType, p.aspectName) ? {op: 'deleteEntity', urn: p.urn} : {op: 'deleteAspect', urn: p.urn, aspectName: p.aspectName}
  }
  if (p.changeType === 'PATCH') throw new BugError(`A PATCH of ${p.aspectName} (${p.urn}) reached the store unapplied`)
  const systemMetadata: SystemMetadata = {...defaults, ...p.systemMetadata}
  systemMetadata.lastObserved ??= created.time
  const keyAspect = p.keyAspect
  if (p.kind === 'timeseries') {
    return {
      op: 'timeseries',
      urn: p.urn,
      entityType: p.entityType,
      aspectName: p.aspectName,
      value: p.valueJson!,
      timestampMillis: (p.value as {timestampMillis: number}).timestampMillis,
      created,
      systemMetadata,
      keyAspect,
    }
  }
  const op: WriteOp = {op: 'upsert', urn: p.urn, entityType: p.entityType, aspectName: p.aspectName, value: p.valueJson!, created, systemMetadata, keyAspect}
  // Search parses what it indexes; hand it the value parsed here: of a large aspect the few
  // fields it reads, of a small one the value itself (which only a feed in the write's
  // transaction takes: a small one costs no less to project than to parse again).
  if (isSearchAspect(p.aspectName)) {
    if (p.valueJson!.length > SEARCH_PROJECTION_MIN_CHARS) noteSearchProjection(op, searchProjection(p.value))
    else noteSearchProjection(op, p.value, true)
  }
  return op
}

/** Aspects shorter than this go to search as their text. */
const SEARCH_PROJECTION_MIN_CHARS = 200
