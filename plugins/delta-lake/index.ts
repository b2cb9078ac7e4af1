/**
 * Source `delta-lake`: Delta tables in a folder, read from their transaction logs, as DataHub's
 * `delta-lake` source emits them — a dataset per table (`datasetProperties` with the table's id,
 * version, creation time, partition columns and file count; `schemaMetadata` from the table's
 * schema, with version-2 field paths as DataHub converts Delta types), folder containers above
 * it, an `operation` per commit of the history asked for, and `lastModified` from the newest.
 *
 * `base_path` is a table, or a folder searched depth first for tables (a folder that is not a
 * table is descended into). Paths are named as written in the recipe.
 */
import {ALLOW_DENY_SCHEMA, allowDeny, ConfigError, FULL_TABLE, mcp, schemaMetadata, type PluginContext, type ProposalInput, type Source, type SourcePlugin, type WorkUnit, configSchema, type ConfigOf, envOf} from '../../src/sdk/index.js'
import {FolderContainers} from '../data-lake-common/containers.js'
import {lastModifiedPatch, pyStr} from '../data-lake-common/aspects.js'
import {avroSchemaFields, type AvroField, type AvroSchema} from '../data-lake-common/avro-fields.js'
import {LocalFileSystem, type FileSystem} from '../data-lake-common/fs.js'
import {readParquetRows} from '../data-lake-common/duck.js'
import {isDeltaTable, readDeltaLog, type DeltaTableState} from './log.js'

const CONFIG = configSchema({
  type: 'object',
  properties: {
    base_path: {type: 'string', minLength: 1},
    relative_path: {type: 'string'},
    platform: {type: 'string', default: 'delta-lake'},
    platform_instance: {type: 'string', minLength: 1},
    env: {type: 'string', default: 'PROD'},
    table_pattern: ALLOW_DENY_SCHEMA,
    version_history_lookback: {type: 'integer', default: 1},
    require_files: {anyOf: [{type: 'boolean'}, {enum: ['True', 'False', 'true', 'false']}], default: true},
    domain: {type: 'object', additionalProperties: ALLOW_DENY_SCHEMA},
    s3: {type: 'object'},
    azure: {type: 'object'},
    stateful_ingestion: {type: 'object'},
  },
  required: ['base_path'],
  additionalProperties: false,
})
export type DeltaLakeConfig = ConfigOf<typeof CONFIG>

// DataHub's mapping of Delta operations to operation types; the rest are CUSTOM.
const OPERATION_TYPES: Record<string, string> = {
  INSERT: 'INSERT',
  UPDATE: 'UPDATE',
  DELETE: 'DELETE',
  MERGE: 'UPDATE',
  CREATE: 'CREATE',
  CREATE_TABLE_AS_SELECT: 'CREATE',
  CREATE_SCHEMA: 'CREATE',
  DROP_TABLE: 'DROP',
  'REPLACE TABLE AS SELECT': 'UPDATE',
  'COPY INTO': 'UPDATE',
}

type DeltaType = string | {type: string; elementType?: DeltaType; keyType?: DeltaType; valueType?: DeltaType; fields?: Array<{name: string; type: DeltaType}>}

/** Delta's type JSON as Hive type text (`struct<a:int,b:array<string>>`), DataHub's `delta_type_to_hive_type`. */
export function hiveType(t: DeltaType): string {
  if (typeof t === 'string') return t
  if (t.type === 'array') return `array<${hiveType(t.elementType!)}>`
  if (t.type === 'map') return `map<${hiveType(t.keyType!)},${hiveType(t.valueType!)}>`
  if (t.type === 'struct') return `struct<${(t.fields ?? []).map((f) => `${f.name}:${hiveType(f.type)}`).join(',')}>`
  return t.type
}

