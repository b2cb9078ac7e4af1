/**
 * Change events: what one change of an aspect means to a reader — DataHub's semantic categories
 * (tag added, owner removed, field type changed, …) — as the timeline and the change log both
 * tell them (DataHub's metadata-io `timeline/**`). Pure functions of two values.
 *
 * Glossary:
 * - change category: a kind of change a reader cares about (TAG, OWNER, TECHNICAL_SCHEMA, …);
 *   each is computed from a fixed set of aspects (`CATEGORY_ASPECTS`).
 * - change event: one semantic change — an operation (ADD, REMOVE, MODIFY) of a category on an
 *   entity or a schema field, with a modifier (the tag, term, owner or field it concerns), a
 *   description and a semantic-version level (`semVerChange`).
 * - change transaction: the timeline's unit, every event written at the same millisecond (see
 *   catalog/timeline.ts).
 * - raw diff: an RFC 6902 JSON patch between two values (`jsonPatch`).
 */
import {BadRequestError} from '../errors.js'
import {parseUrn} from './urn.js'

export const CHANGE_CATEGORIES = ['TAG', 'GLOSSARY_TERM', 'OWNER', 'DOCUMENTATION', 'TECHNICAL_SCHEMA', 'DOMAIN', 'DEPRECATION'] as const
export type ChangeCategory = (typeof CHANGE_CATEGORIES)[number]
export type ChangeOperation = 'ADD' | 'REMOVE' | 'MODIFY'
export type SemVerChange = 'NONE' | 'PATCH' | 'MINOR' | 'MAJOR' | 'EXCEPTIONAL'

export interface ChangeEvent {
  entityUrn: string
  category: ChangeCategory
  operation: ChangeOperation
  modifier?: string
  parameters?: Record<string, unknown>
  auditStamp: {time: number; actor: string}
  semVerChange: SemVerChange
  description: string
  /** Schema-field events only. */
  fieldPath?: string
  fieldUrn?: string
  nullable?: boolean
}

export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace'
  path: string
  value?: unknown
}

export interface ChangeTransaction {
  timestamp: number
  actor: string
  semVer: string
  semVerChange: SemVerChange
  changeEvents: ChangeEvent[]
  versionStamp: string
  rawDiff?: JsonPatchOp[]
}

/** Which aspects each category reads, for datasets (DataHub's TimelineServiceImpl registry). */
export const CATEGORY_ASPECTS: Record<ChangeCategory, readonly string[]> = {
  TAG: ['schemaMetadata', 'editableSchemaMetadata', 'globalTags'],
  GLOSSARY_TERM: ['glossaryTerms', 'editableSchemaMetadata'],
  OWNER: ['ownership'],
  DOCUMENTATION: ['institutionalMemory', 'editableDatasetProperties', 'datasetProperties', 'editableSchemaMetadata', 'schemaMetadata'],
  TECHNICAL_SCHEMA: ['schemaMetadata'],
  DOMAIN: ['domains'],
  DEPRECATION: ['deprecation'],
}

const CATEGORY_ALIASES: Record<string, ChangeCategory> = {OWNERSHIP: 'OWNER', GLOSSARY_TERMS: 'GLOSSARY_TERM', TAGS: 'TAG'}

/** Case-insensitive category names (and DataHub's older spellings) → categories; the error lists the valid ones. */
export function parseCategories(names: readonly string[]): ChangeCategory[] {
  const out: ChangeCategory[] = []
  for (const raw of names) {
    const n = raw.trim().toUpperCase()
    if (n === '') continue
    const c = (CHANGE_CATEGORIES as readonly string[]).includes(n) ? (n as ChangeCategory) : CATEGORY_ALIASES[n]
    if (!c) throw new BadRequestError(`category: ${raw} is not one of [${CHANGE_CATEGORIES.map((x) => `'${x}'`).join(', ')}]`)
    if (!out.includes(c)) out.push(c)
  }
  return out
}

// ------------------------------------------------------------------ per-aspect differs

type Stamp = {time: number; actor: string}
type Json = any

