/**
 * DataHub's graph edges, read from the aspects that carry them (DataHub's `@Relationship`
 * annotations): the names its API and web app ask for — `DownstreamOf`, `OwnedBy`,
 * `TaggedWith`, `IsPartOf`, `AssociatedWith`, `Contains`…
 *
 * Outgoing edges come from the entity's own aspects. Incoming ones from the store's references
 * to the entity, so their cost is what refers to it, not the catalog.
 */
import {type Catalog} from './catalog.js'

type Obj = Record<string, any>

export interface Edge {
  type: string
  /** The other end. */
  urn: string
}

const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [])
const field = (v: unknown, key: string): string[] =>
  Array.isArray(v) ? v.map((x) => (x as Obj)?.[key]).filter((x): x is string => typeof x === 'string') : []

/** Edges each aspect carries, by aspect name. */
const FROM_ASPECT: Record<string, (v: Obj) => Edge[]> = {
  upstreamLineage: (v) => field(v.upstreams, 'dataset').map((urn) => ({type: 'DownstreamOf', urn})),
  ownership: (v) => field(v.owners, 'owner').map((urn) => ({type: 'OwnedBy', urn})),
  globalTags: (v) => field(v.tags, 'tag').map((urn) => ({type: 'TaggedWith', urn})),
  glossaryTerms: (v) => field(v.terms, 'urn').map((urn) => ({type: 'TermedWith', urn})),
  container: (v) => (typeof v.container === 'string' ? [{type: 'IsPartOf', urn: v.container}] : []),
  domains: (v) => strs(v.domains).map((urn) => ({type: 'AssociatedWith', urn})),
  dataJobInputOutput: (v) => [
    ...[...strs(v.inputDatasets), ...field(v.inputDatasetEdges, 'destinationUrn')].map((urn) => ({type: 'Consumes', urn})),
    ...[...strs(v.outputDatasets), ...field(v.outputDatasetEdges, 'destinationUrn')].map((urn) => ({type: 'Produces', urn})),
    ...[...strs(v.inputDatajobs), ...field(v.inputDatajobEdges, 'destinationUrn')].map((urn) => ({type: 'DownstreamOf', urn})),
  ],
  chartInfo: (v) => [...strs(v.inputs), ...field(v.inputEdges, 'destinationUrn')].map((urn) => ({type: 'Consumes', urn})),
  dashboardInfo: (v) => [
    ...[...strs(v.charts), ...field(v.chartEdges, 'destinationUrn')].map((urn) => ({type: 'Contains', urn})),
    ...[...strs(v.datasets), ...field(v.datasetEdges, 'destinationUrn')].map((urn) => ({type: 'Consumes', urn})),
  ],
  glossaryTermInfo: (v) => (typeof v.parentNode === 'string' ? [{type: 'IsPartOf', urn: v.parentNode}] : []),
  glossaryNodeInfo: (v) => (typeof v.parentNode === 'string' ? [{type: 'IsPartOf', urn: v.parentNode}] : []),
  domainProperties: (v) => (typeof v.parentDomain === 'string' ? [{type: 'IsPartOf', urn: v.parentDomain}] : []),
  glossaryRelatedTerms: (v) => [
    ...strs(v.isRelatedTerms).map((urn) => ({type: 'IsA', urn})),
    ...strs(v.hasRelatedTerms).map((urn) => ({type: 'HasA', urn})),
    ...strs(v.values).map((urn) => ({type: 'HasValue', urn})),
    ...strs(v.relatedTerms).map((urn) => ({type: 'IsRelatedTo', urn})),
  ],
  groupMembership: (v) => strs(v.groups).map((urn) => ({type: 'IsMemberOfGroup', urn})),
  nativeGroupMembership: (v) => strs(v.nativeGroups).map((urn) => ({type: 'IsMemberOfNativeGroup', urn})),
  corpUserInfo: (v) => (typeof v.managerUrn === 'string' ? [{type: 'ReportsTo', urn: v.managerUrn}] : []),
  // A user's or a group's roles, and the roles a policy applies to: the web app's Users and
  // Groups pages show each one's role through these, its Roles page a role's users and policies.
  roleMembership: (v) => strs(v.roles).map((urn) => ({type: 'IsMemberOfRole', urn})),
  dataHubPolicyInfo: (v) => strs((v.actors as Obj | undefined)?.roles).map((urn) => ({type: 'IsAssociatedWithRole', urn})),
  schemaMetadata: (v) => {
    const out: Edge[] = []
    for (const f of Array.isArray(v.fields) ? v.fields : []) {
      for (const urn of field(f?.globalTags?.tags, 'tag')) out.push({type: 'SchemaFieldTaggedWith', urn})
      for (const urn of field(f?.glossaryTerms?.terms, 'urn')) out.push({type: 'SchemaFieldWithGlossaryTerm', urn})
    }
    return out
  },
  editableSchemaMetadata: (v) => {
    const out: Edge[] = []
    for (const f of Array.isArray(v.editableSchemaFieldInfo) ? v.editableSchemaFieldInfo : []) {
      for (const urn of field(f?.globalTags?.tags, 'tag')) out.push({type: 'EditableSchemaFieldTaggedWith', urn})
      for (const urn of field(f?.glossaryTerms?.terms, 'urn')) out.push({type: 'EditableSchemaFieldWithGlossaryTerm', urn})
    }
    return out
  },
}

