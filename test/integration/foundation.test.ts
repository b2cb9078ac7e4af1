/**
 * The foundation end to end: a real `mdcli lite` on an ephemeral port, driven through the real
 * binary and over HTTP.
 */
import {expect} from 'chai'
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {ASPECT_SPECS_BY_CLASS} from '../../src/model/aspects/index.js'
import {normalizeAspectValue} from '../../src/model/normalize.js'
import {encodeUrnPath} from '../../src/model/urn.js'
import {cleanup, ROOT, http, type LiteProcess, runCli, startLite, tempDir, useLite} from '../helpers/lite.js'

const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)'

describe('mdcli lite + core commands', function () {
  let lite: LiteProcess
  let work: string
  before(async () => {
    lite = await startLite()
    work = tempDir()
  })
  after(async () => {
    await lite.stop()
    cleanup(lite.storeDir, lite.home, work)
  })

  const cli = (args: string[], input?: string) => runCli(args, {env: lite.env(), input})
  const file = (name: string, content: unknown) => {
    const p = join(work, name)
    writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content))
    return p
  }

  it('answers /health and /config', async () => {
    expect((await http(`${lite.url}/health`)).status).to.equal(200)
    const cfg = await http(`${lite.url}/config`)
    expect(cfg.body.noCode).to.equal('true')
    // Where DataHub's clients read the version (datahub-facts §3.4).
    expect(cfg.body.versions['acryldata/datahub'].version).to.match(/^\d+\.\d+\.\d+/)
    expect(cfg.body.versions['acryldata/datahub']).to.have.property('commit')
    expect(cfg.body.patchCapable).to.equal(true)
  })

  it('put then get round-trips an aspect through the real CLI', async () => {
    const owners = {owners: [{owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER'}], lastModified: {time: 1, actor: 'urn:li:corpuser:jdoe'}}
    const put = await cli(['put', '--urn', DS, '--aspect', 'ownership', '-d', file('own.json', owners)])
    expect(put.stderr).to.equal('')
    expect(put.stdout.trim()).to.equal('Update succeeded with status 200')
    expect(put.code).to.equal(0)
    const get = await cli(['get', '--urn', DS, '--aspect', 'ownership'])
    expect(get.code).to.equal(0)
    expect(JSON.parse(get.stdout)).to.deep.equal({ownership: owners})
    // keys sorted, two-space indent, as DataHub prints
    expect(get.stdout).to.include('{\n  "ownership": {\n    "lastModified"')
    const all = JSON.parse((await cli(['get', '--urn', DS])).stdout)
    expect(all.datasetKey).to.deep.equal({name: 'SampleHiveDataset', origin: 'PROD', platform: 'urn:li:dataPlatform:hive'})
  })

  it('`put aspect` and YAML data files work too, and versions accumulate', async () => {
    const yml = file('tags.yaml', 'tags:\n  - tag: urn:li:tag:pii\n')
    expect((await cli(['put', 'aspect', '--urn', DS, '-a', 'globalTags', '-d', yml])).code).to.equal(0)
    expect((await cli(['put', '--urn', DS, '-a', 'globalTags', '-d', file('t2.json', {tags: [{tag: 'urn:li:tag:legacy'}]})])).code).to.equal(0)
    const v1 = await http(`${lite.url}/aspects/${encodeUrnPath(DS)}?aspect=globalTags&version=1`)
    expect(v1.status).to.equal(200)
    expect(v1.body.aspect['com.linkedin.common.GlobalTags']).to.deep.equal({tags: [{tag: 'urn:li:tag:pii'}]})
    const v0 = await http(`${lite.url}/aspects/${encodeUrnPath(DS)}?aspect=globalTags`)
    expect(v0.body.aspect['com.linkedin.common.GlobalTags'].tags[0].tag).to.equal('urn:li:tag:legacy')
    expect(v0.body.created.actor).to.equal('urn:li:corpuser:datahub')
  })

  it('reads aspects from stdin with -d -', async () => {
    const r = await cli(['put', '--urn', 'urn:li:tag:stdin', '-a', 'tagProperties', '-d', '-'], '{"name": "stdin"}')
    expect(r.code).to.equal(0)
    expect(JSON.parse((await cli(['get', 'urn:li:tag:stdin', '-a', 'tagProperties'])).stdout)).to.deep.equal({tagProperties: {name: 'stdin'}})
  })

  it('reads stdin that arrives late, as from a slow producer in a pipe (curl | jq | mdcli put -d -)', async () => {
    const r = await runCli(['put', '--urn', 'urn:li:tag:slowstdin', '-a', 'tagProperties', '-d', '-'], {env: lite.env(), input: '{"name": "slow"}', inputAfterMs: 1000})
    expect(r.code, r.stderr).to.equal(0)
    expect(JSON.parse((await cli(['get', 'urn:li:tag:slowstdin', '-a', 'tagProperties'])).stdout)).to.deep.equal({tagProperties: {name: 'slow'}})
  })

  it('put platform creates dataPlatformInfo', async () => {
    const r = await cli(['put', 'platform', '--name', 'MyDB', '--display_name', 'My DB', '--logo', 'https://example.com/logo.png'])
    expect(r.code).to.equal(0)
    expect(r.stdout).to.match(/Successfully wrote data platform metadata for urn:li:dataPlatform:mydb/)
    const info = JSON.parse((await cli(['get', '--urn', 'urn:li:dataPlatform:mydb', '-a', 'dataPlatformInfo'])).stdout).dataPlatformInfo
    expect(info).to.deep.equal({name: 'MyDB', displayName: 'My DB', type: 'OTHERS', datasetNameDelimiter: '.', logoUrl: 'https://example.com/logo.png'})
  })

  it('version prints the CLI and the server version; --json gives an object', async () => {
    const r = await cli(['version'])
    expect(r.stdout).to.match(/mdcli CLI version: \d+\.\d+\.\d+/)
    expect(r.stdout).to.match(/Server version: \d+\.\d+\.\d+/)
    const j = JSON.parse((await cli(['version', '--json'])).stdout)
    expect(j.cli).to.equal(j.server)
  })

  it('ingests every aspect of single_mce.json through the REST endpoint and reads it back unchanged', async () => {
    const mce = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'files', 'single_mce.json'), 'utf8'))
    const [[, snapshot]] = Object.entries(mce.proposedSnapshot) as [[string, {urn: string; aspects: Array<Record<string, unknown>>}]]
    const expected: Record<string, unknown> = {}
    for (const aspect of snapshot.aspects) {
      const [[cls, value]] = Object.entries(aspect)
      const spec = ASPECT_SPECS_BY_CLASS[cls.replace('com.linkedin.pegasus2avro.', 'com.linkedin.')]!
      const r = await http(`${lite.url}/aspects?action=ingestProposal`, {
        body: {proposal: {entityType: 'corpuser', entityUrn: snapshot.urn, changeType: 'UPSERT', aspectName: spec.name, aspect: {contentType: 'application/json', value: JSON.stringify(value)}}},
      })
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      expect(r.body.value).to.equal(snapshot.urn)
      expected[spec.name] = normalizeAspectValue(value)
    }
    const back = await http(`${lite.url}/entitiesV2/${encodeUrnPath(snapshot.urn)}?aspects=List(${Object.keys(expected).join(',')})`)
    expect(back.status).to.equal(200)
    expect(back.body.entityName).to.equal('corpuser')
    for (const [name, value] of Object.entries(expected)) {
      expect(back.body.aspects[name].value).to.deep.equal(value)
      expect(back.body.aspects[name].type).to.equal('VERSIONED')
    }
    expect((expected.corpUserInfo as any).displayName).to.equal('Ada Lovelace')
  })

  it('takes a batch of proposals all or nothing, or (atomic: false) writing the valid ones and naming the invalid', async () => {
    const good = (n: number) => ({entityUrn: `urn:li:tag:batch${n}`, aspectName: 'tagProperties', changeType: 'UPSERT', aspect: {json: {name: `b${n}`}}})
    const stored = async (n: number) => (await http(`${lite.url}/entitiesV2/${encodeUrnPath(`urn:li:tag:batch${n}`)}?alwaysIncludeKeyAspect=false`)).status === 200
    // As DataHub's emitter sends a batch (no `atomic`): one invalid proposal fails it whole, as GMS does.
    const whole = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {proposals: [good(6), {...good(7), aspect: {json: {nom: 'x'}}}, good(8)], async: 'false'}})
    expect(whole.status).to.equal(400)
    expect(whole.body.code).to.equal('E_INVALID_ASPECT')
    expect(whole.body.message).to.match(/proposal 1.*missing required field 'name'/)
    expect([await stored(6), await stored(8)]).to.deep.equal([false, false])
    const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {atomic: false, proposals: [good(1), {...good(2), aspect: {json: {nom: 'x'}}}, good(3)]}})
    // Not 2xx: a client that reads only the status must see the failure.
    expect(r.status).to.equal(422)
    expect(r.body.value.written).to.equal(2)
    expect(r.body.value.results[1].error.message).to.match(/proposal 1.*missing required field 'name'/)
    expect([await stored(1), await stored(3)]).to.deep.equal([true, true])
    const atomic = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {atomic: true, proposals: [good(4), {...good(5), aspectName: 'nope'}]}})
    expect(atomic.status).to.equal(400)
    expect(await stored(4)).to.equal(false)
    const odd = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {atomic: 'no', proposals: [good(9)]}})
    expect(odd.status).to.equal(400)
    expect(odd.body.message).to.match(/"atomic" must be true or false/)
    expect(await stored(9)).to.equal(false)
  })

  it('CREATE and UPDATE hold their conditions on the store, racing requests included', async () => {
    const urn = 'urn:li:tag:conditions'
    const proposal = (changeType: string, name: string) => ({proposal: {entityUrn: urn, aspectName: 'tagProperties', changeType, aspect: {json: {name}}}})
    expect((await http(`${lite.url}/aspects?action=ingestProposal`, {body: proposal('UPDATE', 'early')})).status).to.equal(404)
    const racers = await Promise.all(Array.from({length: 6}, (_, i) => http(`${lite.url}/aspects?action=ingestProposal`, {body: proposal('CREATE', `racer${i}`)})))
    const statuses = racers.map((r) => r.status)
    expect(statuses.filter((s) => s === 200), statuses.join()).to.have.length(1)
    expect(racers.filter((r) => r.status === 409).map((r) => r.body.code)).to.deep.equal(Array(5).fill('E_CONFLICT'))
    const got = await http(`${lite.url}/entitiesV2/${encodeUrnPath(urn)}?aspects=List(tagProperties)`)
    expect(got.body.aspects.tagProperties.value.name).to.equal(`racer${statuses.indexOf(200)}`)
    expect((await http(`${lite.url}/aspects?action=ingestProposal`, {body: proposal('UPDATE', 'late')})).status).to.equal(200)
  })

  it('takes an MCE as DataHub\'s emitter sends it, and answers exists and relationships about it', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,mce_emitted,PROD)'
    const up = 'urn:li:dataset:(urn:li:dataPlatform:hive,mce_upstream,PROD)'
    const aspects = [
      {'com.linkedin.common.Status': {removed: false}},
      {'com.linkedin.dataset.UpstreamLineage': {upstreams: [{dataset: up, type: 'TRANSFORMED', auditStamp: {time: 0, actor: 'urn:li:corpuser:x'}}]}},
    ]
    const r = await http(`${lite.url}/entities?action=ingest`, {body: {entity: {value: {'com.linkedin.metadata.snapshot.DatasetSnapshot': {urn, aspects}}}, systemMetadata: {lastObserved: 1, runId: 'emit-1'}}})
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    expect((await http(`${lite.url}/entities?action=exists`, {body: {urn}})).body).to.deep.equal({value: true})
    expect((await http(`${lite.url}/entities?action=exists`, {body: {urn: up}})).body).to.deep.equal({value: false})
    const rel = await http(`${lite.url}/relationships?urn=${encodeURIComponent(urn)}&direction=OUTGOING&types=${encodeURIComponent('List(DownstreamOf)')}`)
    expect(rel.body).to.deep.equal({start: 0, count: 1, total: 1, relationships: [{type: 'DownstreamOf', entity: up}]})
  })

  describe('bad input: one clear line, non-zero exit, nothing written', () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,untouched,PROD)'
    afterEach(async () => {
      expect((await http(`${lite.url}/entitiesV2/${encodeUrnPath(urn)}?alwaysIncludeKeyAspect=false`)).status, 'nothing may be written').to.equal(404)
    })
    const cases: Array<[string, () => string[], RegExp]> = [
      ['a malformed urn', () => ['put', '--urn', 'urn:li:dataset:(oops', '-a', 'status', '-d', file('s.json', {removed: false})], /Invalid urn .*tuple key must end/],
      ['an unknown aspect', () => ['put', '--urn', urn, '-a', 'statuss', '-d', file('s.json', {removed: false})], /Unknown aspect statuss for entity dataset \(did you mean status\?\)/],
      ['a value that breaks its schema', () => ['put', '--urn', urn, '-a', 'ownership', '-d', file('bad.json', {owners: [{owner: 'jdoe'}]})], /does not match its schema: \/owners\/0: missing required field 'type'/],
      ['a missing -d file', () => ['put', '--urn', urn, '-a', 'status', '-d', join(work, 'nope.json')], /File not found: .*nope\.json/],
      ['an unparsable -d file', () => ['put', '--urn', urn, '-a', 'status', '-d', file('broken.json', '{"removed": tru')], /broken\.json is not valid JSON/],
    ]
    for (const [what, args, msg] of cases) {
      it(what, async () => {
        const r = await cli(args())
        expect(r.code).to.equal(1)
        expect(r.stderr.trim().split('\n')).to.have.length(1)
        expect(r.stderr).to.match(msg)
        expect(r.stdout).to.equal('')
      })
    }

    it('REST: each bad proposal is a 4xx JSON error naming the problem', async () => {
      const post = (proposal: unknown) => http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal}})
      const base = {entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'status', aspect: {contentType: 'application/json', value: '{"removed": false}'}}
      const bad = [
        [{...base, entityUrn: 'urn:li:dataset:(x'}, 'E_BAD_URN', /Invalid urn/],
        [{...base, aspectName: 'nope'}, 'E_UNKNOWN_ASPECT', /Unknown aspect nope/],
        [{...base, aspect: {contentType: 'application/json', value: '{"removed": "yes"}'}}, 'E_INVALID_ASPECT', /\/removed: must be boolean/],
        [{...base, aspect: {contentType: 'application/json', value: '{not json'}}, 'E_BAD_REQUEST', /not valid JSON/],
        [{...base, entityType: 'chart'}, 'E_BAD_REQUEST', /does not match the urn's entity type/],
        [{...base, changeType: 'EXPLODE'}, 'E_BAD_REQUEST', /changeType EXPLODE is not supported/],
      ] as const
      for (const [proposal, code, msg] of bad) {
        const r = await post(proposal)
        expect(r.status, JSON.stringify(r.body)).to.equal(400)
        expect(r.body.code).to.equal(code)
        expect(r.body.message).to.match(msg)
        expect(JSON.stringify(r.body)).to.not.match(/at .*\.js:\d+/)
      }
      const notJson = await http(`${lite.url}/aspects?action=ingestProposal`, {body: '{"proposal": '})
      expect(notJson.status).to.equal(400)
      expect(notJson.body.message).to.match(/not valid JSON/)
    })

    it('REST: unknown entity and aspect version are 404s', async () => {
      expect((await http(`${lite.url}/aspects/${encodeUrnPath(urn)}?aspect=status`)).status).to.equal(404)
      const e = await http(`${lite.url}/entitiesV2/${encodeUrnPath(urn)}?alwaysIncludeKeyAspect=false`)
      expect(e.status).to.equal(404)
      expect(e.body.message).to.include(urn)
    })

    it('REST: a body over the limit is refused with 413', async () => {
      const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: 'x'.repeat(33 * 1024 * 1024)})
      expect(r.status).to.equal(413)
    })

    it('a server that does not answer is one clear line', async () => {
      const r = await runCli(['get', '--urn', urn], {env: lite.env({METADATA_GMS_URL: 'http://127.0.0.1:9'})})
      expect(r.code).to.equal(1)
      expect(r.stderr).to.match(/^Error: Could not reach the mdcli server at http:\/\/127\.0\.0\.1:9 \(connection refused; the address is from METADATA_GMS_URL\)/)
    })

    it('get without an urn says what is missing', async () => {
      const r = await cli(['get'])
      expect(r.code).to.equal(1)
      expect(r.stderr).to.match(/Maybe provide an urn/)
    })
  })

  it('--json errors are an object on stdout', async () => {
    const r = await cli(['get', '--urn', 'urn:li:nosuch:x', '--json'])
    expect(r.code).to.equal(1)
    expect(JSON.parse(r.stdout).error.code).to.equal('E_UNKNOWN_ENTITY_TYPE')
  })
})