/** The events of one category that a change of one aspect makes (none when the category does not read the aspect). */
export function diffAspect(aspectName: string, category: ChangeCategory, base: Json, target: Json, entityUrn: string, stamp: Stamp): ChangeEvent[] {
  switch (aspectName) {
    case 'globalTags':
      return category === 'TAG' ? tagEvents(base, target, entityUrn, stamp) : []
    case 'glossaryTerms':
      return category === 'GLOSSARY_TERM' ? termEvents(base, target, entityUrn, stamp) : []
    case 'ownership':
      return category === 'OWNER' ? ownerEvents(base, target, entityUrn, stamp) : []
    case 'domains':
      return category === 'DOMAIN' ? domainEvents(base, target, entityUrn, stamp) : []
    case 'deprecation':
      return category === 'DEPRECATION' ? deprecationEvents(base, target, entityUrn, stamp) : []
    case 'institutionalMemory':
      return category === 'DOCUMENTATION' ? linkEvents(base, target, entityUrn, stamp) : []
    case 'datasetProperties':
    case 'editableDatasetProperties':
      return category === 'DOCUMENTATION' ? descriptionEvents(base, target, entityUrn, stamp) : []
    case 'schemaMetadata':
      return schemaEvents(base, target, entityUrn, category, stamp)
    case 'editableSchemaMetadata':
      return editableSchemaEvents(base, target, entityUrn, category, stamp)
    default:
      return []
  }
}

/**
 * The entity change events one aspect change makes (DataHub's semantic categories: tag added,
 * owner removed, …), by the same rules the timeline applies; for the change log.
 */
export function aspectChangeEvents(entityUrn: string, aspectName: string, previous: unknown, current: unknown, stamp: {time: number; actor: string}): ChangeEvent[] {
  const out: ChangeEvent[] = []
  for (const category of CHANGE_CATEGORIES) {
    if (CATEGORY_ASPECTS[category].includes(aspectName)) out.push(...diffAspect(aspectName, category, previous ?? null, current ?? null, entityUrn, stamp))
  }
  return out
}

/** The id part of an urn (`urn:li:tag:Legacy` → `Legacy`), as DataHub's `Urn.getId()`. */
function idOf(u: string): string {
  try {
    return parseUrn(u).key
  } catch {
    return u
  }
}

/** DataHub's v1 field path: the path without `[version=2.0]`-style tokens. */
export function fieldPathV1(path: string): string {
  return path
    .split('.')
    .filter((t) => !(t.startsWith('[') || t.endsWith(']')))
    .join('.')
}

export function schemaFieldUrn(datasetUrn: string, fieldPath: string): string {
  return `urn:li:schemaField:(${datasetUrn},${fieldPathV1(fieldPath)})`
}

function arr(v: unknown): Json[] {
  return Array.isArray(v) ? v : []
}

function tagEvents(base: Json, target: Json, entityUrn: string, stamp: Stamp, extra: Record<string, unknown> = {}): ChangeEvent[] {
  const before = new Map<string, Json>(arr(base?.tags).filter((t) => typeof t?.tag === 'string').map((t) => [t.tag, t]))
  const after = new Map<string, Json>(arr(target?.tags).filter((t) => typeof t?.tag === 'string').map((t) => [t.tag, t]))
  const out: ChangeEvent[] = []
  for (const [tag, t] of [...before].sort(byKey)) {
    if (after.has(tag)) continue
    out.push({entityUrn, category: 'TAG', operation: 'REMOVE', modifier: tag, parameters: {...extra, tagUrn: tag, ...(t.context ? {context: t.context} : {})}, auditStamp: stamp, semVerChange: 'MINOR', description: `Tag '${idOf(tag)}' removed from entity '${entityUrn}'.`})
  }
  for (const [tag, t] of [...after].sort(byKey)) {
    if (before.has(tag)) continue
    out.push({entityUrn, category: 'TAG', operation: 'ADD', modifier: tag, parameters: {...extra, tagUrn: tag, ...(t.context ? {context: t.context} : {})}, auditStamp: stamp, semVerChange: 'MINOR', description: `Tag '${idOf(tag)}' added to entity '${entityUrn}'.`})
  }
  return out
}

