/**
 * Source `dbt` (dbt Core artifacts): `manifest.json` + `catalog.json` into datasets.
 *
 * Glossary:
 * - dbt node: a model, seed, snapshot or source of the manifest. Each becomes a dataset on the
 *   `dbt` platform, `urn:li:dataset:(urn:li:dataPlatform:dbt,<db>.<schema>.<name>,<env>)`, where
 *   name is the node's alias (models) or identifier (sources, with `use_identifiers`) or name.
 * - sibling: the same table on the warehouse (`target_platform`, e.g. postgres); it carries the
 *   schema and points back at the dbt node through `siblings`. Ephemeral models have none.
 * - upstreams: a node's `depends_on.nodes` that are themselves dbt nodes, as upstreamLineage.
 *
 * Per dbt node: datasetProperties, subTypes, dataPlatformInstance, schemaMetadata (from the
 * catalog's columns, descriptions and tags from the manifest), globalTags (`dbt:` prefix),
 * ownership (from `meta.owner`), upstreamLineage, viewProperties (models with SQL), siblings.
 * Per referenced tag a `tagKey`, so the tag entity exists. Then status for all (auto status).
 */
import {ConfigError, readDataFile, datasetUrn, mcp, schemaMetadata, pyStr, type PluginContext, type ProposalInput, type SourcePlugin, type WorkUnit, configSchema, type ConfigOf, envOf} from '../../src/sdk/index.js'

type YesNoOnly = 'YES' | 'NO' | 'ONLY'

export type DbtConfig = ConfigOf<typeof CONFIG>

interface ManifestNode {
  unique_id: string
  resource_type: string
  name: string
  alias?: string
  identifier?: string
  database?: string | null
  schema: string
  description?: string
  tags?: string[]
  meta?: Record<string, unknown>
  config?: {materialized?: string; enabled?: boolean; meta?: Record<string, unknown>}
  columns?: Record<string, {name: string; description?: string; tags?: string[]; data_type?: string | null}>
  depends_on?: {nodes?: string[]}
  original_file_path?: string
  raw_sql?: string
  raw_code?: string
  compiled_sql?: string
  compiled_code?: string
  language?: string
  source_name?: string
}

interface CatalogTable {
  metadata: {type?: string; comment?: string | null; owner?: string | null}
  columns: Record<string, {name: string; type: string; index: number; comment?: string | null}>
}

const KINDS: Record<string, keyof NonNullable<DbtConfig['entities_enabled']>> = {model: 'models', source: 'sources', seed: 'seeds', snapshot: 'snapshots'}
const S = 'com.linkedin.schema.'

/** Column type → DataHub field type, by the native type's wording (postgres and friends). */
export function fieldType(native: string): Record<string, unknown> {
  const t = native.toLowerCase()
  const k = (name: string, v: Record<string, unknown> = {}): Record<string, unknown> => ({type: {[`${S}${name}`]: v}})
  if (t.endsWith('[]') || t.startsWith('array')) return k('ArrayType', {nestedType: [t.replace(/\[\]$/, '')]})
  if (/^(bool|boolean)$/.test(t)) return k('BooleanType')
  if (/(int|numeric|decimal|double|real|float|serial|number|money)/.test(t)) return k('NumberType')
  if (/^date$/.test(t)) return k('DateType')
  if (/(timestamp|time|interval|datetime)/.test(t)) return k('TimeType')
  if (/(char|text|string|uuid|citext|name|enum)/.test(t)) return k('StringType')
  if (/(bytea|binary|blob|bytes)/.test(t)) return k('BytesType')
  if (/(json|struct|record|object|map)/.test(t)) return k('RecordType')
  return k('NullType')
}

function titleCase(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}

class DbtEmitter {
  readonly tags = new Set<string>()
  private readonly allow: RegExp[]
  private readonly deny: RegExp[]

  constructor(
    private readonly config: DbtConfig,
    private readonly ctx: PluginContext,
    private readonly manifest: {nodes: Record<string, ManifestNode>; sources: Record<string, ManifestNode>; metadata?: Record<string, unknown>},
    private readonly catalog: {nodes?: Record<string, CatalogTable>; sources?: Record<string, CatalogTable>; metadata?: Record<string, unknown>},
  ) {
    const re = (p: string, what: string): RegExp => {
      try {
        return new RegExp(p)
      } catch (e) {
        throw new ConfigError(`dbt: node_name_pattern.${what} '${p}' is not a valid regular expression: ${(e as Error).message}`)
      }
    }
    this.allow = (config.node_name_pattern?.allow ?? ['.*']).map((p) => re(p, 'allow'))
    this.deny = (config.node_name_pattern?.deny ?? []).map((p) => re(p, 'deny'))
  }

