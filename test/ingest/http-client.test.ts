/**
 * The SDK's HTTP client for API sources, against a local server: what the BI sources' tests do
 * not reach through a recipe (an HTTP-date Retry-After, a refused connection, paging helpers,
 * redaction of credentials in errors).
 */
import {expect} from 'chai'
import {createServer} from 'node:net'
import {HttpClient, HttpError, offsetItems, pagedItems, retryAfterMs} from '../../src/sdk/index.js'
import {startReplay, type Replay} from '../helpers/replay.js'

describe('sdk HttpClient', function () {
  this.timeout(30_000)
  let replay: Replay | undefined
  afterEach(async () => {
    await replay?.close()
    replay = undefined
  })

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).to.equal(3000)
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).to.equal(6_000)
    expect(retryAfterMs('soon')).to.equal(undefined)
    expect(retryAfterMs(undefined)).to.equal(undefined)
  })

  it('retries 5xx with growing waits, then fails with the status, the URL and no secret', async () => {
    replay = await startReplay(() => ({status: 502, body: 'bad gateway for token tok-123456'}))
    const waits: number[] = []
    const client = new HttpClient({baseUrl: `http://user:pw-999999@127.0.0.1:${replay.port}`, secrets: ['tok-123456'], retry: {maxAttempts: 4, initialDelayMs: 100, multiplier: 3, maxDelayMs: 500}, sleep: async (ms) => void waits.push(ms)})
    const err: any = await client.get('/api/x', {query: {page: 2}}).catch((e: any) => e)
    await client.close()
    expect(err).to.be.instanceOf(HttpError)
    expect(err.httpStatus).to.equal(502)
    expect(waits).to.deep.equal([100, 300, 500])
    expect(err.message).to.match(/^http: GET http:\/\/127\.0\.0\.1:\d+\/api\/x\?page=2 answered HTTP 502 after 4 attempts: bad gateway for token \*\*\*$/)
    expect(err.message).not.to.include('pw-999999')
  })

  it('does not retry a 404, and a refused connection fails at once', async () => {
    replay = await startReplay(() => ({status: 404, body: {}}))
    const client = new HttpClient({baseUrl: replay.url, sleep: async () => {}})
    expect((await client.get<any>('/nope').catch((e: any) => e)).httpStatus).to.equal(404)
    expect(replay.requests).to.have.length(1)
    await client.close()
    // A port nothing listens on.
    const probe = createServer()
    await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok))
    const port = (probe.address() as {port: number}).port
    await new Promise<void>((ok) => probe.close(() => ok()))
    let slept = 0
    const dead = new HttpClient({baseUrl: `http://127.0.0.1:${port}`, sleep: async () => void slept++})
    const err: any = await dead.get('/x').catch((e: any) => e)
    expect(err.code).to.equal('E_CONNECTION')
    expect(slept).to.equal(0)
    await dead.close()
  })

  it('pages until an empty or short page', async () => {
    const asked: number[] = []
    const items = []
    for await (const x of pagedItems(async (p) => (asked.push(p), p <= 2 ? [p * 10, p * 10 + 1] : []))) items.push(x)
    expect(items).to.deep.equal([10, 11, 20, 21])
    expect(asked).to.deep.equal([1, 2, 3])
    const offsets: number[] = []
    const rows = []
    for await (const x of offsetItems(async (o, l) => (offsets.push(o), {items: Array.from({length: o < 4 ? l : 1}, (_, i) => o + i)}), {limit: 2})) rows.push(x)
    expect(rows).to.deep.equal([0, 1, 2, 3, 4])
    expect(offsets).to.deep.equal([0, 2, 4])
  })
})
