/**
 * Newcomer edges (#15 Deliver 8): help that wraps at words, honest counts from `check` on a
 * broken file.
 */
import {expect} from 'chai'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {reflow} from '../../src/cli/help.js'
import {cleanup, runCli, tempDir} from '../helpers/lite.js'

/** Lines of the DESCRIPTION section of a command's help. */
function descriptionLines(help: string): string[] {
  const start = help.indexOf('DESCRIPTION\n')
  const rest = help.slice(start + 'DESCRIPTION\n'.length)
  const end = rest.search(/\n[A-Z][A-Z ]+\n/)
  return (end >= 0 ? rest.slice(0, end) : rest).split('\n')
}

describe('edges: help wrapping and check counts', function () {
  this.timeout(60_000)
  let work: string
  before(() => (work = tempDir('mdcli-edges-')))
  after(() => cleanup(work))
  const env = () => ({...process.env, HOME: work, NO_COLOR: '1', METADATA_TELEMETRY_ENABLED: 'false', COLUMNS: '80'})

  it('reflow joins soft-broken lines and keeps paragraphs, lists and indented blocks', () => {
    expect(reflow('one two\nthree\n\nnext para\n- item a\n- item b\n  indented')).to.equal('one two three\n\nnext para\n- item a\n- item b\n  indented')
  })

  for (const cmd of [['lite', 'ls'], ['check', 'mce-file'], ['delete'], ['ingest']]) {
    it(`${cmd.join(' ')} --help wraps descriptions at words, with no orphan words`, async () => {
      const r = await runCli([...cmd, '--help'], {env: env()})
      expect(r.code, r.stderr).to.equal(0)
      const lines = descriptionLines(r.stdout)
      expect(lines.length).to.be.greaterThan(1)
      lines.forEach((line, i) => {
        const next = lines[i + 1] ?? ''
        // An orphan: a line of one or two words inside a paragraph that goes on below it.
        const words = line.trim().split(/\s+/).filter(Boolean)
        if (words.length > 0 && words.length <= 2 && next.trim() !== '' && !/^\s*[-*$|]/.test(line) && !/^\s{4,}/.test(line)) {
          expect.fail(`orphan line ${JSON.stringify(line)} in ${cmd.join(' ')} --help:\n${r.stdout}`)
        }
      })
    })
  }

  it('check metadata-file on a broken file names the broken file instead of "1 of 0 records"', async () => {
    const file = join(work, 'broken.json')
    writeFileSync(file, '[{"entityType": "dataset", "entityUrn": ')
    const r = await runCli(['check', 'metadata-file', file], {env: env()})
    expect(r.code).to.equal(1)
    expect(r.stderr).to.not.match(/of 0 records/)
    expect(r.stderr).to.match(/Event file check failed: 1 file is not readable change-event JSON; 0 records were read before that/)
  })

  it('check metadata-file counts invalid records out of the records read', async () => {
    const file = join(work, 'bad-record.json')
    const ok = {entityType: 'dataset', entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)', changeType: 'UPSERT', aspectName: 'status', aspect: {json: {removed: false}}}
    writeFileSync(file, JSON.stringify([ok, {...ok, aspectName: 'noSuchAspect'}]))
    const r = await runCli(['check', 'metadata-file', file], {env: env()})
    expect(r.code).to.equal(1)
    expect(r.stderr).to.match(/1 of 2 records is invalid/)
  })
})
