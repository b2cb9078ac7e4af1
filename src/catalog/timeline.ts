/**
 * The timeline: a dataset's versioned aspect history turned into change events, as DataHub's
 * Timeline API does (docs/dev-guides/timeline.md, metadata-io `timeline/**`).
 *
 * Glossary:
 * - change category: a kind of change a reader cares about (TAG, OWNER, TECHNICAL_SCHEMA, …);
 *   each is computed from a fixed set of aspects (`CATEGORY_ASPECTS`).
 * - change event: one semantic change — an operation (ADD, REMOVE, MODIFY) of a category on an
 *   entity or a schema field, with a modifier (the tag, term, owner or field it concerns), a
 *   description and a semantic-version level (`semVerChange`).
 * - change transaction: every event whose aspect version was written at the same millisecond,
 *   with the actor of that write. Versions are diffed pairwise in time order: each version in the
 *   window against the one just before it (looking back past the window's start once), the very
 *   first version of an aspect against nothing, so its content reads as ADDs.
 * - computed semantic version: walking the transactions in time order, the first one is `0.0.0`
 *   and each later one bumps major, minor or patch by the largest `semVerChange` it holds.
 * - version stamp: `aspect:version;…` (sorted by aspect name) of the aspect versions current at
 *   a transaction's time, over the aspects the request's categories read.
 * - raw diff: an RFC 6902 JSON patch between consecutive versions. One transaction may hold the
 *   changes of several aspects, so paths start with the aspect name (`/globalTags/tags/1`): the
 *   patch applies to a document `{<aspectName>: <value>}`.
 */
import {BadRequestError} from '../errors.js'
import {parseUrn} from '../model/urn.js'
import type {MetadataStore, StoredAspect} from '../store/types.js'

export const CHANGE_CATEGORIES = ['TAG', 'GLOSSARY_TERM', 'OWNER', 'DOCUMENTATION', 'TECHNICAL_SCHEMA', 'DOMAIN', 'DEPRECATION'] as const
export type ChangeCategory = (typeof CHANGE_CATEGORIES)[number]
export type ChangeOperation = 'ADD' | 'REMOVE' | 'MODIFY'
export type SemVerChange = 'NONE' | 'PATCH' | 'MINOR' | 'MAJOR' | 'EXCEPTIONAL'

const SEMVER_ORDER: Record<SemVerChange, number> = {NONE: 0, PATCH: 1, MINOR: 2, MAJOR: 3, EXCEPTIONAL: 4}

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

export interface TimelineRequest {
  urn: string
  /** Empty or absent: every category. */
  categories?: ChangeCategory[]
  /** Epoch ms; default `endTime` − 7 days. */
  startTime?: number
  /** Epoch ms; default now. */
  endTime?: number
  raw?: boolean
}

export const DEFAULT_LOOKBACK_MS = 7 * 24 * 60 * 60 * 1000

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

/** Order in which a transaction lists the events of different aspects. */
const ASPECT_ORDER = ['schemaMetadata', 'editableSchemaMetadata', 'globalTags', 'glossaryTerms', 'ownership', 'datasetProperties', 'editableDatasetProperties', 'institutionalMemory', 'domains', 'deprecation']

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

// ------------------------------------------------------------------ the timeline

