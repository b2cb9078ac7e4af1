/**
 * The `mode` source against a local stand-in of Mode's REST API: DataHub's golden (its recorded
 * answers, its recipe) through the real `mdcli ingest`.
 */
import {expect} from 'chai'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {cleanup, tempDir} from '../helpers/lite.js'
import {expectSameAspects} from '../helpers/golden.js'
import {startReplay, type Replay, type ReplayAnswer, type ReplayRequest} from '../helpers/replay.js'
import {requireSharedFixtures} from '../helpers/requires.js'
import {offlineEnv} from './helpers.js'
import {datahubRecipe, freezeClock, recordedAnswers, runRecipe} from './bi-helpers.js'

const FROZEN = 1638860400000

/** The README's table (paths only, query strings ignored) and its paging rule. */
export function modeRoutes(setup: Map<string, unknown>, overrides: (req: ReplayRequest) => ReplayAnswer | undefined = () => undefined) {
  const table: Record<string, string> = {
    '/api/verify': 'verify.json',
    '/api/account': 'user.json',
    '/api/modeuser': 'user.json',
    '/api/acryl/spaces': 'spaces.json',
    '/api/acryl/spaces/157933cc1168/reports': 'reports_157933cc1168.json',
    '/api/acryl/spaces/75737b70402e/reports': 'reports_75737b70402e.json',
    '/api/acryl/spaces/157933cc1168/datasets': 'datasets_157933cc1168.json',
    '/api/acryl/spaces/75737b70402e/datasets': 'datasets_75737b70402e.json',
    '/api/acryl/reports/9d2da37fa91e/queries': 'queries.json',
    '/api/acryl/reports/9d2da37fa91e/queries/6e26a9f3d4e2/charts': 'charts.json',
    '/api/acryl/reports/24f66e1701b6': 'dataset_24f66e1701b6.json',
    '/api/acryl/reports/24f66e1701b6/queries': 'dataset_queries_24f66e1701b6.json',
    '/api/acryl/data_sources': 'data_sources.json',
    '/api/acryl/definitions': 'definitions.json',
  }
  return (req: ReplayRequest): ReplayAnswer | undefined => {
    const o = overrides(req)
    if (o) return o
    const name = table[req.path]
    if (!name) return undefined
    if (req.query.get('page') === '2') {
      const last = req.path.split('/').at(-1)!
      const final = structuredClone(setup.get('final_page.json')) as any
      final._links.self.href = req.path
      final._embedded[last === 'datasets' ? 'reports' : last] = []
      return {body: final}
    }
    return {body: setup.get(name)}
  }
}

describe("mode source: DataHub's golden", function () {
  this.timeout(120_000)
  let oracle: string
  let dir: string
  let replay: Replay
  before(function () {
    oracle = requireSharedFixtures(this, 'datahub-integration', 'mode')
  })
  beforeEach(async () => {
    dir = tempDir('mdcli-mode-')
    replay = await startReplay(modeRoutes(recordedAnswers(join(oracle, 'setup'))))
  })
  afterEach(async () => {
    await replay?.close()
    cleanup(dir)
  })

  it('mode_mces_golden.yml produces mode_mces_golden.json', async () => {
    const recipe = datahubRecipe(join(oracle, 'recipes', 'mode_mces_golden.yml'), {MOCK_PORT: String(replay.port)}, join(dir, 'out.json'))
    const run = await runRecipe(dir, recipe, offlineEnv(dir))
    expect(run.code, run.stderr + run.stdout).to.equal(0)
    expect(replay.unmatched.map((r) => `${r.method} ${r.path}?${r.search}`)).to.deep.equal([])
    // HTTP basic auth with the recipe's token and secret, HAL JSON asked for.
    expect(replay.requests[0]!.headers.authorization).to.equal(`Basic ${Buffer.from('xxxx:xxxx').toString('base64')}`)
    expect(replay.requests[0]!.headers.accept).to.equal('application/hal+json')
    // Listings are paged until an empty page.
    expect(replay.requests.some((r) => r.path === '/api/acryl/spaces' && r.query.get('page') === '2')).to.equal(true)

    const golden = JSON.parse(readFileSync(join(oracle, 'mode_mces_golden.json'), 'utf8').split('https://app.mode.com').join(replay.url))
    // §8.5: the trailing auto status of tags is ignored (DataHub adds the tag's key after its status pass).
    const records = run.records.filter((r) => !(r.entityUrn?.startsWith('urn:li:tag:') && r.aspectName === 'status'))
    const ours = freezeClock(records, run.startedAt, run.endedAt, FROZEN) as unknown[]
    // inputFields: DataHub lists a chart's fields from a Python set (hash order); compared as a set.
    expectSameAspects(ours, golden, {unordered: {inputFields: ['fields']}})
    expect(run.result.source.report.counts).to.include({spaces: 1, dashboards: 1, queries: 1, charts: 1, datasets: 1})
  })
})
