/**
 * Resolvers of browse.graphql. A browse gathers the paths of the entities a search selects
 * (type, text, filters; soft-deleted left out) and groups them one level below the asked path;
 * container chains are read once per request.
 */
import type {GraphQLResolveInfo} from 'graphql'
import {BadRequestError} from '../../errors.js'
import {derivedBrowsePath, derivedNamePathV2, type PathEntry} from '../../catalog/browse-paths.js'
import type {EntityRecord} from '../../store/types.js'
import {type Ent, type GqlContext, registryType, SCAN_COST, spendResults, stub, withEnt} from './context.js'
import type {Resolver} from './entities.js'
import {filterGroups, filtersOnRemoved, searchEntities} from './search.js'
import {resolveFilters} from './search-relations.js'

type Obj = Record<string, any>

/** Most entities one browse looks at: a browse past it asks for a filter or a search text. */
const MAX_BROWSE_ENTITIES = 100_000
const BROWSE_ASPECTS = ['browsePaths', 'browsePathsV2', 'container']

function typeOf(gql: string): string {
  const t = registryType(gql)
  if (!t) throw new BadRequestError(`Browsing entity type ${gql} is not supported`)
  return t
}

function pageArgs(input: Obj): {start: number; count: number} {
  const start = input.start ?? 0
  const count = input.count ?? 10
  if (!Number.isInteger(start) || start < 0) throw new BadRequestError(`start must be a whole number >= 0, got ${String(start)}`)
  if (!Number.isInteger(count) || count < 0 || count > 10_000) throw new BadRequestError(`count must be a whole number from 0 to 10000, got ${String(count)}`)
  return {start, count}
}

async function selected(ctx: GqlContext, types: string[], input: Obj): Promise<EntityRecord[]> {
  const q = typeof input.query === 'string' && input.query.trim() !== '' ? input.query : '*'
  spendResults(ctx, SCAN_COST)
  const filters = await resolveFilters(ctx, filterGroups(input.filters, input.orFilters))
  const res = await ctx.catalog.search({
    types,
    query: q,
    start: 0,
    count: MAX_BROWSE_ENTITIES,
    filters,
    includeSoftDeleted: input.searchFlags?.includeSoftDeleted === true || filtersOnRemoved(filters),
  })
  if (res.total > MAX_BROWSE_ENTITIES) throw new BadRequestError(`This browse covers ${res.total} entities, over the ${MAX_BROWSE_ENTITIES} a browse reads; narrow it with a query or filters`)
  const got = await ctx.catalog.readEntities(res.hits.map((h) => h.urn), BROWSE_ASPECTS)
  return res.hits.map((h) => got.get(h.urn) ?? {urn: h.urn, entityType: h.entityType, aspects: {}})
}

const split = (p: string): string[] => p.split('/').filter((x) => x.length > 0)

function v1Paths(rec: EntityRecord): string[][] {
  const ingested = (rec.aspects.browsePaths?.value as Obj | undefined)?.paths
  if (Array.isArray(ingested) && ingested.length > 0) return ingested.filter((p) => typeof p === 'string').map(split)
  return [split(derivedBrowsePath(rec.urn, rec.entityType))]
}

/** Per request: the container chain above each container, top first. */
type ChainCache = Map<string, Promise<string[]>>

function chainCache(ctx: GqlContext): ChainCache {
  const c = ctx as unknown as {browseChains?: ChainCache}
  return (c.browseChains ??= new Map())
}

async function containerChain(ctx: GqlContext, container: string, depth = 0): Promise<string[]> {
  const cache = chainCache(ctx)
  let p = cache.get(container)
  if (!p) {
    p = (async () => {
      // A cycle or an absurd depth ends the chain rather than the request.
      if (depth > 20) return [container]
      const parent = (await ctx.loader.load(container))?.aspects.container?.value as Obj | undefined
      const up = typeof parent?.container === 'string' && parent.container !== container ? await containerChain(ctx, parent.container, depth + 1) : []
      return [...up, container]
    })()
    cache.set(container, p)
  }
  return p
}

async function v2Path(ctx: GqlContext, rec: Pick<EntityRecord, 'urn' | 'entityType' | 'aspects'>): Promise<PathEntry[]> {
  const ingested = (rec.aspects.browsePathsV2?.value as Obj | undefined)?.path
  if (Array.isArray(ingested)) return ingested.filter((x) => typeof x?.id === 'string').map((x) => ({id: x.id, ...(typeof x.urn === 'string' ? {urn: x.urn} : {})}))
  const c = (rec.aspects.container?.value as Obj | undefined)?.container
  if (typeof c === 'string') return (await containerChain(ctx, c)).map((u) => ({id: u, urn: u}))
  return derivedNamePathV2(rec.urn, rec.entityType)
}

