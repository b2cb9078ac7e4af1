/**
 * The ingestion pipeline: recipe → source → processors → transformers → sink.
 *
 * Glossary:
 * - event: a work unit the source produced (DataHub's `events_produced`); one MCE or one MCP
 *   record of a file, one glossary node.
 * - record: one change proposal; an MCE work unit holds several.
 * - stamping: every proposal gets `systemMetadata {runId, lastObserved, pipelineName?}`, which
 *   is what `list-runs` and `rollback` later find the run by.
 * - processor: a named stage `(stream) => stream` (DataHub's work-unit processors). A run is the
 *   source's stream through the declared list of processors (`processorsFor`), then the sink:
 *   auto status, stale-entity removal, preview, counting, the transformers, stamping, validation.
 * - capability: what a plugin declares it can do (a sink's `serverTarget`, `validatesRecords`),
 *   so the pipeline never asks for a plugin's type name.
 *
 * Everything that can be checked before the run is: the recipe's shape, each plugin's config
 * against its schema, the plugins' existence. After that, per-record problems go into the
 * reports and the run goes on; only setup errors throw. Memory stays bounded: work units flow
 * one at a time and the sink applies backpressure through `await sink.write()`.
 */
import {MdcliClient} from '../client/client.js'
import {prepareProposal} from '../catalog/proposal.js'
import type {ProposalInput} from '../model/wire.js'
import {resolveSettings} from '../config/settings.js'
import {ConfigError, MdcliError} from '../errors.js'
import {isAbsolute, resolve} from 'node:path'
import type {RequestLog} from '../client/client.js'
import {tlsOf} from '../sdk/connect.js'
import type {PluginContext, ServerTarget, Sink, SinkPlugin, Source, SourcePlugin, Transform, TransformerPlugin, WorkUnitStream} from '../sdk/plugin.js'
import {autoStatus, take} from './processors.js'
import {extractStateful, statefulRun, type StatefulConfig, type StatefulRun} from './stateful.js'
import {defaultRunId, type PluginRef, type Recipe} from './recipe.js'
import {PluginRegistry} from './registry.js'
import {Report, type ReportData} from '../sdk/report.js'
import {validateConfig} from '../sdk/validate.js'
import {stripWhere} from '../sdk/messages.js'
import type {RunCounts} from '../model/counts.js'

export interface PipelineOptions {
  dryRun?: boolean
  /** Stop after `previewWorkunits` work units. */
  preview?: boolean
  previewWorkunits?: number
  strictWarnings?: boolean
  registry?: PluginRegistry
  clock?: () => number
  env?: NodeJS.ProcessEnv
  stdout?: NodeJS.WritableStream
  /** Told of every request to a metadata server, the sink's and the graph's (`--debug`). */
  onRequest?: RequestLog
  /** Called every `progressIntervalMs` while the run goes on. */
  onProgress?: (p: Progress) => void
  progressIntervalMs?: number
  /**
   * Stops the run between work units (Ctrl-C): what was read so far is still written and
   * flushed, the checkpoint is not committed, and the result says `interrupted`.
   */
  signal?: AbortSignal
}

export interface Progress {
  stage: 'running' | 'flushing'
  elapsedMs: number
  workUnits: number
  records: number
  recordsWritten: number
  /** Records written per second since the start. */
  rate: number
  warnings: number
  failures: number
  /** A dry run sends nothing: its rate is of aspects produced. */
  dryRun: boolean
  /** Fraction of the input done, when the source can tell. */
  fraction?: number
  /** Time left at the rate so far, when the fraction is known and above zero. */
  etaMs?: number
}

/** Time left at the rate so far: elapsed × (1 − f) / f. */
export function estimateRemainingMs(elapsedMs: number, fraction: number | undefined): number | undefined {
  if (fraction === undefined || !(fraction > 0) || elapsedMs <= 0) return undefined
  return Math.max(0, Math.round((elapsedMs * (1 - Math.min(1, fraction))) / fraction))
}

