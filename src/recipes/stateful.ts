/**
 * Stateful ingestion: remembering what a source produced last time, and soft-deleting what it no
 * longer produces (DataHub's stale-entity removal), for every source, built-in or third-party.
 *
 * Glossary:
 * - checkpoint: the timeseries aspect `datahubIngestionCheckpoint` on the data job
 *   `urn:li:dataJob:(urn:li:dataFlow:(<provider>,<pipeline_name>,prod),<job id>)`; its `state`
 *   holds the urns of the last successful run (`{"urns": [...]}`, bz2-compressed and base85
 *   encoded as DataHub writes it).
 * - job id: `<platform>_stale_entity_removal` (a source may declare another, as DataHub's dbt
 *   source does).
 * - state provider: where checkpoints live — `datahub` (the catalog itself, DataHub's default) or
 *   `file` (a JSON file of change proposals).
 * - stale entity: an urn of the previous checkpoint that this run did not produce. It is
 *   soft-deleted (`status {removed: true}`) at the end of a run that had no failures, unless more
 *   than `fail_safe_threshold` percent of the previous entities would go.
 *
 * The `stateful_ingestion` block is read by the pipeline, not by the source, so a source needs to
 * do nothing to support it.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {ConfigError} from '../errors.js'
import type {MdcliClient} from '../client/client.js'
import {mcp, type PluginContext, type ProposalInput, type WorkUnit, type WorkUnitStream} from '../sdk/plugin.js'
import type {Report} from '../sdk/report.js'
import {validateConfig} from '../sdk/validate.js'
import type {ConfigOf} from '../sdk/config.js'

/**
 * The default share (percent) of the previous run's entities a run may remove: DataHub's current
 * default (`StatefulStaleMetadataRemovalConfig.fail_safe_threshold`, 75.0; it was 100, which never
 * triggers, up to 0.13). Checked as DataHub does: (1 − kept ÷ previous) × 100 above the threshold,
 * and only when the threshold is below 100. A run that would remove more is more likely broken (a
 * lost permission, a failed page fetch) than cleaned up: it fails, removes nothing, and its state
 * is not kept, so the next run compares with the last good one.
 */
export const DEFAULT_FAIL_SAFE_THRESHOLD = 75

/** The `stateful_ingestion` block as a source receives it (defaults filled). */
export type StatefulConfig = ConfigOf<typeof STATEFUL_SCHEMA>

