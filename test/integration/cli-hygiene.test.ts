/**
 * What a script or a careful user meets at the edges of the CLI: no secret in any error, one line
 * per bad setting, piped answers to prompts, JSON alone on standard output, nothing written by a
 * command that only reads, and help pages with examples.
 */
import {expect} from 'chai'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {spawn} from 'node:child_process'
import {createServer} from 'node:net'
import {BIN, cleanup, http, type LiteProcess, runCli, startLite, tempDir} from '../helpers/lite.js'

describe('CLI hygiene: secrets, settings, prompts, JSON and help', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  let work: string
  before(async () => {
    lite = await startLite()
    work = tempDir('mdcli-hygiene-')
  })
  after(async () => {
    await lite?.stop()
    cleanup(lite?.storeDir, lite?.home, work)
  })
  /** A fresh HOME with no config file, talking to no server. */
  const bare = (extra: Record<string, string> = {}) => {
    const home = join(work, `home-${Math.random().toString(36).slice(2)}`)
    mkdirSync(home)
    return {home, env: {...process.env, HOME: home, NO_COLOR: '1', METADATA_TELEMETRY_ENABLED: 'false', METADATA_GMS_URL: '', METADATA_GMS_TOKEN: '', ...extra}}
  }

  it('get with two different urns (argument and --urn) refuses instead of picking one', async () => {
    const r = await runCli(['get', 'urn:li:tag:pii', '--urn', 'urn:li:tag:legacy'], {env: lite.env()})
    expect(r.code).to.equal(1)
    expect(r.stderr).to.contain('Two urns given (urn:li:tag:pii and --urn urn:li:tag:legacy)')
  })

  it('a flag error under --json is a short JSON error with exit 2, and never holds the token', async () => {
    for (const args of [['search', 'x', '--json', '--bogus'], ['version', '--json', '--nope'], ['ingest', 'list-runs', '--json', '--limit', 'x']]) {
      const r = await runCli(args, {env: lite.env({METADATA_GMS_TOKEN: 'zzz-secret-env-token'})})
      expect(r.code, args.join(' ')).to.equal(2)
      const out = JSON.parse(r.stdout)
      expect(out.error.code).to.equal('E_USAGE')
      expect(out.error.message).to.be.a('string')
      expect(r.stdout.length).to.be.lessThan(500)
      for (const secret of ['zzz-secret-env-token', lite.token]) {
        expect(r.stdout + r.stderr).to.not.include(secret)
      }
    }
  })

  it('a bad setting is one line naming the variable or the config key', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{METADATA_TELEMETRY_TIMEOUT: 'x'}, /^Error: METADATA_TELEMETRY_TIMEOUT must be a whole number of seconds, got 'x'\n$/],
      [{METADATA_TELEMETRY_TIMEOUT: '1.5'}, /^Error: METADATA_TELEMETRY_TIMEOUT must be a whole number/],
      [{METADATA_GMS_HOST: '127.0.0.1', METADATA_GMS_PORT: 'abc'}, /^Error: METADATA_GMS_PORT must be a port number \(1-65535\), got 'abc'\n$/],
      [{METADATA_GMS_PROTOCOL: 'ftp', METADATA_GMS_HOST: 'h'}, /^Error: METADATA_GMS_PROTOCOL must be http or https, got 'ftp'\n$/],
      [{METADATA_GMS_URL: 'ftp://h'}, /^Error: 'ftp:\/\/h' \(from METADATA_GMS_URL\) is not a valid server URL: the scheme must be http or https, not ftp\n$/],
    ]
    for (const [vars, expected] of cases) {
      const r = await runCli(['get', '--urn', 'urn:li:tag:x'], {env: bare(vars).env})
      expect(r.code, JSON.stringify(vars)).to.equal(1)
      expect(r.stderr, JSON.stringify(vars)).to.match(expected)
    }
    const {home, env} = bare()
    writeFileSync(join(home, '.mdclienv'), 'gms:\n  server: 12345\n')
    const badType = await runCli(['get', '--urn', 'urn:li:tag:x'], {env})
    expect(badType.code).to.equal(1)
    expect(badType.stderr).to.equal(`Error: Config file ${join(home, '.mdclienv')}: 'gms.server' must be a URL string, e.g. http://localhost:8080\n`)
  })

  it('init takes piped answers a line each, and refuses a host that is not http or https', async () => {
    const {home, env} = bare()
    const r = await runCli(['init'], {env, input: `${lite.url}\nmy-piped-token\n`})
    expect(r.code, r.stderr).to.equal(0)
    const file = readFileSync(join(home, '.mdclienv'), 'utf8')
    expect(file).to.include(`server: ${lite.url}`)
    expect(file).to.include('token: my-piped-token')
    // An existing file: the first piped line answers "Overwrite?".
    const no = await runCli(['init'], {env, input: 'n\n'})
    expect(no.code).to.equal(1)
    expect(no.stderr).to.match(/Aborted; the config file was left as it was/)
    const ftp = await runCli(['init', '--host', 'ftp://x', '--force'], {env})
    expect(ftp.code).to.equal(1)
    expect(ftp.stderr).to.equal("Error: 'ftp://x' (from --host) is not a valid server URL: the scheme must be http or https, not ftp\n")
    expect(ftp.stdout).to.equal('')
    expect(readFileSync(join(home, '.mdclienv'), 'utf8')).to.equal(file)
  })

  it('a confirmation takes a piped y or n; no answer at all still refuses; a soft delete of one urn asks nothing, as DataHub\'s', async () => {
    const urn = 'urn:li:tag:hygiene-confirm'
    const put = async (u: string) => expect((await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: {entityType: 'tag', entityUrn: u, aspectName: 'tagProperties', changeType: 'UPSERT', aspect: {contentType: 'application/json', value: '{"name":"hygiene-confirm"}'}}}})).status).to.equal(200)
    await put(urn)
    const there = async (u: string) => (await http(`${lite.url}/entitiesV2/${encodeURIComponent(u)}?alwaysIncludeKeyAspect=false`)).status === 200
    const none = await runCli(['delete', '--urn', urn, '--hard'], {env: lite.env()})
    expect(none.code).to.equal(1)
    expect(none.stderr).to.contain('standard input is not a terminal')
    const no = await runCli(['delete', '--urn', urn, '--hard'], {env: lite.env(), input: 'n\n'})
    expect(no.code, no.stderr).to.equal(1)
    expect(no.stdout + no.stderr).to.match(/Aborted; nothing was deleted/)
    expect(await there(urn)).to.equal(true)
    // `yes | mdcli …`: an endless pipe; the first line answers and the rest is left unread.
    const yes = await runCli(['delete', '--urn', urn, '--hard'], {env: lite.env(), input: 'y\n'.repeat(10_000)})
    expect(yes.code, yes.stderr).to.equal(0)
    expect(await there(urn)).to.equal(false)
    // Soft (DataHub's default) by urn, unattended: done, the entity kept and marked removed.
    const soft = 'urn:li:tag:hygiene-soft'
    await put(soft)
    const quiet = await runCli(['delete', '--urn', soft], {env: lite.env()})
    expect(quiet.code, quiet.stderr).to.equal(0)
    expect((await http(`${lite.url}/entitiesV2/${encodeURIComponent(soft)}`)).body.aspects?.status?.value?.removed).to.equal(true)
  })

  it('check metadata-file fails a record that is no MCE, MCP or usage record', async () => {
    const file = join(work, 'not-events.json')
    writeFileSync(file, JSON.stringify([{urn: 'urn:li:dataHubPolicy:1', info: {}}]))
    const r = await runCli(['check', 'metadata-file', file], {env: bare().env})
    expect(r.code).to.equal(1)
    expect(r.stdout).to.match(/record 0: not an MCE \(no 'proposedSnapshot'\), an MCP \(no 'aspectName'\) or a usage record; it has 'urn', 'info'/)
    const usage = join(work, 'usage.json')
    writeFileSync(usage, JSON.stringify([{bucket: 1, duration: 'DAY', resource: 'urn:li:dataset:(urn:li:dataPlatform:hive,u,PROD)', metrics: {}}]))
    const u = await runCli(['check', 'metadata-file', usage], {env: bare().env})
    expect(u.code, u.stdout + u.stderr).to.equal(0)
    expect(u.stdout).to.match(/1 MCEs found - all valid \(1 legacy usage record among them, skipped as ingestion skips them\)/)
  })

  it('ingest --json with the console sink keeps standard output to the report; --debug logs the sink’s requests', async () => {
    const file = join(work, 'one.json')
    writeFileSync(file, JSON.stringify([{entityType: 'dataset', entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,hygiene,PROD)', changeType: 'UPSERT', aspectName: 'status', aspect: {json: {removed: false}}}]))
    const consoleRecipe = join(work, 'console.yml')
    writeFileSync(consoleRecipe, `source:\n  type: file\n  config:\n    path: ${file}\nsink:\n  type: console\n`)
    const r = await runCli(['ingest', '-c', consoleRecipe, '--json'], {env: bare().env})
    expect(r.code, r.stderr).to.equal(0)
    const report = JSON.parse(r.stdout)
    expect(report).to.be.an('object')
    expect(r.stderr).to.include('"aspectName":"status"')
    const restRecipe = join(work, 'rest.yml')
    writeFileSync(restRecipe, `source:\n  type: file\n  config:\n    path: ${file}\nsink:\n  type: datahub-rest\n`)
    const d = await runCli(['ingest', '-c', restRecipe, '--debug'], {env: lite.env()})
    expect(d.code, d.stderr).to.equal(0)
    expect(d.stderr).to.match(/\[debug\] GET http:\/\/127\.0\.0\.1:\d+\/config → 200 in \d+ ms/)
    expect(d.stderr).to.match(/\[debug\] POST http:\/\/127\.0\.0\.1:\d+\/aspects\?action=ingestProposalBatch → 200 in \d+ ms/)
    expect(d.stderr).to.not.include(lite.token)
  })

  it('read-only lite verbs refuse a store that is not there, and create none', async () => {
    const missing = join(work, 'no-such-store')
    for (const verb of [['list-urns'], ['get', '--urn', 'urn:li:tag:x'], ['ls', '/'], ['search', 'x']]) {
      const r = await runCli(['lite', ...verb, '--store', missing], {env: bare().env})
      expect(r.code, verb.join(' ')).to.equal(1)
      expect(r.stderr).to.equal(`Error: No lite store at ${missing}: the directory does not exist (start \`mdcli lite --store ${missing}\` to create one)\n`)
      expect(existsSync(missing)).to.equal(false)
    }
  })

  it('commands that talk to no server write no config file; one that does writes it', async () => {
    const {home, env} = bare()
    for (const args of [['check', 'plugins'], ['telemetry', 'disable']]) {
      expect((await runCli(args, {env})).code, args.join(' ')).to.equal(0)
      expect(existsSync(join(home, '.mdclienv')), args.join(' ')).to.equal(false)
    }
    await runCli(['get', '--urn', 'urn:li:tag:x'], {env: {...env, METADATA_GMS_URL: lite.url}})
    expect(existsSync(join(home, '.mdclienv'))).to.equal(true)
  })

  it('timeline refuses a --start in the future, naming the flag', async () => {
    const r = await runCli(['timeline', '--urn', 'urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)', '--start', '2999-01-01'], {env: lite.env()})
    expect(r.code).to.equal(1)
    expect(r.stderr).to.equal('Error: --start (2999-01-01) is in the future; the window ends now unless --end says otherwise\n')
  })

  it('a first start answers its first request only once ~/.mdclienv holds the new token', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as {port: number}).port
        probe.close(() => resolve(p))
      })
    })
    const {home, env} = bare()
    const proc = spawn(process.execPath, [BIN, 'lite', '--port', String(port), '--store', join(work, 'first-start-store')], {env, stdio: 'ignore'})
    try {
      const deadline = Date.now() + 60_000
      let answered = false
      while (!answered && Date.now() < deadline) {
        try {
          answered = (await fetch(`http://127.0.0.1:${port}/health`)).status === 200
        } catch {
          await new Promise((r) => setTimeout(r, 5))
        }
      }
      expect(answered).to.equal(true)
      // At the first answer, the file is there with the token a script will use.
      expect(readFileSync(join(home, '.mdclienv'), 'utf8')).to.match(/token: \S{20,}/)
    } finally {
      proc.kill('SIGTERM')
      await new Promise((r) => proc.once('exit', r))
    }
  })

  it("a topic's help page ends with its commands' examples", async () => {
    for (const topic of ['check', 'token', 'telemetry', 'migrate', 'docker']) {
      const r = await runCli([topic, '--help'], {env: bare().env})
      expect(r.code, topic).to.equal(0)
      expect(r.stdout, topic).to.match(new RegExp(`\\nEXAMPLES\\n  \\$ mdcli ${topic} \\S+`))
    }
  })
})