export interface PipelineResult {
  runId: string
  pipelineName?: string
  recipe: string
  dryRun: boolean
  preview: boolean
  source: {type: string; workUnits: number; records: number; aspects: Record<string, Record<string, number>>; report: ReportData}
  transformers: Array<{type: string; report: ReportData}>
  sink: {type: string; recordsWritten: number; report: ReportData}
  startedAt: number
  durationMs: number
  eventsProduced: number
  warnings: number
  failures: number
  /** The run in the one vocabulary of counts (src/model/counts.ts), as list-runs and rollback see it. */
  counts: RunCounts
  status: 'success' | 'failures' | 'warnings'
  /** Stopped early by `signal` (Ctrl-C): the report covers only what was read before. */
  interrupted: boolean
  /** `Pipeline finished successfully; produced N events in T.` and its variants. */
  summary: string
  exitCode: number
}

interface Resolved<P> {
  ref: PluginRef
  plugin: P
}

/** A pipeline whose plugins are resolved and whose configs are validated, ready to run. */
export interface PreparedPipeline {
  recipe: Recipe
  runId: string
  source: Resolved<SourcePlugin>
  /** The source config's `stateful_ingestion` block, taken out before the source sees it. */
  stateful?: StatefulConfig
  transformers: Array<Resolved<TransformerPlugin>>
  sink: Resolved<SinkPlugin>
  /** `failure_log`: a `file` sink for the records the run's sink or checks refuse. */
  failureLog?: Resolved<SinkPlugin>
}

/** One named stage over the work-unit stream. */
export interface Processor {
  name: string
  apply: Transform
}

/** humanfriendly-style timespan: `0.42 seconds`, `1 minute and 3.5 seconds`. */
export function formatTimespan(ms: number): string {
  const s = ms / 1000
  const round = (x: number): string => String(Math.round(x * 100) / 100)
  const unit = (n: number, one: string): string => `${n === 1 ? '1' : round(n)} ${one}${n === 1 ? '' : 's'}`
  if (s < 60) return unit(Math.round(s * 100) / 100, 'second')
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = Math.round((s % 60) * 100) / 100
  const parts: string[] = []
  if (h > 0) parts.push(unit(h, 'hour'))
  if (m > 0) parts.push(unit(m, 'minute'))
  if (sec > 0) parts.push(unit(sec, 'second'))
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`
}

/** Resolves every plugin of the recipe and validates its config (defaults filled in). */
export async function preparePipeline(recipe: Recipe, opts: {registry?: PluginRegistry; clock?: () => number} = {}): Promise<PreparedPipeline> {
  const registry = opts.registry ?? PluginRegistry.discover()
  const resolve1 = async <P>(kind: 'source' | 'sink' | 'transformer', ref: PluginRef, base: string): Promise<Resolved<P>> => {
    const plugin = (await registry.load(kind, ref.type)) as unknown as P & {configSchema: Record<string, unknown>}
    validateConfig(plugin.configSchema, ref.config, {file: recipe.file, base, what: `${kind} config`})
    return {ref, plugin}
  }
  // Stateful ingestion belongs to the pipeline: every source gets it without declaring it.
  const {config: sourceConfig, stateful} = extractStateful(recipe.source.config, recipe.file)
  if (stateful?.enabled && !recipe.pipeline_name) throw new ConfigError(`${recipe.file}: stateful_ingestion needs a \`pipeline_name\` at the top of the recipe (it names the checkpoint)`)
  const source = await resolve1<SourcePlugin>('source', {...recipe.source, config: sourceConfig as PluginRef['config']}, 'source.config')
  const transformers: Array<Resolved<TransformerPlugin>> = []
  for (const [i, t] of recipe.transformers.entries()) transformers.push(await resolve1<TransformerPlugin>('transformer', t, `transformers[${i}].config`))
  const sink = await resolve1<SinkPlugin>('sink', recipe.sink, 'sink.config')
  let failureLog: Resolved<SinkPlugin> | undefined
  if (recipe.failure_log?.enabled) {
    if (!recipe.failure_log.log_config) throw new ConfigError(`${recipe.file}: failure_log is enabled but has no log_config (say where failed records go: log_config: {filename: failed.json})`)
    failureLog = await resolve1<SinkPlugin>('sink', {type: 'file', config: recipe.failure_log.log_config as PluginRef['config']}, 'failure_log.log_config')
  }
  const runId = recipe.run_id ?? defaultRunId(recipe.source.type, new Date((opts.clock ?? Date.now)()))
  return {recipe, runId, source, stateful, transformers, sink, ...(failureLog ? {failureLog} : {})}
}

/**
 * The server to read current state from: `datahub_api` of the recipe, else the datahub-rest
 * sink's server, else one configured in the environment or config file. Probed once.
 */
