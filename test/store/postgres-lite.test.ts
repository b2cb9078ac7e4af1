import {expect} from 'chai'
import {createTestDatabase, type TestDatabase} from '../helpers/pg.js'
import {CATALOG_SAMPLE, cleanup, http, type LiteProcess, runCli, startLite} from '../helpers/lite.js'
import {requirePostgres} from '../helpers/requires.js'

const enc = (u: string) => encodeURIComponent(u)
const DS = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)'

describe('mdcli lite on PostgreSQL', function () {
  this.timeout(180000)
  let db: TestDatabase
  let lite: LiteProcess
  let storeUrl = ''

  before(async function () {
    const admin = await requirePostgres(this)
    db = await createTestDatabase(admin)
    // A password in the URL (trust auth ignores it) proves it is never printed.
    const u = new URL(db.url)
    u.username = u.username || 'postgres'
    u.password = 'hunter2-secret'
    storeUrl = u.toString()
    lite = await startLite({storeDir: storeUrl})
  })
  after(async () => {
    if (lite) {
      await lite.stop()
      cleanup(lite.home)
    }
    await db?.drop()
  })

  it('starts on the database and never prints its password', () => {
    expect(lite.output()).to.match(/listening on http/)
    expect(lite.output()).to.include('****')
    expect(lite.output()).not.to.include('hunter2-secret')
  })

  it('ingests the sample catalog with the CLI; get, search and GraphQL read it from PostgreSQL', async () => {
    const r = await runCli(['ingest', '-c', '-'], {env: lite.env(), input: `run_id: pg-boot\nsource: {type: file, config: {path: "${CATALOG_SAMPLE}"}}\n`})
    expect(r.code, r.stdout + r.stderr).to.equal(0)
    const got = await http(`${lite.url}/entitiesV2/${enc(DS)}`, {token: lite.token})
    expect(got.status).to.equal(200)
    expect(JSON.stringify(got.body)).to.include('SampleKafkaDataset')
    const cli = await runCli(['get', '--urn', DS, '--aspect', 'datasetProperties'], {env: lite.env()})
    expect(cli.code, cli.stderr).to.equal(0)
    expect(cli.stdout).to.include('datasetProperties')
    const gql = await http(`${lite.url}/api/graphql`, {
      token: lite.token,
      body: {query: `{ search(input: {type: DATASET, query: "SampleKafkaDataset", start: 0, count: 10}) { total searchResults { entity { urn } } } dataset(urn: "${DS}") { urn name } }`},
    })
    expect(gql.body.errors, JSON.stringify(gql.body.errors)).to.equal(undefined)
    expect(gql.body.data.search.total).to.be.greaterThan(0)
    expect(gql.body.data.search.searchResults.map((x: any) => x.entity.urn)).to.include(DS)
    expect(gql.body.data.dataset.urn).to.equal(DS)
  })

  it('keeps tokens and policies in the database: a new token works, a revoked one is refused', async () => {
    const t = await http(`${lite.url}/api/graphql`, {
      token: lite.token,
      body: {query: 'mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "urn:li:corpuser:datahub", duration: ONE_DAY, name: "pg"}) { accessToken metadata { id } } }'},
    })
    expect(t.body.errors, JSON.stringify(t.body.errors)).to.equal(undefined)
    const tok = t.body.data.createAccessToken.accessToken
    const id = t.body.data.createAccessToken.metadata.id
    expect((await http(`${lite.url}/api/graphql`, {token: tok, body: {query: '{ me { corpUser { urn } } }'}})).status).to.equal(200)
    const rv = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query: `mutation { revokeAccessToken(tokenId: "${id}") }`}})
    expect(rv.body.errors, JSON.stringify(rv.body.errors)).to.equal(undefined)
    expect((await http(`${lite.url}/api/graphql`, {token: tok, body: {query: '{ me { corpUser { urn } } }'}})).status).to.equal(401)
  })

  it('shows a timeline, rolls the run back and deletes an entity', async () => {
    const tl = await runCli(['timeline', '--urn', DS, '--json'], {env: lite.env()})
    expect(tl.code, tl.stderr).to.equal(0)
    expect(JSON.parse(tl.stdout)).to.be.an('array').that.is.not.empty
    const del = await runCli(['delete', '--urn', DS, '--hard', '--force'], {env: lite.env()})
    expect(del.code, del.stdout + del.stderr).to.equal(0)
    expect((await http(`${lite.url}/entitiesV2/${enc(DS)}?alwaysIncludeKeyAspect=false`, {token: lite.token})).status).to.equal(404)
    const rb = await runCli(['ingest', 'rollback', '--run-id', 'pg-boot', '--force'], {env: lite.env()})
    expect(rb.code, rb.stdout + rb.stderr).to.equal(0)
    const s = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query: '{ search(input: {type: DATASET, query: "*", start: 0, count: 10}) { total } }'}})
    expect(s.body.data.search.total).to.equal(0)
  })
})