export const RELATIONSHIP_ASPECTS: readonly string[] = Object.keys(FROM_ASPECT)

/**
 * The edge types each aspect of FROM_ASPECT may carry, so an incoming read loads only the
 * entities whose referring aspect can hold an asked type: a domain's 20,000 members (`domains`,
 * AssociatedWith) are not read to find its child domains (IsPartOf). Kept beside FROM_ASPECT; a
 * test checks the two agree.
 */
export const EDGE_TYPES_OF_ASPECT: Record<string, readonly string[]> = {
  upstreamLineage: ['DownstreamOf'],
  ownership: ['OwnedBy'],
  globalTags: ['TaggedWith'],
  glossaryTerms: ['TermedWith'],
  container: ['IsPartOf'],
  domains: ['AssociatedWith'],
  dataJobInputOutput: ['Consumes', 'Produces', 'DownstreamOf'],
  chartInfo: ['Consumes'],
  dashboardInfo: ['Contains', 'Consumes'],
  glossaryTermInfo: ['IsPartOf'],
  glossaryNodeInfo: ['IsPartOf'],
  domainProperties: ['IsPartOf'],
  glossaryRelatedTerms: ['IsA', 'HasA', 'HasValue', 'IsRelatedTo'],
  groupMembership: ['IsMemberOfGroup'],
  nativeGroupMembership: ['IsMemberOfNativeGroup'],
  corpUserInfo: ['ReportsTo'],
  roleMembership: ['IsMemberOfRole'],
  dataHubPolicyInfo: ['IsAssociatedWithRole'],
  schemaMetadata: ['SchemaFieldTaggedWith', 'SchemaFieldWithGlossaryTerm'],
  editableSchemaMetadata: ['EditableSchemaFieldTaggedWith', 'EditableSchemaFieldWithGlossaryTerm'],
}
/** The edge type an entity's key carries, and that key: a data job is part of its flow. */
const KEY_EDGE_TYPE = 'IsPartOf'
const KEY_ASPECT = 'dataJobKey'

/** Edges that an aspect value carries (none for an aspect without relationships). */
export function edgesOf(aspectName: string, value: unknown): Edge[] {
  const f = FROM_ASPECT[aspectName] as ((v: Obj) => Edge[]) | undefined
  return f && value !== null && typeof value === 'object' ? f(value as Obj) : []
}

/** A data job is part of its flow, named in its key. */
function keyEdges(urn: string): Edge[] {
  const m = /^urn:li:dataJob:\((urn:li:dataFlow:\(.*\)),[^,]*\)$/.exec(urn)
  return m ? [{type: KEY_EDGE_TYPE, urn: m[1]!}] : []
}

export interface RelationshipQuery {
  types: readonly string[]
  direction: 'INCOMING' | 'OUTGOING'
  includeSoftDeleted?: boolean
}

const isRemoved = (e: {aspects: Record<string, {value: unknown}>} | undefined): boolean => (e?.aspects.status?.value as Obj | undefined)?.removed === true

/** Every edge of `urn` of the asked types and direction, the other end existing (and not soft-deleted unless asked). */
export async function relationshipsOf(catalog: Catalog, urn: string, q: RelationshipQuery): Promise<Edge[]> {
  const wanted = new Set(q.types)
  const found: Edge[] = []
  if (q.direction === 'OUTGOING') {
    const e = await catalog.rawEntity(urn, [...RELATIONSHIP_ASPECTS])
    if (!e) return []
    for (const e2 of keyEdges(urn)) if (wanted.has(e2.type)) found.push(e2)
    for (const [name, a] of Object.entries(e.aspects)) for (const edge of edgesOf(name, a.value)) if (wanted.has(edge.type)) found.push(edge)
  } else {
    // Only the aspects that can carry an asked type: the store reads no others (and answers from
    // its reference index alone when it indexes them all, as it does lineage's).
    const aspects = Object.keys(EDGE_TYPES_OF_ASPECT).filter((a) => EDGE_TYPES_OF_ASPECT[a]!.some((t) => wanted.has(t)))
    if (wanted.has(KEY_EDGE_TYPE)) aspects.push(KEY_ASPECT)
    if (aspects.length === 0) return []
    const refs = (await catalog.referencesTo([urn], {aspects})).filter((r) => r.urn !== urn)
    const others = await catalog.rawEntities([...new Set(refs.map((r) => r.urn))], [...RELATIONSHIP_ASPECTS])
    for (const [other, e] of others) {
      const edges = [...keyEdges(other), ...Object.entries(e.aspects).flatMap(([name, a]) => edgesOf(name, a.value))]
      for (const edge of edges) if (edge.urn === urn && wanted.has(edge.type)) found.push({type: edge.type, urn: other})
    }
  }
  const seen = new Set<string>()
  const unique = found.filter((x) => {
    const k = `${x.type} ${x.urn}`
    return !seen.has(k) && (seen.add(k), true)
  })
  const ends = await catalog.rawEntities([...new Set(unique.map((x) => x.urn))], ['status'])
  return unique.filter((x) => {
    const end = ends.get(x.urn)
    // Users, groups and tags are often named before anything describes them: an edge to an
    // entity never written is kept, as DataHub's graph keeps it.
    if (!end) return q.direction === 'OUTGOING'
    return q.includeSoftDeleted === true || !isRemoved(end)
  })
}
