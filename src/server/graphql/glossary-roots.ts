/** Resolvers of glossary-roots.graphql. */
import {BadRequestError} from '../../errors.js'
import {type GqlContext, SCAN_COST, spendResults, stub} from './context.js'
import type {Resolver} from './entities.js'

type Obj = Record<string, any>

async function roots(ctx: GqlContext, entityType: string, infoAspect: string, input: Obj): Promise<{items: unknown[]; start: number; count: number; total: number}> {
  const {start, count} = input
  if (!Number.isInteger(start) || start < 0) throw new BadRequestError(`start must be a whole number >= 0, got ${String(start)}`)
  if (!Number.isInteger(count) || count < 0 || count > 10_000) throw new BadRequestError(`count must be a whole number from 0 to 10000, got ${String(count)}`)
  // The search lists the type without its soft-deleted members, in a stable order.
  spendResults(ctx, SCAN_COST)
  const all = await ctx.catalog.search({types: [entityType], query: '*', start: 0, count: 1_000_000})
  const infos = await ctx.catalog.readEntities(all.hits.map((h) => h.urn), [infoAspect])
  const top = all.hits.filter((h) => typeof (infos.get(h.urn)?.aspects[infoAspect]?.value as Obj | undefined)?.parentNode !== 'string')
  const page = top.slice(start, start + count)
  return {items: page.map((h) => stub(h.urn, entityType)), start, count: page.length, total: top.length}
}

export const GLOSSARY_ROOT_QUERY_FIELDS: Record<string, Resolver> = {
  getRootGlossaryTerms: async (_r, {input}: {input: Obj}, ctx) => {
    const {items, ...p} = await roots(ctx, 'glossaryTerm', 'glossaryTermInfo', input)
    return {terms: items, ...p}
  },
  getRootGlossaryNodes: async (_r, {input}: {input: Obj}, ctx) => {
    const {items, ...p} = await roots(ctx, 'glossaryNode', 'glossaryNodeInfo', input)
    return {nodes: items, ...p}
  },
}