const startsWith = (p: string[], prefix: string[]): boolean => prefix.every((x, i) => p[i] === x)

export const BROWSE_QUERY_FIELDS: Record<string, Resolver> = {
  browse: async (_r, {input}: {input: Obj}, ctx) => {
    const {start, count} = pageArgs(input)
    const path: string[] = input.path ?? []
    const recs = await selected(ctx, [typeOf(input.type)], input)
    const here: string[] = []
    const groups = new Map<string, number>()
    let under = 0
    for (const rec of recs) {
      let counted = false
      let atLevel = false
      const seenGroups = new Set<string>()
      for (const p of v1Paths(rec)) {
        if (p.length <= path.length || !startsWith(p, path)) continue
        counted = true
        // The last segment is the entity's own name.
        if (p.length === path.length + 1) atLevel = true
        else seenGroups.add(p[path.length]!)
      }
      if (counted) under++
      if (atLevel) here.push(rec.urn)
      for (const g of seenGroups) groups.set(g, (groups.get(g) ?? 0) + 1)
    }
    const page = here.slice(start, start + count)
    return {
      entities: page.map((u) => stub(u)),
      groups: [...groups.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([name, n]) => ({name, count: n})),
      start,
      count: page.length,
      total: here.length,
      metadata: {path, totalNumEntities: under},
    }
  },

  browsePaths: async (_r, {input}: {input: Obj}, ctx) => {
    typeOf(input.type)
    const rec = await ctx.loader.load(input.urn)
    if (!rec) return null
    return v1Paths(rec).map((path) => ({path}))
  },

  browseV2: async (_r, {input}: {input: Obj}, ctx) => {
    if (input.viewUrn) throw new BadRequestError('Views are not supported by this server; remove viewUrn')
    const {start, count} = pageArgs(input)
    const gqlTypes: string[] = input.types?.length ? input.types : input.type ? [input.type] : []
    if (gqlTypes.length === 0) throw new BadRequestError('browseV2: name the entity types to browse (types)')
    const path: string[] = input.path
    const recs = await selected(ctx, gqlTypes.map(typeOf), input)
    const groups = new Map<string, {urn?: string; count: number; sub: boolean}>()
    let under = 0
    for (const rec of recs) {
      const p = await v2Path(ctx, rec)
      if (p.length < path.length || !path.every((id, i) => p[i]!.id === id)) continue
      under++
      const next = p[path.length]
      if (!next) continue
      const g = groups.get(next.id) ?? {urn: next.urn, count: 0, sub: false}
      g.count++
      if (p.length > path.length + 1) g.sub = true
      groups.set(next.id, g)
    }
    const all = [...groups.entries()].sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : 1))
    const page = all.slice(start, start + count)
    return {
      groups: page.map(([id, g]) => ({name: id, entity: g.urn ? stub(g.urn) : null, count: g.count, hasSubGroups: g.sub})),
      start,
      count: page.length,
      total: all.length,
      metadata: {path, totalNumEntities: under},
    }
  },

  aggregateAcrossEntities: async (_r, {input}: {input: Obj}, ctx, info: GraphQLResolveInfo) => {
    if (input.viewUrn) throw new BadRequestError('Views are not supported by this server; remove viewUrn')
    const types = input.types?.length ? input.types.map(typeOf) : undefined
    const r = await searchEntities(ctx, info, {types, query: input.query, start: 0, count: 0, orFilters: input.orFilters, searchFlags: input.searchFlags, acrossTypes: true})
    const want: string[] | undefined = Array.isArray(input.facets) && input.facets.length > 0 ? input.facets : undefined
    return {facets: (r.facets ?? []).filter((f: Obj) => !want || want.includes(f.field))}
  },
}

/** browsePathV2 on an entity: ingested, from its container chain, or from its name. */
export const browsePathV2Field: Resolver = (src: Ent, _a, ctx) =>
  withEnt(src, ctx, async (e) => {
    if (!e.rec) return null
    const p = await v2Path(ctx, e.rec)
    return {path: p.map((x) => ({name: x.id, entity: x.urn ? stub(x.urn) : null}))}
  })
