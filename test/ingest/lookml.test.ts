import {expect} from 'chai'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import yaml from 'js-yaml'
import {decodeState} from '../../src/recipes/stateful.js'
import {cleanup, ROOT, tempDir} from '../helpers/lite.js'
import {expectSameAspects} from '../helpers/golden.js'
import {requireSharedFixtures} from '../helpers/requires.js'
import {ingestHere, offlineEnv, readJson, writeRecipe} from './helpers.js'

let lastResult: any
/**
 * Runs one of DataHub's LookML recipes as it is, but with the folders of this machine, in this
 * process as `mdcli ingest` runs a recipe (what the source produces is the point here).
 */
async function runDatahubRecipe(oracle: string, recipeName: string, dir: string, exitCode = 0): Promise<any[]> {
  const recipe = yaml.load(readFileSync(join(oracle, 'recipes', recipeName), 'utf8')) as any
  recipe.source.config.base_folder = join(oracle, recipe.source.config.base_folder)
  recipe.sink = {type: 'file', config: {filename: join(dir, 'out.json')}}
  const r = await ingestHere(writeRecipe(dir, recipe, recipeName), offlineEnv(dir))
  expect(r.code, r.stderr + r.stdout).to.equal(exitCode)
  lastResult = r.result
  return readJson(join(dir, 'out.json'))
}

describe("lookml source: DataHub's goldens", function () {
  this.timeout(60_000)
  let oracle: string
  let dir: string
  before(function () {
    oracle = requireSharedFixtures(this, 'datahub-integration', 'lookml')
  })
  beforeEach(() => {
    dir = tempDir('mdcli-lookml-')
  })
  afterEach(() => cleanup(dir))

  for (const [recipe, golden] of [
    ['lookml_mces_offline.yml', 'lookml_mces_offline.json'],
    ['lookml_mces_offline_platform_instance.yml', 'lookml_mces_offline_platform_instance.json'],
    ['expected_output.yml', 'expected_output.json'],
    ['lookml_reachable_views.yml', 'lookml_reachable_views.json'],
  ]) {
    it(`${recipe} produces ${golden}`, async () => {
      const out = await runDatahubRecipe(oracle, recipe, dir)
      // browsePathsV2 of views and the explore's own records are emitted as DataHub does; the
      // comparison is per (urn, aspect), ignoring order (DataHub's comparator does the same).
      expectSameAspects(out, readJson(join(oracle, golden)))
    })
  }
})

describe("lookml source: DataHub's stateful golden", function () {
  this.timeout(60_000)
  it('lookml_stateful.yml writes the checkpoint of golden_test_state.json (same urns)', async function () {
    const oracle = requireSharedFixtures(this, 'datahub-integration', 'lookml')
    const dir = tempDir('mdcli-lookml-state-')
    try {
      await runDatahubRecipe(oracle, 'lookml_stateful.yml', dir)
      const ours = readJson(join(dir, 'lookml_state_mces.json'))
      const golden = readJson(join(oracle, 'golden_test_state.json'))
      expect(ours).to.have.length(1)
      expect(ours[0].entityUrn).to.equal(golden[0].entityUrn)
      const {timestampMillis: _t1, state: s1, ...rest1} = ours[0].aspect.json
      const {timestampMillis: _t2, state: s2, ...rest2} = golden[0].aspect.json
      expect(rest1).to.deep.equal(rest2)
      expect(s1.serde).to.equal('base85-bz2-json')
      expect(decodeState(s1)).to.have.members(decodeState(s2))
    } finally {
      cleanup(dir)
    }
  })
})

