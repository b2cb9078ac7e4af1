/**
 * Resolvers of lineage.graphql: entity `lineage`, `searchAcrossLineage`, `scrollAcrossLineage`, `updateLineage`,
 * on the walk in catalog/lineage.ts.
 */
import {BadRequestError} from '../../errors.js'
import {columnEdges, type LineageDirection, type LineageHit, walkLineage} from '../../catalog/lineage.js'
import {type LineageEdgeInput, updateLineage} from '../../catalog/edits/index.js'
import {GQL_TYPE_NAME, type Resolver} from './entities.js'
import {type Ent, type GqlContext, graphqlEntityType, registryType, stub} from './context.js'

type Obj = Record<string, any>
/** Hops walked for `3+` or no degree filter. */
const MAX_HOPS = 10
const MAX_COUNT = 10_000

function page(start: unknown, count: unknown, def = 100): {start: number; count: number} {
  const s = start ?? 0
  const c = count ?? def
  if (!Number.isInteger(s) || (s as number) < 0) throw new BadRequestError(`start must be a whole number >= 0, got ${String(s)}`)
  if (!Number.isInteger(c) || (c as number) < 0 || (c as number) > MAX_COUNT) throw new BadRequestError(`count must be a whole number from 0 to ${MAX_COUNT}, got ${String(c)}`)
  return {start: s as number, count: c as number}
}

/** Degrees asked for by `degree` filters (1, 2, 3+), or undefined for all. */
function degreesOf(orFilters: Obj[] | undefined): {max: number; accept: (d: number) => boolean} {
  const values = new Set<string>()
  for (const g of orFilters ?? []) for (const f of g.and ?? []) if (f.field === 'degree') for (const v of f.values ?? (f.value ? [f.value] : [])) values.add(String(v))
  if (values.size === 0) return {max: MAX_HOPS, accept: () => true}
  const plus = values.has('3+')
  const exact = [...values].filter((v) => /^\d+$/.test(v)).map(Number)
  const max = plus ? MAX_HOPS : Math.max(1, ...exact)
  return {max, accept: (d) => exact.includes(d) || (plus && d >= 3)}
}

/**
 * Entity types asked for by `_entityType` filters (the facet's values, DATASET, or the registry's
 * names), or undefined for all. Like `degree`, the first group naming the field decides.
 */
function entityTypesOf(orFilters: Obj[] | undefined): Set<string> | undefined {
  for (const g of orFilters ?? []) {
    for (const f of g.and ?? []) {
      if (f.field !== '_entityType' && f.field !== 'entityType') continue
      const values: string[] = f.values ?? (f.value ? [f.value] : [])
      return new Set(values.map((v) => registryType(v) ?? v))
    }
  }
  return undefined
}

async function lineageHits(ctx: GqlContext, input: Obj): Promise<LineageHit[]> {
  if (typeof input.urn !== 'string' || input.urn === '') throw new BadRequestError('searchAcrossLineage needs input.urn')
  const direction = input.direction as LineageDirection
  const degrees = degreesOf(input.orFilters)
  const hits = await walkLineage(ctx.catalog, input.urn, direction, degrees.max, {includeSoftDeleted: input.searchFlags?.includeSoftDeleted === true})
  const types = Array.isArray(input.types) && input.types.length > 0 ? new Set(input.types.map((t: string) => registryType(t))) : undefined
  const facetTypes = entityTypesOf(input.orFilters)
  const q = typeof input.query === 'string' && input.query.trim() !== '' && input.query.trim() !== '*' ? input.query.trim().toLowerCase() : undefined
  return hits.filter(
    (h) => GQL_TYPE_NAME[h.entityType] && degrees.accept(h.degree) && (!types || types.has(h.entityType)) && (!facetTypes || facetTypes.has(h.entityType)) && (!q || h.urn.toLowerCase().includes(q)),
  )
}

function result(h: LineageHit): Obj {
  return {entity: stub(h.urn), degree: h.degree, degrees: [h.degree], paths: [{path: h.path.map((u) => stub(u))}], matchedFields: [], insights: [], explored: true, ignoredAsHop: false, truncatedChildren: false}
}