function termEvents(base: Json, target: Json, entityUrn: string, stamp: Stamp, extra: Record<string, unknown> = {}): ChangeEvent[] {
  const before = new Map<string, Json>(arr(base?.terms).filter((t) => typeof t?.urn === 'string').map((t) => [t.urn, t]))
  const after = new Map<string, Json>(arr(target?.terms).filter((t) => typeof t?.urn === 'string').map((t) => [t.urn, t]))
  const out: ChangeEvent[] = []
  for (const [term, t] of [...before].sort(byKey)) {
    if (after.has(term)) continue
    out.push({entityUrn, category: 'GLOSSARY_TERM', operation: 'REMOVE', modifier: term, parameters: {...extra, termUrn: term, ...(t.context ? {context: t.context} : {})}, auditStamp: stamp, semVerChange: 'MINOR', description: `Term '${idOf(term)}' removed from entity '${entityUrn}'.`})
  }
  for (const [term, t] of [...after].sort(byKey)) {
    if (before.has(term)) continue
    out.push({entityUrn, category: 'GLOSSARY_TERM', operation: 'ADD', modifier: term, parameters: {...extra, termUrn: term, ...(t.context ? {context: t.context} : {})}, auditStamp: stamp, semVerChange: 'MINOR', description: `Term '${idOf(term)}' added to entity '${entityUrn}'.`})
  }
  return out
}

function ownerEvents(base: Json, target: Json, entityUrn: string, stamp: Stamp): ChangeEvent[] {
  const key = (o: Json) => `${o.owner}\u0000${o.type}`
  const before = new Map<string, Json>(arr(base?.owners).filter((o) => typeof o?.owner === 'string').map((o) => [key(o), o]))
  const after = new Map<string, Json>(arr(target?.owners).filter((o) => typeof o?.owner === 'string').map((o) => [key(o), o]))
  const removed = [...before].filter(([k]) => !after.has(k)).map(([, o]) => o)
  const added = [...after].filter(([k]) => !before.has(k)).map(([, o]) => o)
  const out: ChangeEvent[] = []
  // The same owner leaving one type and arriving under another is a type change (PATCH), not a swap.
  for (const r of removed) {
    const i = added.findIndex((a) => a.owner === r.owner)
    if (i >= 0) {
      const a = added.splice(i, 1)[0]
      out.push({entityUrn, category: 'OWNER', operation: 'MODIFY', modifier: r.owner, parameters: {ownerUrn: r.owner, ownerType: a.type, previousOwnerType: r.type}, auditStamp: stamp, semVerChange: 'PATCH', description: `'${idOf(r.owner)}''s ownership type changed from '${r.type}' to '${a.type}' for '${entityUrn}'.`})
    } else {
      out.push({entityUrn, category: 'OWNER', operation: 'REMOVE', modifier: r.owner, parameters: {ownerUrn: r.owner, ownerType: r.type}, auditStamp: stamp, semVerChange: 'MINOR', description: `'${idOf(r.owner)}' removed as a \`${r.type}\` of '${entityUrn}'.`})
    }
  }
  for (const a of added) {
    out.push({entityUrn, category: 'OWNER', operation: 'ADD', modifier: a.owner, parameters: {ownerUrn: a.owner, ownerType: a.type}, auditStamp: stamp, semVerChange: 'MINOR', description: `'${idOf(a.owner)}' added as a \`${a.type}\` of '${entityUrn}'.`})
  }
  return out
}

function domainEvents(base: Json, target: Json, entityUrn: string, stamp: Stamp): ChangeEvent[] {
  // DataHub treats an entity as in at most one domain and compares the first of each list.
  const before: string | undefined = arr(base?.domains)[0]
  const after: string | undefined = arr(target?.domains)[0]
  if (before === after) return []
  const out: ChangeEvent[] = []
  if (before) out.push({entityUrn, category: 'DOMAIN', operation: 'REMOVE', modifier: before, parameters: {domainUrn: before}, auditStamp: stamp, semVerChange: 'MINOR', description: `Domain '${idOf(before)}' removed from entity '${entityUrn}'.`})
  if (after) out.push({entityUrn, category: 'DOMAIN', operation: 'ADD', modifier: after, parameters: {domainUrn: after}, auditStamp: stamp, semVerChange: 'MINOR', description: `Domain '${idOf(after)}' added to entity '${entityUrn}'.`})
  return out
}

function deprecationEvents(base: Json, target: Json, entityUrn: string, stamp: Stamp): ChangeEvent[] {
  const was = base?.deprecated === true
  const is = target?.deprecated === true
  if (was === is) return []
  if (is) {
    const note = typeof target.note === 'string' && target.note !== '' ? `: '${target.note}'` : ''
    return [{entityUrn, category: 'DEPRECATION', operation: 'MODIFY', parameters: {status: 'DEPRECATED', ...(target.note ? {note: target.note} : {})}, auditStamp: stamp, semVerChange: 'MINOR', description: `Entity '${entityUrn}' has been deprecated${note}.`}]
  }
  return [{entityUrn, category: 'DEPRECATION', operation: 'MODIFY', parameters: {status: 'ACTIVE'}, auditStamp: stamp, semVerChange: 'MINOR', description: `Entity '${entityUrn}' is no longer deprecated.`}]
}

