import {expect} from 'chai'
import {join} from 'node:path'
import {cleanup, http, runCli, tempDir, useLite} from '../helpers/lite.js'
import {requireSharedFixtures} from '../helpers/requires.js'
import {ok} from './helpers.js'
import {datasetUrn, ingestJson, mcpRecord, readJson, writeJson, writeRecipe} from '../ingest/helpers.js'

const DS = datasetUrn('types.orders')
const FIELD = `urn:li:schemaField:(${DS},order_id)`
const PRODUCT = 'urn:li:dataProduct:revenue'
const PROP = 'urn:li:structuredProperty:io.acme.retention'
const FORM = 'urn:li:form:verify_retention'
const QUERY = 'urn:li:query:top_orders'
const ASSERTION = 'urn:li:assertion:orders_not_empty'
const RUN = 'urn:li:dataProcessInstance:run42'
const POST = 'urn:li:post:welcome'
const POLICY = 'urn:li:dataHubPolicy:readers'
const ROLE = 'urn:li:dataHubRole:Reader'
const DOC = 'urn:li:document:faq-orders'
const JOB = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,PROD),load_orders)'
const BARE = datasetUrn('types.orders_bare')
const DEPLOY = 'urn:li:mlModelDeployment:(urn:li:dataPlatform:sagemaker,churn-endpoint,PROD)'
const RESOURCE = 'urn:li:platformResource:1cec84235c544a14'
const stamp = {time: 1_700_000_000_000, actor: 'urn:li:corpuser:ann'}

