/**
 * Sink `datahub-rest`: sends proposals to the server's batch endpoint
 * (`POST /aspects?action=ingestProposalBatch`, not atomic, so one bad record fails alone).
 *
 * Glossary:
 * - batch: up to `batch_size` proposals in one request. A batch closes at an entity boundary when
 *   it can, so one entity's aspects travel together.
 * - in flight: batches sent and not yet answered; at most `max_threads`. `write` waits when all
 *   slots are taken, which is the backpressure that keeps the CLI's memory flat.
 * - entity order: a batch never overtakes an earlier in-flight batch that carries the same urn,
 *   so the later value of an aspect is written last.
 * - circuit: after a batch gives up on an unreachable server, later batches try once without
 *   retrying, so a dead server costs seconds, not minutes per batch; every record is still tried
 *   or reported failed, never dropped.
 *
 * Server and token: the sink config, else METADATA_GMS_URL / METADATA_GMS_TOKEN, else the config
 * file written by `mdcli init`. An https server's TLS takes DataHub's keys: `ca_certificate_path`
 * (the CAs to trust), `client_certificate_path` (a PEM with the client certificate and its key),
 * `disable_ssl_verification`.
 */
import pRetry from 'p-retry'
import {type BatchOutcome, type ServerClient as MdcliClient, type ProposalInput, ConnectionError, MdcliError, type PluginContext, type Sink, type SinkPlugin, type WorkUnit, stripWhere, configuredServer, connectServer, configSchema, tlsOf, TLS_CONFIG_PROPERTIES, type ConfigOf} from '../../src/sdk/index.js'

export type RestSinkConfig = ConfigOf<typeof CONFIG>

function retryable(e: unknown, codes: number[]): boolean {
  if (e instanceof ConnectionError) return true
  if (e instanceof MdcliError) return codes.includes(e.status)
  // Sockets closed mid-answer and the like: the request may not have been processed; retry.
  return true
}

const DONE: Promise<void> = Promise.resolve()

class RestSink implements Sink {
  readonly validatesRecords = true
  private buf: ProposalInput[] = []
  private ids: string[] = []
  private readonly inflight = new Set<Promise<void>>()
  private readonly urnBusy = new Map<string, Promise<void>>()
  private circuitOpen = false

  constructor(
    private readonly client: MdcliClient,
    private readonly config: RestSinkConfig,
    readonly report: PluginContext['report'],
    private readonly recordFailed?: PluginContext['recordFailed'],
  ) {}

  write(wu: WorkUnit): Promise<void> {
    // Not async: most calls only append, and a promise per record adds up at 100,000s of records.
    if (wu.proposals.length === 1) {
      const p = wu.proposals[0]!
      const n = this.buf.length
      if (n >= this.config.batch_size && (p.entityUrn !== this.buf[n - 1]!.entityUrn || n >= 2 * this.config.batch_size)) {
        return this.dispatch().then(() => this.append(p, wu.id))
      }
      this.append(p, wu.id)
      return DONE
    }
    return this.writeMany(wu)
  }

  private append(p: ProposalInput, id: string): void {
    this.buf.push(p)
    this.ids.push(id)
  }

  private async writeMany(wu: WorkUnit): Promise<void> {
    for (const p of wu.proposals) {
      const n = this.buf.length
      if (n >= this.config.batch_size && (p.entityUrn !== this.buf[n - 1]!.entityUrn || n >= 2 * this.config.batch_size)) await this.dispatch()
      this.append(p, wu.id)
    }
  }

  private async dispatch(): Promise<void> {
    if (this.buf.length === 0) return
    const batch = this.buf
    const ids = this.ids
    this.buf = []
    this.ids = []
    while (this.inflight.size >= this.config.max_threads) await Promise.race(this.inflight)
    const deps = new Set<Promise<void>>()
    for (const p of batch) {
      const d = this.urnBusy.get(p.entityUrn as string)
      if (d) deps.add(d)
    }
    const send = (deps.size > 0 ? Promise.all(deps).then(() => this.send(batch, ids)) : this.send(batch, ids)).finally(() => {
      this.inflight.delete(send)
      for (const p of batch) if (this.urnBusy.get(p.entityUrn as string) === send) this.urnBusy.delete(p.entityUrn as string)
    })
    this.inflight.add(send)
    for (const p of batch) this.urnBusy.set(p.entityUrn as string, send)
    this.report.info('pendingRequests', this.inflight.size)
  }

  /** The batch's outcomes: also when some proposals failed (the server then answers 422 or the like). */
  private post(batch: ProposalInput[]): Promise<BatchOutcome> {
    return this.client.ingestProposals(batch, {atomic: false, headers: this.config.extra_headers ?? {}})
  }

