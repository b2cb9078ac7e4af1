/**
 * Source `mode`: a Mode workspace through its REST API (HAL JSON), as DataHub's `mode` source
 * reads it. Collections (spaces) become containers; reports become dashboards; each report query
 * becomes a dataset (sub-type Query) with its SQL, inferred columns and lineage to the warehouse
 * tables it reads, plus a query entity; charts read their query; Mode datasets become datasets.
 *
 * Config (DataHub's names): `connect_uri`, `token` + `password` (the API key's id and secret,
 * HTTP basic auth), `workspace`, `space_pattern` (default: deny `^Personal$`), `exclude_restricted`,
 * `default_schema`, `owner_username_instead_of_email`, `api_options` (retries: `max_attempts`,
 * `retry_backoff_multiplier`, `max_retry_interval`; mdcli adds `timeout_sec`), `ingest_embed_url`,
 * `tag_measures_and_dimensions`, `platform_instance_map`, `env`; `stateful_ingestion` is read by
 * the pipeline.
 *
 * Lineage: Mode's `{{ @definition as alias }}` references are replaced by the definition's SQL,
 * the `{% form %}` block's defaults fill the Liquid parameters (unknown ones become NULL), and the
 * last statement is parsed with the parser the SQL sources use for view lineage; tables are named
 * `<data source database>.<schema.>table` on the data source's platform.
 *
 * Failures (non-zero exit, as DataHub's): the workspace's spaces, data sources, a space's reports
 * or a report's queries cannot be listed. A creator that cannot be read or a query whose data
 * source is unknown is a warning.
 */
import yaml from 'js-yaml'
import {Liquid} from 'liquidjs'
import {ALLOW_DENY_SCHEMA, allowDeny, ConfigError, FULL_TABLE, HttpClient, HttpError, makeChartUrn, makeDashboardUrn, makeDatasetUrn, makeUserUrn, mcp, schemaMetadata, pagedItems, pyStr, type PluginContext, type Report, type Source, type SourcePlugin, type WorkUnit, configSchema, type ConfigOf, envOf} from '../../src/sdk/index.js'
import {API_OPTIONS_SCHEMA, askOnce, aspectUnit, biSource, containerUnits, dataOwnership, fineGrained, httpOptions, parseTimestampMs, snapshotUnit, sqlInputs, UNKNOWN_ACTOR, type BiWalk, type SqlInputs} from '../bi-common/index.js'

const PLATFORM = 'mode'
const PER_PAGE = 30
const DIMENSION = 'urn:li:tag:Dimension'
const MEASURE = 'urn:li:tag:Measure'

const CONFIG = configSchema({
  type: 'object',
  properties: {
    connect_uri: {type: 'string', minLength: 1, default: 'https://app.mode.com'},
    token: {type: 'string', minLength: 1},
    password: {type: 'string'},
    workspace: {type: 'string', minLength: 1},
    exclude_restricted: {type: 'boolean', default: false},
    default_schema: {type: 'string', default: 'public'},
    space_pattern: {...ALLOW_DENY_SCHEMA, default: {allow: ['.*'], deny: ['^Personal$']}},
    owner_username_instead_of_email: {type: 'boolean', default: true},
    api_options: API_OPTIONS_SCHEMA,
    ingest_embed_url: {type: 'boolean', default: true},
    tag_measures_and_dimensions: {type: 'boolean', default: true},
    platform_instance_map: {type: 'object', additionalProperties: {type: 'string'}},
    env: {type: 'string', default: 'PROD'},
  },
  required: ['token', 'password', 'workspace'],
  additionalProperties: false,
})
export type ModeConfig = ConfigOf<typeof CONFIG>

