/**
 * Publishes the change log to JetStream (`mdcli lite --changelog nats://host:port[/stream]`), one
 * message per change: `{mcl, changeEvents}` JSON with the server's id in the message id so a
 * retried publish is stored once. With `outbox` (the store's, src/events/outbox.ts) delivery is
 * at least once: commits not acknowledged before a crash or a stop are published again at the
 * next start, before any new change.
 *
 * Strictly in commit order: a change that cannot be published is retried (backing off to 5 s)
 * until it is, and every later change waits behind it — a subscriber of the stream never sees a
 * newer value overwritten by an older one sent late. What waits is in the outbox; past
 * MAX_QUEUED_CHANGES the publisher lets go of its copies and reads them back from the outbox
 * when it has caught up, so a long outage costs disk, not memory.
 *
 * Glossary:
 * - commit: one write's changes (one appended batch of the change log; an outbox commit).
 * - stuck: the oldest waiting change has failed to publish at least once and not yet succeeded.
 */
import {randomUUID} from 'node:crypto'
import type {Catalog} from '../catalog/catalog.js'
import {rebuildChanges, type ChangeOutbox, type PendingCommit} from './outbox.js'
import type {ChangeLog} from './changelog.js'
import type {LoggedChange} from '../model/changelog.js'
import {JetStreamPublisher} from './jetstream.js'
import {parseQueueUrl, redact} from './queue.js'

/**
 * Where the publisher reports its state: the server's /health checks and /metrics fit these
 * (declared here, by shape, so events/ does not import the server above it).
 */
interface HealthChecks {
  add(name: string, check: () => {ok: boolean; reason?: string}): () => void
}
interface MetricsSink {
  gauge(name: string, help: string, opts: {collect: () => number}): void
  counter(name: string, help: string, opts: {collect: () => number}): void
}

export const DEFAULT_CHANGELOG_STREAM = 'MDCLI_CHANGELOG'
export const DEFAULT_CHANGELOG_SUBJECT = 'mdcli.changelog'

/** Changes held in memory while waiting; past it, the outbox holds them alone. */
export const MAX_QUEUED_CHANGES = 10_000
/** How long a stop waits for a publisher that is making progress to finish what is queued. */
const STOP_FLUSH_MS = 5_000
const BACKOFF_FIRST_MS = 250
const BACKOFF_LAST_MS = 5_000
/** A change that keeps failing is logged again at most this often. */
const WARN_EVERY_MS = 60_000

const encoder = new TextEncoder()

type Change = Omit<LoggedChange, 'id'> & {id?: number}

/** A commit waiting: its changes (or the outbox record to rebuild them from) and how many went out. */
interface Waiting {
  seq?: number
  changes?: Change[]
  pending?: PendingCommit
  sent: number
}

export interface PublisherStatus {
  /** The connection to the broker is up (it reconnects for as long as the server runs). */
  connected: boolean
  /** Changes committed and not yet acknowledged by the broker (in memory or only in the outbox). */
  waiting: number
  /** Set while the oldest waiting change keeps failing: why, and since when. */
  stuck?: {reason: string; since: number}
  published: number
  failures: number
}

export interface ChangeLogPublisher {
  status(): PublisherStatus
  /**
   * Stops publishing: gives a publisher that is making progress up to STOP_FLUSH_MS to finish,
   * none to one that is failing; what is left stays in the outbox for the next start.
   */
  close(): Promise<void>
}

