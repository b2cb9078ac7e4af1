/**
 * Source `metabase`: a Metabase site through its REST API, as DataHub's `metabase` source reads
 * it. Cards (questions) become charts with their SQL, properties and the warehouse tables they
 * read; dashboards list their cards; the creator owns each.
 *
 * Config (DataHub's names): `connect_uri`, `display_uri`, `username` + `password` (a session) or
 * `api_key` (Metabase ≥ 49, header `x-api-key`), `database_alias_map`, `engine_platform_map`,
 * `database_id_to_instance_map`, `platform_instance_map`, `default_schema`,
 * `exclude_other_user_collections`, `env`; `stateful_ingestion` is read by the pipeline. mdcli
 * adds `api_options` (timeout, retries) shared with the other API sources.
 *
 * Lineage: a question built in the query builder names its table (`/api/table/<id>`) or another
 * question (`card__<id>`, followed up to 5 deep); a native question's SQL is parsed with the
 * parser the SQL sources use for view lineage, after Metabase's `[[ … ]]` and `{{ … }}` template
 * parts are taken out as DataHub does. The table is named as the warehouse source names it:
 * `<db>.<schema>.<table>` on the engine's platform.
 *
 * Failures (non-zero exit, as DataHub's): login refused, the card or collection listings failing.
 * One card, dashboard, user, database or table that cannot be read is a warning naming it.
 */
import {HttpClient, HttpError, makeChartUrn, makeDashboardUrn, makeDatasetUrnWithPlatformInstance, makeUserUrn, type PluginContext, type Report, type Source, type SourcePlugin, type WorkUnit, configSchema, type ConfigOf, ConfigError, envOf} from '../../src/sdk/index.js'
import {API_OPTIONS_SCHEMA, askOnce, biSource, httpOptions, dataOwnership, edges, parseTimestampMs, pythonRepr, snapshotUnit, sqlInputs, UNKNOWN_ACTOR, type AuditStamp, type BiWalk} from '../bi-common/index.js'

const PLATFORM = 'metabase'
const RECURSION_LIMIT = 5

const CONFIG = configSchema({
  type: 'object',
  properties: {
    connect_uri: {type: 'string', minLength: 1, default: 'localhost:3000'},
    display_uri: {type: 'string', minLength: 1},
    username: {type: 'string'},
    password: {type: 'string'},
    api_key: {type: 'string', minLength: 1},
    database_alias_map: {type: 'object', additionalProperties: {type: 'string'}},
    engine_platform_map: {type: 'object', additionalProperties: {type: 'string'}},
    database_id_to_instance_map: {type: 'object', additionalProperties: {type: 'string'}},
    platform_instance_map: {type: 'object', additionalProperties: {type: 'string'}},
    default_schema: {type: 'string', default: 'public'},
    exclude_other_user_collections: {type: 'boolean', default: false},
    env: {type: 'string', default: 'PROD'},
    api_options: API_OPTIONS_SCHEMA,
  },
  additionalProperties: false,
})
export type MetabaseConfig = ConfigOf<typeof CONFIG>

/** Metabase engines → DataHub platforms (DataHub's table; `engine_platform_map` adds to it). */
const ENGINE_PLATFORM: Record<string, string> = {sparksql: 'spark', mongo: 'mongodb', 'presto-jdbc': 'presto', sqlserver: 'mssql', 'bigquery-cloud-sdk': 'bigquery'}
/** Engines named as their DataHub platform (DataHub warns about them too; that warning says nothing). */
const SAME_NAME_ENGINES = new Set(['postgres', 'mysql', 'redshift', 'snowflake', 'oracle', 'h2', 'sqlite', 'vertica', 'druid', 'athena', 'databricks', 'clickhouse', 'presto', 'trino', 'hive', 'teradata'])
/** Where each engine keeps its database name in `details`. */
const DBNAME_FIELD: Record<string, string> = {postgres: 'dbname', sparksql: 'dbname', mongo: 'dbname', redshift: 'db', snowflake: 'db', 'presto-jdbc': 'catalog', presto: 'catalog', mysql: 'dbname', sqlserver: 'db', 'bigquery-cloud-sdk': 'project-id'}
const CHART_TYPES: Record<string, string | null> = {table: 'TABLE', bar: 'BAR', line: 'LINE', row: 'BAR', area: 'AREA', pie: 'PIE', funnel: 'BAR', scatter: 'SCATTER', scalar: 'TEXT', smartscalar: 'TEXT', pivot: 'TABLE', waterfall: 'BAR', progress: null, combo: null, gauge: null, map: null}

type Json = Record<string, any>

