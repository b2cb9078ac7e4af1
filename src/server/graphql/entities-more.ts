/**
 * Resolvers of the entity types of entities-more.graphql. Their source objects are Ents, like
 * every entity type's; fields shared with the asset types (ownership, tags, status, …) fall back
 * to COMMON_FIELDS. Where DataHub's schema makes a field non-null and we hold no aspect for it,
 * the value is derived from the urn's key, so reading a sparsely stored entity never errors.
 */
import {type GraphQLSchema, GraphQLUnionType} from 'graphql'
import {type Ent, type GqlContext, graphqlEntityType, stub, stubOrNull, withEnt} from './context.js'
import {getter, type Resolver} from './entities.js'
import * as M from './mappers.js'
import {actorFilterView, resourceFilterView} from './access.js'

type Obj = Record<string, any>

const load =
  (f: (e: Ent, args: any, ctx: GqlContext) => unknown): Resolver =>
  (src: Ent, args, ctx) =>
    withEnt(src, ctx, (e) => f(e, args, ctx))

const stubs = (urns: unknown): Ent[] => (Array.isArray(urns) ? urns.filter((u) => typeof u === 'string').map((u: string) => stub(u)) : [])
const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v)

/** Our audit stamp with the actor as a user (DataHub's ResolvedAuditStamp). */
function resolvedStamp(s: Obj | undefined): Obj | null {
  return s && typeof s.time === 'number' ? {time: s.time, actor: stubOrNull(s.actor, 'corpuser')} : null
}

const STD_DATA_TYPES: Record<string, string> = {
  'datahub.string': 'STRING',
  'datahub.number': 'NUMBER',
  'datahub.urn': 'URN',
  'datahub.rich_text': 'RICH_TEXT',
  'datahub.date': 'DATE',
}

/** A stored value is either bare (`30`, `"gold"`) or in Pegasus union form (`{double: 30}`). */
function propertyValue(v: unknown): Obj | null {
  if (typeof v === 'string') return {__typename: 'StringValue', stringValue: v}
  if (typeof v === 'number') return {__typename: 'NumberValue', numberValue: v}
  if (!v || typeof v !== 'object') return null
  if (typeof (v as Obj).string === 'string') return {__typename: 'StringValue', stringValue: (v as Obj).string}
  if (typeof (v as Obj).double === 'number') return {__typename: 'NumberValue', numberValue: (v as Obj).double}
  return null
}

// A property definition without its aspect still has a name (its id); DataHub's own
// bootstrap types every property it cannot type as a string.
function propertyDefinition(e: Ent): Obj {
  const d: Obj = e.aspect('propertyDefinition') ?? {}
  return {
    qualifiedName: d.qualifiedName ?? e.key.id ?? e.urn,
    displayName: orNull(d.displayName),
    description: orNull(d.description),
    cardinality: d.cardinality ?? 'SINGLE',
    allowedValues: Array.isArray(d.allowedValues)
      ? d.allowedValues.map((a: Obj) => ({value: propertyValue(a.value), description: orNull(a.description)})).filter((a: Obj) => a.value)
      : null,
    valueType: stub(d.valueType ?? 'urn:li:dataType:datahub.string', 'dataType'),
    typeQualifier: d.typeQualifier?.allowedTypes ? {allowedTypes: stubs(d.typeQualifier.allowedTypes)} : null,
    entityTypes: stubs(d.entityTypes),
    immutable: d.immutable === true,
    allowedPlatforms: [],
    created: resolvedStamp(d.created),
    lastModified: resolvedStamp(d.lastModified),
    filterStatus: d.filterStatus ?? 'DISABLED',
  }
}

function formInfo(e: Ent): Obj {
  const f: Obj = e.aspect('formInfo') ?? {}
  const actors: Obj = f.actors ?? {}
  return {
    name: f.name ?? e.key.id ?? e.urn,
    description: orNull(f.description),
    type: f.type ?? 'COMPLETION',
    prompts: (f.prompts ?? []).map((p: Obj) => ({
      id: p.id,
      formUrn: e.urn,
      title: p.title,
      description: orNull(p.description),
      type: p.type,
      required: p.required === true,
      structuredPropertyParams: p.structuredPropertyParams?.urn ? {structuredProperty: stub(p.structuredPropertyParams.urn, 'structuredProperty')} : null,
    })),
    // DataHub's default: a form is assigned to the owners of the assets it applies to.
    actors: {owners: actors.owners ?? true, users: stubs(actors.users), groups: stubs(actors.groups)},
  }
}

