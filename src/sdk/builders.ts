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

/** `ownership` from user names or urns, DataHub's TECHNICAL_OWNER by default. */
export const ownership = (owners: string[], type = 'TECHNICAL_OWNER', time = Date.now()) => ({
  owners: owners.map((o) => ({owner: o.startsWith('urn:li:') ? o : makeUserUrn(o), type})),
  lastModified: {time, actor: 'urn:li:corpuser:datahub'},
})

export type {ProposalInput}
