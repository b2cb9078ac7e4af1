/**
 * One read model: REST and GraphQL answer an aspect with the model's defaults filled in
 * (model/defaults.ts), the same way, and leave stored values as written.
 */
import {expect} from 'chai'
import {Catalog} from '../../src/catalog/catalog.js'
import {ChangeLog} from '../../src/events/changelog.js'
import {createApp} from '../../src/server/app.js'
import {STREAMED} from '../../src/server/http.js'
import {entityResponse, entityResponseText} from '../../src/server/rest.js'
import {TokenService} from '../../src/catalog/access/tokens.js'
import {createStore} from '../../src/store/index.js'
import {aspectSpec} from '../../src/model/registry.js'
import {cleanup, tempDir} from '../helpers/lite.js'
import {app, call} from './helpers.js'

const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,read_model,PROD)'

describe('the read model: REST and GraphQL read alike', () => {
  it('an ownership written without lastModified reads with DataHub\'s unknown stamp on both, and is stored as written', async () => {
    const a = await app({auth: false})
    const outcome = await a.catalog.propose({urn: 'urn:li:corpuser:datahub'}, [{entityUrn: DS, aspectName: 'ownership', changeType: 'UPSERT', aspect: {json: {owners: [{owner: 'urn:li:corpuser:ann', type: 'DATAOWNER'}]}}}])
    expect(outcome[0]!.ok).to.equal(true)
    const unknown = {time: 0, actor: 'urn:li:corpuser:unknown'}

    const rest = await call(a, 'GET', `/entitiesV2/${encodeURIComponent(DS)}?aspects=List(ownership)`)
    expect(rest.status).to.equal(200)
    expect(rest.json.aspects.ownership.value.lastModified).to.deep.equal(unknown)

    const gql = await call(a, 'POST', '/api/graphql', {query: `{ dataset(urn: "${DS}") { ownership { lastModified { time actor } owners { owner { ... on CorpUser { urn } } } } } }`})
    expect(gql.status, JSON.stringify(gql.json)).to.equal(200)
    expect(gql.json.errors).to.equal(undefined)
    expect(gql.json.data.dataset.ownership.lastModified).to.deep.equal(unknown)
    expect(gql.json.data.dataset.ownership.owners[0].owner.urn).to.equal('urn:li:corpuser:ann')

    // The default is a reading, never written back.
    expect((await a.catalog.rawAspect(DS, 'ownership'))!.value).to.deep.equal({owners: [{owner: 'urn:li:corpuser:ann', type: 'DATAOWNER'}]})
  })
})

describe('the read model: stored text served as it is', () => {
  it('GET /entitiesV2 on the embedded store answers what JSON.stringify of the entity gives, defaults filled, stored text served unparsed', async () => {
    const dir = tempDir('mdcli-read-text-')
    const store = createStore({dir})
    await store.open()
    try {
      const catalog = new Catalog({store})
      const actor = {urn: 'urn:li:corpuser:datahub'}
      const props = {name: 'read_text', description: 'ünïcode "quoted" \\ text', customProperties: {a: '1'}}
      const outcome = await catalog.propose(actor, [
        {entityUrn: DS, aspectName: 'datasetProperties', changeType: 'UPSERT', aspect: {json: props}},
        {entityUrn: DS, aspectName: 'ownership', changeType: 'UPSERT', aspect: {json: {owners: [{owner: 'urn:li:corpuser:ann', type: 'DATAOWNER'}]}}},
        {entityUrn: DS, aspectName: 'status', changeType: 'UPSERT', aspect: {json: {removed: false}}},
        {entityUrn: 'urn:li:tag:t1', aspectName: 'tagProperties', changeType: 'UPSERT', aspect: {json: {name: 't1'}}},
      ])
      expect(outcome.every((o) => o.ok), JSON.stringify(outcome)).to.equal(true)
      const e = await catalog.requireEntity(DS)
      // The embedded store hands out the stored text; a value the defaults changed carries none.
      expect(e.aspects.datasetProperties!.valueText).to.be.a('string')
      expect(e.aspects.ownership!.valueText).to.equal(undefined)
      expect(JSON.parse(entityResponseText(e))).to.deep.equal(JSON.parse(JSON.stringify(entityResponse(e))))
      const a = createApp(catalog, {logger: {info() {}, debug() {}, warn() {}, error() {}, debugEnabled: false}, auth: false, tokens: new TokenService(catalog), changeLog: new ChangeLog()})
      const one = await a.router.respond({method: 'GET', url: `/entitiesV2/${encodeURIComponent(DS)}`, headers: {}})
      if (one === STREAMED) throw new Error('streamed')
      const body = JSON.parse(one.body!.toString())
      expect(body.aspects.datasetProperties.value).to.deep.equal(props)
      expect(body.aspects.ownership.value.lastModified).to.deep.equal({time: 0, actor: 'urn:li:corpuser:unknown'})
      expect(body.aspects.status).to.deep.include({name: 'status', type: 'VERSIONED', version: 0, value: {removed: false}})
      for (const name of ['datasetProperties', 'ownership']) {
        const got = await a.router.respond({method: 'GET', url: `/aspects/${encodeURIComponent(DS)}?aspect=${name}`, headers: {}})
        if (got === STREAMED) throw new Error('streamed')
        const stored = await catalog.getAspect(DS, name)
        expect(JSON.parse(got.body!.toString())).to.deep.equal(JSON.parse(JSON.stringify({aspect: {[aspectSpec(name)!.pdlClass]: stored.value}, version: 0, created: stored.created, systemMetadata: stored.systemMetadata})))
      }
      const tag = await a.router.respond({method: 'GET', url: `/entitiesV2/${encodeURIComponent('urn:li:tag:t1')}`, headers: {}})
      const many = await a.router.respond({method: 'GET', url: `/entitiesV2?ids=List(urn:li:tag:t1,urn:li:tag:t1,urn:li:tag:absent)&alwaysIncludeKeyAspect=false`, headers: {}})
      if (many === STREAMED || tag === STREAMED) throw new Error('streamed')
      expect(JSON.parse(many.body!.toString())).to.deep.equal({results: {'urn:li:tag:t1': JSON.parse(tag.body!.toString())}})
    } finally {
      await store.close()
      cleanup(dir)
    }
  })
})
