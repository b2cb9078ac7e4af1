// `npm run demo` builds only when the build is missing or older than a file it is made from:
// a full build takes a minute or more on a busy laptop, and a second demo start should not pay
// for it. A fresh clone has no build, so `npm ci && npm run demo` builds once.
//
//   node scripts/build-if-stale.mjs [--root DIR] [--dry-run]
//
// The build's last step writes oclif.manifest.json, so its time is the build's; the build's
// inputs are src/, plugins/, web/, scripts/, bin/, package.json, the lock file and the tsconfigs.
// --dry-run prints the verdict and builds nothing.
import {spawnSync} from 'node:child_process'
import {existsSync, readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

const args = process.argv.slice(2)
const at = args.indexOf('--root')
const root = at >= 0 ? args[at + 1] : join(fileURLToPath(new URL('.', import.meta.url)), '..')
const dryRun = args.includes('--dry-run')

const INPUTS = ['src', 'plugins', 'web', 'scripts', 'bin', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.sdk.json']
const OUTPUTS = ['oclif.manifest.json', 'dist/src/commands/lite.js', 'dist/web/app.js']

/** The newest file under `path` (a file or a folder), as [mtimeMs, path]. */
function newest(path) {
  if (!existsSync(path)) return [0, path]
  const s = statSync(path)
  if (!s.isDirectory()) return [s.mtimeMs, path]
  let best = [0, path]
  for (const name of readdirSync(path)) {
    const n = newest(join(path, name))
    if (n[0] > best[0]) best = n
  }
  return best
}

function verdict() {
  const missing = OUTPUTS.find((o) => !existsSync(join(root, o)))
  if (missing) return `${missing} is missing`
  const built = Math.min(...OUTPUTS.map((o) => statSync(join(root, o)).mtimeMs))
  for (const i of INPUTS) {
    const [t, path] = newest(join(root, i))
    if (t > built) return `${relative(root, path)} changed since the last build`
  }
  return undefined
}

const why = verdict()
if (!why) {
  console.log('The build is up to date; starting without rebuilding (`npm run build` rebuilds).')
  process.exit(0)
}
console.log(`Building first: ${why}.`)
if (dryRun) process.exit(0)
const r = spawnSync('npm', ['run', 'build'], {cwd: root, stdio: 'inherit', shell: process.platform === 'win32'})
process.exit(r.status ?? 1)
