import {expect} from 'chai'
import {execFile} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {cleanup, ROOT, tempDir} from '../helpers/lite.js'

const run = promisify(execFile)
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

const PLUGIN_TS = `import {aspectWorkUnit, configSchema, globalTags, makeDatasetUrn, runSource, type ConfigOf, type SourcePlugin, type WorkUnit} from 'mdcli/plugin'

const CONFIG = configSchema({type: 'object', properties: {count: {type: 'integer', default: 2}, platform: {type: 'string', default: 'hello'}}, additionalProperties: false})
type Config = ConfigOf<typeof CONFIG>

const plugin: SourcePlugin<Config> = {
  description: 'Yields count datasets.',
  configSchema: CONFIG,
  create(config, ctx) {
    return {
      async *workunits(): AsyncIterable<WorkUnit> {
        for (let i = 0; i < config.count; i++) {
          const urn = makeDatasetUrn(config.platform, 'pkg.table_' + i)
          yield aspectWorkUnit(urn, 'globalTags', globalTags(['example']))
          ctx.report.count('tables')
        }
      },
    }
  },
}

export default plugin
export const selfTest = () => runSource(plugin, {count: 3})
`

describe('the package: npm pack, install elsewhere, npx mdcli, a TypeScript plugin on the published types', function () {
  this.timeout(600_000)
  let dir: string
  let tarball: string
  before(async () => {
    dir = tempDir('mdcli-pack-')
    // The suite's build already made dist/; packing must not rebuild it under the running tests.
    const {stdout} = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {cwd: ROOT, maxBuffer: 64 * 1024 * 1024})
    const info = JSON.parse(stdout.slice(stdout.indexOf('[')))[0]
    tarball = join(dir, info.filename)
    const files: string[] = info.files.map((f: {path: string}) => f.path)
    expect(files).to.include.members(['bin/run.js', 'oclif.manifest.json', 'dist/src/sdk/index.d.ts', 'dist/src/sdk/index.js', 'dist/src/model/prebuilt-validators.cjs', 'dist/web/app.js', 'docs/plugins.md'])
    expect(files.filter((f) => /^dist\/(test|bench)\//.test(f) || f.startsWith('plugins/') || f.startsWith('test/') || f.endsWith('.ts') && !f.endsWith('.d.ts'))).to.deep.equal([])
    // Source maps point at sources the package does not ship; bin/dev.js is for this repository.
    expect(files.filter((f) => f.endsWith('.map') || f === 'bin/dev.js')).to.deep.equal([])
  })
  after(() => cleanup(dir))

  it('installs into an empty directory and runs `npx mdcli --help`', async () => {
    const app = join(dir, 'app')
    mkdirSync(app)
    writeFileSync(join(app, 'package.json'), JSON.stringify({name: 'app', version: '1.0.0', private: true, type: 'module'}))
    // A TypeScript plugin written against `mdcli/plugin`, installed beside the tarball: one npm
    // install (from the npm cache the repository's own install filled) instead of two.
    const plugin = join(app, 'hello')
    mkdirSync(plugin)
    writeFileSync(join(plugin, 'package.json'), JSON.stringify({name: 'mdcli-plugin-hello-ts', version: '1.0.0', type: 'module', main: 'hello.js', mdcli: {plugins: {sources: {'hello-ts': './hello.js'}}}}))
    writeFileSync(join(plugin, 'hello.ts'), PLUGIN_TS)
    writeFileSync(join(plugin, 'tsconfig.json'), JSON.stringify({compilerOptions: {target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, types: []}, files: ['hello.ts', 'bad.ts']}))
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, './hello'], {cwd: app, maxBuffer: 64 * 1024 * 1024})
    const help = await run('npx', ['--no-install', 'mdcli', '--help'], {cwd: app, env: {...process.env, HOME: dir, METADATA_TELEMETRY_ENABLED: 'false'}})
    expect(help.stdout).to.match(/COMMANDS/)
    expect(help.stdout).to.match(/ingest/)

    // The plugin is type-checked on the installed declarations and compiled, and a type error is
    // caught against the published types, in one tsc run (it emits despite bad.ts's errors).
    writeFileSync(
      join(plugin, 'bad.ts'),
      `import {configSchema, makeDatasetUrn, type ConfigOf} from 'mdcli/plugin'\nexport const x: number = makeDatasetUrn('a', 'b')\n` +
        `const S = configSchema({type: 'object', properties: {count: {type: 'integer', default: 2}}})\nexport const y = (c: ConfigOf<typeof S>): string => c.count\n`,
    )
    const tsc = await run(process.execPath, [TSC, '-p', '.'], {cwd: plugin}).then(
      () => ({code: 0, stdout: ''}),
      (e) => e,
    )
    expect(tsc.code, tsc.stdout).to.equal(2)
    expect(tsc.stdout).to.match(/bad\.ts\(2,.*Type 'string' is not assignable to type 'number'/)
    // The config type comes from the schema: \`count\` (with a default) is a number.
    expect(tsc.stdout).to.match(/bad\.ts\(4,.*Type 'number' is not assignable to type 'string'/)
    // The plugin itself type-checks clean: every error is bad.ts's.
    expect(tsc.stdout.split('\n').filter((l: string) => /error TS/.test(l) && !l.startsWith('bad.ts('))).to.deep.equal([])
    const self = await run(process.execPath, ['--input-type=module', '-e', `import {selfTest} from './hello/hello.js'; const r = await selfTest(); console.log(JSON.stringify({n: r.proposals.length, tables: r.report.toJSON().counts?.tables ?? r.report.toJSON()}))`], {cwd: app})
    expect(JSON.parse(self.stdout).n).to.equal(3)
    writeFileSync(join(app, 'hello.yml'), 'source: {type: hello-ts, config: {count: 2}}\nsink: {type: console}\n')
    const ingest = await run('npx', ['--no-install', 'mdcli', 'ingest', '-c', 'hello.yml'], {cwd: app, env: {...process.env, HOME: dir, METADATA_TELEMETRY_ENABLED: 'false'}})
    expect(ingest.stdout).to.include('urn:li:dataset:(urn:li:dataPlatform:hello,pkg.table_1,PROD)')
  })
})
