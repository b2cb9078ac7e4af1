/**
 * Resolvers of the entity types and of the getters that read them by urn.
 *
 * Every entity type's source object is an `Ent`. Fields shared by many types (ownership, tags,
 * status, …) resolve the same way everywhere (COMMON); each type adds its own (properties,
 * key-derived names, …). Resolvers stay synchronous when the entity's aspects are at hand, which
 * keeps execution cheap for the common case of one entity and its nested plain objects.
 */
import {derivedBrowsePath} from '../../catalog/browse-paths.js'
import type {GraphQLResolveInfo} from 'graphql'
import {BadRequestError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import {Ent, type GqlContext, graphqlEntityType, stub, stubOrNull, withEnt} from './context.js'
import * as M from './mappers.js'
import {searchEntities} from './search.js'
import {fineGrainedLineages} from './lineage.js'
import {knownPlatform} from '../../model/platforms.js'
import {MORE_GQL_TYPE_NAME} from './entities-more-names.js'

export type Resolver = (source: any, args: any, ctx: GqlContext, info: GraphQLResolveInfo) => unknown

type Obj = Record<string, any>

/** An ML feature's or primary key's properties, its source datasets as entities (the aspect holds their urns). */
function mlSourcedProperties(e: Ent, aspectName: string): Record<string, any> | null {
  const p = M.plainProperties(e, aspectName)
  if (!p) return null
  return {...p, sources: Array.isArray(p.sources) ? p.sources.filter((u: unknown) => typeof u === 'string').map((u: string) => stub(u, 'dataset')) : []}
}

/** An ML model's properties, the groups it belongs to as entities (the aspect holds their urns). */
function mlModelProperties(e: Ent): Record<string, any> | null {
  const p = M.plainProperties(e, 'mlModelProperties')
  if (!p) return null
  return {...p, groups: Array.isArray(p.groups) ? p.groups.filter((u: unknown) => typeof u === 'string').map((u: string) => stub(u, 'mlModelGroup')) : null}
}

/** GraphQL object type of each registry entity type served here. */
export const GQL_TYPE_NAME: Record<string, string> = {
  dataset: 'Dataset',
  container: 'Container',
  dashboard: 'Dashboard',
  chart: 'Chart',
  dataFlow: 'DataFlow',
  dataJob: 'DataJob',
  domain: 'Domain',
  glossaryTerm: 'GlossaryTerm',
  glossaryNode: 'GlossaryNode',
  tag: 'Tag',
  notebook: 'Notebook',
  corpuser: 'CorpUser',
  corpGroup: 'CorpGroup',
  dataPlatform: 'DataPlatform',
  dataPlatformInstance: 'DataPlatformInstance',
  mlModel: 'MLModel',
  mlModelGroup: 'MLModelGroup',
  mlFeature: 'MLFeature',
  mlFeatureTable: 'MLFeatureTable',
  mlPrimaryKey: 'MLPrimaryKey',
  ownershipType: 'OwnershipTypeEntity',
  dataHubAccessToken: 'AccessTokenMetadata',
  ...MORE_GQL_TYPE_NAME,
}

/** A field that needs the entity's aspects. */
const load =
  (f: (e: Ent, args: any, ctx: GqlContext) => unknown): Resolver =>
  (src: Ent, args, ctx) =>
    withEnt(src, ctx, (e) => f(e, args, ctx))

const editable = (aspectName: string): Resolver => load((e) => e.aspect(aspectName) ?? null)

async function parentChain(e: Ent, ctx: GqlContext, next: (x: Ent) => string | undefined): Promise<Ent[]> {
  const out: Ent[] = []
  const seen = new Set<string>([e.urn])
  let cur = next(e)
  // Bounded: a cycle or a very deep chain in stored data must not hang a request.
  while (cur && !seen.has(cur) && out.length < 50) {
    seen.add(cur)
    const p = stub(cur)
    p.rec = await ctx.loader.load(cur)
    out.push(p)
    cur = next(p)
  }
  return out
}

const parentContainers: Resolver = (src: Ent, _a, ctx) =>
  withEnt(src, ctx, async (e) => {
    const containers = await parentChain(e, ctx, (x) => x.aspect('container')?.container)
    return {count: containers.length, containers}
  })

const parentNodes: Resolver = (src: Ent, _a, ctx) =>
  withEnt(src, ctx, async (e) => {
    const nodes = await parentChain(e, ctx, (x) => (x.aspect('glossaryTermInfo') ?? x.aspect('glossaryNodeInfo'))?.parentNode)
    return {count: nodes.length, nodes}
  })

/** Fields every entity type resolves alike (each type has the ones its SDL declares). */
export const COMMON_FIELDS: Record<string, Resolver> = {
  urn: (s: Ent) => s.urn,
  type: (s: Ent) => graphqlEntityType(s.entityType),
  exists: load((e) => e.rec !== null),
  lastIngested: load(M.lastIngested),
  ownership: load((e) => M.ownership(e.aspect('ownership'), e.urn)),
  tags: load((e) => M.globalTags(e.aspect('globalTags'), e.urn)),
  globalTags: load((e) => M.globalTags(e.aspect('globalTags'), e.urn)),
  glossaryTerms: load((e) => M.glossaryTerms(e.aspect('glossaryTerms'), e.urn)),
  domain: load((e) => M.domain(e.aspect('domains'), e.urn)),
  // Datasets may still carry the legacy datasetDeprecation aspect; DataHub maps both.
  deprecation: load((e) => M.deprecation(e.aspect('deprecation') ?? e.aspect('datasetDeprecation'))),
  status: load((e) => M.status(e.aspect('status'))),
  institutionalMemory: load((e) => M.institutionalMemory(e.aspect('institutionalMemory'), e.urn)),
  subTypes: load((e) => M.subTypes(e.aspect('subTypes'))),
  // DataHub answers a default path where none was ingested.
  browsePaths: load((e) => M.browsePaths(e.aspect('browsePaths')) ?? (e.rec ? M.browsePaths({paths: [derivedBrowsePath(e.urn, e.entityType)]}) : null)),
  container: load((e) => stubOrNull(e.aspect('container')?.container, 'container')),
  parentContainers,
  parentNodes,
  dataPlatformInstance: load((e) => stubOrNull(e.aspect('dataPlatformInstance')?.instance, 'dataPlatformInstance')),
  aspects: load((e, args) => M.rawAspects(e, args.input?.aspectNames, args.input?.autoRenderOnly === true)),
}

const platformOf = (key: string | undefined): Ent => stub(`urn:li:dataPlatform:${key ?? 'unknown'}`, 'dataPlatform')

const schemaMetadata: Resolver = (src: Ent, args, ctx) => {
  const version = args.version ?? 0
  if (!Number.isInteger(version) || version < 0) throw new BadRequestError(`schemaMetadata(version:) must be a whole number >= 0, got ${version}`)
  if (version === 0) return withEnt(src, ctx, (e) => M.schemaMetadata(e.aspect('schemaMetadata'), e.urn, 0))
  return ctx.catalog.readAspect(src.urn, 'schemaMetadata', version).then((a) => (a ? M.schemaMetadata(a.value as Obj, src.urn, version) : null))
}

function changeStamps(c: Obj | undefined): Obj | null {
  if (!c) return null
  const opt = (x: Obj | undefined) => (x ? M.auditStamp(x) : null)
  // DataHub's ChangeAuditStamps record defaults both stamps to time 0 by urn:li:corpuser:unknown.
  const unknown = {time: 0, actor: 'urn:li:corpuser:unknown'}
  return {created: M.auditStamp(c.created ?? unknown), lastModified: M.auditStamp(c.lastModified ?? unknown), deleted: opt(c.deleted)}
}

/** A stored notebook cell (one of textCell, queryCell, chartCell, by `type`). */
function notebookCell(c: Obj): Obj {
  const base = (x: Obj | undefined) => (x ? {cellTitle: x.cellTitle ?? null, cellId: x.cellId ?? '', changeAuditStamps: changeStamps(x.changeAuditStamps)} : null)
  return {
    type: c.type,
    textCell: c.textCell ? {...base(c.textCell), text: c.textCell.text ?? ''} : null,
    queryCell: c.queryCell ? {...base(c.queryCell), rawQuery: c.queryCell.rawQuery ?? '', lastExecuted: c.queryCell.lastExecuted ? M.auditStamp(c.queryCell.lastExecuted) : null} : null,
    chartCell: base(c.chartCell),
  }
}

const ML_DESCRIPTION = (aspectName: string): Resolver => load((e) => e.aspect(aspectName)?.description ?? null)

/** Fields particular to each type. */
export const TYPE_FIELDS: Record<string, Record<string, Resolver>> = {
  Dataset: {
    name: (s: Ent) => s.key.name,
    platform: (s: Ent) => stub(s.key.platform ?? 'urn:li:dataPlatform:unknown', 'dataPlatform'),
    origin: (s: Ent) => s.key.origin,
    description: load((e) => e.aspect('datasetProperties')?.description ?? null),
    properties: load(M.datasetProperties),
    editableProperties: editable('editableDatasetProperties'),
    schemaMetadata,
    editableSchemaMetadata: load((e) => M.editableSchemaMetadata(e.aspect('editableSchemaMetadata'), e.urn)),
    viewProperties: load((e) => {
      const v = e.aspect('viewProperties')
      return v ? {materialized: v.materialized, logic: v.viewLogic, formattedLogic: v.formattedViewLogic ?? null, language: v.viewLanguage} : null
    }),
  },
  Container: {
    entities: (s: Ent, args, ctx, info) => {
      const input = args.input ?? {}
      return searchEntities(ctx, info, {query: input.query ?? '*', start: input.start, count: input.count, filters: input.filters ?? undefined, extraFilter: {field: 'container', values: [s.urn]}})
    },
    platform: load((e) => stub(e.aspect('dataPlatformInstance')?.platform ?? 'urn:li:dataPlatform:unknown', 'dataPlatform')),
    properties: load((e) => M.plainProperties(e, 'containerProperties')),
    editableProperties: editable('editableContainerProperties'),
  },
  Dashboard: {
    tool: (s: Ent) => s.key.dashboardTool,
    dashboardId: (s: Ent) => s.key.dashboardId,
    platform: (s: Ent) => platformOf(s.key.dashboardTool),
    properties: load((e) => M.biProperties(e, 'dashboardInfo')),
    editableProperties: editable('editableDashboardProperties'),
  },
  Chart: {
    tool: (s: Ent) => s.key.dashboardTool,
    chartId: (s: Ent) => s.key.chartId,
    platform: (s: Ent) => platformOf(s.key.dashboardTool),
    properties: load((e) => M.biProperties(e, 'chartInfo')),
    editableProperties: editable('editableChartProperties'),
    query: load((e) => e.aspect('chartQuery') ?? null),
  },
  DataFlow: {
    orchestrator: (s: Ent) => s.key.orchestrator,
    flowId: (s: Ent) => s.key.flowId,
    cluster: (s: Ent) => s.key.cluster,
    platform: (s: Ent) => platformOf(s.key.orchestrator),
    properties: load((e) => M.plainProperties(e, 'dataFlowInfo')),
    editableProperties: editable('editableDataFlowProperties'),
  },
  DataJob: {
    dataFlow: (s: Ent) => stubOrNull(s.key.flow, 'dataFlow'),
    jobId: (s: Ent) => s.key.jobId,
    properties: load((e) => M.plainProperties(e, 'dataJobInfo')),
    editableProperties: editable('editableDataJobProperties'),
    inputOutput: load((e) => {
      const io = e.aspect('dataJobInputOutput')
      if (!io) return null
      const stubs = (l: unknown) => (Array.isArray(l) ? l.map((u: string) => stub(u)) : null)
      return {inputDatasets: stubs(io.inputDatasets), outputDatasets: stubs(io.outputDatasets), inputDatajobs: stubs(io.inputDatajobs), fineGrainedLineages: Array.isArray(io.fineGrainedLineages) ? fineGrainedLineages(io.fineGrainedLineages) : null}
    }),
  },
  Notebook: {
    tool: (s: Ent) => s.key.notebookTool,
    notebookId: (s: Ent) => s.key.notebookId,
    platform: (s: Ent) => platformOf(s.key.notebookTool),
    info: load((e) => {
      const p = M.plainProperties(e, 'notebookInfo')
      if (!p) return null
      const c = p.changeAuditStamps ?? {}
      return {...p, changeAuditStamps: {created: c.created ? M.auditStamp(c.created) : null, lastModified: c.lastModified ? M.auditStamp(c.lastModified) : null, deleted: c.deleted ? M.auditStamp(c.deleted) : null}}
    }),
    editableProperties: editable('editableNotebookProperties'),
    content: load((e) => ({cells: (e.aspect('notebookContent')?.cells ?? []).map(notebookCell)})),
  },
  Domain: {
    id: (s: Ent) => s.key.id,
    properties: load((e) => e.aspect('domainProperties') ?? null),
    entities: (s: Ent, args, ctx, info) => {
      const input = args.input ?? {}
      return searchEntities(ctx, info, {
        query: input.query ?? '*',
        start: input.start,
        count: input.count,
        filters: input.filters ?? undefined,
        extraFilter: {field: 'domains', values: [s.urn]},
      })
    },
  },
  Tag: {
    name: (s: Ent) => s.key.name,
    properties: load((e) => e.aspect('tagProperties') ?? null),
    description: load((e) => e.aspect('tagProperties')?.description ?? null),
  },
  GlossaryTerm: {
    name: (s: Ent) => M.glossaryShortName(s.key.name),
    hierarchicalName: (s: Ent) => s.key.name,
    properties: load((e) => {
      const p = e.aspect('glossaryTermInfo')
      if (!p) return null
      return {
        name: p.name ?? M.glossaryShortName(e.key.name),
        description: p.definition ?? null,
        definition: p.definition ?? '',
        termSource: p.termSource ?? 'INTERNAL',
        sourceRef: p.sourceRef ?? null,
        sourceUrl: p.sourceUrl ?? null,
        customProperties: M.customProperties(p.customProperties, e.urn),
        rawSchema: p.rawSchema ?? null,
      }
    }),
  },
  GlossaryNode: {
    properties: load((e) => {
      const p = e.aspect('glossaryNodeInfo')
      return p ? {name: p.name ?? e.key.name, description: p.definition ?? null, customProperties: M.customProperties(p.customProperties, e.urn)} : null
    }),
  },
  CorpUser: {
    username: (s: Ent) => s.key.username,
    properties: load((e) => {
      const p = M.plainProperties(e, 'corpUserInfo')
      return p ? {...p, manager: stubOrNull(p.managerUrn, 'corpuser')} : null
    }),
    // persona and platforms are urns in the aspect, entities in GraphQL.
    editableProperties: load((e) => {
      const v = e.aspect('corpUserEditableInfo') as Record<string, any> | undefined
      if (!v) return null
      return {...v, persona: v.persona ? {urn: v.persona} : null, platforms: Array.isArray(v.platforms) ? v.platforms.map((u: string) => stub(u, 'dataPlatform')) : null}
    }),
    status: load((e) => {
      const s = e.aspect('corpUserStatus')?.status
      // Other strings (written by ingestion) have no GraphQL value.
      return s === 'ACTIVE' || s === 'SUSPENDED' ? s : null
    }),
  },
  CorpGroup: {
    name: (s: Ent) => s.key.name,
    properties: load((e) => e.aspect('corpGroupInfo') ?? null),
    editableProperties: editable('corpGroupEditableInfo'),
  },
  DataPlatform: {
    name: (s: Ent) => s.key.platformName,
    properties: load((e) => e.aspect('dataPlatformInfo') ?? knownPlatform(e.urn.slice('urn:li:dataPlatform:'.length)) ?? null),
    displayName: load((e) => e.aspect('dataPlatformInfo')?.displayName ?? knownPlatform(e.urn.slice('urn:li:dataPlatform:'.length))?.displayName ?? null),
  },
  DataPlatformInstance: {
    platform: (s: Ent) => stub(s.key.platform ?? 'urn:li:dataPlatform:unknown', 'dataPlatform'),
    instanceId: (s: Ent) => s.key.instance,
    properties: load((e) => M.plainProperties(e, 'dataPlatformInstanceProperties')),
  },
  MLModel: {
    name: (s: Ent) => s.key.name,
    platform: (s: Ent) => stub(s.key.platform ?? 'urn:li:dataPlatform:unknown', 'dataPlatform'),
    origin: (s: Ent) => s.key.origin,
    description: ML_DESCRIPTION('mlModelProperties'),
    properties: load((e) => mlModelProperties(e)),
    editableProperties: editable('editableMLModelProperties'),
  },
  MLModelGroup: {
    name: (s: Ent) => s.key.name,
    platform: (s: Ent) => stub(s.key.platform ?? 'urn:li:dataPlatform:unknown', 'dataPlatform'),
    origin: (s: Ent) => s.key.origin,
    description: ML_DESCRIPTION('mlModelGroupProperties'),
    properties: load((e) => M.plainProperties(e, 'mlModelGroupProperties')),
    editableProperties: editable('editableMLModelGroupProperties'),
  },
  MLFeature: {
    name: (s: Ent) => s.key.name,
    featureNamespace: (s: Ent) => s.key.featureNamespace,
    description: ML_DESCRIPTION('mlFeatureProperties'),
    dataType: load((e) => e.aspect('mlFeatureProperties')?.dataType ?? null),
    properties: load((e) => mlSourcedProperties(e, 'mlFeatureProperties')),
    editableProperties: editable('editableMlFeatureProperties'),
  },
  MLFeatureTable: {
    name: (s: Ent) => s.key.name,
    platform: (s: Ent) => stub(s.key.platform ?? 'urn:li:dataPlatform:unknown', 'dataPlatform'),
    description: ML_DESCRIPTION('mlFeatureTableProperties'),
    properties: load((e) => {
      const p = M.plainProperties(e, 'mlFeatureTableProperties')
      if (!p) return null
      return {...p, mlFeatures: (p.mlFeatures ?? []).map((u: string) => stub(u)), mlPrimaryKeys: (p.mlPrimaryKeys ?? []).map((u: string) => stub(u))}
    }),
    editableProperties: editable('editableMlFeatureTableProperties'),
  },
  MLPrimaryKey: {
    name: (s: Ent) => s.key.name,
    featureNamespace: (s: Ent) => s.key.featureNamespace,
    description: ML_DESCRIPTION('mlPrimaryKeyProperties'),
    dataType: load((e) => e.aspect('mlPrimaryKeyProperties')?.dataType ?? null),
    properties: load((e) => mlSourcedProperties(e, 'mlPrimaryKeyProperties')),
    editableProperties: editable('editableMlPrimaryKeyProperties'),
  },
  OwnershipTypeEntity: {
    info: (s: Ent, _a, ctx) => M.systemOwnershipTypeInfo(s.urn) ?? withEnt(s, ctx, (e) => {
      const i = e.aspect('ownershipTypeInfo')
      return i ? {name: i.name, description: i.description ?? null, created: M.auditStamp(i.created), lastModified: M.auditStamp(i.lastModified)} : null
    }),
  },
}

// ---------------------------------------------------------------------------------- getters

/** Parses an urn and checks it names an entity type GraphQL serves. */
function servedUrn(urn: string): string {
  const type = validateUrn(urn).spec.name
  if (!GQL_TYPE_NAME[type]) throw new BadRequestError(`Entities of type ${type} (${urn}) are not available through GraphQL`)
  return type
}

async function loadEnt(ctx: GqlContext, urn: string, type: string): Promise<Ent | null> {
  const rec = await ctx.loader.load(urn)
  return rec ? new Ent(urn, type, rec) : null
}

export function getter(entityType: string, field: string): Resolver {
  const prefix = `urn:li:${entityType}:`
  const check = (urn: string) => {
    const type = validateUrn(urn).spec.name
    if (type !== entityType) throw new BadRequestError(`${field}(urn:) expects a ${entityType} urn, got ${urn}`)
  }
  return async (_root, args: {urn: string}, ctx) => {
    // A stored urn passed validation when it was written: only a miss needs the parse, to tell
    // a malformed urn (400) from an unknown entity (null).
    if (!args.urn.startsWith(prefix)) check(args.urn)
    const ent = await loadEnt(ctx, args.urn, entityType)
    if (!ent) check(args.urn)
    return ent
  }
}

const DATA_PLATFORM = getter('dataPlatform', 'dataPlatform')

export const QUERY_FIELDS: Record<string, Resolver> = {
  dataset: getter('dataset', 'dataset'),
  container: getter('container', 'container'),
  dashboard: getter('dashboard', 'dashboard'),
  chart: getter('chart', 'chart'),
  dataFlow: getter('dataFlow', 'dataFlow'),
  dataJob: getter('dataJob', 'dataJob'),
  domain: getter('domain', 'domain'),
  glossaryTerm: getter('glossaryTerm', 'glossaryTerm'),
  glossaryNode: getter('glossaryNode', 'glossaryNode'),
  tag: getter('tag', 'tag'),
  notebook: getter('notebook', 'notebook'),
  corpUser: getter('corpuser', 'corpUser'),
  corpGroup: getter('corpGroup', 'corpGroup'),
  // DataHub seeds its known platforms at boot, so they exist before anything names them: here
  // they are known without being stored (the web app asks for them by urn, logos and all).
  dataPlatform: async (root, args: {urn: string}, ctx, info) =>
    (await DATA_PLATFORM(root, args, ctx, info)) ??
    (knownPlatform(args.urn.slice('urn:li:dataPlatform:'.length)) ? stub(args.urn, 'dataPlatform') : null),
  dataPlatformInstance: getter('dataPlatformInstance', 'dataPlatformInstance'),
  mlModel: getter('mlModel', 'mlModel'),
  mlModelGroup: getter('mlModelGroup', 'mlModelGroup'),
  mlFeature: getter('mlFeature', 'mlFeature'),
  mlFeatureTable: getter('mlFeatureTable', 'mlFeatureTable'),
  mlPrimaryKey: getter('mlPrimaryKey', 'mlPrimaryKey'),
  entity: (_r, args: {urn: string}, ctx) => loadEnt(ctx, args.urn, servedUrn(args.urn)),
  entities: (_r, args: {urns: string[]}, ctx) => {
    const types = args.urns.map(servedUrn)
    return Promise.all(args.urns.map((u, i) => loadEnt(ctx, u, types[i]!)))
  },
  entityExists: async (_r, args: {urn: string}, ctx) => {
    validateUrn(args.urn)
    return (await ctx.loader.load(args.urn)) !== null
  },
}

/** Resolves the concrete type of an Ent for the Entity interface and the OwnerType union. */
export function entityTypeName(value: unknown): string | undefined {
  if (value instanceof Ent) return GQL_TYPE_NAME[value.entityType]
  return undefined
}
