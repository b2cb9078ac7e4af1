import {join} from 'node:path'
import {expect} from 'chai'
import {ingest} from '../../src/recipes/pipeline.js'
import {parseRecipe} from '../../src/recipes/recipe.js'
import {BUILTINS, PluginRegistry} from '../../src/recipes/registry.js'
import {cleanup, tempDir} from '../helpers/lite.js'
import {offlineEnv, readJson} from './helpers.js'

/** A plugin module as a data: URL, so a test can register a source without files. */
function moduleUrl(code: string): string {
  return `data:text/javascript,${encodeURIComponent(code)}`
}

const BOOM = moduleUrl(`
export default {
  configSchema: {type: 'object', properties: {after: {type: 'integer', default: 2}}},
  create(config) {
    return {async *workunits() {
      for (let i = 0; ; i++) {
        if (i === config.after) throw new Error('the source lost its database connection')
        yield {id: 'boom-' + i, kind: 'mcp', proposals: [{entityUrn: 'urn:li:tag:t' + i, aspectName: 'status', aspect: {json: {removed: false}}}]}
      }
    }}
  },
}`)

const SLOPPY = moduleUrl(`
export default {
  configSchema: {type: 'object'},
  create() {
    return {async *workunits() {
      yield 'not a work unit'
      yield {id: 'ok', kind: 'mcp', proposals: [null, {entityUrn: 'urn:li:tag:fine', aspectName: 'status', aspect: {json: {removed: false}}}]}
    }}
  },
}`)

describe('pipeline', () => {
  let dir: string
  const registry = new PluginRegistry([
    ...BUILTINS,
    {kind: 'source', name: 'boom', origin: 'test', module: BOOM},
    {kind: 'source', name: 'sloppy', origin: 'test', module: SLOPPY},
  ])
  before(() => {
    dir = tempDir('mdcli-pipeline-')
  })
  after(() => cleanup(dir))

  const run = (source: string, out: string) =>
    ingest(parseRecipe(JSON.stringify({source: {type: source}, sink: {type: 'file', config: {filename: out}}, run_id: 'r'}), join(dir, 'r.json'), 'json', {}, dir), {registry, env: offlineEnv(dir)})

  it('a source that breaks mid-run: what it produced is written, the break is a failure', async () => {
    const out = join(dir, 'boom.json')
    const result = await run('boom', out)
    expect(result.status).to.equal('failures')
    expect(result.exitCode).to.equal(1)
    expect(result.eventsProduced).to.equal(2)
    expect(result.source.report.failures.map((f) => f.key)).to.include('run aborted')
    expect(result.source.report.failures.find((f) => f.key === 'run aborted')!.examples[0]).to.equal('after 2 work units: the source lost its database connection')
    expect(readJson<unknown[]>(out)).to.have.length(2)
    expect(result.summary).to.match(/^Pipeline finished with at least 1 failures; produced 2 events in /)
  })

  it('malformed work units and proposals from a plugin are failures, not crashes', async () => {
    const out = join(dir, 'sloppy.json')
    const result = await run('sloppy', out)
    expect(result.failures).to.equal(2)
    expect(readJson<Array<{entityUrn: string}>>(out).map((r) => r.entityUrn)).to.deep.equal(['urn:li:tag:fine'])
  })
})
