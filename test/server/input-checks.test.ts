/**
 * Input the server refuses rather than stores in a bent form: bytes that are not UTF-8, system
 * metadata of the wrong types, a timeseries read of something that is no timeseries aspect, and
 * `__proto__` as a GraphQL response key. In-process, on the memory store.
 */
import {expect} from 'chai'
import {STREAMED} from '../../src/server/http.js'
import {app, call} from './helpers.js'

const TAG = 'urn:li:tag:checked'
const proposal = (systemMetadata?: unknown) => ({
  proposal: {entityType: 'tag', entityUrn: TAG, changeType: 'UPSERT', aspectName: 'tagProperties', aspect: {contentType: 'application/json', value: '{"name":"checked"}'}, ...(systemMetadata === undefined ? {} : {systemMetadata})},
})

describe('server: input refused, not bent', () => {
  it('refuses a body that is not UTF-8 with 400, writing nothing', async () => {
    const a = await app({auth: false})
    const bytes = Buffer.concat([Buffer.from('{"proposal":{"entityType":"tag","entityUrn":"urn:li:tag:'), Buffer.from([0xff, 0xfe]), Buffer.from('","changeType":"UPSERT","aspectName":"tagProperties","aspect":{"contentType":"application/json","value":"{\\"name\\":\\"x\\"}"}}}')])
    const response = await a.router.respond({method: 'POST', url: '/aspects?action=ingestProposal', headers: {'content-type': 'application/json'}, body: async () => bytes})
    if (response === STREAMED) throw new Error('streamed')
    expect(response.status).to.equal(400)
    expect(JSON.parse(response.body!.toString())).to.include({code: 'E_BAD_REQUEST', message: 'Request body is not valid UTF-8'})
    expect((await a.catalog.search({query: '*', types: ['tag']})).total).to.equal(0)
  })

  it('refuses system metadata of the wrong types, naming the field', async () => {
    const a = await app({auth: false})
    const cases: Array<[unknown, string]> = [
      [{runId: 5}, 'systemMetadata.runId must be a string, not 5'],
      [{lastObserved: '__proto__'}, 'systemMetadata.lastObserved must be a time in milliseconds since the epoch, not "__proto__"'],
      [{lastObserved: -1}, 'systemMetadata.lastObserved must be a time in milliseconds since the epoch, not -1'],
      [{properties: {a: 1}}, 'systemMetadata.properties must map names to strings'],
    ]
    for (const [sm, message] of cases) {
      const r = await call(a, 'POST', '/aspects?action=ingestProposal', proposal(sm))
      expect(r.status, JSON.stringify(sm)).to.equal(400)
      expect(r.json.message).to.equal(`proposal: ${message}`)
    }
    const ok = await call(a, 'POST', '/aspects?action=ingestProposal', proposal({runId: 'r-1', lastObserved: 1700000000000, properties: {a: 'b'}}))
    expect(ok.status, JSON.stringify(ok.json)).to.equal(200)
  })

  it('answers a timeseries read of a bad urn or of no timeseries aspect with 400', async () => {
    const a = await app({auth: false})
    const ds = 'urn:li:dataset:(urn:li:dataPlatform:hive,ts,PROD)'
    for (const [body, message] of [
      [{urn: 'garbage', aspect: 'datasetProfile'}, /Invalid urn/],
      [{urn: ds, aspect: '__proto__'}, /^Unknown timeseries aspect '__proto__'$/],
      [{urn: ds, aspect: 'datasetProperties'}, /^Unknown timeseries aspect 'datasetProperties'$/],
    ] as const) {
      const r = await call(a, 'POST', '/aspects?action=getTimeseriesAspectValues', body)
      expect(r.status, JSON.stringify(body)).to.equal(400)
      expect(r.json.message).to.match(message)
    }
    const ok = await call(a, 'POST', '/aspects?action=getTimeseriesAspectValues', {urn: ds, aspect: 'datasetProfile', latestValue: true})
    expect(ok.status).to.equal(200)
    expect(ok.json.value.values).to.deep.equal([])
  })

  it('refuses __proto__ as a GraphQL response key instead of dropping the field', async () => {
    const a = await app({auth: false})
    const r = await call(a, 'POST', '/api/graphql', {query: '{ __proto__: __typename constructor: __typename }'})
    expect(r.json.errors?.[0]?.message).to.equal('"__proto__" cannot be a response key; choose another alias')
    expect(r.json.data).to.equal(undefined)
    const fine = await call(a, 'POST', '/api/graphql', {query: '{ constructor: __typename }'})
    expect(fine.json).to.deep.equal({data: {constructor: 'Query'}})
  })
})