function linkEvents(base: Json, target: Json, entityUrn: string, stamp: Stamp): ChangeEvent[] {
  const before = new Map<string, Json>(arr(base?.elements).filter((e) => typeof e?.url === 'string').map((e) => [e.url, e]))
  const after = new Map<string, Json>(arr(target?.elements).filter((e) => typeof e?.url === 'string').map((e) => [e.url, e]))
  const out: ChangeEvent[] = []
  for (const url of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const b = before.get(url)
    const a = after.get(url)
    if (b && !a) out.push({entityUrn, category: 'DOCUMENTATION', operation: 'REMOVE', modifier: url, auditStamp: stamp, semVerChange: 'MINOR', description: `Institutional Memory '${url}' with documentation of '${entityUrn}' has been removed: '${b.description}'`})
    else if (!b && a) out.push({entityUrn, category: 'DOCUMENTATION', operation: 'ADD', modifier: url, auditStamp: stamp, semVerChange: 'MINOR', description: `Institutional Memory '${url}' with documentation of '${entityUrn}' has been added: '${a.description}'`})
    else if (b && a && b.description !== a.description) {
      out.push({entityUrn, category: 'DOCUMENTATION', operation: 'MODIFY', modifier: url, auditStamp: stamp, semVerChange: 'PATCH', description: `Documentation of Institutional Memory '${url}' of  '${entityUrn}' has been changed from '${b.description}' to '${a.description}'.`})
    }
  }
  return out
}

/** datasetProperties / editableDatasetProperties description; DataHub rates an edit MINOR here. */
function descriptionEvents(base: Json, target: Json, entityUrn: string, stamp: Stamp): ChangeEvent[] {
  const b: string | undefined = typeof base?.description === 'string' ? base.description : undefined
  const a: string | undefined = typeof target?.description === 'string' ? target.description : undefined
  if (b === a) return []
  if (b === undefined) return [{entityUrn, category: 'DOCUMENTATION', operation: 'ADD', parameters: {description: a}, auditStamp: stamp, semVerChange: 'MINOR', description: `Documentation for '${entityUrn}' has been added: '${a}'.`}]
  if (a === undefined) return [{entityUrn, category: 'DOCUMENTATION', operation: 'REMOVE', parameters: {description: b}, auditStamp: stamp, semVerChange: 'MINOR', description: `Documentation for '${entityUrn}' has been removed: '${b}'.`}]
  return [{entityUrn, category: 'DOCUMENTATION', operation: 'MODIFY', parameters: {description: a}, auditStamp: stamp, semVerChange: 'MINOR', description: `Documentation of '${entityUrn}' has been changed from '${b}' to '${a}'.`}]
}

const BACKWARDS_INCOMPATIBLE = 'A backwards incompatible change due to'
const COMPATIBLE = 'A forwards & backwards compatible change due to '

function parentPath(p: string): string | undefined {
  const i = p.lastIndexOf('.')
  return i > 0 ? p.slice(0, i) : undefined
}

