/**
 * Urn and aspect builders in the style of DataHub's `make_dataset_urn` & co., so a plugin author
 * writes `makeDatasetUrn('postgres', 'shop.public.orders')` instead of assembling strings.
 */
import {datasetUrn} from '../model/urn.js'
import {mcp} from './plugin.js'
import type {ProposalInput, WorkUnit} from './plugin.js'

/** `urn:li:dataPlatform:<platform>` (an urn passes through). */
export function makeDataPlatformUrn(platform: string): string {
  return platform.startsWith('urn:li:dataPlatform:') ? platform : `urn:li:dataPlatform:${platform}`
}

/** `urn:li:dataset:(urn:li:dataPlatform:<platform>,<name>,<env>)`, as DataHub's make_dataset_urn. */
export function makeDatasetUrn(platform: string, name: string, env = 'PROD'): string {
  return datasetUrn(platform, name, env)
}

/** With a platform instance: the instance prefixes the name, as DataHub's make_dataset_urn_with_platform_instance. */
export function makeDatasetUrnWithPlatformInstance(platform: string, name: string, platformInstance: string | undefined, env = 'PROD'): string {
  return datasetUrn(platform, platformInstance ? `${platformInstance}.${name}` : name, env)
}

export const makeUserUrn = (username: string): string => (username.startsWith('urn:li:corpuser:') ? username : `urn:li:corpuser:${username}`)
export const makeGroupUrn = (name: string): string => (name.startsWith('urn:li:corpGroup:') ? name : `urn:li:corpGroup:${name}`)
export const makeTagUrn = (tag: string): string => (tag.startsWith('urn:li:tag:') ? tag : `urn:li:tag:${tag}`)
export const makeTermUrn = (term: string): string => (term.startsWith('urn:li:glossaryTerm:') ? term : `urn:li:glossaryTerm:${term}`)
export const makeDomainUrn = (domain: string): string => (domain.startsWith('urn:li:domain:') ? domain : `urn:li:domain:${domain}`)
/** `urn:li:chart:(<platform>,<id>)`, as DataHub's make_chart_urn (with a platform instance, `<instance>.<id>`). */
export const makeChartUrn = (platform: string, id: string | number, platformInstance?: string): string => `urn:li:chart:(${platform},${platformInstance ? `${platformInstance}.` : ''}${id})`
/** `urn:li:dashboard:(<platform>,<id>)`, as DataHub's make_dashboard_urn. */
export const makeDashboardUrn = (platform: string, id: string | number, platformInstance?: string): string => `urn:li:dashboard:(${platform},${platformInstance ? `${platformInstance}.` : ''}${id})`
export const makeSchemaFieldUrn = (parentUrn: string, fieldPath: string): string => `urn:li:schemaField:(${parentUrn},${fieldPath})`

/** A work unit of one UPSERT proposal: the common case of a source. */
export function aspectWorkUnit(entityUrn: string, aspectName: string, value: unknown, id = `${entityUrn}-${aspectName}`): WorkUnit {
  return {id, kind: 'mcp', proposals: [mcp(entityUrn, aspectName, value)]}
}

/** `globalTags` from tag names or urns. */
export const globalTags = (tags: string[]) => ({tags: tags.map((t) => ({tag: makeTagUrn(t)}))})

/** What `schemaMetadata` says of a schema besides its fields. */
export interface SchemaMetadataOptions {
  /** Default 0; a source whose schemas have versions (Delta tables) gives its own. */
  version?: number
  /** Default `OtherSchema` with an empty raw schema, as most of DataHub's sources write it. */
  platformSchema?: Record<string, unknown>
  /** Further keys after the fields, in order (`primaryKeys`, `foreignKeys`). */
  extra?: Record<string, unknown>
}

const UNKNOWN = {time: 0, actor: 'urn:li:corpuser:unknown'}

/**
 * The `schemaMetadata` aspect as DataHub's sources write it: the fields inside the header they
 * all share (unknown actor at time 0, empty hash), keys in DataHub's order.
 */
export function schemaMetadata(schemaName: string, platform: string, fields: unknown[], opts: SchemaMetadataOptions = {}): Record<string, unknown> {
  return {
    schemaName,
    platform: makeDataPlatformUrn(platform),
    version: opts.version ?? 0,
    created: {...UNKNOWN},
    lastModified: {...UNKNOWN},
    hash: '',
    platformSchema: opts.platformSchema ?? {'com.linkedin.schema.OtherSchema': {rawSchema: ''}},
    fields,
    ...opts.extra,
  }
}

/** `ownership` from user names or urns, DataHub's TECHNICAL_OWNER by default. */
export const ownership = (owners: string[], type = 'TECHNICAL_OWNER', time = Date.now()) => ({
  owners: owners.map((o) => ({owner: o.startsWith('urn:li:') ? o : makeUserUrn(o), type})),
  lastModified: {time, actor: 'urn:li:corpuser:datahub'},
})

export type {ProposalInput}
