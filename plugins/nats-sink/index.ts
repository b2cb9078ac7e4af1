/**
 * Sink `nats`: hands each proposal, in DataHub's MCP JSON, to a NATS JetStream stream; a server
 * started with `mdcli lite --consume nats://…` writes them. The REST sink waits for the catalog;
 * this one waits only for the broker to store the message, so ingestion and the server are
 * decoupled.
 *
 * Glossary:
 * - in flight: publishes sent and not yet acknowledged by JetStream; at most `max_in_flight`.
 * - message id: a hash of the record (urn, aspect, value, run, system metadata), so a publish
 *   retried after a lost acknowledgement is stored once (JetStream's duplicate window).
 */
import {createHash} from 'node:crypto'
import pRetry from 'p-retry'
import {parseQueueUrl, redactUrl as redact, type QueuePublisher, type PluginContext, type Sink, type SinkPlugin, type WorkUnit, toFileRecord, openJetStream, configSchema, type ConfigOf} from '../../src/sdk/index.js'

export type NatsSinkConfig = ConfigOf<typeof CONFIG>

export const DEFAULT_STREAM = 'MDCLI_PROPOSALS'
export const DEFAULT_SUBJECT = 'mdcli.proposals'

const encoder = new TextEncoder()

/**
 * The de-duplication id of a record: the same change (urn, aspect, change type, value) in the
 * same run shares it, so a publish retried after a lost acknowledgement, or a run re-sent under
 * its run id, is stored once; the time it was observed is left out for that reason.
 */
export function messageId(record: Record<string, unknown>): string {
  const sm = (record.systemMetadata ?? {}) as {runId?: string}
  return createHash('sha256')
    .update(JSON.stringify([record.entityUrn, record.aspectName, record.changeType, record.aspect, sm.runId ?? null]))
    .digest('base64url')
}

class NatsSink implements Sink {
  private readonly inflight = new Set<Promise<void>>()

  constructor(
    private readonly pub: QueuePublisher,
    private readonly config: NatsSinkConfig,
    readonly report: PluginContext['report'],
  ) {}

  /** Writers waiting for a free slot, woken one per finished publish. */
  private readonly waiting: Array<() => void> = []

  async write(wu: WorkUnit): Promise<void> {
    for (const p of wu.proposals) {
      // A queue of waiters, not Promise.race over the in-flight set: a race attaches a reaction
      // to every pending publish each time, quadratic in max_in_flight over a run.
      while (this.inflight.size >= this.config.max_in_flight) await new Promise<void>((r) => this.waiting.push(r))
      const record = toFileRecord(p)
      const job = this.publish(record, wu.id).finally(() => {
        this.inflight.delete(job)
        this.waiting.shift()?.()
      })
      this.inflight.add(job)
    }
  }

  /** Never throws: the record ends stored or reported failed. */
  private async publish(record: Record<string, unknown>, id: string): Promise<void> {
    const data = encoder.encode(JSON.stringify(record))
    const msgId = messageId(record)
    try {
      const ack = await pRetry(() => this.pub.publish(this.config.subject, data, msgId), {
        retries: this.config.retry_max_times,
        minTimeout: this.config.retry_min_wait_sec * 1000,
        factor: 2,
        randomize: true,
        onFailedAttempt: () => this.report.count('retries'),
      })
      this.report.count(ack.duplicate ? 'recordsDuplicate' : 'recordsWritten')
    } catch (error) {
      const msg = String((error as Error).message ?? error).split('\n')[0]
      this.report.failure('not acknowledged', `${id}: ${String(record.entityUrn)} ${String(record.aspectName)}: ${msg}`)
      this.report.count('recordsFailed')
    }
  }

  async flush(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all([...this.inflight])
  }

  async close(): Promise<void> {
    await this.flush()
    await this.pub.close()
  }
}

const CONFIG = configSchema({
  type: 'object',
  properties: {
    server: {type: 'string', minLength: 1, default: 'nats://127.0.0.1:4222'},
    stream: {type: 'string', pattern: '^[A-Za-z0-9_-]+$', default: DEFAULT_STREAM},
    subject: {type: 'string', pattern: '^[A-Za-z0-9_.-]+$', default: DEFAULT_SUBJECT},
    max_in_flight: {type: 'integer', minimum: 1, maximum: 10000, default: 256},
    retry_max_times: {type: 'integer', minimum: 0, default: 4},
    retry_min_wait_sec: {type: 'number', minimum: 0, default: 0.2},
    timeout_sec: {type: 'number', exclusiveMinimum: 0, default: 10},
  },
  additionalProperties: false,
})

const plugin: SinkPlugin<NatsSinkConfig> = {
  description: 'Publishes proposals (DataHub MCP JSON) to a NATS JetStream stream, for `mdcli lite --consume`.',
  configSchema: CONFIG,
  async create(config, ctx: PluginContext): Promise<Sink> {
    const {servers} = parseQueueUrl(config.server, config.stream)
    const pub = await openJetStream({servers, stream: config.stream, subjects: [config.subject], timeoutMs: config.timeout_sec * 1000, name: 'mdcli-nats-sink'})
    ctx.report.info('server', redact(config.server))
    ctx.report.info('stream', config.stream)
    ctx.report.info('subject', config.subject)
    return new NatsSink(pub, config, ctx.report)
  },
}

export default plugin
