/**
 * `changeType: PATCH` as DataHub applies it: a JSON Patch (RFC 6902 `add`/`remove`/`replace`)
 * on the stored aspect, where the arrays DataHub's patch templates know are addressed as maps
 * keyed by what identifies an element — `/tags/<tagUrn>`, `/terms/<termUrn>`,
 * `/owners/<ownerUrn>/<type>`, `/upstreams/<datasetUrn>`, `/fineGrainedLineages/<transform>/
 * <downstreamField>/<query>/<upstreamField>`, `/charts/<chartUrn>`, `/datasetEdges/<urn>`,
 * `/editableSchemaFieldInfo/<fieldPath>/globalTags/tags/<tagUrn>`, `/properties/<propertyUrn>`
 * (structured properties), `/elements/<url>`, … — so a patch adds or removes one element without
 * knowing the rest.
 *
 * Glossary:
 * - keyed view: the aspect with those arrays turned into objects keyed as above; patches apply
 *   to it, and the result turns back into arrays (in key order of first appearance).
 * - inner template: an element of a keyed array may hold a record that has a template of its own
 *   (a schema field's `globalTags` and `glossaryTerms`, as in DataHub's
 *   EditableSchemaMetadataTemplate); it is keyed and turned back with its element.
 * - path segments are JSON Pointer tokens: `~1` is `/`, `~0` is `~` (urns may hold `/`).
 * - default: what a patch of an aspect the entity does not hold starts from, as DataHub's
 *   templates' getDefault(): the keyed arrays empty, and the fields the aspect requires that a
 *   patch seldom sets (glossaryTerms' auditStamp, dashboardInfo's title) filled, stamped by
 *   DataHub's system actor at the time of the write.
 */
import {BadRequestError} from '../errors.js'

export interface PatchOp {
  op: 'add' | 'remove' | 'replace'
  path: string
  value?: unknown
}

type Obj = Record<string, any>
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)

interface Keyed {
  /** Field holding the array. */
  field: string
  /** Key of an element; elements without one are kept as they are. */
  key: (e: any) => string | undefined
  /** Builds an element from its key and the patched value. */
  build?: (key: string, value: any) => unknown
  /** Fields of an element holding a record keyed by another aspect's template (see the glossary). */
  inner?: Record<string, string>
}

const byField = (name: string): Keyed['key'] => (e) => (isObj(e) && typeof e[name] === 'string' ? e[name] : undefined)
const plainUrn: Keyed['key'] = (e) => (typeof e === 'string' ? e : undefined)
/**
 * An element from its path key and value: a value naming another key than its path is refused
 * (it would land under the other key, beside any element already there).
 */
const keyedBy = (name: string) => (k: string, v: any) => {
  if (isObj(v) && v[name] !== undefined && v[name] !== k) throw new BadRequestError(`PATCH value's ${name} ${JSON.stringify(v[name])} does not match its path's key ${JSON.stringify(k)}`)
  return {[name]: k, ...(isObj(v) ? v : {})}
}
const edges = (field: string): Keyed => ({field, key: byField('destinationUrn'), build: keyedBy('destinationUrn')})
const urnList = (field: string): Keyed => ({field, key: plainUrn, build: (k, v) => (typeof v === 'string' ? v : k)})

const TEMPLATES: Record<string, Keyed[]> = {
  globalTags: [{field: 'tags', key: byField('tag'), build: keyedBy('tag')}],
  glossaryTerms: [{field: 'terms', key: byField('urn'), build: keyedBy('urn')}],
  upstreamLineage: [{field: 'upstreams', key: byField('dataset'), build: keyedBy('dataset')}],
  dashboardInfo: [urnList('charts'), edges('chartEdges'), urnList('datasets'), edges('datasetEdges'), edges('dashboards')],
  chartInfo: [edges('inputEdges')],
  dataJobInputOutput: [urnList('inputDatasets'), urnList('outputDatasets'), urnList('inputDatajobs'), edges('inputDatasetEdges'), edges('outputDatasetEdges'), edges('inputDatajobEdges')],
  dataProductProperties: [{field: 'assets', key: byField('destinationUrn'), build: keyedBy('destinationUrn')}],
  editableSchemaMetadata: [{field: 'editableSchemaFieldInfo', key: byField('fieldPath'), build: keyedBy('fieldPath'), inner: {globalTags: 'globalTags', glossaryTerms: 'glossaryTerms'}}],
  structuredProperties: [{field: 'properties', key: byField('propertyUrn'), build: keyedBy('propertyUrn')}],
  institutionalMemory: [{field: 'elements', key: byField('url'), build: keyedBy('url')}],
  siblings: [urnList('siblings')],
  domains: [urnList('domains')],
}

