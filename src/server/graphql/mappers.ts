/**
 * Aspect values → GraphQL shapes, following DataHub's type mappers: customProperties become a
 * list of entries, union-typed schema field types become the SchemaFieldDataType enum, stored
 * audit stamps fill `lastModified`, and every association carries the urn of the entity it
 * belongs to (`associatedUrn`). References to other entities become unloaded stubs.
 */
import {DEFAULT_RUN_ID} from '../../store/types.js'
import {systemOwnershipTypeUrn} from '../../catalog/edits/common.js'
import {type Ent, stub, stubOrNull} from './context.js'

type Obj = Record<string, any>

export function auditStamp(s: Obj | undefined): {time: number; actor: string | null} {
  return {time: typeof s?.time === 'number' ? s.time : 0, actor: typeof s?.actor === 'string' ? s.actor : null}
}

function optionalStamp(s: Obj | undefined): {time: number; actor: string | null} | null {
  return s ? auditStamp(s) : null
}

export function customProperties(map: Obj | undefined, urn: string): Array<{key: string; value: string; associatedUrn: string}> | null {
  if (!map) return null
  return Object.entries(map).map(([key, value]) => ({key, value: String(value), associatedUrn: urn}))
}

export function ownership(v: Obj | undefined, urn: string): Obj | null {
  if (!v) return null
  return {
    owners: (v.owners ?? []).map((o: Obj) => ({
      owner: stub(o.owner, 'corpuser'),
      type: o.type ?? null,
      ownershipType: stub(o.typeUrn ?? systemOwnershipTypeUrn(o.type ?? 'NONE'), 'ownershipType'),
      source: o.source ? {type: o.source.type, url: o.source.url ?? null} : null,
      attribution: attribution(o.attribution),
      associatedUrn: urn,
    })),
    lastModified: auditStamp(v.lastModified),
  }
}

/** Who or what attached an owner, tag, term or property value (DataHub's MetadataAttribution), as stored beside it. */
export function attribution(a: Obj | undefined): Obj | null {
  if (!a || typeof a.actor !== 'string') return null
  return {time: typeof a.time === 'number' ? a.time : 0, actor: stub(a.actor), source: a.source ? stub(a.source) : null, sourceDetail: Object.entries(a.sourceDetail ?? {}).map(([key, value]) => ({key, value}))}
}

export function globalTags(v: Obj | undefined, urn: string): Obj | null {
  if (!v) return null
  return {tags: (v.tags ?? []).map((t: Obj) => ({tag: stub(t.tag, 'tag'), context: t.context ?? null, associatedUrn: urn, attribution: attribution(t.attribution)}))}
}

export function glossaryTerms(v: Obj | undefined, urn: string): Obj | null {
  if (!v) return null
  return {
    terms: (v.terms ?? []).map((t: Obj) => ({term: stub(t.urn, 'glossaryTerm'), actor: stubOrNull(t.actor, 'corpuser'), context: t.context ?? null, associatedUrn: urn, attribution: attribution(t.attribution)})),
  }
}

export function domain(v: Obj | undefined, urn: string): Obj | null {
  const d = v?.domains?.[0]
  return typeof d === 'string' ? {domain: stub(d, 'domain'), associatedUrn: urn} : null
}

export function deprecation(v: Obj | undefined): Obj | null {
  if (!v) return null
  return {
    deprecated: v.deprecated === true,
    decommissionTime: v.decommissionTime ?? null,
    note: v.note ?? null,
    actor: v.actor ?? null,
    actorEntity: v.actor ? stub(v.actor) : null,
    replacement: v.replacement ? stub(v.replacement) : null,
  }
}

export function status(v: Obj | undefined): Obj | null {
  return v ? {removed: v.removed === true} : null
}

export function institutionalMemory(v: Obj | undefined, urn: string): Obj | null {
  if (!v) return null
  return {
    elements: (v.elements ?? []).map((e: Obj) => ({
      url: e.url,
      label: e.description ?? '',
      description: e.description ?? '',
      author: stub(e.createStamp?.actor ?? 'urn:li:corpuser:unknown', 'corpuser'),
      // A group may have added it (ResolvedActor is a user or a group).
      actor: stub(e.createStamp?.actor ?? 'urn:li:corpuser:unknown'),
      created: auditStamp(e.createStamp),
      updated: e.updateStamp ? auditStamp(e.updateStamp) : null,
      settings: e.settings ? {showInAssetPreview: e.settings.showInAssetPreview === true} : null,
      associatedUrn: urn,
    })),
  }
}

