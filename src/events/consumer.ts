/**
 * `mdcli lite --consume nats://host:port[/stream]`: a durable JetStream consumer that writes the
 * proposals in a stream, whatever subjects it holds, through the catalog's one write path.
 *
 * Glossary:
 * - durable consumer: JetStream remembers what was acknowledged under the consumer's name, so a
 *   restarted server resumes where it stopped, and replicas sharing the name share the work.
 * - dead letter: a proposal the catalog refuses (invalid, unauthorised) is published with the
 *   reason to the dead-letter subject (`<subject>.dead`) and acknowledged, so it never blocks the
 *   stream. Messages on subjects ending in `.dead` are never applied.
 * - position: the message's stream sequence, recorded with the value it wrote
 *   (catalog/position.ts). The stream's order is the order of record.
 *
 * Order in effect: a message is acknowledged only after `Catalog.propose` returned, i.e. once
 * the store has it, so a crash redelivers it; one batch is in flight at a time for all replicas,
 * so a redelivery normally comes before anything newer; and where it does not (a nak, an ack
 * lost with the connection, a batch slower than the ack wait), the position check skips a
 * message older than what its aspect holds. A replay writes nothing.
 */
import {AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type Consumer, type JetStreamManager, type JsMsg, type StreamInfo} from '@nats-io/jetstream'
import type {NatsConnection} from '@nats-io/transport-node'
import {type Actor, type Catalog, SYSTEM_ACTOR} from '../catalog/catalog.js'
import {withPosition} from '../catalog/position.js'
import type {ProposalInput} from '../model/wire.js'
import {MdcliError} from '../errors.js'
import {connectNats, DEDUPE_WINDOW_NS, subjectMatches} from './jetstream.js'
import {parseQueueUrl, redact} from './queue.js'

export const DEFAULT_CONSUMER = 'mdcli-lite'
/** How soon JetStream redelivers what a crashed server took but never acknowledged. */
const ACK_WAIT_NS = 10e9
export const DEFAULT_PROPOSAL_STREAM = 'MDCLI_PROPOSALS'
export const DEFAULT_PROPOSAL_SUBJECT = 'mdcli.proposals'
/** Header naming the actor a proposal is written as (default: the system actor). */
export const ACTOR_HEADER = 'Mdcli-Actor'
/** Waits between reconnects and between failed fetches: doubling from the first to the last. */
const BACKOFF_FIRST_MS = 250
const BACKOFF_LAST_MS = 5_000

export interface ConsumerOptions {
  url: string
  /**
   * The subject a stream this server creates holds (default mdcli.proposals for the default
   * stream, `<stream in lower case>.proposals` for another); added to an existing stream that
   * does not capture it. The consumer reads every subject of the stream either way.
   */
  subject?: string
  durable?: string
  batch?: number
  log: {info(m: string): void; warn(m: string): void}
  /** The server's /metrics registry: report lag and dead letters here (see src/server/metrics.ts). */
  metrics?: ConsumerMetrics
  /** The server's /health: add a `consumer` check saying when it is not consuming (see src/server/health.ts). */
  health?: ConsumerHealthChecks
}

export interface ConsumerStats {
  applied: number
  unchanged: number
  /** Older than what the aspect holds (a redelivery after newer messages): acknowledged, not written. */
  stale: number
  deadLettered: number
  redelivered: number
  /** Messages the stream held for this consumer beyond the last one received. */
  pending: number
}

/**
 * What the consumer needs of the server's /metrics registry and /health (src/server/metrics.ts,
 * src/server/health.ts): declared here, so events/ depends on nothing above it.
 */
export interface ConsumerMetrics {
  counter(name: string, help: string, opts: {collect: () => number}): unknown
  gauge(name: string, help: string, opts: {collect: () => number}): unknown
}
export interface ConsumerHealthChecks {
  add(name: string, check: () => {ok: boolean; reason?: string}): () => void
}

