/**
 * The `metabase` source against a local stand-in of Metabase's REST API: DataHub's golden (its
 * recorded answers, its recipe) through the real `mdcli ingest`, then our own failure cases.
 */
import {expect} from 'chai'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {cleanup, tempDir, useLite} from '../helpers/lite.js'
import {expectSameAspects} from '../helpers/golden.js'
import {startReplay, type Replay, type ReplayAnswer, type ReplayRequest} from '../helpers/replay.js'
import {requireSharedFixtures} from '../helpers/requires.js'
import {offlineEnv} from './helpers.js'
import {datahubRecipe, freezeClock, recordedAnswers, runRecipe} from './bi-helpers.js'

const FROZEN = 1636614000000

/** The README's table: which request gets which recorded file. */
function metabaseRoutes(setup: Map<string, unknown>, overrides: (req: ReplayRequest) => ReplayAnswer | undefined = () => undefined) {
  const file = (name: string): ReplayAnswer => ({body: setup.get(name)})
  return (req: ReplayRequest): ReplayAnswer | undefined => {
    const o = overrides(req)
    if (o) return o
    const p = req.path
    if (p === '/api/session') return file('session.json')
    if (p === '/api/user/current' || p === '/api/user/1') return file('user.json')
    if (p === '/api/collection/' && req.search === 'exclude-other-user-collections=false') return file('collections.json')
    if ((p === '/api/collection/root/items' || p === '/api/collection/150/items') && req.search === 'models=dashboard') return file('collection_dashboards.json')
    if (p === '/api/dashboard/10') return file('dashboard_1.json')
    if (p === '/api/dashboard/20') return file('dashboard_2.json')
    if (p === '/api/card') return file('card.json')
    const card = /^\/api\/card\/(\d+)$/.exec(p)
    if (card) return setup.has(`card_${card[1]}.json`) ? file(`card_${card[1]}.json`) : undefined
    if (p === '/api/database/1') return file('bigquery_database.json')
    if (p === '/api/database/2') return file('postgres_database.json')
    if (p === '/api/table/21') return file('table_21.json')
    return undefined
  }
}

describe("metabase source: DataHub's golden", function () {
  this.timeout(120_000)
  const lite = useLite()
  let oracle: string
  let dir: string
  let replay: Replay
  before(function () {
    oracle = requireSharedFixtures(this, 'datahub-integration', 'metabase')
  })
  beforeEach(async () => {
    dir = tempDir('mdcli-metabase-')
    replay = await startReplay(metabaseRoutes(recordedAnswers(join(oracle, 'setup'))))
  })
  afterEach(async () => {
    await replay?.close()
    cleanup(dir)
  })

  it('metabase_mces_golden.yml produces metabase_mces_golden.json', async () => {
    const recipe = datahubRecipe(join(oracle, 'recipes', 'metabase_mces_golden.yml'), {MOCK_PORT: String(replay.port), DATAHUB_GMS_URL: lite.url}, join(dir, 'out.json'))
    const run = await runRecipe(dir, recipe, lite.env())
    expect(run.code, run.stderr + run.stdout).to.equal(0)
    expect(replay.unmatched.map((r) => `${r.method} ${r.path}?${r.search}`)).to.deep.equal([])
    // Logged in with the recipe's credentials, used the session, logged out at the end.
    const login = replay.requests.find((r) => r.method === 'POST' && r.path === '/api/session')!
    expect(JSON.parse(login.body)).to.deep.equal({username: 'xxxx', password: 'xxxx'})
    expect(replay.requests.filter((r) => r.path === '/api/card/1')[0]!.headers['x-metabase-session']).to.equal('12345abv6789')
    expect(replay.requests.at(-1)).to.include({method: 'DELETE', path: '/api/session'})

    const golden = JSON.parse(readFileSync(join(oracle, 'metabase_mces_golden.json'), 'utf8').split('http://localhost:3000').join(replay.url))
    const ours = freezeClock(run.records, run.startedAt, run.endedAt, FROZEN) as unknown[]
    expectSameAspects(ours, golden)
    // Each dashboard once per collection that lists it, as DataHub emits them.
    expect(run.records.filter((r) => r.entityUrn === 'urn:li:dashboard:(metabase,10)' && r.aspectName === 'dashboardInfo')).to.have.length(2)
    expect(run.result.source.report.counts).to.include({charts: 3, dashboards: 4})
  })

  it("the test's second stateful run: a dashboard gone from its collections is soft-deleted", async () => {
    const setup = recordedAnswers(join(oracle, 'setup'))
    const recipe = datahubRecipe(join(oracle, 'recipes', 'metabase_mces_golden.yml'), {MOCK_PORT: String(replay.port), DATAHUB_GMS_URL: lite.url}, join(dir, 'first.json'))
    recipe.pipeline_name = 'metabase_stateful_second_run'
    const first = await runRecipe(dir, recipe, lite.env())
    expect(first.code, first.stderr + first.stdout).to.equal(0)
    await replay.close()
    // As DataHub's test: the second run's collections list only dashboard 10.
    replay = await startReplay(metabaseRoutes(setup, (req) => (req.path.endsWith('/items') ? {body: setup.get('collection_dashboards_deleted_item.json')} : undefined)))
    recipe.source.config.connect_uri = `${replay.url}/`
    recipe.sink.config.filename = join(dir, 'second.json')
    const second = await runRecipe(dir, recipe, lite.env())
    expect(second.code, second.stderr + second.stdout).to.equal(0)
    expect(second.result.source.report.info.softDeletedStaleEntities).to.deep.equal(['urn:li:dashboard:(metabase,20)'])
    const status = second.records.filter((r) => r.aspectName === 'status' && r.aspect.json.removed === true).map((r) => r.entityUrn)
    expect(status).to.deep.equal(['urn:li:dashboard:(metabase,20)'])
  })
})
