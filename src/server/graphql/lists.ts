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
async function listed(ctx: GqlContext, urns: string[], input: Obj, name: (e: Ent) => string): Promise<{start: number; count: number; total: number; items: Ent[]}> {
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
    const r = await listed(ctx, await ctx.catalog.listUrns('post'), input, (e) => e.aspect('postInfo')?.content?.title ?? e.urn)
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
