/**
 * The BI sources on our own recorded-style answers (test/fixtures/bi) and on failures DataHub's
 * goldens do not cover: a 429 then success, a server error that does not go away, a timeout, a
 * malformed answer, a refused login, a page boundary — with what the report says and the exit
 * code DataHub's run would have; through the real `mdcli ingest` where what it prints is checked,
 * in this process as the command runs it where only the report and the records are.
 */
import {expect} from 'chai'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {spawn} from 'node:child_process'
import {BIN, cleanup, ROOT, tempDir} from '../helpers/lite.js'
import {startReplay, type Replay, type ReplayAnswer, type ReplayRequest} from '../helpers/replay.js'
import {offlineEnv, writeRecipe} from './helpers.js'
import {runRecipe} from './bi-helpers.js'

const FIX = join(ROOT, 'test', 'fixtures', 'bi')
const load = (source: string, name: string): unknown => JSON.parse(readFileSync(join(FIX, source, name), 'utf8'))
const PASSWORD = 'pw-S3cret-9931'
const SESSION = 'session-7f3a9c1e'

function metabaseSite(override: (req: ReplayRequest) => ReplayAnswer | undefined = () => undefined) {
  const f = (name: string): ReplayAnswer => ({body: load('metabase', name)})
  return (req: ReplayRequest): ReplayAnswer | undefined => {
    const o = override(req)
    if (o) return o
    const p = req.path
    if (p === '/api/session') return req.method === 'POST' ? {body: {id: SESSION}} : {status: 204}
    if (p === '/api/user/current' || p === '/api/user/5') return f('user_5.json')
    if (p === '/api/card') return f('cards.json')
    if (p === '/api/card/11' || p === '/api/card/12') return f(`card_${p.split('/').at(-1)}.json`)
    if (p === '/api/database/3') return f('database_3.json')
    if (p === '/api/table/7') return f('table_7.json')
    if (p === '/api/collection/') return f('collections.json')
    if (p === '/api/collection/root/items') return f('collection_items.json')
    if (p === '/api/dashboard/31' || p === '/api/dashboard/32') return f(`dashboard_${p.split('/').at(-1)}.json`)
    return undefined
  }
}

const metabaseRecipe = (dir: string, url: string, extra: Record<string, unknown> = {}) => ({
  run_id: 'metabase-own',
  source: {type: 'metabase', config: {connect_uri: url, username: 'ana', password: PASSWORD, api_options: {initial_retry_interval: 0.05, max_attempts: 3}, ...extra}},
  sink: {type: 'file', config: {filename: join(dir, 'out.json')}},
})

const aspect = (records: any[], urn: string, name: string) => records.find((r) => r.entityUrn === urn && r.aspectName === name)?.aspect.json

