/**
 * What search sees of an entity: one text blob for full-text matching, the display name, and the
 * facet values browsing filters on (DataHub's `@Searchable(addToFilters)` fields).
 *
 * Built from the entity's latest aspects each time one of them changes, so its cost depends on
 * the size of one entity, never on the size of the store.
 */
import {keyOfUrn} from './registry.js'
import {parseUrn} from './urn.js'

export const FACET_FIELDS = ['_entityType', 'platform', 'origin', 'tags', 'owners', 'domains', 'glossaryTerms', 'container', 'typeNames'] as const
export type FacetField = (typeof FACET_FIELDS)[number]

export interface SearchDoc {
  name: string
  /** Space-joined words to index. */
  text: string
  /** The start of `text` made of the name and the urn's words: a match there ranks above one only in the rest. */
  head: string
  removed: boolean
  facets: {
    platform?: string
    origin?: string
    tags: string[]
    owners: string[]
    domains: string[]
    glossaryTerms: string[]
    container?: string
    typeNames: string[]
  }
}

type Aspects = Record<string, any>

const PROPERTY_ASPECTS = ['datasetProperties', 'containerProperties', 'dashboardInfo', 'chartInfo', 'dataFlowInfo', 'dataJobInfo', 'domainProperties', 'tagProperties', 'notebookInfo', 'mlModelProperties', 'mlFeatureProperties', 'mlFeatureTableProperties', 'mlPrimaryKeyProperties', 'corpGroupInfo', 'dataPlatformInstanceProperties', 'dataProductProperties']
const DEFINITION_ASPECTS = ['glossaryTermInfo', 'glossaryNodeInfo']
const EDITABLE_ASPECTS = ['editableDatasetProperties', 'editableContainerProperties', 'editableDashboardProperties', 'editableChartProperties', 'editableDataFlowProperties', 'editableDataJobProperties', 'editableNotebookProperties', 'corpGroupEditableInfo', 'editableMLModelProperties']

/**
 * Every aspect `buildSearchDoc` reads (a key aspect counts as well: written alone, it makes the
 * entity and so its document; its values are read off the urn). A change to any other
 * aspect leaves the search document as it was, so the store need not re-index for it.
 */
export const SEARCH_ASPECTS: ReadonlySet<string> = new Set([
  ...PROPERTY_ASPECTS, ...DEFINITION_ASPECTS, ...EDITABLE_ASPECTS,
  'corpUserInfo', 'corpUserEditableInfo', 'dataPlatformInfo', 'globalTags', 'glossaryTerms', 'schemaMetadata', 'editableSchemaMetadata',
  'ownership', 'domains', 'dataPlatformInstance', 'status', 'container', 'subTypes',
])

export function isSearchAspect(aspectName: string): boolean {
  return SEARCH_ASPECTS.has(aspectName) || aspectName.endsWith('Key')
}

function push(out: string[], v: unknown): void {
  if (typeof v === 'string' && v.length > 0) out.push(v)
}

/** The readable id part of an urn: `urn:li:tag:pii` → `pii`; tuple keys → their non-urn parts. */
export function urnWords(urn: string): string {
  try {
    const u = parseUrn(urn)
    return u.parts.map((p) => (p.startsWith('urn:') ? urnWords(p) : p)).join(' ')
  } catch {
    return urn
  }
}

/** The display name of an entity from its aspects, falling back to its key. */
export function displayName(entityType: string, urn: string, a: Aspects): string {
  const candidates = [
    a.datasetProperties?.name,
    a.containerProperties?.name,
    a.dashboardInfo?.title,
    a.chartInfo?.title,
    a.dataFlowInfo?.name,
    a.dataJobInfo?.name,
    a.domainProperties?.name,
    a.glossaryTermInfo?.name,
    a.glossaryNodeInfo?.name,
    a.tagProperties?.name,
    a.notebookInfo?.title,
    a.corpUserInfo?.displayName,
    a.corpGroupInfo?.displayName,
    a.dataPlatformInfo?.displayName,
    a.mlModelProperties?.name,
    a.mlFeatureTableProperties?.name,
    a.dataProductProperties?.name,
  ]
  for (const c of candidates) if (typeof c === 'string' && c.length > 0) return c
  const key: Record<string, string | undefined> = keyOfUrn(urn, entityType)
  const k = key.name ?? key.id ?? key.username ?? key.platformName ?? key.dashboardId ?? key.chartId ?? key.flowId ?? key.jobId ?? key.notebookId ?? key.guid
  return typeof k === 'string' ? k : urnWords(urn)
}

function tagUrns(g: any): string[] {
  return Array.isArray(g?.tags) ? g.tags.map((t: any) => t?.tag).filter((x: unknown) => typeof x === 'string') : []
}
function termUrns(g: any): string[] {
  return Array.isArray(g?.terms) ? g.terms.map((t: any) => t?.urn).filter((x: unknown) => typeof x === 'string') : []
}

