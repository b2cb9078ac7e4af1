/**
 * Every query of DataHub's built web app that validates against our schema also runs: on a real
 * `mdcli lite` loaded with DataHub's own files (its bootstrap, domains, structured properties and
 * forms, an MLflow golden), each is sent as Apollo sends it (`__typename` in every selection) with
 * variables made from its variable definitions — an urn of the entity type its first field reads,
 * `*` for a query, the first page — and must answer without a single error. Where we hold no data
 * the answer is DataHub's empty value, never an error.
 */
import {expect} from 'chai'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {
  type DocumentNode, getNamedType, type GraphQLInputType, type GraphQLSchema, isEnumType, isInputObjectType, isListType, isNonNullType, Kind, type OperationDefinitionNode,
  print, specifiedRules, typeFromAST, validate, visit,
} from 'graphql'
import {buildCatalogSchema} from '../../src/server/graphql/schema.js'
import {appOperations} from '../helpers/datahub-documents.js'
import {cleanup, http, type LiteProcess, ROOT, startLite, tempDir} from '../helpers/lite.js'
import {IN_CI, requireSharedFixtures} from '../helpers/requires.js'
import {ingestJson, writeRecipe} from '../ingest/helpers.js'
import {gql} from './helpers.js'

const BUILD = join(ROOT, '..', 'shared', 'clients', 'datahub-web-react-build')
const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)'

/** Queries that are actions of a switched-off feature: they answer its 400, not an empty value. */
const SWITCHED_OFF: Record<string, string> = {
  getPresignedUploadUrl: 'file uploads',
}

/** An urn of the data loaded, for the entity type a root field reads. */
const URN_OF: Record<string, string> = {
  dataset: DS,
  versionedDataset: DS,
  chart: 'urn:li:chart:(looker,baz1)',
  dashboard: 'urn:li:dashboard:(looker,baz)',
  dataFlow: 'urn:li:dataFlow:(airflow,dag_abc,PROD)',
  dataJob: 'urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_123)',
  container: 'urn:li:container:SCHEMA',
  domain: 'urn:li:domain:marketing',
  glossaryTerm: 'urn:li:glossaryTerm:CustomerAccount',
  glossaryNode: 'urn:li:glossaryNode:ClientsAndAccounts',
  tag: 'urn:li:tag:Legacy',
  corpUser: 'urn:li:corpuser:jdoe',
  corpGroup: 'urn:li:corpGroup:bfoo',
  mlModel: 'urn:li:mlModel:(urn:li:dataPlatform:mlflow,test-model_1,PROD)',
  mlModelGroup: 'urn:li:mlModelGroup:(urn:li:dataPlatform:mlflow,test-model,PROD)',
  mlFeature: 'urn:li:mlFeature:(user_features,number_of_visits)',
  mlFeatureTable: 'urn:li:mlFeatureTable:(urn:li:dataPlatform:feast,user_features)',
  mlPrimaryKey: 'urn:li:mlPrimaryKey:(user_features,user_id)',
  dataProcessInstance: 'urn:li:dataProcessInstance:2666299269d6ebea994d5ec0c29e3aca',
  structuredProperty: 'urn:li:structuredProperty:test.Property1',
  form: 'urn:li:form:my-test-no-verification-3',
  dataPlatform: 'urn:li:dataPlatform:hive',
  assertion: 'urn:li:assertion:358c683782c93c2fc2bd4bdd4fdb0153',
  query: 'urn:li:query:test-query',
  post: 'urn:li:post:326e42b3-2965-47d1-9660-50e513af7d6e',
  schemaField: `urn:li:schemaField:(${DS},field_foo)`,
  // Types none of the files loaded holds: the answer is null, as DataHub's for an unknown urn.
  dataProduct: 'urn:li:dataProduct:not-loaded',
  document: 'urn:li:document:not-loaded',
}

/** The urn for a variable or input field, from its name and the operation's first field. */
function urnFor(name: string, rootField: string): string {
  if (/actor|user|owner|creator|assignee/i.test(name)) return URN_OF.corpUser!
  if (/group/i.test(name)) return URN_OF.corpGroup!
  if (/domain/i.test(name)) return URN_OF.domain!
  if (/term/i.test(name)) return URN_OF.glossaryTerm!
  if (/node/i.test(name)) return URN_OF.glossaryNode!
  if (/tag/i.test(name)) return URN_OF.tag!
  if (/form/i.test(name)) return URN_OF.form!
  if (/propert/i.test(name) && !/entity/i.test(name)) return URN_OF.structuredProperty!
  if (/platform/i.test(name)) return URN_OF.dataPlatform!
  return URN_OF[rootField] ?? DS
}

