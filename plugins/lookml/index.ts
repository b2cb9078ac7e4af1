/**
 * Source `lookml`: a LookML project folder, read offline as DataHub's `lookml` source reads it.
 * Views become datasets (platform `looker`, `<project>.view.<view>`) with their fields, their
 * SQL or LookML, and lineage to the tables (or explores) they read; the project is a container.
 *
 * Config (DataHub's names): `base_folder`, `project_name`, `connection_to_platform_map`
 * (`{conn: {platform, default_db, default_schema?, platform_instance?, platform_env?}}` or the
 * legacy `"platform[.db]"` string), `model_pattern`, `view_pattern`, `emit_reachable_views_only`,
 * `parse_table_names_from_sql`, `process_refinements`, `extract_column_level_lineage`,
 * `tag_measures_and_dimensions`, `view_naming_pattern`, `max_file_snippet_length`, `env`,
 * `platform_instance`. The Looker API (`api`) and git checkouts (`git_info`) are not supported:
 * point `base_folder` at a checkout.
 *
 * A model whose connection is not mapped, and an unreadable file, are failures of the run that
 * name the model or file; a view file LookML's parser cannot read is a warning naming it. Either
 * way the other files and models go on.
 */
import {existsSync, statSync} from 'node:fs'
import {ALLOW_DENY_SCHEMA, allowDeny, ConfigError, containerUrn, encodeUrnKeyPart, type AllowDeny, mcp, schemaMetadata, type PluginContext, type ProposalInput, type Source, type SourcePlugin, type WorkUnit, configSchema, type ConfigOf, envOf} from '../../src/sdk/index.js'
import {dumpLookml} from './dump.js'
import {exploresOf, folderOf, LookmlProject, viewsOf, type LookmlNode, type ParsedFile, type ViewDecl} from './project.js'
import {analyseDerivedSql} from './sql.js'

type Pattern = AllowDeny

interface ConnectionDef {
  platform: string
  default_db: string
  default_schema?: string
  platform_instance?: string
  platform_env?: string
}

export type LookmlConfig = ConfigOf<typeof CONFIG>

const PATTERN_SCHEMA = ALLOW_DENY_SCHEMA

const PLATFORM = 'looker'
const TWO_LEVEL_PLATFORMS = new Set(['hive', 'mysql', 'athena'])
const TAGS: Record<string, string> = {
  Dimension: 'A tag that is applied to all dimension fields.',
  Temporal: 'A tag that is applied to all time-based (temporal) fields such as timestamps or durations.',
  Measure: 'A tag that is applied to all measures (metrics). Measures are typically the columns that you aggregate on',
}

/** LookML field types → DataHub schema field types (LookerUtil.field_type_mapping). */
function fieldType(lookmlType: string): string {
  const t = lookmlType.toLowerCase()
  if (t === 'string' || t.startsWith('duration')) return 'StringType'
  if (t === 'yesno') return 'BooleanType'
  if (t === 'time' || t === 'date_time' || t === 'datetime' || t === 'timestamp') return 'TimeType'
  if (t === 'date') return 'DateType'
  if (t === 'tier' || t === 'zipcode') return 'EnumType'
  if (t === 'location') return 'UnionType'
  if (t === 'list') return 'ArrayType'
  const numeric = ['number', 'int', 'integer', 'average', 'average_distinct', 'count', 'count_distinct', 'max', 'min', 'median', 'median_distinct', 'percentile', 'percentile_distinct', 'sum', 'sum_distinct', 'running_total', 'percent_of_previous', 'percent_of_total', 'bigint', 'float', 'double', 'numeric', 'decimal']
  if (numeric.includes(t)) return 'NumberType'
  if (['varchar', 'text', 'char'].includes(t)) return 'StringType'
  if (t === 'boolean') return 'BooleanType'
  return 'NullType'
}

// LookML's patterns are case-sensitive unless they say otherwise.
const matches = (p: Pattern | undefined, name: string): boolean => allowDeny(p, false)(name)

const unquote = (s: string): string => s.replace(/["`]/g, '').trim()
const asList = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v])
const bag = (v: unknown): Record<string, LookmlNode> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, LookmlNode>) : {})
const schemaField = (datasetUrn: string, field: string): string => `urn:li:schemaField:(${datasetUrn},${field})`

