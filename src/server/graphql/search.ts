/**
 * Search resolvers: DataHub's search inputs translated to the store's `SearchRequest`, and the
 * store's answer shaped as SearchResults / ScrollResults.
 *
 * Glossary:
 * - result window: the largest `start + count` an offset search may reach (10,000 by default,
 *   as DataHub's Elasticsearch `max_result_window`). Beyond it the request is refused with a
 *   400 that says how to raise the window or to scroll instead.
 * - scroll id: an opaque cursor (base64url JSON) holding the store's cursor and a fingerprint of
 *   the query it belongs to; a scroll id presented with a different query is refused.
 * - facet: counts of matches by a filterable field (`platform`, `tags`, …), computed over all
 *   matches — only when the client selects `facets`, since it costs a pass over every match.
 */
import {createHash} from 'node:crypto'
import {Kind, type GraphQLResolveInfo, type SelectionSetNode} from 'graphql'
import {BadRequestError} from '../../errors.js'
import type {FacetField} from '../../model/search-doc.js'
import type {FacetFilter, SearchRequest, SearchResponse} from '../../store/types.js'
import {Ent, type GqlContext, graphqlEntityType, registryType, spendResults, stub} from './context.js'
import {type PendingFilter, resolveFilters} from './search-relations.js'

export const DEFAULT_MAX_RESULT_WINDOW = 10_000
/** Largest page of one request, whatever the window. */
export const MAX_PAGE = 10_000

type Obj = Record<string, any>

interface FacetFilterInput {
  field: string
  value?: string | null
  values?: string[] | null
  negated?: boolean | null
  condition?: string | null
}

interface AndFilterInput {
  and?: FacetFilterInput[] | null
}

interface SearchFlags {
  includeSoftDeleted?: boolean | null
  maxAggValues?: number | null
  skipAggregates?: boolean | null
}

/** Filterable fields and the names they show under (DataHub's @Searchable display names). */
const FACETS: Array<{field: FacetField; displayName: string; urns: boolean}> = [
  {field: '_entityType', displayName: 'Type', urns: false},
  {field: 'platform', displayName: 'Platform', urns: true},
  {field: 'origin', displayName: 'Environment', urns: false},
  {field: 'tags', displayName: 'Tag', urns: true},
  {field: 'owners', displayName: 'Owned By', urns: true},
  {field: 'domains', displayName: 'Domain', urns: true},
  {field: 'glossaryTerms', displayName: 'Glossary Term', urns: true},
  {field: 'container', displayName: 'Container', urns: true},
  {field: 'typeNames', displayName: 'Sub Type', urns: false},
]

const FILTER_FIELDS = new Map<string, FacetFilter['field']>([
  ...FACETS.map((f) => [f.field, f.field] as const),
  ['entityType', '_entityType'],
  ['urn', 'urn'],
  ['removed', 'removed'],
])

/** Conditions the store compares with; the domain-tree ones are expanded first (relations below). */
const STORE_MATCH: Record<string, FacetFilter['match']> = {EQUAL: 'EQUAL', IN: 'EQUAL', IEQUAL: 'IEQUAL', CONTAIN: 'CONTAIN', START_WITH: 'START_WITH', END_WITH: 'END_WITH', EXISTS: 'EXISTS'}
const TREE_CONDITIONS = new Set(['DESCENDANTS_INCL', 'ANCESTORS_INCL', 'RELATED_INCL'])
/** No filterable field is a number, so a comparison matches nothing (as on a missing field). */
const NUMERIC_CONDITIONS = new Set(['GREATER_THAN', 'GREATER_THAN_OR_EQUAL_TO', 'LESS_THAN', 'LESS_THAN_OR_EQUAL_TO'])