/** A value of an input type for a variable or field `name`: what the web app would send on a page of the data loaded. */
function valueOf(type: GraphQLInputType, name: string, rootField: string, depth = 0): unknown {
  if (isNonNullType(type)) return valueOf(type.ofType, name, rootField, depth)
  if (isListType(type)) {
    if (name === 'types') return ['DATASET']
    if (/types$/i.test(name) || /filters|orFilters|and$|or$|facets|aspectNames|sort|path/i.test(name)) return []
    return [valueOf(type.ofType, name.replace(/s$/, ''), rootField, depth)]
  }
  if (isEnumType(type)) {
    const values = type.getValues().map((v) => v.name)
    return values.includes('UPSTREAM') ? 'UPSTREAM' : values.includes('DATASET') ? 'DATASET' : values[0]
  }
  if (isInputObjectType(type)) {
    if (depth > 4) return {}
    const out: Record<string, unknown> = {}
    for (const f of Object.values(type.getFields())) {
      if (isNonNullType(f.type) || ['start', 'count', 'query', 'urn', 'types'].includes(f.name)) out[f.name] = valueOf(f.type, f.name, rootField, depth + 1)
    }
    return out
  }
  switch (type.name) {
    case 'Boolean':
      return false
    case 'Int':
    case 'Float':
    case 'Long':
      return name === 'count' || name === 'limit' ? 10 : /time|millis/i.test(name) ? Date.now() : 0
    default:
      if (name === 'query') return '*'
      if (/urn/i.test(name) || name === 'resource' || name === 'entity') return urnFor(name, rootField)
      return name === 'id' ? 'mdcli-run-test' : '*'
  }
}

function variablesFor(schema: GraphQLSchema, op: OperationDefinitionNode): Record<string, unknown> {
  const first = op.selectionSet.selections.find((s) => s.kind === Kind.FIELD)
  const rootField = first?.kind === Kind.FIELD ? first.name.value : ''
  const vars: Record<string, unknown> = {}
  for (const v of op.variableDefinitions ?? []) {
    if (v.type.kind !== Kind.NON_NULL_TYPE && !['start', 'count', 'query', 'urn'].includes(v.variable.name.value)) continue
    const type = typeFromAST(schema, v.type as never) as GraphQLInputType | undefined
    if (type && getNamedType(type)) vars[v.variable.name.value] = valueOf(type, v.variable.name.value, rootField)
  }
  return vars
}

