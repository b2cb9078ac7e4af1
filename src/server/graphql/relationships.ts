/** Resolver of relationships.graphql: one page of an entity's edges (catalog/relationships.ts). */
import {BadRequestError, UnauthorizedError} from '../../errors.js'
import {relationshipsOf} from '../../catalog/relationships.js'
import {type Ent, type GqlContext, stub} from './context.js'
import type {Resolver} from './entities.js'

type Obj = Record<string, any>

export const relationshipsField: Resolver = async (src: Ent, {input}: {input: Obj}, ctx) => {
  const start = input.start ?? 0
  const count = input.count ?? 100
  if (!Number.isInteger(start) || start < 0) throw new BadRequestError(`relationships: start must be a whole number >= 0, got ${String(start)}`)
  if (!Number.isInteger(count) || count < 0 || count > 10_000) throw new BadRequestError(`relationships: count must be a whole number from 0 to 10000, got ${String(count)}`)
  let edges = await relationshipsOf(ctx.catalog, src.urn, {types: input.types, direction: input.direction, includeSoftDeleted: input.includeSoftDelete === true})
  const related: unknown = input.relatedEntityTypes
  if (Array.isArray(related) && related.length > 0) edges = edges.filter((e) => related.includes(stub(e.urn).entityType))
  // A policy's content is for those who may manage policies (entities-more.ts): to anyone else a
  // role shows no policies, rather than policies whose every field is refused (the web app asks a
  // role's policies on pages every user opens).
  if (edges.some((e) => stub(e.urn).entityType === 'dataHubPolicy') && !(await mayReadPolicies(ctx))) edges = edges.filter((e) => stub(e.urn).entityType !== 'dataHubPolicy')
  const page = edges.slice(start, start + count)
  return {
    start,
    count: page.length,
    total: edges.length,
    relationships: page.map((e) => ({type: e.type, direction: input.direction, entity: stub(e.urn), created: null})),
  }
}

async function mayReadPolicies(ctx: GqlContext): Promise<boolean> {
  try {
    await ctx.catalog.authorize(ctx.actor, [{privileges: [['MANAGE_POLICIES']]}])
    return true
  } catch (e) {
    if (e instanceof UnauthorizedError) return false
    throw e
  }
}