export const STATEFUL_SCHEMA = {
  type: 'object',
  properties: {
    enabled: {type: 'boolean', default: false},
    remove_stale_metadata: {type: 'boolean', default: true},
    fail_safe_threshold: {type: 'number', minimum: 0, maximum: 100, default: DEFAULT_FAIL_SAFE_THRESHOLD},
    ignore_old_state: {type: 'boolean', default: false},
    ignore_new_state: {type: 'boolean', default: false},
    state_provider: {
      type: 'object',
      properties: {
        type: {enum: ['datahub', 'file']},
        config: {type: 'object', properties: {filename: {type: 'string', minLength: 1}}, additionalProperties: true},
      },
      required: ['type'],
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const

/**
 * Takes `stateful_ingestion` out of a source config (so the source's own schema never sees it)
 * and validates it. Returns the config unchanged when the block is absent.
 */
export function extractStateful(config: unknown, file: string): {config: unknown; stateful?: StatefulConfig} {
  if (config === null || typeof config !== 'object' || !Object.hasOwn(config, 'stateful_ingestion')) return {config}
  const {stateful_ingestion: raw, ...rest} = config as Record<string, unknown>
  const block = raw ?? {}
  validateConfig(STATEFUL_SCHEMA, block, {file, base: 'source.config.stateful_ingestion', what: 'stateful_ingestion config'})
  return {config: rest, stateful: block as StatefulConfig}
}

// ---------------------------------------------------------------------------------------------
// The checkpoint's state: {"urns": [...]} as DataHub serialises it.

const B85 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~'
const B85_INDEX = new Map([...B85].map((c, i) => [c, i]))

/** Python's `base64.b85encode` (RFC 1924 alphabet, no padding kept). */
export function b85encode(bytes: Uint8Array): string {
  const pad = (4 - (bytes.length % 4)) % 4
  const padded = new Uint8Array(bytes.length + pad)
  padded.set(bytes)
  let out = ''
  for (let i = 0; i < padded.length; i += 4) {
    let n = ((padded[i]! << 24) | (padded[i + 1]! << 16) | (padded[i + 2]! << 8) | padded[i + 3]!) >>> 0
    const chunk: string[] = []
    for (let j = 0; j < 5; j++) {
      chunk.push(B85[n % 85]!)
      n = Math.floor(n / 85)
    }
    out += chunk.reverse().join('')
  }
  return pad ? out.slice(0, out.length - pad) : out
}

/** Python's `base64.b85decode`. */
export function b85decode(text: string): Uint8Array {
  const pad = (5 - (text.length % 5)) % 5
  const s = text + '~'.repeat(pad)
  const out = new Uint8Array((s.length / 5) * 4)
  for (let i = 0, o = 0; i < s.length; i += 5, o += 4) {
    let n = 0
    for (let j = 0; j < 5; j++) {
      const v = B85_INDEX.get(s[i + j]!)
      if (v === undefined) throw new Error(`not base85: character ${JSON.stringify(s[i + j])} at ${i + j}`)
      n = n * 85 + v
    }
    if (n > 0xffffffff) throw new Error(`not base85: group at ${i} overflows`)
    out[o] = n >>> 24
    out[o + 1] = (n >>> 16) & 255
    out[o + 2] = (n >>> 8) & 255
    out[o + 3] = n & 255
  }
  return out.subarray(0, out.length - pad)
}

export interface CheckpointState {
  formatVersion: string
  serde: string
  payload?: string
}

/** Python's `json.dumps` with default separators, for `{"urns": [...]}`. */
function pythonJson(urns: string[]): string {
  return `{"urns": [${urns.map((u) => JSON.stringify(u).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)).join(', ')}]}`
}

/** bzip2, loaded by the runs that read or write a checkpoint: 25 modules every other command need not load. */
function bzip2(): (typeof import('compressjs'))['default']['Bzip2'] {
  return (createRequire(import.meta.url)('compressjs') as (typeof import('compressjs'))['default']).Bzip2
}

export function encodeState(urns: string[]): CheckpointState {
  const json = Buffer.from(pythonJson(urns), 'utf8')
  const compressed = bzip2().compressFile(json, null, 9) as ArrayLike<number>
  return {formatVersion: '1.0', serde: 'base85-bz2-json', payload: b85encode(Uint8Array.from(compressed))}
}

const LEGACY_FIELDS = ['encoded_table_urns', 'encoded_view_urns', 'encoded_container_urns', 'encoded_assertion_urns', 'encoded_topic_urns', 'encoded_node_urns']

/** The urns of a checkpoint's state, whichever serde DataHub or we wrote it with. */
export function decodeState(state: CheckpointState): string[] {
  let text: string
  if (state.serde === 'utf-8') text = state.payload ?? '{}'
  else if (state.serde === 'base85-bz2-json') text = Buffer.from(bzip2().decompressFile(Buffer.from(b85decode(state.payload ?? ''))) as ArrayLike<number>).toString('utf8')
  else throw new Error(`checkpoint state serde ${JSON.stringify(state.serde)} is not supported (base85-bz2-json and utf-8 are)`)
  const parsed = JSON.parse(text) as Record<string, unknown>
  const urns: string[] = Array.isArray(parsed.urns) ? (parsed.urns as string[]) : []
  for (const f of LEGACY_FIELDS) if (Array.isArray(parsed[f])) urns.push(...(parsed[f] as string[]))
  return [...new Set(urns)]
}

// ---------------------------------------------------------------------------------------------
// Where checkpoints live.

export function checkpointJobUrn(provider: 'datahub' | 'file', pipelineName: string, jobId: string): string {
  return `urn:li:dataJob:(urn:li:dataFlow:(${provider},${pipelineName},prod),${jobId})`
}

interface CheckpointValue {
  timestampMillis: number
  pipelineName: string
  runId: string
  state: CheckpointState
}

interface StateProvider {
  readonly name: 'datahub' | 'file'
  /** The last committed checkpoint of this job, if any. */
  load(jobUrn: string, pipelineName: string): Promise<CheckpointValue | undefined>
  /** Stores the new checkpoint (the proposals are the job's soft-delete and the checkpoint). */
  commit(proposals: ProposalInput[]): Promise<void>
}

function fileProvider(filename: string): StateProvider {
  return {
    name: 'file',
    async load(jobUrn, pipelineName) {
      if (!existsSync(filename)) return undefined
      let records: unknown
      try {
        records = JSON.parse(readFileSync(filename, 'utf8'))
      } catch (e) {
        throw new ConfigError(`stateful_ingestion: the checkpoint file ${filename} is not JSON (${(e as Error).message})`)
      }
      for (const r of Array.isArray(records) ? records : [records]) {
        const rec = r as {entityUrn?: string; aspectName?: string; aspect?: {json?: CheckpointValue; value?: string}}
        if (rec?.entityUrn !== jobUrn || rec.aspectName !== 'datahubIngestionCheckpoint') continue
        const value = rec.aspect?.json ?? (rec.aspect?.value ? (JSON.parse(rec.aspect.value) as CheckpointValue) : undefined)
        if (value?.pipelineName === pipelineName) return value
      }
      return undefined
    },
    async commit(proposals) {
      const checkpoint = proposals.filter((p) => p.aspectName === 'datahubIngestionCheckpoint')
      writeFileSync(filename, JSON.stringify(checkpoint.map((p) => ({entityType: p.entityType, entityUrn: p.entityUrn, changeType: 'UPSERT', aspectName: p.aspectName, aspect: p.aspect})), null, 4) + '\n')
    },
  }
}

function catalogProvider(graph: () => Promise<MdcliClient | undefined>, problem?: () => string | undefined): StateProvider {
  const client = async (): Promise<MdcliClient> => {
    const c = await graph()
    if (!c) {
      const why = problem?.()
      throw new ConfigError(`stateful_ingestion keeps its checkpoint on an mdcli server, and ${why ?? 'none answered'}; start it, point datahub_api or the datahub-rest sink at one, or use state_provider type \`file\``)
    }
    return c
  }
  return {
    name: 'datahub',
    async load(jobUrn, pipelineName) {
      const c = await client()
      let entity
      try {
        entity = await c.getEntity(jobUrn, ['datahubIngestionCheckpoint'])
      } catch (e) {
        if ((e as {code?: string}).code === 'E_NOT_FOUND') return undefined
        throw e
      }
      const value = entity?.aspects?.datahubIngestionCheckpoint?.value as CheckpointValue | undefined
      return value?.pipelineName === pipelineName ? value : undefined
    },
    async commit(proposals) {
      const c = await client()
      const outcome = await c.ingestProposals(proposals, {atomic: true})
      const failed = outcome.results.find((r) => !r.ok)
      if (failed) throw new Error(`the checkpoint was refused: ${failed.error?.message ?? 'unknown error'}`)
    },
  }
}

// ---------------------------------------------------------------------------------------------
// The processor.

export interface StatefulRun {
  /** Wraps the source's stream: records urns, and yields the soft-deletes at its end. */
  transform(stream: WorkUnitStream): WorkUnitStream
  /** After a run with no failures: stores this run's checkpoint. */
  commit(): Promise<void>
}

export interface StatefulOptions {
  config: StatefulConfig
  pipelineName?: string
  jobId: string
  runId: string
  ctx: PluginContext
  /** Why no server answered for the checkpoint, when none did (the pipeline's probe). */
  graphProblem?: () => string | undefined
  /** Where removals and refusals are reported (the source's report). */
  report: () => Report
  /**
   * Failures of the run so far, everything before the removals included: the pipeline flushes
   * the sink first, so a record the server refused counts (DataHub looks at the source alone).
   */
  failuresSoFar: () => Promise<number>
  /** Dry runs and previews never commit. */
  commitAllowed: boolean
  clock: () => number
}

/** Sets up stale-entity removal for one run; undefined when `enabled` is false. */
export async function statefulRun(opts: StatefulOptions): Promise<StatefulRun | undefined> {
  const {config} = opts
  if (!config.enabled) return undefined
  if (!opts.pipelineName) throw new ConfigError('stateful_ingestion needs a `pipeline_name` at the top of the recipe (it names the checkpoint)')
  const pipelineName = opts.pipelineName
  const providerConf = config.state_provider ?? {type: 'datahub'}
  let provider: StateProvider
  if (providerConf.type === 'file') {
    const filename = providerConf.config?.filename
    if (!filename) throw new ConfigError('stateful_ingestion.state_provider.config.filename is required for the file state provider')
    provider = fileProvider(opts.ctx.resolvePath(filename))
  } else provider = catalogProvider(opts.ctx.graph, opts.graphProblem)
  const jobUrn = checkpointJobUrn(provider.name, pipelineName, opts.jobId)

  let previous: string[] | undefined
  if (!config.ignore_old_state) {
    try {
      const last = await provider.load(jobUrn, pipelineName)
      if (last) previous = decodeState(last.state)
      opts.report().info('lastCheckpoint', last ? `${jobUrn}: ${previous!.length} entities (run ${last.runId})` : `${jobUrn}: none`)
    } catch (e) {
      if (e instanceof ConfigError) throw e
      opts.report().warning('stateful-ingestion', `could not read the last checkpoint of ${jobUrn}: ${(e as Error).message}; no stale entities will be removed`)
    }
  }

  const seen = new Set<string>()
  const removeStale = config.remove_stale_metadata && previous !== undefined
  let produced = 0

  async function* transform(stream: WorkUnitStream): AsyncGenerator<WorkUnit> {
    for await (const wu of stream) {
      produced++
      for (const p of wu?.proposals ?? []) if (typeof p?.entityUrn === 'string' && p.entityUrn !== jobUrn) seen.add(p.entityUrn)
      yield wu
    }
    if (!removeStale) return
    const report = opts.report()
    const old = previous!
    const kept = old.filter((u) => seen.has(u)).length
    const changedPct = old.length === 0 ? 0 : (1 - kept / old.length) * 100
    if (changedPct > config.fail_safe_threshold && config.fail_safe_threshold < 100) {
      report.failure(
        'stale-entity-removal',
        `Will not soft-delete entities, since we'd be deleting ${changedPct.toFixed(1)}% of the existing entities. To force a deletion, increase the value of 'stateful_ingestion.fail_safe_threshold' (currently ${config.fail_safe_threshold})`,
      )
      return
    }
    if (produced === 0) {
      report.failure('stale-entity-removal', 'Skipping stale entity soft-deletion because the source produced no events. This is a fail-safe mechanism to prevent accidental deletion of all entities.')
      return
    }
    if ((await opts.failuresSoFar()) > 0) {
      report.warning('stale-entity-removal', 'Skipping stale entity soft-deletion since the run already had failures.')
      return
    }
    const stale = old.filter((u) => !seen.has(u))
    // DataHub's report keeps a lossy list of these; the first hundred say enough.
    if (stale.length > 0) report.info('softDeletedStaleEntities', stale.slice(0, 100))
    for (const urn of stale) {
      report.count('softDeletedStaleEntities')
      yield {id: `soft-delete-${urn}`, kind: 'mcp', proposals: [mcp(urn, 'status', {removed: true})]}
    }
  }

  return {
    transform,
    async commit() {
      if (!opts.commitAllowed || config.ignore_new_state) return
      const value = {
        timestampMillis: opts.clock(),
        partitionSpec: {type: 'FULL_TABLE', partition: 'FULL_TABLE_SNAPSHOT'},
        pipelineName,
        platformInstanceId: '',
        config: '',
        state: encodeState([...seen]),
        runId: opts.runId,
      }
      // Not under the run's id, as DataHub's checkpointing provider writes it: the checkpoint is
      // bookkeeping, not the run's metadata, so list-runs and the report count the same rows and
      // rolling the run back leaves the checkpoint (the state after the run) where it is.
      const systemMetadata = {lastObserved: opts.clock(), pipelineName}
      // As DataHub does: the job is soft-deleted first so checkpoints stay out of search.
      await provider.commit([
        {...mcp(jobUrn, 'status', {removed: true}, 'dataJob'), systemMetadata},
        {...mcp(jobUrn, 'datahubIngestionCheckpoint', value, 'dataJob'), systemMetadata},
      ])
    },
  }
}
