/**
 * CLI start-up benchmark: wall time of a cold process for `node -e 0` (the floor), `mdcli
 * --version`, `mdcli --help` and `mdcli get --urn …` against a running `mdcli lite` (an entity that
 * exists, printed as JSON). Each is run BENCH_STARTUP_RUNS times (11 by default); the median is
 * reported.
 *
 * Targets (2 cores): `get` < 300 ms, `--version` < 200 ms.
 */
import {spawnSync} from 'node:child_process'
import {BIN, machine, rmDir, startLiteChild, tempDir} from './lib.js'

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 11)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

function timeRuns(args: string[], env: NodeJS.ProcessEnv): number {
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now()
    const r = spawnSync(process.execPath, args, {env, encoding: 'utf8'})
    times.push(performance.now() - t)
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  }
  return median(times)
}

export async function main(): Promise<Record<string, number>> {
  console.log(`startup: ${machine()}, median of ${RUNS} cold processes`)
  const dir = tempDir('mdcli-bench-startup-')
  const home = tempDir('mdcli-bench-home-')
  const lite = await startLiteChild(dir, ['--sample'], [], home)
  const env = {...process.env, HOME: home, METADATA_GMS_URL: lite.url, METADATA_GMS_TOKEN: lite.token, METADATA_TELEMETRY_ENABLED: 'false', NO_COLOR: '1'}
  const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,sample_db.customers,PROD)'
  try {
    const figures = {
      nodeMs: Math.round(timeRuns(['-e', '0'], env)),
      versionMs: Math.round(timeRuns([BIN, '--version'], env)),
      helpMs: Math.round(timeRuns([BIN, '--help'], env)),
      getMs: Math.round(timeRuns([BIN, 'get', '--urn', urn, '--json'], env)),
    }
    console.log(`node -e 0 ${figures.nodeMs} ms; mdcli --version ${figures.versionMs} ms; mdcli --help ${figures.helpMs} ms; mdcli get ${figures.getMs} ms`)
    console.log(JSON.stringify({bench: 'startup', ...figures}))
    return figures
  } finally {
    await lite.stop()
    rmDir(dir)
    rmDir(home)
  }
}