/** What `/health` says of the consumer. */
export interface ConsumerHealth {
  consuming: boolean
  /** Why not, when not consuming (one line, no credentials). */
  reason?: string
  /** When it stopped consuming (ms since the epoch). */
  since?: number
}

export interface RunningConsumer {
  stats: ConsumerStats
  health(): ConsumerHealth
  close(): Promise<void>
}

const decoder = new TextDecoder()
const encoder = new TextEncoder()
const CORPUSER = /^urn:li:corpuser:[^\s]+$/
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function actorOf(m: JsMsg): Actor {
  const a = m.headers?.get(ACTOR_HEADER)
  return a && CORPUSER.test(a) ? {urn: a} : SYSTEM_ACTOR
}

/** A refusal of the proposal itself (invalid, unauthorised): retrying cannot help. */
function refused(e: unknown): e is MdcliError {
  return e instanceof MdcliError && e.status >= 400 && e.status < 500
}

/** Dead letters are on subjects ending in `.dead`; the consumer never applies them. */
function isDeadLetter(subject: string): boolean {
  return subject.endsWith('.dead')
}

/** A stream's dead-letter subject: `<subject>.dead`, the subject named or the stream's first (up to its first wildcard). */
function deadSubjectOf(subjects: string[], named: string | undefined): string {
  if (named) return `${named}.dead`
  const literal: string[] = []
  for (const token of (subjects[0] ?? DEFAULT_PROPOSAL_SUBJECT).split('.')) {
    if (token === '*' || token === '>') break
    literal.push(token)
  }
  return `${literal.length > 0 ? literal.join('.') : 'mdcli'}.dead`
}

interface Setup {
  consumer: Consumer
  /** The stream's identity in positions (catalog/position.ts): name and creation time. */
  source: string
  dead: string
}

