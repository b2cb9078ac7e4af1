import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {expect} from 'chai'
import {forwardTo} from '../helpers/http-forward.js'
import {cleanup, tempDir, useLite} from '../helpers/lite.js'
import {datasetUrn, ingestJson, mcpRecord, writeJson, writeRecipe} from './helpers.js'

/**
 * The datahub-rest sink's `retries` against a real server behind a stand-in that answers the
 * first batch requests with the statuses a test scripts (the rest pass through).
 */
describe('datahub-rest sink: retries counted', function () {
  this.timeout(60_000)
  const lite = useLite()
  let dir: string
  let proxy: Server
  let url: string
  let script: number[] = []
  let batches = 0
  before(async () => {
    dir = tempDir('mdcli-retries-')
    const target = new URL(lite.url)
    proxy = createServer((req, res) => {
      if (req.method === 'POST' && req.url?.includes('ingestProposalBatch')) {
        batches++
        const status = script.shift()
        if (status !== undefined) {
          req.resume()
          res.writeHead(status, {'content-type': 'application/json'}).end(JSON.stringify({status, message: `scripted ${status}`}))
          return
        }
      }
      forwardTo(target, req, res)
    })
    await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok))
    url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
  })
  after(async () => {
    await new Promise<void>((ok) => proxy.close(() => ok()))
    cleanup(dir)
  })

  const run = async (answers: number[]) => {
    script = [...answers]
    batches = 0
    const input = writeJson(dir, 'in.json', [mcpRecord(datasetUrn('retry.t'), 'status', {removed: false})])
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: input}}, sink: {type: 'datahub-rest', config: {server: url, retry_max_times: 2, retry_min_wait_sec: 0}}}, 'r.yml'), lite.env())
    return {r, counts: r.result.sink.report.counts as Record<string, number>, attempts: batches}
  }

  it('counts the retries made, not the failed attempts', async () => {
    let {r, counts, attempts} = await run([503, 503, 503])
    expect(r.code).to.equal(1)
    expect(attempts).to.equal(3)
    expect(counts.retries).to.equal(2)
    expect(counts.recordsFailed).to.equal(1)
    ;({r, counts, attempts} = await run([503]))
    expect(r.code, r.stderr + r.stdout).to.equal(0)
    expect([attempts, counts.retries]).to.deep.equal([2, 1])
    // Not retryable: one attempt, no retry.
    ;({r, counts, attempts} = await run([400]))
    expect(r.code).to.equal(1)
    expect(attempts).to.equal(1)
    expect(counts.retries ?? 0).to.equal(0)
  })
})