/** DataHub's Constants.SYSTEM_ACTOR, the actor of what its templates fill in. */
export const PATCH_SYSTEM_ACTOR = 'urn:li:corpuser:__datahub_system'

const stamp = (now: number) => ({time: now, actor: PATCH_SYSTEM_ACTOR})
const changeStamps = (now: number) => ({created: stamp(now), lastModified: stamp(now)})

/** Per aspect, its default (see the glossary); aspects without one start from `{}`. */
const DEFAULTS: Record<string, (now: number) => Obj> = {
  globalTags: () => ({tags: []}),
  glossaryTerms: (now) => ({terms: [], auditStamp: stamp(now)}),
  ownership: (now) => ({owners: [], lastModified: stamp(now)}),
  upstreamLineage: () => ({upstreams: [], fineGrainedLineages: []}),
  datasetProperties: () => ({customProperties: {}, tags: []}),
  editableSchemaMetadata: (now) => ({...changeStamps(now), editableSchemaFieldInfo: []}),
  structuredProperties: () => ({properties: []}),
  dashboardInfo: (now) => ({title: '', description: '', lastModified: changeStamps(now), chartEdges: [], datasetEdges: [], datasets: [], charts: []}),
  chartInfo: (now) => ({title: '', description: '', lastModified: changeStamps(now), inputEdges: [], inputs: []}),
  dataFlowInfo: () => ({customProperties: {}}),
  dataJobInfo: () => ({customProperties: {}}),
  dataJobInputOutput: () => ({
    inputDatajobEdges: [],
    inputDatasetEdges: [],
    outputDatasetEdges: [],
    fineGrainedLineages: [],
    inputDatasetFields: [],
    outputDatasetFields: [],
    inputDatajobs: [],
    inputDatasets: [],
    outputDatasets: [],
  }),
  dataProductProperties: () => ({assets: []}),
  institutionalMemory: () => ({elements: []}),
  siblings: () => ({siblings: [], primary: false}),
  domains: () => ({domains: []}),
}

/** Ownership: `/owners/<owner>/<type>` — two levels. */
function ownersToKeyed(owners: unknown): Obj {
  const out: Obj = {}
  for (const o of Array.isArray(owners) ? owners : []) {
    if (!isObj(o) || typeof o.owner !== 'string') continue
    const type = typeof o.type === 'string' ? o.type : 'NONE'
    ;(out[o.owner] ??= {})[type] = o
  }
  return out
}

function ownersFromKeyed(m: Obj): unknown[] {
  const out: unknown[] = []
  for (const [owner, types] of Object.entries(m)) {
    if (!isObj(types)) continue
    for (const [type, v] of Object.entries(types)) out.push({...(isObj(v) ? v : {}), owner, ...(type === 'NONE' && !(isObj(v) && v.type) ? {} : {type: isObj(v) && v.type ? v.type : type})})
  }
  return out
}

/** Fine-grained lineage: `/fineGrainedLineages/<transform>/<downstreamField>/<query>/<upstreamField>`. */
function fglToKeyed(list: unknown): Obj {
  const out: Obj = {}
  for (const f of Array.isArray(list) ? list : []) {
    if (!isObj(f)) continue
    const t = typeof f.transformOperation === 'string' ? f.transformOperation : 'NONE'
    const q = typeof f.query === 'string' ? f.query : 'NONE'
    for (const d of Array.isArray(f.downstreams) ? f.downstreams : []) {
      for (const u of Array.isArray(f.upstreams) ? f.upstreams : []) {
        ;((((out[t] ??= {})[d] ??= {})[q] ??= {})[u] = typeof f.confidenceScore === 'number' ? {confidenceScore: f.confidenceScore} : {})
      }
    }
  }
  return out
}

function fglFromKeyed(m: Obj): unknown[] {
  const out: unknown[] = []
  for (const [t, downs] of Object.entries(m)) {
    for (const [d, queries] of Object.entries(isObj(downs) ? downs : {})) {
      for (const [q, ups] of Object.entries(isObj(queries) ? queries : {})) {
        const upstreams = Object.keys(isObj(ups) ? ups : {})
        if (upstreams.length === 0) continue
        const score = Object.values(ups as Obj).map((v) => (isObj(v) ? v.confidenceScore : undefined)).find((s) => typeof s === 'number')
        out.push({
          upstreamType: 'FIELD_SET',
          upstreams,
          downstreamType: 'FIELD',
          downstreams: [d],
          ...(t !== 'NONE' ? {transformOperation: t} : {}),
          ...(q !== 'NONE' ? {query: q} : {}),
          confidenceScore: score ?? 1,
        })
      }
    }
  }
  return out
}

