/**
 * DataHub Lite's local verbs (`mdcli lite ls|get|search|list-urns|nuke`) on a stopped store
 * directory, as DataHub Lite works on its local file without a server. They read through a
 * Catalog on the store, as the server does.
 *
 * Glossary:
 * - path: what `ls` walks, `/` then `/<entityType>` then `/<entityType>/<platform>` for entity
 *   types whose urns name a platform; the leaves are urns.
 */
import {existsSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {UsageError} from '../errors.js'
import {parseUrn} from '../model/urn.js'
import type {Catalog} from './catalog.js'

/** The platform named in an urn's key (datasets, charts, dashboards, flows…), if any. */
export function platformOf(urn: string): string | undefined {
  try {
    const u = parseUrn(urn)
    for (const p of u.parts) if (p.startsWith('urn:li:dataPlatform:')) return p.slice('urn:li:dataPlatform:'.length)
    if (u.entityType === 'dataJob' && u.parts[0]) return platformOf(u.parts[0])
    if (u.parts.length > 1 && !u.parts[0]!.startsWith('urn:')) return u.parts[0]
  } catch {
    // Not parseable: shown without a platform.
  }
  return undefined
}

export interface LsEntry {
  /** A folder (`dataset/`, `dataset/hive/`) or an urn. */
  name: string
  kind: 'folder' | 'entity'
  /** Live entities below a folder. */
  count?: number
  /** Soft-deleted entities below a folder (`lite export` counts them too; these lists leave them out). */
  softDeleted?: number
}

const PAGE = 1000

async function* allUrns(catalog: Catalog, entityType?: string, includeSoftDeleted = false): AsyncGenerator<string> {
  for (let start = 0; ; start += PAGE) {
    const page = await catalog.rawUrns({...(entityType ? {entityType} : {}), start, count: PAGE, includeSoftDeleted})
    for (const u of page.urns) yield u
    if (page.urns.length < PAGE || start + PAGE >= page.total) return
  }
}

/** The entries under a path; throws UsageError naming a path that does not exist. */
export async function lsPath(catalog: Catalog, path: string): Promise<LsEntry[]> {
  const parts = path.split('/').filter(Boolean)
  if (parts.length === 0) {
    const counts = new Map<string, number>()
    for await (const urn of allUrns(catalog)) {
      const t = parseUrn(urn).entityType
      counts.set(t, (counts.get(t) ?? 0) + 1)
    }
    // Every entity, soft-deleted ones too, so the totals add up to what `lite export` writes.
    const all = new Map<string, number>()
    for await (const urn of allUrns(catalog, undefined, true)) {
      const t = parseUrn(urn).entityType
      all.set(t, (all.get(t) ?? 0) + 1)
    }
    return [...all]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, n]) => ({name: `${name}/`, kind: 'folder', count: counts.get(name) ?? 0, softDeleted: n - (counts.get(name) ?? 0)}))
  }
  const [type, platform, ...rest] = parts
  if (rest.length > 0) throw new UsageError(`No such path: ${path} (paths are /, /<entityType> and /<entityType>/<platform>)`)
  const byPlatform = new Map<string, number>()
  const leaves: string[] = []
  for await (const urn of allUrns(catalog, type)) {
    const p = platformOf(urn)
    if (platform !== undefined) {
      if (p === platform) leaves.push(urn)
    } else if (p === undefined) leaves.push(urn)
    else byPlatform.set(p, (byPlatform.get(p) ?? 0) + 1)
  }
  if (byPlatform.size === 0 && leaves.length === 0) throw new UsageError(`No such path: ${path}`)
  return [
    ...[...byPlatform].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]): LsEntry => ({name: `${name}/`, kind: 'folder', count})),
    ...leaves.sort().map((name): LsEntry => ({name, kind: 'entity'})),
  ]
}

/** Whether the store holds any entity, soft-deleted ones included. */
export async function hasEntities(catalog: Catalog): Promise<boolean> {
  return (await catalog.rawUrns({count: 1, includeSoftDeleted: true})).urns.length > 0
}

/** Every urn (of one type), soft-deleted ones only when asked: `lite list-urns`. */
export async function listLocalUrns(catalog: Catalog, opts: {entityType?: string; includeSoftDeleted?: boolean} = {}): Promise<string[]> {
  const urns: string[] = []
  for await (const u of allUrns(catalog, opts.entityType, opts.includeSoftDeleted === true)) urns.push(u)
  return urns
}

/**
 * An entity's latest aspects as `{urn, aspects: {name: value}}`, or null: read as `mdcli get`
 * reads it from a server (the model's defaults filled in, secret aspects left out).
 */
export async function getLocal(catalog: Catalog, urn: string, aspects?: string[]): Promise<{urn: string; entityType: string; aspects: Record<string, unknown>} | null> {
  const e = await catalog.getEntity(urn, aspects && aspects.length > 0 ? aspects : undefined)
  if (!e) return null
  const out: Record<string, unknown> = {}
  for (const [name, a] of Object.entries(e.aspects)) out[name] = a.value
  return {urn: e.urn, entityType: e.entityType, aspects: out}
}

export interface NukeReport {
  store: string
  /** False when there was no store to remove (nothing to do, not a failure). */
  removed: boolean
  files: number
  bytes: number
}

/**
 * Removes a store directory. Refuses a directory that does not look like a store (so a mistyped
 * `--store ~` cannot erase a home directory) and a store a running server holds.
 */
/** Whether `file` is a manifest an mdcli store wrote (its `format` names one). */
function storeManifest(file: string): boolean {
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as {format?: unknown}
    return typeof m?.format === 'string' && m.format.startsWith('mdcli-lowdb-')
  } catch {
    return false
  }
}

export function nukeStore(dir: string, isLocked: () => boolean): NukeReport {
  const abs = resolve(dir)
  if (!existsSync(abs)) return {store: abs, removed: false, files: 0, bytes: 0}
  const names = readdirSync(abs)
  // A file named manifest.json is common (web projects, extensions): only one an mdcli store
  // wrote counts, or a store's own two folders.
  if (!storeManifest(join(abs, 'manifest.json')) && !(names.includes('wal') && names.includes('shards'))) {
    throw new UsageError(`${abs} does not look like an mdcli store (no manifest.json of an mdcli store, no wal/ and shards/); refusing to remove it`)
  }
  if (isLocked()) throw new UsageError(`The store ${abs} is held by a running server; stop \`mdcli lite\` first`)
  let files = 0
  let bytes = 0
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n)
      const s = statSync(p)
      if (s.isDirectory()) walk(p)
      else {
        files++
        bytes += s.size
      }
    }
  }
  walk(abs)
  rmSync(abs, {recursive: true, force: true})
  return {store: abs, removed: true, files, bytes}
}
