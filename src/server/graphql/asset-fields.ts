/**
 * Resolvers of the asset-type fields of asset-fields.graphql that mdcli has data for; the rest of
 * that file's fields are `@empty` (DataHub's empty value).
 */
import {type Ent, type GqlContext, stub, withEnt} from './context.js'
import type {Resolver} from './entities.js'
import {display} from './compat.js'
import {glossaryChildrenCount} from './search-relations.js'

type Obj = Record<string, any>
const load = (f: (e: Ent) => unknown): Resolver => (src: Ent, _a, ctx: GqlContext) => withEnt(src, ctx, f)

export const ASSET_TYPE_FIELDS: Record<string, Record<string, Resolver>> = {
  // A job runs on its flow's orchestrator, as DataHub's mapper answers it.
  DataJob: {platform: (s: Ent) => stub(`urn:li:dataPlatform:${stub(s.key.flow ?? '', 'dataFlow').key.orchestrator ?? 'unknown'}`, 'dataPlatform')},
  // DataHub's own documents sit on its `datahub` platform unless ingested from another.
  Document: {platform: load((e) => stub(e.aspect('dataPlatformInstance')?.platform ?? 'urn:li:dataPlatform:datahub', 'dataPlatform'))},
  CorpGroup: {
    origin: load((e) => {
      const o: Obj | undefined = e.aspect('origin')
      return o ? {type: ['NATIVE', 'EXTERNAL'].includes(o.type) ? o.type : 'UNKNOWN', externalType: o.externalType ?? null} : null
    }),
  },
  GlossaryNode: {displayProperties: display('glossaryNodeInfo'), childrenCount: (s: Ent, _a, ctx: GqlContext) => glossaryChildrenCount(ctx, s.urn)},
}