export function browsePaths(v: Obj | undefined): Obj[] | null {
  if (!v) return null
  return (v.paths ?? []).map((p: string) => ({path: p.split('/').filter((x) => x.length > 0)}))
}

export function subTypes(v: Obj | undefined): Obj | null {
  return v ? {typeNames: v.typeNames ?? []} : null
}

// ------------------------------------------------------------------------------------- schemas

const FIELD_TYPES: Record<string, string> = {
  BooleanType: 'BOOLEAN',
  FixedType: 'FIXED',
  StringType: 'STRING',
  BytesType: 'BYTES',
  NumberType: 'NUMBER',
  DateType: 'DATE',
  TimeType: 'TIME',
  EnumType: 'ENUM',
  NullType: 'NULL',
  MapType: 'MAP',
  ArrayType: 'ARRAY',
  UnionType: 'UNION',
  RecordType: 'STRUCT',
}

/** `{type: {"com.linkedin.schema.StringType": {}}}` → `STRING`. */
export function fieldType(t: Obj | undefined): string {
  const member = Object.keys(t?.type ?? {})[0] ?? ''
  return FIELD_TYPES[member.slice(member.lastIndexOf('.') + 1)] ?? 'NULL'
}

function platformSchema(ps: Obj | undefined): Obj | null {
  if (!ps) return null
  const [member, v] = Object.entries(ps)[0] ?? []
  if (!member || !v) return null
  if (member.endsWith('.KeyValueSchema')) return {__typename: 'KeyValueSchema', keySchema: v.keySchema ?? '', valueSchema: v.valueSchema ?? ''}
  return {__typename: 'TableSchema', schema: v.tableSchema ?? v.documentSchema ?? v.rawSchema ?? v.schema ?? ''}
}

export function schemaMetadata(v: Obj | undefined, urn: string, version: number): Obj | null {
  if (!v) return null
  return {
    aspectVersion: version,
    datasetUrn: urn,
    name: v.schemaName,
    platformUrn: v.platform,
    version: v.version,
    cluster: v.cluster ?? null,
    hash: v.hash,
    platformSchema: platformSchema(v.platformSchema),
    fields: (v.fields ?? []).map((f: Obj) => {
      const tags = globalTags(f.globalTags, urn)
      return {
        fieldPath: f.fieldPath,
        jsonPath: f.jsonPath ?? null,
        label: f.label ?? null,
        nullable: f.nullable === true,
        description: f.description ?? null,
        type: fieldType(f.type),
        nativeDataType: f.nativeDataType ?? null,
        recursive: f.recursive === true,
        globalTags: tags,
        tags,
        glossaryTerms: glossaryTerms(f.glossaryTerms, urn),
        isPartOfKey: f.isPartOfKey ?? null,
        isPartitioningKey: f.isPartitioningKey ?? null,
        jsonProps: f.jsonProps ?? null,
      }
    }),
    primaryKeys: v.primaryKeys ?? null,
    foreignKeys: Array.isArray(v.foreignKeys)
      ? v.foreignKeys.map((k: Obj) => ({
          name: k.name ?? null,
          foreignFields: (k.foreignFields ?? []).map((u: string) => stub(u, 'schemaField')),
          sourceFields: (k.sourceFields ?? []).map((u: string) => stub(u, 'schemaField')),
          foreignDataset: stubOrNull(k.foreignDataset, 'dataset'),
        }))
      : null,
    createdAt: v.created?.time ?? null,
  }
}

export function editableSchemaMetadata(v: Obj | undefined, urn: string): Obj | null {
  if (!v) return null
  return {
    editableSchemaFieldInfo: (v.editableSchemaFieldInfo ?? []).map((f: Obj) => {
      const tags = globalTags(f.globalTags, urn)
      return {fieldPath: f.fieldPath, description: f.description ?? null, globalTags: tags, tags, glossaryTerms: glossaryTerms(f.glossaryTerms, urn)}
    }),
  }
}

