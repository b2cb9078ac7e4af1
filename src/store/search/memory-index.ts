/**
 * The search contract answered in this thread, on the embedded store's word index
 * (`../search-index.ts`): what a catalog on the memory store uses, and the model the other two
 * implementations are held to by the search conformance suite.
 */
import {SearchIndex as WordIndex} from '../search-index.js'
import {buildSearchDoc} from '../../model/search-doc.js'
import type {IndexItem, SearchIndex, SearchRequest, SearchResponse} from '../types.js'

/** Applies items to a word index, in order (also the search thread's work). */
export function applyItems(index: WordIndex, items: IndexItem[]): void {
  for (const it of items) {
    if (it.aspects === null) {
      index.removeUrn(it.urn)
      continue
    }
    const parsed: Record<string, unknown> = {}
    for (const k in it.aspects) parsed[k] = JSON.parse(it.aspects[k]!)
    index.upsert(it.id, it.urn, it.type, buildSearchDoc(it.type, it.urn, parsed))
  }
}

export class MemorySearchIndex implements SearchIndex {
  private index = new WordIndex()

  constructor(private readonly searchableTypes: readonly string[]) {}

  async apply(items: IndexItem[]): Promise<void> {
    applyItems(this.index, items)
  }

  async query(req: SearchRequest): Promise<SearchResponse> {
    return this.index.query(req, this.searchableTypes)
  }

  async clear(): Promise<void> {
    this.index = new WordIndex()
  }

  async close(): Promise<void> {}
}