const CHART_TYPES: Record<string, string | null> = {
  table: 'TABLE', bar: 'BAR', bigNumber: 'TEXT', line: 'LINE', stackedBar100: 'BAR', stackedBar: 'BAR', hStackedBar: 'BAR', hStackedBar100: 'BAR', hBar: 'BAR', area: 'AREA', totalArea: 'AREA', pie: 'PIE', donut: 'PIE', scatter: 'SCATTER', bigValue: 'TEXT', pivotTable: 'TABLE', linePlusBar: null, vegas: null, vegasPivotTable: 'TABLE', histogram: 'HISTOGRAM',
}
/** Mode's JDBC adapters → DataHub platforms. */
const ADAPTER_PLATFORM: Record<string, string> = {
  'jdbc:athena': 'athena', 'jdbc:bigquery': 'bigquery', 'jdbc:druid': 'druid', 'jdbc:hive': 'hive', 'jdbc:mysql': 'mysql', 'jdbc:oracle': 'oracle', 'jdbc:postgresql': 'postgres', 'jdbc:presto': 'presto', 'jdbc:redshift': 'redshift', 'jdbc:snowflake': 'snowflake', 'jdbc:spark': 'spark', 'jdbc:trino': 'trino', 'jdbc:sqlserver': 'mssql', 'jdbc:teradata': 'teradata',
}
/** Query fields DataHub copies into custom properties (when truthy), as strings. */
const QUERY_PROPS = ['id', 'created_at', 'updated_at', 'last_run_id', 'data_source_id', 'explorations_count', 'chart_count', 'report_imports_count', 'dbt_metric_id']

type Json = Record<string, any>

const liquid = new Liquid({strictFilters: false, strictVariables: false})

/** Python's truthiness, which decides what DataHub copies. */
const truthy = (v: unknown): boolean => !(v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0))

/** `{{ @name as alias }}` → name and alias. */
function definitionName(ref: string): {name: string; alias: string} {
  const name = /@[a-zA-Z_]+/.exec(ref)?.[0].slice(1) ?? ''
  const alias = /as\s+\S+\w+/.exec(ref)?.[0].split(' ').at(-1) ?? ''
  return {name, alias}
}

/** The statements of a script, split on `;` outside quotes and comments. */
export function splitStatements(sql: string): string[] {
  const out: string[] = []
  let cur = ''
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i]!
    if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1
      while (j < sql.length && sql[j] !== ch) j++
      cur += sql.slice(i, j + 1)
      i = j
    } else if (ch === '-' && sql[i + 1] === '-') {
      const j = sql.indexOf('\n', i)
      const end = j < 0 ? sql.length : j
      cur += sql.slice(i, end)
      i = end - 1
    } else if (ch === '/' && sql[i + 1] === '*') {
      const j = sql.indexOf('*/', i + 2)
      const end = j < 0 ? sql.length : j + 2
      cur += sql.slice(i, end)
      i = end - 1
    } else if (ch === ';') {
      out.push(cur)
      cur = ''
    } else cur += ch
  }
  out.push(cur)
  return out.filter((s) => s.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, '').trim() !== '')
}

class ModeWalker {
  private readonly connect: string
  private readonly ws: string
  private readonly creators = new Map<string, Promise<string | undefined>>()
  private readonly queries = new Map<string, Promise<Json[]>>()
  private readonly chartLists = new Map<string, Promise<Json[]>>()
  private dataSources?: Promise<Json[]>
  private definitions?: Promise<Json[]>
  private readonly spaces = new Map<string, string>()
  private readonly allowSpace: (name: string) => boolean
  /** Datasets that got an operation: their datasetProperties get lastModified patched at the end. */
  private readonly lastUpdated = new Map<string, number>()
  private readonly tags = new Set<string>()

  constructor(
    private readonly config: ModeConfig,
    private readonly client: HttpClient,
    private readonly report: Report,
    private readonly ctx: PluginContext,
  ) {
    this.connect = config.connect_uri.replace(/\/+$/, '')
    this.ws = `api/${config.workspace}`
    // DataHub's AllowDenyPattern ignores case unless told otherwise.
    this.allowSpace = allowDeny(config.space_pattern as never, true, 'source.config.space_pattern')
  }