function querySubject(urn: string): Obj {
  if (urn.startsWith('urn:li:schemaField:')) {
    const field = stub(urn, 'schemaField')
    return {dataset: stub(field.key.parent ?? urn, 'dataset'), schemaField: field}
  }
  return {dataset: stub(urn, 'dataset'), schemaField: null}
}

function assertionInfo(e: Ent): Obj | null {
  const a: Obj | undefined = e.aspect('assertionInfo')
  if (!a) return null
  const d: Obj | undefined = a.datasetAssertion
  return {
    type: a.type,
    description: orNull(a.description),
    externalUrl: orNull(a.externalUrl),
    lastUpdated: a.lastUpdated ? M.auditStamp(a.lastUpdated) : null,
    customProperties: M.customProperties(a.customProperties, e.urn),
    source: a.source ? {type: a.source.type, created: a.source.created ? M.auditStamp(a.source.created) : null} : null,
    datasetAssertion: d
      ? {
          datasetUrn: d.dataset,
          scope: d.scope,
          // SchemaFieldRef names the column by its dataset's urn and its path, as in fine-grained lineage.
          fields: Array.isArray(d.fields) ? d.fields.map((u: string) => {
            const f = stub(u, 'schemaField')
            return {urn: f.key.parent ?? d.dataset, path: f.key.fieldPath ?? u}
          }) : null,
          aggregation: orNull(d.aggregation === 'UNIQUE_PROPOTION' ? 'UNIQUE_PROPORTION' : d.aggregation),
          operator: d.operator,
          parameters: orNull(d.parameters),
          nativeType: orNull(d.nativeType),
          nativeParameters: d.nativeParameters ? Object.entries(d.nativeParameters).map(([key, value]) => ({key, value})) : null,
          logic: orNull(d.logic),
        }
      : null,
  }
}

/** The value at a dotted path of a stored row (`partitionSpec.partition`). */
function at(row: Obj, path: string): unknown {
  let v: unknown = row
  for (const k of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Obj)[k] : undefined
  return v
}

/** One condition of a FilterInput, on a stored row: DataHub's operators over the value at `field`. */
function holds(row: Obj, f: Obj): boolean {
  const v = at(row, f.field)
  const values: string[] = f.values ?? (f.value != null ? [f.value] : [])
  const num = (x: unknown) => (typeof x === 'number' ? x : Number(x))
  const each = Array.isArray(v) ? v : [v]
  let ok: boolean
  switch (f.condition ?? 'EQUAL') {
    case 'EXISTS':
      ok = v !== undefined && v !== null
      break
    case 'CONTAIN':
      ok = each.some((x) => x != null && values.some((w) => String(x).includes(w)))
      break
    case 'START_WITH':
      ok = each.some((x) => x != null && values.some((w) => String(x).startsWith(w)))
      break
    case 'GREATER_THAN':
      ok = values.some((w) => num(v) > num(w))
      break
    case 'GREATER_THAN_OR_EQUAL_TO':
      ok = values.some((w) => num(v) >= num(w))
      break
    case 'LESS_THAN':
      ok = values.some((w) => num(v) < num(w))
      break
    case 'LESS_THAN_OR_EQUAL_TO':
      ok = values.some((w) => num(v) <= num(w))
      break
    default: // EQUAL, IN
      ok = each.some((x) => x != null && values.includes(String(x)))
  }
  return f.negated === true ? !ok : ok
}

/**
 * A FilterInput as a predicate on stored rows; undefined when empty. DataHub's app sends one
 * AND-group (`and`); `or` takes an OR of AND-groups.
 */
function rowFilter(filter: Obj | null | undefined): ((row: Obj) => boolean) | undefined {
  const groups: Obj[] = [...(filter?.or ?? []), ...(filter?.and ? [{and: filter.and}] : [])].filter((g: Obj) => (g.and ?? []).length > 0)
  if (groups.length === 0) return undefined
  return (row) => groups.some((g) => g.and.every((f: Obj) => holds(row, f)))
}

