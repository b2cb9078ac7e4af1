/**
 * `mdcli lite --consume nats://host:port[/stream]`: a durable JetStream consumer that writes the
 * proposals the `nats` sink published, through the catalog's one write path.
 *
 * Glossary:
 * - durable consumer: JetStream remembers what was acknowledged under the consumer's name, so a
 *   restarted server resumes where it stopped, and replicas sharing the name share the work.
 * - dead letter: a proposal the catalog refuses (invalid, unauthorised) is published with the
 *   reason to `<subject>.dead` and acknowledged, so it never blocks the stream.
 *
 * A message is acknowledged only after `Catalog.propose` returned, i.e. once the store has it;
 * a crash before that redelivers it, and the catalog writes the same value as no new version,
 * so a replay is idempotent in effect.
 */
import {AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg} from '@nats-io/jetstream'
import type {NatsConnection} from '@nats-io/transport-node'
import {type Actor, type Catalog, SYSTEM_ACTOR} from '../catalog/catalog.js'
import type {ProposalInput} from '../catalog/proposal.js'
import {connectNats, ensureStream} from './jetstream.js'
import {parseQueueUrl, redact} from './queue.js'
import type {Health} from '../server/health.js'
import type {Metrics} from '../server/metrics.js'

export const DEFAULT_CONSUMER = 'mdcli-lite'
/** How soon JetStream redelivers what a crashed server took but never acknowledged. */
const ACK_WAIT_NS = 10e9
export const DEFAULT_PROPOSAL_STREAM = 'MDCLI_PROPOSALS'
export const DEFAULT_PROPOSAL_SUBJECT = 'mdcli.proposals'
/** Header naming the actor a proposal is written as (default: the system actor). */
export const ACTOR_HEADER = 'Mdcli-Actor'

export interface ConsumerOptions {
  url: string
  subject?: string
  durable?: string
  batch?: number
  log: {info(m: string): void; warn(m: string): void}
  /** The server's /metrics registry: report lag and dead letters here (see src/server/metrics.ts). */
  metrics?: Metrics
  /** The server's /health: add a `consumer` check saying when it is not consuming (see src/server/health.ts). */
  health?: Health
}

export interface ConsumerStats {
  applied: number
  unchanged: number
  deadLettered: number
  redelivered: number
}

export interface RunningConsumer {
  stats: ConsumerStats
  close(): Promise<void>
}

const decoder = new TextDecoder()
const encoder = new TextEncoder()
const CORPUSER = /^urn:li:corpuser:[^\s]+$/

function actorOf(m: JsMsg): Actor {
  const a = m.headers?.get(ACTOR_HEADER)
  return a && CORPUSER.test(a) ? {urn: a} : SYSTEM_ACTOR
}

export async function startConsumer(catalog: Catalog, opts: ConsumerOptions): Promise<RunningConsumer> {
  const {servers, stream} = parseQueueUrl(opts.url, DEFAULT_PROPOSAL_STREAM)
  const subject = opts.subject ?? DEFAULT_PROPOSAL_SUBJECT
  const dead = `${subject}.dead`
  const durable = opts.durable ?? DEFAULT_CONSUMER
  const nc: NatsConnection = await connectNats(servers, 'mdcli-lite-consumer')
  const jsm = await jetstreamManager(nc)
  await ensureStream(jsm, stream, [subject, dead])
  try {
    await jsm.consumers.info(stream, durable)
  } catch {
    await jsm.consumers.add(stream, {durable_name: durable, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, filter_subject: subject, ack_wait: ACK_WAIT_NS, max_ack_pending: 20_000})
  }
  const js = jetstream(nc)
  const consumer = await js.consumers.get(stream, durable)
  const stats: ConsumerStats = {applied: 0, unchanged: 0, deadLettered: 0, redelivered: 0}
  const batchSize = opts.batch ?? 500
  let stopping = false
  opts.log.info(`Consuming proposals from ${redact(opts.url)} (stream ${stream}, subject ${subject}, consumer ${durable})`)

  const deadLetter = async (m: JsMsg, reason: {code: string; message: string}): Promise<void> => {
    const body = {reason, subject: m.subject, seq: m.seq, record: decoder.decode(m.data)}
    await js.publish(dead, encoder.encode(JSON.stringify(body)), {msgID: `dead-${stream}-${m.seq}`})
    stats.deadLettered++
    m.ack()
  }

  const apply = async (msgs: JsMsg[]): Promise<void> => {
    // One propose per actor run of messages, in stream order.
    let i = 0
    while (i < msgs.length) {
      const actor = actorOf(msgs[i]!)
      const group: Array<{m: JsMsg; p: ProposalInput}> = []
      for (; i < msgs.length && actorOf(msgs[i]!).urn === actor.urn; i++) {
        const m = msgs[i]!
        if (m.redelivered) stats.redelivered++
        let p: ProposalInput
        try {
          p = JSON.parse(decoder.decode(m.data)) as ProposalInput
        } catch (error) {
          await deadLetter(m, {code: 'E_BAD_REQUEST', message: `not JSON: ${(error as Error).message}`})
          continue
        }
        group.push({m, p})
      }
      if (group.length === 0) continue
      let outcomes
      try {
        outcomes = await catalog.propose(actor, group.map((g) => g.p), {atomic: false})
      } catch (error) {
        // The store could not take the batch (full disk, closing): redeliver later, keep order.
        opts.log.warn(`Consumer: batch not applied, will be redelivered: ${(error as Error).message}`)
        for (const g of group) g.m.nak(2000)
        continue
      }
      for (const o of outcomes) {
        const g = group[o.index]!
        if (o.ok) {
          if (o.changed === false) stats.unchanged++
          else stats.applied++
          g.m.ack()
        } else if (o.error && o.error.status >= 400 && o.error.status < 500) await deadLetter(g.m, {code: o.error.code, message: o.error.message})
        else g.m.nak(2000)
      }
    }
  }

  const loop = (async () => {
    while (!stopping) {
      try {
        const iter = await consumer.fetch({max_messages: batchSize, expires: 1000})
        const msgs: JsMsg[] = []
        for await (const m of iter) msgs.push(m)
        if (msgs.length > 0) await apply(msgs)
      } catch (error) {
        if (stopping) break
        opts.log.warn(`Consumer: ${(error as Error).message}; retrying`)
        await new Promise((r) => setTimeout(r, 1000))
      }
    }
  })()

  return {
    stats,
    async close() {
      stopping = true
      await loop
      await nc.drain().catch(() => nc.close())
    },
  }
}
