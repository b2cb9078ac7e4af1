/**
 * The queue on NATS JetStream (`@nats-io/jetstream`): a stream created when absent, publishes
 * acknowledged by the server and de-duplicated by `Nats-Msg-Id`.
 */
import {connect, type NatsConnection} from '@nats-io/transport-node'
import {jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager} from '@nats-io/jetstream'
import {ConnectionError} from '../errors.js'
import {redact, type PublishAck, type QueuePublisher, type QueueTarget} from './queue.js'

/** How long the broker remembers message ids for de-duplication. */
export const DEDUPE_WINDOW_NS = 2 * 60 * 60 * 1e9

export interface ConnectOptions {
  /**
   * A long-lived client (the consuming server): reconnect forever, waiting what this returns
   * between rounds, and ping often enough that a silent broker is noticed within half a minute.
   * Without it, a client gives up after three reconnects (a run's publisher reports and exits).
   * The change-log publisher is long-lived too.
   */
  reconnectDelay?: () => number
}

export async function connectNats(servers: string, name: string, opts: ConnectOptions = {}): Promise<NatsConnection> {
  const u = new URL(servers)
  try {
    return await connect({
      servers: u.host,
      name,
      ...(u.username ? {user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password)} : {}),
      timeout: 5000,
      ...(opts.reconnectDelay
        ? {maxReconnectAttempts: -1, reconnectDelayHandler: opts.reconnectDelay, pingInterval: 10_000, maxPingOut: 2}
        : {maxReconnectAttempts: 3, reconnectTimeWait: 500}),
    })
  } catch (error) {
    throw new ConnectionError(`Could not reach NATS at ${redact(servers)}: ${(error as Error).message}`)
  }
}

/**
 * Whether a message on `subject` would be captured by a stream subject `pattern`
 * (`*` one token, `>` one or more at the end).
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.')
  const t = subject.split('.')
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return t.length > i
    if (i >= t.length || (p[i] !== '*' && p[i] !== t[i])) return false
  }
  return p.length === t.length
}

/** Creates the stream when absent; adds missing subjects to an existing one. */
export async function ensureStream(jsm: JetStreamManager, stream: string, subjects: string[]): Promise<void> {
  try {
    const info = await jsm.streams.info(stream)
    const missing = subjects.filter((s) => !info.config.subjects?.includes(s))
    if (missing.length > 0) await jsm.streams.update(stream, {...info.config, subjects: [...(info.config.subjects ?? []), ...missing]})
  } catch (error) {
    if (!/stream not found/i.test(String((error as Error).message))) throw error
    await jsm.streams.add({name: stream, subjects, duplicate_window: DEDUPE_WINDOW_NS})
  }
}

export class JetStreamPublisher implements QueuePublisher {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly timeoutMs: number,
    private readonly target: QueueTarget,
  ) {}

  static async open(target: QueueTarget, opts: {timeoutMs?: number; name?: string} & ConnectOptions = {}): Promise<JetStreamPublisher> {
    const nc = await connectNats(target.servers, opts.name ?? 'mdcli', opts)
    try {
      await ensureStream(await jetstreamManager(nc), target.stream, target.subjects)
    } catch (error) {
      await nc.close()
      throw new ConnectionError(`NATS at ${redact(target.servers)} refused stream '${target.stream}': ${(error as Error).message}`)
    }
    return new JetStreamPublisher(nc, jetstream(nc), opts.timeoutMs ?? 10_000, target)
  }

  /** Makes the stream again if it went away (as `open` does when it is absent). */
  async ensureStream(): Promise<void> {
    await ensureStream(await jetstreamManager(this.nc), this.target.stream, this.target.subjects)
  }

  /** Calls `onChange` when the connection is lost (false) and when it is back (true). */
  watch(onChange: (connected: boolean) => void): void {
    void (async () => {
      for await (const s of this.nc.status()) {
        if (s.type === 'disconnect') onChange(false)
        else if (s.type === 'reconnect') onChange(true)
      }
    })().catch(() => undefined)
  }

  /** Closes at once, without waiting for the broker: a publish still waiting for it fails. */
  async abort(): Promise<void> {
    await this.nc.close().catch(() => undefined)
  }

  async publish(subject: string, data: Uint8Array, msgId: string): Promise<PublishAck> {
    const ack = await this.js.publish(subject, data, {msgID: msgId, timeout: this.timeoutMs})
    return {seq: ack.seq, duplicate: ack.duplicate}
  }

  async close(): Promise<void> {
    await this.nc.drain().catch(() => this.nc.close())
  }
}