/** Rows of a timeseries aspect of an entity, newest first, within the asked window and filter. */
async function rows(ctx: GqlContext, urn: string, aspectName: string, args: Obj): Promise<Obj[]> {
  if (args.limit != null && args.limit <= 0) return []
  const keep = rowFilter(args.filter)
  const found = await ctx.catalog.listTimeseries(urn, aspectName, {
    startTime: args.startTimeMillis ?? undefined,
    endTime: args.endTimeMillis ?? undefined,
    // A filter is applied here, so the limit can only be applied after it.
    limit: keep ? undefined : (args.limit ?? undefined),
  })
  const values = found.map((r) => r.value as Obj)
  if (!keep) return values
  const kept = values.filter(keep)
  return args.limit != null ? kept.slice(0, args.limit) : kept
}

function partitionSpec(p: Obj | undefined): Obj | null {
  if (!p || typeof p.partition !== 'string') return null
  const t: Obj | undefined = p.timePartition
  return {type: p.type ?? 'PARTITION', partition: p.partition, timePartition: t && typeof t.startTimeMillis === 'number' ? {startTimeMillis: t.startTimeMillis, durationMillis: t.durationMillis ?? 0} : null}
}

async function assertionRunEvents(urn: string, args: Obj, ctx: GqlContext): Promise<Obj> {
  const events = (await rows(ctx, urn, 'assertionRunEvent', args)).filter((ev) => !args.status || ev.status === args.status)
  const of = (type: string) => events.filter((ev) => ev.result?.type === type).length
  return {
    total: events.length,
    failed: of('FAILURE'),
    succeeded: of('SUCCESS'),
    errored: of('ERROR'),
    runEvents: events.map((ev) => ({
      timestampMillis: ev.timestampMillis,
      lastObservedMillis: orNull(ev.lastObservedMillis),
      assertionUrn: ev.assertionUrn ?? urn,
      asserteeUrn: ev.asserteeUrn,
      runId: ev.runId,
      status: ev.status,
      result: ev.result
        ? {
            type: ev.result.type,
            rowCount: orNull(ev.result.rowCount),
            missingCount: orNull(ev.result.missingCount),
            unexpectedCount: orNull(ev.result.unexpectedCount),
            actualAggValue: orNull(ev.result.actualAggValue),
            nativeResults: ev.result.nativeResults ? Object.entries(ev.result.nativeResults).map(([key, value]) => ({key, value})) : null,
            externalUrl: orNull(ev.result.externalUrl),
          }
        : null,
    })),
  }
}

/**
 * A policy's content, for those who may manage policies — as listPolicies — since who is
 * granted what is itself sensitive. Checked once per request.
 */
const policyField = (f: (p: Obj, e: Ent) => unknown): Resolver => async (src: Ent, _a, ctx) => {
  const checks = (ctx as GqlContext & {policyCheck?: Promise<void>})
  await (checks.policyCheck ??= ctx.catalog.authorize(ctx.actor, [{privileges: [['MANAGE_POLICIES']]}]).then(() => undefined))
  return withEnt(src, ctx, (e) => f(e.aspect('dataHubPolicyInfo') ?? {}, e))
}

/** The assets of a data product, as a page of search results (the query narrows by urn text). */
function dataProductEntities(e: Ent, args: Obj): Obj {
  const input: Obj = args.input ?? {}
  const assets: string[] = (e.aspect('dataProductProperties')?.assets ?? []).map((a: Obj) => a.destinationUrn)
  const q = typeof input.query === 'string' && input.query !== '*' ? input.query.trim().toLowerCase() : ''
  const types: Set<string> | null = Array.isArray(input.types) && input.types.length > 0 ? new Set(input.types) : null
  const hits = assets.map((u) => stub(u)).filter((s) => (!q || s.urn.toLowerCase().includes(q)) && (!types || types.has(graphqlEntityType(s.entityType))))
  const start = input.start ?? 0
  const page = hits.slice(start, start + (input.count ?? 10))
  return {start, count: page.length, total: hits.length, searchResults: page.map((entity) => ({entity, matchedFields: [], insights: []})), facets: [], suggestions: []}
}

