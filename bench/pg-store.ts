/**
 * PostgreSQL store benchmark (127.0.0.1 only; its own database, dropped after): batch ingest
 * through REST with 8 clients, entity reads at concurrency 32 and p50 at concurrency 1, the GraphQL
 * entity query at c=32 on one replica and on two replicas of the same database together, search
 * p50 through GraphQL, and disk per aspect (pg_database_size / aspects).
 *
 * Bounded: BENCH_PG_ASPECTS aspects (default 200,000, 5 per entity) and a 10-minute cap on the
 * ingest. MDCLI_BENCH_POSTGRES_URL overrides the admin URL (must point at 127.0.0.1). The ingest's CPU
 * per aspect is printed for the server and for PostgreSQL's processes (read from /proc).
 */
import pg from 'pg'
import {Pool} from 'undici'
import {encodeUrnPath} from '../src/model/urn.js'
import {cpuMs, datasetAspects, machine, mib, percentile, postgresCpuMs, proposal, rng, startLiteChild, wordSource} from './lib.js'

export async function main(): Promise<Record<string, number>> {
  const admin = process.env.MDCLI_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  if (new URL(admin).hostname !== '127.0.0.1') throw new Error('the pg-store bench runs against 127.0.0.1 only')
  const aspects = Number(process.env.BENCH_PG_ASPECTS ?? 200_000)
  const entities = Math.ceil(aspects / 5)
  const clients = 8
  const batch = 1000
  const name = `mdcli_bench_${process.pid}_${Date.now().toString(36)}`
  const a = new pg.Client({connectionString: admin})
  await a.connect()
  await a.query(`CREATE DATABASE ${name}`)
  const u = new URL(admin)
  u.pathname = `/${name}`
  const url = u.toString()
  console.log(`pg-store bench on ${machine()}: ${(entities * 5).toLocaleString()} aspects over ${entities.toLocaleString()} entities, ${clients} clients, batches of ${batch}`)
  const word = wordSource(rng(1))
  const r = rng(2)
  const urns: string[] = []
  const bodies: Array<{body: Buffer; n: number}> = []
  for (let e = 0; e < entities; ) {
    const props: unknown[] = []
    while (props.length < batch && e < entities) {
      const as = datasetAspects(e++, word, r)
      urns.push(as[0]!.urn)
      for (const x of as) props.push(proposal(x, 'bench-pg'))
    }
    bodies.push({body: Buffer.from(JSON.stringify({proposals: props})), n: props.length})
  }
  const lite = await startLiteChild(url, [], process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [])
  try {
    const pool = new Pool(lite.url, {connections: 32, pipelining: 1})
    let next = 0
    let written = 0
    const deadline = Date.now() + 10 * 60_000
    const pid = lite.proc.pid!
    const cpu0 = cpuMs(pid)
    const pgCpu0 = postgresCpuMs()
    const t0 = performance.now()
    await Promise.all(
      Array.from({length: clients}, async () => {
        while (next < bodies.length && Date.now() < deadline) {
          const {body, n} = bodies[next++]!
          const res = await pool.request({path: '/aspects?action=ingestProposalBatch', method: 'POST', headers: {'content-type': 'application/json', ...lite.auth}, body})
          const out = (await res.body.json()) as {value?: {failed: number}}
          if (res.statusCode !== 200 || out.value!.failed > 0) throw new Error(`batch failed: ${res.statusCode}`)
          written += n
        }
      }),
    )
    const ingestS = (performance.now() - t0) / 1000
    const perSec = written / ingestS
    const serverUs = ((cpuMs(pid) - cpu0) * 1000) / written
    const postgresUs = ((postgresCpuMs() - pgCpu0) * 1000) / written
    console.log(`ingest: ${written.toLocaleString()} aspects in ${ingestS.toFixed(1)} s = ${perSec.toFixed(0)} aspects/s; CPU per aspect ${serverUs.toFixed(1)} µs in the server, ${postgresUs.toFixed(1)} µs in PostgreSQL`)
    const done = urns.slice(0, Math.floor(written / 5))
    const read = async (urn: string) => {
      const t = performance.now()
      const res = await pool.request({path: `/entitiesV2/${encodeUrnPath(urn)}`, method: 'GET', headers: lite.auth})
      await res.body.text()
      if (res.statusCode !== 200) throw new Error(`read ${res.statusCode}`)
      return performance.now() - t
    }
    const rr = rng(3)
    const pick = () => done[Math.floor(rr() * done.length)]!
    // c=32: a fixed number of reads, 32 in flight.
    const reads32 = 5000
    let issued = 0
    const t1 = performance.now()
    await Promise.all(Array.from({length: 32}, async () => {
      while (issued++ < reads32) await read(pick())
    }))
    const qps32 = reads32 / ((performance.now() - t1) / 1000)
    // The GraphQL entity query at c=32, as the issue counts it.
    // One document with the urn as a variable, as DataHub's pages send it (a document per urn would
    // measure GraphQL's parse, validation and compilation instead).
    const gqlQuery = 'query ($urn: String!) { dataset(urn: $urn) { urn name properties { description } ownership { owners { owner { ... on CorpUser { urn } } } } } }'
    const gqlBody = (urn: string) => JSON.stringify({query: gqlQuery, variables: {urn}})
    const gqlRead = async (p: Pool, auth: Record<string, string>, urn: string) => {
      const res = await p.request({path: '/api/graphql', method: 'POST', headers: {'content-type': 'application/json', ...auth}, body: gqlBody(urn)})
      await res.body.text()
      if (res.statusCode !== 200) throw new Error(`graphql read ${res.statusCode}`)
    }
    const burst = async (targets: Array<{p: Pool; auth: Record<string, string>}>, perTarget: number) => {
      const t = performance.now()
      await Promise.all(
        targets.map(async ({p, auth}) => {
          let n = 0
          await Promise.all(Array.from({length: 32}, async () => {
            while (n++ < perTarget) await gqlRead(p, auth, pick())
          }))
        }),
      )
      return (targets.length * perTarget) / ((performance.now() - t) / 1000)
    }
    const gql32 = await burst([{p: pool, auth: lite.auth}], 5000)
    // A second replica on the same database (tokens live in the database, so the first one's
    // works there): both at c=32 together, against the one alone.
    const second = await startLiteChild(url)
    const pool2 = new Pool(second.url, {connections: 32, pipelining: 1})
    let both = 0
    try {
      both = await burst([{p: pool, auth: lite.auth}, {p: pool2, auth: lite.auth}], 5000)
    } finally {
      await pool2.close()
      await second.stop()
    }
    console.log(`GraphQL dataset(urn): ${gql32.toFixed(0)}/s at c=32 on one replica; two replicas together ${both.toFixed(0)}/s (c=32 each)`)
    const lat: number[] = []
    for (let i = 0; i < 1000; i++) lat.push(await read(pick()))
    lat.sort((x, y) => x - y)
    const p50 = percentile(lat, 50)
    console.log(`entity reads: ${qps32.toFixed(0)}/s at c=32; p50 ${p50.toFixed(2)} ms at c=1`)
    const sl: number[] = []
    for (let i = 0; i < 200; i++) {
      const q = word()
      const t = performance.now()
      const res = await pool.request({
        path: '/api/graphql',
        method: 'POST',
        headers: {'content-type': 'application/json', ...lite.auth},
        body: JSON.stringify({query: `{ search(input: {type: DATASET, query: ${JSON.stringify(q)}, start: 0, count: 10}) { total } }`}),
      })
      await res.body.text()
      sl.push(performance.now() - t)
    }
    sl.sort((x, y) => x - y)
    const searchP50 = percentile(sl, 50)
    await pool.close()
    const size = await a.query<{d: string}>('SELECT pg_database_size($1) AS d', [name])
    const disk = Number(size.rows[0]!.d)
    const perAspect = disk / written
    console.log(`search p50 ${searchP50.toFixed(2)} ms; database ${mib(disk)} = ${perAspect.toFixed(0)} bytes per aspect`)
    const figures = {aspects: written, aspectsPerSec: Math.round(perSec), serverCpuUsPerAspect: +serverUs.toFixed(1), postgresCpuUsPerAspect: +postgresUs.toFixed(1), entityReadsPerSecC32: Math.round(qps32), entityReadP50Ms: +p50.toFixed(2), gqlEntityPerSecC32: Math.round(gql32), gqlEntityTwoReplicasPerSec: Math.round(both), searchP50Ms: +searchP50.toFixed(2), diskBytesPerAspect: Math.round(perAspect)}
    console.log(JSON.stringify({bench: 'pg-store', ...figures}))
    return figures
  } finally {
    await lite.stop().catch(() => undefined)
    // BENCH_PG_KEEP=1 leaves the database for a look at its plans (EXPLAIN); it is named here.
    if (process.env.BENCH_PG_KEEP === '1') console.log(`kept database ${name}`)
    else await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined)
    await a.end()
  }
}