/** One entity of each type this file covers, written as a DataHub change-event file would carry it. */
function records(): Array<Record<string, unknown>> {
  return [
    mcpRecord(DS, 'datasetProperties', {name: 'orders', customProperties: {}, tags: []}),
    mcpRecord(PRODUCT, 'dataProductProperties', {name: 'Revenue', description: 'Revenue reporting', customProperties: {tier: 'gold'}, assets: [{destinationUrn: DS}]}),
    mcpRecord(PRODUCT, 'ownership', {owners: [{owner: 'urn:li:corpuser:ann', type: 'DATAOWNER'}], lastModified: stamp}),
    mcpRecord(PRODUCT, 'globalTags', {tags: [{tag: 'urn:li:tag:finance'}]}),
    mcpRecord(PRODUCT, 'domains', {domains: ['urn:li:domain:finance']}),
    mcpRecord('urn:li:dataType:datahub.number', 'dataTypeInfo', {qualifiedName: 'datahub.number', displayName: 'Number'}),
    mcpRecord('urn:li:entityType:datahub.dataset', 'entityTypeInfo', {qualifiedName: 'datahub.dataset', displayName: 'Dataset'}),
    mcpRecord(PROP, 'propertyDefinition', {
      qualifiedName: 'io.acme.retention', displayName: 'Retention', valueType: 'urn:li:dataType:datahub.number',
      entityTypes: ['urn:li:entityType:datahub.dataset'], cardinality: 'SINGLE',
      allowedValues: [{value: {double: 30}, description: 'a month'}, {value: {double: 365}}], created: stamp,
    }),
    mcpRecord(PROP, 'structuredPropertySettings', {isHidden: false, showInSearchFilters: true}),
    mcpRecord(FORM, 'formInfo', {
      name: 'Verify retention', type: 'VERIFICATION',
      prompts: [{id: 'p1', title: 'Retention?', type: 'STRUCTURED_PROPERTY', structuredPropertyParams: {urn: PROP}, required: true}],
      actors: {owners: false, users: ['urn:li:corpuser:ann']},
    }),
    mcpRecord(QUERY, 'queryProperties', {statement: {value: 'SELECT * FROM orders', language: 'SQL'}, source: 'MANUAL', name: 'Top orders', created: stamp, lastModified: stamp}),
    mcpRecord(QUERY, 'querySubjects', {subjects: [{entity: DS}, {entity: FIELD}]}),
    mcpRecord(ASSERTION, 'assertionInfo', {
      type: 'DATASET', description: 'orders has rows',
      datasetAssertion: {dataset: DS, scope: 'DATASET_ROWS', operator: 'GREATER_THAN', aggregation: 'ROW_COUNT', parameters: {value: {value: '0', type: 'NUMBER'}}},
    }),
    mcpRecord(ASSERTION, 'dataPlatformInstance', {platform: 'urn:li:dataPlatform:great-expectations'}),
    mcpRecord(ASSERTION, 'assertionRunEvent', {
      timestampMillis: stamp.time, runId: 'r1', assertionUrn: ASSERTION, asserteeUrn: DS, status: 'COMPLETE',
      result: {type: 'SUCCESS', actualAggValue: 12, nativeResults: {observed: '12'}},
    }),
    mcpRecord(RUN, 'dataProcessInstanceProperties', {name: 'run 42', created: stamp, customProperties: {attempt: '1'}}),
    mcpRecord(RUN, 'dataProcessInstanceRelationships', {upstreamInstances: [], parentTemplate: JOB}),
    mcpRecord(RUN, 'dataProcessInstanceRunEvent', {timestampMillis: stamp.time, status: 'COMPLETE', attempt: 1, result: {type: 'SUCCESS', nativeResultType: 'airflow'}}),
    mcpRecord(POST, 'postInfo', {type: 'HOME_PAGE_ANNOUNCEMENT', content: {title: 'Welcome', type: 'TEXT', description: 'Hello'}, created: 5, lastModified: 6}),
    mcpRecord(POLICY, 'dataHubPolicyInfo', {
      displayName: 'Readers', description: 'read all', type: 'METADATA', state: 'ACTIVE', privileges: ['VIEW_ENTITY_PAGE'],
      actors: {allUsers: true, resourceOwners: false}, editable: true,
    }),
    mcpRecord(ROLE, 'dataHubRoleInfo', {name: 'Reader', description: 'Reads'}),
    mcpRecord(FIELD, 'status', {removed: false}),
    mcpRecord(DOC, 'documentInfo', {
      title: 'Orders FAQ', subType: 'FAQ', contents: {text: 'Where do orders come from?'}, status: {state: 'PUBLISHED'},
      source: {sourceType: 'EXTERNAL', externalUrl: 'https://wiki.example.com/orders'}, created: stamp, relatedAssets: [{asset: DS}],
    }),
    mcpRecord(BARE, 'datasetProperties', {name: 'orders_bare', customProperties: {}, tags: []}),
    mcpRecord(DS, 'siblings', {siblings: [BARE], primary: true}),
    mcpRecord(DS, 'structuredProperties', {properties: [
      {propertyUrn: PROP, values: [{double: 30}]},
      {propertyUrn: 'urn:li:structuredProperty:io.acme.steward', values: ['urn:li:corpuser:ann', 'someone else']},
    ]}),
    mcpRecord(DS, 'embed', {renderUrl: 'https://bi.example.com/orders'}),
    mcpRecord(DS, 'datasetUsageStatistics', {
      timestampMillis: stamp.time, eventGranularity: {unit: 'DAY', multiple: 1}, uniqueUserCount: 2, totalSqlQueries: 9, topSqlQueries: ['SELECT 1'],
      userCounts: [{user: 'urn:li:corpuser:bob', count: 2}, {user: 'urn:li:corpuser:ann', count: 7, userEmail: 'ann@example.com'}], fieldCounts: [{fieldPath: 'order_id', count: 4}],
    }),
    mcpRecord(DS, 'operation', {timestampMillis: stamp.time, lastUpdatedTimestamp: stamp.time - 10, operationType: 'INSERT', numAffectedRows: 5, customProperties: {job: 'nightly'}}),
    mcpRecord(DS, 'operation', {timestampMillis: stamp.time + 1000, lastUpdatedTimestamp: stamp.time + 990, operationType: 'UPDATE'}),
    mcpRecord(DS, 'datasetProfile', {timestampMillis: stamp.time, rowCount: 12, columnCount: 3, fieldProfiles: [{fieldPath: 'order_id', uniqueCount: 12, nullCount: 0, sampleValues: ['1', '2']}]}),
    mcpRecord(JOB, 'dataJobInfo', {name: 'load_orders', type: 'COMMAND', customProperties: {}}),
    mcpRecord(DEPLOY, 'mlModelDeploymentProperties', {
      description: 'Churn model endpoint', createdAt: 5, version: {versionTag: '3'}, status: 'IN_SERVICE', customProperties: {region: 'eu'}, externalUrl: 'https://ml.example.com/churn',
    }),
    mcpRecord(DEPLOY, 'ownership', {owners: [{owner: 'urn:li:corpuser:ann', type: 'TECHNICAL_OWNER'}], lastModified: stamp}),
    mcpRecord(RESOURCE, 'platformResourceInfo', {resourceType: 'user', primaryKey: 'U123', secondaryKeys: ['ann@example.com'], value: {blob: '{"id":"U123"}', contentType: 'JSON', schemaType: 'JSON'}}),
    mcpRecord(RESOURCE, 'dataPlatformInstance', {platform: 'urn:li:dataPlatform:slack'}),
    mcpRecord('urn:li:corpuser:ann', 'corpUserSettings', {appearance: {showSimplifiedHomepage: true}}),
  ]
}

