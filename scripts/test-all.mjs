#!/usr/bin/env node
// `npm test`'s runner: every suite runs and reports, whatever an earlier one did.
//
// The tests are split into suites (groups of test folders, and the PostgreSQL-store run) that
// share nothing but the machine's services, so up to MDCLI_TEST_JOBS of them (default 4) run at
// once as separate mocha processes. Each suite's output is printed whole when it ends, then a
// table of every suite's counts, then one closing line "N passed, N failed, N skipped". The exit
// code is non-zero when any suite failed or ended without its closing line (a crash).
//
//   node scripts/test-all.mjs                 every suite
//   node scripts/test-all.mjs store graphql   only the suites named
//   MDCLI_TEST_JOBS=1 node scripts/test-all.mjs
import {spawn} from 'node:child_process'
import {readFileSync, readdirSync, existsSync} from 'node:fs'
import {join, dirname} from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const MOCHA = join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js')
const GROUP_CONFIG = join(ROOT, 'scripts', 'mocharc.group.json')

const folders = (...names) => names.map((n) => `dist/test/${n}/**/*.test.js`)
const pgSpec = JSON.parse(readFileSync(join(ROOT, '.mocharc.pg.json'), 'utf8')).spec

// The longest first (wall seconds on the 2-core machine, see the README), so the long suites
// start while the short ones fill the gaps. `web` (DataHub's web app and our pages in Chromium)
// and `events` (NATS) wait on a browser and a broker far more than they compute, so they run
// beside the CPU-heavy suites rather than after them.
const SUITES = [
  {name: 'web', spec: folders('web')},
  {name: 'events', spec: folders('events')},
  {name: 'postgres', spec: pgSpec, env: {MDCLI_TEST_STORE: 'postgres'}},
  {name: 'ingest', spec: folders('ingest')},
  {name: 'server', spec: folders('server', 'access', 'history')},
  {name: 'integration', spec: folders('integration')},
  {name: 'graphql', spec: folders('graphql')},
  {name: 'store', spec: folders('store')},
  {name: 'core', spec: folders('model', 'catalog', 'package')},
  // tsc's type check (npm test emits with esbuild, which checks no types): last, in a gap.
  {name: 'types', spec: [], cmd: [join(ROOT, 'scripts', 'typecheck.mjs')]},
]
// A test folder no suite names (a new one) runs in `core`, so no test is left out unnoticed.
const named = new Set(SUITES.flatMap((s) => s.spec).map((g) => g.split('/')[2]))
const unnamed = existsSync(join(ROOT, 'dist', 'test'))
  ? readdirSync(join(ROOT, 'dist', 'test'), {withFileTypes: true})
      .filter((d) => d.isDirectory() && !named.has(d.name) && !['helpers', 'fixtures'].includes(d.name))
      .map((d) => d.name)
  : []
if (unnamed.length) SUITES.find((s) => s.name === 'core').spec.push(...folders(...unnamed))

const wanted = process.argv.slice(2)
const unknown = wanted.filter((w) => !SUITES.some((s) => s.name === w))
if (unknown.length) {
  console.error(`test-all: no suite named ${unknown.join(', ')} (suites: ${SUITES.map((s) => s.name).join(', ')})`)
  process.exit(2)
}
const suites = wanted.length ? SUITES.filter((s) => wanted.includes(s.name)) : SUITES
// Four at a time by default: on 2 cores much of a suite's time is waiting (servers starting,
// queues draining, PostgreSQL, a browser's pages), which the other suites fill. Three at a time
// left about a third of the two cores idle with a second process busy on one of them.
const jobs = Math.max(1, Number(process.env.MDCLI_TEST_JOBS ?? 4) || 4)

if (!existsSync(join(ROOT, 'dist', 'test'))) {
  console.error('test-all: dist/test is missing; run `npm run build` first')
  process.exit(2)
}

/** User+sys seconds of the suites' processes and everything they waited for (Linux; 0 elsewhere). */
function childCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[13]) + Number(f[14])) / 100
  } catch {
    return 0
  }
}