function connectionOf(raw: ConnectionDef | string): ConnectionDef {
  if (typeof raw === 'string') {
    // Legacy form "platform" or "platform.db"; DataHub keeps it, quirks and all.
    const [platform, db] = raw.split('.', 2)
    return {platform: platform!.toLowerCase(), default_db: (db ?? '').toLowerCase(), default_schema: ''}
  }
  return {...raw, platform: raw.platform.toLowerCase(), default_db: raw.default_db.toLowerCase(), default_schema: raw.default_schema?.toLowerCase()}
}

const CONFIG = configSchema({
  type: 'object',
  properties: {
    base_folder: {type: 'string', minLength: 1},
    project_name: {type: 'string', minLength: 1},
    connection_to_platform_map: {
      type: 'object',
      additionalProperties: {
        anyOf: [
          {type: 'string', minLength: 1},
          {
            type: 'object',
            properties: {
              platform: {type: 'string', minLength: 1},
              default_db: {type: 'string'},
              default_schema: {type: 'string'},
              platform_instance: {type: 'string'},
              platform_env: {type: 'string'},
            },
            required: ['platform', 'default_db'],
            additionalProperties: false,
          },
        ],
      },
    },
    model_pattern: PATTERN_SCHEMA,
    view_pattern: PATTERN_SCHEMA,
    emit_reachable_views_only: {type: 'boolean', default: true},
    parse_table_names_from_sql: {type: 'boolean', default: false},
    process_refinements: {type: 'boolean', default: false},
    extract_column_level_lineage: {type: 'boolean', default: true},
    tag_measures_and_dimensions: {type: 'boolean', default: true},
    view_naming_pattern: {type: 'string', default: '{project}.view.{name}'},
    view_browse_pattern: {type: 'string'},
    explore_naming_pattern: {type: 'string'},
    explore_browse_pattern: {type: 'string'},
    max_file_snippet_length: {type: 'integer', minimum: 1, default: 512000},
    populate_sql_logic_for_missing_descriptions: {type: 'boolean'},
    process_isolation_for_sql_parsing: {type: 'boolean'},
    sql_parser: {type: 'string'},
    project_dependencies: {type: 'object'},
    env: {type: 'string', default: 'PROD'},
    platform_instance: {type: 'string'},
    api: {type: 'object'},
    git_info: {type: 'object'},
  },
  required: ['base_folder', 'project_name', 'connection_to_platform_map'],
  additionalProperties: false,
})