describe('lite --sample', function () {
  it('loads the sample catalog once, next to the access bootstrap', async () => {
    const lite = await startLite({args: ['--sample']})
    try {
      expect(lite.output()).to.match(/Loaded \d+ sample aspects/)
      const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,sample_db.customers,PROD)'
      const r = await runCli(['get', '--urn', urn, '-a', 'ownership', '-a', 'globalTags'], {env: lite.env()})
      expect(r.code, r.stderr).to.equal(0)
      expect(JSON.parse(r.stdout).globalTags.tags[0].tag).to.equal('urn:li:tag:pii')
      await lite.stop()
      const again = await startLite({storeDir: lite.storeDir, home: lite.home, args: ['--sample']})
      expect(again.output()).to.not.match(/Loaded/)
      await again.stop()
    } finally {
      await lite.stop()
      cleanup(lite.storeDir, lite.home)
    }
  })
})

describe('settings and init', function () {
  // One server for both: the first writes only its own home's config, the second uses a home of its own.
  const lite = useLite()

  it('init writes an owner-only config that later commands use; the environment wins', async () => {
    const env = {...lite.env()}
    delete env.METADATA_GMS_URL
    const r = await runCli(['init', '--host', lite.url, '--token', 'abc', '--force'], {env})
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stdout).to.match(/Written to .*\.mdclienv/)
    const path = join(lite.home, '.mdclienv')
    expect(statSync(path).mode & 0o777).to.equal(0o600)
    expect(readFileSync(path, 'utf8')).to.match(/server: http:\/\/127\.0\.0\.1:\d+/)
    const v = JSON.parse((await runCli(['version', '--json'], {env})).stdout)
    expect(v.serverUrl).to.equal(lite.url)
    const viaEnv = JSON.parse((await runCli(['version', '--json'], {env: {...env, METADATA_GMS_URL: 'http://127.0.0.1:9'}})).stdout)
    expect(viaEnv.serverUrl).to.equal('http://127.0.0.1:9')
    expect(viaEnv.server).to.equal(undefined)
    const again = await runCli(['init', '--host', lite.url], {env})
    expect(again.code).to.equal(1)
    expect(again.stderr).to.match(/already exists; pass --force/)
  })

  it("reads DataHub's variables and ~/.datahubenv when ours are absent; ours win; --debug names the sources, never the token", async () => {
    const home = tempDir()
    try {
      const base: NodeJS.ProcessEnv = {...process.env, HOME: home, METADATA_TELEMETRY_ENABLED: 'false'}
      for (const k of ['METADATA_GMS_URL', 'METADATA_GMS_TOKEN', 'METADATA_GMS_HOST', 'METADATA_GMS_PORT', 'MDCLI_CONFIG_FILE']) delete base[k]
      const viaDatahubEnv = await runCli(['--debug', 'get', '--urn', 'urn:li:corpuser:datahub'], {env: {...base, DATAHUB_GMS_URL: lite.url, DATAHUB_GMS_TOKEN: lite.token}})
      expect(viaDatahubEnv.code, viaDatahubEnv.stderr).to.equal(0)
      expect(viaDatahubEnv.stderr).to.contain('environment variable DATAHUB_GMS_URL, environment variable DATAHUB_GMS_TOKEN')
      expect(viaDatahubEnv.stderr).not.to.contain(lite.token)
      writeFileSync(join(home, '.datahubenv'), `gms:\n  server: ${lite.url}\n  token: ${lite.token}\n`)
      const viaFile = await runCli(['--debug', 'get', '--urn', 'urn:li:corpuser:datahub'], {env: base})
      expect(viaFile.code, viaFile.stderr).to.equal(0)
      expect(viaFile.stderr).to.contain(`config file ${join(home, '.datahubenv')}`)
      const oursWin = JSON.parse((await runCli(['version', '--json'], {env: {...base, DATAHUB_GMS_URL: 'http://127.0.0.1:7', METADATA_GMS_URL: 'http://127.0.0.1:9'}})).stdout)
      expect(oursWin.serverUrl).to.equal('http://127.0.0.1:9')
    } finally {
      cleanup(home)
    }
  })

  it('the global --debug flag works before the command and prints debug lines', async () => {
    const home = tempDir()
    const r = await runCli(['--debug', 'version'], {env: {...process.env, HOME: home, METADATA_GMS_URL: 'http://127.0.0.1:9'}})
    expect(r.code).to.equal(0)
    expect(r.stderr).to.match(/\[debug\] no server version/)
    cleanup(home)
  })

  it('prints help and version', async () => {
    const help = await runCli(['--help'])
    expect(help.stdout).to.match(/COMMANDS/)
    expect(help.stdout).to.match(/lite/)
    const v = await runCli(['--version'])
    expect(v.stdout).to.match(/^mdcli\/\d+\.\d+\.\d+/)
    const putHelp = await runCli(['put', '--help'])
    expect(putHelp.stdout).to.match(/EXAMPLES/)
  })
})
