/**
 * Foundation benchmark: write 1,000,000 aspects over 200,000 entities through the batch REST
 * endpoint with 8 concurrent clients, read 10,000 random entities through GET /entitiesV2,
 * then restart the server on the same store.
 *
 * Targets (2 cores, issue 33): ≤ 25 µs of server CPU (all threads) per aspect and ≤ 5× the
 * floor (parsing the same bodies and appending them durably, measured in this process first);
 * peak RSS ≤ 1 GiB at a million aspects including the clean stop's checkpoint. Also printed: the
 * last 100,000 against the first, read p50, restart.
 */
import {Pool} from 'undici'
import {encodeUrnPath} from '../src/model/urn.js'
import {loadavg} from 'node:os'
import {cpuMs, datasetAspects, duBytes, machine, mib, parseAppendFloor, peakRss, percentile, proposal, rmDir, rng, startLiteChild, targetLine, tempDir, wordSource} from './lib.js'

export interface StoreBenchOptions {
  entities?: number
  clients?: number
  batch?: number
  reads?: number
}

export async function main(opts: StoreBenchOptions = {}): Promise<Record<string, number>> {
  const entities = opts.entities ?? Number(process.env.BENCH_ENTITIES ?? 200_000)
  const clients = opts.clients ?? 8
  const batch = opts.batch ?? 1000
  const reads = opts.reads ?? 10_000
  const totalAspects = entities * 5
  const dir = tempDir('mdcli-bench-store-')
  console.log(`store bench on ${machine()}: ${totalAspects.toLocaleString()} aspects over ${entities.toLocaleString()} entities, ${clients} clients, batches of ${batch}`)
  // Bodies are made before the clock starts, so the load generator's JSON work does not
  // compete with the server for the machine's two cores.
  const word = wordSource(rng(1))
  const r = rng(2)
  const urns: string[] = []
  const bodies: Array<{body: Buffer; n: number; from: number; to: number}> = []
  for (let e = 0; e < entities; ) {
    const from = e
    const props: unknown[] = []
    while (props.length < batch && e < entities) {
      const as = datasetAspects(e++, word, r)
      urns.push(as[0]!.urn)
      for (const a of as) props.push(proposal(a, 'bench-store'))
    }
    bodies.push({body: Buffer.from(JSON.stringify({proposals: props})), n: props.length, from, to: e})
  }
  // The floor first, on the same bodies, while nothing else of this bench runs.
  const floor = parseAppendFloor(bodies)
  console.log(`floor: parse + durable append of the same bodies ${floor.cpuUsPerAspect.toFixed(2)} µs of CPU per aspect (load average ${loadavg()[0]!.toFixed(1)})`)
  const lite = await startLiteChild(dir, [], process.env.BENCH_PROF ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [])
  const pool = new Pool(lite.url, {connections: clients, pipelining: 1})
  let next = 0
  let written = 0
  // Reads pick among the entities whose batch was answered (the deadline may stop a run early).
  const readable: string[] = []
  const cpuBefore = cpuMs(lite.proc.pid!)
  const marks: Array<{aspects: number; t: number}> = [{aspects: 0, t: performance.now()}]
  const deadline = Date.now() + Number(process.env.BENCH_MINUTES ?? 15) * 60_000

  const worker = async () => {
    while (next < bodies.length && Date.now() < deadline) {
      const {body, n, from, to} = bodies[next++]!
      const res = await pool.request({path: '/aspects?action=ingestProposalBatch', method: 'POST', headers: {'content-type': 'application/json', ...lite.auth}, body})
      const out = (await res.body.json()) as {value?: {failed: number}; message?: string}
      if (res.statusCode !== 200 || out.value!.failed > 0) throw new Error(`batch failed: ${res.statusCode} ${JSON.stringify(out).slice(0, 300)}`)
      written += n
      for (let i = from; i < to; i++) readable.push(urns[i]!)
      marks.push({aspects: written, t: performance.now()})
    }
  }
  await Promise.all(Array.from({length: clients}, worker))
  const cpuUsPerAspect = ((cpuMs(lite.proc.pid!) - cpuBefore) * 1000) / written
  marks.sort((a, b) => a.aspects - b.aspects)
  const rateBetween = (from: number, to: number) => {
    const a = marks.find((m) => m.aspects >= from)!
    const b = marks.find((m) => m.aspects >= to) ?? marks[marks.length - 1]!
    return ((b.aspects - a.aspects) / (b.t - a.t)) * 1000
  }
  const totalS = (marks[marks.length - 1]!.t - marks[0]!.t) / 1000
  const overall = written / totalS
  const first = rateBetween(0, Math.min(100_000, written))
  const last = rateBetween(Math.max(0, written - 100_000), written)
  console.log(`wrote ${written.toLocaleString()} aspects in ${totalS.toFixed(1)} s: ${overall.toFixed(0)} aspects/s overall, first 100k ${first.toFixed(0)}/s, last 100k ${last.toFixed(0)}/s; server CPU ${cpuUsPerAspect.toFixed(1)} µs per aspect`)

  const lat: number[] = []
  const rr = rng(3)
  for (let i = 0; i < reads; i++) {
    const urn = readable[Math.floor(rr() * readable.length)]!
    const t = performance.now()
    const res = await pool.request({path: `/entitiesV2/${encodeUrnPath(urn)}`, method: 'GET', headers: lite.auth})
    await res.body.text()
    lat.push(performance.now() - t)
    if (res.statusCode !== 200) throw new Error(`read ${urn}: ${res.statusCode}`)
  }
  lat.sort((a, b) => a - b)
  const p50 = percentile(lat, 50)
  const p99 = percentile(lat, 99)
  console.log(`read ${reads.toLocaleString()} random entities: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`)
  let rss = peakRss(lite.proc.pid!)
  await pool.close()
  // The clean stop checkpoints (serializes the shards written since the last one): its peak counts.
  const sampler = setInterval(() => {
    try {
      rss = Math.max(rss, peakRss(lite.proc.pid!))
    } catch {
      /* exited */
    }
  }, 20)
  const stopMs = await lite.stop()
  clearInterval(sampler)
  const disk = duBytes(dir)
  console.log(`server peak RSS ${mib(rss)} (including the stop); clean stop (with checkpoint) ${(stopMs / 1000).toFixed(1)} s; store on disk ${mib(disk)}`)

  const again = await startLiteChild(dir)
  const restartMs = again.startMs
  // A read proves the data is back, not just the port.
  const check = await fetch(`${again.url}/entitiesV2/${encodeUrnPath(readable[readable.length - 1]!)}`, {headers: lite.auth})
  if (check.status !== 200) throw new Error('restart lost data')
  const q = await fetch(`${again.url}/api/graphql`, {
    method: 'POST',
    headers: {'content-type': 'application/json', ...lite.auth},
    body: JSON.stringify({query: '{ search(input: {type: DATASET, query: "*", start: 0, count: 1}) { total } }'}),
  })
  const searched = ((await q.json()) as {data?: {search?: {total?: number}}}).data?.search?.total
  console.log(`after the restart, search answers: ${searched?.toLocaleString()} datasets`)
  // Incoming references that are not lineage (here a user's owned datasets): the first question
  // builds the embedded store's index of mentions (one pass over the values), the next ones read it.
  const owned = async (user: number) => {
    const t = performance.now()
    const r = await fetch(`${again.url}/relationships?direction=INCOMING&types=OwnedBy&count=10&urn=${encodeURIComponent(`urn:li:corpuser:user${user}`)}`, {headers: lite.auth})
    const body = (await r.json()) as {total?: number}
    if (r.status !== 200) throw new Error(`relationships answered ${r.status}`)
    return {ms: performance.now() - t, total: body.total ?? 0}
  }
  const firstOwned = await owned(7)
  const later = [await owned(8), await owned(9), await owned(10)]
  console.log(`incoming OwnedBy of one user (${firstOwned.total} datasets): first question ${firstOwned.ms.toFixed(0)} ms (builds the index of mentions), then ${later.map((x) => x.ms.toFixed(1)).join(', ')} ms`)
  await again.stop()
  console.log(`restart to first answer: ${(restartMs / 1000).toFixed(1)} s`)
  // BENCH_KEEP=1 leaves the store for a look at its start (lite --cpu-prof on it); it is named here.
  if (process.env.BENCH_KEEP === '1') console.log(`kept store ${dir}`)
  else rmDir(dir)
  const ratio = cpuUsPerAspect / floor.cpuUsPerAspect
  console.log(targetLine('ingest CPU per aspect, all threads', `${cpuUsPerAspect.toFixed(1)} µs`, '≤ 25 µs', cpuUsPerAspect <= 25, `${floor.cpuUsPerAspect.toFixed(2)} µs`))
  console.log(targetLine('ingest CPU against the parse + durable append floor', `${ratio.toFixed(1)}×`, '≤ 5×', ratio <= 5, `${floor.cpuUsPerAspect.toFixed(2)} µs`))
  console.log(targetLine(`peak RSS at ${written.toLocaleString()} aspects through the clean stop`, mib(rss), '≤ 1024 MiB at 1,000,000', rss <= 2 ** 30))
  console.log(`load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`)
  const figures = {floorCpuUsPerAspect: +floor.cpuUsPerAspect.toFixed(2), cpuOverFloor: +ratio.toFixed(2), loadAverage: +loadavg()[0]!.toFixed(1), aspects: written, aspectsPerSec: Math.round(overall), first100kPerSec: Math.round(first), last100kPerSec: Math.round(last), cpuUsPerAspect: +cpuUsPerAspect.toFixed(1), readP50Ms: +p50.toFixed(3), readP99Ms: +p99.toFixed(3), peakRssMiB: Math.round(rss / 2 ** 20), diskMiB: Math.round(disk / 2 ** 20), stopMs: Math.round(stopMs), restartMs: Math.round(restartMs)}
  console.log(JSON.stringify({bench: 'store', ...figures}))
  return figures
}
