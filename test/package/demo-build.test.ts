/**
 * `npm run demo` builds only when it must: no build yet (a fresh clone), or a source newer than
 * the build. The script runs here on a folder laid out like the repository, with --dry-run.
 */
import {expect} from 'chai'
import {execFile} from 'node:child_process'
import {mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {promisify} from 'node:util'
import {cleanup, ROOT, tempDir} from '../helpers/lite.js'

const run = promisify(execFile)
const SCRIPT = join(ROOT, 'scripts', 'build-if-stale.mjs')

describe('npm run demo builds only a missing or stale build', function () {
  this.timeout(60_000)
  let root: string
  before(() => {
    root = tempDir('mdcli-demo-build-')
  })
  after(() => cleanup(root))

  const put = (rel: string, secondsAgo: number): void => {
    const path = join(root, rel)
    mkdirSync(dirname(path), {recursive: true})
    writeFileSync(path, 'x')
    const t = Date.now() / 1000 - secondsAgo
    utimesSync(path, t, t)
  }
  const verdict = async (): Promise<string> => (await run(process.execPath, [SCRIPT, '--root', root, '--dry-run'])).stdout

  it('is the demo script', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(pkg.scripts.demo).to.match(/^node scripts\/build-if-stale\.mjs && node bin\/run\.js lite --sample$/)
  })

  it('builds when there is no build, skips a current one, and builds again after a source changed', async () => {
    put('src/commands/lite.ts', 100)
    put('package.json', 100)
    expect(await verdict()).to.match(/Building first: oclif\.manifest\.json is missing/)
    for (const out of ['dist/src/commands/lite.js', 'dist/web/app.js', 'oclif.manifest.json']) put(out, 50)
    expect(await verdict()).to.match(/up to date; starting without rebuilding/)
    put('web/src/main.tsx', 10)
    expect(await verdict()).to.match(/Building first: web\/src\/main\.tsx changed since the last build/)
    rmSync(join(root, 'web'), {recursive: true})
    rmSync(join(root, 'dist', 'web'), {recursive: true})
    expect(await verdict()).to.match(/dist\/web\/app\.js is missing/)
  })
})
