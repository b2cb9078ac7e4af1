/**
 * The embedded store's search thread, supervised: started when first fed or asked, fed the
 * documents of changed entities by the catalog (catalog/search-feed.ts), asked the queries, and
 * restarted empty when it dies (its feeder is told, and sends everything again).
 *
 * Full-text search runs on its own thread: parsing aspects, building documents and updating the
 * word index took a fifth of the write path's CPU, and the index's memory stays out of the heap
 * the store's thread collects. The thread is unref'd while idle, so an open index never keeps a
 * process alive.
 *
 * Glossary:
 * - in flight: index messages the thread has not finished. Flow control: a message waits in the
 *   thread's queue as a serialized copy, outside any heap limit, and a rebuild used to post the
 *   whole catalog at once (RSS climbed by half a GiB at a million aspects while the thread caught
 *   up). Past INDEX_IN_FLIGHT, `apply` waits; its feeder keeps what changed meanwhile as urns.
 */
import {Worker} from 'node:worker_threads'
import type {FromWorker, IndexItem, ToWorker} from '../search-worker.js'
import type {SearchIndex, SearchRequest, SearchResponse} from '../types.js'
import {searchHeapMb} from './memory.js'

/**
 * Entities per message to the search thread, and messages it may have queued (see in flight):
 * at most 4,000 entities queued either way. Small messages keep each one's objects short-lived
 * on both threads: a message of 1,000 entities stayed alive for the whole of its indexing, long
 * enough to be promoted to the search thread's old generation, and the urns waiting behind four
 * such messages to the server's (store bench, four alternating pairs at a million aspects: 250
 * to a message 40.7–42.4 µs of CPU per aspect, 1,000 to a message 41.2–43.4 µs).
 */
export const INDEX_BATCH = 250
export const INDEX_IN_FLIGHT = 16

export class SearchThread implements SearchIndex {
  private worker: Worker | null = null
  private readonly queries = new Map<number, {resolve: (r: SearchResponse) => void; reject: (e: Error) => void}>()
  private querySeq = 0
  private inFlight = 0
  private roomWaiters: Array<() => void> = []
  /** When the thread last restarted (ms), within the last minute. */
  private restarts: number[] = []
  /** Given up on after too many restarts: searches fail with this reason. */
  private gaveUp: string | undefined
  private closed = false
  private readonly lostListeners: Array<() => void> = []

  constructor(private readonly opts: {searchableTypes: readonly string[]; warn?: (m: string) => void}) {}

  onLost(listen: () => void): void {
    this.lostListeners.push(listen)
  }

  /** Index messages the search thread has not finished. */
  backlog(): number {
    return this.inFlight
  }

  /** Answers a query after every index message sent before it (the thread takes them in order). */
  async query(req: SearchRequest): Promise<SearchResponse> {
    const w = this.running()
    const seq = ++this.querySeq
    return new Promise<SearchResponse>((resolve, reject) => {
      // While a query waits for it, the thread must keep the process alive.
      if (this.queries.size === 0) w.ref()
      this.queries.set(seq, {resolve, reject})
      w.postMessage({kind: 'query', seq, req} satisfies ToWorker)
    })
  }

  /** Sends items INDEX_BATCH to a message, as the thread has room. */
  async apply(items: IndexItem[]): Promise<void> {
    for (let i = 0; i < items.length; i += INDEX_BATCH) {
      await this.room()
      this.sendIndex(items.slice(i, i + INDEX_BATCH))
    }
  }

  /** Forgets every document (the thread's index starts empty again). */
  async clear(): Promise<void> {
    await this.room()
    const w = this.running()
    this.inFlight++
    w.postMessage({kind: 'clear'} satisfies ToWorker)
  }

  /** Stops the thread; queries still waiting fail. */
  async close(): Promise<void> {
    this.closed = true
    // Its exit comes through down() while it is still the current thread, failing what waits.
    await this.worker?.terminate()
    this.worker = null
  }

  /** The thread, started on first use (and after a restart). */
  private running(): Worker {
    if (this.gaveUp !== undefined) throw new Error(`search is unavailable: the search thread ${this.gaveUp}`)
    if (this.closed) throw new Error('search is unavailable: the search index is closed')
    if (!this.worker) this.startWorker()
    return this.worker!
  }

  private startWorker(): void {
    const w = new Worker(new URL('../search-worker.js', import.meta.url), {
      workerData: {searchableTypes: [...this.opts.searchableTypes]},
      // Its own heap, sized from the machine: the index of a large catalog outgrows V8's default.
      resourceLimits: {maxOldGenerationSizeMb: searchHeapMb()},
    })
    w.on('message', (m: FromWorker) => {
      if (m.kind === 'indexed') {
        // A thread that died may still deliver what it posted before; its count was reset.
        if (this.worker === w) this.indexed()
        return
      }
      const q = this.queries.get(m.seq)
      if (!q) return
      this.queries.delete(m.seq)
      if (this.queries.size === 0) w.unref()
      if (m.error !== undefined) q.reject(new Error(`search failed: ${m.error}`))
      else q.resolve(m.result as SearchResponse)
    })
    w.on('error', (e) => this.down(w, `failed: ${e.message}`))
    w.on('exit', (code) => this.down(w, `stopped (exit code ${code})`))
    // Unref after the listeners: attaching one refs the thread again.
    w.unref()
    this.worker = w
  }

  /**
   * The thread died: its waiting queries fail, and a new thread starts empty; the feeder is told
   * and sends the whole index again (searches wait for it, as after a start). A thread that keeps
   * dying is given up on after three restarts in a minute; searches then fail with a clear error
   * until the server restarts.
   */
  private down(w: Worker, why: string): void {
    if (this.worker !== w) return
    this.worker = null
    this.inFlight = 0
    this.wakeRoomWaiters()
    for (const q of this.queries.values()) q.reject(new Error(`search is unavailable: the search thread ${why}`))
    this.queries.clear()
    if (this.closed) return
    const now = Date.now()
    this.restarts = this.restarts.filter((t) => now - t < 60_000)
    if (this.restarts.length >= 3) {
      this.gaveUp = why
      this.opts.warn?.(`search thread ${why} again; not restarting it (three restarts this minute): searches fail until the server restarts`)
      return
    }
    this.restarts.push(now)
    this.opts.warn?.(`search thread ${why}; restarting it and rebuilding the index`)
    this.startWorker()
    for (const listen of this.lostListeners) listen()
  }

  private sendIndex(items: IndexItem[]): void {
    if (items.length === 0) return
    const w = this.running()
    this.inFlight++
    w.postMessage({kind: 'index', items} satisfies ToWorker)
  }

  private indexed(): void {
    if (this.inFlight > 0) this.inFlight--
    this.wakeRoomWaiters()
  }

  private wakeRoomWaiters(): void {
    const waiters = this.roomWaiters
    this.roomWaiters = []
    for (const w of waiters) w()
  }

  /** Resolves once the thread has room for another index message (or is gone). */
  private room(): Promise<void> {
    if (this.inFlight < INDEX_IN_FLIGHT || !this.worker) return Promise.resolve()
    return new Promise((r) => this.roomWaiters.push(r))
  }
}