/** Computes the change transactions of a dataset within a time window. */
export async function getTimeline(store: Pick<MetadataStore, 'listVersions'>, req: TimelineRequest, now: () => number = Date.now): Promise<ChangeTransaction[]> {
  const urn = parseUrn(req.urn)
  if (urn.entityType !== 'dataset') {
    throw new BadRequestError(`The timeline covers datasets only; ${req.urn} is a ${urn.entityType}`)
  }
  const endTime = req.endTime === undefined || req.endTime <= 0 ? now() : req.endTime
  const startTime = req.startTime === undefined || req.startTime < 0 ? endTime - DEFAULT_LOOKBACK_MS : req.startTime
  if (startTime > endTime) throw new BadRequestError(`startTime ${startTime} is after endTime ${endTime}`)
  const categories = req.categories && req.categories.length > 0 ? CHANGE_CATEGORIES.filter((c) => req.categories!.includes(c)) : [...CHANGE_CATEGORIES]
  const aspects = ASPECT_ORDER.filter((a) => categories.some((c) => CATEGORY_ASPECTS[c].includes(a)))

  const history = new Map<string, StoredAspect[]>()
  interface Piece {
    timestamp: number
    actor: string
    order: number
    events: ChangeEvent[]
    semVerChange: SemVerChange
    raw: JsonPatchOp[]
  }
  const pieces: Piece[] = []
  for (const [order, aspectName] of aspects.entries()) {
    const versions = chronological(await store.listVersions(req.urn, aspectName))
    history.set(aspectName, versions)
    versions.forEach((cur, i) => {
      const t = cur.created.time
      if (t < startTime || t > endTime) return
      const prev = i > 0 ? versions[i - 1]!.value : undefined
      const stamp = {time: t, actor: cur.created.actor}
      let events: ChangeEvent[] = []
      let level: SemVerChange
      try {
        for (const c of categories) if (CATEGORY_ASPECTS[c].includes(aspectName)) events.push(...diffAspect(aspectName, c, prev, cur.value, req.urn, stamp))
        level = maxLevel(events.map((e) => e.semVerChange))
      } catch (e) {
        // A malformed stored value must not hide the rest of the history.
        events = [{entityUrn: req.urn, category: categories[0]!, operation: 'MODIFY', auditStamp: stamp, semVerChange: 'EXCEPTIONAL', description: `${(e as Error).name}:${(e as Error).message}`}]
        level = 'EXCEPTIONAL'
      }
      if (events.length === 0) return
      const raw = req.raw ? jsonPatch(prev === undefined ? {} : {[aspectName]: prev}, {[aspectName]: cur.value}) : []
      pieces.push({timestamp: t, actor: cur.created.actor, order, events, semVerChange: level, raw})
    })
  }

  const byTime = new Map<number, Piece[]>()
  for (const p of pieces) {
    const list = byTime.get(p.timestamp)
    if (list) list.push(p)
    else byTime.set(p.timestamp, [p])
  }
  const out: ChangeTransaction[] = []
  let version: [number, number, number] | undefined
  for (const t of [...byTime.keys()].sort((a, b) => a - b)) {
    const group = byTime.get(t)!.sort((a, b) => a.order - b.order)
    const level = maxLevel(group.map((p) => p.semVerChange))
    version = nextVersion(version, level)
    const tx: ChangeTransaction = {
      timestamp: t,
      actor: group[0]!.actor,
      semVer: `${version.join('.')}-computed`,
      semVerChange: level,
      changeEvents: group.flatMap((p) => p.events),
      versionStamp: versionStamp(history, t),
    }
    if (req.raw) tx.rawDiff = group.flatMap((p) => p.raw)
    out.push(tx)
  }
  return out
}

/** listVersions gives 0 (latest), 1 (oldest), 2, …; oldest first is 1…n then 0. */
function chronological(versions: StoredAspect[]): StoredAspect[] {
  if (versions.length <= 1) return versions
  return [...versions.slice(1), versions[0]!]
}

function maxLevel(levels: SemVerChange[]): SemVerChange {
  let best: SemVerChange = 'NONE'
  for (const l of levels) if (SEMVER_ORDER[l] > SEMVER_ORDER[best]) best = l
  return best
}

function nextVersion(prev: [number, number, number] | undefined, level: SemVerChange): [number, number, number] {
  if (!prev) return [0, 0, 0]
  const [major, minor, patch] = prev
  if (level === 'MAJOR') return [major + 1, 0, 0]
  if (level === 'MINOR') return [major, minor + 1, 0]
  if (level === 'PATCH') return [major, minor, patch + 1]
  return prev
}

function versionStamp(history: Map<string, StoredAspect[]>, t: number): string {
  const parts: string[] = []
  for (const name of [...history.keys()].sort()) {
    let current: StoredAspect | undefined
    for (const v of history.get(name)!) if (v.created.time <= t) current = v
    if (current) parts.push(`${name}:${current.version}`)
  }
  return parts.join(';')
}

// ------------------------------------------------------------------ per-aspect differs

type Stamp = {time: number; actor: string}
type Json = any

function diffAspect(aspectName: string, category: ChangeCategory, base: Json, target: Json, entityUrn: string, stamp: Stamp): ChangeEvent[] {
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
