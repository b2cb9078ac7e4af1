import {cpSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'chai'
import {cleanup, ROOT, runCli, tempDir} from '../helpers/lite.js'
import {ingestJson, offlineEnv, readJson, writeRecipe} from './helpers.js'

const EXAMPLE = join(ROOT, 'test', 'fixtures', 'example-plugin')

describe('plugins: registry, check plugins, third-party packages', function () {
  this.timeout(60_000)
  let project: string

  before(() => {
    // A user's project with two plugin packages installed: the example, and one whose import fails.
    project = tempDir('mdcli-project-')
    cpSync(EXAMPLE, join(project, 'node_modules', 'mdcli-plugin-hello'), {recursive: true})
    const broken = join(project, 'node_modules', '@acme', 'mdcli-plugin-broken')
    mkdirSync(broken, {recursive: true})
    writeFileSync(join(broken, 'package.json'), JSON.stringify({name: '@acme/mdcli-plugin-broken', version: '0.1.0', type: 'module', mdcli: {plugins: {sources: {'needs-driver': './index.js'}, sinks: {'missing-file': './nope.js'}}}}))
    writeFileSync(join(broken, 'index.js'), "import driver from 'some-database-driver-that-is-not-installed'\nexport default {configSchema: {}, create() { return driver }}\n")
  })
  after(() => cleanup(project))

  it('lists built-in sources, sinks and transformers like DataHub', async () => {
    const r = await runCli(['check', 'plugins'], {env: offlineEnv(project)})
    expect(r.code, r.stderr).to.equal(0)
    const [sources, sinks, transformers] = r.stdout.split('\n\n')
    const sourceNames = sources!.split('\n')
    expect(sourceNames[0]).to.equal('Sources:')
    expect(sourceNames).to.include.members(['csv-enricher', 'datahub-business-glossary', 'datahub-lineage-file', 'dbt', 'delta-lake', 'file', 'lookml', 'metabase', 'mode', 's3', 'sql-queries'])
    expect(sourceNames.slice(1)).to.deep.equal([...sourceNames.slice(1)].sort())
    expect(sinks!.split('\n')).to.deep.equal(['Sinks:', 'console', 'datahub-rest', 'file', 'nats'])
    expect(transformers!.split('\n')).to.include.members(['Transformers:', 'simple_add_dataset_ownership', 'pattern_add_dataset_domain'])
    expect(r.stdout).to.contain('If a plugin is disabled')
  })

  it('--verbose lists each plugin with its description and config keys (* = required)', async () => {
    const r = await runCli(['check', 'plugins', '--verbose'], {env: offlineEnv(project)})
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stdout).to.match(/\nlookml +plugins\/lookml\/index\.js\n +Reads a LookML project.*\n +config: base_folder\*, project_name\*, connection_to_platform_map\*, model_pattern/)
  })

  it('finds third-party packages in the project’s node_modules; a broken one is disabled with its reason', async () => {
    const r = await runCli(['check', 'plugins'], {env: offlineEnv(project), cwd: project})
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stdout).to.match(/\nhello-source\n/)
    expect(r.stdout).to.match(/\nneeds-driver {13}\(disabled\)\n/)
    expect(r.stdout).to.match(/\nmissing-file {3}\(disabled\)\n/)
    expect(r.stdout).to.contain("For details on why a plugin is disabled, rerun with '--verbose'")
    const v = await runCli(['check', 'plugins', '--verbose'], {env: offlineEnv(project), cwd: project})
    expect(v.stdout).to.match(/hello-source {13}mdcli-plugin-hello@1\.0\.0/)
    expect(v.stdout).to.match(/needs-driver {13}\(disabled\) cannot import .*: ERR_MODULE_NOT_FOUND: Cannot find package 'some-database-driver-that-is-not-installed'/)
    expect(v.stdout).to.match(/missing-file {3}\(disabled\) @acme\/mdcli-plugin-broken@0\.1\.0 declares missing-file at \.\/nope\.js, which does not exist/)
    const one = await runCli(['check', 'plugins', '--source', 'hello-source'], {env: offlineEnv(project), cwd: project})
    expect(one.stdout.trim()).to.equal('Source hello-source is enabled.')
  })

  it('runs a recipe with the third-party source from the project directory', async () => {
    const out = join(project, 'hello-out.json')
    const recipe = writeRecipe(project, {source: {type: 'hello-source', config: {count: 4}}, sink: {type: 'file', config: {filename: 'hello-out.json'}}}, 'hello.yml')
    const r = await ingestJson(recipe, offlineEnv(project), [], project)
    expect(r.code, r.stderr + r.stdout).to.equal(0)
    expect(r.result.eventsProduced).to.equal(4)
    expect(r.result.source.report.counts).to.deep.equal({datasets: 4})
    const rows = readJson<Array<Record<string, any>>>(out)
    expect(rows).to.have.length(8)
    expect(rows[0]).to.include({entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hello,hello.dataset_0,PROD)', aspectName: 'datasetProperties'})
  })

  it('a recipe naming a disabled or misspelt plugin fails before running', async () => {
    const bad = await ingestJson(writeRecipe(project, {source: {type: 'needs-driver'}}, 'broken.yml'), offlineEnv(project), [], project)
    expect(bad.code).to.equal(1)
    expect(bad.result.error.message).to.match(/The source 'needs-driver' \(@acme\/mdcli-plugin-broken@0\.1\.0\) is disabled: cannot import/)
    const typo = await ingestJson(writeRecipe(project, {source: {type: 'hello-sorce'}}, 'typo.yml'), offlineEnv(project), [], project)
    expect(typo.result.error.message).to.match(/Did you mean 'hello-source'\?/)
    const cfg = await ingestJson(writeRecipe(project, {source: {type: 'hello-source', config: {count: 'three'}}}, 'cfg.yml'), offlineEnv(project), [], project)
    expect(cfg.result.error.message).to.match(/source\.config\.count: expected integer, got string/)
  })
})