const plugin: SourcePlugin<LookmlConfig> = {
  description: 'Reads a LookML project folder (offline): views as datasets with lineage to their tables.',
  platform: 'lookml',
  configSchema: CONFIG,
  // It emits every status DataHub's run of it has (views, explores, and the tags it materializes
  // after the auto-status step); the pipeline's auto status would add one to those tags.
  autoStatus: false,
  create(config, ctx: PluginContext): Source {
    const env = envOf(config.env)
    const raw = config as LookmlConfig & {api?: unknown; git_info?: unknown}
    if (raw.api) throw new ConfigError('lookml: `api` (the Looker API) is not supported; give `project_name` and `connection_to_platform_map` and read the folder offline')
    if (raw.git_info) throw new ConfigError('lookml: `git_info` is not supported; clone the repository and point `base_folder` at it')
    const root = ctx.resolvePath(config.base_folder)
    if (!existsSync(root) || !statSync(root).isDirectory()) throw new ConfigError(`lookml: base_folder ${root} is not a directory`)
    const project = new LookmlProject(root)
    const report = ctx.report
    const projectUrn = containerUrn({platform: PLATFORM, instance: config.platform_instance, project_name: config.project_name})
    const viewUrn = (name: string, file?: string): string => {
      const filePath = (file ?? '').replace(/\.view\.lkml$/, '')
      const id = config.view_naming_pattern
        .replaceAll('{project}', config.project_name)
        .replaceAll('{name}', name)
        .replaceAll('{platform}', PLATFORM)
        .replaceAll('{env}', env.toLowerCase())
        .replaceAll('{file_path}', filePath)
      return `urn:li:dataset:(urn:li:dataPlatform:${PLATFORM},${encodeUrnKeyPart(`${config.platform_instance ? `${config.platform_instance}.` : ''}${id}`)},${env})`
    }

    /** A table name of the connection's warehouse → its dataset urn (DataHub's qualification). */
    const tableUrn = (name: string, conn: ConnectionDef, viewIndex: Map<string, ViewDecl>): string => {
      const clean = unquote(name)
      const ref = /^(\w+)\.sql_table_name$/i.exec(clean)
      if (ref) return viewUrn(ref[1]!, viewIndex.get(ref[1]!)?.file.path)
      const parts = clean.split('.')
      const twoLevel = TWO_LEVEL_PLATFORMS.has(conn.platform)
      let qualified: string
      if (parts.length >= 3) qualified = twoLevel ? parts.slice(-2).join('.') : parts.slice(-3).join('.')
      else if (parts.length === 2) qualified = twoLevel ? clean : `${conn.default_db}.${clean}`
      else qualified = twoLevel ? `${conn.default_db}.${clean}` : `${conn.default_db}.${conn.default_schema ?? ''}.${clean}`
      const instance = conn.platform_instance ? `${conn.platform_instance}.` : ''
      return `urn:li:dataset:(urn:li:dataPlatform:${conn.platform},${encodeUrnKeyPart(`${instance}${qualified.toLowerCase()}`)},${(conn.platform_env ?? config.env).toUpperCase()})`
    }

    /** `sql_table_name` of a view, else of the views it extends (last first), else its name. */
    const sqlTableName = (decl: ViewDecl, index: Map<string, ViewDecl>, depth = 0): string | undefined => {
      const own = decl.node.sql_table_name
      if (typeof own === 'string' && own.trim()) return own.trim().replace(/\$\{\s*(\w+)\.SQL_TABLE_NAME\s*\}/i, '$1.SQL_TABLE_NAME')
      if (depth > 10) return undefined
      for (const parent of [...asList(decl.node.extends)].reverse()) {
        const p = index.get(unquote(String(parent)))
        const found = p && sqlTableName(p, index, depth + 1)
        if (found) return found
      }
      return undefined
    }

    async function* workunits(): AsyncGenerator<WorkUnit> {
      const emittedViews = new Set<string>()
      const usedTags = new Set<string>()
      let projectEmitted = false
      const models = project.models().filter((m) => matches(config.model_pattern, m.replace(/^.*\//, '').replace(/\.model\.lkml$/, '')))
      report.info('models', models.length)
      for (const modelPath of models) {
        const modelName = modelPath.replace(/^.*\//, '').replace(/\.model\.lkml$/, '')
        // A file that cannot be parsed loses its own views only: a warning naming it. A model
        // file or a file that cannot be read at all is a failure.
        const files = project.reachable(modelPath, (e) => (e.kind === 'parse' && !e.message.startsWith(`${modelPath}:`) ? report.warning('unparsable file', e.message) : report.failure('unreadable file', e.message)))
        const model = files[0]
        if (!model) continue
        const connName = model.parsed.connection
        const connRaw = typeof connName === 'string' ? config.connection_to_platform_map[connName] : undefined
        if (!connRaw) {
          report.failure('unknown connection', `model ${modelName}: connection ${JSON.stringify(connName ?? null)} is not in connection_to_platform_map`)
          continue
        }
        const conn = connectionOf(connRaw)
        const index = new Map<string, ViewDecl>()
        const refinements = new Map<string, ViewDecl[]>()
        for (const f of files) {
          const {views, refinements: refs} = viewsOf(f)
          for (const v of views) if (!index.has(v.name)) index.set(v.name, v)
          for (const r of refs) refinements.set(r.name, [...(refinements.get(r.name) ?? []), r])
        }
        const explores = new Map<string, LookmlNode>()
        for (const f of files) for (const name of exploresOf(f)) explores.set(name, bag(f.parsed.explore)[name]!)
        let reachable: Set<string> | undefined
        if (config.emit_reachable_views_only) {
          reachable = new Set()
          for (const [name, e] of explores) {
            reachable.add(unquote(String(e.from ?? e.view_name ?? name)))
            for (const [jname, j] of Object.entries(bag(e.join))) reachable.add(unquote(String(j.from ?? jname)))
          }
        }

        for (const decl of index.values()) {
          const name = unquote(decl.name)
          if (reachable && !reachable.has(name)) continue
          if (!matches(config.view_pattern, name)) continue
          const urn = viewUrn(name, decl.file.path)
          if (emittedViews.has(urn)) continue
          emittedViews.add(urn)
          let node = decl.node
          if (config.process_refinements) for (const r of refinements.get(name) ?? []) node = refine(node, r.node)
          if (!projectEmitted) {
            projectEmitted = true
            yield projectContainer()
          }
          const wu = view({...decl, node}, urn, modelName, conn, index, usedTags)
          if (wu) yield wu
        }
      }
      if (config.tag_measures_and_dimensions) {
        for (const tag of ['Dimension', 'Temporal', 'Measure']) {
          if (!usedTags.has(tag)) continue
          yield {id: `tag-${tag}`, kind: 'mce', proposals: [mcp(`urn:li:tag:${tag}`, 'tagProperties', {name: tag, description: TAGS[tag]})]}
        }
      }
      // DataHub materialises the tags its fields point at: described tags get a status, the others
      // their key aspect, so that every tag a field names exists.
      for (const tag of [...usedTags].sort()) {
        const urn = `urn:li:tag:${tag}`
        const p = config.tag_measures_and_dimensions ? mcp(urn, 'status', {removed: false}) : mcp(urn, 'tagKey', {name: tag})
        yield {id: `materialise-${urn}`, kind: 'mcp', proposals: [p]}
      }
    }

    function projectContainer(): WorkUnit {
      const instance = config.platform_instance
      return {
        id: `container-${projectUrn}`,
        kind: 'mcp',
        proposals: [
          mcp(projectUrn, 'containerProperties', {customProperties: {platform: PLATFORM, ...(instance ? {instance} : {}), env, project_name: config.project_name}, name: config.project_name}),
          mcp(projectUrn, 'status', {removed: false}),
          mcp(projectUrn, 'dataPlatformInstance', {platform: `urn:li:dataPlatform:${PLATFORM}`, ...(instance ? {instance: `urn:li:dataPlatformInstance:(urn:li:dataPlatform:${PLATFORM},${instance})`} : {})}),
          mcp(projectUrn, 'subTypes', {typeNames: ['LookML Project']}),
          mcp(projectUrn, 'browsePathsV2', {path: [{id: 'Folders'}]}),
        ],
      }
    }

    function view(decl: ViewDecl, urn: string, modelName: string, conn: ConnectionDef, index: Map<string, ViewDecl>, usedTags: Set<string>): WorkUnit | undefined {
      const {node, file} = decl
      const name = unquote(decl.name)
      const derived = node.derived_table as LookmlNode | undefined
      const derivedSql = typeof derived?.sql === 'string' ? derived.sql : undefined
      const exploreSource = derived ? Object.entries(bag(derived.explore_source))[0] : undefined
      let viewLogic: string
      let language: 'sql' | 'lookml'
      if (derivedSql !== undefined) {
        viewLogic = derivedSql.trim()
        language = 'sql'
      } else if (derived) {
        viewLogic = dumpLookml(derived)
        language = 'lookml'
      } else {
        viewLogic = file.text.slice(0, config.max_file_snippet_length)
        language = 'lookml'
      }
      const materialized = Boolean(derived && (derived.datagroup_trigger !== undefined || derived.sql_trigger_value !== undefined || derived.persist_for !== undefined || derived.materialized_view === true))

      // Upstreams.
      let upstreamNames: string[] = []
      let sqlColumns: string[] | undefined
      let upstreams: string[] = []
      if (derivedSql !== undefined) {
        if (config.parse_table_names_from_sql) {
          const analysed = analyseDerivedSql(derivedSql, name)
          upstreamNames = analysed.tables
          sqlColumns = analysed.columns
        }
        upstreams = upstreamNames.map((t) => tableUrn(t, conn, index))
      } else if (exploreSource) {
        upstreams = [`urn:li:dataset:(urn:li:dataPlatform:${PLATFORM},${encodeUrnKeyPart(`${modelName}.explore.${exploreSource[0]}`)},${env})`]
      } else {
        upstreams = [tableUrn(sqlTableName(decl, index) ?? name, conn, index)]
      }
      upstreams = [...new Set(upstreams)]

      // Fields: dimensions, dimension groups, measures — or, for SQL with none, its columns.
      const fields: Array<Record<string, unknown>> = []
      const primaryKeys: string[] = []
      const addFields = (kind: 'dimension' | 'dimension_group' | 'measure') => {
        for (const [fname, f] of Object.entries(bag(node[kind]))) {
          const type = typeof f.type === 'string' ? f.type : 'string'
          const tags = kind === 'dimension' ? ['Dimension'] : kind === 'dimension_group' ? ['Dimension', 'Temporal'] : ['Measure']
          for (const t of tags) usedTags.add(t)
          const isKey = f.primary_key === true
          if (isKey) primaryKeys.push(fname)
          fields.push({
            fieldPath: fname,
            nullable: false,
            description: typeof f.description === 'string' ? f.description : '',
            label: typeof f.label === 'string' ? f.label : '',
            type: {type: {[`com.linkedin.schema.${fieldType(type)}`]: {}}},
            nativeDataType: type,
            recursive: false,
            globalTags: {tags: tags.map((t) => ({tag: `urn:li:tag:${t}`}))},
            isPartOfKey: isKey,
          })
        }
      }
      addFields('dimension')
      addFields('dimension_group')
      addFields('measure')
      if (fields.length === 0 && sqlColumns) {
        for (const col of [...new Set(sqlColumns)].sort()) {
          fields.push({fieldPath: col, nullable: false, description: '', label: '', type: {type: {'com.linkedin.schema.NullType': {}}}, nativeDataType: 'unknown', recursive: false, globalTags: {tags: []}, isPartOfKey: false})
        }
      }

      // Column lineage: a dimension reads the upstream columns its `${TABLE}.x` references name.
      const fineGrained: Array<Record<string, unknown>> = []
      if (config.extract_column_level_lineage && language !== 'sql' && upstreams.length > 0) {
        const upstream = upstreams[0]!
        const columns = exploreSource ? bag(exploreSource[1].column) : {}
        for (const [fname, f] of Object.entries(bag(node.dimension))) {
          let cols: string[]
          if (exploreSource) cols = [typeof columns[fname]?.field === 'string' ? (columns[fname]!.field as string) : fname]
          else if (typeof f.sql === 'string') cols = [...new Set([...f.sql.matchAll(/\$\{TABLE\}\.("[^"]+"|`[^`]+`|\w+)/g)].map((m) => unquote(m[1]!).toLowerCase()))]
          else cols = [fname]
          if (cols.length === 0) continue
          fineGrained.push({
            upstreamType: 'FIELD_SET',
            upstreams: cols.map((c) => schemaField(upstream, c)),
            downstreamType: 'FIELD',
            downstreams: [schemaField(urn, fname)],
            confidenceScore: 1.0,
          })
        }
      }

      const folder = folderOf(file.path)
      const now = ctx.now()
      const proposals: ProposalInput[] = [
        mcp(urn, 'subTypes', {typeNames: ['View']}),
        mcp(urn, 'viewProperties', {materialized, viewLogic, viewLanguage: language}),
        mcp(urn, 'container', {container: projectUrn}),
        mcp(urn, 'browsePathsV2', {path: [{id: 'Develop'}, {id: projectUrn, urn: projectUrn}, ...(folder ? folder.split('/').map((id) => ({id})) : [])]}),
        mcp(urn, 'browsePaths', {paths: [`/Develop/${config.project_name}/${folder}`]}),
        mcp(urn, 'status', {removed: false}),
      ]
      if (upstreams.length > 0) {
        proposals.push(
          mcp(urn, 'upstreamLineage', {
            upstreams: upstreams.map((dataset) => ({auditStamp: {time: now, actor: 'urn:li:corpuser:datahub'}, dataset, type: 'VIEW'})),
            ...(fineGrained.length ? {fineGrainedLineages: fineGrained} : {}),
          }),
        )
      }
      if (fields.length > 0) {
        proposals.push(
          mcp(urn, 'schemaMetadata', schemaMetadata(name, PLATFORM, fields, {extra: {primaryKeys}})),
        )
      }
      proposals.push(mcp(urn, 'datasetProperties', {customProperties: {'looker.file.path': file.path, 'looker.model': modelName}, name, tags: []}))
      report.count('views')
      return {id: `${file.path}#${name}`, kind: 'mcp', proposals}
    }

    return {report, workunits}
  },
}

/** A refinement's fields and parameters laid over its view (later wins, fields merged by name). */
function refine(base: LookmlNode, add: LookmlNode): LookmlNode {
  const out: LookmlNode = {...base}
  for (const [k, v] of Object.entries(add)) {
    if (k.startsWith('$')) continue
    if (['dimension', 'dimension_group', 'measure', 'filter', 'parameter'].includes(k)) out[k] = {...bag(base[k]), ...bag(v)}
    else out[k] = v
  }
  return out
}

export type {ParsedFile}
export default plugin
