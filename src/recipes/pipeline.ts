/**
 * The ingestion pipeline: recipe → source → processors → transformers → sink.
 *
 * Glossary:
 * - event: a work unit the source produced (DataHub's `events_produced`); one MCE or one MCP
 *   record of a file, one glossary node.
 * - record: one change proposal; an MCE work unit holds several.
 * - stamping: every proposal gets `systemMetadata {runId, lastObserved, pipelineName?}`, which
 *   is what `list-runs` and `rollback` later find the run by.
 *
 * Everything that can be checked before the run is: the recipe's shape, each plugin's config
 * against its schema, the plugins' existence. After that, per-record problems go into the
 * reports and the run goes on; only setup errors throw. Memory stays bounded: work units flow
 * one at a time and the sink applies backpressure through `await sink.write()`.
 */
import {MdcliClient} from '../client/client.js'
import {prepareProposal, type ProposalInput} from '../catalog/proposal.js'
import {resolveSettings} from '../config/settings.js'
import {MdcliError} from '../errors.js'
import {isAbsolute, resolve} from 'node:path'
import type {PluginContext, Sink, SinkPlugin, Source, SourcePlugin, Transform, TransformerPlugin, WorkUnitStream} from './plugin.js'
import {autoStatus, take} from './processors.js'
import {defaultRunId, type PluginRef, type Recipe} from './recipe.js'
import {PluginRegistry} from './registry.js'
import {Report, type ReportData} from './report.js'
import {validateConfig} from './validate.js'

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
  /** Called every `progressIntervalMs` while the run goes on. */
  onProgress?: (p: Progress) => void
  progressIntervalMs?: number
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
  /** Fraction of the input done, when the source can tell. */
  fraction?: number
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
  status: 'success' | 'failures' | 'warnings'
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
  transformers: Array<Resolved<TransformerPlugin>>
  sink: Resolved<SinkPlugin>
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
  const source = await resolve1<SourcePlugin>('source', recipe.source, 'source.config')
  const transformers: Array<Resolved<TransformerPlugin>> = []
  for (const [i, t] of recipe.transformers.entries()) transformers.push(await resolve1<TransformerPlugin>('transformer', t, `transformers[${i}].config`))
  const sink = await resolve1<SinkPlugin>('sink', recipe.sink, 'sink.config')
  const runId = recipe.run_id ?? defaultRunId(recipe.source.type, new Date((opts.clock ?? Date.now)()))
  return {recipe, runId, source, transformers, sink}
}

/**
 * The server to read current state from: `datahub_api` of the recipe, else the datahub-rest
 * sink's server, else one configured in the environment or config file. Probed once.
 */
