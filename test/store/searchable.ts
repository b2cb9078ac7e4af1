/**
 * A store with search as the catalog puts them together (catalog/search-feed.ts): its writes feed
 * a SearchIndex, `search` asks it, `close` closes both. For the suites that test a store's writes
 * and what search sees of them; the store itself knows nothing of search.
 */
import {SearchFeed} from '../../src/catalog/search-feed.js'
import {SEARCHABLE_TYPES} from '../../src/store/index.js'
import {SearchThread} from '../../src/store/embedded/search-thread.js'
import {PgSearchIndex} from '../../src/store/postgres/search-index.js'
import {MemorySearchIndex} from '../../src/store/search/memory-index.js'
import type {MetadataStore, SearchIndex, SearchRequest, SearchResponse} from '../../src/store/types.js'

export type SearchableStore<S extends MetadataStore = MetadataStore> = S & {
  search(req: SearchRequest): Promise<SearchResponse>
  readonly feed: SearchFeed
}

/** `store` with `index` fed from its writes (the index is closed with the store). */
export function searchable<S extends MetadataStore>(store: S, index: SearchIndex): SearchableStore<S> {
  const feed = new SearchFeed(store, index)
  return new Proxy(store, {
    get(target, key) {
      if (key === 'search') return (req: SearchRequest) => feed.query(req)
      if (key === 'write') return (ops: Parameters<MetadataStore['write']>[0]) => feed.write(ops)
      if (key === 'feed') return feed
      if (key === 'close') {
        return async () => {
          await target.close()
          await index.close()
        }
      }
      const v = Reflect.get(target, key, target) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  }) as SearchableStore<S>
}

/** An in-thread index (the memory store's). */
export const memoryIndex = (): SearchIndex => new MemorySearchIndex(SEARCHABLE_TYPES)
/** The embedded store's search thread. */
export const threadIndex = (warn?: (m: string) => void): SearchThread => new SearchThread({searchableTypes: SEARCHABLE_TYPES, warn})
/** PostgreSQL's full text on the database at `url`. */
export const pgIndex = (url: string): PgSearchIndex => PgSearchIndex.open(url, SEARCHABLE_TYPES, {poolMax: 2})