describe('lookml source: our own project', function () {
  this.timeout(60_000)
  it('views, fields, lineage to tables and to other views, the project container', async () => {
    const dir = tempDir('mdcli-lookml-own-')
    try {
      const out = await runDatahubRecipe(join(ROOT, 'test', 'fixtures', 'lookml'), 'shop.yml', dir, 1)
      const byAspect = (urn: string, aspect: string) => out.find((r: any) => r.entityUrn === urn && r.aspectName === aspect)?.aspect.json
      const orders = 'urn:li:dataset:(urn:li:dataPlatform:looker,shop.view.orders,PROD)'
      const summary = 'urn:li:dataset:(urn:li:dataPlatform:looker,shop.view.order_summary,PROD)'
      expect(byAspect(orders, 'upstreamLineage').upstreams.map((u: any) => u.dataset)).to.deep.equal(['urn:li:dataset:(urn:li:dataPlatform:postgres,shopdb.public.orders,PROD)'])
      expect(byAspect(orders, 'upstreamLineage').fineGrainedLineages[0].upstreams).to.deep.equal(['urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:postgres,shopdb.public.orders,PROD),id)'])
      expect(byAspect(orders, 'schemaMetadata').fields.map((f: any) => [f.fieldPath, f.isPartOfKey])).to.deep.equal([
        ['id', true],
        ['status', false],
        ['created', false],
        ['total', false],
      ])
      expect(byAspect(summary, 'upstreamLineage').upstreams.map((u: any) => u.dataset)).to.deep.equal([orders])
      expect(byAspect(summary, 'viewProperties').viewLanguage).to.equal('sql')
      const container = out.find((r: any) => r.aspectName === 'containerProperties')
      expect(container.aspect.json.name).to.equal('shop')
      // The second model's connection is not mapped: a failure naming it; the first model's views are there.
      expect(lastResult.source.report.failures[0].examples[0]).to.equal('model other: connection "not_mapped" is not in connection_to_platform_map')
      expect(lastResult.source.report.counts.views).to.equal(2)
    } finally {
      cleanup(dir)
    }
  })
})

describe('lookml source: awkward files', function () {
  this.timeout(60_000)
  it('an unparsable file is a warning naming it, quoted and non-ASCII names are read, derived SQL lineage skips CTE names', async () => {
    const dir = tempDir('mdcli-lookml-edge-')
    try {
      const out = await runDatahubRecipe(join(ROOT, 'test', 'fixtures', 'lookml'), 'edge.yml', dir, 0)
      const view = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:looker,edge.view.${name},PROD)`
      const table = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:postgres,${name},PROD)`
      const byAspect = (urn: string, aspect: string) => out.find((r: any) => r.entityUrn === urn && r.aspectName === aspect)?.aspect.json
      expect(lastResult.source.report.warnings).to.deep.equal([{key: 'unparsable file', count: 1, examples: [lastResult.source.report.warnings[0].examples[0]]}])
      expect(lastResult.source.report.warnings[0].examples[0]).to.match(/^views\/broken\.view\.lkml: /)
      expect(lastResult.source.report.failures ?? []).to.deep.equal([])
      expect(byAspect(view('orders'), 'upstreamLineage').upstreams.map((u: any) => u.dataset)).to.deep.equal([table('shopdb.public.orders')])
      // Quotes are stripped from the view name (DataHub does the same).
      expect(byAspect(view('quoted_name'), 'datasetProperties').name).to.equal('quoted_name')
      expect(byAspect(view('quoted_name'), 'schemaMetadata').fields.map((f: any) => f.fieldPath)).to.deep.equal(['naïve'])
      expect(byAspect(view('ünï_view'), 'upstreamLineage').upstreams.map((u: any) => u.dataset)).to.deep.equal([table('shopdb.public.unicode')])
      expect(byAspect(view('derived'), 'upstreamLineage').upstreams.map((u: any) => u.dataset)).to.have.members([
        table('shopdb.analytics.orders'),
        table('shopdb.analytics.customers'),
        table('shopdb.raw.returns'),
        table('shopdb.raw.refunds'),
      ])
      expect(lastResult.source.report.counts.views).to.equal(4)
    } finally {
      cleanup(dir)
    }
  })
})
