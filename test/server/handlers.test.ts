import {expect} from 'chai'
import {PolicyAuthorizer} from '../../src/catalog/access/policy-authorizer.js'
import {TokenService} from '../../src/catalog/access/tokens.js'
import {denyAll} from '../../src/catalog/authorize.js'
import {Catalog} from '../../src/catalog/catalog.js'
import {ChangeLog} from '../../src/events/changelog.js'
import {createApp} from '../../src/server/app.js'
import {type Logger, STREAMED} from '../../src/server/http.js'
import {createMemoryStore} from '../../src/store/index.js'
import {type App, app, call} from './helpers.js'

// The handlers called in-process (helpers.ts): a request value in, a response value out.

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,handlers.orders,PROD)'

const proposal = (aspectName: string, json: unknown) => ({entityType: 'dataset', entityUrn: DATASET, changeType: 'UPSERT', aspectName, aspect: {json}})

describe('REST handlers in-process (request value → response value)', () => {
  it('writes an aspect and reads it back in the GMS shape', async () => {
    const a = await app({auth: true, authorizer: (store) => new PolicyAuthorizer(store)})
    const put = await call(a, 'POST', '/aspects?action=ingestProposal', {proposal: proposal('datasetProperties', {description: 'orders'})})
    expect(put.status).to.equal(200)
    expect(put.json).to.deep.equal({value: DATASET})
    const got = await call(a, 'GET', `/aspects/${encodeURIComponent(DATASET)}?aspect=datasetProperties&version=0`)
    expect(got.status).to.equal(200)
    expect(got.response.headers['content-type']).to.equal('application/json; charset=utf-8')
    expect(got.json.aspect['com.linkedin.dataset.DatasetProperties'].description).to.equal('orders')
    expect(got.json.version).to.equal(0)
  })

  it('refuses an atomic batch with an invalid aspect: 400 E_INVALID_ASPECT, nothing written', async () => {
    const a = await app({auth: true, authorizer: (store) => new PolicyAuthorizer(store)})
    const r = await call(a, 'POST', '/aspects?action=ingestProposalBatch', {
      atomic: true,
      proposals: [proposal('datasetProperties', {description: 'fine'}), proposal('status', {removed: 'not a boolean'})],
    })
    expect(r.status).to.equal(400)
    expect(r.json.code).to.equal('E_INVALID_ASPECT')
    expect(r.json.status).to.equal(400)
    expect(await a.catalog.exists(DATASET, {includeSoftDeleted: true})).to.equal(false)
  })

  it('answers a non-atomic batch with failed proposals non-2xx (a client may read only the status), every outcome in the body', async () => {
    const a = await app({auth: true, authorizer: (store) => new PolicyAuthorizer(store)})
    const other = 'urn:li:dataset:(urn:li:dataPlatform:hive,handlers.other,PROD)'
    const ok = await call(a, 'POST', '/aspects?action=ingestProposalBatch', {atomic: false, proposals: [proposal('datasetProperties', {description: 'fine'})]})
    expect(ok.status).to.equal(200)
    expect(ok.json).to.deep.equal({value: {written: 1, failed: 0, results: [{index: 0, urn: DATASET, aspectName: 'datasetProperties', ok: true, changed: true, keyAspect: true}]}})

    // Validation failures only: 422, as GMS answers an invalid proposal; the valid ones are written.
    const invalid = await call(a, 'POST', '/aspects?action=ingestProposalBatch', {
      atomic: false,
      proposals: [{...proposal('status', {removed: 'not a boolean'})}, {...proposal('status', {removed: false}), entityUrn: other}, {...proposal('nosuchAspect', {}), entityUrn: other}],
    })
    expect(invalid.status).to.equal(422)
    expect(invalid.json.value.written).to.equal(1)
    expect(invalid.json.value.failed).to.equal(2)
    expect(invalid.json.value.results.map((r: {ok: boolean; error?: {code: string}}) => r.error?.code ?? 'ok')).to.deep.equal(['E_INVALID_ASPECT', 'ok', 'E_UNKNOWN_ASPECT'])
    expect(invalid.json.message).to.match(/^2 of 3 proposals failed/)
    expect(await a.catalog.exists(other)).to.equal(true)

    // Any other failure: the first such failure's status (a CREATE of a stored aspect: 409).
    const conflict = await call(a, 'POST', '/aspects?action=ingestProposalBatch', {
      atomic: false,
      proposals: [proposal('status', {removed: 'no'}), {...proposal('datasetProperties', {description: 'again'}), changeType: 'CREATE'}, proposal('globalTags', {tags: []})],
    })
    expect(conflict.status).to.equal(409)
    expect(conflict.json.value.results.map((r: {ok: boolean; error?: {status: number}}) => r.error?.status ?? 'ok')).to.deep.equal([400, 409, 'ok'])
  })

  it('answers 404 E_NOT_FOUND for a missing aspect and for an unknown endpoint', async () => {
    const a = await app({auth: true, authorizer: (store) => new PolicyAuthorizer(store)})
    const missing = await call(a, 'GET', `/aspects/${encodeURIComponent(DATASET)}?aspect=datasetProperties`)
    expect(missing.status).to.equal(404)
    expect(missing.json.code).to.equal('E_NOT_FOUND')
    const nowhere = await call(a, 'GET', '/no/such/endpoint')
    expect(nowhere.status).to.equal(404)
    expect(nowhere.json).to.deep.equal({status: 404, code: 'E_NOT_FOUND', message: 'No endpoint GET /no/such/endpoint'})
  })

  it('refuses a request without a token (401) and a write the authorizer denies (403)', async () => {
    const secured = await app({auth: true, authorizer: (store) => new PolicyAuthorizer(store)})
    const anonymous = await call(secured, 'GET', `/entitiesV2/${encodeURIComponent(DATASET)}`, undefined, '')
    expect(anonymous.status).to.equal(401)
    expect(anonymous.json.code).to.equal('E_UNAUTHENTICATED')
    // Public routes need no token.
    expect((await call(secured, 'GET', '/health', undefined, '')).status).to.equal(200)

    const denied = await app({auth: false, authorizer: () => denyAll})
    const r = await call(denied, 'POST', '/aspects?action=ingestProposal', {proposal: proposal('datasetProperties', {description: 'x'})})
    expect(r.status).to.equal(403)
    expect(r.json.code).to.equal('E_UNAUTHORIZED')
    expect(await denied.catalog.exists(DATASET, {includeSoftDeleted: true})).to.equal(false)
  })

  it('turns an unexpected exception into 500 E_INTERNAL, the cause in the log only', async () => {
    const a = await app({auth: false})
    a.router.on('GET', '/boom', async () => {
      throw new TypeError('secret internals')
    })
    const r = await call(a, 'GET', '/boom')
    expect(r.status).to.equal(500)
    expect(r.json).to.deep.equal({status: 500, code: 'E_INTERNAL', message: 'Internal server error; the server log has the details'})
    expect(a.errors.join('\n')).to.contain('secret internals')
  })
})