export const MORE_TYPE_FIELDS: Record<string, Record<string, Resolver>> = {
  DataProduct: {
    properties: load((e) => {
      const p: Obj | undefined = e.aspect('dataProductProperties')
      if (!p) return null
      return {
        name: p.name ?? e.key.id,
        description: orNull(p.description),
        externalUrl: orNull(p.externalUrl),
        customProperties: M.customProperties(p.customProperties, e.urn),
        numAssets: (p.assets ?? []).length,
      }
    }),
    entities: load((e, args) => dataProductEntities(e, args)),
  },
  StructuredPropertyEntity: {
    definition: load(propertyDefinition),
    settings: load((e) => {
      const s: Obj | undefined = e.aspect('structuredPropertySettings')
      if (!s) return null
      const b = (k: string) => s[k] === true
      return {isHidden: b('isHidden'), showInSearchFilters: b('showInSearchFilters'), showInAssetSummary: b('showInAssetSummary'), showAsAssetBadge: b('showAsAssetBadge'), showInColumnsTable: b('showInColumnsTable'), hideInAssetSummaryWhenEmpty: b('hideInAssetSummaryWhenEmpty')}
    }),
  },
  DataTypeEntity: {
    info: load((e) => {
      const i: Obj = e.aspect('dataTypeInfo') ?? {}
      const qualifiedName: string = i.qualifiedName ?? e.key.id ?? e.urn
      return {type: STD_DATA_TYPES[qualifiedName] ?? 'OTHER', qualifiedName, displayName: orNull(i.displayName), description: orNull(i.description)}
    }),
  },
  EntityTypeEntity: {
    info: load((e) => {
      const i: Obj = e.aspect('entityTypeInfo') ?? {}
      const qualifiedName: string = i.qualifiedName ?? e.key.id ?? e.urn
      // DataHub names entity types `datahub.<registry name>`.
      const name = qualifiedName.startsWith('datahub.') ? qualifiedName.slice('datahub.'.length) : qualifiedName
      return {type: graphqlEntityType(name), qualifiedName, displayName: orNull(i.displayName), description: orNull(i.description)}
    }),
  },
  Form: {
    info: load(formInfo),
  },
  QueryEntity: {
    properties: load((e) => {
      const p: Obj | undefined = e.aspect('queryProperties')
      if (!p) return null
      return {
        statement: {value: p.statement?.value ?? '', language: p.statement?.language ?? 'SQL'},
        source: p.source,
        name: orNull(p.name),
        description: orNull(p.description),
        created: M.auditStamp(p.created),
        createdOn: resolvedStamp(p.created) ?? {time: 0, actor: null},
        lastModified: M.auditStamp(p.lastModified),
        customProperties: M.customProperties(p.customProperties, e.urn),
        origin: stubOrNull(p.origin),
      }
    }),
    subjects: load((e) => {
      const s: Obj | undefined = e.aspect('querySubjects')
      return s ? (s.subjects ?? []).map((x: Obj) => querySubject(x.entity)) : null
    }),
    platform: load((e) => stubOrNull(e.aspect('dataPlatformInstance')?.platform, 'dataPlatform')),
  },
  Assertion: {
    platform: load((e) => stub(e.aspect('dataPlatformInstance')?.platform ?? 'urn:li:dataPlatform:unknown', 'dataPlatform')),
    info: load(assertionInfo),
    runEvents: (s: Ent, args, ctx) => assertionRunEvents(s.urn, args, ctx),
  },
  DataProcessInstance: {
    name: load((e) => e.aspect('dataProcessInstanceProperties')?.name ?? null),
    created: load((e) => {
      const c = e.aspect('dataProcessInstanceProperties')?.created
      return c ? M.auditStamp(c) : null
    }),
    externalUrl: load((e) => e.aspect('dataProcessInstanceProperties')?.externalUrl ?? null),
    properties: load((e) => {
      const p: Obj | undefined = e.aspect('dataProcessInstanceProperties')
      return p ? {name: p.name, created: M.auditStamp(p.created), externalUrl: orNull(p.externalUrl), customProperties: M.customProperties(p.customProperties, e.urn)} : null
    }),
    state: async (s: Ent, args, ctx) =>
      (await rows(ctx, s.urn, 'dataProcessInstanceRunEvent', args)).map((ev) => ({
        timestampMillis: ev.timestampMillis,
        status: orNull(ev.status),
        attempt: orNull(ev.attempt),
        result: ev.result ? {resultType: ev.result.type, nativeResultType: orNull(ev.result.nativeResultType)} : null,
        durationMillis: orNull(ev.durationMillis),
      })),
    parentTemplate: load((e) => stubOrNull(e.aspect('dataProcessInstanceRelationships')?.parentTemplate)),
  },
  Post: {
    postType: load((e) => e.aspect('postInfo')?.type ?? 'HOME_PAGE_ANNOUNCEMENT'),
    content: load((e) => {
      const c: Obj = e.aspect('postInfo')?.content ?? {}
      return {
        contentType: c.type ?? 'TEXT',
        title: c.title ?? '',
        description: orNull(c.description),
        link: orNull(c.link),
        media: c.media ? {type: c.media.type, location: c.media.location} : null,
      }
    }),
    lastModified: load((e) => {
      const p: Obj = e.aspect('postInfo') ?? {}
      return p.auditStamp ? M.auditStamp(p.auditStamp) : {time: p.lastModified ?? p.created ?? 0, actor: null}
    }),
  },
  DataHubPolicy: {
    policyType: policyField((p) => p.type ?? 'METADATA'),
    name: policyField((p, e) => p.displayName ?? e.key.id),
    state: policyField((p) => p.state ?? 'INACTIVE'),
    description: policyField((p) => p.description ?? null),
    resources: policyField((p) => resourceFilterView(p.resources)),
    privileges: policyField((p) => p.privileges ?? []),
    actors: policyField((p) => actorFilterView(p.actors ?? {})),
    editable: policyField((p) => p.editable !== false),
  },
  MLModelDeployment: {
    name: (s: Ent) => s.key.name ?? s.urn,
    platform: (s: Ent) => stub(s.key.platform ?? 'urn:li:dataPlatform:unknown', 'dataPlatform'),
    origin: (s: Ent) => s.key.origin ?? 'PROD',
    description: load((e) => e.aspect('mlModelDeploymentProperties')?.description ?? null),
    properties: load((e) => {
      const p: Obj | undefined = e.aspect('mlModelDeploymentProperties')
      if (!p) return null
      return {
        description: orNull(p.description),
        externalUrl: orNull(p.externalUrl),
        createdAt: orNull(p.createdAt),
        version: p.version ? {versionTag: orNull(p.version.versionTag)} : null,
        status: orNull(p.status),
        customProperties: M.customProperties(p.customProperties, e.urn),
      }
    }),
  },
  PlatformResource: {
    platform: load((e) => stubOrNull(e.aspect('dataPlatformInstance')?.platform, 'dataPlatform')),
    info: load((e) => {
      const i: Obj | undefined = e.aspect('platformResourceInfo')
      if (!i) return null
      const v: Obj | undefined = i.value
      return {
        resourceType: i.resourceType,
        primaryKey: i.primaryKey,
        secondaryKeys: orNull(i.secondaryKeys),
        value: v ? {blob: v.blob, contentType: orNull(v.contentType), schemaType: orNull(v.schemaType), schemaRef: orNull(v.schemaRef)} : null,
      }
    }),
  },
  DataHubRole: {
    name: load((e) => e.aspect('dataHubRoleInfo')?.name ?? e.key.id),
    description: load((e) => e.aspect('dataHubRoleInfo')?.description ?? ''),
  },
  Document: {
    info: load((e) => {
      const d: Obj | undefined = e.aspect('documentInfo')
      if (!d) return null
      const stamp = (a: Obj | undefined) => resolvedStamp(a) ?? {time: 0, actor: null}
      return {
        title: orNull(d.title),
        source: d.source ? {sourceType: d.source.sourceType, externalUrl: orNull(d.source.externalUrl), externalId: orNull(d.source.externalId)} : null,
        status: d.status ? {state: d.status.state} : null,
        contents: {text: d.contents?.text ?? ''},
        created: stamp(d.created),
        lastModified: stamp(d.lastModified ?? d.created),
        relatedAssets: Array.isArray(d.relatedAssets) ? d.relatedAssets.map((r: Obj) => ({asset: stub(r.asset)})) : null,
        relatedDocuments: Array.isArray(d.relatedDocuments) ? d.relatedDocuments.map((r: Obj) => ({document: stub(r.document, 'document')})) : null,
        parentDocument: d.parentDocument?.document ? {document: stub(d.parentDocument.document, 'document')} : null,
      }
    }),
    subType: load((e) => e.aspect('documentInfo')?.subType ?? e.aspect('subTypes')?.typeNames?.[0] ?? null),
  },
  SchemaFieldEntity: {
    fieldPath: (s: Ent) => s.key.fieldPath,
    parent: (s: Ent) => stub(s.key.parent ?? 'urn:li:dataset:unknown', 'dataset'),
  },
}