  private message(e: unknown): string {
    return this.client.redact(e instanceof Error ? e.message : String(e))
  }

  private embedded(body: Json | undefined, key: string): Json[] {
    const v = body?._embedded?.[key]
    return Array.isArray(v) ? v : []
  }

  /** A HAL listing, page by page, until a page is empty. */
  private listing(path: string, key: string, filter?: string): AsyncGenerator<Json> {
    return pagedItems((page) => this.client.get<Json>(path, {query: {filter, per_page: PER_PAGE, page}}).then((b) => this.embedded(b, key)))
  }

  async verify(): Promise<void> {
    try {
      await this.client.get('api/verify')
    } catch (e) {
      if (e instanceof HttpError && (e.httpStatus === 401 || e.httpStatus === 403)) throw new ConfigError(`mode: the API key was refused at ${this.connect} (${this.message(e)})`)
      if (!(e instanceof HttpError)) throw e
      this.report.failure('Failed to Connect', `Unable to verify connection to mode: ${this.message(e)}`)
    }
  }

  private creator(href: unknown): Promise<string | undefined> {
    const key = String(href ?? '')
    return askOnce(this.creators, key, () =>
      this.client.get<Json>(`${this.connect}${key}`).then(
        (u) => (this.config.owner_username_instead_of_email ? u?.username : u?.email) ?? undefined,
        (e) => {
          this.report.warning('Failed to retrieve Mode creator', `Unable to retrieve user for ${key}: ${this.message(e)}`)
          return undefined
        },
      ),
    )
  }

  private reportQueries(token: string): Promise<Json[]> {
    return askOnce(this.queries, token, () =>
      this.client.get<Json>(`${this.ws}/reports/${token}/queries`).then(
        (b) => this.embedded(b, 'queries'),
        (e) => {
          this.report.failure('Failed to Retrieve Queries', `report ${token}: ${this.message(e)}`)
          return []
        },
      ),
    )
  }

  /** A query's charts, asked once (the report and the chart pass both need them). */
  private charts(reportToken: string, queryToken: string): Promise<Json[]> {
    const key = `${reportToken}/${queryToken}`
    return askOnce(this.chartLists, key, () =>
      this.client.get<Json>(`${this.ws}/reports/${reportToken}/queries/${queryToken}/charts`).then(
        (b) => this.embedded(b, 'charts'),
        (e) => {
          this.report.failure('Failed to Retrieve Charts', `report ${reportToken}, query ${queryToken}: ${this.message(e)}`)
          return []
        },
      ),
    )
  }

  private async warehouse(dataSourceId: unknown): Promise<{platform: string; db: string} | undefined> {
    this.dataSources ??= this.client.get<Json>(`${this.ws}/data_sources`).then(
      (b) => this.embedded(b, 'data_sources'),
      (e) => {
        this.report.failure('Failed to retrieve Data Sources', `Unable to retrieve data sources from Mode: ${this.message(e)}`)
        return []
      },
    )
    const sources = await this.dataSources
    if (sources.length === 0) {
      this.report.failure('No Data Sources Found', `Could not find data sources matching id ${dataSourceId}`)
      return undefined
    }
    // Mode writes ids as numbers in queries and as strings in data sources.
    const ds = sources.find((s) => String(s?.id) === String(dataSourceId))
    if (!ds) {
      this.report.warning('Failed to create Data Platform Urn', `Cannot create datasource urn for datasource id: ${dataSourceId}`)
      return undefined
    }
    let platform = ADAPTER_PLATFORM[ds.adapter ?? '']
    if (!platform) {
      platform = String(ds.name ?? '')
      this.report.warning('Unrecognized Platform Found', `Platform ${ds.adapter} was not found in DataHub; using ${platform} as is`)
    }
    let db = String(ds.database ?? '')
    // BigQuery's lineage needs project.dataset.table.
    if (platform === 'bigquery' && db === 'default') db = String(ds.host ?? '')
    return {platform, db}
  }