/** A Delta/Hive primitive as Avro (DataHub's Hive-to-Avro conversion). */
function avroPrimitive(t: string): AvroSchema {
  const base = t.toLowerCase().replace(/\(.*$/, '')
  switch (base) {
    case 'integer':
    case 'int':
    case 'short':
    case 'smallint':
    case 'byte':
    case 'tinyint':
      return 'int'
    case 'long':
    case 'bigint':
      return 'long'
    case 'float':
      return 'float'
    case 'double':
      return 'double'
    case 'boolean':
      return 'boolean'
    case 'binary':
      return 'bytes'
    case 'date':
      return {type: 'int', logicalType: 'date'}
    case 'timestamp':
    case 'timestamp_ntz':
      return {type: 'long', logicalType: 'timestamp-micros'}
    case 'decimal':
      return {type: 'bytes', logicalType: 'decimal'}
    default:
      return 'string'
  }
}

function avroOf(t: DeltaType): AvroSchema {
  if (typeof t === 'string') return avroPrimitive(t)
  if (t.type === 'array') return {type: 'array', items: avroOf(t.elementType!)}
  if (t.type === 'map') return {type: 'map', values: avroOf(t.valueType!)}
  if (t.type === 'struct') return {type: 'record', name: 'struct', fields: (t.fields ?? []).map((f): AvroField => ({name: f.name, type: avroOf(f.type), native_data_type: hiveType(f.type)}))}
  return avroPrimitive(t.type)
}

/** The schema fields of a Delta schema, sorted by path as DataHub sorts them. */
export function deltaSchemaFields(schemaString: string) {
  const schema = JSON.parse(schemaString) as {fields: Array<{name: string; type: DeltaType}>}
  const fields = schema.fields.flatMap((f) => {
    const hive = hiveType(f.type)
    if (typeof f.type === 'string') return avroSchemaFields(avroPrimitive(f.type), {defaultNullable: true}, f.name, hive)
    // A complex column is a one-field record named `struct` around it.
    return avroSchemaFields({type: 'record', name: 'struct', fields: [{name: f.name, type: avroOf(f.type), native_data_type: hive}]}, {defaultNullable: true})
  })
  return fields.sort((a, b) => (a.fieldPath < b.fieldPath ? -1 : a.fieldPath > b.fieldPath ? 1 : 0))
}

/** An operation per history entry, DataHub's `_create_operation_aspect_wu`. */
function operationOf(h: Record<string, unknown>, now: number): Record<string, unknown> {
  const op = typeof h.operation === 'string' ? h.operation : 'UNKNOWN'
  const type = OPERATION_TYPES[op] ?? 'CUSTOM'
  const props: Record<string, string> = {}
  for (const key of Object.keys(h).sort()) {
    const val = h[key]
    if (val === null || val === undefined) continue
    if (typeof val === 'object' && !Array.isArray(val)) {
      for (const k of Object.keys(val).sort()) {
        const v = (val as Record<string, unknown>)[k]
        if (v !== null && v !== undefined) props[`${key}_${k}`] = pyStr(v)
      }
    } else props[key] = pyStr(val)
  }
  delete props.timestamp
  delete props.operation
  return {
    timestampMillis: now,
    partitionSpec: FULL_TABLE,
    operationType: type,
    ...(type === 'CUSTOM' ? {customOperationType: op} : {}),
    customProperties: props,
    lastUpdatedTimestamp: Number(h.timestamp),
  }
}

const plugin: SourcePlugin<DeltaLakeConfig> = {
  description: 'Delta Lake tables on a local path, read from their transaction logs.',
  platform: 'delta-lake',
  configSchema: CONFIG,
  async create(config, ctx: PluginContext): Promise<Source> {
    const env = envOf(config.env)
    if (/^(s3a?|gs|abfss?|az|https?):\/\//.test(config.base_path)) throw new ConfigError(`delta-lake: ${config.base_path}: only local paths are read (object stores are not built yet)`)
    const fs: FileSystem = new LocalFileSystem(ctx.baseDir)
    const report = ctx.report
    const platform = config.platform
    const requireFiles = config.require_files === true || config.require_files === 'True' || config.require_files === 'true'
    const completePath = config.relative_path ? `${config.base_path.replace(/\/+$/, '')}/${config.relative_path.replace(/^\/+/, '')}` : config.base_path
    const root = await fs.stat(completePath)
    if (!root?.isDirectory) throw new ConfigError(`delta-lake: ${completePath} does not exist or is not a directory (base_path)`)
    const containers = new FolderContainers({platform, instance: config.platform_instance, env})
    const tableOk = allowDeny(config.table_pattern, true, 'source.config.table_pattern')
    const domains = Object.entries(config.domain ?? {}).map(([urn, p]) => ({urn: urn.startsWith('urn:li:domain:') ? urn : `urn:li:domain:${urn}`, ok: allowDeny(p, true, `source.config.domain.${urn}`)}))
    let stopped = false
    let found = 0

    const readCheckpoint = (paths: string[]) => readParquetRows(paths.map((p) => fs.localPath(p) ?? p), 'SELECT "add", "remove", "metaData" FROM read_parquet($files)')

    function tableWorkUnits(path: string, state: DeltaTableState): WorkUnit[] {
      const meta = state.metadata
      const tableName = meta.name || path.split('/').pop()!
      // DataHub checks the pattern but ingests the table anyway; so do we, and say so.
      if (!tableOk(tableName)) report.warning('table_pattern', `${tableName} (${path}) does not match table_pattern; ingested anyway, as DataHub does`)
      const browsePath = config.relative_path ? path.split(config.base_path)[1]!.replace(/^\/+|\/+$/g, '') : path.replace(/^\/+|\/+$/g, '')
      const name = config.platform_instance ? `${config.platform_instance}.${browsePath}` : browsePath
      const urn = `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},${env})`
      const customProperties: Record<string, string> = {
        partition_columns: pyStr(meta.partitionColumns ?? []),
        table_creation_time: pyStr(meta.createdTime ?? null),
        id: String(meta.id),
        version: String(state.version),
        location: completePath,
      }
      if (requireFiles) customProperties.number_of_files = String(state.files.size)
      const proposals: ProposalInput[] = [
        mcp(urn, 'status', {removed: false}),
        mcp(urn, 'datasetProperties', {customProperties, name: tableName, ...(meta.description ? {description: meta.description} : {}), tags: []}),
        mcp(urn, 'schemaMetadata', schemaMetadata(tableName, platform, deltaSchemaFields(meta.schemaString), {version: state.version})),
      ]
      const out: WorkUnit[] = [{id: String(meta.id), kind: 'mce', proposals}]
      const domain = domains.filter((d) => d.ok(browsePath)).pop()
      if (domain) out.push({id: `${urn}-domains`, kind: 'mcp', proposals: [mcp(urn, 'domains', {domains: [domain.urn]})]})
      const place = containers.place(browsePath)
      if (place.proposals.length) out.push({id: `containers-${urn}`, kind: 'mcp', proposals: place.proposals})
      // DataHub's delta-lake source, unlike its s3 source, gives datasets no dataPlatformInstance.
      const own: ProposalInput[] = []
      if (place.parent) own.push(mcp(urn, 'container', {container: place.parent}))
      let newest: number | undefined
      for (const h of state.history) {
        const op = operationOf(h, ctx.now())
        own.push(mcp(urn, 'operation', op))
        newest = Math.max(newest ?? 0, op.lastUpdatedTimestamp as number)
      }
      own.push(mcp(urn, 'browsePathsV2', {path: place.browsePath}))
      // DataHub's auto_patch_last_modified, emitted with the table rather than at the end of the run.
      if (newest !== undefined) own.push(lastModifiedPatch(urn, newest))
      out.push({id: `${urn}-aspects`, kind: 'mcp', proposals: own})
      return out
    }

    async function* visit(path: string): AsyncGenerator<WorkUnit> {
      if (stopped) return
      const clean = path.replace(/\/+$/, '')
      if (await isDeltaTable(fs, clean)) {
        try {
          const state = await readDeltaLog(fs, clean, {historyLimit: config.version_history_lookback, withFiles: requireFiles, readCheckpoint})
          found++
          report.count('tablesScanned')
          yield* tableWorkUnits(clean, state)
        } catch (e) {
          report.failure('table failed', `${clean}: ${(e as Error).message.split('\n')[0]}`)
        }
        return
      }
      for (const sub of await fs.folders(clean)) yield* visit(sub)
    }

    return {
      report,
      async *workunits() {
        yield* visit(completePath)
        if (found === 0) report.warning('no tables', `no Delta table (a folder with _delta_log) under ${completePath}`)
      },
      async close() {
        stopped = true
      },
    }
  },
}

export default plugin