// ------------------------------------------------------- fields added to the asset types

const entries = (m: Obj | undefined): Obj[] | null => (m ? Object.entries(m).map(([key, value]) => ({key, value})) : null)

function userCounts(list: Obj[] | undefined, count: (u: Obj) => number | undefined): Obj[] {
  return (list ?? []).map((u) => ({user: stub(u.user, 'corpuser'), count: count(u) ?? null, userEmail: orNull(u.userEmail)}))
}

/** The users of a usage row, most active first. */
function topUsers(list: Obj[] | undefined, count: (u: Obj) => number | undefined): Ent[] {
  return [...(list ?? [])].sort((a, b) => (count(b) ?? 0) - (count(a) ?? 0)).map((u) => stub(u.user, 'corpuser'))
}

async function latestRow(ctx: GqlContext, urn: string, aspectName: string): Promise<Obj | null> {
  return (await rows(ctx, urn, aspectName, {limit: 1}))[0] ?? null
}

/** The assertions naming an entity in their definition, through the store's reference index. */
async function assertionsOn(ctx: GqlContext, urn: string): Promise<string[]> {
  const refs = await ctx.catalog.referencesTo([urn], {aspects: ['assertionInfo']})
  return [...new Set(refs.map((r) => r.urn))].sort()
}

const biStatsSummary = (aspectName: string): Resolver => async (s: Ent, _a, ctx) => {
  const u = await latestRow(ctx, s.urn, aspectName)
  if (!u) return null
  const views = (x: Obj) => x.viewsCount as number | undefined
  return {
    viewCount: orNull(u.viewsCount),
    viewCountLast30Days: null,
    viewCountPercentileLast30Days: null,
    uniqueUserCountLast30Days: orNull(u.uniqueUserCount),
    uniqueUserPercentileLast30Days: null,
    topUsersLast30Days: topUsers(u.userCounts, views),
  }
}