  private nodes(): ManifestNode[] {
    return [...Object.values(this.manifest.nodes ?? {}), ...Object.values(this.manifest.sources ?? {})]
  }

  private enabled(n: ManifestNode): boolean {
    const kind = KINDS[n.resource_type]
    if (!kind) return false
    if (n.config?.enabled === false) return false
    const ee = this.config.entities_enabled ?? {}
    const only = Object.entries(ee).filter(([, v]) => v === 'ONLY').map(([k]) => k)
    if (only.length > 0) return only.includes(kind)
    if (ee[kind] === 'NO') return false
    return this.allow.some((r) => r.test(n.unique_id)) && !this.deny.some((r) => r.test(n.unique_id))
  }

  private tableName(n: ManifestNode): string {
    const name = n.resource_type === 'source' ? (this.config.use_identifiers && n.identifier ? n.identifier : n.name) : (n.alias ?? n.name)
    const fqn = `${n.schema}.${name}`
    return (n.database ? `${n.database}.${fqn}` : fqn).replace(/"/g, '')
  }

  dbtUrn(n: ManifestNode): string {
    const name = this.tableName(n)
    return datasetUrn('dbt', this.config.platform_instance ? `${this.config.platform_instance}.${name}` : name, this.config.env)
  }

  targetUrn(n: ManifestNode): string {
    const name = this.tableName(n)
    return datasetUrn(this.config.target_platform, this.config.target_platform_instance ? `${this.config.target_platform_instance}.${name}` : name, this.config.env)
  }

  private materialization(n: ManifestNode): string | undefined {
    return n.resource_type === 'model' || n.resource_type === 'snapshot' ? (n.config?.materialized ?? 'view') : undefined
  }

  private tagUrn(tag: string): string {
    const urn = `urn:li:tag:${this.config.tag_prefix}${tag}`
    this.tags.add(urn)
    return urn
  }

  private schema(n: ManifestNode, platform: string, table: CatalogTable, withTags: boolean): Record<string, unknown> {
    const manifestCols = n.columns ?? {}
    const byLower = new Map(Object.values(manifestCols).map((c) => [c.name.toLowerCase(), c]))
    const fields = Object.values(table.columns)
      .sort((a, b) => a.index - b.index)
      .map((c) => {
        const m = byLower.get(c.name.toLowerCase())
        const description = m?.description || c.comment || undefined
        const tags = withTags ? (m?.tags ?? []) : []
        return {
          fieldPath: c.name,
          nullable: false,
          ...(description ? {description} : {}),
          type: fieldType(c.type),
          nativeDataType: c.type,
          recursive: false,
          isPartOfKey: false,
          ...(tags.length > 0 ? {globalTags: {tags: tags.map((t) => ({tag: this.tagUrn(t)}))}} : {}),
        }
      })
    return schemaMetadata(n.unique_id, platform, fields, {platformSchema: {'com.linkedin.schema.MySqlDDL': {tableSchema: ''}}})
  }

  private owner(n: ManifestNode): string | undefined {
    if (!this.config.enable_owner_extraction) return undefined
    const raw = (n.meta ?? n.config?.meta ?? {}).owner
    if (typeof raw !== 'string' || raw.trim() === '') return undefined
    let owner = raw.trim()
    if (this.config.owner_extraction_pattern) {
      const m = new RegExp(this.config.owner_extraction_pattern).exec(owner)
      if (!m) return undefined
      owner = m.groups?.owner ?? m[1] ?? m[0]
    }
    if (this.config.strip_user_ids_from_email) owner = owner.split('@')[0] || owner
    return owner.startsWith('urn:li:') ? owner : `urn:li:corpuser:${owner}`
  }

  *workunits(): Generator<WorkUnit> {
    const all = this.nodes()
    const byId = new Map(all.map((n) => [n.unique_id, n]))
    const now = this.ctx.now()
    for (const n of all) {
      if (!this.enabled(n)) continue
      const urn = this.dbtUrn(n)
      const mat = this.materialization(n)
      const table = this.catalog.nodes?.[n.unique_id] ?? this.catalog.sources?.[n.unique_id]
      const isSource = n.resource_type === 'source'
      const ephemeral = mat === 'ephemeral'
      const out: ProposalInput[] = []
      const custom: Record<string, string> = {}
      for (const [k, v] of Object.entries(n.meta ?? {})) custom[k] = pyStr(v)
      Object.assign(custom, {
        node_type: n.resource_type,
        ...(mat ? {materialization: mat} : {}),
        dbt_file_path: n.original_file_path ?? '',
        ...(table?.metadata.type ? {catalog_type: table.metadata.type} : {}),
        dbt_unique_id: n.unique_id,
        ...(this.manifest.metadata?.dbt_schema_version ? {manifest_schema: String(this.manifest.metadata.dbt_schema_version)} : {}),
        ...(this.manifest.metadata?.dbt_version ? {manifest_version: String(this.manifest.metadata.dbt_version)} : {}),
        ...(this.manifest.metadata?.adapter_type ? {manifest_adapter: String(this.manifest.metadata.adapter_type)} : {}),
        ...(this.catalog.metadata?.dbt_schema_version ? {catalog_schema: String(this.catalog.metadata.dbt_schema_version)} : {}),
        ...(this.catalog.metadata?.dbt_version ? {catalog_version: String(this.catalog.metadata.dbt_version)} : {}),
      })
      out.push(
        mcp(urn, 'datasetProperties', {
          customProperties: custom,
          name: n.name,
          ...(n.description ? {description: n.description} : {}),
          tags: n.tags ?? [],
        }),
      )
      out.push(mcp(urn, 'subTypes', {typeNames: isSource ? ['Source'] : n.resource_type === 'model' ? ['Model', titleCase(mat ?? 'view')] : [titleCase(n.resource_type)]}))
      out.push(mcp(urn, 'dataPlatformInstance', {platform: 'urn:li:dataPlatform:dbt', ...(this.config.platform_instance ? {instance: `urn:li:dataPlatformInstance:(urn:li:dataPlatform:dbt,${this.config.platform_instance})`} : {})}))
      if (table) out.push(mcp(urn, 'schemaMetadata', this.schema(n, 'dbt', table, true)))
      else if (!ephemeral) this.ctx.report.warning('not in catalog', `${n.unique_id}: not in catalog.json; no schema emitted`)
      const tags = n.tags ?? []
      if (tags.length > 0) out.push(mcp(urn, 'globalTags', {tags: tags.map((t) => ({tag: this.tagUrn(t)}))}))
      const owner = this.owner(n)
      if (owner) out.push(mcp(urn, 'ownership', {owners: [{owner, type: 'DATAOWNER'}], lastModified: {time: now, actor: 'urn:li:corpuser:dbt_executor'}}))
      const upstreams = [...new Set(n.depends_on?.nodes ?? [])]
        .map((id) => byId.get(id))
        .filter((u): u is ManifestNode => u !== undefined && KINDS[u.resource_type] !== undefined)
        .filter((u) => !(this.config.skip_sources_in_lineage && u.resource_type === 'source'))
      if (upstreams.length > 0) {
        out.push(
          mcp(urn, 'upstreamLineage', {
            upstreams: upstreams.map((u) => ({dataset: this.dbtUrn(u), type: 'TRANSFORMED', auditStamp: {time: 0, actor: 'urn:li:corpuser:unknown'}})),
          }),
        )
      }
      const sql = n.raw_code ?? n.raw_sql
      if (n.resource_type === 'model' && sql) {
        out.push(mcp(urn, 'viewProperties', {materialized: mat !== 'view' && mat !== 'ephemeral', viewLogic: sql, viewLanguage: (n.language ?? 'sql').toUpperCase()}))
      }
      if (!ephemeral) out.push(mcp(urn, 'siblings', {siblings: [this.targetUrn(n)], primary: !isSource}))
      this.ctx.report.count(isSource ? 'sources' : `${n.resource_type}s`)
      yield {id: `dbt-${n.unique_id}`, kind: 'mcp', proposals: out}

      if (!ephemeral) {
        const target = this.targetUrn(n)
        const tOut: ProposalInput[] = [mcp(target, 'siblings', {siblings: [urn], primary: isSource})]
        if (table) tOut.unshift(mcp(target, 'schemaMetadata', this.schema(n, this.config.target_platform, table, false)))
        yield {id: `dbt-${n.unique_id}-${this.config.target_platform}`, kind: 'mcp', proposals: tOut}
      }
    }
    for (const tag of [...this.tags].sort()) {
      yield {id: `tag-${tag}`, kind: 'mcp', proposals: [mcp(tag, 'tagKey', {name: tag.slice('urn:li:tag:'.length)})]}
    }
  }
}

const yesNo = {enum: ['YES', 'NO', 'ONLY']}

const CONFIG = configSchema({
  type: 'object',
  properties: {
    manifest_path: {type: 'string', minLength: 1},
    catalog_path: {type: 'string', minLength: 1},
    sources_path: {type: 'string'},
    run_results_paths: {type: 'array', items: {type: 'string'}},
    target_platform: {type: 'string', minLength: 1},
    target_platform_instance: {type: 'string'},
    platform_instance: {type: 'string'},
    env: {type: 'string', default: 'PROD'},
    use_identifiers: {type: 'boolean', default: false},
    tag_prefix: {type: 'string', default: 'dbt:'},
    enable_owner_extraction: {type: 'boolean', default: true},
    strip_user_ids_from_email: {type: 'boolean', default: false},
    owner_extraction_pattern: {type: 'string'},
    node_name_pattern: {type: 'object', properties: {allow: {type: 'array', items: {type: 'string'}}, deny: {type: 'array', items: {type: 'string'}}}, additionalProperties: false},
    entities_enabled: {
      type: 'object',
      properties: {models: yesNo, sources: yesNo, seeds: yesNo, snapshots: yesNo, test_definitions: yesNo, test_results: yesNo, model_performance: yesNo},
      additionalProperties: false,
    },
    skip_sources_in_lineage: {type: 'boolean', default: false},
    // Accepted from DataHub recipes; mdcli always writes whole aspects.
    write_semantics: {enum: ['PATCH', 'OVERRIDE']},
    incremental_lineage: {type: 'boolean'},
    include_column_lineage: {type: 'boolean'},
    infer_dbt_schemas: {type: 'boolean'},
    enable_meta_mapping: {type: 'boolean'},
    meta_mapping: {type: 'object'},
    column_meta_mapping: {type: 'object'},
    convert_column_urns_to_lowercase: {type: 'boolean'},
  },
  required: ['manifest_path', 'catalog_path', 'target_platform'],
  additionalProperties: false,
})

const plugin: SourcePlugin<DbtConfig> = {
  description: 'dbt Core models, seeds, snapshots and sources from manifest.json and catalog.json.',
  autoStatus: true,
  configSchema: CONFIG,
  create(config, ctx) {
    config.env = envOf(config.env)
    const manifestPath = ctx.resolvePath(config.manifest_path)
    const catalogPath = ctx.resolvePath(config.catalog_path)
    const manifest = readDataFile(manifestPath) as {nodes: Record<string, ManifestNode>; sources: Record<string, ManifestNode>; metadata?: Record<string, unknown>}
    const catalog = readDataFile(catalogPath) as {nodes?: Record<string, CatalogTable>; sources?: Record<string, CatalogTable>; metadata?: Record<string, unknown>}
    if (!manifest || typeof manifest !== 'object' || typeof manifest.nodes !== 'object') throw new ConfigError(`${manifestPath} does not look like a dbt manifest (no 'nodes')`)
    if (!catalog || typeof catalog !== 'object' || typeof catalog.nodes !== 'object') throw new ConfigError(`${catalogPath} does not look like a dbt catalog (no 'nodes')`)
    if (config.sources_path) readDataFile(ctx.resolvePath(config.sources_path))
    if (config.target_platform === 'dbt') throw new ConfigError('dbt: target_platform must be the warehouse (e.g. postgres, snowflake), not dbt')
    const emitter = new DbtEmitter(config, ctx, manifest, catalog)
    ctx.report.info('manifest', manifestPath)
    return {
      async *workunits() {
        yield* emitter.workunits()
      },
    }
  },
}

export default plugin