  private async definition(name: string): Promise<string | undefined> {
    this.definitions ??= this.client.get<Json>(`${this.ws}/definitions`).then(
      (b) => this.embedded(b, 'definitions'),
      (e) => {
        this.report.failure('Failed to Retrieve Definition', `Unable to retrieve definitions from Mode: ${this.message(e)}`)
        return []
      },
    )
    const d = (await this.definitions).find((x) => x?.name === name)
    return d ? String(d.source ?? '') : undefined
  }

  /** Mode's `{{ @definition as alias }}` replaced by `(definition SQL) as alias`, recursively. */
  async replaceDefinitions(raw: string, depth = 0): Promise<string> {
    let query = raw
    if (depth > 10) return query
    for (const ref of raw.match(/{{(?:\s+)?@[^}{]+}}/g) ?? []) {
      const {name, alias} = definitionName(ref)
      const sql = await this.definition(name)
      query = query.split(ref).join(sql !== undefined ? `(${sql}) as ${alias}` : `${name} as ${alias}`)
      query = await this.replaceDefinitions(query, depth + 1)
      query = query.replace(/\\n/g, '\n').replace(/\\t/g, '\t')
    }
    return query
  }

  /** The `{% form %}` defaults filled in, unknown parameters as NULL (DataHub's rendering). */
  renderTemplate(query: string): string {
    this.report.count('query template renders')
    try {
      const params: Record<string, unknown> = {}
      let normalized = query
      const forms = [...query.matchAll(/{% form %}([\s\S]*?){% endform %}/gi)]
      if (forms.length) {
        for (const m of forms) {
          const defs = yaml.load(liquid.parseAndRenderSync(m[1]!)) as Record<string, Json> | undefined
          for (const [k, v] of Object.entries(defs ?? {})) params[k] = v?.default ?? ''
        }
        normalized = query.replace(/{% form %}[\s\S]*{% endform %}/, '')
      }
      const template = liquid.parse(normalized)
      for (const v of liquid.fullVariablesSync(template)) {
        const root = v.split(/[.[]/)[0]!
        if (!(root in params)) params[root] = 'NULL'
      }
      return liquid.renderSync(template, params) as string
    } catch (e) {
      this.report.count('query template render failures')
      return query
    }
  }

  private queryDatasetUrn(id: unknown): string {
    return makeDatasetUrn(PLATFORM, String(id), this.config.env)
  }

  private spaceUrn(token: string): string {
    return containerUnits({platform: PLATFORM, space_token: token}, {name: '', subType: '', browsePath: []}).urn
  }

  private pathSpace(): Array<{id: string; urn?: string}> {
    return [{id: this.config.workspace}]
  }

  private pathDashboard(space: string): Array<{id: string; urn?: string}> {
    const c = this.spaceUrn(space)
    return [...this.pathSpace(), {id: c, urn: c}]
  }

  private pathQuery(space: string, reportInfo: Json): Array<{id: string; urn?: string}> {
    const d = makeDashboardUrn(PLATFORM, reportInfo.id ?? '')
    return [...this.pathDashboard(space), {id: d, urn: d}]
  }

  private schemaFields(inputs: SqlInputs): Json[] {
    return inputs.columns.map((c) => {
      // Without the warehouse's schema every type is unknown (NullType): all are dimensions.
      if (this.config.tag_measures_and_dimensions) this.tags.add(DIMENSION)
      const f: Json = {fieldPath: c.name, nullable: false, type: {type: {'com.linkedin.schema.NullType': {}}}, nativeDataType: '', recursive: false, isPartOfKey: false}
      if (this.config.tag_measures_and_dimensions) f.globalTags = {tags: [{tag: DIMENSION}]}
      return f
    })
  }

  /** A report query, or a Mode dataset's query: dataset, schema, lineage, operation, query entity. */
  async *queryOrDataset(reportToken: string, query: Json, space: string, reportInfo: Json, isDataset: boolean, fields: Map<string, Json>): AsyncGenerator<WorkUnit> {
    const urn = this.queryDatasetUrn(isDataset ? reportInfo.id : query.id)
    const externalUrl = isDataset ? `${this.connect}/${this.config.workspace}/datasets/${reportToken}` : `${this.connect}/${this.config.workspace}/reports/${reportToken}/details/queries/${query.token}`
    const props: Json = {customProperties: Object.fromEntries(QUERY_PROPS.filter((k) => truthy(query[k])).map((k) => [k, pyStr(query[k])])), externalUrl, name: (isDataset ? reportInfo.name : query.name) ?? '', tags: []}
    yield aspectUnit(urn, 'datasetProperties', props)
    yield aspectUnit(urn, 'viewProperties', {materialized: false, viewLogic: query.raw_query ?? '', viewLanguage: 'SQL'})
    if (isDataset) yield aspectUnit(urn, 'container', {container: this.spaceUrn(space)})
    yield aspectUnit(urn, 'subTypes', {typeNames: [isDataset ? 'Dataset' : 'Query']})
    yield aspectUnit(urn, 'browsePathsV2', {path: isDataset ? this.pathDashboard(space) : this.pathQuery(space, reportInfo)})

    const wh = await this.warehouse(query.data_source_id)
    if (!wh) return
    let sql = this.renderTemplate(await this.replaceDefinitions(String(query.raw_query ?? '')))
    const statements = splitStatements(sql)
    if (statements.length) sql = statements.at(-1)!
    const instance = this.config.platform_instance_map?.[wh.platform]
    const queryUrn = `urn:li:query:${query.id}.${query.data_source_id}.${query.last_run_id}`
    this.report.count('sql parsed')
    let inputs: SqlInputs | undefined
    try {
      inputs = sqlInputs(sql, {platform: wh.platform, defaultDb: wh.db || undefined, platformInstance: instance, env: this.config.env})
      this.report.count('sql parser successes')
    } catch (e) {
      this.report.count('sql parser failures')
      this.report.warning('Failed to parse query', `report ${reportToken} query ${query.token}: ${this.message(e)}`)
    }
    if (inputs) {
      const schemaFields = this.schemaFields(inputs)
      if (schemaFields.length) {
        for (const f of schemaFields) if (!fields.has(f.fieldPath)) fields.set(f.fieldPath, f)
        yield aspectUnit(urn, 'schemaMetadata', schemaMetadata(isDataset ? 'mode_dataset' : 'mode_query', PLATFORM, schemaFields))
      }
      yield aspectUnit(urn, 'upstreamLineage', {
        upstreams: inputs.tables.map((dataset) => ({auditStamp: {time: 0, actor: UNKNOWN_ACTOR}, dataset, type: 'TRANSFORMED', query: queryUrn})),
        fineGrainedLineages: inputs.columns.map((c) => fineGrained(urn, c.name, c.from)),
      })
    }
    const updated = parseTimestampMs(query.updated_at) ?? this.ctx.now()
    const created = parseTimestampMs(query.created_at) ?? this.ctx.now()
    yield aspectUnit(urn, 'operation', {timestampMillis: this.ctx.now(), partitionSpec: FULL_TABLE, operationType: 'UPDATE', lastUpdatedTimestamp: updated})
    this.lastUpdated.set(urn, updated)
    const creator = await this.creator(query._links?.creator?.href)
    const actor = makeUserUrn(creator ?? 'unknown')
    if (query.raw_query) {
      yield aspectUnit(queryUrn, 'queryProperties', {customProperties: {}, statement: {value: query.raw_query, language: 'SQL'}, source: 'SYSTEM', created: {time: created, actor}, lastModified: {time: updated, actor}})
    }
  }

  private chartProperties(detail: Json, type: string): Record<string, string> {
    const props: Record<string, string> = {ChartType: type}
    const enc: Json = detail.encoding ?? {}
    const first = (l: unknown) => (Array.isArray(l) && l.length ? String(l[0]?.formula ?? '') : '')
    if (type === 'table') {
      const filter = first(enc.filter)
      props.Columns = Object.keys(detail.fieldFormats ?? {}).map((c) => c.slice(1, -1)).join(',')
      props.Filters = filter ? filter.slice(1, -1) : ''
    } else if (type === 'pivotTable') {
      const p: Json = detail.pivotTable ?? {}
      const list = (l: unknown) => (Array.isArray(l) ? l.join(', ') : '')
      Object.assign(props, {Columns: list(p.columns), Rows: list(p.rows), Metrics: list(p.values), Filters: list(p.filters)})
      for (const f of Array.isArray(p.filters) ? p.filters : []) props[`Filter: ${f}`] = list(p.filterValues?.[f])
    } else {
      Object.assign(props, {X: first(enc.x), Y: first(enc.y), X2: first(enc.x2), Y2: first(enc.y2), Metrics: first(enc.value), Filters: first(enc.filter)})
    }
    return props
  }

  /** Column names a chart's formulas name (`[amount]`), in the order met. */
  private formulaColumns(node: unknown, out: Set<string> = new Set()): Set<string> {
    if (Array.isArray(node)) for (const x of node) this.formulaColumns(x, out)
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'formula' && typeof v === 'string') for (const m of v.matchAll(/\[(.+?)\]/g)) out.add(m[1]!)
        else if (v && typeof v === 'object') this.formulaColumns(v, out)
      }
    }
    return out
  }

  async *chart(index: number, chart: Json, fields: Map<string, Json>, query: Json, space: string, reportInfo: Json): AsyncGenerator<WorkUnit> {
    const urn = makeChartUrn(PLATFORM, chart.token ?? '')
    const creator = await this.creator(chart._links?.creator?.href)
    let lastModified: Json = {created: {time: 0, actor: UNKNOWN_ACTOR}, lastModified: {time: 0, actor: UNKNOWN_ACTOR}}
    if (creator !== undefined) {
      const actor = makeUserUrn(creator)
      lastModified = {created: {time: parseTimestampMs(chart.created_at) ?? this.ctx.now(), actor}, lastModified: {time: parseTimestampMs(chart.updated_at) ?? this.ctx.now(), actor}}
    }
    const detail: Json = chart.view && Object.keys(chart.view).length ? chart.view : (chart.view_vegas ?? {})
    const modeType = detail.chartType || detail.selectedChart || ''
    let type: string | null = null
    if (!modeType) this.report.count('charts without a type')
    else if (!(modeType in CHART_TYPES)) this.report.warning('Unrecognized chart type found', `chart ${chart.token}: ${modeType}`)
    else type = CHART_TYPES[modeType]!
    const title = detail.title || detail.chartTitle || `Chart ${index}`
    const queryUrn = this.queryDatasetUrn(query.id)
    const info: Json = {
      customProperties: this.chartProperties(detail, modeType),
      title,
      description: detail.description || detail.chartDescription || '',
      lastModified,
      chartUrl: `${this.connect}${chart._links?.report_viz_web?.href ?? ''}`,
      inputs: [queryUrn],
      inputEdges: [],
    }
    if (type) info.type = type
    const refreshed = parseTimestampMs(reportInfo.last_run_at)
    if (refreshed !== undefined) info.lastRefreshed = refreshed

    const byLower = new Map([...fields.values()].map((f) => [String(f.fieldPath).toLowerCase(), f]))
    const inputFields = [...this.formulaColumns(chart)].map((c) => byLower.get(c.toLowerCase())).filter((f): f is Json => f !== undefined)
    if (inputFields.length) yield aspectUnit(urn, 'inputFields', {fields: inputFields.map((f) => ({schemaFieldUrn: `urn:li:schemaField:(${queryUrn},${f.fieldPath})`, schemaField: f}))})
    yield aspectUnit(urn, 'subTypes', {typeNames: ['Chart']})
    yield aspectUnit(urn, 'browsePathsV2', {path: [...this.pathQuery(space, reportInfo), {id: queryUrn, urn: queryUrn}]})
    const aspects: Array<[string, unknown]> = [
      ['chartInfo', info],
      ['browsePaths', {paths: [`/mode/${this.config.workspace}/${this.spaces.get(space)}/${reportInfo.name}/${query.name}/${title}`]}],
      ['chartQuery', {rawQuery: query.raw_query ?? '', type: 'SQL'}],
    ]
    if (creator) aspects.push(['ownership', dataOwnership(makeUserUrn(creator))])
    yield snapshotUnit(urn, aspects)
  }

  async *dashboard(space: string, reportInfo: Json): AsyncGenerator<WorkUnit> {
    const token = reportInfo.token
    if (!token) return this.report.warning('Missing Report Token', `report ${reportInfo.id ?? ''} has no token`)
    if (!reportInfo.id) return this.report.warning('Missing Report ID', `report ${token} has no id`)
    const urn = makeDashboardUrn(PLATFORM, reportInfo.id)
    const lastModified: Json = {created: {time: 0, actor: UNKNOWN_ACTOR}, lastModified: {time: 0, actor: UNKNOWN_ACTOR}}
    const creator = await this.creator(reportInfo._links?.creator?.href)
    if (creator) lastModified.created = {time: parseTimestampMs(reportInfo.created_at) ?? this.ctx.now(), actor: makeUserUrn(creator)}
    const saved = parseTimestampMs(reportInfo.last_saved_at || reportInfo.edited_at)
    if (saved !== undefined) lastModified.lastModified = {time: saved, actor: UNKNOWN_ACTOR}
    const datasets: string[] = []
    for (const imported of Array.isArray(reportInfo.imported_datasets) ? reportInfo.imported_datasets : []) {
      try {
        const ds = await this.client.get<Json>(`${this.ws}/reports/${imported?.token}`)
        datasets.push(this.queryDatasetUrn(ds?.id))
      } catch (e) {
        this.report.warning('Failed to Retrieve Dataset', `dataset ${imported?.token} of report ${token}: ${this.message(e)}`)
      }
    }
    const charts: string[] = []
    for (const q of await this.reportQueries(token)) for (const c of await this.charts(token, q?.token ?? '')) charts.push(makeChartUrn(PLATFORM, c?.token ?? ''))
    const title = reportInfo.name ?? ''
    const info: Json = {customProperties: {}, title, description: reportInfo.description ?? '', charts, datasets, dashboards: [], lastModified, dashboardUrl: `${this.connect}/${this.config.workspace}/reports/${token}`}
    const refreshed = parseTimestampMs(reportInfo.last_run_at)
    if (refreshed !== undefined) info.lastRefreshed = refreshed
    yield aspectUnit(urn, 'subTypes', {typeNames: ['Report']})
    yield aspectUnit(urn, 'container', {container: this.spaceUrn(space)})
    yield aspectUnit(urn, 'browsePathsV2', {path: this.pathDashboard(space)})
    yield aspectUnit(urn, 'dashboardUsageStatistics', {timestampMillis: this.ctx.now(), partitionSpec: FULL_TABLE, viewsCount: reportInfo.view_count ?? 0})
    if (this.config.ingest_embed_url) yield aspectUnit(urn, 'embed', {renderUrl: `${this.connect}/${this.config.workspace}/reports/${token}/embed`})
    const aspects: Array<[string, unknown]> = [
      ['dashboardInfo', info],
      ['browsePaths', {paths: [`/mode/${this.config.workspace}/${this.spaces.get(space)}/${title || reportInfo.id}`]}],
    ]
    if (creator) aspects.push(['ownership', dataOwnership(makeUserUrn(creator))])
    yield snapshotUnit(urn, aspects)
  }

  private async listOrFail(what: string, it: AsyncGenerator<Json>): Promise<Json[]> {
    const out: Json[] = []
    try {
      for await (const x of it) out.push(x)
    } catch (e) {
      this.report.failure(`Failed to Retrieve ${what}`, this.message(e))
    }
    return out
  }

  async *walk(report: Report, progress: BiWalk): AsyncGenerator<WorkUnit> {
    progress.done = 0
    for (const s of await this.listOrFail('Spaces', this.listing(`${this.ws}/spaces`, 'spaces', 'all'))) {
      const name = String(s?.name ?? '')
      if (this.config.exclude_restricted && (s?.restricted || s?.default_access_level === 'restricted')) continue
      if (!this.allowSpace(name)) {
        report.count('spaces filtered')
        continue
      }
      this.spaces.set(String(s?.token ?? ''), name)
    }
    const reports = new Map<string, Json[]>()
    for (const space of this.spaces.keys()) reports.set(space, await this.listOrFail('Reports for Space', this.listing(`${this.ws}/spaces/${space}/reports`, 'reports', 'all')))
    progress.total = [...reports.values()].reduce((n, r) => n + r.length, 0) * 2

    for (const [space, name] of this.spaces) {
      for (const u of containerUnits({platform: PLATFORM, space_token: space}, {name, subType: 'Collection', browsePath: this.pathSpace()}).units) yield u
      report.count('spaces')
      for (const r of reports.get(space) ?? []) {
        yield* this.dashboard(space, r)
        progress.done++
        report.count('dashboards')
      }
    }
    for (const space of this.spaces.keys()) {
      const datasets = await this.listOrFail('Datasets for Space', this.listing(`${this.ws}/spaces/${space}/datasets`, 'reports', 'all'))
      for (const d of datasets) {
        for (const q of await this.reportQueries(d?.token ?? '')) yield* this.queryOrDataset(d?.token ?? '', q, space, d, true, new Map())
        report.count('datasets')
      }
    }
    for (const space of this.spaces.keys()) {
      for (const r of reports.get(space) ?? []) {
        for (const q of await this.reportQueries(r?.token ?? '')) {
          const fields = new Map<string, Json>()
          yield* this.queryOrDataset(r.token, q, space, r, false, fields)
          report.count('queries')
          const charts = await this.charts(r.token, q?.token ?? '')
          for (let i = 0; i < charts.length; i++) {
            yield* this.chart(i, charts[i]!, fields, q, space, r)
            report.count('charts')
          }
        }
        progress.done++
      }
    }
    // DataHub patches datasetProperties.lastModified from each dataset's operation.
    for (const [urn, time] of this.lastUpdated) yield {id: `${urn}-lastModified`, kind: 'mcp', proposals: [{...mcp(urn, 'datasetProperties', [{op: 'add', path: '/lastModified', value: {time}}]), changeType: 'PATCH'}]}
    for (const tag of this.tags) yield aspectUnit(tag, 'tagKey', {name: tag.slice('urn:li:tag:'.length)})
  }
}

const plugin: SourcePlugin<ModeConfig> = {
  description: 'Reads a Mode workspace (REST API): collections, reports, queries with lineage to their tables, charts, datasets.',
  platform: PLATFORM,
  autoStatus: true,
  configSchema: CONFIG,
  async create(config, ctx: PluginContext): Promise<Source> {
    config.env = envOf(config.env)
    const client = new HttpClient({
      name: 'mode',
      baseUrl: config.connect_uri.replace(/\/+$/, ''),
      basicAuth: {username: config.token, password: config.password},
      headers: {accept: 'application/hal+json'},
      ...httpOptions(config.api_options),
      onRequest: ctx.onRequest,
    })
    const walker = new ModeWalker(config, client, ctx.report, ctx)
    try {
      await walker.verify()
    } catch (e) {
      await client.close()
      throw e
    }
    return biSource(ctx, client, (report, progress) => walker.walk(report, progress))
  },
}

export default plugin
