import {requireSharedFixtures} from '../helpers/requires.js'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'chai'
import {cleanup, runCli, tempDir} from '../helpers/lite.js'
import {BOOTSTRAP, OWN, datasetUrn, mcpRecord, offlineEnv, writeJson} from './helpers.js'

describe('check mce-file / metadata-file', function () {
  this.timeout(30_000)
  let dir: string
  before(() => {
    dir = tempDir('mdcli-check-')
  })
  after(() => cleanup(dir))

  it('counts the records of a valid file', async function () {
    requireSharedFixtures(this, 'datahub')
    const r = await runCli(['check', 'mce-file', BOOTSTRAP], {env: offlineEnv(dir)})
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stdout.trim()).to.equal('104 MCEs found - all valid')
    const single = await runCli(['check', 'metadata-file', join(OWN, 'single_mce.json')], {env: offlineEnv(dir)})
    expect(single.stdout.trim()).to.equal('1 MCEs found - all valid')
  })

  it('prints one line per bad record and exits 1', async () => {
    const file = writeJson(dir, 'bad.json', [
      mcpRecord(datasetUrn('ok'), 'status', {removed: false}),
      mcpRecord(datasetUrn('bad.aspect'), 'notAnAspect', {}),
      mcpRecord('urn:li:dataset:(missing,parts)', 'status', {removed: false}),
      mcpRecord(datasetUrn('bad.value'), 'status', {removed: 'yes'}),
      {proposedSnapshot: {'com.linkedin.pegasus2avro.metadata.snapshot.DatasetSnapshot': {urn: datasetUrn('mce'), aspects: [{'com.linkedin.pegasus2avro.common.Nope': {}}]}}},
    ])
    const r = await runCli(['check', 'mce-file', file], {env: offlineEnv(dir)})
    expect(r.code).to.equal(1)
    const lines = r.stdout.trim().split('\n')
    expect(lines).to.have.length(4)
    expect(lines[0]).to.match(/^record 1 \(urn:li:dataset:\(urn:li:dataPlatform:hive,bad\.aspect,PROD\)\): .*Unknown aspect notAnAspect for entity dataset/)
    expect(lines[1]).to.match(/^record 2 \(urn:li:dataset:\(missing,parts\)\): .*Invalid urn/)
    expect(lines[2]).to.match(/^record 3 \(.*bad\.value,PROD\)\): .*\/removed: must be boolean/)
    expect(lines[3]).to.match(/^record 4 \(.*mce,PROD\)\): .*unknown class com\.linkedin\.pegasus2avro\.common\.Nope/)
    const j = await runCli(['check', 'mce-file', file, '--json'], {env: offlineEnv(dir)})
    expect(JSON.parse(j.stdout)).to.include({records: 5, valid: false})
  })

  it('a file that is not JSON is one clear error', async () => {
    const file = join(dir, 'trunc.json')
    writeFileSync(file, '[{"entityUrn": "urn:li:tag:a", "aspectName": "status", "aspect": {"json": {}}},\n{"entityUrn"')
    const r = await runCli(['check', 'mce-file', file], {env: offlineEnv(dir)})
    expect(r.code).to.equal(1)
    expect(r.stdout).to.match(/truncated/)
  })
})
