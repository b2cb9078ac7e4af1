import {expect} from 'chai'
import {cleanup, tempDir, useLite} from '../helpers/lite.js'
import {datasetUrn, ingestJson, mcpRecord, offlineEnv, writeJson, writeRecipe} from './helpers.js'

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
  })

  it('text that is not a number is refused naming the key', async () => {
    const recipe = writeRecipe(dir, {source: {type: 'file', config: {path: input}}, sink: {type: 'datahub-rest', config: {max_threads: '${MAX_THREADS}', timeout_sec: 'soon'}}}, 'nan.yml')
    const r = await ingestJson(recipe, {...offlineEnv(dir), MAX_THREADS: '2.5'})
    expect(r.code).to.equal(1)
    expect(r.result.error.message).to.match(/sink\.config\.max_threads: expected integer, got string that is not a whole number/)
    expect(r.result.error.message).to.match(/sink\.config\.timeout_sec: expected number, got string that is not a number/)
  })
})
