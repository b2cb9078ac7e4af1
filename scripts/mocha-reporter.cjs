// Mocha's spec output, plus one plain closing line ("N passed, N failed") that CI and people
// can read without knowing mocha's wording.
//
// Before it, a line with the run's CPU time and a short table of the files that took the most:
// on a shared 2-core machine wall-clock times say more about the neighbours than about the tests,
// while CPU time (user + system, this process and the child processes it waited for: the servers
// and CLI commands the tests start) is what a test costs whatever the load. The PostgreSQL and
// NATS servers' own CPU is not in it: they are not our children.
const Mocha = require('mocha')
const {readFileSync} = require('node:fs')
const {relative} = require('node:path')

const TICK = 100 // clock ticks per second of /proc/<pid>/stat on Linux

/** CPU seconds of this process and of its children that have ended and been waited for. */
function cpuSeconds() {
  const own = process.cpuUsage()
  let children = 0
  try {
    // Fields after the command name (which may hold spaces): state is field 3, cutime/cstime 16/17.
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    children = (Number(f[13]) + Number(f[14])) / TICK
  } catch {
    // Not Linux: children are not counted.
  }
  return (own.user + own.system) / 1e6 + children
}

const SHOWN = Number(process.env.MDCLI_TEST_SLOWEST ?? 8)

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options)
    const cpu0 = cpuSeconds()
    const wall0 = Date.now()
    /** Per test file: CPU and wall seconds of its top-level suites. */
    const files = new Map()
    const open = new Map()
    runner.on('suite', (suite) => {
      if (suite.parent && suite.parent.root && suite.file) open.set(suite, {cpu: cpuSeconds(), wall: Date.now()})
    })
    runner.on('suite end', (suite) => {
      const start = open.get(suite)
      if (!start) return
      open.delete(suite)
      const name = relative(process.cwd(), suite.file)
      const f = files.get(name) ?? {cpu: 0, wall: 0}
      f.cpu += cpuSeconds() - start.cpu
      f.wall += (Date.now() - start.wall) / 1000
      files.set(name, f)
    })
    runner.once('end', () => {
      const s = this.stats
      const cpu = cpuSeconds() - cpu0
      const wall = (Date.now() - wall0) / 1000
      const top = [...files].sort((a, b) => b[1].cpu - a[1].cpu).slice(0, SHOWN)
      const out = [`cpu: ${cpu.toFixed(1)} s user+sys (with the servers and commands the tests started) in ${wall.toFixed(1)} s wall`]
      for (const [name, f] of top) out.push(`  ${f.cpu.toFixed(1).padStart(7)} s cpu ${f.wall.toFixed(1).padStart(7)} s wall  ${name}`)
      if (process.env.MDCLI_TEST_CPU_FILE) {
        // Every file's figures, for scripts/test-all.mjs (or a person) to add up.
        // A folder that is not there yet is made: a missing folder must not eat the closing line.
        try {
          const fs = require('node:fs')
          fs.mkdirSync(require('node:path').dirname(process.env.MDCLI_TEST_CPU_FILE), {recursive: true})
          fs.writeFileSync(process.env.MDCLI_TEST_CPU_FILE, JSON.stringify({cpu, wall, files: Object.fromEntries(files)}, null, 1))
        } catch (error) {
          out.push(`(the per-file figures could not be written to ${process.env.MDCLI_TEST_CPU_FILE}: ${error.message})`)
        }
      }
      process.stdout.write(`${out.join('\n')}\n`)
      process.stdout.write(`${s.passes} passed, ${s.failures} failed${s.pending ? `, ${s.pending} skipped` : ''}\n`)
    })
  }
}

module.exports = SpecWithSummary
