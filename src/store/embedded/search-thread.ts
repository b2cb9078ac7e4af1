/**
 * The embedded store's search thread, supervised: started with the store, fed the entities that
 * changed, asked the queries, and restarted (with a rebuild of its index) when it dies.
 *
 * Full-text search runs on its own thread: parsing aspects, building documents and updating the
 * word index took a fifth of the write path's CPU, and the index's memory stays out of the heap
 * the store's thread collects. The thread is unref'd while idle, so an open store never keeps a
 * process alive.
 *
 * Glossary:
 * - pending: urns changed since the last flush to the thread. They wait as urns, holding no copy;
 *   their items are built from the store's latest values when they are sent.
 * - in flight: index messages the thread has not finished. Flow control: a message waits in the
 *   thread's queue as a serialized copy, outside any heap limit, and a restart's rebuild used to
 *   post the whole catalog at once (RSS climbed by half a GiB at a million aspects while the
 *   thread caught up). Past INDEX_IN_FLIGHT, changed urns stay pending.
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

/** What the thread is fed from: the store's entities. */
export interface SearchSource {
  /**
   * The items that bring the index up to date for one changed urn: its document, its removal,
   * or both (deleted and written again since the last flush: the old id leaves, the new enters).
   */
  itemsFor(urn: string): IndexItem[]
  /** Every urn, in the order of the entities' search ids (a rebuild sends them in that order). */
  urnsById(): string[]
}

export class SearchThread implements SearchIndex {
  private worker: Worker | null = null
  private readonly queries = new Map<number, {resolve: (r: SearchResponse) => void; reject: (e: Error) => void}>()
  private querySeq = 0
  private readonly pending = new Set<string>()
  private scheduled = false
  private inFlight = 0
  private roomWaiters: Array<() => void> = []
  /** Resolves once the current rebuild has sent every entity; queries wait for it. */
  private ready: Promise<void> = Promise.resolve()
  /** When the thread last restarted (ms), within the last minute. */
  private restarts: number[] = []
  private closed = false

  constructor(
    private readonly source: SearchSource,
    private readonly opts: {searchableTypes: readonly string[]; warn?: (m: string) => void},
  ) {}

  /** Starts the thread and sends it the whole catalog in the background. */
  start(): void {
    this.startWorker()
    this.ready = this.rebuild()
  }

  /** Notes a changed entity; it is sent at the next flush (see schedule). */
  changed(urn: string): void {
    this.pending.add(urn)
  }

  /** Sends what is pending soon, as room allows (after the current batch of writes). */
  schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.flush()
    })
  }

  /** Index messages the search thread has not finished and entities waiting to be sent to it. */
  backlog(): {messages: number; entities: number} {
    return {messages: this.inFlight, entities: this.pending.size}
  }

  /** Answers a query once the thread has every change made before it. */
  async query(req: SearchRequest): Promise<SearchResponse> {
    await this.ready
    this.flush(true)
    const w = this.worker
    if (!w) throw new Error('search is unavailable: the search thread is not running')
    const seq = ++this.querySeq
    return new Promise<SearchResponse>((resolve, reject) => {
      // While a query waits for it, the thread must keep the process alive.
      if (this.queries.size === 0) w.ref()
      this.queries.set(seq, {resolve, reject})
      w.postMessage({kind: 'query', seq, req} satisfies ToWorker)
    })
  }

  /**
   * Items pushed by a caller rather than pulled from the source (the SearchIndex contract): sent
   * after whatever is pending, INDEX_BATCH to a message, as the thread has room. A restart's
   * rebuild knows only the source: an index fed this way alone is fed again by its caller.
   */
  async apply(items: IndexItem[]): Promise<void> {
    await this.ready
    this.flush(true)
    for (let i = 0; i < items.length; i += INDEX_BATCH) {
      await this.room()
      this.sendIndex(items.slice(i, i + INDEX_BATCH))
    }
  }

  /** Forgets every document (the thread's index starts empty again). */
  async clear(): Promise<void> {
    await this.ready
    this.pending.clear()
    await this.room()
    if (!this.worker) return
    this.inFlight++
    this.worker.postMessage({kind: 'clear'} satisfies ToWorker)
  }

  /** Stops the thread; queries still waiting fail. */
  async close(): Promise<void> {
    this.closed = true
    // Its exit comes through down() while it is still the current thread, failing what waits.
    await this.worker?.terminate()
    this.worker = null
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
   * The thread died: its waiting queries fail, and a new thread gets the whole index again
   * (searches wait for it, as after a start). A thread that keeps dying is given up on after three
   * restarts in a minute; searches then fail with a clear error until the server restarts.
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
      this.opts.warn?.(`search thread ${why} again; not restarting it (three restarts this minute): searches fail until the server restarts`)
      return
    }
    this.restarts.push(now)
    this.opts.warn?.(`search thread ${why}; restarting it and rebuilding the index`)
    this.start()
  }

  private sendIndex(items: IndexItem[]): void {
    if (!this.worker || items.length === 0) return
    this.inFlight++
    this.worker.postMessage({kind: 'index', items} satisfies ToWorker)
  }

  private indexed(): void {
    if (this.inFlight > 0) this.inFlight--
    this.wakeRoomWaiters()
    if (this.pending.size > 0) this.schedule()
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

  /**
   * Sends pending entities, INDEX_BATCH to a message, while the thread has room (`all`:
   * regardless, so that a query sent next sees every change before it).
   */
  private flush(all = false): void {
    while (this.pending.size > 0 && (all || this.inFlight < INDEX_IN_FLIGHT)) {
      const items: IndexItem[] = []
      for (const urn of this.pending) {
        this.pending.delete(urn)
        items.push(...this.source.itemsFor(urn))
        if (items.length >= INDEX_BATCH) break
      }
      this.sendIndex(items)
    }
  }

  private async rebuild(): Promise<void> {
    // Start after the store is open: the first requests need not wait for the index to begin.
    await new Promise((r) => setImmediate(r))
    const urns = this.source.urnsById()
    const w = this.worker
    for (let i = 0; i < urns.length; i += INDEX_BATCH) {
      await this.room()
      // Closed, or the thread died and a new one started its own rebuild.
      if (this.closed || this.worker !== w) return
      const items: IndexItem[] = []
      for (const urn of urns.slice(i, i + INDEX_BATCH)) {
        this.pending.delete(urn)
        items.push(...this.source.itemsFor(urn))
      }
      this.sendIndex(items)
    }
  }
}