function graphFactory(recipe: Recipe, sink: Resolved<SinkPlugin>, env: NodeJS.ProcessEnv, warn: (m: string) => void, onRequest?: RequestLog): {get: () => Promise<MdcliClient | undefined>; close: () => Promise<void>; problem: () => string | undefined} {
  let pending: Promise<MdcliClient | undefined> | undefined
  let client: MdcliClient | undefined
  let problem: string | undefined
  const pick = (): ServerTarget | undefined => {
    const settings = resolveSettings(env)
    const api = recipe.datahub_api
    if (api?.server) return {server: api.server, token: api.token ?? settings.token, tls: api}
    const target = sink.plugin.serverTarget?.(sink.ref.config, env)
    if (target) return target
    if (settings.serverSource !== 'default') return {server: settings.server, token: settings.token}
    return undefined
  }
  return {
    get() {
      pending ??= (async () => {
        const target = pick()
        if (!target) {
          problem = 'no server is configured (no datahub_api, no datahub-rest sink, no METADATA_GMS_URL or `mdcli init`)'
          return undefined
        }
        const tls = target.tls ? tlsOf(target.tls, (p) => (isAbsolute(p) ? p : resolve(recipe.baseDir, p)), recipe.datahub_api?.server ? 'datahub_api' : 'sink.config') : undefined
        const c = new MdcliClient({server: target.server, token: target.token ?? undefined, timeoutMs: 15_000, onRequest, ...(tls ? {tls} : {})})
        try {
          await c.config()
          client = c
          return c
        } catch (e) {
          problem = `the server at ${target.server} did not answer: ${(e as Error).message}`
          warn(`Could not read current metadata from ${target.server}: ${(e as Error).message}`)
          await c.close()
          return undefined
        }
      })()
      return pending
    },
    async close() {
      await client?.close()
    },
    problem: () => problem,
  }
}


function countAspect(aspects: Record<string, Record<string, number>>, p: ProposalInput): void {
  const type = (typeof p.entityType === 'string' ? p.entityType : typeof p.entityUrn === 'string' ? p.entityUrn.split(':')[2] : undefined) ?? 'unknown'
  const name = typeof p.aspectName === 'string' ? p.aspectName : 'unknown'
  const byType = (aspects[type] ??= {})
  byType[name] = (byType[name] ?? 0) + 1
}

/** Counters the counting processor keeps for progress and the result. */
interface Tally {
  workUnits: number
  records: number
  aspects: Record<string, Record<string, number>>
}

interface StageContext {
  tally: Tally
  runId: string
  pipelineName?: string
  clock: () => number
  /** Problems of records go into the source's report. */
  report: () => Report
  /** False when the sink checks every record itself (capability `validatesRecords`). */
  validateLocally: () => boolean
  /** The failure log's intake (`failure_log`), when the recipe keeps one. */
  recordFailed?: (p: ProposalInput, reason: string) => void
}

const isWorkUnit = (wu: unknown): boolean => !!wu && typeof wu === 'object' && Array.isArray((wu as {proposals?: unknown}).proposals)

/**
 * Counts the source's work units, records and aspects (DataHub's `events_produced`: what the
 * source and its own processors produced, not what transformers add); drops what is not a work
 * unit (third-party plugins are plain JavaScript: the shape is checked rather than trusted).
 */
function countStage(c: StageContext): Processor {
  return {
    name: 'count',
    async *apply(stream) {
      for await (const wu of stream) {
        c.tally.workUnits++
        if (!isWorkUnit(wu)) {
          c.report().failure('invalid work unit', `work unit ${c.tally.workUnits}: expected {id, kind, proposals: [...]}, got ${JSON.stringify(wu)?.slice(0, 200)}`)
          continue
        }
        c.tally.records += wu.proposals.length
        for (const p of wu.proposals) if (p !== null && typeof p === 'object') countAspect(c.tally.aspects, p)
        yield wu
      }
    },
  }
}

/** Drops what a transformer yielded that is not a work unit, as the count stage does for the source. */
function checkStage(c: StageContext): Processor {
  return {
    name: 'check',
    async *apply(stream) {
      let n = 0
      for await (const wu of stream) {
        n++
        if (!isWorkUnit(wu)) {
          c.report().failure('invalid work unit', `work unit ${n} after the transformers: expected {id, kind, proposals: [...]}, got ${JSON.stringify(wu)?.slice(0, 200)}`)
          continue
        }
        yield wu
      }
    },
  }
}