describe('Batch ingest admission (in-process)', () => {
  it('prepares at most the store’s writeConcurrency batches at once; the rest wait their turn and all land', async () => {
    const store = createMemoryStore()
    await store.open()
    // Our own store, slowed so that batches overlap, counting the batches inside it at once.
    let inside = 0
    let most = 0
    const write = store.write.bind(store)
    store.write = async (ops) => {
      most = Math.max(most, ++inside)
      await new Promise((r) => setTimeout(r, 15))
      inside--
      return write(ops)
    }
    const catalog = new Catalog({store})
    const logger: Logger = {info() {}, debug() {}, warn() {}, error() {}, debugEnabled: false}
    const {router} = createApp(catalog, {logger, auth: false, tokens: new TokenService(catalog), changeLog: new ChangeLog()})
    expect(catalog.writeConcurrency).to.equal(2)
    const a: App = {catalog, router, errors: []}
    const urn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,admission.t${i},PROD)`
    const batch = (i: number) => ({proposals: [{entityUrn: urn(i), aspectName: 'status', changeType: 'UPSERT', aspect: {json: {removed: false}}}]})
    const answers = await Promise.all([
      ...Array.from({length: 6}, (_, i) => call(a, 'POST', '/aspects?action=ingestProposalBatch', batch(i))),
      // A bad batch in the queue is refused and gives its turn back.
      call(a, 'POST', '/aspects?action=ingestProposalBatch', {proposals: 'not a list'}),
    ])
    expect(answers.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200, 200, 400])
    expect(most).to.equal(2)
    for (let i = 0; i < 6; i++) expect(await catalog.exists(urn(i))).to.equal(true)

    // Uploads still under way hold no turn: two slow bodies do not stop the batches behind them.
    let slowArrived = false
    const slow = (i: number) =>
      router.respond({
        method: 'POST',
        url: '/aspects?action=ingestProposalBatch',
        headers: {'content-type': 'application/json'},
        body: () => new Promise((r) => setTimeout(() => ((slowArrived = true), r(JSON.stringify(batch(i)))), 400)),
      })
    const slowOnes = [slow(10), slow(11)]
    const fast = await Promise.all([12, 13, 14].map((i) => call(a, 'POST', '/aspects?action=ingestProposalBatch', batch(i))))
    expect(fast.map((r) => r.status)).to.deep.equal([200, 200, 200])
    expect(slowArrived).to.equal(false)
    for (const r of await Promise.all(slowOnes)) expect(r === STREAMED ? 0 : r.status).to.equal(200)
  })
})