function toKeyed(aspectName: string, value: Obj): Obj {
  const v: Obj = structuredClone(value)
  for (const k of TEMPLATES[aspectName] ?? []) {
    const m: Obj = {}
    for (const e of Array.isArray(v[k.field]) ? v[k.field] : []) {
      const key = k.key(e)
      if (key === undefined) continue
      m[key] = e
      for (const [f, template] of Object.entries(k.inner ?? {})) if (isObj(e[f])) e[f] = toKeyed(template, e[f])
    }
    if (k.field in v || true) v[k.field] = m
  }
  if (aspectName === 'ownership') v.owners = ownersToKeyed(v.owners)
  if (aspectName === 'upstreamLineage' || aspectName === 'dataJobInputOutput') v.fineGrainedLineages = fglToKeyed(v.fineGrainedLineages)
  return v
}

function fromKeyed(aspectName: string, v: Obj, original: Obj, now: number): Obj {
  // GlossaryTerms requires it (deprecated, never set by a patch): DataHub's template adds it on
  // every rebase, a schema field's terms included.
  if (aspectName === 'glossaryTerms' && !isObj(v.auditStamp)) v.auditStamp = stamp(now)
  for (const k of TEMPLATES[aspectName] ?? []) {
    const m = v[k.field]
    if (!isObj(m)) continue
    const before = new Map<string, Obj>()
    if (k.inner) for (const e of Array.isArray(original[k.field]) ? original[k.field] : []) if (k.key(e) !== undefined) before.set(k.key(e)!, e)
    const list = Object.entries(m).map(([key, e]) => {
      const built = k.build ? k.build(key, e) : e
      for (const [f, template] of Object.entries(k.inner ?? {})) {
        if (isObj(built) && isObj(built[f])) (built as Obj)[f] = fromKeyed(template, built[f], isObj(before.get(key)?.[f]) ? before.get(key)![f] : {}, now)
      }
      return built
    })
    if (list.length > 0 || k.field in original) v[k.field] = list
    else delete v[k.field]
  }
  if (aspectName === 'ownership' && isObj(v.owners)) v.owners = ownersFromKeyed(v.owners)
  if ((aspectName === 'upstreamLineage' || aspectName === 'dataJobInputOutput') && isObj(v.fineGrainedLineages)) {
    const list = fglFromKeyed(v.fineGrainedLineages)
    if (list.length > 0 || 'fineGrainedLineages' in original) v.fineGrainedLineages = list
    else delete v.fineGrainedLineages
  }
  return v
}

function tokens(path: string, where: string): string[] {
  if (path === '') return []
  if (!path.startsWith('/')) throw new BadRequestError(`${where}: patch path '${path}' must start with /`)
  return path.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
}

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype'])

/** Checks a patch document's shape: an array of add/remove/replace ops with string paths. */
export function checkPatch(ops: unknown, where = 'patch'): PatchOp[] {
  if (!Array.isArray(ops)) throw new BadRequestError(`${where}: a PATCH aspect must be a JSON Patch array of operations`)
  ops.forEach((o, i) => {
    if (!isObj(o) || !['add', 'remove', 'replace'].includes(o.op) || typeof o.path !== 'string') {
      throw new BadRequestError(`${where}: operation ${i} must be {op: add|remove|replace, path, value}`)
    }
    if (o.op !== 'remove' && !('value' in o)) throw new BadRequestError(`${where}: operation ${i} (${o.op} ${o.path}) has no value`)
    for (const t of tokens(o.path, where)) if (FORBIDDEN.has(t)) throw new BadRequestError(`${where}: operation ${i}: '${t}' is not allowed in a path`)
  })
  return ops as PatchOp[]
}

/**
 * Applies a checked patch to the current value (the aspect's default when the entity does not
 * hold it yet); `now` stamps what a default fills in.
 */
export function applyAspectPatch(aspectName: string, current: Obj | undefined, ops: PatchOp[], where = 'patch', now = Date.now()): Obj {
  const original = current ?? DEFAULTS[aspectName]?.(now) ?? {}
  const doc = toKeyed(aspectName, original)
  for (const o of ops) {
    const path = tokens(o.path, where)
    if (path.length === 0) {
      if (o.op === 'remove' || !isObj(o.value)) throw new BadRequestError(`${where}: the whole aspect can only be replaced by an object`)
      Object.keys(doc).forEach((k) => delete doc[k])
      Object.assign(doc, toKeyed(aspectName, o.value as Obj))
      continue
    }
    let parent: Obj = doc
    for (const t of path.slice(0, -1)) {
      if (!isObj(parent[t])) {
        if (o.op === 'remove') {
          parent = {}
          break
        }
        parent[t] = {}
      }
      parent = parent[t]
    }
    const last = path[path.length - 1]!
    if (o.op === 'remove') delete parent[last]
    else parent[last] = structuredClone(o.value)
  }
  return fromKeyed(aspectName, doc, original, now)
}
