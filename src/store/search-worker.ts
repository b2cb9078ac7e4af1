/**
 * The search index's thread. The store's main thread sends it the search-relevant aspects of
 * changed entities (as JSON text) and queries; this thread parses them, builds the search
 * documents and keeps the index (`search-index.ts`). Messages are handled in arrival order, so a query sees every
 * change sent before it.
 *
 * Glossary:
 * - item: `{id, urn, type, aspects}` — an entity to (re)index; `aspects: null` removes it.
 */
import {parentPort, workerData} from 'node:worker_threads'
import {buildSearchDoc} from '../model/search-doc.js'
import {SearchIndex} from './search-index.js'
import type {SearchRequest} from './types.js'

export interface IndexItem {
  id: number
  urn: string
  type: string
  /** Search-relevant aspects as JSON text; null removes the entity. */
  aspects: Record<string, string> | null
}

export type ToWorker = {kind: 'index'; items: IndexItem[]} | {kind: 'query'; seq: number; req: SearchRequest}
/** `indexed`: one index message is done (the store's flow control counts them). */
export type FromWorker = {kind: 'result'; seq: number; result?: unknown; error?: string} | {kind: 'indexed'}

export function applyItems(index: SearchIndex, items: IndexItem[]): void {
  for (const it of items) {
    if (it.aspects === null) {
      index.remove(it.id)
      continue
    }
    const parsed: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(it.aspects)) parsed[k] = JSON.parse(v)
    index.upsert(it.id, it.urn, it.type, buildSearchDoc(it.type, it.urn, parsed))
  }
}

if (parentPort) {
  const port = parentPort
  const index = new SearchIndex()
  const INDEXED: FromWorker = {kind: 'indexed'}
  const searchable = (workerData as {searchableTypes: string[]}).searchableTypes
  port.on('message', (m: ToWorker) => {
    if (m.kind === 'index') {
      applyItems(index, m.items)
      port.postMessage(INDEXED)
    } else {
      let reply: FromWorker
      try {
        reply = {kind: 'result', seq: m.seq, result: index.query(m.req, searchable)}
      } catch (e) {
        reply = {kind: 'result', seq: m.seq, error: (e as Error).message}
      }
      port.postMessage(reply)
    }
  })
}
