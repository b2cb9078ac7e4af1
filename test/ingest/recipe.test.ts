import {mkdirSync, writeFileSync, existsSync} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'chai'
import {ConfigError, FileError, ParseError, PluginError} from '../../src/errors.js'
import {preparePipeline} from '../../src/recipes/pipeline.js'
import {defaultRunId, loadRecipe, parseRecipe} from '../../src/recipes/recipe.js'
import {extractStateful} from '../../src/recipes/stateful.js'
import {cleanup, runCli, tempDir} from '../helpers/lite.js'
import {BOOTSTRAP, offlineEnv, writeRecipe} from './helpers.js'

describe('recipes', () => {
  let dir: string
  before(() => {
    dir = tempDir('mdcli-recipe-')
  })
  after(() => cleanup(dir))

  const parse = (text: string, env: Record<string, string> = {}, format: 'yaml' | 'toml' | 'json' = 'yaml') => parseRecipe(text, '/r/recipe.yml', format, env, '/r')

  it('defaults the sink to the REST sink, as the spec and DataHub do, and keeps optional fields', () => {
    const r = parse('source: {type: file, config: {path: x.json}}\npipeline_name: p1\nrun_id: r1\n')
    expect(r.sink).to.deep.equal({type: 'datahub-rest', config: {}})
    expect(r.pipeline_name).to.equal('p1')
    expect(r.run_id).to.equal('r1')
    expect(r.transformers).to.deep.equal([])
  })

  it('reads TOML and JSON recipes', () => {
    expect(parse('[source]\ntype = "file"\n[source.config]\npath = "a.json"\n', {}, 'toml').source).to.deep.equal({type: 'file', config: {path: 'a.json'}})
    expect(parse('{"source": {"type": "file", "config": {"path": "a.json"}}}', {}, 'json').source.type).to.equal('file')
  })

  it('expands ${VAR} and ${VAR:-default} in string values, not keys', () => {
    const r = parse('source:\n  type: file\n  config:\n    path: "${DIR}/${NAME:-mce}.json"\n    ${DIR}: 1\n', {DIR: '/data'})
    expect(r.source.config.path).to.equal('/data/mce.json')
    expect(r.source.config).to.have.property('${DIR}')
  })

  it('names the unset variable and the key path', () => {
    expect(() => parse('source:\n  type: file\n  config:\n    path: ${MISSING_DIR}/x.json\n'))
      .to.throw(ConfigError, /MISSING_DIR is not set \(used at source\.config\.path\)/)
  })

  it('names the file, the key path and what was expected', () => {
    expect(() => parse('source: {type: file}\nsink: {typ: file}\n')).to.throw(ConfigError, /recipe\.yml.*sink: unknown key 'typ' \(did you mean 'type'\?\)/)
    expect(() => parse('source: {type: 3}\n')).to.throw(ConfigError, /source\.type: expected string, got number/)
    expect(() => parse('sink: {type: console}\n')).to.throw(ConfigError, /missing required key 'source'/)
  })

  it('reports malformed YAML, TOML and JSON with the line', () => {
    expect(() => parse('source:\n  type: file\n   config: [\n')).to.throw(ParseError, /not valid YAML \(line \d+\)/)
    expect(() => parse('[source]\ntype = "file"\nconfig = {path = \n', {}, 'toml')).to.throw(ParseError, /not valid TOML \(line 3\)/)
    expect(() => parse('{"source": {"type": "file",\n "config": }}', {}, 'json')).to.throw(ParseError, /not valid JSON \(line 2\)/)
  })

  it('validates plugin configs before running, with the key path', async () => {
    const bad = parse('source: {type: file, config: {path: 3}}\n')
    try {
      await preparePipeline(bad)
      expect.fail('should have thrown')
    } catch (e) {
      expect(e).to.be.instanceOf(ConfigError)
      expect((e as Error).message).to.match(/\/r\/recipe\.yml: source\.config\.path: expected string, got number/)
    }
    const typo = parse('source: {type: file, config: {path: a.json, file_extention: .json}}\n')
    await preparePipeline(typo).then(
      () => expect.fail('should have thrown'),
      (e: Error) => expect(e.message).to.match(/unknown key 'file_extention' \(did you mean 'file_extension'\?\)/),
    )
  })

  it("reads YAML 1.1's yes/no/on/off (as DataHub's recipes do) where a boolean belongs, and nowhere else", async () => {
    const r = parse('source:\n  type: file\n  config:\n    path: a.json\n    count_all_before_starting: ${COUNT}\n    stateful_ingestion: {enabled: yes, remove_stale_metadata: Off, ignore_old_state: NO}\npipeline_name: "yes"\n', {COUNT: 'on'})
    const p = await preparePipeline(r)
    expect(p.stateful).to.include({enabled: true, remove_stale_metadata: false, ignore_old_state: false})
    expect(p.source.ref.config.count_all_before_starting).to.equal(true)
    // A string field keeps the word; a word that is no boolean is still refused.
    expect(r.pipeline_name).to.equal('yes')
    expect(() => extractStateful({stateful_ingestion: {enabled: 'maybe'}}, '/r/recipe.yml')).to.throw(ConfigError, /enabled: expected boolean, got string/)
  })

  it('suggests the closest plugin name for an unknown type', async () => {
    for (const [text, re] of [
      ['source: {type: fiel, config: {}}\n', /Unknown source type 'fiel'\. Did you mean 'file'\?/],
      ['source: {type: file, config: {path: a}}\nsink: {type: datahub-rst}\n', /Unknown sink type 'datahub-rst'\. Did you mean 'datahub-rest'\?/],
      ['source: {type: file, config: {path: a}}\ntransformers: [{type: simple_add_dataset_tag}]\n', /Did you mean 'simple_add_dataset_tags'\?/],
    ] as const) {
      await preparePipeline(parse(text)).then(
        () => expect.fail('should have thrown'),
        (e: Error) => {
          expect(e).to.be.instanceOf(PluginError)
          expect(e.message).to.match(re)
        },
      )
    }
  })

  it('refuses unknown extensions and missing files', () => {
    writeFileSync(join(dir, 'r.txt'), 'source: {type: file}')
    expect(() => loadRecipe(join(dir, 'r.txt'))).to.throw(ConfigError, /Cannot process file type \.txt/)
    expect(() => loadRecipe(join(dir, 'nope.yml'))).to.throw(FileError, /Cannot open config file .*nope\.yml/)
  })

  it('builds the default run id from the source type and local time', () => {
    expect(defaultRunId('file', new Date(2024, 0, 5, 7, 8, 9))).to.equal('file-2024_01_05-07_08_09')
  })

  describe('on the command line (one-line errors, non-zero exit, nothing written)', () => {
    const env = () => offlineEnv(dir)

    it('missing recipe', async () => {
      const r = await runCli(['ingest', '-c', join(dir, 'missing.yml')], {env: env()})
      expect(r.code).to.equal(1)
      expect(r.stderr.trim().split('\n')).to.have.length(1)
      expect(r.stderr).to.match(/^Error: Cannot open config file .*missing\.yml/)
    })

    it('unknown source type, with a suggestion', async () => {
      const out = join(dir, 'never.json')
      const recipe = writeRecipe(dir, {source: {type: 'flie', config: {path: BOOTSTRAP}}, sink: {type: 'file', config: {filename: out}}}, 'unknown.yml')
      const r = await runCli(['ingest', '-c', recipe], {env: env()})
      expect(r.code).to.equal(1)
      expect(r.stderr).to.match(/Unknown source type 'flie'\. Did you mean 'file'\?/)
      expect(existsSync(out)).to.equal(false)
    })

    it('malformed YAML names the line', async () => {
      const p = join(dir, 'broken.yml')
      writeFileSync(p, 'source:\n  type: file\n  config: {path: "a.json"\n')
      const r = await runCli(['ingest', '-c', p], {env: env()})
      expect(r.code).to.equal(1)
      expect(r.stderr).to.match(/^Error: .*broken\.yml is not valid YAML \(line \d+\)/)
    })

    it('missing data file', async () => {
      const out = join(dir, 'never2.json')
      const recipe = writeRecipe(dir, {source: {type: 'file', config: {path: join(dir, 'no-such.json')}}, sink: {type: 'file', config: {filename: out}}}, 'nodata.yml')
      const r = await runCli(['ingest', '-c', recipe], {env: env()})
      expect(r.code).to.equal(1)
      // The run had started (its first progress line names it); the failure is one line of its own.
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('Error:'))
      expect(errors, r.stderr).to.have.length(1)
      expect(errors[0]).to.match(/^Error: File not found: .*no-such\.json/)
      expect(existsSync(out)).to.equal(false)
    })

    it('unset variable, in --json form', async () => {
      mkdirSync(join(dir, 'j'), {recursive: true})
      const recipe = join(dir, 'j', 'env.yml')
      writeFileSync(recipe, 'source:\n  type: file\n  config:\n    path: ${NOT_SET_ANYWHERE}\n')
      const r = await runCli(['ingest', '-c', recipe, '--json'], {env: env()})
      expect(r.code).to.equal(1)
      expect(JSON.parse(r.stdout).error.code).to.equal('E_CONFIG')
    })
  })
})
