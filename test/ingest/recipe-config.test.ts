import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'chai'
import {cleanup, tempDir, useLite} from '../helpers/lite.js'
import {startReplay} from '../helpers/replay.js'
import {datasetUrn, ingestJson, mcpRecord, offlineEnv, readJson, writeJson, writeRecipe} from './helpers.js'

// Recipe values as DataHub's pydantic models take them, through the real `mdcli ingest`.
describe('recipes: config values as DataHub reads them', function () {
  this.timeout(60_000)
  let dir: string
  let input: string
  before(() => {
    dir = tempDir('mdcli-recipe-config-')
    input = writeJson(dir, 'in.json', [mcpRecord(datasetUrn('cfg.t'), 'status', {removed: false})])
  })
  after(() => cleanup(dir))

  describe('with a server', () => {
    const lite = useLite()

    it('numeric text from ${VAR} feeds number and integer keys', async () => {
      const recipe = writeRecipe(dir, {source: {type: 'file', config: {path: input}}, sink: {type: 'datahub-rest', config: {max_threads: '${MAX_THREADS}', batch_size: '${BATCH}', timeout_sec: '${TIMEOUT}'}}}, 'num.yml')
      const r = await ingestJson(recipe, {...lite.env(), MAX_THREADS: '3', BATCH: ' 7 ', TIMEOUT: '2.5'})
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      expect(r.result.sink.report.info).to.include({maxThreads: 3, batchSize: 7})
      expect(r.result.sink.recordsWritten).to.equal(1)
    })

    it("enum values in any case, as DataHub's ConfigEnum reads them (sink mode: async_batch)", async () => {
      const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: input, read_mode: 'stream'}}, sink: {type: 'datahub-rest', config: {mode: 'async_batch'}}}, 'enum.yml'), lite.env())
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      expect(r.result.sink.recordsWritten).to.equal(1)
    })
  })

  it('text that is not a number is refused naming the key', async () => {
    const recipe = writeRecipe(dir, {source: {type: 'file', config: {path: input}}, sink: {type: 'datahub-rest', config: {max_threads: '${MAX_THREADS}', timeout_sec: 'soon'}}}, 'nan.yml')
    const r = await ingestJson(recipe, {...offlineEnv(dir), MAX_THREADS: '2.5'})
    expect(r.code).to.equal(1)
    expect(r.result.error.message).to.match(/sink\.config\.max_threads: expected integer, got string that is not a whole number/)
    expect(r.result.error.message).to.match(/sink\.config\.timeout_sec: expected number, got string that is not a number/)
  })

  it('a ${ with no } after it is taken literally, as DataHub does', async () => {
    const odd = join(dir, 'odd${name.json')
    writeFileSync(odd, JSON.stringify([mcpRecord(datasetUrn('odd.t'), 'status', {removed: false})]))
    const out = join(dir, 'odd-out.json')
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: odd}}, sink: {type: 'file', config: {filename: out}}}, 'odd.yml'), offlineEnv(dir))
    expect(r.code, r.stderr + r.stdout).to.equal(0)
    expect(readJson<unknown[]>(out)).to.have.length(1)
  })

  it('a password holding ${ reaches the source as written, and no recipe error shows a secret', async () => {
    const replay = await startReplay((req) => (req.path === '/api/session' ? {status: 401, body: {errors: {password: 'did not match'}}} : undefined))
    try {
      const metabase = (password: string, extra: Record<string, unknown> = {}) =>
        writeRecipe(dir, {source: {type: 'metabase', config: {connect_uri: replay.url, username: 'ann', password, ...extra}}, sink: {type: 'file', config: {filename: join(dir, 'mb.json')}}}, 'mb.yml')
      let r = await ingestJson(metabase('p4ss${word'), offlineEnv(dir))
      expect(r.code).to.equal(1)
      expect(JSON.parse(replay.requests[0]!.body)).to.deep.equal({username: 'ann', password: 'p4ss${word'})
      expect(r.result.error.message).to.match(/login as ann .* failed/)
      expect(r.stdout + r.stderr).to.not.include('p4ss')
      // A malformed reference: the key is named, a secret's value is not shown; another key's is.
      r = await ingestJson(metabase('s3cr3t-${HOME}-${oops'), offlineEnv(dir))
      expect(r.code).to.equal(1)
      expect(r.result.error.message).to.match(/malformed variable reference in the value \(not shown: a secret\) at source\.config\.password/)
      expect(r.stdout + r.stderr).to.not.include('s3cr3t')
      r = await ingestJson(metabase('x', {display_uri: 'shown-${HOME}-${oops'}), offlineEnv(dir))
      expect(r.result.error.message).to.include("malformed variable reference in 'shown-${HOME}-${oops' at source.config.display_uri")
    } finally {
      await replay.close()
    }
  })
})
