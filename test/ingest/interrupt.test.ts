/**
 * Long runs (#15 Deliver 7a): the plain progress line comes at once and carries an ETA; Ctrl-C
 * (a real SIGINT to a real `mdcli ingest` child) stops the run cleanly, prints the partial report
 * and the rollback command, and that command takes back what the run wrote.
 */
import {expect} from 'chai'
import {spawn} from 'node:child_process'
import {createWriteStream} from 'node:fs'
import {once} from 'node:events'
import {join} from 'node:path'
import {BIN, ROOT, cleanup, http, runCli, tempDir, useLite} from '../helpers/lite.js'
import {writeRecipe} from './helpers.js'

const RECORDS = 40_000
const DS = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,interrupt_${i},PROD)`

describe('mdcli ingest: ETA and Ctrl-C', function () {
  this.timeout(180_000)
  const lite = useLite()
  let work: string
  let recipe: string
  before(async () => {
    work = tempDir('mdcli-interrupt-')
    const file = join(work, 'big.json')
    const out = createWriteStream(file)
    out.write('[\n')
    for (let i = 0; i < RECORDS; i++) {
      const mcp = {entityType: 'dataset', entityUrn: DS(i), changeType: 'UPSERT', aspectName: 'status', aspect: {json: {removed: false}}}
      if (!out.write(`${i ? ',\n' : ''}${JSON.stringify(mcp)}`)) await once(out, 'drain')
    }
    out.end('\n]\n')
    await once(out, 'finish')
    recipe = writeRecipe(work, {source: {type: 'file', config: {path: file}}})
  })
  after(() => cleanup(work))

  it('stops on SIGINT with a partial report and the rollback command, which works', async () => {
    const child = spawn(process.execPath, [BIN, 'ingest', '-c', recipe], {cwd: ROOT, env: lite.env(), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    // Ctrl-C once the run has read something (the sink flushes it on the way out), as a user
    // watching the progress line would.
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d) => {
        stderr += d
        if (/Pipeline running: [1-9][\d,]* work units read/.test(stderr)) resolve()
      })
      child.once('exit', () => reject(new Error(`ingest ended before it was interrupted:\n${stdout}\n${stderr}`)))
    })
    expect(stderr).to.match(/% read, .*about .* left/)
    child.kill('SIGINT')
    const code = await exited
    expect(code, stderr).to.equal(130)
    expect(stderr).to.match(/Stopping after the current work unit/)
    expect(stdout).to.match(/Sink \(datahub-rest\) report:/)
    expect(stdout).to.match(/Pipeline interrupted; produced [\d,]+ events/)
    const m = /To roll them back: mdcli ingest rollback --run-id (\S+)/.exec(stdout)
    expect(m, stdout).to.not.equal(null)
    const written = Number(/Stopped by Ctrl-C: ([\d,]+) aspects of this run were sent/.exec(stdout)![1]!.replace(/,/g, ''))
    expect(written).to.be.greaterThan(0).and.lessThan(RECORDS)

    const rb = await runCli(['ingest', 'rollback', '--run-id', m![1]!, '--force', '--json'], {env: lite.env()})
    expect(rb.code, rb.stderr).to.equal(0)
    expect((await http(`${lite.url}/entitiesV2/${encodeURIComponent(DS(0))}`)).body.aspects?.status?.value?.removed).to.equal(true)
  })
})
