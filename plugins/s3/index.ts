/**
 * Source `s3`: DataHub's data-lake source — files described by path specs become datasets —
 * here on local paths (platform `file`, as DataHub names a local lake). Per dataset, as DataHub
 * emits them: `datasetProperties` (the file the schema came from, file count and bytes),
 * `schemaMetadata` inferred from the newest file (CSV/TSV, JSON/JSON lines, Parquet, Avro), an
 * `operation` stamped with the newest file's time, folder containers above it, and with
 * profiling on a `datasetProfile` of that file as DataHub's Spark/Deequ profiler computes it.
 *
 * Files are listed once and grouped by table; only the newest file of a table is read, and it is
 * read streaming, so a run's memory does not grow with the number or size of files.
 * `s3://` paths go through the same path specs once an object-store FileSystem is plugged in.
 */
import {ALLOW_DENY_SCHEMA, allowDeny, ConfigError, FULL_TABLE, mcp, schemaMetadata, type PluginContext, type ProposalInput, type Source, type SourcePlugin, type WorkUnit, configSchema, type ConfigOf, envOf} from '../../src/sdk/index.js'
import {lastModifiedPatch} from '../data-lake-common/aspects.js'
import {FolderContainers} from '../data-lake-common/containers.js'
import {Duck} from '../data-lake-common/duck.js'
import {LocalFileSystem, type FileSystem} from '../data-lake-common/fs.js'
import {PATH_SPEC_SCHEMA, PathSpec} from '../data-lake-common/path-spec.js'
import {profileFile} from '../data-lake-common/profile.js'
import {inferSchema} from '../data-lake-common/schema.js'

const PROFILING_SCHEMA = {
  type: 'object',
  properties: {
    enabled: {type: 'boolean', default: false},
    operation_config: {type: 'object'},
    profile_table_level_only: {type: 'boolean', default: false},
    max_number_of_fields_to_profile: {type: 'integer', minimum: 1},
    include_field_null_count: {type: 'boolean', default: true},
    include_field_min_value: {type: 'boolean', default: true},
    include_field_max_value: {type: 'boolean', default: true},
    include_field_mean_value: {type: 'boolean', default: true},
    include_field_median_value: {type: 'boolean', default: true},
    include_field_stddev_value: {type: 'boolean', default: true},
    include_field_quantiles: {type: 'boolean', default: true},
    include_field_distinct_value_frequencies: {type: 'boolean', default: true},
    include_field_histogram: {type: 'boolean', default: true},
    include_field_sample_values: {type: 'boolean', default: true},
    allow_deny_patterns: ALLOW_DENY_SCHEMA,
    max_file_size_bytes: {type: 'integer', minimum: 1, default: 1 << 30},
    sample_rows: {type: 'integer', minimum: 1, default: 100_000},
  },
  additionalProperties: false,
  default: {},
} as const

const CONFIG = configSchema({
  type: 'object',
  properties: {
    path_specs: {type: 'array', items: PATH_SPEC_SCHEMA, minItems: 1},
    platform: {type: 'string'},
    platform_instance: {type: 'string', minLength: 1},
    env: {type: 'string', default: 'PROD'},
    profile_patterns: ALLOW_DENY_SCHEMA,
    profiling: PROFILING_SCHEMA,
    max_rows: {type: 'integer', minimum: 1, default: 100},
    max_json_bytes: {type: 'integer', minimum: 1, default: 64 << 20},
    number_of_files_to_sample: {type: 'integer', minimum: 1, default: 100},
    // DataHub's S3/Spark keys, accepted so its recipes load; they have no effect on local paths.
    aws_config: {type: 'object'},
    use_s3_bucket_tags: {type: 'boolean'},
    use_s3_object_tags: {type: 'boolean'},
    use_s3_content_type: {type: 'boolean'},
    spark_driver_memory: {type: 'string'},
    spark_config: {type: 'object'},
    verify_ssl: {anyOf: [{type: 'boolean'}, {type: 'string'}]},
    domain: {type: 'object', additionalProperties: ALLOW_DENY_SCHEMA},
    stateful_ingestion: {type: 'object'},
  },
  required: ['path_specs'],
  additionalProperties: false,
})
export type S3Config = ConfigOf<typeof CONFIG>