/**
 * Runs of a job or flow: the process instances naming it as their template, newest first. Of a
 * dataset (`direction`): the instances that wrote it (INCOMING) or read it (OUTGOING).
 */
const runsOf: Resolver = async (s: Ent, args, ctx) => {
  const aspect = args.direction === 'INCOMING' ? 'dataProcessInstanceOutput' : args.direction === 'OUTGOING' ? 'dataProcessInstanceInput' : 'dataProcessInstanceRelationships'
  const refs = await ctx.catalog.referencesTo([s.urn], {aspects: [aspect]})
  const urns = [...new Set(refs.map((r) => r.urn))]
  const loaded = await Promise.all(urns.map(async (u) => {
    const rec = await ctx.loader.load(u)
    const ent = stub(u, 'dataProcessInstance')
    ent.rec = rec
    return ent
  }))
  const created = (e: Ent) => e.aspect('dataProcessInstanceProperties')?.created?.time ?? 0
  const all = loaded.filter((e) => e.rec).sort((a, b) => created(b) - created(a) || a.urn.localeCompare(b.urn))
  const start = args.start ?? 0
  const page = all.slice(start, start + (args.count ?? 20))
  return {start, count: page.length, total: all.length, runs: page}
}

const embed = load((e) => {
  const v: Obj | undefined = e.aspect('embed')
  return v ? {renderUrl: orNull(v.renderUrl)} : null
})

