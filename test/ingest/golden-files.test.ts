import {expect} from 'chai'
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {cleanup, http, tempDir, useLite} from '../helpers/lite.js'
import {requireSharedFixtures} from '../helpers/requires.js'
import {ingestJson, writeRecipe} from './helpers.js'

const enc = encodeURIComponent

describe("DataHub's golden files: every record of every file lands (PATCH included)", function () {
  this.timeout(600_000)
  const lite = useLite()
  let dir: string
  let golden: string
  before(function () {
    golden = requireSharedFixtures(this, 'datahub-golden')
    dir = tempDir('mdcli-golden-')
  })
  after(() => cleanup(dir))

  it('ingests each of the golden files into a running lite with zero refused records', async () => {
    const files = readdirSync(golden).filter((f) => f.endsWith('.json'))
    expect(files.length).to.be.greaterThan(50)
    // The file source reads every .json of the folder, in name order, in one run.
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: golden}}, sink: {type: 'datahub-rest'}}, 'golden.yml'), lite.env())
    expect(r.result, r.stderr).to.not.equal(undefined)
    const refused = r.result.failures === 0 ? [] : [JSON.stringify(r.result).slice(0, 2000)]
    expect(refused).to.deep.equal([])
  })

  it('PATCH records were applied to the stored values with keyed-array semantics', async () => {
    // dbt: upstreamLineage patched onto a postgres view: upstream added, column lineage built.
    const view = 'urn:li:dataset:(urn:li:dataPlatform:postgres,pagila.dbt_postgres.an-aliased-view-for-monthly-billing,PROD)'
    const ul = await http(`${lite.url}/aspects/${enc(view)}?aspect=upstreamLineage`, {token: lite.token})
    expect(ul.status, JSON.stringify(ul.body)).to.equal(200)
    const text = JSON.stringify(ul.body)
    expect(text).to.include('urn:li:dataPlatform:dbt,pagila.dbt_postgres.an-aliased-view-for-monthly-billing,PROD')
    expect(text).to.include('fineGrainedLineages')
    // Power BI: dashboardInfo built from a patch of title, charts and dataset edges.
    const gql = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query: '{ dashboard(urn: "urn:li:dashboard:(powerbi,reports.5e420b19-ee14-4bba-ab4b-1e1063847f37)") { properties { name description } } }'}})
    expect(gql.body.data.dashboard.properties).to.deep.include({name: 'EmployeeReport', description: 'Test report'})
  })
})
