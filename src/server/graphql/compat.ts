/**
 * Resolvers of compat.graphql: DataHub's older field names and the list and autocomplete
 * queries of its web app, on the catalog's search.
 */
import {BadRequestError} from '../../errors.js'
import {GQL_TYPE_NAME, type Resolver} from './entities.js'
import {type Ent, type GqlContext, graphqlEntityType, registryType, stub, withEnt} from './context.js'
import * as M from './mappers.js'
import {filterGroups, filtersOnRemoved} from './search.js'
import {resolveFilters} from './search-relations.js'
import type {FacetFilter} from '../../store/types.js'
import {knownPlatform} from '../../model/platforms.js'

type Obj = Record<string, any>
const load = (f: (e: Ent) => unknown): Resolver => (src: Ent, _a, ctx) => withEnt(src, ctx, f)

function page(input: Obj | undefined, def = 20): {start: number; count: number} {
  const start = input?.start ?? 0
  const count = input?.count ?? def
  if (!Number.isInteger(start) || start < 0) throw new BadRequestError(`start must be a whole number >= 0, got ${String(start)}`)
  if (!Number.isInteger(count) || count < 0 || count > 10_000) throw new BadRequestError(`count must be a whole number from 0 to 10000, got ${String(count)}`)
  return {start, count}
}

async function listOf(ctx: GqlContext, type: string, input: Obj | undefined, filters?: FacetFilter[][]): Promise<{start: number; count: number; total: number; items: Ent[]}> {
  const {start, count} = page(input)
  const query = typeof input?.query === 'string' && input.query.trim() !== '' ? input.query : '*'
  const r = await ctx.catalog.search({types: [type], query, start, count, ...(filters ? {filters} : {})})
  return {start, count: r.hits.length, total: r.total, items: r.hits.map((h) => stub(h.urn, h.entityType))}
}

export const display = (aspect: string): Resolver => load((e) => {
  const d = e.aspect('displayProperties') ?? e.aspect(aspect)?.displayProperties
  return d ? {colorHex: d.colorHex ?? null, icon: d.icon ? {iconLibrary: d.icon.iconLibrary === 'MATERIAL' ? 'MATERIAL' : null, name: d.icon.name ?? null, style: d.icon.style ?? null} : null} : null
})

export const COMPAT_TYPE_FIELDS: Record<string, Record<string, Resolver>> = {
  CorpUser: {
    info: load((e) => {
      const p = M.plainProperties(e, 'corpUserInfo')
      return p ? {...p, active: p.active ?? true, manager: p.managerUrn ? stub(p.managerUrn, 'corpuser') : null} : null
    }),
    editableInfo: load((e) => M.plainProperties(e, 'corpUserEditableInfo')),
    // The credentials aspect is a secret that reads never return: asked of the catalog by name.
    isNativeUser: (src: Ent, _a: unknown, ctx: GqlContext) => ctx.catalog.hasNativeCredentials(src.urn),
  },
  CorpGroup: {
    info: load((e) => {
      const g = e.aspect('corpGroupInfo')
      if (!g) return null
      return {
        displayName: g.displayName ?? null,
        description: g.description ?? null,
        email: g.email ?? null,
        admins: (g.admins ?? []).map((u: string) => stub(u, 'corpuser')),
        members: (g.members ?? []).map((u: string) => stub(u, 'corpuser')),
        groups: g.groups ?? [],
      }
    }),
  },
  DataPlatform: {
    info: load((e) => e.aspect('dataPlatformInfo') ?? knownPlatform(e.urn.slice('urn:li:dataPlatform:'.length)) ?? null),
  },
  Domain: {
    displayProperties: display('domainProperties'),
    parentDomains: (src: Ent, _a, ctx) =>
      withEnt(src, ctx, async (e) => {
        const domains: Ent[] = []
        const seen = new Set([e.urn])
        let parent = e.aspect('domainProperties')?.parentDomain as string | undefined
        while (parent && !seen.has(parent) && domains.length < 20) {
          seen.add(parent)
          const p = stub(parent, 'domain')
          domains.push(p)
          const rec = await ctx.loader.load(parent)
          parent = (rec?.aspects.domainProperties?.value as Obj | undefined)?.parentDomain
        }
        return {count: domains.length, domains}
      }),
    deprecation: load((e) => M.deprecation(e.aspect('deprecation'))),
  },
  GlossaryTerm: {
    displayProperties: display('glossaryTermInfo'),
  },
}