/** Gives every proposal the run's system metadata; drops proposals that are not objects. */
function stampStage(c: StageContext): Processor {
  return {
    name: 'stamp',
    async *apply(stream) {
      for await (const wu of stream) {
        const lastObserved = c.clock()
        const stamp = {lastObserved, runId: c.runId, ...(c.pipelineName ? {pipelineName: c.pipelineName} : {})}
        const kept: ProposalInput[] = []
        for (const p of wu.proposals) {
          if (p === null || typeof p !== 'object') {
            c.report().failure('invalid record', `${wu.id}: a proposal must be an object, got ${JSON.stringify(p)}`)
            continue
          }
          p.systemMetadata = {...(p.systemMetadata ?? {}), ...stamp}
          kept.push(p)
        }
        yield kept.length === wu.proposals.length ? wu : {...wu, proposals: kept}
      }
    },
  }
}

/** Checks each proposal against the registry and aspect schemas, unless the sink does. */
function validateStage(c: StageContext): Processor {
  return {
    name: 'validate',
    async *apply(stream) {
      for await (const wu of stream) {
        if (!c.validateLocally()) {
          yield wu
          continue
        }
        const kept: ProposalInput[] = []
        for (const p of wu.proposals) {
          try {
            const prep = prepareProposal(p, 'proposal')
            if (prep.value !== undefined) p.aspect = {json: prep.value}
            kept.push(p)
          } catch (e) {
            const msg = stripWhere(e instanceof MdcliError ? e.message : String(e), 'proposal', p.entityUrn)
            c.report().failure('invalid record', `${wu.id}: ${String(p.entityUrn)} ${String(p.aspectName)}: ${msg}`)
            c.recordFailed?.(p, msg)
          }
        }
        yield kept.length === wu.proposals.length ? wu : {...wu, proposals: kept}
      }
    },
  }
}

/**
 * The declared list of processors a run's stream goes through, in order: the source's own
 * (auto status, stale-entity removal), preview (the first work units of the source, as DataHub's
 * `--preview`), counting (the source's output), the recipe's transformers, then the pipeline's
 * (check, stamp, validate).
 */
export function processorsFor(opts: {
  autoStatus: boolean
  stateful?: StatefulRun
  transforms: Array<{type: string; apply: Transform}>
  preview?: number
  stage: StageContext
}): Processor[] {
  const list: Processor[] = []
  if (opts.autoStatus) list.push({name: 'auto-status', apply: autoStatus})
  if (opts.stateful) list.push({name: 'stale-entity-removal', apply: opts.stateful.transform})
  if (opts.preview !== undefined) {
    const n = opts.preview
    list.push({name: 'preview', apply: (s) => take(s, n)})
  }
  list.push(countStage(opts.stage))
  for (const t of opts.transforms) list.push({name: `transformer:${t.type}`, apply: t.apply})
  if (opts.transforms.length > 0) list.push(checkStage(opts.stage))
  list.push(stampStage(opts.stage), validateStage(opts.stage))
  return list
}