const FIELD_EXTENSIONS: Record<string, Record<string, Resolver>> = {
  Dataset: {
    siblings: load((e) => {
      const v: Obj | undefined = e.aspect('siblings')
      return v ? {isPrimary: v.primary === true, siblings: stubs(v.siblings)} : null
    }),
    usageStats: async (s: Ent, args, ctx) => {
      const u = await latestRow(ctx, s.urn, 'datasetUsageStatistics')
      if (!u) return null
      const users = userCounts(u.userCounts, (x) => x.count)
      const fields = (u.fieldCounts ?? []).map((f: Obj) => ({fieldName: f.fieldPath, count: f.count}))
      const bucketDuration = u.eventGranularity?.unit
      return {
        buckets: [{
          bucket: u.timestampMillis,
          duration: ['DAY', 'WEEK', 'MONTH', 'YEAR'].includes(bucketDuration) ? bucketDuration : null,
          resource: args.resource ?? s.urn,
          metrics: {uniqueUserCount: orNull(u.uniqueUserCount), users, totalSqlQueries: orNull(u.totalSqlQueries), topSqlQueries: u.topSqlQueries ?? null, fields},
        }],
        aggregations: {uniqueUserCount: orNull(u.uniqueUserCount), users, fields, totalSqlQueries: orNull(u.totalSqlQueries)},
      }
    },
    statsSummary: async (s: Ent, _a, ctx) => {
      const u = await latestRow(ctx, s.urn, 'datasetUsageStatistics')
      if (!u) return null
      return {
        queryCountLast30Days: orNull(u.totalSqlQueries),
        queryCountPercentileLast30Days: null,
        uniqueUserCountLast30Days: orNull(u.uniqueUserCount),
        uniqueUserPercentileLast30Days: null,
        topUsersLast30Days: topUsers(u.userCounts, (x) => x.count),
      }
    },
    operations: async (s: Ent, args, ctx) =>
      (await rows(ctx, s.urn, 'operation', args)).map((o) => ({
        timestampMillis: o.timestampMillis,
        lastUpdatedTimestamp: o.lastUpdatedTimestamp,
        actor: orNull(o.actor),
        operationType: o.operationType,
        customOperationType: orNull(o.customOperationType),
        sourceType: orNull(o.sourceType),
        numAffectedRows: orNull(o.numAffectedRows),
        affectedDatasets: orNull(o.affectedDatasets),
        customProperties: entries(o.customProperties),
        partition: o.partitionSpec?.partition ?? null,
      })),
    datasetProfiles: async (s: Ent, args, ctx) =>
      (await rows(ctx, s.urn, 'datasetProfile', args)).map((p) => ({
        timestampMillis: p.timestampMillis,
        rowCount: orNull(p.rowCount),
        columnCount: orNull(p.columnCount),
        sizeInBytes: orNull(p.sizeInBytes),
        partitionSpec: partitionSpec(p.partitionSpec),
        fieldProfiles: (p.fieldProfiles ?? []).map((f: Obj) => ({
          fieldPath: f.fieldPath,
          uniqueCount: orNull(f.uniqueCount),
          uniqueProportion: orNull(f.uniqueProportion),
          nullCount: orNull(f.nullCount),
          nullProportion: orNull(f.nullProportion),
          min: orNull(f.min),
          max: orNull(f.max),
          mean: orNull(f.mean),
          median: orNull(f.median),
          stdev: orNull(f.stdev),
          sampleValues: orNull(f.sampleValues),
        })),
      })),
    assertions: async (s: Ent, args, ctx) => {
      const urns = await assertionsOn(ctx, s.urn)
      const recs = await Promise.all(urns.map((u) => ctx.loader.load(u)))
      const live = urns
        .map((u, i) => {
          const ent = stub(u, 'assertion')
          ent.rec = recs[i]
          return ent
        })
        .filter((e) => e.rec && (args.includeSoftDeleted === true || e.aspect('status')?.removed !== true))
      const start = args.start ?? 0
      const page = live.slice(start, start + (args.count ?? 200))
      return {start, count: page.length, total: live.length, assertions: page}
    },
    health: async (s: Ent, _a, ctx) => {
      const urns = await assertionsOn(ctx, s.urn)
      const results = (await Promise.all(urns.map((u) => latestRow(ctx, u, 'assertionRunEvent')))).filter((r): r is Obj => !!r?.result)
      if (results.length === 0) return []
      const failing = results.filter((r) => r.result.type === 'FAILURE' || r.result.type === 'ERROR').length
      return [{
        type: 'ASSERTIONS',
        status: failing > 0 ? 'FAIL' : 'PASS',
        message: failing > 0 ? `${failing} of ${results.length} assertions are failing` : `All ${results.length} assertions are passing`,
        causes: null,
      }]
    },
    embed,
    runs: runsOf,
  },
  Chart: {statsSummary: biStatsSummary('chartUsageStatistics'), embed},
  Dashboard: {statsSummary: biStatsSummary('dashboardUsageStatistics'), embed},
  DataJob: {runs: runsOf},
  DataFlow: {runs: runsOf},
  CorpUser: {
    settings: load((e) => {
      const v: Obj | undefined = e.aspect('corpUserSettings')
      return v ? {appearance: v.appearance ? {showSimplifiedHomepage: orNull(v.appearance.showSimplifiedHomepage), showThemeV2: orNull(v.appearance.showThemeV2)} : null} : null
    }),
  },
}
const structuredProperties = load((e) => {
  const v: Obj | undefined = e.aspect('structuredProperties')
  if (!v) return null
  return {
    properties: (v.properties ?? []).map((p: Obj) => {
      const values: unknown[] = p.values ?? []
      const urns = values.map((x) => (typeof x === 'object' && x !== null ? (x as Obj).string : x)).filter((x): x is string => typeof x === 'string' && x.startsWith('urn:li:'))
      return {structuredProperty: stub(p.propertyUrn, 'structuredProperty'), values: values.map(propertyValue), valueEntities: urns.map((u) => stub(u)), associatedUrn: e.urn, attribution: M.attribution(p.attribution)}
    }),
  }
})
for (const t of ['Dataset', 'Container', 'Dashboard', 'Chart', 'DataFlow', 'DataJob', 'Domain', 'DataProduct', 'GlossaryTerm', 'GlossaryNode', 'CorpUser', 'CorpGroup', 'MLModel', 'MLModelGroup', 'MLFeature', 'MLFeatureTable', 'MLPrimaryKey', 'Document', 'SchemaFieldEntity']) {
  FIELD_EXTENSIONS[t] = {...FIELD_EXTENSIONS[t], structuredProperties}
}
for (const [type, fields] of Object.entries(FIELD_EXTENSIONS)) MORE_TYPE_FIELDS[type] = {...MORE_TYPE_FIELDS[type], ...fields}

