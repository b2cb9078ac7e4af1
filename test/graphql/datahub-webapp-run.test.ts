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
import {type DocumentNode, Kind, type OperationDefinitionNode, print, specifiedRules, validate, visit} from 'graphql'
import {buildCatalogSchema} from '../../src/server/graphql/schema.js'
import {appOperations, DS, SWITCHED_OFF, URN_OF, variablesFor} from '../helpers/datahub-documents.js'
import {cleanup, http, type LiteProcess, ROOT, startLite, tempDir} from '../helpers/lite.js'
import {IN_CI, requireSharedFixtures} from '../helpers/requires.js'
import {ingestJson, writeRecipe} from '../ingest/helpers.js'
import {gql} from './helpers.js'

const BUILD = join(ROOT, '..', 'shared', 'clients', 'datahub-web-react-build')

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