/** Technical schema, and the docs and tags that live on schemaMetadata fields. */
function schemaEvents(base: Json, target: Json, datasetUrn: string, category: ChangeCategory, stamp: Stamp): ChangeEvent[] {
  const fieldsOf = (s: Json): Map<string, Json> => new Map(arr(s?.fields).filter((f) => typeof f?.fieldPath === 'string').map((f) => [f.fieldPath, f]))
  const before = fieldsOf(base)
  const after = fieldsOf(target)
  const removed = [...before.keys()].filter((p) => !after.has(p)).sort()
  const added = [...after.keys()].filter((p) => !before.has(p)).sort()
  // DataHub's rename rule: same native type, same parent path, same description.
  const renamedTo = new Map<string, string>()
  const renameTargets = new Set<string>()
  for (const r of removed) {
    const bf = before.get(r)
    const hit = added.find((a) => {
      if (renameTargets.has(a)) return false
      const af = after.get(a)
      return af.nativeDataType === bf.nativeDataType && parentPath(a) === parentPath(r) && af.description === bf.description
    })
    if (hit) {
      renamedTo.set(r, hit)
      renameTargets.add(hit)
    }
  }
  const technical = category === 'TECHNICAL_SCHEMA'
  const out: ChangeEvent[] = []
  const fieldEvent = (op: ChangeOperation, level: SemVerChange, f: Json, description: string): ChangeEvent => ({
    entityUrn: datasetUrn,
    category: 'TECHNICAL_SCHEMA',
    operation: op,
    modifier: schemaFieldUrn(datasetUrn, f.fieldPath),
    auditStamp: stamp,
    semVerChange: level,
    description,
    fieldPath: f.fieldPath,
    fieldUrn: schemaFieldUrn(datasetUrn, f.fieldPath),
    nullable: f.nullable === true,
  })
  for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const b = before.get(path)
    const a = after.get(path)
    if (b && a) {
      if (technical && b.nativeDataType !== a.nativeDataType) {
        out.push(fieldEvent('MODIFY', 'MAJOR', b, `${BACKWARDS_INCOMPATIBLE} native datatype of the field '${fieldPathV1(a.fieldPath)}' changed from '${b.nativeDataType}' to '${a.nativeDataType}'.`))
      }
      out.push(...fieldPropertyEvents(b, a, datasetUrn, category, stamp))
    } else if (b) {
      const to = renamedTo.get(path)
      if (to) {
        const a2 = after.get(to)
        if (technical) out.push(fieldEvent('MODIFY', 'MINOR', b, `${COMPATIBLE}renaming of the field '${fieldPathV1(b.fieldPath)} to ${fieldPathV1(a2.fieldPath)}'.`))
        out.push(...fieldPropertyEvents(b, a2, datasetUrn, category, stamp))
      } else {
        if (technical) out.push(fieldEvent('REMOVE', 'MAJOR', b, `${BACKWARDS_INCOMPATIBLE} removal of field: '${fieldPathV1(b.fieldPath)}'.`))
        out.push(...fieldPropertyEvents(b, undefined, datasetUrn, category, stamp))
      }
    } else if (a && !renameTargets.has(path)) {
      if (technical) out.push(fieldEvent('ADD', 'MINOR', a, `${COMPATIBLE}the newly added field '${fieldPathV1(a.fieldPath)}'.`))
      out.push(...fieldPropertyEvents(undefined, a, datasetUrn, category, stamp))
    }
  }
  if (technical) {
    const pkBefore = new Set<string>(arr(base?.primaryKeys))
    const pkAfter = new Set<string>(arr(target?.primaryKeys))
    for (const k of [...pkBefore].filter((x) => !pkAfter.has(x)).sort()) {
      out.push({...fieldEvent('MODIFY', 'MAJOR', {fieldPath: k}, `${BACKWARDS_INCOMPATIBLE} removal of the primary key field '${k}'`), nullable: undefined})
    }
    for (const k of [...pkAfter].filter((x) => !pkBefore.has(x)).sort()) {
      out.push({...fieldEvent('MODIFY', 'MAJOR', {fieldPath: k}, `${BACKWARDS_INCOMPATIBLE} addition of the primary key field '${k}'`), nullable: undefined})
    }
  }
  return out
}

function fieldPropertyEvents(b: Json, a: Json, datasetUrn: string, category: ChangeCategory, stamp: Stamp): ChangeEvent[] {
  const f = a ?? b
  const fieldUrn = schemaFieldUrn(datasetUrn, f.fieldPath)
  const extra = {fieldPath: f.fieldPath, parentUrn: datasetUrn}
  if (category === 'DOCUMENTATION') {
    const bd: string | undefined = typeof b?.description === 'string' ? b.description : undefined
    const ad: string | undefined = typeof a?.description === 'string' ? a.description : undefined
    if (bd === ad) return []
    if (bd === undefined) return [{entityUrn: fieldUrn, category, operation: 'ADD', auditStamp: stamp, semVerChange: 'MINOR', parameters: {description: ad}, description: `The description '${ad}' for the field '${a.fieldPath}' has been added.`}]
    if (ad === undefined) return [{entityUrn: fieldUrn, category, operation: 'REMOVE', auditStamp: stamp, semVerChange: 'MINOR', parameters: {description: bd}, description: `The description '${bd}' for the field '${b.fieldPath}' has been removed.`}]
    return [{entityUrn: fieldUrn, category, operation: 'MODIFY', auditStamp: stamp, semVerChange: 'PATCH', parameters: {description: ad}, description: `The description for the field '${b.fieldPath}' has been changed from '${bd}' to '${ad}'.`}]
  }
  if (category === 'TAG') return tagEvents(b?.globalTags, a?.globalTags, fieldUrn, stamp, extra)
  if (category === 'GLOSSARY_TERM') return termEvents(b?.glossaryTerms, a?.glossaryTerms, fieldUrn, stamp, extra)
  return []
}

