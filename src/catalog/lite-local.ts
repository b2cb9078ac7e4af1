/**
 * DataHub Lite's read commands over a stopped local store (`mdcli lite ls|get|search|list-urns|nuke`).
 *
 * DataHub Lite reads its own DuckDB file directly, with no server in between; these do the same
 * with the store directory: opening it takes the store's lock, so a running `mdcli lite` makes
 * them refuse with E_STORE_LOCKED (use `mdcli get` / `mdcli search` through the server then).
 *
 * Browse paths follow DataHub Lite's tree: `/` lists platform categories (`databases`,
 * `data_lakes`, `bi_tools`, …), then platforms, then the parts of the entity's name
 * (`db/schema/table` for `db.schema.table`), and at the leaf the urn.
 */
import {existsSync, rmSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {NotFoundError, UsageError} from '../errors.js'
import {knownPlatform} from '../model/platforms.js'
import {parseUrn} from '../model/urn.js'
import type {MetadataStore, StoredAspect} from '../store/types.js'

/** DataHub Lite's platform categories, by platform. */
const CATEGORY_BY_PLATFORM: Record<string, string> = {
  athena: 'databases', bigquery: 'databases', clickhouse: 'databases', druid: 'databases', duckdb: 'databases',
  mariadb: 'databases', mssql: 'databases', mysql: 'databases', oracle: 'databases', postgres: 'databases',
  presto: 'databases', redshift: 'databases', snowflake: 'databases', trino: 'databases', hive: 'databases',
  sqlite: 'databases', mongodb: 'databases', dynamodb: 'databases', elasticsearch: 'databases', databricks: 'databases',
  s3: 'data_lakes', gcs: 'data_lakes', hdfs: 'data_lakes', 'delta-lake': 'data_lakes', iceberg: 'data_lakes', file: 'data_lakes', csv: 'data_lakes', glue: 'data_lakes',
  looker: 'bi_tools', tableau: 'bi_tools', metabase: 'bi_tools', mode: 'bi_tools', powerbi: 'bi_tools', superset: 'bi_tools', redash: 'bi_tools',
  kafka: 'streaming', nats: 'streaming', pulsar: 'streaming', kinesis: 'streaming',
  airflow: 'orchestrators', dagster: 'orchestrators', prefect: 'orchestrators',
  'kafka-connect': 'data_movers', fivetran: 'data_movers', airbyte: 'data_movers',
  dbt: 'transformation_tools',
  'great-expectations': 'data_quality',
}

/** The category of a platform: DataHub Lite's list, else by the platform's kind, else `data_platforms`. */
export function platformCategory(platform: string): string {
  const c = CATEGORY_BY_PLATFORM[platform]
  if (c) return c
  const kind = knownPlatform(platform)?.type
  if (kind === 'RELATIONAL_DB' || kind === 'OLAP_DATASTORE' || kind === 'KEY_VALUE_STORE' || kind === 'QUERY_ENGINE') return 'databases'
  if (kind === 'MESSAGE_BROKER') return 'streaming'
  if (kind === 'FILE_SYSTEM' || kind === 'OBJECT_STORE') return 'data_lakes'
  return 'data_platforms'
}

/** The browse path of an entity, as segments; undefined for entities with no platform. */
export function browseSegments(urn: string): string[] | undefined {
  let u
  try {
    u = parseUrn(urn)
  } catch {
    return undefined
  }
  const platformOf = (p: string | undefined) => (p?.startsWith('urn:li:dataPlatform:') ? p.slice('urn:li:dataPlatform:'.length) : undefined)
  let platform: string | undefined
  let name: string | undefined
  if (u.entityType === 'dataset') {
    platform = platformOf(u.parts[0])
    name = u.parts[1]
  } else if (u.isTuple && (u.entityType === 'chart' || u.entityType === 'dashboard' || u.entityType === 'dataFlow')) {
    platform = u.parts[0]
    name = u.parts[1]
  } else if (u.entityType === 'dataJob') {
    const flow = u.parts[0] ? parseUrn(u.parts[0]) : undefined
    platform = flow?.parts[0]
    name = flow ? `${flow.parts[1]}.${u.parts[1]}` : undefined
  }
  if (!platform || !name) return undefined
  const delimiter = knownPlatform(platform)?.datasetNameDelimiter ?? '.'
  const parts = name.split(delimiter).filter((p) => p.length > 0)
  return [platformCategory(platform), platform, ...parts]
}

export interface BrowseEntry {
  /** Next path segment below the listed path. */
  name: string
  /** Full path of the entry. */
  path: string
  /** The urn when the entry is an entity (a leaf). */
  urn?: string
}

/** Lists what lies directly below `path` (`/` = the categories). Throws NotFoundError for an unknown path. */
export async function browse(store: MetadataStore, path: string): Promise<BrowseEntry[]> {
  const prefix = path.split('/').filter((p) => p.length > 0)
  const {urns} = await store.listUrns({})
  const below = new Map<string, BrowseEntry>()
  const seenAt: Array<Set<string>> = prefix.map(() => new Set())
  for (const urn of urns) {
    const segs = browseSegments(urn)
    if (!segs) continue
    let depth = 0
    while (depth < prefix.length && depth < segs.length && segs[depth] === prefix[depth]) depth++
    for (let d = 0; d <= depth && d < prefix.length && d < segs.length; d++) seenAt[d]!.add(segs[d]!)
    if (depth < prefix.length) continue
    const full = `/${prefix.join('/')}${prefix.length ? '/' : ''}`
    if (segs.length === prefix.length) {
      // The path names an entity itself: list it.
      below.set(urn, {name: segs[segs.length - 1]!, path: `/${segs.join('/')}`, urn})
      continue
    }
    const next = segs[prefix.length]!
    const isLeaf = segs.length === prefix.length + 1
    const key = isLeaf ? `${next}\u0000${urn}` : next
    if (!below.has(key)) below.set(key, {name: next, path: `${full}${next}`, ...(isLeaf ? {urn} : {})})
  }
  if (below.size === 0 && prefix.length > 0) {
    // Name the first segment that matched nothing, with what exists there, as DataHub Lite does.
    const i = Math.max(0, prefix.findIndex((p, d) => !seenAt[d]!.has(p)))
    const options = [...seenAt[i]!].sort()
    const hint = options.length ? `; did you mean one of: ${options.slice(0, 8).join(', ')}?` : ''
    throw new NotFoundError(`Path not found at /${prefix.slice(0, i + 1).join('/')}${hint}`)
  }
  return [...below.values()].sort((a, b) => a.name.localeCompare(b.name) || (a.urn ?? '').localeCompare(b.urn ?? ''))
}

/** DataHub Lite's `get` output: `{urn, <aspectName>: value…}`, with `__systemMetadata` per aspect when verbose. */
export async function getLocal(store: MetadataStore, urn: string, opts: {aspects?: string[]; verbose?: boolean} = {}): Promise<Record<string, unknown>> {
  parseUrn(urn)
  const ent = await store.getEntity(urn, opts.aspects && opts.aspects.length ? opts.aspects : undefined)
  if (!ent) throw new NotFoundError(`Entity not found: ${urn}`)
  const out: Record<string, unknown> = {urn}
  for (const name of Object.keys(ent.aspects).sort()) {
    const a: StoredAspect = ent.aspects[name]!
    out[name] = opts.verbose && a.value && typeof a.value === 'object' ? {...(a.value as object), __systemMetadata: a.systemMetadata} : a.value
  }
  return out
}

/** Resolves a browse path that names one entity to its urn. */
export async function urnAtPath(store: MetadataStore, path: string): Promise<string> {
  const entries = await browse(store, path)
  const want = `/${path.split('/').filter(Boolean).join('/')}`
  const hit = entries.filter((e) => e.urn && e.path === want)
  if (hit.length === 1) return hit[0]!.urn!
  throw new UsageError(`${path} is not an entity (it holds ${entries.length} entries); use \`mdcli lite ls ${path}\` to explore it`)
}

export interface LocalSearchHit {
  urn: string
  aspect?: string
  snippet?: string
}

/**
 * DataHub Lite's free-text search: a case-insensitive substring of the urn, or of a `name` in any
 * aspect (`--flavor exact` asks for the whole urn or name instead).
 */
export async function searchLocal(store: MetadataStore, query: string, opts: {flavor?: 'free_text' | 'exact'; aspects?: string[]} = {}): Promise<LocalSearchHit[]> {
  const q = query.toLowerCase()
  const matches = (s: string) => (opts.flavor === 'exact' ? s.toLowerCase() === q : s.toLowerCase().includes(q))
  const {urns} = await store.listUrns({})
  const hits: LocalSearchHit[] = []
  for (const urn of urns) {
    if (matches(urn) && !opts.aspects?.length) {
      hits.push({urn, snippet: urn})
      continue
    }
    const ent = await store.getEntity(urn, opts.aspects && opts.aspects.length ? opts.aspects : undefined)
    for (const [aspect, a] of Object.entries(ent?.aspects ?? {})) {
      const name = (a.value as {name?: unknown} | null)?.name
      if (typeof name === 'string' && matches(name)) {
        hits.push({urn, aspect, snippet: name})
        break
      }
    }
  }
  return hits
}

/** Removes a store directory for good. Refuses a directory that is not a store. */
export function nukeStore(dir: string): void {
  if (!existsSync(dir)) throw new NotFoundError(`No DataHub Lite instance at ${dir}`)
  if (!statSync(dir).isDirectory() || !existsSync(join(dir, 'manifest.json'))) throw new UsageError(`${dir} is not a store directory (no manifest.json); nothing was removed`)
  rmSync(dir, {recursive: true, force: true})
}
