/**
 * One read model: REST and GraphQL answer an aspect with the model's defaults filled in
 * (model/defaults.ts), the same way, and leave stored values as written.
 */
import {expect} from 'chai'
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