function graphFactory(recipe: Recipe, env: NodeJS.ProcessEnv, warn: (m: string) => void): {get: () => Promise<MdcliClient | undefined>; close: () => Promise<void>} {
  let pending: Promise<MdcliClient | undefined> | undefined
  let client: MdcliClient | undefined
  const pick = (): {server: string; token?: string} | undefined => {
    const settings = resolveSettings(env)
    const api = recipe.datahub_api
    if (api?.server) return {server: api.server, token: api.token ?? settings.token}
    if (recipe.sink.type === 'datahub-rest') {
      const c = recipe.sink.config as {server?: string; token?: string}
      return {server: c.server ?? settings.server, token: c.token ?? settings.token}
    }
    if (settings.serverSource !== 'default') return {server: settings.server, token: settings.token}
    return undefined
  }
  return {
    get() {
      pending ??= (async () => {
        const target = pick()
        if (!target) return undefined
        const c = new MdcliClient({server: target.server, token: target.token, timeoutMs: 15_000})
        try {
          await c.config()
          client = c
          return c
        } catch (e) {
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
  }
}

/** Drops the `<where> (<urn>): ` prefix prepareProposal puts on its messages; we say it ourselves. */
export function stripWhere(message: string, where: string, urn: unknown): string {
  for (const prefix of [`${where} (${String(urn)}): `, `${where}: `]) if (message.startsWith(prefix)) return message.slice(prefix.length)
  return message
}

function countAspect(aspects: Record<string, Record<string, number>>, p: ProposalInput): void {
  const type = (typeof p.entityType === 'string' ? p.entityType : typeof p.entityUrn === 'string' ? p.entityUrn.split(':')[2] : undefined) ?? 'unknown'
  const name = typeof p.aspectName === 'string' ? p.aspectName : 'unknown'
  const byType = (aspects[type] ??= {})
  byType[name] = (byType[name] ?? 0) + 1
}

/** Runs a prepared pipeline to the end (or the preview limit) and returns its result. */
export async function runPipeline(prepared: PreparedPipeline, opts: PipelineOptions = {}): Promise<PipelineResult> {
  const {recipe, runId} = prepared
  const clock = opts.clock ?? Date.now
  const env = opts.env ?? process.env
  const dryRun = opts.dryRun ?? false
  const startedAt = clock()
  const pipelineReport = new Report()
  const graph = graphFactory(recipe, env, (m) => pipelineReport.warning('server', m))
  const makeCtx = (): PluginContext => ({
    runId,
    pipelineName: recipe.pipeline_name,
    baseDir: recipe.baseDir,
    dryRun,
    report: new Report(),
    now: clock,
    graph: graph.get,
    stdout: opts.stdout ?? process.stdout,
    env,
    resolvePath: (p: string) => (isAbsolute(p) ? p : resolve(recipe.baseDir, p)),
  })

  const sourceCtx = makeCtx()
  const transformerCtxs = prepared.transformers.map(() => makeCtx())
  const sinkCtx = makeCtx()
  let source: Source | undefined
  let sink: Sink | undefined
  const transforms: Transform[] = []
  let workUnits = 0
  let records = 0
  const aspects: Record<string, Record<string, number>> = {}
  let ticker: NodeJS.Timeout | undefined
  const sourceReport = (): Report => source?.report ?? sourceCtx.report
  const sinkReport = (): Report => sink?.report ?? sinkCtx.report
  const transformerReports = (): Report[] => transformerCtxs.map((c) => c.report)
  const totals = (): {warnings: number; failures: number} => {
    const all = [sourceReport(), sinkReport(), ...transformerReports(), pipelineReport]
    return {warnings: all.reduce((n, r) => n + r.warningCount, 0), failures: all.reduce((n, r) => n + r.failureCount, 0)}
  }
  let stage: Progress['stage'] = 'running'
  const snapshot = (): Progress => {
    const elapsedMs = clock() - startedAt
    const recordsWritten = dryRun ? 0 : sinkReport().get('recordsWritten')
    return {
      stage,
      elapsedMs,
      workUnits,
      records,
      recordsWritten,
      rate: elapsedMs > 0 ? ((dryRun ? records : recordsWritten) * 1000) / elapsedMs : 0,
      ...totals(),
      fraction: source?.progress?.(),
    }
  }

  try {
    source = await prepared.source.plugin.create(prepared.source.ref.config, sourceCtx)
    for (const [i, t] of prepared.transformers.entries()) transforms.push(await t.plugin.create(t.ref.config, transformerCtxs[i]!))
    if (!dryRun) sink = await prepared.sink.plugin.create(prepared.sink.ref.config, sinkCtx)
    const validateLocally = dryRun || !sink?.validatesRecords

    if (opts.onProgress) ticker = setInterval(() => opts.onProgress!(snapshot()), opts.progressIntervalMs ?? 1000)

    let stream: WorkUnitStream = source.workunits()
    if (prepared.source.plugin.autoStatus) stream = autoStatus(stream)
    for (const t of transforms) stream = t(stream)
    if (opts.preview) stream = take(stream, opts.previewWorkunits ?? 10)

    try {
      for await (const wu of stream) {
        workUnits++
        // Third-party plugins are plain JavaScript: check the shape rather than trust it.
        if (!wu || typeof wu !== 'object' || !Array.isArray(wu.proposals)) {
          sourceReport().failure('invalid work unit', `work unit ${workUnits}: expected {id, kind, proposals: [...]}, got ${JSON.stringify(wu)?.slice(0, 200)}`)
          continue
        }
        const lastObserved = clock()
        const kept: ProposalInput[] = []
        for (const p of wu.proposals) {
          records++
          if (p === null || typeof p !== 'object') {
            sourceReport().failure('invalid record', `${wu.id}: a proposal must be an object, got ${JSON.stringify(p)}`)
            continue
          }
          countAspect(aspects, p)
          p.systemMetadata = {...(p.systemMetadata ?? {}), lastObserved, runId, ...(recipe.pipeline_name ? {pipelineName: recipe.pipeline_name} : {})}
          if (validateLocally) {
            try {
              const prep = prepareProposal(p, 'proposal')
              if (prep.value !== undefined) p.aspect = {json: prep.value}
            } catch (e) {
              const msg = stripWhere(e instanceof MdcliError ? e.message : String(e), 'proposal', p.entityUrn)
              sourceReport().failure('invalid record', `${wu.id}: ${String(p.entityUrn)} ${String(p.aspectName)}: ${msg}`)
              continue
            }
          }
          kept.push(p)
        }
        if (sink && kept.length > 0) await sink.write(kept.length === wu.proposals.length ? wu : {...wu, proposals: kept})
      }
    } catch (e) {
      // A source, transformer or sink that breaks mid-run ends the run, not the report: what was
      // produced so far is still flushed below, and the break counts as a failure.
      pipelineReport.failure('run aborted', `${workUnits > 0 ? `after ${workUnits} work units: ` : ''}${(e as Error)?.message ?? String(e)}`)
    }
    stage = 'flushing'
    if (sink) {
      try {
        await sink.flush()
      } catch (e) {
        pipelineReport.failure('flush failed', (e as Error)?.message ?? String(e))
      }
    }
  } finally {
    if (ticker) clearInterval(ticker)
    const closers: Array<Promise<unknown>> = []
    if (sink) closers.push(sink.close())
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
  const tail = `produced ${workUnits} events in ${formatTimespan(durationMs)}.`
  const summary =
    status === 'failures'
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
    source: {type: recipe.source.type, workUnits, records, aspects, report: srcData},
    transformers: prepared.transformers.map((t, i) => ({type: t.ref.type, report: transformerCtxs[i]!.report.toJSON()})),
    sink: {type: recipe.sink.type, recordsWritten: dryRun ? 0 : sinkReport().get('recordsWritten'), report: sinkReport().toJSON()},
    startedAt,
    durationMs,
    eventsProduced: workUnits,
    warnings,
    failures,
    status,
    summary,
    exitCode: status === 'failures' || (status === 'warnings' && opts.strictWarnings) ? 1 : 0,
  }
}

/** Loads nothing itself: prepares and runs `recipe`. */
export async function ingest(recipe: Recipe, opts: PipelineOptions = {}): Promise<PipelineResult> {
  const prepared = await preparePipeline(recipe, {registry: opts.registry, clock: opts.clock})
  return runPipeline(prepared, opts)
}
