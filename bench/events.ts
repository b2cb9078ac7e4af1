/**
 * Events benchmark, on the same generated file (`DATASETS × 5` aspects):
 * 1. file → datahub-rest sink → lite: aspects/s end to end.
 * 2. file → nats sink → JetStream → `lite --consume`: the publisher's aspects/s, end-to-end
 *    aspects/s (until the consumer has nothing pending) and the consumer's peak lag (messages
 *    stored but not yet written and acknowledged).
 * 3. file → datahub-rest sink → lite with 50 `GET /events` subscribers: aspects/s, and the change
 *    events each subscriber received.
 * 4. kill -9 of the consuming lite after 3% of 100,000 queued proposals (METADATA_BENCH_KILL_N):
 *    the seconds until a restarted server has written every one, checking that none is missing and
 *    none written twice (the test suite does the same kill at 10,000).
 * Needs NATS with JetStream on 127.0.0.1:4222 (METADATA_BENCH_NATS to change); skips step 2 otherwise.
 *
 *   npm run build && node dist/bench/events.js [datasets=4000]   (20,000 aspects; 20000 → 100,000)
 */
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {jetstreamManager} from '@nats-io/jetstream'
import {connect} from '@nats-io/transport-node'
import {cleanup, startLite, tempDir, type LiteProcess} from '../test/helpers/lite.js'
import {portAnswers} from '../test/helpers/requires.js'
import {BIN, machine} from './lib.js'
import {datasetUrn, mcpRecord} from '../test/ingest/helpers.js'
import {generateFile} from './ingest.js'

const SUBSCRIBERS = 50

function ingest(recipe: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, [BIN, 'ingest', '-c', recipe, '--json'], {env, stdio: ['ignore', 'ignore', 'pipe']})
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    child.once('exit', (code) => (code === 0 ? resolve((performance.now() - t0) / 1000) : reject(new Error(`mdcli ingest exited ${code}: ${err.slice(-2000)}`))))
  })
}

const restRecipe = (dir: string, file: string, lite: LiteProcess, name: string): string => {
  const path = join(dir, `${name}.yml`)
  writeFileSync(path, `source:\n  type: file\n  config:\n    path: ${file}\nsink:\n  type: datahub-rest\n  config:\n    server: ${lite.url}\nrun_id: bench-${name}\n`)
  return path
}

/** Opens `n` SSE subscriptions; each counts the change events it receives. */
async function subscribe(lite: LiteProcess, n: number): Promise<{counts: number[]; close(): void}> {
  const counts = new Array<number>(n).fill(0)
  const ctl = new AbortController()
  await Promise.all(
    counts.map(async (_, i) => {
      const res = await fetch(`${lite.url}/events`, {headers: {authorization: `Bearer ${lite.token}`}, signal: ctl.signal})
      if (!res.ok || !res.body) throw new Error(`GET /events answered ${res.status}`)
      const reader = res.body.getReader()
      const dec = new TextDecoder()
      let tail = ''
      void (async () => {
        try {
          for (;;) {
            const {value, done} = await reader.read()
            if (done) return
            const text = tail + dec.decode(value, {stream: true})
            const parts = text.split('event: change\n')
            counts[i]! += parts.length - 1
            tail = parts.at(-1)!.slice(-16)
          }
        } catch {
          /* aborted at the end */
        }
      })()
    }),
  )
  return {counts, close: () => ctl.abort()}
}

