import {expect} from 'chai'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import pg from 'pg'
import {PgStore} from '../../src/store/postgres/pg-store.js'
import {REGISTRY_RULES} from '../../src/store/rules.js'
import {createTestDatabase, type TestDatabase} from '../helpers/pg.js'
import {cleanup, FIXTURES, runCli, startLite} from '../helpers/lite.js'
import {requirePostgres, requireSharedFixtures} from '../helpers/requires.js'
import {pgIndex, searchable} from './searchable.js'

const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)'

describe('mdcli store reindex (restore indices from metadata_aspect_v2)', function () {
  this.timeout(180000)
  let db: TestDatabase

  after(async () => {
    await db?.drop()
  })

  it("rebuilds entities, search and references from DataHub's table: setup.sql rows plus the bootstrap file", async function () {
    const bootstrap = requireSharedFixtures(this, 'datahub', 'bootstrap_mce.json')
    requireSharedFixtures(this, 'datahub-integration', 'postgres', 'setup', 'setup.sql')
    db = await createTestDatabase(await requirePostgres(this))
    // DataHub's integration setup, minus its own CREATE DATABASE and \c: the table as DataHub's tests make it.
    const setup = readFileSync(join(FIXTURES, 'datahub-integration', 'postgres', 'setup', 'setup.sql'), 'utf8')
      .split('\n')
      .filter((l) => !/^create database|^\\c /i.test(l))
      .join('\n')
    const c = new pg.Client({connectionString: db.url})
    c.on('error', () => undefined)
    await c.connect()
    await c.query(setup)

    // The server migrates the table in place and ingests the bootstrap file through the CLI.
    const lite = await startLite({storeDir: db.url})
    const ing = await runCli(['ingest', '-c', '-'], {env: lite.env(), input: `source: {type: file, config: {path: "${bootstrap}"}}\n`})
    expect(ing.code, ing.stdout + ing.stderr).to.equal(0)
    await lite.stop()
    cleanup(lite.home)

    const open = async () => {
      const s = searchable(new PgStore({url: db.url, rules: REGISTRY_RULES}), pgIndex(db.url))
      await s.open()
      return s
    }
    let s = await open()
    const before = {
      urns: (await s.listUrns({includeSoftDeleted: true, count: 100000})).urns.sort(),
      search: (await s.search({query: 'kafka', count: 50})).hits.map((h) => h.urn).sort(),
      refs: (await s.referencesTo(['urn:li:corpuser:jdoe'])).length,
    }
    await s.close()
    // Only DataHub's table survives (as after a DataHub restore): the derived tables are empty.
    await c.query('TRUNCATE mdcli_entity, mdcli_search_doc, mdcli_reference')
    await c.end()
    s = await open()
    expect((await s.listUrns({includeSoftDeleted: true})).total).to.equal(0)
    await s.close()

    const r = await runCli(['store', 'reindex', '--store', db.url, '--json'], {env: {...process.env, NO_COLOR: '1', METADATA_TELEMETRY_ENABLED: 'false'}})
    expect(r.code, r.stdout + r.stderr).to.equal(0)
    expect(JSON.parse(r.stdout).entities).to.equal(before.urns.length)

    s = await open()
    try {
      // The rows setup.sql wrote by hand (no systemmetadata, no key aspect) are an entity again.
      expect(before.urns).to.include('urn:li:corpuser:datahub')
      expect((await s.getAspect('urn:li:corpuser:datahub', 'corpUserInfo'))?.value).to.deep.include({displayName: 'Data Hub'})
      expect((await s.listUrns({includeSoftDeleted: true, count: 100000})).urns.sort()).to.deep.equal(before.urns)
      expect((await s.search({query: 'kafka', count: 50})).hits.map((h) => h.urn).sort()).to.deep.equal(before.search)
      expect(before.search).to.include(KAFKA)
      expect((await s.search({types: ['corpuser'], query: 'Data Hub'})).hits.map((h) => h.urn)).to.include('urn:li:corpuser:datahub')
      expect((await s.referencesTo(['urn:li:corpuser:jdoe'])).length).to.equal(before.refs)
      expect(before.refs).to.be.greaterThan(0)
    } finally {
      await s.close()
    }
  })
})
