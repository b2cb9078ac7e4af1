/**
 * A little sample catalog for `mdcli lite --sample`, so that a first `mdcli get` or search shows
 * something: a platform, three datasets with schemas, owners, tags and lineage, two users, a
 * glossary term and a domain. Loaded only into a store that does not hold it yet.
 */
import {type Catalog, SYSTEM_ACTOR} from '../catalog/catalog.js'
import type {ProposalInput} from '../model/wire.js'

const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`
const TIME = 1700000000000
const stamp = {time: TIME, actor: 'urn:li:corpuser:datahub'}

function p(urn: string, aspectName: string, value: unknown): ProposalInput {
  return {entityUrn: urn, aspectName, changeType: 'UPSERT', aspect: {json: value}}
}

function field(fieldPath: string, type: string, nativeDataType: string, description?: string) {
  return {fieldPath, nullable: true, type: {type: {[`com.linkedin.schema.${type}`]: {}}}, nativeDataType, ...(description ? {description} : {})}
}

function schema(name: string, fields: unknown[]) {
  return {schemaName: name, platform: 'urn:li:dataPlatform:hive', version: 0, created: stamp, lastModified: stamp, hash: '', platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: ''}}, fields}
}

/** The run id the sample's rows carry (`ingest list-runs` lists it; `ingest rollback` removes the sample). */
export const SAMPLE_RUN_ID = 'mdcli-sample-data'

export const SAMPLE: ProposalInput[] = [
  p('urn:li:dataPlatform:hive', 'dataPlatformInfo', {name: 'hive', displayName: 'Hive', type: 'FILE_SYSTEM', datasetNameDelimiter: '.'}),
  p('urn:li:corpuser:jdoe', 'corpUserInfo', {active: true, displayName: 'John Doe', email: 'jdoe@example.com', title: 'Data Engineer'}),
  p('urn:li:corpuser:datahub', 'corpUserInfo', {active: true, displayName: 'Admin', title: 'Root user'}),
  p('urn:li:tag:pii', 'tagProperties', {name: 'pii', description: 'Personally identifiable information'}),
  p('urn:li:tag:legacy', 'tagProperties', {name: 'legacy', description: 'Scheduled for retirement'}),
  p('urn:li:glossaryTerm:Classification.Confidential', 'glossaryTermInfo', {name: 'Confidential', definition: 'Data that must not leave the company', termSource: 'INTERNAL'}),
  p('urn:li:domain:marketing', 'domainProperties', {name: 'Marketing', description: 'Campaigns and customers'}),
  p(ds('sample_db.customers'), 'datasetProperties', {name: 'customers', description: 'One row per customer, refreshed nightly', customProperties: {owner_team: 'crm'}}),
  p(ds('sample_db.customers'), 'schemaMetadata', schema('customers', [field('id', 'NumberType', 'bigint', 'Customer id'), field('email', 'StringType', 'string', 'Contact email'), field('signup_date', 'DateType', 'date')])),
  p(ds('sample_db.customers'), 'ownership', {owners: [{owner: 'urn:li:corpuser:jdoe', type: 'TECHNICAL_OWNER'}], lastModified: stamp}),
  p(ds('sample_db.customers'), 'globalTags', {tags: [{tag: 'urn:li:tag:pii'}]}),
  p(ds('sample_db.customers'), 'domains', {domains: ['urn:li:domain:marketing']}),
  p(ds('sample_db.orders'), 'datasetProperties', {name: 'orders', description: 'Orders placed on the web shop'}),
  p(ds('sample_db.orders'), 'schemaMetadata', schema('orders', [field('order_id', 'NumberType', 'bigint'), field('customer_id', 'NumberType', 'bigint'), field('amount', 'NumberType', 'decimal(10,2)')])),
  p(ds('sample_db.orders'), 'ownership', {owners: [{owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER'}], lastModified: stamp}),
  p(ds('sample_db.customer_orders'), 'datasetProperties', {name: 'customer_orders', description: 'Orders joined with customers, for marketing reports'}),
  p(ds('sample_db.customer_orders'), 'upstreamLineage', {upstreams: [{dataset: ds('sample_db.customers'), type: 'TRANSFORMED', auditStamp: stamp}, {dataset: ds('sample_db.orders'), type: 'TRANSFORMED', auditStamp: stamp}]}),
  p(ds('sample_db.customer_orders'), 'globalTags', {tags: [{tag: 'urn:li:tag:legacy'}]}),
  p(ds('sample_db.customer_orders'), 'glossaryTerms', {terms: [{urn: 'urn:li:glossaryTerm:Classification.Confidential'}], auditStamp: stamp}),
]

/**
 * Loads the sample unless it is there already (the access bootstrap writes users and policies
 * first, so "empty" cannot be the test); returns the aspects written and the key aspects of the
 * entities they created (src/model/counts.ts), whose sum is the rows of its run in `list-runs`.
 */
export async function loadSampleData(catalog: Catalog): Promise<{aspects: number; keyAspects: number}> {
  if (await catalog.exists(ds('sample_db.customers'), {includeSoftDeleted: true})) return {aspects: 0, keyAspects: 0}
  const outcomes = await catalog.propose(SYSTEM_ACTOR, SAMPLE, {atomic: true, defaults: {runId: SAMPLE_RUN_ID}})
  return {aspects: outcomes.filter((o) => o.ok && o.changed !== false).length, keyAspects: outcomes.filter((o) => o.ok && o.keyAspect).length}
}
