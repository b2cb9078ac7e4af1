/**
 * The plugin contracts every source, sink and transformer implements, built-in or third-party.
 *
 * Glossary:
 * - work unit: one unit of source output (a record of a file, a node of a glossary) with the
 *   change proposals it produced. The pipeline counts, transforms, stamps and writes work units;
 *   `kind` says whether it came from an MCE snapshot (already unpacked into proposals) or an MCP.
 * - source: reads somewhere and yields work units; never writes.
 * - sink: takes work units and writes them somewhere (server, file, console).
 * - transformer: a function from a stream of work units to another stream.
 * - plugin definition: what a plugin module exports — a JSON Schema for its config and a
 *   `create(config, ctx)` factory. A module's default export (or its `plugin` export) is read.
 *
 * A third-party plugin is plain JavaScript: it needs nothing from mdcli at import time.
 */
import type {MdcliClient, RequestLog} from '../client/client.js'
import type {JsonSchema} from '../model/aspects/types.js'
import type {ProposalInput} from '../model/wire.js'
import type {Report} from './report.js'

export type {JsonSchema} from '../model/aspects/types.js'
export type {ProposalInput} from '../model/wire.js'

export interface WorkUnit {
  /** Stable id naming where the unit came from, e.g. `file:///data/mce.json:17`. */
  id: string
  kind: 'mcp' | 'mce'
  proposals: ProposalInput[]
}

export type WorkUnitStream = AsyncIterable<WorkUnit>

/** What a plugin gets besides its config. */
export interface PluginContext {
  runId: string
  pipelineName?: string
  /** Directory that relative paths in configs are resolved against (the recipe's). */
  baseDir: string
  /** True when nothing will be written (`--dry-run`). */
  dryRun: boolean
  /** This plugin's report: counts, warnings and failures go here. */
  report: Report
  /** Milliseconds since the epoch; tests freeze it. */
  now(): number
  /**
   * The metadata server to read current state from (PATCH semantics, preserve_upstream), when
   * one is configured and answers; undefined otherwise. Connects at most once per run.
   */
  graph(): Promise<MdcliClient | undefined>
  /** Where a console-like sink writes. */
  stdout: NodeJS.WritableStream
  /** Hand it to `connectServer`: with `--debug`, each request is logged (never the token). */
  onRequest?: RequestLog
  env: NodeJS.ProcessEnv
  /**
   * Aborted when the user stops the run (Ctrl-C). The pipeline stops between work units anyway; a
   * source waiting on the network can listen to it to give up at once.
   */
  signal?: AbortSignal
  /** Resolves a path from the config against `baseDir`. */
  resolvePath(path: string): string
  /**
   * A sink hands each record its destination refused here, with the reason: the run's failure
   * log keeps them (`failure_log` in the recipe). Absent when the recipe keeps none.
   */
  recordFailed?(proposal: ProposalInput, reason: string): void
}

export interface Source {
  workunits(): WorkUnitStream
  /** Defaults to the context's report. */
  report?: Report
  /** Progress for the live view: fraction done in [0, 1], when the source can tell. */
  progress?(): number | undefined
  close?(): Promise<void>
}

export interface Sink {
  write(workUnit: WorkUnit): Promise<void>
  /** Resolves once every record handed to `write` has been written or reported failed. */
  flush(): Promise<void>
  /**
   * `failed`: the run is ending on a failure. A sink that replaces a destination (a file) may
   * then leave it as it was when nothing reached it.
   */
  close(end?: {failed: boolean}): Promise<void>
  report?: Report
  /**
   * True when the destination checks every record itself (the server does); the pipeline then
   * skips its own schema check to spend the CPU once.
   */
  validatesRecords?: boolean
}

export type Transform = (stream: WorkUnitStream) => WorkUnitStream

export interface PluginBase {
  /** One line for `mdcli check plugins --verbose`. */
  description?: string
  /** JSON Schema of the plugin's `config`; validated (with defaults filled) before the run starts. */
  configSchema: JsonSchema
}

/** `C` is the config type: `create` is only called with a config that passed `configSchema`. */
export interface SourcePlugin<C = any> extends PluginBase {
  create(config: C, ctx: PluginContext): Source | Promise<Source>
  /**
   * Emit `status {removed: false}` for every entity the source produced that had none, after the
   * stream ends (DataHub's auto-status processor), so a re-run brings back what a rollback or a
   * soft delete hid. On unless a source says `false`: one that only adds to entities others
   * produce (DataHub's "not a primary source", such as the CSV enricher) must not revive them.
   */
  autoStatus?: boolean
  /**
   * The data platform the source reads (`postgres`, `lookml`…); names its stateful-ingestion
   * job (`<platform>_stale_entity_removal`). Defaults to the source's type name.
   */
  platform?: string
  /** A job id other than `<platform>_stale_entity_removal` (DataHub's dbt source has one). */
  statefulJobId?: string
}

/** Where a sink writes, when that is an mdcli (or DataHub) server. */
export interface ServerTarget {
  server: string
  token?: string
  /** Where `server` came from (the recipe, a variable, the config file), named when it cannot be reached. */
  serverFrom?: string
  /** DataHub's TLS keys of the connection (paths relative to the recipe). */
  tls?: {disable_ssl_verification?: boolean; ca_certificate_path?: string | null; client_certificate_path?: string | null}
}

export interface SinkPlugin<C = any> extends PluginBase {
  create(config: C, ctx: PluginContext): Sink | Promise<Sink>
  /**
   * Capability: the server this sink would write to with `config`, so sources and stateful
   * ingestion can read current state from it. Sinks that write elsewhere leave it out.
   */
  serverTarget?(config: C, env: NodeJS.ProcessEnv): ServerTarget
}

export interface TransformerPlugin<C = any> extends PluginBase {
  create(config: C, ctx: PluginContext): Transform | Promise<Transform>
}

export type PluginKind = 'source' | 'sink' | 'transformer'

export type AnyPlugin = SourcePlugin | SinkPlugin | TransformerPlugin

/** Builds an MCP-form proposal with the aspect as a plain object. */
export function mcp(entityUrn: string, aspectName: string, value: unknown, entityType?: string): ProposalInput {
  return {
    entityType: entityType ?? entityUrn.split(':')[2],
    entityUrn,
    changeType: 'UPSERT',
    aspectName,
    aspect: {json: value},
  }
}