/** Docs, tags and terms edited on columns (editableSchemaMetadata), matched by field path. */
function editableSchemaEvents(base: Json, target: Json, datasetUrn: string, category: ChangeCategory, stamp: Stamp): ChangeEvent[] {
  const infos = (s: Json): Map<string, Json> => new Map(arr(s?.editableSchemaFieldInfo).filter((f) => typeof f?.fieldPath === 'string').map((f) => [f.fieldPath, f]))
  const before = infos(base)
  const after = infos(target)
  const out: ChangeEvent[] = []
  for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const b = before.get(path)
    const a = after.get(path)
    const fieldUrn = `urn:li:schemaField:(${datasetUrn},${path})`
    if (category === 'DOCUMENTATION') {
      const bd: string | undefined = typeof b?.description === 'string' ? b.description : undefined
      const ad: string | undefined = typeof a?.description === 'string' ? a.description : undefined
      if (bd === ad) continue
      if (bd === undefined) out.push({entityUrn: fieldUrn, category, operation: 'ADD', modifier: path, auditStamp: stamp, semVerChange: 'MINOR', parameters: {description: ad}, description: `Documentation for the field '${path}' of '${fieldUrn}' has been added: '${ad}'`})
      else if (ad === undefined) out.push({entityUrn: fieldUrn, category, operation: 'REMOVE', modifier: path, auditStamp: stamp, semVerChange: 'MINOR', parameters: {description: bd}, description: `Documentation for the field '${path}' of '${fieldUrn}' has been removed: '${bd}'`})
      else out.push({entityUrn: fieldUrn, category, operation: 'MODIFY', modifier: path, auditStamp: stamp, semVerChange: 'PATCH', parameters: {description: ad}, description: `Documentation for the field '${path}' of '${fieldUrn}' has been updated from '${bd}' to '${ad}'.`})
    } else if (category === 'TAG') {
      out.push(...tagEvents(b?.globalTags, a?.globalTags, fieldUrn, stamp, {fieldPath: path, parentUrn: datasetUrn}))
    } else if (category === 'GLOSSARY_TERM') {
      out.push(...termEvents(b?.glossaryTerms, a?.glossaryTerms, fieldUrn, stamp, {fieldPath: path, parentUrn: datasetUrn}))
    }
  }
  return out
}

function byKey(a: [string, unknown], b: [string, unknown]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0
}

// ------------------------------------------------------------------ JSON patch

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a)
    if (ka.length !== Object.keys(b).length) return false
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]))
  }
  return false
}

const pointer = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1')

/**
 * An RFC 6902 patch turning `a` into `b`, using add, remove and replace only (as jakarta.json's
 * `Json.createDiff`). Arrays are compared by index; removals run from the end so that each
 * index is valid when its op applies.
 */
export function jsonPatch(a: unknown, b: unknown, path = '', ops: JsonPatchOp[] = []): JsonPatchOp[] {
  if (deepEqual(a, b)) return ops
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const k of Object.keys(a)) if (!(k in b)) ops.push({op: 'remove', path: `${path}/${pointer(k)}`})
    for (const k of Object.keys(b)) {
      if (k in a) jsonPatch(a[k], b[k], `${path}/${pointer(k)}`, ops)
      else ops.push({op: 'add', path: `${path}/${pointer(k)}`, value: b[k]})
    }
    return ops
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const common = Math.min(a.length, b.length)
    for (let i = 0; i < common; i++) jsonPatch(a[i], b[i], `${path}/${i}`, ops)
    for (let i = common; i < b.length; i++) ops.push({op: 'add', path: `${path}/${i}`, value: b[i]})
    for (let i = a.length - 1; i >= common; i--) ops.push({op: 'remove', path: `${path}/${i}`})
    return ops
  }
  ops.push({op: 'replace', path: path, value: b})
  return ops
}