export async function startConsumer(catalog: Catalog, opts: ConsumerOptions): Promise<RunningConsumer> {
  const {servers, stream} = parseQueueUrl(opts.url, DEFAULT_PROPOSAL_STREAM)
  const durable = opts.durable ?? DEFAULT_CONSUMER
  const batchSize = opts.batch ?? 500
  let reconnects = 0
  const nc: NatsConnection = await connectNats(servers, 'mdcli-lite-consumer', {
    reconnectDelay: () => Math.min(BACKOFF_LAST_MS, BACKOFF_FIRST_MS * 2 ** reconnects++) * (0.75 + Math.random() / 2),
  })
  const stats: ConsumerStats = {applied: 0, unchanged: 0, stale: 0, deadLettered: 0, redelivered: 0, pending: 0}
  const where = redact(opts.url)
  let connected = true
  let problem: {reason: string; since: number} | undefined
  const failing = (reason: string): void => {
    if (problem?.reason === reason) return
    opts.log.warn(`Consumer: not consuming ${where}: ${reason}`)
    problem = {reason, since: problem?.since ?? Date.now()}
  }
  const working = (): void => {
    if (!problem || !connected) return
    opts.log.info(`Consumer: consuming ${where} again`)
    problem = undefined
  }
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') {
        connected = false
        failing(`NATS at ${redact(servers)} is unreachable; reconnecting`)
      } else if (s.type === 'reconnect') {
        connected = true
        reconnects = 0
      }
    }
  })().catch(() => undefined)

  /** Finds or creates the stream, its dead-letter subject and the durable consumer. */
  const prepare = async (): Promise<Setup> => {
    const jsm = await jetstreamManager(nc)
    let info: StreamInfo
    try {
      info = await jsm.streams.info(stream)
    } catch (error) {
      if (!/stream not found/i.test(String((error as Error).message))) throw error
      const subject = opts.subject ?? (stream === DEFAULT_PROPOSAL_STREAM ? DEFAULT_PROPOSAL_SUBJECT : `${stream.toLowerCase()}.proposals`)
      info = await jsm.streams.add({name: stream, subjects: [subject, `${subject}.dead`], duplicate_window: DEDUPE_WINDOW_NS})
    }
    const subjects = info.config.subjects ?? []
    const dead = deadSubjectOf(subjects, opts.subject)
    // Only what this consumer needs and the stream lacks: its dead letters, the subject asked for.
    const missing = [opts.subject, dead].filter((s): s is string => s !== undefined && !subjects.some((p) => subjectMatches(p, s)))
    if (missing.length > 0) info = await jsm.streams.update(stream, {...info.config, subjects: [...subjects, ...missing]})
    await ensureConsumer(jsm)
    return {consumer: await jetstream(nc).consumers.get(stream, durable), source: `${stream}@${info.created}`, dead}
  }

  /**
   * One batch in flight for all replicas together (max_ack_pending = the batch): what a killed
   * server held comes back before anything newer is handed out. Every subject of the stream.
   */
  const ensureConsumer = async (jsm: JetStreamManager): Promise<void> => {
    const want = {ack_wait: ACK_WAIT_NS, max_ack_pending: batchSize}
    let existing
    try {
      existing = await jsm.consumers.info(stream, durable)
    } catch {
      await jsm.consumers.add(stream, {durable_name: durable, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ...want})
      return
    }
    const c = existing.config
    try {
      if (c.ack_wait !== want.ack_wait || c.max_ack_pending !== want.max_ack_pending) await jsm.consumers.update(stream, durable, want)
      // Made by an older mdcli for one subject; servers before 2.10 cannot drop a filter.
      if (c.filter_subject) await jsm.consumers.update(stream, durable, {filter_subject: ''})
    } catch (error) {
      opts.log.warn(
        `Consumer: could not update consumer ${durable} of stream ${stream} (${(error as Error).message}); ${c.filter_subject ? `it reads only ${c.filter_subject}` : 'it keeps its settings'}. Delete it (nats consumer rm ${stream} ${durable}) to have it made again.`,
      )
    }
  }

  let setup = await prepare()
  let stopping = false
  const health = (): ConsumerHealth => (problem ? {consuming: false, reason: problem.reason, since: problem.since} : {consuming: true})
  const unregister = opts.health?.add('consumer', () => {
    const h = health()
    return h.consuming ? {ok: true} : {ok: false, reason: `not consuming ${where} since ${new Date(h.since!).toISOString()}: ${h.reason}`}
  })
  opts.metrics?.counter('mdcli_consumer_stale_total', 'Queued proposals older than the value their aspect holds (a redelivery), acknowledged without writing', {collect: () => stats.stale})
  opts.metrics?.gauge('mdcli_consumer_pending', 'Messages the stream held for this consumer beyond the last batch received (lag)', {collect: () => stats.pending})
  opts.log.info(`Consuming proposals from ${where} (stream ${stream}, every subject; dead letters to ${setup.dead}; consumer ${durable})`)

  const deadLetter = async (s: Setup, m: JsMsg, actor: Actor, reason: {code: string; message: string}): Promise<void> => {
    const body = {reason, stream, subject: m.subject, seq: m.seq, actor: actor.urn, record: decoder.decode(m.data)}
    try {
      await jetstream(nc).publish(s.dead, encoder.encode(JSON.stringify(body)), {msgID: `dead-${s.source}-${m.seq}`})
    } catch (error) {
      opts.log.warn(`Consumer: could not dead-letter message ${m.seq} to ${s.dead}, will retry: ${(error as Error).message}`)
      m.nak(2000)
      return
    }
    stats.deadLettered++
    m.ack()
  }

  /** Proposes one actor's run of messages in stream order; refusals are narrowed down by halves. */
  const propose = async (s: Setup, actor: Actor, group: Array<{m: JsMsg; p: ProposalInput}>): Promise<void> => {
    let outcomes
    try {
      outcomes = await catalog.propose(
        actor,
        group.map((g) => g.p),
        {atomic: false, ordered: true},
      )
    } catch (error) {
      if (refused(error)) {
        // Authorization is decided for the whole call: find the messages it refuses.
        if (group.length === 1) return deadLetter(s, group[0]!.m, actor, {code: error.code, message: error.message})
        const half = Math.ceil(group.length / 2)
        await propose(s, actor, group.slice(0, half))
        return propose(s, actor, group.slice(half))
      }
      // The store could not take the batch (full disk, closing): redelivered later; positions keep the order.
      opts.log.warn(`Consumer: batch not applied, will be redelivered: ${(error as Error).message}`)
      for (const g of group) g.m.nak(2000)
      return
    }
    for (const o of outcomes) {
      const g = group[o.index]!
      if (o.ok) {
        if (o.stale) stats.stale++
        else if (o.changed === false) stats.unchanged++
        else stats.applied++
        g.m.ack()
      } else if (o.error && o.error.status >= 400 && o.error.status < 500) await deadLetter(s, g.m, actor, {code: o.error.code, message: o.error.message})
      else g.m.nak(2000)
    }
  }

  const apply = async (s: Setup, msgs: JsMsg[]): Promise<void> => {
    // Stream order, which is the order of record (a redelivery may come after newer messages).
    msgs.sort((a, b) => a.seq - b.seq)
    stats.pending = msgs[msgs.length - 1]!.info.pending
    let i = 0
    while (i < msgs.length) {
      const actor = actorOf(msgs[i]!)
      const group: Array<{m: JsMsg; p: ProposalInput}> = []
      for (; i < msgs.length && actorOf(msgs[i]!).urn === actor.urn; i++) {
        const m = msgs[i]!
        if (m.redelivered) stats.redelivered++
        if (isDeadLetter(m.subject)) {
          m.ack()
          continue
        }
        let p: ProposalInput
        try {
          p = JSON.parse(decoder.decode(m.data)) as ProposalInput
        } catch (error) {
          await deadLetter(s, m, actor, {code: 'E_BAD_REQUEST', message: `not JSON: ${(error as Error).message}`})
          continue
        }
        // The message's place in the stream goes with the value (catalog/position.ts).
        if (p && typeof p === 'object' && !Array.isArray(p)) p = {...p, systemMetadata: withPosition(p.systemMetadata, {source: s.source, seq: m.seq})}
        group.push({m, p})
      }
      if (group.length > 0) await propose(s, actor, group)
    }
    // The acknowledgements reach the broker before the next fetch asks for more.
    await nc.flush()
  }

  const loop = (async () => {
    let failures = 0
    while (!stopping) {
      try {
        const s = setup
        const iter = await s.consumer.fetch({max_messages: batchSize, expires: 1000})
        const msgs: JsMsg[] = []
        for await (const m of iter) msgs.push(m)
        working()
        failures = 0
        if (msgs.length > 0) await apply(s, msgs)
      } catch (error) {
        if (stopping) break
        const message = (error as Error).message
        failing(connected ? message : `NATS at ${redact(servers)} is unreachable; reconnecting`)
        await sleep(Math.min(BACKOFF_LAST_MS, BACKOFF_FIRST_MS * 2 ** failures++))
        // A stream or consumer removed (or a broker that lost its store): make them again.
        if (connected && /not found|no responders/i.test(message)) setup = await prepare().catch((e: unknown) => (failing(`${(e as Error).message}`), setup))
      }
    }
  })()

  return {
    stats,
    health,
    async close() {
      // Stopped on purpose: not a failure for /health.
      unregister?.()
      stopping = true
      await loop
      // A broker that is away would hold a drain open: give it a moment, then close.
      await Promise.race([nc.drain(), sleep(2000)]).catch(() => undefined)
      await nc.close().catch(() => undefined)
    },
  }
}
