/**
 * Opens the configured store: a `postgres://` (or `postgresql://`) URL opens the PostgreSQL
 * store, anything else is the embedded store's directory. Both run the same conformance suite.
 * Beside it, the search index that goes with it (`openSearchIndex`): the store knows nothing of
 * it; the catalog feeds it.
 */
import {entitySpecs} from '../model/registry.js'
import {LowdbStore} from './lowdb-store.js'
import {MemoryStore} from './memory.js'
import {isStoreUrl} from './postgres/url.js'
import {REGISTRY_RULES} from './rules.js'
import {SearchThread} from './embedded/search-thread.js'
import {MemorySearchIndex} from './search/memory-index.js'
import type {MetadataStore, SearchIndex} from './types.js'

export type {MetadataStore} from './types.js'

export interface OpenStoreOptions {
  dir: string
  checkpointBytes?: number
  warn?: (msg: string) => void
  /** Progress lines of a long start (the embedded store). */
  info?: (msg: string) => void
  /** A PostgreSQL database without mdcli's schema is refused, not given one (read-only verbs). */
  mustExist?: boolean
}

export const SEARCHABLE_TYPES: readonly string[] = entitySpecs()
  .filter((e) => e.searchable)
  .map((e) => e.name)

export {isStoreUrl}
export {lockHolderAlive} from './embedded/lock.js'

/** The embedded store in a directory, not yet opened. */
export function createStore(opts: OpenStoreOptions): MetadataStore {
  if (isStoreUrl(opts.dir)) throw new Error(`createStore takes a directory; open ${opts.dir} with openStore`)
  return new LowdbStore({
    dir: opts.dir,
    checkpointBytes: opts.checkpointBytes,
    rules: REGISTRY_RULES,
    warn: opts.warn,
    info: opts.info,
  })
}

export async function openStore(opts: OpenStoreOptions): Promise<MetadataStore> {
  // The PostgreSQL driver loads only for a PostgreSQL store: an embedded start does not pay for it.
  const s = isStoreUrl(opts.dir)
    ? new (await import('./postgres/pg-store.js')).PgStore({url: opts.dir, rules: REGISTRY_RULES, warn: opts.warn, ...(opts.mustExist ? {mustExist: true} : {})})
    : createStore(opts)
  await s.open()
  return s
}

/** An in-memory store with the registry's rules (unit tests of the catalog and the server). */
export function createMemoryStore(): MemoryStore {
  return new MemoryStore({rules: REGISTRY_RULES})
}

/**
 * The search index for the store `openStore` opens on the same options: PostgreSQL's full text
 * on a database, the embedded store's search thread beside a directory. The catalog feeds it.
 */
export async function openSearchIndex(opts: OpenStoreOptions): Promise<SearchIndex> {
  if (isStoreUrl(opts.dir)) return (await import('./postgres/search-index.js')).PgSearchIndex.open(opts.dir, SEARCHABLE_TYPES, {warn: opts.warn})
  return new SearchThread({searchableTypes: SEARCHABLE_TYPES, warn: opts.warn})
}

/** A search index in this thread (a catalog on the memory store, a local verb on a small store). */
export function createMemorySearchIndex(): SearchIndex {
  return new MemorySearchIndex(SEARCHABLE_TYPES)
}