/** For each asset asked, the data products listing it among their assets (DataHub's bulkEntityDataProducts). */
const bulkEntityDataProducts: Resolver = async (_r, {input}: {input: {urns: string[]}}, ctx: GqlContext) => {
  const refs = await ctx.catalog.referencesTo(input.urns, {aspects: ['dataProductProperties']})
  const products = [...new Set(refs.map((r) => r.urn))].sort()
  const recs = await Promise.all(products.map((u) => ctx.loader.load(u)))
  const assets = new Map<string, Obj[]>()
  products.forEach((u, i) => {
    const rec = recs[i]
    if (!rec) return
    const ent = stub(u, 'dataProduct')
    ent.rec = rec
    for (const a of (ent.aspect('dataProductProperties')?.assets ?? []) as Obj[]) {
      if (!input.urns.includes(a.destinationUrn)) continue
      assets.set(a.destinationUrn, [...(assets.get(a.destinationUrn) ?? []), {isOutputPort: a.outputPort === true, dataProduct: ent}])
    }
  })
  return {entities: input.urns.map((urn) => ({urn, dataProductAssociations: assets.get(urn) ?? []}))}
}

export const MORE_QUERY_FIELDS: Record<string, Resolver> = {
  bulkEntityDataProducts,
  dataProduct: getter('dataProduct', 'dataProduct'),
  assertion: getter('assertion', 'assertion'),
  dataProcessInstance: getter('dataProcessInstance', 'dataProcessInstance'),
  structuredProperty: getter('structuredProperty', 'structuredProperty'),
  form: getter('form', 'form'),
  document: getter('document', 'document'),
  mlModelDeployment: getter('mlModelDeployment', 'mlModelDeployment'),
}

/** Type resolution for the unions these types introduce. */
export function wireMore(schema: GraphQLSchema): void {
  ;(schema.getType('PropertyValue') as GraphQLUnionType).resolveType = (v: {__typename: string}) => v.__typename
}