async function autoComplete(ctx: GqlContext, type: string, query: string, limit: number, filters: FacetFilter[][]): Promise<{suggestions: string[]; entities: Ent[]}> {
  const q = query.trim()
  if (q === '') return {suggestions: [], entities: []}
  // The input's filters narrow the suggestions as they narrow a search (DataHub builds one filter for both).
  const scope = {types: [type], filters, includeSoftDeleted: filtersOnRemoved(filters)}
  // Whole words first (the index); then names where a word starts with what was typed, from a
  // bounded page of the type, since the index matches whole words only.
  const hits = (await ctx.catalog.search({...scope, query: q, start: 0, count: limit})).hits
  if (hits.length < limit) {
    const prefix = q.toLowerCase()
    const seen = new Set(hits.map((h) => h.urn))
    const wordStart = (name: string) => name.toLowerCase().split(/[^\p{L}\p{N}]+|(?<=\p{Ll})(?=\p{Lu})/u).some((w) => w.startsWith(prefix)) || name.toLowerCase().startsWith(prefix)
    for (const h of (await ctx.catalog.search({...scope, query: '*', start: 0, count: AUTOCOMPLETE_SCAN})).hits) {
      if (hits.length >= limit) break
      if (!seen.has(h.urn) && typeof h.name === 'string' && wordStart(h.name)) hits.push(h)
    }
  }
  const suggestions = [...new Set(hits.map((h) => h.name).filter((n) => typeof n === 'string' && n !== ''))]
  return {suggestions, entities: hits.map((h) => stub(h.urn, h.entityType))}
}

const SERVED = (): string[] => Object.keys(GQL_TYPE_NAME)
/** Names scanned for prefix matches per type and request: bounded, whatever the catalog's size. */
const AUTOCOMPLETE_SCAN = 2000

export const COMPAT_QUERY_FIELDS: Record<string, Resolver> = {
  listDomains: async (_r, {input}: {input: Obj}, ctx) => {
    // DataHub's ListDomainsResolver: the children of parentDomain, or without one the top-level
    // domains only (the domains page and its pickers build the tree level by level from these).
    const parent = typeof input?.parentDomain === 'string' && input.parentDomain !== '' ? input.parentDomain : undefined
    const level: FacetFilter = parent ? {field: 'parentDomain', values: [parent]} : {field: 'parentDomain', values: [], match: 'EXISTS', negated: true}
    const r = await listOf(ctx, 'domain', input, await resolveFilters(ctx, [[level]]))
    return {start: r.start, count: r.count, total: r.total, domains: r.items}
  },
  // DataHub's ListUsersResolver and ListGroupsResolver: Manage Users & Groups, else refused (the
  // app asks them only on its settings pages for identities and tokens, which need it anyway;
  // its owner and member pickers search).
  listUsers: async (_r, {input}: {input: Obj}, ctx) => {
    await ctx.catalog.authorize(ctx.actor, [{privileges: [['MANAGE_USERS_AND_GROUPS']]}])
    const r = await listOf(ctx, 'corpuser', input)
    return {start: r.start, count: r.count, total: r.total, users: r.items}
  },
  listGroups: async (_r, {input}: {input: Obj}, ctx) => {
    await ctx.catalog.authorize(ctx.actor, [{privileges: [['MANAGE_USERS_AND_GROUPS']]}])
    const r = await listOf(ctx, 'corpGroup', input)
    return {start: r.start, count: r.count, total: r.total, groups: r.items}
  },
  getEntityCounts: async (_r, {input}: {input?: Obj}, ctx) => {
    const asked: string[] = Array.isArray(input?.types) && input.types.length > 0 ? input.types.map((t: string) => registryType(t)).filter((t: string | undefined): t is string => !!t) : SERVED()
    const counts = []
    for (const type of asked) {
      const r = await ctx.catalog.search({types: [type], query: '*', start: 0, count: 0})
      counts.push({entityType: graphqlEntityType(type), count: r.total})
    }
    return {counts}
  },
  autoComplete: async (_r, {input}: {input: Obj}, ctx) => {
    const type = input.type ? registryType(input.type) : 'dataset'
    if (!type) throw new BadRequestError(`autoComplete: unknown type ${String(input.type)}`)
    // DataHub's AutoCompleteResolver: a blank query is refused, and five suggestions by default.
    if (typeof input.query !== 'string' || input.query.trim() === '') throw new BadRequestError("'query' parameter can not be null or empty")
    if (input.viewUrn) throw new BadRequestError('Views are not supported by this server; remove viewUrn')
    const filters = await resolveFilters(ctx, filterGroups(input.filters, input.orFilters))
    return {query: input.query, ...(await autoComplete(ctx, type, input.query, input.limit ?? 5, filters))}
  },
  autoCompleteForMultiple: async (_r, {input}: {input: Obj}, ctx) => {
    if (input.viewUrn) throw new BadRequestError('Views are not supported by this server; remove viewUrn')
    const filters = await resolveFilters(ctx, filterGroups(input.filters, input.orFilters))
    const types: string[] = Array.isArray(input.types) && input.types.length > 0 ? input.types.map((t: string) => registryType(t)).filter((t: string | undefined): t is string => !!t && !!GQL_TYPE_NAME[t]) : ['dataset', 'dashboard', 'chart', 'glossaryTerm', 'tag', 'domain', 'container', 'dataFlow', 'dataJob']
    const suggestions = []
    for (const type of types) {
      const r = await autoComplete(ctx, type, input.query, input.limit ?? 10, filters)
      if (r.suggestions.length > 0 || r.entities.length > 0) suggestions.push({type: graphqlEntityType(type), ...r})
    }
    return {query: input.query, suggestions}
  },
}