// ---------------------------------------------------------------------------------- properties

export function datasetProperties(e: Ent): Obj | null {
  const p = e.aspect<Obj>('datasetProperties')
  if (!p) return null
  return {
    // DataHub: the key name stands in when the aspect has none.
    name: p.name ?? e.key.name,
    qualifiedName: p.qualifiedName ?? null,
    origin: e.key.origin,
    description: p.description ?? null,
    customProperties: customProperties(p.customProperties, e.urn),
    externalUrl: p.externalUrl ?? null,
    created: p.created?.time ?? null,
    createdActor: p.created?.actor ?? null,
    lastModified: auditStamp(p.lastModified),
    lastModifiedActor: p.lastModified?.actor ?? null,
  }
}

export function biProperties(e: Ent, aspectName: 'dashboardInfo' | 'chartInfo'): Obj | null {
  const p = e.aspect<Obj>(aspectName)
  if (!p) return null
  return {
    name: p.title,
    description: p.description ?? null,
    externalUrl: p.externalUrl ?? p.dashboardUrl ?? p.chartUrl ?? null,
    type: p.type ?? null,
    access: p.access ?? null,
    customProperties: customProperties(p.customProperties, e.urn),
    lastRefreshed: p.lastRefreshed ?? null,
    created: auditStamp(p.lastModified?.created),
    lastModified: auditStamp(p.lastModified?.lastModified),
    deleted: optionalStamp(p.lastModified?.deleted),
  }
}

/** Properties aspects whose fields map one to one, plus customProperties as entries. */
export function plainProperties(e: Ent, aspectName: string, rename: Record<string, string> = {}): Obj | null {
  const p = e.aspect<Obj>(aspectName)
  if (!p) return null
  const out: Obj = {}
  for (const [k, v] of Object.entries(p)) out[rename[k] ?? k] = v
  out.customProperties = customProperties(p.customProperties, e.urn)
  return out
}

/** The last segment of a dotted glossary key: `Classification.Confidential` → `Confidential`. */
export function glossaryShortName(key: string | undefined): string {
  const k = key ?? ''
  const i = k.lastIndexOf('.')
  return i >= 0 ? k.slice(i + 1) : k
}

export function lastIngested(e: Ent): number | null {
  let best: number | null = null
  for (const a of Object.values(e.rec?.aspects ?? {})) {
    const sm = a.systemMetadata
    if (sm.runId && sm.runId !== DEFAULT_RUN_ID && typeof sm.lastObserved === 'number' && (best === null || sm.lastObserved > best)) best = sm.lastObserved
  }
  return best
}

export function rawAspects(e: Ent, names: string[] | null | undefined, autoRenderOnly = false): Obj[] | null {
  if (!e.rec) return null
  // DataHub's app asks for the aspects marked `autoRender` in their model, to show each as a tab
  // of raw JSON; none of DataHub's own aspects is, so it gets none (and shows no such tabs).
  if (autoRenderOnly) return []
  const want = names && names.length > 0 ? new Set(names) : undefined
  return Object.values(e.rec.aspects)
    .filter((a) => !want || want.has(a.aspectName))
    .map((a) => ({aspectName: a.aspectName, payload: a.valueText ?? JSON.stringify(a.value), renderSpec: null}))
}

const SYSTEM_OWNERSHIP_TYPE_NAMES: Record<string, string> = {
  technical_owner: 'Technical Owner',
  business_owner: 'Business Owner',
  data_steward: 'Data Steward',
  none: 'None',
  custom: 'Custom',
  dataowner: 'Data Owner',
  developer: 'Developer',
  delegate: 'Delegate',
  producer: 'Producer',
  stakeholder: 'Stakeholder',
  consumer: 'Consumer',
}

/** Built-in ownership types have no stored entity; their info comes from here. */
export function systemOwnershipTypeInfo(urn: string): Obj | null {
  const m = /^urn:li:ownershipType:__system__(.+)$/.exec(urn)
  if (!m) return null
  return {name: SYSTEM_OWNERSHIP_TYPE_NAMES[m[1]!] ?? m[1]!, description: null, created: null, lastModified: null}
}