export function buildSearchDoc(entityType: string, urn: string, a: Aspects): SearchDoc {
  const words: string[] = []
  const name = displayName(entityType, urn, a)
  push(words, name)
  push(words, urnWords(urn))
  const head = words.join(' ')

  for (const k of PROPERTY_ASPECTS) {
    const p = a[k]
    if (!p) continue
    push(words, p.description)
    push(words, p.qualifiedName)
    push(words, p.title)
    push(words, p.name)
    if (p.customProperties && typeof p.customProperties === 'object') {
      for (const [ck, cv] of Object.entries(p.customProperties)) words.push(`${ck}=${String(cv)}`)
    }
  }
  for (const k of DEFINITION_ASPECTS) push(words, a[k]?.definition)
  for (const k of EDITABLE_ASPECTS) {
    push(words, a[k]?.description)
  }
  const u = a.corpUserInfo
  if (u) for (const f of ['displayName', 'fullName', 'email', 'title', 'firstName', 'lastName']) push(words, u[f])
  // What a user writes of themselves in the app: DataHub searches its name, teams and skills.
  const ue = a.corpUserEditableInfo
  if (ue) {
    push(words, ue.displayName)
    for (const f of ['teams', 'skills']) if (Array.isArray(ue[f])) for (const x of ue[f]) push(words, x)
  }

  const tags = new Set<string>(tagUrns(a.globalTags))
  const terms = new Set<string>(termUrns(a.glossaryTerms))
  const schema = a.schemaMetadata
  if (Array.isArray(schema?.fields)) {
    for (const f of schema.fields) {
      push(words, f?.fieldPath)
      push(words, f?.description)
      tagUrns(f?.globalTags).forEach((t) => tags.add(t))
      termUrns(f?.glossaryTerms).forEach((t) => terms.add(t))
    }
  }
  const esm = a.editableSchemaMetadata
  if (Array.isArray(esm?.editableSchemaFieldInfo)) {
    for (const f of esm.editableSchemaFieldInfo) {
      push(words, f?.fieldPath)
      push(words, f?.description)
      tagUrns(f?.globalTags).forEach((t) => tags.add(t))
      termUrns(f?.glossaryTerms).forEach((t) => terms.add(t))
    }
  }
  const owners: string[] = Array.isArray(a.ownership?.owners)
    ? a.ownership.owners.map((o: any) => o?.owner).filter((x: unknown) => typeof x === 'string')
    : []
  const domains: string[] = Array.isArray(a.domains?.domains) ? a.domains.domains.filter((x: unknown) => typeof x === 'string') : []
  for (const x of [...tags, ...terms, ...owners, ...domains]) push(words, urnWords(x))

  // From the urn, not the stored key aspect: a key aspect written later may contradict the urn
  // (DataHub stores it as sent), and the urn is what filters and the entity's page name.
  const key: Record<string, string | undefined> = keyOfUrn(urn, entityType)
  const platform: string | undefined =
    (typeof key.platform === 'string' ? key.platform : undefined) ??
    (typeof a.dataPlatformInstance?.platform === 'string' ? a.dataPlatformInstance.platform : undefined) ??
    (typeof key.dashboardTool === 'string' ? `urn:li:dataPlatform:${key.dashboardTool}` : undefined) ??
    (typeof key.orchestrator === 'string' ? `urn:li:dataPlatform:${key.orchestrator}` : undefined)

  return {
    name,
    text: words.join(' '),
    head,
    removed: a.status?.removed === true,
    facets: {
      platform,
      origin: typeof key.origin === 'string' ? key.origin : undefined,
      tags: [...tags],
      owners,
      domains,
      glossaryTerms: [...terms],
      container: typeof a.container?.container === 'string' ? a.container.container : undefined,
      typeNames: Array.isArray(a.subTypes?.typeNames) ? a.subTypes.typeNames : [],
    },
  }
}

/** Top-level fields of any aspect that `buildSearchDoc` or `displayName` reads. */
const READ_FIELDS = new Set([
  'name', 'title', 'description', 'qualifiedName', 'customProperties', 'definition', 'displayName', 'fullName', 'email', 'firstName', 'lastName',
  'tags', 'terms', 'fields', 'editableSchemaFieldInfo', 'owners', 'domains', 'platform', 'removed', 'container', 'typeNames',
  // Key aspects.
  'id', 'username', 'platformName', 'dashboardId', 'chartId', 'flowId', 'jobId', 'notebookId', 'guid', 'origin', 'dashboardTool', 'orchestrator',
])

const pickTags = (g: any) => (Array.isArray(g?.tags) ? {tags: g.tags.map((t: any) => ({tag: t?.tag}))} : undefined)
const pickTerms = (g: any) => (Array.isArray(g?.terms) ? {terms: g.terms.map((t: any) => ({urn: t?.urn}))} : undefined)

function pickField(f: any): unknown {
  if (f === null || typeof f !== 'object') return f
  return {fieldPath: f.fieldPath, description: f.description, globalTags: pickTags(f.globalTags), glossaryTerms: pickTerms(f.glossaryTerms)}
}

/**
 * What search needs of one aspect value: only the fields `buildSearchDoc` reads, so that the
 * write side, which has parsed the value already, hands the search thread a few words instead of
 * the whole aspect to parse again (a schema's field types, a profile's numbers are left out).
 * `buildSearchDoc` gives the same document from projections as from the whole values.
 */
export function searchProjection(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  const out: Record<string, unknown> = {}
  const from = value as Record<string, unknown>
  // for-in, not Object.entries: no array of pairs per aspect of an ingest (JSON gives plain objects).
  for (const k in from) {
    if (!READ_FIELDS.has(k)) continue
    const v = from[k]
    if (k === 'fields' || k === 'editableSchemaFieldInfo') out[k] = Array.isArray(v) ? v.map(pickField) : v
    else if (k === 'tags') out[k] = Array.isArray(v) ? v.map((t: any) => (t !== null && typeof t === 'object' ? {tag: t.tag} : t)) : v
    else if (k === 'terms') out[k] = Array.isArray(v) ? v.map((t: any) => (t !== null && typeof t === 'object' ? {urn: t.urn} : t)) : v
    else if (k === 'owners') out[k] = Array.isArray(v) ? v.map((o: any) => (o !== null && typeof o === 'object' ? {owner: o.owner} : o)) : v
    else out[k] = v
  }
  return out
}