export async function publishChangeLog(
  log: ChangeLog,
  opts: {
    url: string
    subject?: string
    log: {info(m: string): void; warn(m: string): void}
    outbox?: ChangeOutbox
    catalog?: Catalog
    /** Adds the `changelog` check: failing while the broker is unreachable or a change is stuck. */
    health?: HealthChecks
    metrics?: MetricsSink
    /** Changes held in memory while waiting (default MAX_QUEUED_CHANGES). */
    maxQueued?: number
  },
): Promise<ChangeLogPublisher> {
  const {servers, stream} = parseQueueUrl(opts.url, DEFAULT_CHANGELOG_STREAM)
  const subject = opts.subject ?? DEFAULT_CHANGELOG_SUBJECT
  let reconnects = 0
  // Reconnects for as long as the server runs, as the consumer does: the broker must answer at
  // start, and an outage afterwards only delays publishing.
  const pub = await JetStreamPublisher.open(
    {servers, stream, subjects: [subject]},
    {name: 'mdcli-lite-changelog', reconnectDelay: () => Math.min(BACKOFF_LAST_MS, BACKOFF_FIRST_MS * 2 ** reconnects++) * (0.75 + Math.random() / 2)},
  )
  const outbox = opts.outbox
  const instance = outbox?.id ?? randomUUID()
  // Outbox commits identify a change across restarts; without one the server's id does for this run.
  const msgIdOf = (c: Change) => (c.commit ? `${instance}-${c.commit.seq}-${c.commit.index}` : `${instance}-${c.id}`)

  const maxQueued = opts.maxQueued ?? MAX_QUEUED_CHANGES
  const queue: Waiting[] = []
  let queuedChanges = 0
  /** Changes let go of to the outbox (read back by `refill`). */
  let spilled = 0
  const status: PublisherStatus = {connected: true, waiting: 0, published: 0, failures: 0}
  let disconnectedSince: number | undefined
  let stopping = false
  let wake: (() => void) | undefined
  const nudge = () => {
    const w = wake
    wake = undefined
    w?.()
  }
  /** Resolves after `ms`, or at once when nudged (new work, a stop). */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms)
      wake = () => {
        clearTimeout(t)
        resolve()
      }
    })

  const enqueue = (w: Waiting, n: number) => {
    queue.push(w)
    queuedChanges += n
    status.waiting += n
  }
  if (outbox && outbox.pending.length > 0) {
    opts.log.info(`Change log: publishing ${outbox.pending.length} commits left unpublished by the last run`)
    for (const p of outbox.pending) enqueue({seq: p.commit, pending: p, sent: 0}, p.changes?.length ?? 1)
  }
  log.addSink((batch) => {
    status.waiting += batch.length
    // One appended batch is one commit (Catalog.writeOps appends once per write). Past the bound,
    // and until the publisher has caught up with what it let go of, the outbox alone holds it.
    if (outbox && batch[0]?.commit && (spilled > 0 || queuedChanges + batch.length > maxQueued)) {
      spilled += batch.length
      nudge()
      return
    }
    queue.push({seq: batch[0]?.commit?.seq, changes: batch, sent: 0})
    queuedChanges += batch.length
    nudge()
  })

  /** Reads back from the outbox what was let go of, once the queue in memory is empty. */
  const refill = () => {
    if (!outbox || spilled === 0) return
    const {commits, more} = outbox.unpublished(maxQueued)
    let n = 0
    for (const p of commits) {
      queue.push({seq: p.commit, changes: (p.changes ?? []).map((c, index) => ({...c, commit: {seq: p.commit, index}})), sent: 0})
      n += p.changes?.length ?? 0
    }
    queuedChanges += n
    spilled = more ? Math.max(1, spilled - n) : 0
  }

  /** Publishes `c`, retrying until the broker acknowledges it; false when stopped first. */
  const publishOne = async (c: Change): Promise<boolean> => {
    const data = encoder.encode(JSON.stringify({id: c.id, mcl: c.mcl, changeEvents: c.changeEvents}))
    let lastWarn = 0
    for (let attempt = 0; !stopping; attempt++) {
      try {
        await pub.publish(subject, data, msgIdOf(c))
        if (status.stuck) opts.log.info(`Change log: publishing to ${stream} again after ${Math.round((Date.now() - status.stuck.since) / 1000)} s`)
        status.stuck = undefined
        status.published++
        return true
      } catch (error) {
        if (stopping) return false
        status.failures++
        const reason = (error as Error).message
        status.stuck = {reason, since: status.stuck?.since ?? Date.now()}
        if (Date.now() - lastWarn >= WARN_EVERY_MS) {
          lastWarn = Date.now()
          opts.log.warn(`Change log: change ${c.id ?? `of commit ${c.commit?.seq}`} (${c.mcl.entityUrn}) not published yet: ${reason}; retrying, ${status.waiting - 1} later changes wait behind it`)
        }
        // A stream that went away (a broker restarted without its storage) is made again, as at start.
        if (/no responders|stream not found|503/i.test(reason)) await pub.ensureStream().catch(() => undefined)
        await pause(Math.min(BACKOFF_LAST_MS, BACKOFF_FIRST_MS * 2 ** attempt))
      }
    }
    return false
  }

  const run = async (): Promise<void> => {
    while (!stopping) {
      if (queue.length === 0) refill()
      const w = queue[0]
      if (!w) {
        await pause(60_000)
        continue
      }
      if (!w.changes) {
        const p = w.pending!
        w.changes = p.changes ?? (opts.catalog ? rebuildChanges(p, await opts.catalog.entitiesAsStored(p.urns), Date.now()) : [])
        w.changes = w.changes.map((c, index) => ({...c, commit: {seq: p.commit, index}}))
        // The estimate made when it was queued, replaced by the count.
        status.waiting += w.changes.length - (p.changes?.length ?? 1)
        queuedChanges += w.changes.length - (p.changes?.length ?? 1)
      }
      for (; w.sent < w.changes.length; w.sent++) {
        if (!(await publishOne(w.changes[w.sent]!))) return
        status.waiting--
        queuedChanges--
      }
      // A commit is marked only when all of it was acknowledged; otherwise the next start re-sends it.
      if (w.seq !== undefined) outbox?.published(w.seq)
      queue.shift()
    }
  }
  const where = `${redact(servers)}/${stream}`
  pub.watch((connected) => {
    status.connected = connected
    if (connected) {
      reconnects = 0
      disconnectedSince = undefined
      opts.log.info(`Change log: connected to ${where} again`)
      // What waited publishes now rather than at the end of its back-off.
      nudge()
    } else {
      disconnectedSince = Date.now()
      opts.log.warn(`Change log: NATS at ${redact(servers)} is unreachable; reconnecting (changes wait in the outbox)`)
    }
  })
  const unregister = opts.health?.add('changelog', () => {
    if (!status.connected) return {ok: false, reason: `not publishing the change log to ${where} since ${new Date(disconnectedSince ?? Date.now()).toISOString()}: NATS is unreachable; reconnecting; ${status.waiting} changes waiting`}
    if (status.stuck) return {ok: false, reason: `not publishing the change log to ${where} since ${new Date(status.stuck.since).toISOString()}: ${status.stuck.reason}; ${status.waiting} changes waiting`}
    return {ok: true}
  })
  opts.metrics?.gauge('mdcli_changelog_waiting', 'Committed changes not yet acknowledged by the change-log stream (in memory or in the outbox)', {collect: () => status.waiting})
  opts.metrics?.counter('mdcli_changelog_published_total', 'Changes the change-log stream acknowledged', {collect: () => status.published})
  opts.metrics?.counter('mdcli_changelog_publish_failures_total', 'Failed attempts to publish a change (each retried until it goes out)', {collect: () => status.failures})
  const running = run().catch((e: unknown) => opts.log.warn(`Change log: publisher stopped: ${(e as Error)?.stack ?? String(e)}`))

  opts.log.info(`Publishing the change log to ${stream} (subject ${subject})`)
  return {
    status: () => ({...status, ...(status.stuck ? {stuck: {...status.stuck}} : {})}),
    async close() {
      // A publisher that is getting acknowledgements may finish, briefly; one that is failing stops now.
      const deadline = Date.now() + STOP_FLUSH_MS
      while (status.waiting > 0 && status.connected && !status.stuck && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      stopping = true
      // A publisher stopped on purpose is not a failing part.
      unregister?.()
      nudge()
      // Closing the connection ends a publish still waiting for the broker.
      await pub.abort()
      await running
      if (status.waiting > 0) opts.log.warn(`Change log: ${status.waiting} changes not yet published stay in the outbox; the next start publishes them first`)
    },
  }
}