describe('metabase source: our own site and its failures', function () {
  this.timeout(120_000)
  let dir: string
  let replay: Replay | undefined
  beforeEach(() => {
    dir = tempDir('mdcli-bi-')
  })
  afterEach(async () => {
    await replay?.close()
    replay = undefined
    cleanup(dir)
  })

  it('native SQL with Metabase templates and a query-builder table both become lineage; the session never shows in --debug', async () => {
    replay = await startReplay(metabaseSite())
    const run = await runRecipe(dir, metabaseRecipe(dir, replay.url), offlineEnv(dir), ['--debug'])
    expect(run.code, run.stderr).to.equal(0)
    const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:postgres,${name},PROD)`
    const chart11 = aspect(run.records, 'urn:li:chart:(metabase,11)', 'chartInfo')
    // `{{since}}` became 1 and `[[AND …]]` was dropped; the unqualified table takes the default schema.
    expect(chart11.inputEdges.map((e: any) => e.destinationUrn)).to.deep.equal([ds('shopdb.analytics.orders'), ds('shopdb.public.customers')])
    expect(chart11.customProperties).to.deep.equal({Metrics: 'n', Filters: '', Dimensions: 'status'})
    expect(chart11.type).to.equal('BAR')
    expect(aspect(run.records, 'urn:li:chart:(metabase,12)', 'chartInfo').inputEdges.map((e: any) => e.destinationUrn)).to.deep.equal([ds('shopdb.public.customers')])
    // The text card without an id links nothing.
    expect(aspect(run.records, 'urn:li:dashboard:(metabase,31)', 'dashboardInfo').chartEdges.map((e: any) => e.destinationUrn)).to.deep.equal(['urn:li:chart:(metabase,11)'])
    expect(aspect(run.records, 'urn:li:dashboard:(metabase,31)', 'ownership').owners[0].owner).to.equal('urn:li:corpuser:ana@example.com')
    // --debug logs each request, with neither the password nor the session id.
    expect(run.stderr).to.match(/\[debug\] GET http:\/\/127\.0\.0\.1:\d+\/api\/card → 200/)
    expect(run.stderr + run.stdout).not.to.include(PASSWORD)
    expect(run.stderr + run.stdout).not.to.include(SESSION)
  })

  it('a 429 with Retry-After is waited out and retried; the run succeeds and counts the retry', async () => {
    let throttled = 0
    replay = await startReplay(metabaseSite((req) => (req.path === '/api/card/12' && throttled++ === 0 ? {status: 429, headers: {'retry-after': '1'}, body: {error: 'slow down'}} : undefined)))
    const run = await runRecipe(dir, metabaseRecipe(dir, replay.url), offlineEnv(dir), [], 'here')
    expect(run.code, run.stderr).to.equal(0)
    const tries = replay.requests.filter((r) => r.path === '/api/card/12')
    expect(tries).to.have.length(2)
    expect(run.result.source.report.info['http retries']).to.equal(1)
    expect(aspect(run.records, 'urn:li:chart:(metabase,12)', 'chartInfo').title).to.equal('Customers')
  })

  it('the card listing failing after its retries is a failure naming it: exit 1, dashboards still read', async () => {
    replay = await startReplay(metabaseSite((req) => (req.path === '/api/card' ? {status: 503, body: 'upstream down'} : undefined)))
    const run = await runRecipe(dir, metabaseRecipe(dir, replay.url), offlineEnv(dir), [], 'here')
    expect(run.code).to.equal(1)
    expect(replay.requests.filter((r) => r.path === '/api/card')).to.have.length(3)
    const failure = run.result.source.report.failures.find((f: any) => f.key === 'Unable to Retrieve Cards')
    expect(failure.examples[0]).to.match(/GET http:\/\/127\.0\.0\.1:\d+\/api\/card answered HTTP 503 after 3 attempts: upstream down/)
    expect(aspect(run.records, 'urn:li:dashboard:(metabase,31)', 'dashboardInfo').title).to.equal('Sales')
  })

  it('a malformed dashboard answer is a warning naming the dashboard; the others go on (exit 0)', async () => {
    replay = await startReplay(metabaseSite((req) => (req.path === '/api/dashboard/32' ? {body: '{"id": 32, "name": '} : undefined)))
    const run = await runRecipe(dir, metabaseRecipe(dir, replay.url), offlineEnv(dir), [], 'here')
    expect(run.code, run.stderr).to.equal(0)
    const warning = run.result.source.report.warnings.find((w: any) => w.key === 'Unable to Retrieve Dashboard')
    expect(warning.examples[0]).to.match(/^dashboard 32: metabase: GET .*\/api\/dashboard\/32 returned malformed JSON/)
    expect(aspect(run.records, 'urn:li:dashboard:(metabase,31)', 'dashboardInfo')).to.not.equal(undefined)
    expect(aspect(run.records, 'urn:li:dashboard:(metabase,32)', 'dashboardInfo')).to.equal(undefined)
  })

  it('a card that does not answer in time is a warning after its attempts; the run still ends', async () => {
    replay = await startReplay(metabaseSite((req) => (req.path === '/api/card/11' ? {delayMs: 3000, body: {}} : undefined)))
    const run = await runRecipe(dir, metabaseRecipe(dir, replay.url, {api_options: {timeout_sec: 0.3, max_attempts: 2, initial_retry_interval: 0.05}}), offlineEnv(dir), [], 'here')
    expect(run.code, run.stderr).to.equal(0)
    const warning = run.result.source.report.warnings.find((w: any) => w.key === 'Unable to Retrieve Card')
    expect(warning.examples[0]).to.match(/^card 11: metabase: GET .*\/api\/card\/11\?legacy-mbql=true failed: no answer within 300 ms \(after 2 attempts\)/)
    expect(aspect(run.records, 'urn:li:chart:(metabase,12)', 'chartInfo')).to.not.equal(undefined)
  })

  it('Ctrl-C while a request hangs stops the run at once: exit 130, logged out, nothing reported as broken', async () => {
    let hung!: () => void
    const hanging = new Promise<void>((ok) => (hung = ok))
    replay = await startReplay(
      metabaseSite((req) => {
        if (req.path !== '/api/card/12') return undefined
        hung()
        return {delayMs: 60_000, body: {}}
      }),
    )
    const child = spawn(process.execPath, [BIN, 'ingest', '-c', writeRecipe(dir, metabaseRecipe(dir, replay.url)), '--json'], {env: offlineEnv(dir), stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    child.stdout.on('data', (d) => (stdout += d))
    const exited = new Promise<number | null>((ok) => child.on('close', ok))
    await hanging
    child.kill('SIGINT')
    // The mocha timeout (well under the 60 s the server would take) is what fails a run that waits.
    expect(await exited).to.equal(130)
    const result = JSON.parse(stdout)
    expect(result.interrupted).to.equal(true)
    expect(result.source.report.failures ?? []).to.deep.equal([])
    expect(result.source.report.warnings ?? []).to.deep.equal([])
    expect(replay.requests.at(-1)).to.include({method: 'DELETE', path: '/api/session'})
  })

  it('a refused login stops the run with one line naming it, without the password', async () => {
    replay = await startReplay(metabaseSite((req) => (req.path === '/api/session' ? {status: 401, body: {errors: {password: 'did not match stored password'}}} : undefined)))
    const run = await runRecipe(dir, metabaseRecipe(dir, replay.url), offlineEnv(dir))
    expect(run.code).to.not.equal(0)
    expect(run.stderr + run.stdout).to.match(/metabase: login as ana at http:\/\/127\.0\.0\.1:\d+ failed: .*HTTP 401/)
    expect(run.stderr + run.stdout).not.to.include(PASSWORD)
    expect(replay.requests.filter((r) => r.path !== '/api/session')).to.deep.equal([])
  })
})

function modeSite(override: (req: ReplayRequest) => ReplayAnswer | undefined = () => undefined) {
  const f = (name: string): ReplayAnswer => ({body: load('mode', name)})
  return (req: ReplayRequest): ReplayAnswer | undefined => {
    const o = override(req)
    if (o) return o
    const p = req.path
    const page = req.query.get('page')
    if (p === '/api/verify') return {body: {workspace: 'shop'}}
    if (p === '/api/ana') return f('user.json')
    // The spaces listing spans two pages; the third is empty.
    if (p === '/api/shop/spaces') return f(page === '1' ? 'spaces_page1.json' : page === '2' ? 'spaces_page2.json' : 'empty_page.json')
    if (p === '/api/shop/spaces/bbb222/reports') return page === '1' ? f('reports_bbb222.json') : f('empty_page.json')
    if (/^\/api\/shop\/spaces\/\w+\/(reports|datasets)$/.test(p)) return f('empty_page.json')
    if (p === '/api/shop/reports/r1/queries') return f('queries_r1.json')
    if (p === '/api/shop/reports/r1/queries/q1/charts') return f('charts_q1.json')
    if (p === '/api/shop/data_sources') return f('data_sources.json')
    if (p === '/api/shop/definitions') return {body: {_embedded: {definitions: []}}}
    return undefined
  }
}

const modeRecipe = (dir: string, url: string) => ({
  run_id: 'mode-own',
  source: {type: 'mode', config: {connect_uri: url, token: 'key-id', password: PASSWORD, workspace: 'shop', api_options: {initial_retry_interval: 0.05, max_attempts: 2}}},
  sink: {type: 'file', config: {filename: join(dir, 'out.json')}},
})

describe('mode source: our own workspace and its failures', function () {
  this.timeout(120_000)
  let dir: string
  let replay: Replay | undefined
  beforeEach(() => {
    dir = tempDir('mdcli-bi-mode-')
  })
  afterEach(async () => {
    await replay?.close()
    replay = undefined
    cleanup(dir)
  })

  it('reads every page of a listing (a page boundary), and the query’s table becomes lineage', async () => {
    replay = await startReplay(modeSite())
    const run = await runRecipe(dir, modeRecipe(dir, replay.url), offlineEnv(dir))
    expect(run.code, run.stderr).to.equal(0)
    expect(replay.requests.filter((r) => r.path === '/api/shop/spaces').map((r) => r.query.get('page'))).to.deep.equal(['1', '2', '3'])
    const names = run.records.filter((r) => r.aspectName === 'containerProperties').map((r) => r.aspect.json.name)
    expect(names).to.deep.equal(['Finance', 'Growth'])
    const lineage = aspect(run.records, 'urn:li:dataset:(urn:li:dataPlatform:mode,901,PROD)', 'upstreamLineage')
    expect(lineage.upstreams.map((u: any) => u.dataset)).to.deep.equal(['urn:li:dataset:(urn:li:dataPlatform:postgres,shopdb.analytics.orders,PROD)'])
    expect(aspect(run.records, 'urn:li:chart:(mode,c1)', 'chartInfo').customProperties).to.include({X: '[status]', Y: '[amount]', ChartType: 'bar'})
    expect(aspect(run.records, 'urn:li:chart:(mode,c1)', 'inputFields').fields.map((f: any) => f.schemaField.fieldPath)).to.deep.equal(['status', 'amount'])
    expect(run.stderr + run.stdout).not.to.include(PASSWORD)
  })

  it('a chart listing that keeps failing is a failure naming the report and query: exit 1', async () => {
    replay = await startReplay(modeSite((req) => (req.path === '/api/shop/reports/r1/queries/q1/charts' ? {status: 500, body: {message: 'boom'}} : undefined)))
    const run = await runRecipe(dir, modeRecipe(dir, replay.url), offlineEnv(dir), [], 'here')
    expect(run.code).to.equal(1)
    const failure = run.result.source.report.failures.find((f: any) => f.key === 'Failed to Retrieve Charts')
    expect(failure.examples[0]).to.match(/^report r1, query q1: mode: GET .* answered HTTP 500 after 2 attempts/)
    // The report's query and its lineage were still read.
    expect(aspect(run.records, 'urn:li:dataset:(urn:li:dataPlatform:mode,901,PROD)', 'upstreamLineage')).to.not.equal(undefined)
  })

  it('a refused API key stops the run with one line, without the secret', async () => {
    replay = await startReplay(modeSite((req) => (req.path === '/api/verify' ? {status: 401, body: {message: 'unauthorized'}} : undefined)))
    const run = await runRecipe(dir, modeRecipe(dir, replay.url), offlineEnv(dir))
    expect(run.code).to.not.equal(0)
    expect(run.stderr + run.stdout).to.match(/mode: the API key was refused/)
    expect(run.stderr + run.stdout).not.to.include(PASSWORD)
  })
})
