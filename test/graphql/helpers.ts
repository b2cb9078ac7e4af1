/**
 * Helpers for the GraphQL conformance suite: a GraphQL client over real HTTP, bulk loading
 * through the REST batch endpoint (the store-agnostic way in), aspect reads by version, and a
 * fixture catalog with one or more entities of every type the API serves.
 */
import {expect} from 'chai'
import {encodeUrnPath} from '../../src/model/urn.js'
import {http} from '../helpers/lite.js'

export interface GqlResponse {
  status: number
  body: {data?: any; errors?: Array<{message: string; locations?: unknown; path?: Array<string | number>; extensions?: {code: number; type: string; classification: string}}>}
  headers: Headers
}

/** POSTs a GraphQL request as a DataHub client would (JSON body; the admin's bearer token unless headers say otherwise). */
export async function gql(url: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<GqlResponse> {
  const res = await http(`${url}/api/graphql`, {body: {query, variables}, headers})
  return res as GqlResponse
}

/** Data of a request that must succeed. */
export async function ok(url: string, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const r = await gql(url, query, variables)
  expect(r.status, JSON.stringify(r.body)).to.equal(200)
  expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
  return r.body.data
}

/** The single error of a request that must fail. */
export async function fails(url: string, query: string, variables: Record<string, unknown> = {}): Promise<{message: string; path?: Array<string | number>; extensions?: {code: number; type: string; classification: string}; data: any}> {
  const r = await gql(url, query, variables)
  expect(r.body.errors, `expected an error, got ${JSON.stringify(r.body)}`).to.be.an('array').with.length.greaterThan(0)
  return {...r.body.errors![0]!, data: r.body.data}
}

export type Mcp = {
  entityUrn: string
  aspectName: string
  changeType: 'UPSERT'
  aspect: {contentType: 'application/json'; value: string}
}

export function mcp(entityUrn: string, aspectName: string, value: unknown): Mcp {
  return {entityUrn, aspectName, changeType: 'UPSERT', aspect: {contentType: 'application/json', value: JSON.stringify(value)}}
}

/** Writes proposals through `POST /aspects?action=ingestProposalBatch`, atomically per chunk. */
export async function ingest(url: string, proposals: Mcp[], chunk = 2000): Promise<void> {
  for (let i = 0; i < proposals.length; i += chunk) {
    const r = await http(`${url}/aspects?action=ingestProposalBatch`, {body: {proposals: proposals.slice(i, i + chunk), atomic: true}})
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    expect(r.body.value.failed).to.equal(0)
  }
}

/** `GET /aspects/{urn}?aspect=&version=`: {status, body}. */
export function aspectVersion(url: string, urn: string, aspect: string, version = 0) {
  return http(`${url}/aspects/${encodeUrnPath(urn)}?aspect=${aspect}&version=${version}`)
}

/** The latest value of an aspect (undefined when absent). */
export async function latest(url: string, urn: string, aspect: string): Promise<any> {
  const r = await aspectVersion(url, urn, aspect, 0)
  if (r.status === 404) return undefined
  expect(r.status).to.equal(200)
  return Object.values(r.body.aspect)[0]
}

export const ds = (name: string, platform = 'hive', env = 'PROD') => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},${env})`

const STAMP = {time: 1700000000000, actor: 'urn:li:corpuser:datahub'}
const field = (fieldPath: string, type: string, nativeDataType: string, extra: Record<string, unknown> = {}) => ({
  fieldPath,
  nullable: true,
  type: {type: {[`com.linkedin.schema.${type}`]: {}}},
  nativeDataType,
  ...extra,
})

export function schema(name: string, fields: unknown[], platform = 'hive') {
  return {schemaName: name, platform: `urn:li:dataPlatform:${platform}`, version: 0, created: STAMP, lastModified: STAMP, hash: 'h', platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: ''}}, fields}
}

/** A dataset with properties and a three-column schema (id, email, address). */
export function dataset(name: string, opts: {description?: string; extra?: Mcp[]} = {}): Mcp[] {
  const urn = ds(name)
  return [
    mcp(urn, 'datasetProperties', {name: name.split('.').pop(), description: opts.description ?? `The ${name} table`}),
    mcp(urn, 'schemaMetadata', schema(name, [field('id', 'NumberType', 'bigint'), field('email', 'StringType', 'varchar'), field('address', 'RecordType', 'struct')])),
    ...(opts.extra ?? []),
  ]
}

export const U = {
  jdoe: 'urn:li:corpuser:jdoe',
  alice: 'urn:li:corpuser:alice',
  datahub: 'urn:li:corpuser:datahub',
  analysts: 'urn:li:corpGroup:analysts',
  pii: 'urn:li:tag:pii',
  legacy: 'urn:li:tag:legacy',
  gold: 'urn:li:tag:gold',
  classification: 'urn:li:glossaryNode:Classification',
  confidential: 'urn:li:glossaryTerm:Classification.Confidential',
  public: 'urn:li:glossaryTerm:Classification.Public',
  marketing: 'urn:li:domain:marketing',
  finance: 'urn:li:domain:finance',
  hive: 'urn:li:dataPlatform:hive',
  container: 'urn:li:container:salesdb',
  customers: ds('sales.customers'),
  orders: ds('sales.orders'),
  dashboard: 'urn:li:dashboard:(looker,sales_overview)',
  chart: 'urn:li:chart:(looker,revenue_by_month)',
  flow: 'urn:li:dataFlow:(airflow,daily_etl,prod)',
  job: 'urn:li:dataJob:(urn:li:dataFlow:(airflow,daily_etl,prod),load_orders)',
  notebook: 'urn:li:notebook:(querybook,42)',
  mlModel: 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn_model,PROD)',
  mlModelGroup: 'urn:li:mlModelGroup:(urn:li:dataPlatform:sagemaker,churn_models,PROD)',
  mlFeature: 'urn:li:mlFeature:(users,age)',
  mlFeatureTable: 'urn:li:mlFeatureTable:(urn:li:dataPlatform:feast,user_features)',
  mlPrimaryKey: 'urn:li:mlPrimaryKey:(users,user_id)',
} as const

const changeStamps = {created: STAMP, lastModified: STAMP}

/** One or more entities of every type the GraphQL API reads. */
export function fixtureCatalog(): Mcp[] {
  return [
    mcp(U.hive, 'dataPlatformInfo', {name: 'hive', displayName: 'Hive', type: 'FILE_SYSTEM', datasetNameDelimiter: '.'}),
    mcp(U.jdoe, 'corpUserInfo', {active: true, displayName: 'John Doe', email: 'jdoe@example.com', title: 'Data Engineer', managerUrn: U.alice}),
    mcp(U.jdoe, 'corpUserEditableInfo', {aboutMe: 'I move data', skills: ['sql']}),
    mcp(U.jdoe, 'corpUserStatus', {status: 'ACTIVE', lastModified: STAMP}),
    mcp(U.alice, 'corpUserInfo', {active: true, displayName: 'Alice Analyst'}),
    mcp(U.datahub, 'corpUserInfo', {active: true, displayName: 'DataHub'}),
    mcp(U.analysts, 'corpGroupInfo', {admins: [], members: [U.jdoe], groups: [], displayName: 'Analysts', description: 'The analytics team'}),
    mcp(U.pii, 'tagProperties', {name: 'PII', description: 'Personally identifiable information'}),
    mcp(U.legacy, 'tagProperties', {name: 'Legacy', description: 'Scheduled for retirement'}),
    mcp(U.gold, 'tagProperties', {name: 'Gold', description: 'Certified data'}),
    mcp(U.classification, 'glossaryNodeInfo', {name: 'Classification', definition: 'How sensitive data is'}),
    mcp(U.confidential, 'glossaryTermInfo', {name: 'Confidential', definition: 'Must not leave the company', termSource: 'INTERNAL', parentNode: U.classification}),
    mcp(U.public, 'glossaryTermInfo', {definition: 'Anyone may see it', termSource: 'INTERNAL', parentNode: U.classification}),
    mcp(U.marketing, 'domainProperties', {name: 'Marketing', description: 'Campaigns and customers'}),
    mcp(U.finance, 'domainProperties', {name: 'Finance'}),
    mcp(U.container, 'containerProperties', {name: 'sales', description: 'The sales database', customProperties: {engine: 'hive'}}),
    mcp(U.container, 'dataPlatformInstance', {platform: U.hive}),
    mcp(U.container, 'subTypes', {typeNames: ['Database']}),
    ...dataset('sales.customers', {
      description: 'One row per customer, refreshed nightly',
      extra: [
        mcp(U.customers, 'datasetProperties', {name: 'customers', description: 'One row per customer, refreshed nightly', customProperties: {team: 'crm', tier: '1'}}),
        mcp(U.customers, 'ownership', {owners: [{owner: U.jdoe, type: 'TECHNICAL_OWNER'}, {owner: U.analysts, type: 'BUSINESS_OWNER'}], lastModified: STAMP}),
        mcp(U.customers, 'globalTags', {tags: [{tag: U.pii}]}),
        mcp(U.customers, 'glossaryTerms', {terms: [{urn: U.confidential}], auditStamp: STAMP}),
        mcp(U.customers, 'domains', {domains: [U.marketing]}),
        mcp(U.customers, 'container', {container: U.container}),
        mcp(U.customers, 'browsePaths', {paths: ['/prod/hive/sales']}),
        mcp(U.customers, 'subTypes', {typeNames: ['Table']}),
        mcp(U.customers, 'status', {removed: false}),
      ],
    }),
    // No name in datasetProperties: properties.name falls back to the key name.
    mcp(U.orders, 'datasetProperties', {description: 'Orders placed on the web shop'}),
    mcp(U.orders, 'schemaMetadata', schema('sales.orders', [field('order_id', 'NumberType', 'bigint'), field('items', 'ArrayType', 'array<string>')])),
    mcp(U.dashboard, 'dashboardInfo', {title: 'Sales overview', description: 'Revenue at a glance', lastModified: changeStamps, charts: [U.chart], access: 'PUBLIC'}),
    mcp(U.chart, 'chartInfo', {title: 'Revenue by month', description: 'Monthly revenue', lastModified: changeStamps, type: 'BAR'}),
    mcp(U.chart, 'chartQuery', {rawQuery: 'select month, sum(amount) from orders group by 1', type: 'SQL'}),
    mcp(U.flow, 'dataFlowInfo', {name: 'daily_etl', description: 'Nightly loads', project: 'warehouse'}),
    mcp(U.job, 'dataJobInfo', {name: 'load_orders', description: 'Loads the orders', type: 'COMMAND'}),
    mcp(U.job, 'dataJobInputOutput', {inputDatasets: [U.customers], outputDatasets: [U.orders]}),
    mcp(U.notebook, 'notebookInfo', {title: 'Churn analysis', description: 'Who leaves and why', changeAuditStamps: changeStamps}),
    mcp(U.mlModel, 'mlModelProperties', {description: 'Predicts churn', type: 'xgboost', customProperties: {auc: '0.91'}}),
    mcp(U.mlModelGroup, 'mlModelGroupProperties', {description: 'All churn models'}),
    mcp(U.mlFeature, 'mlFeatureProperties', {description: 'Age in years', dataType: 'COUNT'}),
    mcp(U.mlFeatureTable, 'mlFeatureTableProperties', {description: 'User features', mlFeatures: [U.mlFeature], mlPrimaryKeys: [U.mlPrimaryKey]}),
    mcp(U.mlPrimaryKey, 'mlPrimaryKeyProperties', {sources: [], description: 'The user id', dataType: 'ORDINAL'}),
  ]
}