  /** Sends a batch with retries; never throws: every record ends written or reported failed. */
  private async send(batch: ProposalInput[], ids: string[]): Promise<void> {
    let outcome: BatchOutcome
    try {
      outcome = await pRetry(() => this.post(batch), {
        retries: this.circuitOpen ? 0 : this.config.retry_max_times,
        minTimeout: this.config.retry_min_wait_sec * 1000,
        factor: 2,
        randomize: true,
        shouldRetry: (e) => retryable(e, this.config.retry_status_codes),
        // Called after every failed attempt, the last and a refused one too: count the retries made.
        onFailedAttempt: (e) => {
          if (e.retriesLeft > 0 && retryable(e, this.config.retry_status_codes)) this.report.count('retries')
        },
      })
      this.circuitOpen = false
    } catch (e) {
      const err = e as MdcliError
      if (err.code === 'E_TOO_LARGE' && batch.length > 1) {
        const half = Math.ceil(batch.length / 2)
        await this.send(batch.slice(0, half), ids.slice(0, half))
        await this.send(batch.slice(half), ids.slice(half))
        return
      }
      if (err instanceof ConnectionError || !(err instanceof MdcliError)) this.circuitOpen = true
      const key = err instanceof MdcliError ? (err instanceof ConnectionError ? 'server unreachable' : err.code) : 'request failed'
      const msg = String(err.message ?? err).split('\n')[0]
      batch.forEach((p, i) => {
        this.report.failure(key, `${ids[i]}: ${String(p.entityUrn)} ${String(p.aspectName)}: ${msg}`)
        this.recordFailed?.(p, msg)
      })
      this.report.count('recordsFailed', batch.length)
      return
    }
    let written = 0
    for (const r of outcome.results) {
      if (r.ok) {
        written++
        // The vocabulary of counts (see src/recipes/counts.ts): what the server did with each.
        this.report.count(r.changed === false ? 'aspectsUnchanged' : 'aspectsWritten')
        if (r.keyAspect) this.report.count('keyAspectsWritten')
        continue
      }
      const p = batch[r.index]
      const urn = r.urn ?? String(p?.entityUrn)
      const msg = stripWhere(stripWhere(r.error?.message ?? 'rejected', `proposal ${r.index}`, urn), 'proposal', urn)
      this.report.failure(r.error?.code ?? 'rejected', `${ids[r.index] ?? '?'}: ${urn} ${r.aspectName ?? String(p?.aspectName)}: ${msg}`)
      if (p) this.recordFailed?.(p, msg)
      this.report.count('recordsFailed')
    }
    this.report.count('recordsWritten', written)
  }

  async flush(): Promise<void> {
    await this.dispatch()
    while (this.inflight.size > 0) await Promise.all([...this.inflight])
    this.report.info('pendingRequests', 0)
  }

  async close(): Promise<void> {
    await this.client.close()
  }
}

const CONFIG = configSchema({
  type: 'object',
  properties: {
    server: {type: 'string', minLength: 1},
    token: {type: ['string', 'null']},
    timeout_sec: {type: 'number', exclusiveMinimum: 0, default: 30},
    retry_max_times: {type: 'integer', minimum: 0, default: 4},
    retry_min_wait_sec: {type: 'number', minimum: 0, default: 1},
    retry_status_codes: {type: 'array', items: {type: 'integer'}, default: [429, 500, 502, 503, 504]},
    max_threads: {type: 'integer', minimum: 1, maximum: 64, default: 4},
    batch_size: {type: 'integer', minimum: 1, maximum: 10000, default: 500},
    extra_headers: {type: 'object', additionalProperties: {type: 'string'}},
    // DataHub's async modes; mdcli always batches.
    mode: {enum: ['ASYNC', 'SYNC', 'ASYNC_BATCH']},
    max_pending_requests: {type: 'integer', minimum: 1},
    // DataHub's DatahubClientConfig TLS keys, for an https server.
    ...TLS_CONFIG_PROPERTIES,
  },
  additionalProperties: false,
})

const plugin: SinkPlugin<RestSinkConfig> = {
  description: 'Sends proposals to an mdcli (or DataHub-compatible) server in batches.',
  configSchema: CONFIG,
  serverTarget(config, env) {
    const configured = configuredServer(env)
    const tls = {disable_ssl_verification: config.disable_ssl_verification, ca_certificate_path: config.ca_certificate_path, client_certificate_path: config.client_certificate_path}
    return {server: config.server ?? configured.server, token: config.token ?? configured.token, serverFrom: config.server ? "the recipe's sink.config.server" : configured.serverFrom, tls}
  },
  async create(config, ctx: PluginContext): Promise<Sink> {
    const {server, token, serverFrom} = plugin.serverTarget!(config, ctx.env)
    const tls = tlsOf(config, ctx.resolvePath, 'sink.config')
    const client = await connectServer({server, token: token ?? undefined, timeoutMs: config.timeout_sec * 1000, onRequest: ctx.onRequest, serverFrom, ...(tls ? {tls} : {})})
    try {
      // Fail fast on a wrong address, before the source reads anything.
      ctx.report.info('gmsVersion', await client.serverVersion())
    } catch (e) {
      await client.close()
      throw e
    }
    ctx.report.info('server', client.server)
    ctx.report.info('maxThreads', config.max_threads)
    ctx.report.info('batchSize', config.batch_size)
    return new RestSink(client, config, ctx.report, ctx.recordFailed?.bind(ctx))
  },
}

export default plugin