interface Datasource {
  platform: string
  db?: string
  schema?: string
  instance?: string
}

/** `http://host:3000/` → `http://host:3000`; a bare `host:3000` gets `http://`. */
function cleanUri(uri: string): string {
  const trimmed = uri.replace(/\/+$/, '')
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`
}

/** Metabase's template parts out of native SQL: `[[ … ]]` dropped, `{{ … }}` replaced by 1 (DataHub's workaround). */
export function stripTemplateExpressions(sql: string): string {
  return sql.replace(/\[\[.+?\]\]/g, ' ').replace(/\{\{.+?\}\}/g, '1')
}

class MetabaseWalker {
  private readonly users = new Map<string, Promise<string | undefined>>()
  private readonly databases = new Map<string, Promise<Datasource | undefined>>()
  private readonly tables = new Map<string, Promise<{schema?: string; name?: string}>>()
  private readonly connect: string
  private readonly display: string

  constructor(
    private readonly config: MetabaseConfig,
    private readonly client: HttpClient,
    private readonly report: Report,
    private readonly ctx: PluginContext,
  ) {
    this.connect = cleanUri(config.connect_uri)
    this.display = config.display_uri ? cleanUri(config.display_uri) : this.connect
  }

  private message(e: unknown): string {
    return this.client.redact(e instanceof Error ? e.message : String(e))
  }

  private stamp(lastEdit: Json | undefined): AuditStamp {
    const info = lastEdit ?? {}
    return {time: parseTimestampMs(info.timestamp) ?? this.ctx.now(), actor: makeUserUrn(info.email ?? 'unknown')}
  }

  async login(): Promise<void> {
    if (this.config.api_key) {
      this.client.setHeader('x-api-key', this.config.api_key)
    } else {
      if (!this.config.username || this.config.password === undefined) throw new ConfigError('metabase: give `username` and `password` (or `api_key`)')
      const session = await this.client.post<Json>('api/session', {username: this.config.username, password: this.config.password}).catch((e) => {
        // A refusal is the config's fault; an unreachable server stays a connection error.
        if (e instanceof HttpError) throw new ConfigError(`metabase: login as ${this.config.username} at ${this.connect} failed: ${this.message(e)}`)
        throw e
      })
      const id = session && typeof session === 'object' ? session.id : undefined
      if (typeof id !== 'string' || !id) throw new ConfigError(`metabase: login at ${this.connect}/api/session returned no session id`)
      this.client.setHeader('x-metabase-session', id)
      this.loggedIn = true
    }
    try {
      await this.client.get('api/user/current')
    } catch (e) {
      this.report.failure('metabase-session', `Unable to retrieve user ${this.config.username ?? '(api key)'} information: ${this.message(e)}`)
    }
  }

  loggedIn = false

  async logout(): Promise<void> {
    if (!this.loggedIn) return
    this.loggedIn = false
    const status = await this.client.requestJson('DELETE', 'api/session', {okStatuses: [404]}).then((r) => r.status)
    if (status !== 200 && status !== 204) this.report.failure('metabase-session', `Unable to logout for user ${this.config.username}`)
  }

  private owner(creatorId: unknown): Promise<string | undefined> {
    const key = String(creatorId ?? '')
    return askOnce(this.users, key, () =>
      this.client.get<Json>(`api/user/${key}`).then(
        (u) => makeUserUrn(String(u?.email ?? '')),
        (e) => {
          if (e instanceof HttpError && e.httpStatus === 404) this.report.warning('Cannot find user', `User is blocked in Metabase or missing: creator ${key}`)
          else this.report.warning('Failed to retrieve user', `creator ${key}: ${this.message(e)}`)
          return undefined
        },
      ),
    )
  }

  private async cardDetails(id: unknown): Promise<Json | undefined> {
    try {
      const card = await this.client.get<Json>(`api/card/${id}`, {query: {'legacy-mbql': 'true'}})
      if (!card || typeof card !== 'object' || Array.isArray(card)) throw new Error('the answer is not a card object')
      return card
    } catch (e) {
      this.report.warning('Unable to Retrieve Card', `card ${id}: ${this.message(e)}`)
      return undefined
    }
  }

  private datasource(id: unknown): Promise<Datasource | undefined> {
    const key = String(id ?? '')
    return askOnce(this.databases, key, () =>
      this.client.get<Json>(`api/database/${key}`).then(
        (db) => {
          const engine = String(db?.engine ?? '')
          const map = {...ENGINE_PLATFORM, ...(this.config.engine_platform_map ?? {})}
          const platform = map[engine] ?? engine
          if (!(engine in map) && !SAME_NAME_ENGINES.has(engine)) this.report.warning('Unrecognized Data Platform found', `Data Platform was not found. Using platform name as is: ${platform}`)
          let instance: string | undefined
          if (db?.id !== undefined && this.config.database_id_to_instance_map) instance = this.config.database_id_to_instance_map[String(db.id)]
          if (instance === undefined && platform && this.config.platform_instance_map) instance = this.config.platform_instance_map[platform]
          let dbname: string | undefined = engine in DBNAME_FIELD ? db?.details?.[DBNAME_FIELD[engine]!] : undefined
          const alias = this.config.database_alias_map?.[platform]
          if (alias !== undefined) dbname = alias
          return {platform, db: dbname ?? undefined, schema: db?.details?.schema ?? undefined, instance}
        },
        (e) => {
          this.report.warning('Unable to Retrieve Data Source', `database ${key}: ${this.message(e)}`)
          return undefined
        },
      ),
    )
  }

  private table(id: unknown): Promise<{schema?: string; name?: string}> {
    const key = String(id)
    return askOnce(this.tables, key, () =>
      this.client.get<Json>(`api/table/${key}`).then(
        (t) => ({schema: t?.schema ?? undefined, name: t?.name ?? undefined}),
        (e) => {
          this.report.warning('Failed to Retrieve Source Table', `table ${key}: ${this.message(e)}`)
          return {}
        },
      ),
    )
  }

  /** Dataset urns a card reads, or undefined when they cannot be told (a warning says why). */
  async inputs(card: Json, depth = 0): Promise<string[] | undefined> {
    if (depth > RECURSION_LIMIT) {
      this.report.warning('Unable to Retrieve Card Info', `card ${card.id}: source question recursion deeper than ${RECURSION_LIMIT}`)
      return undefined
    }
    const ds = await this.datasource(card.database_id ?? '')
    if (!ds?.platform) {
      this.report.warning('Unable to find Data Platform', `no platform for database id ${card.database_id ?? ''}`)
      return undefined
    }
    const dq: Json = card.dataset_query ?? {}
    if (dq.type === 'query') {
      const source = dq.query?.['source-table'] ?? ''
      if (String(source).startsWith('card__')) {
        const inner = await this.cardDetails(String(source).slice('card__'.length))
        return this.inputs(inner ?? {}, depth + 1)
      }
      if (source !== '') {
        const t = await this.table(source)
        if (t.name) return [makeDatasetUrnWithPlatformInstance(ds.platform, [ds.db, t.schema, t.name].filter((v) => v).join('.'), ds.instance, this.config.env)]
      }
      return undefined
    }
    const sql = stripTemplateExpressions(String(dq.native?.query ?? ''))
    try {
      return sqlInputs(sql, {platform: ds.platform, defaultDb: ds.db, defaultSchema: ds.schema || this.config.default_schema, platformInstance: ds.instance, env: this.config.env}).tables
    } catch (e) {
      this.report.warning('Failed to Extract Lineage', `card ${card.id}: unable to retrieve lineage from query: ${this.message(e)}`)
      return []
    }
  }

  private chartType(id: unknown, display: string): string | null {
    if (!display) {
      this.report.warning('Unrecognized Card Type', `card ${id}: no display type`)
      return null
    }
    if (!(display in CHART_TYPES)) {
      this.report.warning('Unrecognized Chart Type', `card ${id}: chart type ${display}`)
      return null
    }
    return CHART_TYPES[display]!
  }

  async chart(listed: Json): Promise<WorkUnit | undefined> {
    const id = listed?.id
    if (id === undefined || id === null) {
      this.report.warning("Card is missing 'id'", `card ${pythonRepr(listed).slice(0, 120)}`)
      return undefined
    }
    const card = await this.cardDetails(id)
    if (!card) return undefined
    const urn = makeChartUrn(PLATFORM, id)
    const stamp = this.stamp(card['last-edit-info'])
    const metrics: string[] = []
    const dimensions: string[] = []
    for (const m of (card.result_metadata ?? []) as Json[]) {
      const name = m?.display_name ?? ''
      const ref = m?.field_ref
      ;(Array.isArray(ref) ? ref.includes('aggregation') : String(ref ?? '').includes('aggregation')) ? metrics.push(name) : dimensions.push(name)
    }
    const filters = card.dataset_query?.query?.filter ?? []
    const inputs = await this.inputs(card)
    const info: Json = {
      customProperties: {Metrics: metrics.join(', '), Filters: filters.length ? pythonRepr(filters) : '', Dimensions: dimensions.join(', ')},
      title: card.name || '',
      description: card.description || '',
      lastModified: {created: {time: 0, actor: UNKNOWN_ACTOR}, lastModified: stamp},
      chartUrl: `${this.display}/card/${id}`,
      inputEdges: edges(inputs ?? [], stamp),
    }
    const type = this.chartType(id, card.display ?? '')
    if (type) info.type = type
    const aspects: Array<[string, unknown]> = [['chartInfo', info]]
    if (card.query_type === 'native') aspects.push(['chartQuery', {rawQuery: card.dataset_query?.native?.query ?? '', type: 'SQL'}])
    const owner = await this.owner(card.creator_id ?? '')
    if (owner) aspects.push(['ownership', dataOwnership(owner)])
    return snapshotUnit(urn, aspects)
  }

  async dashboard(listed: Json): Promise<WorkUnit | undefined> {
    const id = listed?.id ?? ''
    let d: Json
    try {
      d = await this.client.get<Json>(`api/dashboard/${id}`)
      if (!d || typeof d !== 'object') throw new Error('the answer is not a dashboard object')
    } catch (e) {
      this.report.warning('Unable to Retrieve Dashboard', `dashboard ${id}: ${this.message(e)}`)
      return undefined
    }
    const urn = makeDashboardUrn(PLATFORM, d.id ?? '')
    const stamp = this.stamp(d['last-edit-info'])
    const charts: string[] = []
    for (const dc of (d.dashcards ?? d.ordered_cards ?? []) as Json[]) {
      const cardId = dc?.card?.id
      // Text and heading cards have no id: nothing to link.
      if (cardId) charts.push(makeChartUrn(PLATFORM, cardId))
    }
    const info = {
      customProperties: {},
      title: d.name || '',
      description: d.description || '',
      charts: [],
      chartEdges: edges(charts, stamp),
      datasets: [],
      dashboards: [],
      lastModified: {created: stamp, lastModified: stamp},
      dashboardUrl: `${this.display}/dashboard/${id}`,
    }
    const aspects: Array<[string, unknown]> = [['dashboardInfo', info]]
    const owner = await this.owner(d.creator_id ?? '')
    if (owner) aspects.push(['ownership', dataOwnership(owner)])
    return snapshotUnit(urn, aspects)
  }

  async *walk(report: Report, progress: BiWalk): AsyncGenerator<WorkUnit> {
    progress.done = 0
    let cards: Json[] = []
    try {
      const listed = await this.client.get<unknown>('api/card')
      if (!Array.isArray(listed)) throw new Error('/api/card did not answer a list of cards')
      cards = listed as Json[]
    } catch (e) {
      report.failure('Unable to Retrieve Cards', `Request to retrieve cards from Metabase failed: ${this.message(e)}`)
    }
    progress.total = cards.length
    for (const c of cards) {
      const wu = await this.chart(c)
      progress.done++
      if (wu) {
        report.count('charts')
        yield wu
      }
    }
    try {
      const collections = await this.client.get<unknown>('api/collection/', {query: {'exclude-other-user-collections': this.config.exclude_other_user_collections}})
      if (!Array.isArray(collections)) throw new Error('/api/collection/ did not answer a list of collections')
      for (const col of collections as Json[]) {
        const items = await this.client.get<Json>(`api/collection/${col?.id}/items`, {query: {models: 'dashboard'}})
        const dashboards = Array.isArray(items?.data) ? (items.data as Json[]) : []
        progress.total += dashboards.length
        for (const item of dashboards) {
          const wu = await this.dashboard(item)
          progress.done++
          if (wu) {
            report.count('dashboards')
            yield wu
          }
        }
      }
    } catch (e) {
      report.failure('Unable to Retrieve Dashboards', `Request to retrieve dashboards from Metabase failed: ${this.message(e)}`)
    }
  }
}

const plugin: SourcePlugin<MetabaseConfig> = {
  description: 'Reads a Metabase site (REST API): questions as charts with their tables, dashboards, owners.',
  platform: PLATFORM,
  autoStatus: true,
  configSchema: CONFIG,
  async create(config, ctx: PluginContext): Promise<Source> {
    config.env = envOf(config.env)
    const client = new HttpClient({name: 'metabase', baseUrl: cleanUri(config.connect_uri), secrets: [config.password, config.api_key], ...httpOptions(config.api_options), onRequest: ctx.onRequest})
    const walker = new MetabaseWalker(config, client, ctx.report, ctx)
    try {
      await walker.login()
    } catch (e) {
      await client.close()
      throw e
    }
    return biSource(ctx, client, (report, progress) => walker.walk(report, progress), () => walker.logout())
  },
}

export default plugin