function toFilter(f: FacetFilterInput): PendingFilter {
  // DataHub clients often address the exact-match sub-field.
  const name = f.field.endsWith('.keyword') ? f.field.slice(0, -'.keyword'.length) : f.field
  if (name === '') throw new BadRequestError('A filter needs a field name')
  // A field our documents do not hold matches nothing, as in an Elasticsearch index without it
  // (README: "Search filters"); the store knows the rule.
  const field = FILTER_FIELDS.get(name) ?? name
  const condition = f.condition ?? 'EQUAL'
  const negated = f.negated === true
  let values = f.values ?? (f.value !== null && f.value !== undefined ? [f.value] : [])
  if (condition === 'EXISTS') return {field, values: [], negated, match: 'EXISTS'}
  // DataHub asks Elasticsearch for the field holding one of no values: nothing matches (and,
  // negated, everything). The web app sends such filters, e.g. for the datasets of a dashboard
  // without charts.
  if (values.length === 0) return {field: NO_FIELD, values: [''], negated}
  if (NUMERIC_CONDITIONS.has(condition)) return {field: NO_FIELD, values, negated}
  // Entity types filter by the GraphQL names (DATASET) or the registry's (dataset).
  if (field === '_entityType') values = values.map((v) => registryType(v) ?? v)
  if (TREE_CONDITIONS.has(condition)) {
    if (field !== 'domains' && field !== 'parentDomain') throw new BadRequestError(`Filter condition ${condition} applies to 'domains' and 'parentDomain', not '${f.field}'`)
    return {field, values, negated, condition}
  }
  return {field, values, negated, match: STORE_MATCH[condition] ?? 'EQUAL'}
}

/** A field name no document holds. */
const NO_FIELD = '_none'

/**
 * Whether the request filters on `removed` itself: DataHub then leaves out its default filter
 * that hides soft-deleted entities, so `removed = true` finds them (the SDK's ONLY_SOFT_DELETED).
 */
export function filtersOnRemoved(groups: FacetFilter[][]): boolean {
  return groups.some((g) => g.some((f) => f.field === 'removed'))
}

/** orFilters (an OR of AND-groups) win over the deprecated `filters` (one AND-group). */
export function filterGroups(filters?: FacetFilterInput[] | null, orFilters?: AndFilterInput[] | null, extra?: FacetFilter): PendingFilter[][] {
  let groups: PendingFilter[][] = []
  if (orFilters && orFilters.length > 0) groups = orFilters.map((g) => (g.and ?? []).map(toFilter))
  else if (filters && filters.length > 0) groups = [filters.map(toFilter)]
  if (extra) groups = groups.length === 0 ? [[extra]] : groups.map((g) => [...g, extra])
  return groups
}

/** A type no entity has: what a search asks when every type it names is one mdcli does not store. */
const NO_TYPE = '_none'

/**
 * The schema's EntityType holds every DataHub type (the web app counts each of them), but mdcli
 * stores only some: a type it does not store simply has no entities, as in a DataHub without them,
 * so it matches nothing rather than failing the whole search.
 */
function registryTypes(types: string[] | null | undefined): string[] | undefined {
  if (!types || types.length === 0) return undefined
  const known = types.map((t) => registryType(t)).filter((r): r is string => r !== undefined)
  return known.length > 0 ? known : [NO_TYPE]
}

function checkCount(count: number): void {
  if (!Number.isInteger(count) || count < 0 || count > MAX_PAGE) throw new BadRequestError(`count must be between 0 and ${MAX_PAGE}, got ${count}`)
}

/** Whether the field's selection set asks for `name` (through fragments too). */
function selects(info: GraphQLResolveInfo, name: string): boolean {
  const visit = (set: SelectionSetNode | undefined, seen: Set<string>): boolean => {
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD && s.name.value === name) return true
      if (s.kind === Kind.INLINE_FRAGMENT && visit(s.selectionSet, seen)) return true
      if (s.kind === Kind.FRAGMENT_SPREAD && !seen.has(s.name.value)) {
        seen.add(s.name.value)
        if (visit(info.fragments[s.name.value]?.selectionSet, seen)) return true
      }
    }
    return false
  }
  return info.fieldNodes.some((n) => visit(n.selectionSet, new Set()))
}

