/**
 * Reads: every getter against a real `mdcli lite`, with DataHub's field names and mapping rules.
 */
import {expect} from 'chai'
import {useLite} from '../helpers/lite.js'
import {ds, fails, fixtureCatalog, gql, ingest, mcp, ok, U} from './helpers.js'

describe('graphql: reads', function () {
  this.timeout(60_000)
  const lite = useLite()

  before(async () => {
    await ingest(lite.url, fixtureCatalog())
  })

  it('reads a dataset with every spec field, in DataHub shapes', async () => {
    const d = await ok(
      lite.url,
      `query ($urn: String!) {
        dataset(urn: $urn) {
          urn type name origin exists
          platform { urn name properties { displayName type } }
          properties { name description origin customProperties { key value associatedUrn } lastModified { time actor } }
          editableProperties { description }
          ownership {
            owners {
              owner { ... on CorpUser { urn type username properties { displayName } } ... on CorpGroup { urn type name properties { displayName } } }
              type associatedUrn ownershipType { urn info { name } }
            }
            lastModified { time actor }
          }
          tags { tags { tag { urn name properties { name description } } associatedUrn } }
          glossaryTerms { terms { term { urn name properties { name description } } associatedUrn } }
          domain { domain { urn id properties { name } } associatedUrn }
          deprecation { deprecated }
          status { removed }
          container { urn properties { name } }
          parentContainers { count containers { urn } }
          browsePaths { path }
          subTypes { typeNames }
          schemaMetadata { name platformUrn version hash fields { fieldPath nullable type nativeDataType } }
        }
      }`,
      {urn: U.customers},
    )
    const x = d.dataset
    expect(x).to.include({urn: U.customers, type: 'DATASET', name: 'sales.customers', origin: 'PROD', exists: true})
    expect(x.platform).to.deep.equal({urn: U.hive, name: 'hive', properties: {displayName: 'Hive', type: 'FILE_SYSTEM'}})
    expect(x.properties.name).to.equal('customers')
    expect(x.properties.origin).to.equal('PROD')
    // customProperties is a list of entries, not a map.
    expect(x.properties.customProperties).to.deep.equal([
      {key: 'team', value: 'crm', associatedUrn: U.customers},
      {key: 'tier', value: '1', associatedUrn: U.customers},
    ])
    expect(x.properties.lastModified).to.deep.equal({time: 0, actor: null})
    expect(x.editableProperties).to.equal(null)
    expect(x.ownership.owners).to.deep.equal([
      {owner: {urn: U.jdoe, type: 'CORP_USER', username: 'jdoe', properties: {displayName: 'John Doe'}}, type: 'TECHNICAL_OWNER', associatedUrn: U.customers, ownershipType: {urn: 'urn:li:ownershipType:__system__technical_owner', info: {name: 'Technical Owner'}}},
      {owner: {urn: U.analysts, type: 'CORP_GROUP', name: 'analysts', properties: {displayName: 'Analysts'}}, type: 'BUSINESS_OWNER', associatedUrn: U.customers, ownershipType: {urn: 'urn:li:ownershipType:__system__business_owner', info: {name: 'Business Owner'}}},
    ])
    expect(x.ownership.lastModified).to.deep.equal({time: 1700000000000, actor: U.datahub})
    expect(x.tags.tags).to.deep.equal([{tag: {urn: U.pii, name: 'pii', properties: {name: 'PII', description: 'Personally identifiable information'}}, associatedUrn: U.customers}])
    expect(x.glossaryTerms.terms).to.deep.equal([{term: {urn: U.confidential, name: 'Confidential', properties: {name: 'Confidential', description: 'Must not leave the company'}}, associatedUrn: U.customers}])
    expect(x.domain).to.deep.equal({domain: {urn: U.marketing, id: 'marketing', properties: {name: 'Marketing'}}, associatedUrn: U.customers})
    expect(x.deprecation).to.equal(null)
    expect(x.status).to.deep.equal({removed: false})
    expect(x.container).to.deep.equal({urn: U.container, properties: {name: 'sales'}})
    expect(x.parentContainers).to.deep.equal({count: 1, containers: [{urn: U.container}]})
    expect(x.browsePaths).to.deep.equal([{path: ['prod', 'hive', 'sales']}])
    expect(x.subTypes).to.deep.equal({typeNames: ['Table']})
    expect(x.schemaMetadata).to.include({name: 'sales.customers', platformUrn: U.hive, version: 0, hash: 'h'})
    // Field types come from the union member: RecordType → STRUCT.
    expect(x.schemaMetadata.fields).to.deep.equal([
      {fieldPath: 'id', nullable: true, type: 'NUMBER', nativeDataType: 'bigint'},
      {fieldPath: 'email', nullable: true, type: 'STRING', nativeDataType: 'varchar'},
      {fieldPath: 'address', nullable: true, type: 'STRUCT', nativeDataType: 'struct'},
    ])
  })

  it('falls back to the key name for properties.name and maps ARRAY fields', async () => {
    const d = await ok(lite.url, `{ dataset(urn: "${U.orders}") { name properties { name description } schemaMetadata { fields { fieldPath type } } ownership { owners { type } } } }`)
    expect(d.dataset.properties).to.deep.equal({name: 'sales.orders', description: 'Orders placed on the web shop'})
    expect(d.dataset.schemaMetadata.fields[1]).to.deep.equal({fieldPath: 'items', type: 'ARRAY'})
    expect(d.dataset.ownership).to.equal(null)
  })

  it('reads every other entity type through its getter', async () => {
    const d = await ok(
      lite.url,
      `{
        container(urn: "${U.container}") { urn type platform { urn } properties { name description customProperties { key value } } subTypes { typeNames } }
        dashboard(urn: "${U.dashboard}") { urn type tool dashboardId platform { name } properties { name description access created { time actor } } }
        chart(urn: "${U.chart}") { urn type tool chartId properties { name description type } query { rawQuery type } }
        dataFlow(urn: "${U.flow}") { urn type orchestrator flowId cluster properties { name description project } }
        dataJob(urn: "${U.job}") { urn type jobId dataFlow { urn properties { name } } properties { name description } inputOutput { inputDatasets { urn } outputDatasets { name } } }
        domain(urn: "${U.marketing}") { urn type id properties { name description } }
        glossaryTerm(urn: "${U.public}") { urn type name hierarchicalName properties { name description termSource } parentNodes { count nodes { urn properties { name } } } }
        glossaryNode(urn: "${U.classification}") { urn type properties { name description } }
        tag(urn: "${U.gold}") { urn type name description properties { name description } }
        notebook(urn: "${U.notebook}") { urn type tool notebookId info { title description changeAuditStamps { created { actor } } } }
        corpUser(urn: "${U.jdoe}") { urn type username status properties { active displayName email title manager { urn username } } editableProperties { aboutMe skills } }
        corpGroup(urn: "${U.analysts}") { urn type name properties { displayName description } }
        dataPlatform(urn: "${U.hive}") { urn type name displayName properties { type datasetNameDelimiter } }
        mlModel(urn: "${U.mlModel}") { urn type name origin platform { name } description properties { type customProperties { key value } } }
        mlModelGroup(urn: "${U.mlModelGroup}") { urn type name description }
        mlFeature(urn: "${U.mlFeature}") { urn type name featureNamespace description dataType }
        mlFeatureTable(urn: "${U.mlFeatureTable}") { urn type name platform { name } description properties { mlFeatures { urn name } mlPrimaryKeys { urn } } }
        mlPrimaryKey(urn: "${U.mlPrimaryKey}") { urn type name featureNamespace dataType }
      }`,
    )
    expect(d.container).to.deep.equal({urn: U.container, type: 'CONTAINER', platform: {urn: U.hive}, properties: {name: 'sales', description: 'The sales database', customProperties: [{key: 'engine', value: 'hive'}]}, subTypes: {typeNames: ['Database']}})
    expect(d.dashboard).to.deep.equal({urn: U.dashboard, type: 'DASHBOARD', tool: 'looker', dashboardId: 'sales_overview', platform: {name: 'looker'}, properties: {name: 'Sales overview', description: 'Revenue at a glance', access: 'PUBLIC', created: {time: 1700000000000, actor: U.datahub}}})
    expect(d.chart).to.deep.equal({urn: U.chart, type: 'CHART', tool: 'looker', chartId: 'revenue_by_month', properties: {name: 'Revenue by month', description: 'Monthly revenue', type: 'BAR'}, query: {rawQuery: 'select month, sum(amount) from orders group by 1', type: 'SQL'}})
    expect(d.dataFlow).to.deep.equal({urn: U.flow, type: 'DATA_FLOW', orchestrator: 'airflow', flowId: 'daily_etl', cluster: 'prod', properties: {name: 'daily_etl', description: 'Nightly loads', project: 'warehouse'}})
    expect(d.dataJob).to.deep.equal({urn: U.job, type: 'DATA_JOB', jobId: 'load_orders', dataFlow: {urn: U.flow, properties: {name: 'daily_etl'}}, properties: {name: 'load_orders', description: 'Loads the orders'}, inputOutput: {inputDatasets: [{urn: U.customers}], outputDatasets: [{name: 'sales.orders'}]}})
    expect(d.domain).to.deep.equal({urn: U.marketing, type: 'DOMAIN', id: 'marketing', properties: {name: 'Marketing', description: 'Campaigns and customers'}})
    expect(d.glossaryTerm).to.deep.equal({urn: U.public, type: 'GLOSSARY_TERM', name: 'Public', hierarchicalName: 'Classification.Public', properties: {name: 'Public', description: 'Anyone may see it', termSource: 'INTERNAL'}, parentNodes: {count: 1, nodes: [{urn: U.classification, properties: {name: 'Classification'}}]}})
    expect(d.glossaryNode).to.deep.equal({urn: U.classification, type: 'GLOSSARY_NODE', properties: {name: 'Classification', description: 'How sensitive data is'}})
    expect(d.tag).to.deep.equal({urn: U.gold, type: 'TAG', name: 'gold', description: 'Certified data', properties: {name: 'Gold', description: 'Certified data'}})
    expect(d.notebook).to.deep.equal({urn: U.notebook, type: 'NOTEBOOK', tool: 'querybook', notebookId: '42', info: {title: 'Churn analysis', description: 'Who leaves and why', changeAuditStamps: {created: {actor: U.datahub}}}})
    expect(d.corpUser).to.deep.equal({urn: U.jdoe, type: 'CORP_USER', username: 'jdoe', status: 'ACTIVE', properties: {active: true, displayName: 'John Doe', email: 'jdoe@example.com', title: 'Data Engineer', manager: {urn: U.alice, username: 'alice'}}, editableProperties: {aboutMe: 'I move data', skills: ['sql']}})
    expect(d.corpGroup).to.deep.equal({urn: U.analysts, type: 'CORP_GROUP', name: 'analysts', properties: {displayName: 'Analysts', description: 'The analytics team'}})
    expect(d.dataPlatform).to.deep.equal({urn: U.hive, type: 'DATA_PLATFORM', name: 'hive', displayName: 'Hive', properties: {type: 'FILE_SYSTEM', datasetNameDelimiter: '.'}})
    expect(d.mlModel).to.deep.equal({urn: U.mlModel, type: 'MLMODEL', name: 'churn_model', origin: 'PROD', platform: {name: 'sagemaker'}, description: 'Predicts churn', properties: {type: 'xgboost', customProperties: [{key: 'auc', value: '0.91'}]}})
    expect(d.mlModelGroup).to.deep.equal({urn: U.mlModelGroup, type: 'MLMODEL_GROUP', name: 'churn_models', description: 'All churn models'})
    expect(d.mlFeature).to.deep.equal({urn: U.mlFeature, type: 'MLFEATURE', name: 'age', featureNamespace: 'users', description: 'Age in years', dataType: 'COUNT'})
    expect(d.mlFeatureTable).to.deep.equal({urn: U.mlFeatureTable, type: 'MLFEATURE_TABLE', name: 'user_features', platform: {name: 'feast'}, description: 'User features', properties: {mlFeatures: [{urn: U.mlFeature, name: 'age'}], mlPrimaryKeys: [{urn: U.mlPrimaryKey}]}})
    expect(d.mlPrimaryKey).to.deep.equal({urn: U.mlPrimaryKey, type: 'MLPRIMARY_KEY', name: 'user_id', featureNamespace: 'users', dataType: 'ORDINAL'})
  })

  it('reads an ML model’s groups as entities (its properties hold their urns), as DataHub’s model page asks', async () => {
    const model = 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn_model_v2,PROD)'
    await ingest(lite.url, [mcp(model, 'mlModelProperties', {groups: [U.mlModelGroup]})])
    const d = await ok(lite.url, `{ a: mlModel(urn: "${model}") { properties { groups { urn name description } } } b: mlModel(urn: "${U.mlModel}") { properties { groups { urn } } } }`)
    expect(d.a.properties.groups).to.deep.equal([{urn: U.mlModelGroup, name: 'churn_models', description: 'All churn models'}])
    expect(d.b.properties.groups).to.equal(null)
  })

  it('returns null, not an error, for urns that do not exist', async () => {
    const r = await gql(
      lite.url,
      `{ dataset(urn: "${ds('nope.nothing')}") { urn } tag(urn: "urn:li:tag:nothing") { urn } corpUser(urn: "urn:li:corpuser:nobody") { urn }
         entity(urn: "urn:li:chart:(looker,none)") { urn } entityExists(urn: "urn:li:tag:nothing") }`,
    )
    expect(r.status).to.equal(200)
    expect(r.body).to.deep.equal({data: {dataset: null, tag: null, corpUser: null, entity: null, entityExists: false}})
  })

  it('answers a platform it knows without a stored description, as DataHub answers its seeded ones, with its logo', async () => {
    const r = await ok(lite.url, `{ pg: dataPlatform(urn: "urn:li:dataPlatform:postgres") { urn name displayName properties { displayName type logoUrl } }
      none: dataPlatform(urn: "urn:li:dataPlatform:nosuchthing") { urn } }`)
    expect(r).to.deep.equal({
      pg: {urn: 'urn:li:dataPlatform:postgres', name: 'postgres', displayName: 'PostgreSQL', properties: {displayName: 'PostgreSQL', type: 'RELATIONAL_DB', logoUrl: '/assets/platforms/postgreslogo.png'}},
      none: null,
    })
  })

  it('reads any entity through entity(urn) and entities(urns)', async () => {
    const d = await ok(
      lite.url,
      `query ($urns: [String!]!) {
        entity(urn: "${U.chart}") { urn type ... on Chart { properties { name } } }
        entities(urns: $urns) { urn type ... on Dataset { name } ... on Tag { properties { name } } }
      }`,
      {urns: [U.orders, U.legacy, 'urn:li:tag:missing']},
    )
    expect(d.entity).to.deep.equal({urn: U.chart, type: 'CHART', properties: {name: 'Revenue by month'}})
    expect(d.entities).to.deep.equal([{urn: U.orders, type: 'DATASET', name: 'sales.orders'}, {urn: U.legacy, type: 'TAG', properties: {name: 'Legacy'}}, null])
  })

  it('refuses a malformed urn or an urn of another type with a 400 naming it', async () => {
    const bad = await fails(lite.url, '{ dataset(urn: "not-an-urn") { urn } }')
    expect(bad.message).to.contain('not-an-urn')
    expect(bad.extensions).to.deep.equal({code: 400, type: 'BAD_REQUEST', classification: 'DataFetchingException'})
    expect(bad.path).to.deep.equal(['dataset'])
    const wrong = await fails(lite.url, `{ dataset(urn: "${U.pii}") { urn } }`)
    expect(wrong.message).to.equal(`dataset(urn:) expects a dataset urn, got ${U.pii}`)
  })

  it('serves older schema versions and raw aspects', async () => {
    await ingest(lite.url, [{...fixtureCatalog().find((p) => p.entityUrn === U.orders && p.aspectName === 'schemaMetadata')!, aspect: {contentType: 'application/json', value: JSON.stringify({schemaName: 'sales.orders', platform: U.hive, version: 1, hash: 'h2', platformSchema: {'com.linkedin.schema.KafkaSchema': {documentSchema: '{}'}}, fields: []})}}])
    const d = await ok(lite.url, `{ dataset(urn: "${U.orders}") { latest: schemaMetadata { version aspectVersion platformSchema { ... on TableSchema { schema } } } first: schemaMetadata(version: 1) { version aspectVersion fields { fieldPath } } aspects(input: {aspectNames: ["datasetProperties"]}) { aspectName payload } } }`)
    expect(d.dataset.latest).to.deep.equal({version: 1, aspectVersion: 0, platformSchema: {schema: '{}'}})
    expect(d.dataset.first).to.deep.equal({version: 0, aspectVersion: 1, fields: [{fieldPath: 'order_id'}, {fieldPath: 'items'}]})
    expect(d.dataset.aspects).to.deep.equal([{aspectName: 'datasetProperties', payload: JSON.stringify({description: 'Orders placed on the web shop'})}])
  })

  it('serves the GraphiQL page', async () => {
    const res = await fetch(`${lite.url}/api/graphiql`)
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.contain('text/html')
    const html = await res.text()
    // Bundled, served from this server: no script from anywhere else.
    const srcs = [...html.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1])
    expect(srcs).to.deep.equal(['/app/graphiql.js'])
    expect((await fetch(`${lite.url}/app/graphiql.js`)).status).to.equal(200)
  })
})