interface TableData {
  name: string
  tablePath: string
  /** The newest non-empty file: the one the schema and profile come from. */
  fullPath: string
  mtimeMs: number
  files: number
  bytes: number
  partitions: Set<string>
  partitionKeys: string[] | undefined
  spec: PathSpec
}

const plugin: SourcePlugin<S3Config> = {
  description: "DataHub's s3 data-lake source on local folders: path specs, inferred schemas, folders, profiles.",
  platform: 'file',
  autoStatus: true,
  configSchema: CONFIG,
  async create(config, ctx: PluginContext): Promise<Source> {
    const env = envOf(config.env)
    const specs = config.path_specs.map((p) => new PathSpec(p as never))
    for (const s of specs) if (/^(s3a?|gs|abfss?):\/\//.test(s.include)) throw new ConfigError(`s3: ${s.include}: object-store paths need an object-store FileSystem, which is not built yet; local paths work`)
    const platform = config.platform ?? 'file'
    const fs: FileSystem = new LocalFileSystem(ctx.baseDir)
    const report = ctx.report
    const duck = new Duck()
    const containers = new FolderContainers({platform, instance: config.platform_instance, env})
    const profileOk = allowDeny(config.profile_patterns, true, 'source.config.profile_patterns')
    const columnOk = allowDeny(config.profiling.allow_deny_patterns, true, 'source.config.profiling.allow_deny_patterns')
    const domains = Object.entries(config.domain ?? {}).map(([urn, p]) => ({urn: urn.startsWith('urn:li:domain:') ? urn : `urn:li:domain:${urn}`, ok: allowDeny(p, true, `source.config.domain.${urn}`)}))
    let stopped = false
    let tablesTotal = 0

    /**
     * The tables of one path spec, each complete as soon as the listing has left its folder: a
     * walk (like an object store's sorted listing) visits a folder's files together, so only the
     * table being listed is held, however many the lake has.
     */
    async function* tablesOf(spec: PathSpec): AsyncGenerator<TableData> {
      const prefix = spec.prefix
      const top = await fs.stat(prefix)
      if (!top) {
        report.warning('path not found', `${prefix} (from include ${spec.include}) does not exist`)
        return
      }
      const files = top.isDirectory ? fs.walk(prefix) : (async function* () {
        yield {path: prefix, size: top.size, mtimeMs: top.mtimeMs}
      })()
      let current: TableData | undefined
      const done = new Set<string>()
      for await (const f of files) {
        if (stopped) return
        if (!spec.allowed(f.path)) {
          report.count('filesFiltered')
          continue
        }
        const t = spec.tableOf(f.path)!
        report.count('filesScanned')
        const partition = t.partitions.map(([k, v]) => `${k}=${v}`).join('/')
        if (current && current.tablePath !== t.tablePath) {
          done.add(current.tablePath)
          yield current
          current = undefined
        }
        if (done.has(t.tablePath)) {
          report.warning('file listed late', `${f.path}: its table ${t.tablePath} was already emitted; not counted`)
          continue
        }
        if (!current) {
          current = {name: t.name, tablePath: t.tablePath, fullPath: f.path, mtimeMs: f.mtimeMs, files: 1, bytes: f.size, partitions: new Set(partition ? [partition] : []), partitionKeys: t.namedPartitions ? t.partitions.map(([k]) => k) : undefined, spec}
          continue
        }
        current.files++
        current.bytes += f.size
        // Partitions are counted, not kept, past a bound.
        if (partition && current.partitions.size < 10_000) current.partitions.add(partition)
        // DataHub reads the newest non-empty file of a table.
        if (current.mtimeMs < f.mtimeMs && f.size > 0) {
          current.fullPath = f.path
          current.mtimeMs = f.mtimeMs
        }
      }
      if (current) yield current
    }

    async function* tableWorkUnits(t: TableData): AsyncGenerator<WorkUnit> {
      const name = config.platform_instance ? `${config.platform_instance}.${t.tablePath}` : t.tablePath
      const urn = `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},${env})`
      const format = t.spec.formatOf(t.fullPath)
      const customProperties: Record<string, string> = {schema_inferred_from: t.fullPath, number_of_files: String(t.files), size_in_bytes: String(t.bytes)}
      if (t.partitionKeys?.length) customProperties.partition_keys = t.partitionKeys.join(',')
      const proposals: ProposalInput[] = []
      const pi = containers.datasetPlatformInstance()
      if (pi) proposals.push(mcp(urn, 'dataPlatformInstance', pi))
      proposals.push(mcp(urn, 'datasetProperties', {customProperties, name: t.name, description: '', tags: []}))
      if (t.bytes > 0) {
        try {
          const fields = await inferSchema(fs, t.fullPath, format, {maxRows: config.max_rows, maxJsonBytes: config.max_json_bytes, duck})
          proposals.push(
            mcp(urn, 'schemaMetadata', schemaMetadata(t.name, platform, fields)),
          )
        } catch (e) {
          report.warning('schema not inferred', `${t.fullPath}: ${(e as Error).message.split('\n')[0]}`)
        }
      }
      const lastUpdated = Math.floor(t.mtimeMs)
      proposals.push(mcp(urn, 'operation', {timestampMillis: ctx.now(), partitionSpec: FULL_TABLE, operationType: 'UPDATE', lastUpdatedTimestamp: lastUpdated}))
      yield {id: `${urn}-properties`, kind: 'mcp', proposals}
      const place = containers.place(t.tablePath)
      if (place.proposals.length) yield {id: `containers-${urn}`, kind: 'mcp', proposals: place.proposals}
      const own: ProposalInput[] = []
      if (place.parent) own.push(mcp(urn, 'container', {container: place.parent}))
      const domain = domains.filter((d) => d.ok(t.tablePath)).pop()
      if (domain) own.push(mcp(urn, 'domains', {domains: [domain.urn]}))
      if (config.profiling.enabled && profileOk(t.tablePath) && t.bytes > 0) {
        const p = config.profiling
        const tooBig = (await fs.stat(t.fullPath))!.size > p.max_file_size_bytes
        try {
          const {profile, sampled} = await profileFile(fs, t.fullPath, format, {...p, columnOk}, {duck, maxJsonBytes: config.max_json_bytes, now: ctx.now(), maxRows: tooBig ? p.sample_rows : undefined, signal: () => stopped})
          if (sampled) report.warning('profile sampled', `${t.fullPath} is larger than profiling.max_file_size_bytes (${p.max_file_size_bytes}); profiled its first ${p.sample_rows} rows`)
          own.push(mcp(urn, 'datasetProfile', profile))
          report.count('tablesProfiled')
        } catch (e) {
          report.warning('profiling failed', `${t.fullPath}: ${(e as Error).message.split('\n')[0]}`)
        }
      }
      own.push(mcp(urn, 'browsePathsV2', {path: place.browsePath}))
      // DataHub's auto_patch_last_modified, emitted with the table rather than at the end of the run.
      own.push(lastModifiedPatch(urn, lastUpdated))
      yield {id: `${urn}-aspects`, kind: 'mcp', proposals: own}
    }

    return {
      report,
      // Tables are emitted as the listing finds them, so there is no total to show progress against.
      progress: () => undefined,
      async *workunits() {
        for (const spec of specs) {
          for await (const t of tablesOf(spec)) {
            if (stopped) return
            tablesTotal++
            report.count('tablesScanned')
            if (t.partitions.size) report.count('partitionsScanned', t.partitions.size)
            yield* tableWorkUnits(t)
          }
        }
        if (tablesTotal === 0) report.warning('no tables', `no file matched ${specs.map((s) => s.include).join(', ')}`)
      },
      async close() {
        stopped = true
        duck.close()
      },
    }
  },
}

export default plugin