function facetFieldsFor(info: GraphQLResolveInfo, flags: SearchFlags | null | undefined, acrossTypes: boolean): FacetField[] | undefined {
  if (flags?.skipAggregates || !selects(info, 'facets')) return undefined
  return FACETS.filter((f) => acrossTypes || f.field !== '_entityType').map((f) => f.field)
}

function shapeFacets(res: SearchResponse, maxAggValues: number | null | undefined): Obj[] | null {
  if (!res.facets) return null
  const limit = maxAggValues ?? 20
  const out: Obj[] = []
  for (const f of FACETS) {
    const aggs = res.facets[f.field]
    if (!aggs || aggs.length === 0) continue
    const facet = {
      field: f.field,
      displayName: f.displayName,
      aggregations: aggs.slice(0, limit).map(({value, count}) => ({
        value: f.field === '_entityType' ? graphqlEntityType(value) : value,
        count,
        entity: f.urns ? stub(value) : null,
      })),
    }
    out.push(facet)
    // DataHub's search service adds the types again under `entity`, which the web app reads (a
    // tag's "Applied to", the tag list's counts).
    if (f.field === '_entityType') out.push({...facet, field: 'entity'})
  }
  return out
}

function shapeResults(res: SearchResponse, query: string): Obj[] {
  const words = query.trim() === '*' ? [] : query.toLowerCase().split(/\s+/).filter((w) => w.length > 0)
  return res.hits.map((h) => {
    const lower = h.name.toLowerCase()
    // A cheap hint of why an entity matched; the index does not report matched fields.
    const matchedFields = words.some((w) => lower.includes(w)) ? [{name: 'name', value: h.name, entity: null}] : []
    return {entity: new Ent(h.urn, h.entityType), matchedFields, insights: []}
  })
}

export interface SearchParams {
  types?: string[]
  query: string
  start?: number | null
  count?: number | null
  filters?: FacetFilterInput[] | null
  orFilters?: AndFilterInput[] | null
  searchFlags?: SearchFlags | null
  /** ANDed into every filter group (e.g. "in this domain"). */
  extraFilter?: FacetFilter
  sortInput?: SortInput | null
  acrossTypes?: boolean
}

/** An offset search inside the result window. */
export async function searchEntities(ctx: GqlContext, info: GraphQLResolveInfo, p: SearchParams): Promise<Obj> {
  const start = p.start ?? 0
  const count = p.count ?? 10
  if (!Number.isInteger(start) || start < 0) throw new BadRequestError(`start must be a whole number >= 0, got ${start}`)
  checkCount(count)
  if (start + count > ctx.maxResultWindow) {
    throw new BadRequestError(
      `Result window is too large: start + count = ${start + count} is over the maximum result window of ${ctx.maxResultWindow}. ` +
        'Use scrollAcrossEntities to page through every result, or raise the window (environment variable MDCLI_SEARCH_MAX_RESULT_WINDOW, or mdcli lite --max-result-window).',
    )
  }
  spendResults(ctx, count)
  const filters = await resolveFilters(ctx, filterGroups(p.filters, p.orFilters, p.extraFilter))
  const req: SearchRequest = {
    types: p.types,
    query: p.query,
    start,
    count,
    filters,
    includeSoftDeleted: p.searchFlags?.includeSoftDeleted === true || filtersOnRemoved(filters),
    facets: facetFieldsFor(info, p.searchFlags, p.acrossTypes !== false),
  }
  const sort = sortOf(p.sortInput)
  const res = sort ? await byName(ctx, req, sort, start, count) : await ctx.catalog.search(req)
  return {start, count: res.hits.length, total: res.total, searchResults: shapeResults(res, p.query), facets: shapeFacets(res, p.searchFlags?.maxAggValues), suggestions: []}
}

/**
 * A page of the matches in the order asked: every match inside the result window, ordered here,
 * then the page from `start`.
 */