/** Runs a prepared pipeline to the end (or the preview limit) and returns its result. */
export async function runPipeline(prepared: PreparedPipeline, opts: PipelineOptions = {}): Promise<PipelineResult> {
  const {recipe, runId} = prepared
  const clock = opts.clock ?? Date.now
  const env = opts.env ?? process.env
  const dryRun = opts.dryRun ?? false
  const startedAt = clock()
  const pipelineReport = new Report()
  const graph = graphFactory(recipe, prepared.sink, env, (m) => pipelineReport.warning('server', m), opts.onRequest)
  // The failure log, opened with the sink; records are handed to it one at a time, in order.
  let failureSink: Sink | undefined
  let failureChain: Promise<void> = Promise.resolve()
  const recordFailed = (p: ProposalInput, reason: string): void => {
    const sink = failureSink
    if (!sink) return
    failureChain = failureChain.then(() => sink.write({id: `failed: ${reason}`.slice(0, 200), kind: 'mcp', proposals: [p]})).catch((e) => pipelineReport.failure('failure_log', (e as Error)?.message ?? String(e)))
  }
  const makeCtx = (): PluginContext => ({
    runId,
    pipelineName: recipe.pipeline_name,
    baseDir: recipe.baseDir,
    dryRun,
    report: new Report(),
    now: clock,
    graph: graph.get,
    stdout: opts.stdout ?? process.stdout,
    ...(opts.onRequest ? {onRequest: opts.onRequest} : {}),
    ...(opts.signal ? {signal: opts.signal} : {}),
    env,
    resolvePath: (p: string) => (isAbsolute(p) ? p : resolve(recipe.baseDir, p)),
    ...(prepared.failureLog && !dryRun ? {recordFailed} : {}),
  })

  const sourceCtx = makeCtx()
  const transformerCtxs = prepared.transformers.map(() => makeCtx())
  const sinkCtx = makeCtx()
  let source: Source | undefined
  let sink: Sink | undefined
  let stateful: StatefulRun | undefined
  const tally: Tally = {workUnits: 0, records: 0, aspects: {}}
  let ticker: NodeJS.Timeout | undefined
  const sourceReport = (): Report => source?.report ?? sourceCtx.report
  const sinkReport = (): Report => sink?.report ?? sinkCtx.report
  const transformerReports = (): Report[] => transformerCtxs.map((c) => c.report)
  const totals = (): {warnings: number; failures: number} => {
    const all = [sourceReport(), sinkReport(), ...transformerReports(), pipelineReport]
    return {warnings: all.reduce((n, r) => n + r.warningCount, 0), failures: all.reduce((n, r) => n + r.failureCount, 0)}
  }
  let stage: Progress['stage'] = 'running'
  let interrupted = false
  let completed = false
  const snapshot = (): Progress => {
    const elapsedMs = clock() - startedAt
    const recordsWritten = dryRun ? 0 : sinkReport().get('recordsWritten')
    const fraction = source?.progress?.()
    return {
      stage,
      elapsedMs,
      workUnits: tally.workUnits,
      records: tally.records,
      recordsWritten,
      rate: elapsedMs > 0 ? ((dryRun ? tally.records : recordsWritten) * 1000) / elapsedMs : 0,
      dryRun,
      ...totals(),
      fraction,
      etaMs: estimateRemainingMs(elapsedMs, fraction),
    }
  }

  try {
    source = await prepared.source.plugin.create(prepared.source.ref.config, sourceCtx)
    const transforms = []
    for (const [i, t] of prepared.transformers.entries()) transforms.push({type: t.ref.type, apply: await t.plugin.create(t.ref.config, transformerCtxs[i]!)})
    if (!dryRun) sink = await prepared.sink.plugin.create(prepared.sink.ref.config, sinkCtx)
    if (!dryRun && prepared.failureLog) failureSink = await prepared.failureLog.plugin.create(prepared.failureLog.ref.config, makeCtx())
    if (prepared.stateful) {
      const plugin = prepared.source.plugin
      stateful = await statefulRun({
        config: prepared.stateful,
        pipelineName: recipe.pipeline_name,
        jobId: plugin.statefulJobId ?? `${plugin.platform ?? recipe.source.type}_stale_entity_removal`,
        runId,
        ctx: sourceCtx,
        graphProblem: graph.problem,
        report: sourceReport,
        failuresSoFar: async () => {
          await sink?.flush()
          return totals().failures
        },
        commitAllowed: !dryRun && !opts.preview,
        clock,
      })
    }

    if (opts.onProgress) ticker = setInterval(() => opts.onProgress!(snapshot()), opts.progressIntervalMs ?? 1000)

    const processors = processorsFor({
      autoStatus: prepared.source.plugin.autoStatus ?? true,
      stateful,
      transforms,
      preview: opts.preview ? (opts.previewWorkunits ?? 10) : undefined,
      stage: {tally, runId, pipelineName: recipe.pipeline_name, clock, report: sourceReport, validateLocally: () => dryRun || !sink?.validatesRecords, recordFailed},
    })
    let stream: WorkUnitStream = source.workunits()
    for (const p of processors) stream = p.apply(stream)

    try {
      for await (const wu of stream) {
        if (sink && wu.proposals.length > 0) await sink.write(wu)
        if (opts.signal?.aborted) {
          interrupted = true
          break
        }
      }
    } catch (e) {
      // A source that gave up because the user stopped the run (ctx.signal) was interrupted, not broken.
      if (opts.signal?.aborted) interrupted = true
      // A source, transformer or sink that breaks mid-run ends the run, not the report: what was
      // produced so far is still flushed below, and the break counts as a failure.
      else pipelineReport.failure('run aborted', `${tally.workUnits > 0 ? `after ${tally.workUnits} work units: ` : ''}${(e as Error)?.message ?? String(e)}`)
    }
    stage = 'flushing'
    if (sink) {
      try {
        await sink.flush()
      } catch (e) {
        pipelineReport.failure('flush failed', (e as Error)?.message ?? String(e))
      }
    }
    // DataHub's commit policy ON_NO_ERRORS: a run with failures keeps the old checkpoint; an
    // interrupted run saw only part of the source, so committing would mark the rest stale.
    if (stateful && totals().failures === 0 && !interrupted) {
      try {
        await stateful.commit()
      } catch (e) {
        pipelineReport.failure('stateful-ingestion', `could not store the checkpoint: ${(e as Error)?.message ?? String(e)}`)
      }
    }
    completed = true
  } finally {
    if (ticker) clearInterval(ticker)
    const closers: Array<Promise<unknown>> = []
    // Not completed: a setup step threw (the checkpoint's server, a plugin's create) and the error is on its way out.
    if (sink) closers.push(sink.close({failed: !completed || interrupted || totals().failures > 0}))
    // The failure log is written whatever happened: an empty one says nothing was refused.
    if (failureSink) closers.push(failureChain.then(() => failureSink!.close({failed: false})))
    if (source?.close) closers.push(source.close())
    closers.push(graph.close())
    const outcomes = await Promise.allSettled(closers)
    for (const o of outcomes) if (o.status === 'rejected') pipelineReport.failure('cleanup', (o.reason as Error)?.message ?? String(o.reason))
  }
  opts.onProgress?.({...snapshot(), stage: 'flushing'})

  const durationMs = clock() - startedAt
  const {warnings, failures} = totals()
  const srcData = sourceReport().toJSON()
  const pipeData = pipelineReport.toJSON()
  // Problems of the pipeline itself (server probe, cleanup) are shown with the source's.
  srcData.warnings.push(...pipeData.warnings)
  srcData.failures.push(...pipeData.failures)
  const status: PipelineResult['status'] = failures > 0 ? 'failures' : warnings > 0 ? 'warnings' : 'success'
  const tail = `produced ${tally.workUnits} events in ${formatTimespan(durationMs)}.`
  const summary = interrupted
    ? `Pipeline interrupted; ${tail}`
    : status === 'failures'
      ? `Pipeline finished with at least ${failures} failures; ${tail}`
      : status === 'warnings'
        ? `Pipeline finished with at least ${warnings} warnings; ${tail}`
        : `Pipeline finished successfully; ${tail}`
  return {
    runId,
    pipelineName: recipe.pipeline_name,
    recipe: recipe.file,
    dryRun,
    preview: opts.preview ?? false,
    source: {type: recipe.source.type, workUnits: tally.workUnits, records: tally.records, aspects: tally.aspects, report: srcData},
    transformers: prepared.transformers.map((t, i) => ({type: t.ref.type, report: transformerCtxs[i]!.report.toJSON()})),
    sink: {type: recipe.sink.type, recordsWritten: dryRun ? 0 : sinkReport().get('recordsWritten'), report: sinkReport().toJSON()},
    startedAt,
    durationMs,
    eventsProduced: tally.workUnits,
    warnings,
    failures,
    counts: {
      workUnits: tally.workUnits,
      aspectsSent: dryRun ? 0 : sinkReport().get('recordsWritten'),
      aspectsWritten: sinkReport().get('aspectsWritten'),
      aspectsUnchanged: sinkReport().get('aspectsUnchanged'),
      keyAspects: sinkReport().get('keyAspectsWritten'),
      rows: sinkReport().get('aspectsWritten') + sinkReport().get('keyAspectsWritten'),
      failures,
    },
    status,
    interrupted,
    summary,
    // 130: the shell's code for a command stopped by SIGINT.
    exitCode: interrupted ? 130 : status === 'failures' || (status === 'warnings' && opts.strictWarnings) ? 1 : 0,
  }
}

/** Loads nothing itself: prepares and runs `recipe`. */
export async function ingest(recipe: Recipe, opts: PipelineOptions = {}): Promise<PipelineResult> {
  const prepared = await preparePipeline(recipe, {registry: opts.registry, clock: opts.clock})
  return runPipeline(prepared, opts)
}
