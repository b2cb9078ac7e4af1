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
import {applyItems} from './search/memory-index.js'
import {SearchIndex} from './search-index.js'
import type {IndexItem, SearchRequest} from './types.js'

export type {IndexItem} from './types.js'

export type ToWorker = {kind: 'index'; items: IndexItem[]} | {kind: 'clear'} | {kind: 'query'; seq: number; req: SearchRequest}
/** `indexed`: one index message is done (the store's flow control counts them). */
export type FromWorker = {kind: 'result'; seq: number; result?: unknown; error?: string} | {kind: 'indexed'}

export {applyItems}

if (parentPort) {
  const port = parentPort
  let index = new SearchIndex()
  const INDEXED: FromWorker = {kind: 'indexed'}
  const searchable = (workerData as {searchableTypes: string[]}).searchableTypes
  port.on('message', (m: ToWorker) => {
    if (m.kind === 'index') {
      applyItems(index, m.items)
      port.postMessage(INDEXED)
    } else if (m.kind === 'clear') {
      index = new SearchIndex()
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