function facets(hits: LineageHit[]): Obj[] {
  const count = (key: (h: LineageHit) => string) => {
    const m = new Map<string, number>()
    for (const h of hits) m.set(key(h), (m.get(key(h)) ?? 0) + 1)
    return [...m].map(([value, c]) => ({value, count: c}))
  }
  return [
    // The GraphQL names (DATASET), as searchAcrossEntities gives them: DataHub maps both through
    // the same facet mapper, and the UI filters with the value it was shown.
    {field: '_entityType', displayName: 'Type', aggregations: count((h) => graphqlEntityType(h.entityType))},
    {field: 'degree', displayName: 'Degree', aggregations: count((h) => (h.degree >= 3 ? '3+' : String(h.degree)))},
  ]
}

export const LINEAGE_QUERY_FIELDS: Record<string, Resolver> = {
  searchAcrossLineage: async (_r, {input}: {input: Obj}, ctx) => {
    const {start, count} = page(input.start, input.count, 10)
    const hits = await lineageHits(ctx, input)
    return {start, count: Math.min(count, Math.max(0, hits.length - start)), total: hits.length, searchResults: hits.slice(start, start + count).map(result), facets: facets(hits), isPartial: false}
  },
  scrollAcrossLineage: async (_r, {input}: {input: Obj}, ctx) => {
    const {count} = page(0, input.count, 10)
    let start = 0
    if (input.scrollId != null) {
      if (!/^\d+$/.test(String(input.scrollId))) throw new BadRequestError(`scrollId '${String(input.scrollId)}' is not one this server gave out`)
      start = Number(input.scrollId)
    }
    const hits = await lineageHits(ctx, input)
    const slice = hits.slice(start, start + count)
    const next = start + slice.length
    return {nextScrollId: next < hits.length ? String(next) : null, count: slice.length, total: hits.length, searchResults: slice.map(result), facets: facets(hits)}
  },
}

export const LINEAGE_MUTATION_FIELDS: Record<string, Resolver> = {
  updateLineage: async (_r, {input}: {input: {edgesToAdd: Array<LineageEdgeInput | null>; edgesToRemove: Array<LineageEdgeInput | null>}}, ctx) => {
    const edges = (l: Array<LineageEdgeInput | null>) => l.filter((e): e is LineageEdgeInput => e !== null)
    const summary = await updateLineage(ctx.catalog, ctx.actor, {edgesToAdd: edges(input.edgesToAdd), edgesToRemove: edges(input.edgesToRemove)})
    for (const u of summary.urns) ctx.loader.forget(u)
    return true
  },
}

/** `urn:li:schemaField:(<dataset urn>,<path>)` → DataHub's SchemaFieldRef {urn (the dataset), path}. */
function fieldRef(u: unknown): {urn: string; path: string} | null {
  if (typeof u !== 'string') return null
  const m = /^urn:li:schemaField:\((urn:li:[^,]+:\(.*\)|urn:li:[^,]+),(.*)\)$/.exec(u)
  return m ? {urn: m[1]!, path: m[2]!} : null
}

/** Column edges as DataHub's FineGrainedLineage objects. */
export function fineGrainedLineages(edges: Array<{upstreams?: unknown; downstreams?: unknown; transformOperation?: unknown; query?: unknown}>): Obj[] {
  const refs = (l: unknown) => (Array.isArray(l) ? l : []).map(fieldRef).filter((r): r is {urn: string; path: string} => r !== null)
  return edges.map((e) => ({
    upstreams: refs(e.upstreams),
    downstreams: refs(e.downstreams),
    transformOperation: typeof e.transformOperation === 'string' ? e.transformOperation : null,
    query: typeof e.query === 'string' ? e.query : null,
  }))
}

/** A dataset's column-level lineage (its upstreamLineage's fineGrainedLineages). */
export const fineGrainedField: Resolver = async (src: Ent, _args, ctx) => fineGrainedLineages(await columnEdges(ctx.catalog, src.urn))

/** The `lineage` field of an entity: direct neighbours (degree 1), one page. */
export const lineageField: Resolver = async (src: Ent, args: {input: Obj}, ctx) => {
  const {start, count} = page(args.input.start, args.input.count, 100)
  const hits = (await walkLineage(ctx.catalog, src.urn, args.input.direction as LineageDirection, 1, {excludeGhosts: args.input.includeGhostEntities !== true})).filter((h) => GQL_TYPE_NAME[h.entityType])
  return {
    start,
    count: Math.min(count, Math.max(0, hits.length - start)),
    total: hits.length,
    filtered: 0,
    relationships: hits.slice(start, start + count).map((h) => ({type: h.relationship, entity: stub(h.urn), degree: 1, isManual: false, paths: [{path: h.path.map((u) => stub(u))}]})),
  }
}
