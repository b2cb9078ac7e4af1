/**
 * Opens the configured store. Only the embedded lowdb store exists today; a SQL store will be
 * chosen here by the same options, and run the same conformance suite.
 */
import {entitySpecs} from '../model/registry.js'
import {LowdbStore} from './lowdb-store.js'
import {MemoryStore} from './memory.js'
import {REGISTRY_RULES} from './rules.js'
import type {MetadataStore} from './types.js'

export type {MetadataStore} from './types.js'

export interface OpenStoreOptions {
  dir: string
  checkpointBytes?: number
  warn?: (msg: string) => void
}

export const SEARCHABLE_TYPES: readonly string[] = entitySpecs()
  .filter((e) => e.searchable)
  .map((e) => e.name)

export function createStore(opts: OpenStoreOptions): MetadataStore {
  return new LowdbStore({
    dir: opts.dir,
    checkpointBytes: opts.checkpointBytes,
    searchableTypes: SEARCHABLE_TYPES,
    rules: REGISTRY_RULES,
    warn: opts.warn,
  })
}

export async function openStore(opts: OpenStoreOptions): Promise<MetadataStore> {
  const s = createStore(opts)
  await s.open()
  return s
}

/** An in-memory store with the registry's rules (unit tests of the catalog and the server). */
export function createMemoryStore(): MemoryStore {
  return new MemoryStore({rules: REGISTRY_RULES, searchableTypes: SEARCHABLE_TYPES})
}
