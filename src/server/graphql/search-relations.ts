/**
 * Search filters on relations the search documents do not hold: `parentDomain` (a domain's parent
 * domain) and `parentNode` (a glossary term's or node's parent node), which DataHub's app sends
 * for the domains page (`parentDomain` EXISTS, negated: the top-level domains) and a glossary
 * node's contents (`parentNode` = the node). They become `urn` filters, from one read of the
 * parents of every domain or glossary entity (a request reads them once, however many filters
 * name them). The domain-tree conditions (DESCENDANTS_INCL, ANCESTORS_INCL, RELATED_INCL) on
 * `domains` and `parentDomain` expand their values over the same tree.
 *
 * Two attributes of users and groups are read the same way: `active` (a user's
 * corpUserInfo.active) and `displayName` (a user's or a group's), which the app's owner and
 * member pickers filter on (`active` = true, or `displayName` EXISTS).
 */
import {type FacetFilter, facetValueMatches} from '../../store/types.js'
import {type GqlContext, SCAN_COST, spendResults} from './context.js'

/** A filter as the store takes it, with a GraphQL condition the store does not know kept aside. */
export type PendingFilter = FacetFilter & {condition?: string}

type Obj = Record<string, any>

const RELATIONS: Record<string, Array<{type: string; aspect: string; key: string}>> = {
  parentDomain: [{type: 'domain', aspect: 'domainProperties', key: 'parentDomain'}],
  parentNode: [
    {type: 'glossaryTerm', aspect: 'glossaryTermInfo', key: 'parentNode'},
    {type: 'glossaryNode', aspect: 'glossaryNodeInfo', key: 'parentNode'},
  ],
  active: [{type: 'corpuser', aspect: 'corpUserInfo', key: 'active'}],
  displayName: [
    {type: 'corpuser', aspect: 'corpUserInfo', key: 'displayName'},
    {type: 'corpGroup', aspect: 'corpGroupInfo', key: 'displayName'},
  ],
}

/** Child urn → parent urn (children without a parent are listed with undefined). */
type Parents = Map<string, string | undefined>

const cache = new WeakMap<GqlContext, Map<string, Promise<Parents>>>()

function parentsOf(ctx: GqlContext, relation: string): Promise<Parents> {
  let perCtx = cache.get(ctx)
  if (!perCtx) cache.set(ctx, (perCtx = new Map()))
  let p = perCtx.get(relation)
  if (!p) {
    p = (async () => {
      spendResults(ctx, SCAN_COST)
      const out: Parents = new Map()
      for (const r of RELATIONS[relation]!) {
        const all = await ctx.catalog.search({types: [r.type], query: '*', start: 0, count: 1_000_000, includeSoftDeleted: true})
        const stored = await ctx.catalog.entitiesAsStored(all.hits.map((h) => h.urn), [r.aspect])
        for (const h of all.hits) {
          const parent = (stored.get(h.urn)?.aspects[r.aspect]?.value as Obj | undefined)?.[r.key]
          out.set(h.urn, typeof parent === 'string' && parent !== '' ? parent : typeof parent === 'boolean' ? String(parent) : undefined)
        }
      }
      return out
    })()
    perCtx.set(relation, p)
  }
  return p
}

/** The values with their subdomains (down), parent domains (up), or both. */
async function domainTree(ctx: GqlContext, values: string[], condition: string): Promise<string[]> {
  const parents = await parentsOf(ctx, 'parentDomain')
  const out = new Set(values)
  if (condition === 'ANCESTORS_INCL' || condition === 'RELATED_INCL') {
    for (const v of values) {
      let cur = parents.get(v)
      // Bounded: a cycle in stored data must not loop.
      for (let i = 0; cur && !out.has(cur) && i < 1000; i++, cur = parents.get(cur)) out.add(cur)
    }
  }
  if (condition === 'DESCENDANTS_INCL' || condition === 'RELATED_INCL') {
    const children = new Map<string, string[]>()
    for (const [c, p] of parents) if (p) children.set(p, [...(children.get(p) ?? []), c])
    const queue = [...values]
    while (queue.length > 0) {
      for (const c of children.get(queue.pop()!) ?? []) {
        if (out.has(c)) continue
        out.add(c)
        queue.push(c)
      }
    }
  }
  return [...out]
}

async function resolveOne(ctx: GqlContext, f: PendingFilter): Promise<FacetFilter> {
  const {condition, ...rest} = f
  let values = rest.values
  if (condition) values = await domainTree(ctx, values, condition)
  if (!RELATIONS[f.field]) return {...rest, values}
  const parents = await parentsOf(ctx, f.field)
  const matches = facetValueMatches(condition ? 'EQUAL' : f.match, values)
  const urns: string[] = []
  for (const [child, parent] of parents) if (parent !== undefined && matches(parent)) urns.push(child)
  return {field: 'urn', values: urns, negated: f.negated === true}
}

/** The filter groups with relation fields and domain-tree conditions resolved for the store. */
export async function resolveFilters(ctx: GqlContext, groups: PendingFilter[][]): Promise<FacetFilter[][]> {
  if (!groups.some((g) => g.some((f) => f.condition || RELATIONS[f.field]))) return groups
  return Promise.all(groups.map((g) => Promise.all(g.map((f) => resolveOne(ctx, f)))))
}

/**
 * `GlossaryNode.childrenCount`: the node's live terms and nodes (the glossary pages' group cards).
 * The parents are read once per request, however many nodes a page shows.
 */
export async function glossaryChildrenCount(ctx: GqlContext, node: string): Promise<{termsCount: number; nodesCount: number}> {
  const parents = await parentsOf(ctx, 'parentNode')
  const children: string[] = []
  for (const [child, parent] of parents) if (parent === node) children.push(child)
  if (children.length === 0) return {termsCount: 0, nodesCount: 0}
  // Soft-deleted children are in the parents' map; the search leaves them out of its totals.
  const live = async (type: string) => (await ctx.catalog.search({types: [type], query: '*', start: 0, count: 0, filters: [[{field: 'urn', values: children}]]})).total
  const [termsCount, nodesCount] = await Promise.all([live('glossaryTerm'), live('glossaryNode')])
  return {termsCount, nodesCount}
}

/** `Dataset.siblingsSearch`: mdcli keeps no sibling entities, so the search over them is empty. */
export const siblingsSearchField = () => ({nextScrollId: null, count: 0, total: 0, searchResults: [], facets: []})
