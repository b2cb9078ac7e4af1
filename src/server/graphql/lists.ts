/** Resolvers of lists.graphql. */
import {BadRequestError} from '../../errors.js'
import {SYSTEM_OWNERSHIP_TYPE_PREFIX} from '../../catalog/edits/index.js'
import {ALL_PRIVILEGES} from '../../catalog/access/privileges.js'
import {type Ent, type GqlContext, stub} from './context.js'
import type {Resolver} from './entities.js'
import {systemOwnershipTypeInfo} from './mappers.js'

type Obj = Record<string, any>

// DataHub boots these four; the deprecated enum values have no entity of their own.
const SYSTEM_TYPES = ['technical_owner', 'business_owner', 'data_steward', 'none'].map((t) => SYSTEM_OWNERSHIP_TYPE_PREFIX + t)

function page(input: Obj, def = 20): {start: number; count: number} {
  const start = input.start ?? 0
  const count = input.count ?? def
  if (!Number.isInteger(start) || start < 0) throw new BadRequestError(`start must be a whole number >= 0, got ${String(start)}`)
  if (!Number.isInteger(count) || count < 0 || count > 10_000) throw new BadRequestError(`count must be a whole number from 0 to 10000, got ${String(count)}`)
  return {start, count}
}

/** Loads the entities, keeps those whose name matches the query, and cuts the page. */
/**
 * The `orFilters` of a list input (an OR of AND-groups) as a predicate, over the fields `fields`
 * gives of an entity; a filter on another field is refused, so nothing is silently unfiltered.
 */
function orFilter(orFilters: Obj[] | null | undefined, fields: (e: Ent) => Record<string, string | number | undefined>, what: string): ((e: Ent) => boolean) | undefined {
  const groups = (orFilters ?? []).filter((g) => (g.and ?? []).length > 0)
  if (groups.length === 0) return undefined
  return (e) =>
    groups.some((g) =>
      (g.and as Obj[]).every((c) => {
        const have = fields(e)
        if (!(c.field in have)) throw new BadRequestError(`${what} filters on ${Object.keys(have).join(' and ')} only, not ${c.field}`)
        const values: string[] = c.values ?? (c.value != null ? [c.value] : [])
        const v = have[c.field]
        const cond = c.condition ?? 'EQUAL'
        let hit: boolean
        if (v === undefined) hit = false
        else if (cond === 'GREATER_THAN') hit = values.some((w) => Number(v) > Number(w))
        else if (cond === 'LESS_THAN') hit = values.some((w) => Number(v) < Number(w))
        else if (cond === 'EQUAL' || cond === 'IN') hit = values.includes(String(v))
        else throw new BadRequestError(`${what} filters with EQUAL, IN, GREATER_THAN or LESS_THAN, not ${cond}`)
        return c.negated === true ? !hit : hit
      }),
    )
}

async function listed(ctx: GqlContext, urns: string[], input: Obj, name: (e: Ent) => string, keep?: (e: Ent) => boolean): Promise<{start: number; count: number; total: number; items: Ent[]}> {
  const {start, count} = page(input)
  const recs = await Promise.all(urns.map((u) => ctx.loader.load(u)))
  const q = typeof input.query === 'string' ? input.query.trim().toLowerCase() : ''
  const all = urns
    .map((u, i) => {
      const e = stub(u)
      e.rec = recs[i]
      return e
    })
    .filter((e) => !q || name(e).toLowerCase().includes(q) || e.urn.toLowerCase().includes(q))
    .filter((e) => !keep || keep(e))
    .sort((a, b) => name(a).localeCompare(name(b)) || a.urn.localeCompare(b.urn))
  const items = all.slice(start, start + count)
  return {start, count: items.length, total: all.length, items}
}

const emptyViews = (_r: unknown, {input}: {input: Obj}) => ({...page(input), count: 0, total: 0, views: []})

export const LIST_QUERY_FIELDS: Record<string, Resolver> = {
  listOwnershipTypes: async (_r, {input}: {input: Obj}, ctx) => {
    const custom = (await ctx.catalog.listUrns('ownershipType')).filter((u) => !SYSTEM_TYPES.includes(u))
    const r = await listed(ctx, [...SYSTEM_TYPES, ...custom], input, (e) => systemOwnershipTypeInfo(e.urn)?.name ?? e.aspect('ownershipTypeInfo')?.name ?? e.urn)
    return {start: r.start, count: r.count, total: r.total, ownershipTypes: r.items}
  },
  listRoles: async (_r, {input}: {input: Obj}, ctx) => {
    const r = await listed(ctx, await ctx.catalog.listUrns('dataHubRole'), input, (e) => e.aspect('dataHubRoleInfo')?.name ?? e.urn)
    return {start: r.start, count: r.count, total: r.total, roles: r.items}
  },
  listPosts: async (_r, {input}: {input: Obj}, ctx) => {
    const keep = orFilter(input.orFilters, (e) => ({type: e.aspect('postInfo')?.type, urn: e.urn, lastModified: e.aspect('postInfo')?.lastModified}), 'listPosts')
    const r = await listed(ctx, await ctx.catalog.listUrns('post'), input, (e) => e.aspect('postInfo')?.content?.title ?? e.urn, keep)
    return {start: r.start, count: r.count, total: r.total, posts: r.items}
  },
  listMyViews: emptyViews,
  listGlobalViews: emptyViews,
  getGrantedPrivileges: async (_r, {input}: {input: Obj}, ctx) => {
    // Who holds what is itself sensitive: your own, or with the right to manage policies.
    if (input.actorUrn !== ctx.actor.urn) await ctx.catalog.authorize(ctx.actor, [{privileges: [['MANAGE_POLICIES']]}])
    const granted = await ctx.catalog.grantedPrivileges({urn: input.actorUrn}, input.resourceSpec?.resourceUrn ?? undefined)
    const list = granted.has('*') ? [...ALL_PRIVILEGES] : [...granted]
    return {privileges: list.sort()}
  },
}
