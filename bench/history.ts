/**
 * History benchmark: 10,000 writes to one entity (a new version of one aspect each time) through
 * the REST endpoint, then the server's RSS growth and the time to read an old version back.
 * Old versions live on disk (history.log), so memory must not grow with them.
 *
 * Target (2 cores, issue 33): with an aspect of 20 KB (BENCH_HISTORY_BYTES, 20,000 by default) RSS
 * grows < 40 MiB over the 10,000 writes. BENCH_HISTORY_WARM sets the warm-up. Prints one JSON line at the end.
 */
import {readFileSync} from 'node:fs'
import {Pool} from 'undici'
import {encodeUrnPath} from '../src/model/urn.js'
import {loadavg} from 'node:os'
import {machine, mib, percentile, proposal, rmDir, startLiteChild, targetLine, tempDir} from './lib.js'

/** Resident set size of a live process, bytes. */
function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) * 1024 : 0
}

/**
 * Writes before the measured ones, so that what is bounded has reached its bound first: the JIT,
 * the server's young generation (192 MiB, grown under a steady allocation rate over the first
 * ~20,000 writes here) and the change log's ring (10,000 to 20,000 changes, each holding its
 * values). With 3,000, the growth measured was mostly those: +78 to +115 MiB on this machine,
 * the release before this one included.
 */
const WARM = Number(process.env.BENCH_HISTORY_WARM ?? 30_000)

export async function main(): Promise<Record<string, number>> {
  const writes = Number(process.env.BENCH_HISTORY_WRITES ?? 10_000)
  const bytes = Number(process.env.BENCH_HISTORY_BYTES ?? 20_000)
  const clients = 4
  const dir = tempDir('mdcli-bench-history-')
  console.log(`history bench on ${machine()}: ${writes.toLocaleString()} writes to one entity, ${clients} clients, aspects of about ${bytes.toLocaleString()} bytes`)
  const lite = await startLiteChild(dir)
  const pool = new Pool(lite.url, {connections: clients, pipelining: 1})
  const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,bench.history,PROD)'
  const sentence = 'a fairly ordinary table description that changes a little on every write; '
  const filler = sentence.repeat(Math.max(1, Math.round((bytes - 100) / sentence.length)))
  // BENCH_HISTORY_SEARCH=0 writes an aspect search does not index, to tell the store's memory from the index's.
  const searched = process.env.BENCH_HISTORY_SEARCH !== '0'
  const aspectName = searched ? 'datasetProperties' : 'institutionalMemory'
  const value = (i: number) =>
    searched
      ? {name: 'history', description: `${filler} revision ${i}`, customProperties: {rev: String(i)}}
      : {elements: [{url: `https://wiki.example.com/history/${i}`, description: `${filler} revision ${i}`, createStamp: {time: i, actor: 'urn:li:corpuser:bench'}}]}
  const body = (i: number) => JSON.stringify({proposal: proposal({urn, aspectName, value: value(i)}, `bench-history-${i % 10}`)})
  const post = async (i: number) => {
    const res = await pool.request({path: '/aspects?action=ingestProposal', method: 'POST', headers: {'content-type': 'application/json', ...lite.auth}, body: body(i)})
    const text = await res.body.text()
    if (res.statusCode !== 200) throw new Error(`write ${i}: ${res.statusCode} ${text.slice(0, 200)}`)
  }
  // Warm up (JIT, pools, first allocations), then measure from a settled base.
  for (let i = 0; i < WARM; i++) await post(i)
  await new Promise((r) => setTimeout(r, 500))
  const before = rss(lite.proc.pid!)
  let next = WARM
  const t0 = performance.now()
  await Promise.all(
    Array.from({length: clients}, async () => {
      while (next < writes + WARM) await post(next++)
    }),
  )
  const seconds = (performance.now() - t0) / 1000
  await new Promise((r) => setTimeout(r, 500))
  const after = rss(lite.proc.pid!)
  const lat: number[] = []
  for (let i = 0; i < 200; i++) {
    const v = 1 + Math.floor(((i * 7919) % writes) + 1)
    const t = performance.now()
    const res = await pool.request({path: `/aspects/${encodeUrnPath(urn)}?aspect=${aspectName}&version=${v}`, method: 'GET', headers: lite.auth})
    const text = await res.body.text()
    lat.push(performance.now() - t)
    if (res.statusCode !== 200) throw new Error(`read version ${v}: ${res.statusCode} ${text.slice(0, 200)}`)
  }
  lat.sort((a, b) => a - b)
  await pool.close()
  await lite.stop()
  rmDir(dir)
  const growth = after - before
  console.log(`${writes.toLocaleString()} writes in ${seconds.toFixed(1)} s; RSS ${mib(before)} → ${mib(after)} (+${mib(growth)}); old version read p50 ${percentile(lat, 50).toFixed(2)} ms`)
  console.log(targetLine(`RSS growth over ${writes.toLocaleString()} writes of a ${Math.round(JSON.stringify(value(0)).length / 1000)} KB aspect`, `${(growth / 2 ** 20).toFixed(1)} MiB`, '< 40 MiB', growth < 40 * 2 ** 20))
  console.log(`load average: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
  const figures = {aspectBytes: JSON.stringify(value(0)).length, loadAverage: +loadavg()[0]!.toFixed(1), writes, seconds: +seconds.toFixed(2), rssBeforeMiB: Math.round(before / 2 ** 20), rssAfterMiB: Math.round(after / 2 ** 20), rssGrowthMiB: +(growth / 2 ** 20).toFixed(1), oldVersionReadP50Ms: +percentile(lat, 50).toFixed(3)}
  console.log(JSON.stringify({bench: 'history', ...figures}))
  return figures
}