describe("GraphQL: DataHub's types for data products, structured properties, forms, queries, assertions, runs, posts, policies, roles, fields", function () {
  this.timeout(300_000)
  const lite = useLite()
  let dir: string
  const gql = (query: string, variables: Record<string, unknown> = {}) => ok(lite.url, query, variables)
  before(async () => {
    dir = tempDir('mdcli-types-')
    const file = writeJson(dir, 'types.json', records())
    const r = await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'file', config: {path: file}}})], {env: lite.env()})
    expect(r.code, r.stdout + r.stderr).to.equal(0)
  })
  after(() => cleanup(dir))

  it('reads a data product page: properties, owners, tags, domain and its assets', async () => {
    const d = await gql(`query getDataProduct($urn: String!) {
      dataProduct(urn: $urn) { urn type exists
        properties { name description externalUrl numAssets customProperties { key value } }
        ownership { owners { owner { ... on CorpUser { urn } } } }
        tags { tags { tag { urn } } }
        domain { domain { urn } }
        glossaryTerms { terms { term { urn } } }
        institutionalMemory { elements { url } }
        entities(input: {query: "*", start: 0, count: 10}) { total searchResults { entity { urn type ... on Dataset { name } } } }
      } }`, {urn: PRODUCT})
    const p = d.dataProduct
    expect(p.type).to.equal('DATA_PRODUCT')
    expect(p.properties).to.deep.equal({name: 'Revenue', description: 'Revenue reporting', externalUrl: null, numAssets: 1, customProperties: [{key: 'tier', value: 'gold'}]})
    expect(p.ownership.owners[0].owner.urn).to.equal('urn:li:corpuser:ann')
    expect(p.tags.tags[0].tag.urn).to.equal('urn:li:tag:finance')
    expect(p.domain.domain.urn).to.equal('urn:li:domain:finance')
    expect(p.glossaryTerms).to.equal(null)
    expect(p.entities).to.deep.equal({total: 1, searchResults: [{entity: {urn: DS, type: 'DATASET', name: 'types.orders'}}]})
    const found = await gql('{ searchAcrossEntities(input: {types: [DATA_PRODUCT], query: "revenue", start: 0, count: 5}) { total searchResults { entity { urn ... on DataProduct { properties { name } } } } } }')
    expect(found.searchAcrossEntities).to.deep.equal({total: 1, searchResults: [{entity: {urn: PRODUCT, properties: {name: 'Revenue'}}}]})
    const none = await gql('{ dataProduct(urn: "urn:li:dataProduct:nothing") { urn } }')
    expect(none.dataProduct).to.equal(null)
  })

  it('reads a structured property with its value type, entity types and allowed values, and a form that prompts for it', async () => {
    const d = await gql(`{
      structuredProperty(urn: "${PROP}") { urn type
        definition { qualifiedName displayName cardinality immutable filterStatus
          valueType { urn info { type qualifiedName displayName } }
          entityTypes { urn info { type qualifiedName } }
          allowedValues { value { ... on NumberValue { numberValue } ... on StringValue { stringValue } } description }
          created { time actor { urn } } }
        settings { isHidden showInSearchFilters showAsAssetBadge } }
      form(urn: "${FORM}") { urn type info { name type prompts { id formUrn title required type structuredPropertyParams { structuredProperty { urn definition { displayName } } } } actors { owners users { urn } groups { urn } } } }
    }`)
    const def = d.structuredProperty.definition
    expect(d.structuredProperty.type).to.equal('STRUCTURED_PROPERTY')
    expect(def.valueType).to.deep.equal({urn: 'urn:li:dataType:datahub.number', info: {type: 'NUMBER', qualifiedName: 'datahub.number', displayName: 'Number'}})
    expect(def.entityTypes).to.deep.equal([{urn: 'urn:li:entityType:datahub.dataset', info: {type: 'DATASET', qualifiedName: 'datahub.dataset'}}])
    expect(def.allowedValues).to.deep.equal([{value: {numberValue: 30}, description: 'a month'}, {value: {numberValue: 365}, description: null}])
    expect(def.created).to.deep.equal({time: stamp.time, actor: {urn: 'urn:li:corpuser:ann'}})
    expect(def).to.deep.include({qualifiedName: 'io.acme.retention', displayName: 'Retention', cardinality: 'SINGLE', immutable: false})
    expect(d.structuredProperty.settings).to.deep.equal({isHidden: false, showInSearchFilters: true, showAsAssetBadge: false})
    expect(d.form.info).to.deep.equal({
      name: 'Verify retention', type: 'VERIFICATION',
      prompts: [{id: 'p1', formUrn: FORM, title: 'Retention?', required: true, type: 'STRUCTURED_PROPERTY', structuredPropertyParams: {structuredProperty: {urn: PROP, definition: {displayName: 'Retention'}}}}],
      actors: {owners: false, users: [{urn: 'urn:li:corpuser:ann'}], groups: []},
    })
  })

  it('reads a query with its subjects, an assertion with its latest run, and a process run with its job', async () => {
    const {entity: q} = await gql(`{ entity(urn: "${QUERY}") { urn type
      ... on QueryEntity { properties { name source statement { value language } created { time actor } origin { urn } } subjects { dataset { urn name } schemaField { urn fieldPath parent { urn } } } platform { urn } } } }`)
    const {assertion: a} = await gql(`{ assertion(urn: "${ASSERTION}") { platform { urn } info { type description datasetAssertion { datasetUrn scope operator aggregation parameters { value { value type } } fields { path } } }
      runEvents(status: COMPLETE, limit: 10) { total succeeded failed errored runEvents { timestampMillis runId asserteeUrn status result { type actualAggValue nativeResults { key value } } } } } }`)
    const {dataProcessInstance: run} = await gql(`{ dataProcessInstance(urn: "${RUN}") { urn type name created { time } properties { name customProperties { key value } } state(limit: 5) { timestampMillis status attempt result { resultType nativeResultType } } parentTemplate { urn type } } }`)
    expect(q.type).to.equal('QUERY')
    expect(q.properties).to.deep.equal({name: 'Top orders', source: 'MANUAL', statement: {value: 'SELECT * FROM orders', language: 'SQL'}, created: {time: stamp.time, actor: 'urn:li:corpuser:ann'}, origin: null})
    expect(q.subjects).to.deep.equal([
      {dataset: {urn: DS, name: 'types.orders'}, schemaField: null},
      {dataset: {urn: DS, name: 'types.orders'}, schemaField: {urn: FIELD, fieldPath: 'order_id', parent: {urn: DS}}},
    ])
    expect(q.platform).to.equal(null)
    expect(a.platform.urn).to.equal('urn:li:dataPlatform:great-expectations')
    expect(a.info).to.deep.equal({type: 'DATASET', description: 'orders has rows', datasetAssertion: {datasetUrn: DS, scope: 'DATASET_ROWS', operator: 'GREATER_THAN', aggregation: 'ROW_COUNT', parameters: {value: {value: '0', type: 'NUMBER'}}, fields: null}})
    expect(a.runEvents).to.deep.equal({total: 1, succeeded: 1, failed: 0, errored: 0, runEvents: [{timestampMillis: stamp.time, runId: 'r1', asserteeUrn: DS, status: 'COMPLETE', result: {type: 'SUCCESS', actualAggValue: 12, nativeResults: [{key: 'observed', value: '12'}]}}]})
    expect(run).to.deep.include({urn: RUN, type: 'DATA_PROCESS_INSTANCE', name: 'run 42', created: {time: stamp.time}})
    expect(run.properties).to.deep.equal({name: 'run 42', customProperties: [{key: 'attempt', value: '1'}]})
    expect(run.state).to.deep.equal([{timestampMillis: stamp.time, status: 'COMPLETE', attempt: 1, result: {resultType: 'SUCCESS', nativeResultType: 'airflow'}}])
    expect(run.parentTemplate).to.deep.equal({urn: JOB, type: 'DATA_JOB'})
    const window = await gql(`{ assertion(urn: "${ASSERTION}") { runEvents(startTimeMillis: ${stamp.time + 1}) { total runEvents { runId } } } }`)
    expect(window.assertion.runEvents).to.deep.equal({total: 0, runEvents: []})
  })

  it('reads posts, policies, roles, schema fields and documents', async () => {
    const d = await gql(`{
      post: entity(urn: "${POST}") { urn type ... on Post { postType content { contentType title description link media { type location } } lastModified { time } } }
      policy: entity(urn: "${POLICY}") { urn type ... on DataHubPolicy { name policyType state description privileges editable actors { allUsers allGroups resourceOwners users } resources { type } } }
      role: entity(urn: "${ROLE}") { urn type ... on DataHubRole { name description } }
      field: entity(urn: "${FIELD}") { urn type ... on SchemaFieldEntity { fieldPath parent { urn ... on Dataset { name } } status { removed } } }
    }`)
    expect(d.post).to.deep.equal({urn: POST, type: 'POST', postType: 'HOME_PAGE_ANNOUNCEMENT', content: {contentType: 'TEXT', title: 'Welcome', description: 'Hello', link: null, media: null}, lastModified: {time: 6}})
    expect(d.policy).to.deep.equal({urn: POLICY, type: 'DATAHUB_POLICY', name: 'Readers', policyType: 'METADATA', state: 'ACTIVE', description: 'read all', privileges: ['VIEW_ENTITY_PAGE'], editable: true, actors: {allUsers: true, allGroups: false, resourceOwners: false, users: null}, resources: null})
    expect(d.role).to.deep.equal({urn: ROLE, type: 'DATAHUB_ROLE', name: 'Reader', description: 'Reads'})
    const doc = await gql(`{ document(urn: "${DOC}") { urn type subType info { title status { state } contents { text } source { sourceType externalUrl externalId } created { time } lastModified { time } relatedAssets { asset { urn } } relatedDocuments { document { urn } } parentDocument { document { urn } } } } }`)
    expect(doc.document).to.deep.equal({
      urn: DOC, type: 'DOCUMENT', subType: 'FAQ',
      info: {
        title: 'Orders FAQ', status: {state: 'PUBLISHED'}, contents: {text: 'Where do orders come from?'}, source: {sourceType: 'EXTERNAL', externalUrl: 'https://wiki.example.com/orders', externalId: null},
        created: {time: stamp.time}, lastModified: {time: stamp.time}, relatedAssets: [{asset: {urn: DS}}], relatedDocuments: null, parentDocument: null,
      },
    })
    expect(d.field).to.deep.equal({urn: FIELD, type: 'SCHEMA_FIELD', fieldPath: 'order_id', parent: {urn: DS, name: 'types.orders'}, status: {removed: false}})
  })

  it("keeps a policy's content from those who may not manage policies, as listPolicies does", async () => {
    const t = await gql('mutation t($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { accessToken } }', {
      input: {type: 'PERSONAL', actorUrn: 'urn:li:corpuser:bob', duration: 'ONE_DAY', name: "bob's token"},
    })
    const r = await http(`${lite.url}/api/graphql`, {token: t.createAccessToken.accessToken, body: {query: `{ entity(urn: "${POLICY}") { urn ... on DataHubPolicy { name privileges } } role: entity(urn: "${ROLE}") { urn ... on DataHubRole { name } } }`}})
    expect(r.status).to.equal(200)
    expect(r.body.errors?.[0]?.extensions?.code, JSON.stringify(r.body)).to.equal(403)
    expect(r.body.data.entity).to.equal(null)
    expect(r.body.data.role).to.deep.equal({urn: ROLE, name: 'Reader'})
  })

  it('reads an ML model deployment and a platform resource', async () => {
    const d = await gql(`{ mlModelDeployment(urn: "${DEPLOY}") { urn type name origin platform { urn } description
        properties { description externalUrl createdAt version { versionTag } status customProperties { key value } }
        ownership { owners { owner { ... on CorpUser { urn } } } } tags { tags { tag { urn } } } }
      res: entity(urn: "${RESOURCE}") { urn type ... on PlatformResource { platform { urn } info { resourceType primaryKey secondaryKeys value { blob contentType schemaType schemaRef } } } } }`)
    expect(d.mlModelDeployment).to.deep.equal({
      urn: DEPLOY, type: 'MLMODEL_DEPLOYMENT', name: 'churn-endpoint', origin: 'PROD', platform: {urn: 'urn:li:dataPlatform:sagemaker'}, description: 'Churn model endpoint',
      properties: {description: 'Churn model endpoint', externalUrl: 'https://ml.example.com/churn', createdAt: 5, version: {versionTag: '3'}, status: 'IN_SERVICE', customProperties: [{key: 'region', value: 'eu'}]},
      ownership: {owners: [{owner: {urn: 'urn:li:corpuser:ann'}}]}, tags: null,
    })
    expect(d.res).to.deep.equal({
      urn: RESOURCE, type: 'PLATFORM_RESOURCE', platform: {urn: 'urn:li:dataPlatform:slack'},
      info: {resourceType: 'user', primaryKey: 'U123', secondaryKeys: ['ann@example.com'], value: {blob: '{"id":"U123"}', contentType: 'JSON', schemaType: 'JSON', schemaRef: null}},
    })
  })

  it('reads an access token as an entity only as listAccessTokens shows it: its owner and user, or a token manager', async () => {
    const make = async (actorUrn: string, name: string, token = lite.token) => {
      const r = await http(`${lite.url}/api/graphql`, {token, body: {query: 'mutation t($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { accessToken metadata { urn } } }', variables: {input: {type: 'PERSONAL', actorUrn, duration: 'ONE_DAY', name}}}})
      expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
      return r.body.data.createAccessToken as {accessToken: string; metadata: {urn: string}}
    }
    const carol = await make('urn:li:corpuser:carol', "carol's token")
    const dave = await make('urn:li:corpuser:dave', "dave's token")
    const read = (token: string, urn: string) =>
      http(`${lite.url}/api/graphql`, {token, body: {query: `{ entity(urn: "${urn}") { urn type ... on AccessTokenMetadata { name actorUrn expiresAt actorEntity { urn } } } }`}})
    // Carol reads her own token; the admin reads anyone's.
    const own = await read(carol.accessToken, carol.metadata.urn)
    expect(own.body.errors, JSON.stringify(own.body)).to.equal(undefined)
    expect(own.body.data.entity).to.include({urn: carol.metadata.urn, type: 'ACCESS_TOKEN', name: "carol's token", actorUrn: 'urn:li:corpuser:carol'})
    expect(own.body.data.entity.actorEntity).to.deep.equal({urn: 'urn:li:corpuser:carol'})
    const admin = await read(lite.token, dave.metadata.urn)
    expect(admin.body.data.entity.name).to.equal("dave's token")
    // Carol may not read Dave's: an authorization error and no metadata.
    const other = await read(carol.accessToken, dave.metadata.urn)
    expect(other.body.errors?.[0]?.extensions?.code, JSON.stringify(other.body)).to.equal(403)
    expect(other.body.data.entity).to.equal(null)
    expect(JSON.stringify(other.body)).to.not.include("dave's token")
  })

  it('refuses an urn of another type on a typed getter, and answers null for an unknown one', async () => {
    const r = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query: `{ assertion(urn: "${DS}") { urn } }`}})
    expect(r.body.errors?.[0]?.message).to.match(/expects a assertion urn/)
    const d = await gql('{ assertion(urn: "urn:li:assertion:nope") { urn } form(urn: "urn:li:form:nope") { urn } }')
    expect(d).to.deep.equal({assertion: null, form: null})
  })

  it("answers a dataset page's usage, operations, profiles, assertions, health, siblings and embed from the stored aspects", async () => {
    const d = await gql(`query getDataset($urn: String!) { dataset(urn: $urn) {
      siblings { isPrimary siblings { urn } }
      embed { renderUrl }
      usageStats(range: MONTH) { buckets { bucket duration metrics { totalSqlQueries topSqlQueries } } aggregations { uniqueUserCount totalSqlQueries users { user { urn } count userEmail } fields { fieldName count } } }
      statsSummary { queryCountLast30Days uniqueUserCountLast30Days topUsersLast30Days { urn } }
      operations(limit: 10) { timestampMillis lastUpdatedTimestamp operationType numAffectedRows customProperties { key value } }
      datasetProfiles(limit: 1) { timestampMillis rowCount columnCount fieldProfiles { fieldPath uniqueCount nullCount sampleValues } }
      assertions(start: 0, count: 10) { total assertions { urn info { type } runEvents(status: COMPLETE, limit: 1) { runEvents { result { type } } } } }
      health { type status message }
      structuredProperties { properties { structuredProperty { urn definition { displayName } } values { ... on StringValue { stringValue } ... on NumberValue { numberValue } } valueEntities { urn } associatedUrn } }
    } }`, {urn: DS})
    const ds = d.dataset
    expect(ds.siblings).to.deep.equal({isPrimary: true, siblings: [{urn: BARE}]})
    expect(ds.embed).to.deep.equal({renderUrl: 'https://bi.example.com/orders'})
    expect(ds.usageStats.buckets).to.deep.equal([{bucket: stamp.time, duration: 'DAY', metrics: {totalSqlQueries: 9, topSqlQueries: ['SELECT 1']}}])
    expect(ds.usageStats.aggregations).to.deep.equal({
      uniqueUserCount: 2, totalSqlQueries: 9,
      users: [{user: {urn: 'urn:li:corpuser:bob'}, count: 2, userEmail: null}, {user: {urn: 'urn:li:corpuser:ann'}, count: 7, userEmail: 'ann@example.com'}],
      fields: [{fieldName: 'order_id', count: 4}],
    })
    expect(ds.statsSummary).to.deep.equal({queryCountLast30Days: 9, uniqueUserCountLast30Days: 2, topUsersLast30Days: [{urn: 'urn:li:corpuser:ann'}, {urn: 'urn:li:corpuser:bob'}]})
    expect(ds.operations).to.deep.equal([
      {timestampMillis: stamp.time + 1000, lastUpdatedTimestamp: stamp.time + 990, operationType: 'UPDATE', numAffectedRows: null, customProperties: null},
      {timestampMillis: stamp.time, lastUpdatedTimestamp: stamp.time - 10, operationType: 'INSERT', numAffectedRows: 5, customProperties: [{key: 'job', value: 'nightly'}]},
    ])
    expect(ds.datasetProfiles).to.deep.equal([{timestampMillis: stamp.time, rowCount: 12, columnCount: 3, fieldProfiles: [{fieldPath: 'order_id', uniqueCount: 12, nullCount: 0, sampleValues: ['1', '2']}]}])
    expect(ds.assertions).to.deep.equal({total: 1, assertions: [{urn: ASSERTION, info: {type: 'DATASET'}, runEvents: {runEvents: [{result: {type: 'SUCCESS'}}]}}]})
    expect(ds.structuredProperties.properties).to.deep.equal([
      {structuredProperty: {urn: PROP, definition: {displayName: 'Retention'}}, values: [{numberValue: 30}], valueEntities: [], associatedUrn: DS},
      {structuredProperty: {urn: 'urn:li:structuredProperty:io.acme.steward', definition: {displayName: null}}, values: [{stringValue: 'urn:li:corpuser:ann'}, {stringValue: 'someone else'}], valueEntities: [{urn: 'urn:li:corpuser:ann'}], associatedUrn: DS},
    ])
    expect(ds.health).to.deep.equal([{type: 'ASSERTIONS', status: 'PASS', message: 'All 1 assertions are passing'}])

    const job = await gql(`{ dataJob(urn: "${JOB}") { runs(start: 0, count: 5) { total runs { urn name } } } corpUser(urn: "urn:li:corpuser:ann") { settings { appearance { showSimplifiedHomepage } } } }`)
    expect(job.dataJob.runs).to.deep.equal({total: 1, runs: [{urn: RUN, name: 'run 42'}]})
    expect(job.corpUser.settings).to.deep.equal({appearance: {showSimplifiedHomepage: true}})
  })

  it('answers the same page for a dataset with none of those aspects with nulls and empty lists, without an error', async () => {
    const d = await gql(`{ dataset(urn: "${BARE}") { urn exists siblings { isPrimary } embed { renderUrl } usageStats { aggregations { totalSqlQueries } } statsSummary { queryCountLast30Days }
      operations { timestampMillis } datasetProfiles { rowCount } assertions { total assertions { urn } } health { status } structuredProperties { properties { associatedUrn } } }
      chart(urn: "urn:li:chart:(looker,nothing)") { urn }
      dashboard(urn: "urn:li:dashboard:(looker,nothing)") { urn }
    }`)
    expect(d.dataset).to.deep.equal({
      urn: BARE, exists: true, siblings: null, embed: null, usageStats: null, statsSummary: null,
      operations: [], datasetProfiles: [], assertions: {total: 0, assertions: []}, health: [], structuredProperties: null,
    })
  })

  it("declares DataHub's type and field names for these types (a rename or a dropped field fails here)", async () => {
    const CLAIMED: Record<string, string[]> = {
      DataProduct: ['urn', 'type', 'exists', 'properties', 'ownership', 'tags', 'glossaryTerms', 'domain', 'institutionalMemory', 'status', 'subTypes', 'entities', 'structuredProperties'],
      DataProductProperties: ['name', 'description', 'externalUrl', 'customProperties', 'numAssets'],
      StructuredPropertyEntity: ['urn', 'type', 'exists', 'definition', 'settings'],
      StructuredPropertyDefinition: ['qualifiedName', 'displayName', 'description', 'cardinality', 'allowedValues', 'valueType', 'typeQualifier', 'entityTypes', 'immutable', 'created', 'lastModified', 'filterStatus'],
      DataTypeEntity: ['urn', 'type', 'info'],
      EntityTypeEntity: ['urn', 'type', 'info'],
      Form: ['urn', 'type', 'info', 'ownership'],
      FormInfo: ['name', 'description', 'type', 'prompts', 'actors'],
      QueryEntity: ['urn', 'type', 'exists', 'properties', 'subjects', 'platform', 'status', 'subTypes'],
      QueryProperties: ['statement', 'source', 'name', 'description', 'created', 'lastModified', 'customProperties', 'origin'],
      Assertion: ['urn', 'type', 'exists', 'platform', 'dataPlatformInstance', 'info', 'runEvents', 'status', 'tags'],
      AssertionRunEvent: ['timestampMillis', 'lastObservedMillis', 'assertionUrn', 'asserteeUrn', 'runId', 'status', 'result'],
      DataProcessInstance: ['urn', 'type', 'exists', 'name', 'created', 'externalUrl', 'properties', 'state', 'parentTemplate', 'container', 'parentContainers', 'dataPlatformInstance', 'subTypes', 'status'],
      Post: ['urn', 'type', 'postType', 'content', 'lastModified'],
      DataHubPolicy: ['urn', 'type', 'policyType', 'name', 'state', 'description', 'resources', 'privileges', 'actors', 'editable'],
      DataHubRole: ['urn', 'type', 'name', 'description'],
      SchemaFieldEntity: ['urn', 'type', 'fieldPath', 'parent', 'status'],
      Document: ['urn', 'type', 'info', 'subType', 'dataPlatformInstance', 'ownership', 'institutionalMemory', 'aspects'],
      MLModelDeployment: ['urn', 'type', 'name', 'platform', 'properties', 'ownership', 'status', 'deprecation', 'tags', 'relationships'],
      MLModelDeploymentProperties: ['description', 'externalUrl', 'createdAt', 'version', 'status', 'customProperties'],
      AccessTokenMetadata: ['urn', 'type', 'id', 'name', 'description', 'actorUrn', 'ownerUrn', 'createdAt', 'expiresAt', 'actorEntity', 'ownerEntity'],
      PlatformResource: ['urn', 'type', 'platform', 'info', 'dataPlatformInstance', 'status'],
    }
    const EXTENDED: Record<string, string[]> = {
      Dataset: ['siblings', 'usageStats', 'statsSummary', 'operations', 'datasetProfiles', 'assertions', 'health', 'embed', 'structuredProperties'],
      Chart: ['statsSummary', 'embed', 'structuredProperties'],
      Dashboard: ['statsSummary', 'embed', 'structuredProperties'],
      DataJob: ['runs'],
      DataFlow: ['runs'],
      CorpUser: ['settings'],
    }
    const names = Object.keys({...CLAIMED, ...EXTENDED})
    const d = await gql(`{ ${names.map((n) => `${n}: __type(name: "${n}") { name fields { name } }`).join(' ')} }`)
    for (const [type, fields] of Object.entries(CLAIMED)) expect(d[type]?.fields.map((f: {name: string}) => f.name).sort(), type).to.include.members(fields)
    for (const [type, fields] of Object.entries(EXTENDED)) expect(d[type]?.fields.map((f: {name: string}) => f.name), type).to.include.members(fields)
    const root = await gql('{ __type(name: "Query") { fields { name } } }')
    expect(root.__type.fields.map((f: {name: string}) => f.name)).to.include.members(['dataProduct', 'assertion', 'dataProcessInstance', 'structuredProperty', 'form', 'document', 'mlModelDeployment'])
  })

  describe("on DataHub's golden files", function () {
    const FILES = ['examples__test_structured_properties.json', 'dbt__dbt_test_query_entity_emission_golden.json', 'examples__bootstrap_mce.json']
    const FRAGMENTS = `urn type
      ... on StructuredPropertyEntity { definition { qualifiedName displayName cardinality valueType { urn info { type qualifiedName } } entityTypes { urn info { type } } allowedValues { value { ... on StringValue { stringValue } ... on NumberValue { numberValue } } } typeQualifier { allowedTypes { urn } } } settings { isHidden } }
      ... on Form { formInfo: info { name type prompts { id title type required structuredPropertyParams { structuredProperty { urn } } } actors { owners users { urn } groups { urn } } } ownership { owners { owner { ... on CorpUser { urn } } } } }
      ... on DataTypeEntity { dataTypeInfo: info { type qualifiedName displayName description } }
      ... on EntityTypeEntity { entityTypeInfo: info { type qualifiedName displayName } }
      ... on QueryEntity { properties { name source statement { value language } created { time } lastModified { time } } subjects { dataset { urn } schemaField { urn fieldPath } } platform { urn } }
      ... on Assertion { assertionPlatform: platform { urn } assertionInfo: info { type description externalUrl customProperties { key value } datasetAssertion { datasetUrn scope operator aggregation nativeType nativeParameters { key value } fields { urn path } logic } } runEvents(status: COMPLETE, limit: 1) { total succeeded failed runEvents { runId result { type } } } }
      ... on Post { postType content { contentType title description link media { type location } } lastModified { time } }`

    it('reads every query, assertion, post, structured property, form, data type and entity type they carry without an error', async function () {
      const golden = requireSharedFixtures(this, 'datahub-golden')
      const goldenDir = tempDir('mdcli-types-golden-')
      try {
        for (const f of FILES) {
          const r = await ingestJson(writeRecipe(goldenDir, {source: {type: 'file', config: {path: join(golden, f)}}}, `${f}.yml`), lite.env())
          expect(r.result, r.stderr).to.not.equal(undefined)
        }
      } finally {
        cleanup(goldenDir)
      }
      const wanted = new Set(['structuredProperty', 'form', 'dataType', 'entityType', 'query', 'assertion', 'post'])
      const urns = new Set<string>()
      for (const f of FILES) {
        for (const rec of readJson<Array<Record<string, any>>>(join(golden, f))) {
          if (typeof rec.entityUrn === 'string' && wanted.has(rec.entityType)) urns.add(rec.entityUrn)
        }
      }
      expect(urns.size).to.be.greaterThan(30)
      const list = [...urns]
      const d = await gql(`query many($urns: [String!]!) { entities(urns: $urns) { ${FRAGMENTS} } }`, {urns: list})
      const found = d.entities.filter((e: unknown) => e !== null)
      // Every type of the files is read, with its own data.
      const byType = new Map<string, any[]>()
      for (const e of found) byType.set(e.type, [...(byType.get(e.type) ?? []), e])
      expect([...byType.keys()].sort()).to.deep.equal(['ASSERTION', 'DATA_TYPE', 'ENTITY_TYPE', 'FORM', 'POST', 'QUERY', 'STRUCTURED_PROPERTY'])
      expect(byType.get('STRUCTURED_PROPERTY')!.every((p) => p.definition.qualifiedName && p.definition.valueType.urn.startsWith('urn:li:dataType:'))).to.equal(true)
      expect(byType.get('QUERY')!.some((q) => q.properties?.statement.value.length > 0 && q.subjects?.length > 0)).to.equal(true)
      expect(byType.get('ASSERTION')!.some((a) => a.assertionInfo?.datasetAssertion?.datasetUrn)).to.equal(true)
      expect(byType.get('POST')!.every((p) => p.content.title.length > 0)).to.equal(true)
      expect(byType.get('DATA_TYPE')!.some((t) => t.dataTypeInfo.type !== 'OTHER')).to.equal(true)
      expect(byType.get('ENTITY_TYPE')!.some((t) => t.entityTypeInfo.type === 'DATASET')).to.equal(true)
      expect(byType.get('FORM')!.every((f) => f.formInfo.name.length > 0)).to.equal(true)
    })
  })
})