async function byName(ctx: GqlContext, req: SearchRequest, sort: Sort, start: number, count: number): Promise<Awaited<ReturnType<GqlContext['catalog']['search']>>> {
  const all = await ctx.catalog.search({...req, start: 0, count: Math.min(ctx.maxResultWindow, MAX_PAGE), after: undefined})
  const hits = [...all.hits].sort((a, b) => {
    for (const c of sort) {
      const d = c.by === 'name' ? a.name.localeCompare(b.name, 'en', {sensitivity: 'base'}) : indexOf(a.entityType).localeCompare(indexOf(b.entityType))
      if (d !== 0) return c.descending ? -d : d
    }
    // DataHub breaks ties by urn, ascending.
    return a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0
  })
  return {...all, hits: hits.slice(start, start + count), next: start + count < hits.length ? `name:${start + count}` : undefined}
}

/** The name of the Elasticsearch index DataHub keeps an entity type in (what `_index` sorts by). */
function indexOf(entityType: string): string {
  return `${entityType.toLowerCase()}index_v2`
}

type SortInput = {sortCriterion?: {field: string; sortOrder?: string} | null; sortCriteria?: Array<{field: string; sortOrder?: string}> | null}
type Sort = Array<{by: 'name' | 'index'; descending: boolean}>

/**
 * Sort fields served: relevance (`_score`), the entity's display name (DataHub's `_entityName`)
 * and its index (`_index`: the glossary sorts nodes before terms by it).
 */
const SORT_FIELDS: Record<string, 'name' | 'index'> = {_entityName: 'name', name: 'name', _index: 'index'}

/**
 * The sort asked for: undefined for relevance (a first criterion `_score`, or none), else the
 * criteria in order; a `_score` after the first criterion orders nothing here.
 */
export function sortOf(sortInput: SortInput | null | undefined): Sort | undefined {
  const criteria = sortInput?.sortCriteria?.length ? sortInput.sortCriteria : sortInput?.sortCriterion ? [sortInput.sortCriterion] : []
  for (const c of criteria) {
    if (c.field !== '_score' && !SORT_FIELDS[c.field]) throw new BadRequestError(`Sorting by '${c.field}' is not supported; sort by _score (relevance), _entityName or _index`)
  }
  if (criteria.length === 0 || criteria[0]!.field === '_score') return undefined
  return criteria.filter((c) => c.field !== '_score').map((c) => ({by: SORT_FIELDS[c.field]!, descending: c.sortOrder === 'DESCENDING'}))
}

function checkUnsupported(input: {viewUrn?: string | null; sortInput?: SortInput | null}): void {
  if (input.viewUrn) throw new BadRequestError('Views are not supported by this server; remove viewUrn')
  sortOf(input.sortInput)
}

interface ScrollCursor {
  v: 1
  /** Fingerprint of the query the cursor belongs to. */
  f: string
  /** The store's cursor. */
  a: string
}

function fingerprint(req: SearchRequest, sort?: Sort): string {
  const basis = JSON.stringify([req.types ? [...req.types].sort() : null, req.query.trim(), req.filters ?? [], req.includeSoftDeleted === true, sort ?? null])
  return createHash('sha256').update(basis).digest('base64url').slice(0, 16)
}

function decodeScrollId(id: string): ScrollCursor {
  try {
    const c = JSON.parse(Buffer.from(id, 'base64url').toString('utf8')) as ScrollCursor
    if (c && c.v === 1 && typeof c.f === 'string' && typeof c.a === 'string') return c
  } catch {
    /* reported below */
  }
  throw new BadRequestError('Invalid scrollId: pass the nextScrollId of the previous page unchanged, or omit it to start a new scroll')
}

/**
 * DataHub's GetQuickFiltersResolver: from one star search's facets, the five platforms with most
 * entities (shown in name order), then up to three source types and two DataHub types present,
 * each taken in DataHub's order of priority.
 */
const QUICK_PLATFORMS = 5
const QUICK_SOURCE_TYPES: [string[], number] = [['dataset', 'dashboard', 'dataFlow', 'dataJob', 'chart', 'container', 'mlModel', 'mlModelGroup', 'mlFeature', 'mlFeatureTable', 'mlPrimaryKey'], 3]
const QUICK_DATAHUB_TYPES: [string[], number] = [['domain', 'glossaryTerm', 'corpGroup', 'corpuser'], 2]

