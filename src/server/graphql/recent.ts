/** Resolver of recent.graphql: `recentlyChanged`, from the server's change log. */
import {BadRequestError} from '../../errors.js'
import {GQL_TYPE_NAME, type Resolver} from './entities.js'
import {stub} from './context.js'

const MAX = 100

/** Entity types a person means by "data assets"; users, groups, policies, tokens and the like are not. */
const ASSET_TYPES = new Set([
  'dataset', 'chart', 'dashboard', 'dataJob', 'dataFlow', 'container', 'mlModel', 'mlModelGroup', 'mlFeature', 'mlFeatureTable',
  'mlPrimaryKey', 'notebook', 'glossaryTerm', 'glossaryNode', 'tag', 'domain', 'dataProduct',
])
/** Aspects ingestion writes for its own bookkeeping (stateful ingestion's checkpoints, run summaries). */
const SYSTEM_ASPECT = /^datahubIngestion/

export const RECENT_QUERY_FIELDS: Record<string, Resolver> = {
  recentlyChanged: async (_r, {count, assetsOnly}: {count?: number | null; assetsOnly?: boolean | null}, ctx) => {
    const n = count ?? 10
    if (!Number.isInteger(n) || n < 0 || n > MAX) throw new BadRequestError(`recentlyChanged: count must be between 0 and ${MAX}, got ${n}`)
    if (!ctx.changeLog || n === 0) return []
    const out = []
    // A few more than asked, since deleted entities and types without a GraphQL type are skipped.
    for (const c of ctx.changeLog.recentEntities(assetsOnly ? n * 10 + 100 : n * 2 + 10)) {
      const urn = c.mcl.entityUrn
      if (!GQL_TYPE_NAME[c.mcl.entityType]) continue
      if (assetsOnly && (!ASSET_TYPES.has(c.mcl.entityType) || SYSTEM_ASPECT.test(c.mcl.aspectName ?? ''))) continue
      if (!(await ctx.catalog.exists(urn))) continue
      out.push({entity: stub(urn), time: c.mcl.created.time, actor: c.mcl.created.actor, aspectName: c.mcl.aspectName ?? null, changeType: c.mcl.changeType})
      if (out.length === n) break
    }
    return out
  },
}
