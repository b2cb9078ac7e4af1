/**
 * What a server process needs to know of its store before opening it, without loading any store:
 * the host thread sizes and tunes the server thread's heap from this alone.
 */
import {serverHeapMb} from './embedded/memory.js'
import {isStoreUrl} from './postgres/url.js'

export interface StoreProfile {
  /**
   * The store's data lives in the server's heap (the embedded store): the heap is sized for it and
   * grown by the store's rule; a database store's heap holds little more than requests in flight.
   */
  inHeap: boolean
}

/** The profile of the store a `--store` value names (a directory or a database URL). */
export function storeProfile(store: string): StoreProfile {
  return {inHeap: !isStoreUrl(store)}
}

export {serverHeapMb}