describe('DataHub’s web app: every validating query runs on DataHub’s data', function () {
  // A hang guard: the run takes about 30 s on the loaded 2-core machine.
  this.timeout(300_000)
  let lite: LiteProcess
  let dir: string

  before(async function () {
    if (!existsSync(join(BUILD, 'index.html'))) {
      if (IN_CI) throw new Error(`DataHub's web-app build not found at ${BUILD} (CI=true: required)`)
      console.log(`      skipped: DataHub's web-app build not found at ${BUILD}`)
      this.skip()
    }
    const files = [
      requireSharedFixtures(this, 'datahub', 'bootstrap_mce.json'),
      requireSharedFixtures(this, 'datahub', 'test_domains.json'),
      requireSharedFixtures(this, 'datahub-golden', 'examples__test_structured_properties.json'),
      requireSharedFixtures(this, 'datahub-golden', 'mlflow__mlflow_mcps_golden.json'),
    ]
    lite = await startLite()
    dir = tempDir('mdcli-webapp-run-')
    for (const [i, path] of files.entries()) {
      const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path}}, sink: {type: 'datahub-rest', config: {server: lite.url}}}, `r${i}.yml`), lite.env())
      expect(r.code, r.stderr).to.equal(0)
    }
  })
  after(async () => {
    await lite?.stop()
    if (lite) cleanup(lite.storeDir, lite.home)
    if (dir) cleanup(dir)
  })

  it('answers each without an error', async () => {
    const schema = buildCatalogSchema()
    const failed: string[] = []
    let ran = 0
    let slowest = {name: '', ms: 0}
    for (const op of appOperations(BUILD).filter((o) => o.kind === 'query')) {
      const sent: DocumentNode = visit(op.document, {SelectionSet: (n) => ({...n, selections: [...n.selections, {kind: Kind.FIELD, name: {kind: Kind.NAME, value: '__typename'}}]})})
      if (validate(schema, sent, specifiedRules).length > 0) continue
      const operation = op.document.definitions[0] as OperationDefinitionNode
      const variables = variablesFor(schema, operation)
      const t0 = Date.now()
      const r = await gql(lite.url, print(sent), variables)
      // Not asserted (tests do not time): printed so a pathologically slow query shows by name.
      const ms = Date.now() - t0
      if (ms > slowest.ms) slowest = {name: op.name, ms}
      ran++
      const off = SWITCHED_OFF[op.name]
      if (off) {
        const e = r.body.errors?.[0]
        if (e?.extensions?.code !== 400 || !e.message.includes(`switched off on mdcli lite (${off})`)) failed.push(`${op.name}: expected the switched-off 400, got ${JSON.stringify(r.body)}`)
        continue
      }
      if (r.status !== 200 || r.body.errors) failed.push(`${op.name} ${JSON.stringify(variables)}: ${r.status} ${JSON.stringify(r.body.errors?.slice(0, 2) ?? r.body)}`)
    }
    for (const f of failed) console.log(`        ${f}`)
    console.log(`      ran ${ran} queries of DataHub's web app; ${ran - failed.length} answered without an error; the slowest, ${slowest.name}, took ${slowest.ms} ms`)
    expect(ran).to.be.at.least(160)
    expect(failed).to.deep.equal([])
  })

  it('bulkEntityDataProducts: for each asset, the data products that list it, and whether as an output port', async () => {
    const DP = 'urn:li:dataProduct:mdcli-run-test'
    const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {
      token: lite.token,
      body: {atomic: true, proposals: [{entityUrn: DP, aspectName: 'dataProductProperties', changeType: 'UPSERT', aspect: {json: {name: 'Run test', assets: [{destinationUrn: DS, outputPort: true}, {destinationUrn: URN_OF.chart}]}}}]},
    })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    const q = 'query b($urns: [String!]!) { bulkEntityDataProducts(input: {urns: $urns}) { entities { urn dataProductAssociations { isOutputPort dataProduct { urn properties { name } } } } } }'
    const b = await gql(lite.url, q, {urns: [DS, URN_OF.chart, URN_OF.dashboard]})
    expect(b.body.errors, JSON.stringify(b.body.errors)).to.equal(undefined)
    const product = {urn: DP, properties: {name: 'Run test'}}
    expect(b.body.data.bulkEntityDataProducts.entities).to.deep.equal([
      {urn: DS, dataProductAssociations: [{isOutputPort: true, dataProduct: product}]},
      {urn: URN_OF.chart, dataProductAssociations: [{isOutputPort: false, dataProduct: product}]},
      {urn: URN_OF.dashboard, dataProductAssociations: []},
    ])
  })

  it('listPosts takes the home page’s filter: announcements, not dismissed, newer than a time', async () => {
    const posts = async (dismissed: string[], after: number) => {
      const and = [
        {field: 'type', condition: 'EQUAL', values: ['HOME_PAGE_ANNOUNCEMENT']},
        {field: 'urn', condition: 'EQUAL', values: dismissed, negated: true},
        {field: 'lastModified', condition: 'GREATER_THAN', values: [String(after)]},
      ]
      const r = await gql(lite.url, 'query p($input: ListPostsInput!) { listPosts(input: $input) { total posts { urn } } }', {input: {start: 0, count: 30, orFilters: [{and}]}})
      expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
      return r.body.data.listPosts.posts.map((p: {urn: string}) => p.urn) as string[]
    }
    const all = await posts([], 0)
    expect(all.length).to.be.greaterThan(1)
    expect(await posts([all[0]!], 0)).to.deep.equal(all.slice(1))
    expect(await posts([], Date.now())).to.deep.equal([])
    const other = await gql(lite.url, '{ listPosts(input: {orFilters: [{and: [{field: "title", values: ["x"]}]}]}) { total } }')
    expect(other.body.errors?.[0]?.message).to.equal('listPosts filters on type and urn and lastModified only, not title')
  })
})
