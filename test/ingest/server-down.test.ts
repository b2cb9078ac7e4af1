import {spawn} from 'node:child_process'
import {createWriteStream} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'chai'
import {BIN, cleanup, http, startLite, tempDir} from '../helpers/lite.js'
import {datasetUrn, mcpRecord, writeRecipe} from './helpers.js'

async function bigFile(path: string, datasets: number): Promise<number> {
  const out = createWriteStream(path)
  let n = 0
  out.write('[\n')
  for (let i = 0; i < datasets; i++) {
    const urn = datasetUrn(`down.t${i}`)
    const recs = [mcpRecord(urn, 'datasetProperties', {name: `t${i}`, description: 'x'.repeat(40)}), mcpRecord(urn, 'status', {removed: false}), mcpRecord(urn, 'subTypes', {typeNames: ['Table']})]
    const chunk = recs.map((r) => JSON.stringify(r)).join(',\n')
    if (!out.write((n === 0 ? '' : ',\n') + chunk)) await new Promise<void>((r) => out.once('drain', () => r()))
    n += recs.length
  }
  await new Promise<void>((resolve) => out.end('\n]', () => resolve()))
  return n
}

describe('ingest: the server goes away mid-run', function () {
  this.timeout(90_000)

  it('retries, then reports every unsent record as failed and exits 1', async () => {
    const dir = tempDir('mdcli-down-')
    const lite = await startLite()
    try {
      const file = join(dir, 'big.json')
      const total = await bigFile(file, 30_000)
      const recipe = writeRecipe(dir, {
        source: {type: 'file', config: {path: file}},
        sink: {type: 'datahub-rest', config: {server: lite.url, retry_max_times: 2, retry_min_wait_sec: 0.1, max_threads: 2, batch_size: 200}},
        run_id: 'doomed',
      })
      const child = spawn(process.execPath, [BIN, 'ingest', '-c', recipe, '--json'], {env: lite.env(), stdio: ['ignore', 'pipe', 'pipe']})
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += d))
      child.stderr.on('data', (d) => (stderr += d))
      const exited = new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)))

      // Kill the server once the run has written something.
      const deadline = Date.now() + 30_000
      for (;;) {
        const runs = (await http(`${lite.url}/runs?action=list`, {body: {}})).body.value as Array<{runId: string; rows: number}>
        if ((runs.find((r) => r.runId === 'doomed')?.rows ?? 0) > 0) break
        if (Date.now() > deadline) throw new Error(`nothing written in time\n${stderr}`)
        await new Promise((r) => setTimeout(r, 50))
      }
      await lite.kill()

      const code = await exited
      expect(code, stderr).to.equal(1)
      const result = JSON.parse(stdout)
      expect(result.status).to.equal('failures')
      expect(result.source.records).to.equal(total)
      const sink = result.sink.report
      // Nothing dropped silently: every record is either written or reported failed.
      expect(result.sink.recordsWritten + sink.counts.recordsFailed).to.equal(total)
      expect(result.sink.recordsWritten).to.be.greaterThan(0)
      expect(sink.counts.recordsFailed).to.be.greaterThan(0)
      expect(sink.counts.retries).to.be.greaterThan(0)
      const keys = sink.failures.map((f: {key: string}) => f.key)
      expect(keys.some((k: string) => k === 'server unreachable' || k === 'request failed')).to.equal(true)
      expect(sink.failures[0].examples[0]).to.match(/^file:\/\/.*big\.json:\d+: urn:li:dataset:\(urn:li:dataPlatform:hive,down\.t\d+,PROD\) \w+: /)
      expect(result.summary).to.match(/^Pipeline finished with at least \d+ failures; produced \d+ events in /)
    } finally {
      await lite.kill()
      cleanup(dir, lite.storeDir, lite.home)
    }
  })
})
