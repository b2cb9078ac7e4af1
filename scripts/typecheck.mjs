// The `types` suite of scripts/test-all.mjs: tsc's type check of everything tsconfig.json holds
// (src, plugins, test, bench), reported the way the mocha suites report (a CPU line, then the
// closing "N passed, N failed, N skipped"), since `npm test` builds with esbuild, which checks
// no types.
import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..')
const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit', '--pretty', 'false'], {cwd: ROOT, encoding: 'utf8'})
const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim()
if (out) console.log(out)
const errors = out.split('\n').filter((l) => /error TS\d+/.test(l)).length
// The waited-for child's user+sys (cutime, cstime of /proc/self/stat), as the mocha reporter counts.
let cpu = 0
try {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')
  cpu = (Number(f[13]) + Number(f[14])) / 100 + process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6
} catch {}
console.log(r.status === 0 ? '  ✓ tsc -p tsconfig.json --noEmit: no type error' : `  ✗ tsc -p tsconfig.json --noEmit: ${errors} type error(s) (exit ${r.status ?? r.signal})`)
console.log(`cpu: ${cpu.toFixed(1)} s`)
console.log(r.status === 0 ? '1 passed, 0 failed, 0 skipped' : '0 passed, 1 failed, 0 skipped')
process.exit(r.status === 0 ? 0 : 1)