function runSuite(suite) {
  return new Promise((resolve) => {
    const started = Date.now()
    const args = suite.cmd ?? [MOCHA, '--config', GROUP_CONFIG, ...suite.spec.flatMap((s) => ['--spec', s])]
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: {
        ...process.env,
        ...suite.env,
        MDCLI_TEST_SUITE: suite.name,
        // Every file's CPU and wall seconds as JSON, when asked for (MDCLI_TEST_CPU_DIR=folder).
        ...(process.env.MDCLI_TEST_CPU_DIR ? {MDCLI_TEST_CPU_FILE: join(process.env.MDCLI_TEST_CPU_DIR, `${suite.name}.json`)} : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let lingered = false
    let linger
    const watch = () => {
      // Mocha has printed its result but stays up (a server or socket a test left open): ended
      // after a minute, and the suite counts as failed, so the leak is seen rather than waited on.
      if (linger || !/^\d+ passed, \d+ failed/m.test(out)) return
      linger = setTimeout(() => {
        lingered = true
        child.kill('SIGKILL')
      }, 60_000)
    }
    child.stdout.on('data', (d) => {
      out += d
      watch()
    })
    child.stderr.on('data', (d) => (out += d))
    child.on('close', (code, signal) => {
      clearTimeout(linger)
      if (lingered) out += '\ntest-all: mocha did not exit within 60 s of its last test (something a test started is still open): killed\n'
      const seconds = (Date.now() - started) / 1000
      // The reporter's closing line; its absence means mocha never reached the end.
      const m = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$/m.exec(out.split('\n').slice(-5).join('\n'))
      const result = m
        ? {passed: +m[1], failed: +m[2], skipped: +(m[3] ?? 0), crashed: false}
        : {passed: 0, failed: 0, skipped: 0, crashed: true}
      // The reporter's CPU line (user+sys of mocha and the servers and commands it started).
      const cpu = Number(/^cpu: ([\d.]+) s/m.exec(out)?.[1] ?? NaN)
      resolve({suite, code: lingered ? 1 : code, signal, seconds, cpu, out, ...result})
    })
  })
}

const results = []
const queue = [...suites]
const t0 = Date.now()
console.log(`test-all: ${suites.length} suites, ${jobs} at a time (MDCLI_TEST_JOBS)`)
async function worker() {
  for (let s = queue.shift(); s; s = queue.shift()) {
    console.log(`test-all: ${s.name} started`)
    const r = await runSuite(s)
    const status = r.crashed ? `ended without a result (exit ${r.code ?? r.signal})` : `${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`
    process.stdout.write(`\n======== suite ${s.name}: ${status} in ${r.seconds.toFixed(0)} s ========\n${r.out}\n`)
    results.push(r)
  }
}
await Promise.all(Array.from({length: Math.min(jobs, suites.length)}, worker))

const total = {passed: 0, failed: 0, skipped: 0}
console.log('\n suite        passed  failed  skipped  seconds  cpu s  result')
for (const s of suites) {
  const r = results.find((x) => x.suite === s)
  for (const k of Object.keys(total)) total[k] += r[k]
  const ok = !r.crashed && r.failed === 0 && r.code === 0
  console.log(` ${s.name.padEnd(12)} ${String(r.passed).padStart(6)}  ${String(r.failed).padStart(6)}  ${String(r.skipped).padStart(7)}  ${r.seconds.toFixed(0).padStart(7)}  ${(Number.isNaN(r.cpu) ? '?' : r.cpu.toFixed(0)).padStart(5)}  ${ok ? 'ok' : r.crashed ? `CRASHED (exit ${r.code ?? r.signal})` : 'FAILED'}`)
}
const bad = results.filter((r) => r.crashed || r.failed > 0 || r.code !== 0)
console.log(`\nall suites in ${((Date.now() - t0) / 1000).toFixed(0)} s wall, ${childCpuSeconds().toFixed(0)} s cpu${bad.length ? `; failed: ${bad.map((r) => r.suite.name).join(', ')}` : ''}`)
// A crashed suite counts as one failure, so the closing line never reads as green for it.
console.log(`${total.passed} passed, ${total.failed + bad.filter((r) => r.crashed).length} failed, ${total.skipped} skipped`)
process.exit(bad.length ? 1 : 0)
