/**
 * Startup benchmark: `mdcli lite` from spawn to the first answered request, on an empty store
 * and on a store of BENCH_STARTUP_ASPECTS aspects (1,000,000 by default: 200,000 datasets × 5).
 *
 * The large store is written in this process straight through the store (no HTTP: only the
 * start is measured) and closed cleanly, as a stopped server leaves it. The first request is a
 * read of the last entity written, so the figure covers loading the data, not just the port.
 *
 * Targets (2 cores, issue 33): < 0.4 s on an empty store, < 1.5 s at 1,000,000 aspects.
 */
import {encodeUrnPath} from '../src/model/urn.js'
import {loadavg} from 'node:os'
import {cpuMs, duBytes, machine, mib, peakRss, rmDir, startLiteChild, targetLine, tempDir, writeDatasetStore} from './lib.js'

/**
 * ms from spawn to a 200 answer for `path`, the server's CPU time by then (all threads: steadier
 * than wall time on a shared machine) and its peak RSS.
 */
async function timeToFirstAnswer(dir: string, path: string): Promise<{ms: number; cpu: number; rss: number}> {
  const home = tempDir('mdcli-bench-home-')
  const t0 = performance.now()
  const lite = await startLiteChild(dir, ['--no-auth'], [], home)
  for (;;) {
    const res = await fetch(`${lite.url}${path}`)
    await res.text()
    if (res.status === 200) break
    if (res.status !== 503) throw new Error(`GET ${path}: ${res.status}`)
    await new Promise((r) => setTimeout(r, 5))
  }
  const ms = performance.now() - t0
  const cpu = cpuMs(lite.proc.pid!)
  const rss = peakRss(lite.proc.pid!)
  await lite.stop()
  rmDir(home)
  return {ms, cpu, rss}
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export async function main(): Promise<Record<string, number>> {
  const aspects = Number(process.env.BENCH_STARTUP_ASPECTS ?? 1_000_000)
  const datasets = Math.ceil(aspects / 5)
  console.log(`startup bench on ${machine()}: empty store, then ${(datasets * 5).toLocaleString()} aspects`)

  const emptyRuns: number[] = []
  const emptyCpu: number[] = []
  for (let i = 0; i < 5; i++) {
    const dir = tempDir('mdcli-bench-start-')
    const r = await timeToFirstAnswer(dir, '/health')
    emptyRuns.push(r.ms)
    emptyCpu.push(r.cpu)
    rmDir(dir)
  }
  const empty = median(emptyRuns)
  console.log(`empty store: first answer after ${empty.toFixed(0)} ms (median of 5: ${emptyRuns.map((x) => x.toFixed(0)).join(', ')}); CPU ${median(emptyCpu).toFixed(0)} ms`)

  const dir = tempDir('mdcli-bench-start-')
  const t = performance.now()
  const last = await writeDatasetStore(dir, datasets, 'bench-startup')
  const disk = duBytes(dir)
  console.log(`wrote the store in ${((performance.now() - t) / 1000).toFixed(1)} s (${mib(disk)} on disk)`)

  const path = `/entitiesV2/${encodeUrnPath(last)}`
  const fullRuns: Array<{ms: number; cpu: number; rss: number}> = []
  for (let i = 0; i < 3; i++) fullRuns.push(await timeToFirstAnswer(dir, path))
  rmDir(dir)
  const full = median(fullRuns.map((x) => x.ms))
  const rss = Math.max(...fullRuns.map((x) => x.rss))
  const fullCpu = median(fullRuns.map((x) => x.cpu))
  console.log(`${(datasets * 5).toLocaleString()} aspects: first answer after ${(full / 1000).toFixed(2)} s (median of 3: ${fullRuns.map((x) => (x.ms / 1000).toFixed(2)).join(', ')}); CPU ${(fullCpu / 1000).toFixed(2)} s; peak RSS ${mib(rss)}`)
  console.log(targetLine('lite to first answer, empty store', `${(empty / 1000).toFixed(2)} s`, '< 0.4 s', empty < 400))
  console.log(targetLine(`lite to first answer at ${(datasets * 5).toLocaleString()} aspects`, `${(full / 1000).toFixed(2)} s`, '< 1.5 s at 1,000,000', full < 1500))
  console.log(`load average: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
  const figures = {loadAverage: +loadavg()[0]!.toFixed(1), emptyMs: Math.round(empty), emptyCpuMs: Math.round(median(emptyCpu)), aspects: datasets * 5, loadedMs: Math.round(full), loadedCpuMs: Math.round(fullCpu), loadedPeakRssMiB: Math.round(rss / 2 ** 20), diskMiB: Math.round(disk / 2 ** 20)}
  console.log(JSON.stringify({bench: 'startup-lite', ...figures}))
  return figures
}