async function quickFilters(ctx: GqlContext, input: {viewUrn?: string | null} | null | undefined): Promise<Obj> {
  checkUnsupported(input ?? {})
  const res = await ctx.catalog.search({query: '*', start: 0, count: 0, facets: ['platform', '_entityType']})
  const platforms = [...(res.facets?.platform ?? [])]
    .filter((v) => v.count > 0)
    .sort((a, b) => b.count - a.count)
    .slice(0, QUICK_PLATFORMS)
    .sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .map((v) => ({field: 'platform', value: v.value, entity: stub(v.value)}))
  const present = new Map((res.facets?._entityType ?? []).filter((v) => v.count > 0).map((v) => [v.value, v.count]))
  const types = [QUICK_SOURCE_TYPES, QUICK_DATAHUB_TYPES].flatMap(([order, most]) =>
    order
      .filter((t) => present.has(t))
      .slice(0, most)
      .map((t) => ({field: '_entityType', value: graphqlEntityType(t), entity: null})),
  )
  return {quickFilters: [...platforms, ...types]}
}

export const SEARCH_QUERY_FIELDS = {
  getQuickFilters: (_r: unknown, {input}: {input?: {viewUrn?: string | null} | null}, ctx: GqlContext) => quickFilters(ctx, input),

  search: (_r: unknown, {input}: {input: Obj}, ctx: GqlContext, info: GraphQLResolveInfo) => {
    const types = registryTypes([input.type])
    return searchEntities(ctx, info, {...input, types, acrossTypes: false} as SearchParams)
  },

  searchAcrossEntities: (_r: unknown, {input}: {input: Obj}, ctx: GqlContext, info: GraphQLResolveInfo) => {
    checkUnsupported(input)
    return searchEntities(ctx, info, {...input, types: registryTypes(input.types), acrossTypes: true} as SearchParams)
  },

  // The users page of the settings: a search of users only, whatever types the input names.
  searchUsers: (_r: unknown, {input}: {input: Obj}, ctx: GqlContext, info: GraphQLResolveInfo) => {
    checkUnsupported(input)
    return searchEntities(ctx, info, {...input, types: ['corpuser'], acrossTypes: false} as SearchParams)
  },

  scrollAcrossEntities: async (_r: unknown, {input}: {input: Obj}, ctx: GqlContext, info: GraphQLResolveInfo) => {
    checkUnsupported(input)
    const count = input.count ?? 10
    checkCount(count)
    spendResults(ctx, count)
    const filters = await resolveFilters(ctx, filterGroups(undefined, input.orFilters))
    const req: SearchRequest = {
      types: registryTypes(input.types),
      query: input.query,
      count,
      filters,
      includeSoftDeleted: input.searchFlags?.includeSoftDeleted === true || filtersOnRemoved(filters),
      facets: facetFieldsFor(info, input.searchFlags, true),
      after: null,
    }
    const sort = sortOf(input.sortInput)
    const f = fingerprint(req, sort)
    if (input.scrollId) {
      const c = decodeScrollId(input.scrollId)
      if (c.f !== f) throw new BadRequestError('This scrollId belongs to a different query (types, query, filters, flags or sort changed); omit scrollId to start a new scroll')
      req.after = c.a
    }
    // Ordered by name, the cursor is the offset of the next page in that order (inside the result window).
    const res = sort ? await byName(ctx, req, sort, req.after ? Number(req.after.slice('name:'.length)) || 0 : 0, count) : await ctx.catalog.search(req)
    const nextScrollId = res.next ? Buffer.from(JSON.stringify({v: 1, f, a: res.next} satisfies ScrollCursor)).toString('base64url') : null
    return {nextScrollId, count: res.hits.length, total: res.total, searchResults: shapeResults(res, input.query), facets: shapeFacets(res, input.searchFlags?.maxAggValues)}
  },
}