/** Queues `n` proposals, kills the consuming server once 3% are written, and times the restart's catch-up. */
async function killRecovery(dir: string, natsUrl: string, n: number): Promise<Record<string, unknown>> {
  const u = new URL(natsUrl)
  const stream = `MDCLI_BENCH_KILL_${process.pid}_${Date.now()}`
  const subject = `${stream.toLowerCase()}.proposals`
  const file = join(dir, 'kill.json')
  const records = Array.from({length: n}, (_, i) => ({
    ...mcpRecord(datasetUrn(`kill.t${i}`), 'datasetProperties', {name: `t${i}`, description: `table ${i}`, customProperties: {}, tags: []}),
    systemMetadata: {lastObserved: 1_700_000_000_000, runId: 'kill-run'},
  }))
  writeFileSync(file, JSON.stringify(records))
  const recipe = join(dir, 'kill.yml')
  writeFileSync(recipe, `source:\n  type: file\n  config:\n    path: ${file}\nsink:\n  type: nats\n  config:\n    server: ${natsUrl}\n    stream: ${stream}\n    subject: ${subject}\nrun_id: kill-run\n`)
  const nc = await connect({servers: u.host})
  const jsm = await jetstreamManager(nc)
  const args = ['--consume', `${natsUrl}/${stream}`, '--consume-subject', subject]
  const aspect = async (lite: LiteProcess, i: number, version?: number) =>
    (await fetch(`${lite.url}/aspects/${encodeURIComponent(datasetUrn(`kill.t${i}`))}?aspect=datasetProperties${version === undefined ? '' : `&version=${version}`}`, {headers: {authorization: `Bearer ${lite.token}`}})).status
  let again: LiteProcess | undefined
  try {
    const publishSeconds = await ingest(recipe, {...process.env, METADATA_TELEMETRY_ENABLED: 'false'})
    const first = await startLite({args})
    const at = Math.floor(n * 0.03)
    while ((await aspect(first, at)) !== 200) await new Promise((r) => setTimeout(r, 50))
    await first.kill()
    const ackedAtKill = (await jsm.consumers.info(stream, 'mdcli-lite')).ack_floor.stream_seq
    const t0 = performance.now()
    again = await startLite({storeDir: first.storeDir, home: first.home, args})
    for (;;) {
      const r = await fetch(`${again.url}/api/graphql`, {method: 'POST', headers: {'content-type': 'application/json', authorization: `Bearer ${again.token}`}, body: JSON.stringify({query: 'query { search(input: {type: DATASET, query: "*", start: 0, count: 1}) { total } }'})})
      if (((await r.json()) as any).data.search.total === n) break
      await new Promise((r) => setTimeout(r, 200))
    }
    const recoverySeconds = (performance.now() - t0) / 1000
    const twice = []
    for (const i of [0, at - 1, at, Math.floor(n / 2), n - 1]) if ((await aspect(again, i, 1)) !== 404) twice.push(i)
    if (twice.length) throw new Error(`written twice: ${twice.join(', ')}`)
    return {proposals: n, publishSeconds: Math.round(publishSeconds * 100) / 100, ackedAtKill, recoverySeconds: Math.round(recoverySeconds * 100) / 100}
  } finally {
    await again?.stop()
    if (again) cleanup(again.storeDir, again.home)
    await jsm.streams.delete(stream).catch(() => undefined)
    await nc.close()
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<Record<string, unknown>> {
  const datasets = Number(argv.find((a) => /^\d+$/.test(a)) ?? 4000)
  const natsUrl = process.env.METADATA_BENCH_NATS ?? 'nats://127.0.0.1:4222'
  const dir = tempDir('mdcli-bench-events-')
  const file = join(dir, 'events.json')
  const aspects = await generateFile(file, datasets)
  const out: Record<string, unknown> = {bench: 'events', machine: machine(), aspects}
  try {
    // 1. REST sink.
    {
      const lite = await startLite({args: ['--checkpoint-mb', '256']})
      try {
        const s = await ingest(restRecipe(dir, file, lite, 'rest'), lite.env())
        out.rest = {seconds: Math.round(s * 100) / 100, aspectsPerSec: Math.round(aspects / s)}
      } finally {
        await lite.stop()
        cleanup(lite.storeDir, lite.home)
      }
    }
    process.stderr.write(`rest: ${JSON.stringify(out.rest)}\n`)

    // 2. nats sink → JetStream → consuming lite.
    const u = new URL(natsUrl)
    if (await portAnswers(u.hostname, Number(u.port || 4222))) {
      const stream = `MDCLI_BENCH_${process.pid}_${Date.now()}`
      const subject = `${stream.toLowerCase()}.proposals`
      const nc = await connect({servers: u.host})
      const jsm = await jetstreamManager(nc)
      const lite = await startLite({args: ['--checkpoint-mb', '256', '--consume', `${natsUrl}/${stream}`, '--consume-subject', subject]})
      try {
        const recipe = join(dir, 'nats.yml')
        writeFileSync(recipe, `source:\n  type: file\n  config:\n    path: ${file}\nsink:\n  type: nats\n  config:\n    server: ${natsUrl}\n    stream: ${stream}\n    subject: ${subject}\nrun_id: bench-nats\n`)
        const t0 = performance.now()
        let peakLag = 0
        let done = false
        const lagOf = async (): Promise<number> => {
          const info = await jsm.consumers.info(stream, 'mdcli-lite').catch(() => undefined)
          return info ? info.num_pending + info.num_ack_pending : -1
        }
        const sampler = (async () => {
          while (!done) {
            const lag = await lagOf()
            if (lag > peakLag) peakLag = lag
            await new Promise((r) => setTimeout(r, 100))
          }
        })()
        const publishSeconds = await ingest(recipe, lite.env())
        // Drained: everything stored was written and acknowledged.
        for (;;) {
          const info = await jsm.streams.info(stream)
          const lag = await lagOf()
          if (lag === 0 && info.state.messages >= aspects) break
          await new Promise((r) => setTimeout(r, 50))
        }
        const endToEnd = (performance.now() - t0) / 1000
        done = true
        await sampler
        out.nats = {
          publishSeconds: Math.round(publishSeconds * 100) / 100,
          publishAspectsPerSec: Math.round(aspects / publishSeconds),
          endToEndSeconds: Math.round(endToEnd * 100) / 100,
          endToEndAspectsPerSec: Math.round(aspects / endToEnd),
          consumerPeakLag: peakLag,
        }
      } finally {
        await lite.stop()
        cleanup(lite.storeDir, lite.home)
        await jsm.streams.delete(stream).catch(() => undefined)
        await nc.close()
      }
      process.stderr.write(`nats: ${JSON.stringify(out.nats)}\n`)
    } else {
      out.nats = `skipped: no NATS at ${natsUrl}`
    }

    // 3. REST sink with 50 SSE subscribers.
    {
      const lite = await startLite({args: ['--checkpoint-mb', '256']})
      const subs = await subscribe(lite, SUBSCRIBERS)
      try {
        const s = await ingest(restRecipe(dir, file, lite, 'sse'), lite.env())
        // Let the last events reach every subscriber.
        for (let i = 0; i < 100 && Math.min(...subs.counts) < aspects; i++) await new Promise((r) => setTimeout(r, 100))
        out.sseFanOut = {
          subscribers: SUBSCRIBERS,
          seconds: Math.round(s * 100) / 100,
          aspectsPerSec: Math.round(aspects / s),
          eventsPerSubscriberMin: Math.min(...subs.counts),
          eventsPerSubscriberMax: Math.max(...subs.counts),
        }
      } finally {
        subs.close()
        await lite.stop()
        cleanup(lite.storeDir, lite.home)
      }
    }
    // 4. kill -9 of the consumer mid-stream, and the restart's recovery.
    if (typeof out.nats === 'object') {
      out.natsKill = await killRecovery(dir, natsUrl, Number(process.env.METADATA_BENCH_KILL_N ?? 100_000))
      process.stderr.write(`nats kill -9: ${JSON.stringify(out.natsKill)}\n`)
    }

    console.log(JSON.stringify(out))
    return out
  } finally {
    cleanup(dir)
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e) => {
    console.error(e)
    process.exitCode = 1
  })
}
