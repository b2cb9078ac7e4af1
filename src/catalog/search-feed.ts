/**
 * The catalog feeds search; the store knows nothing of it. After each write the catalog works out
 * which entities search may now see differently, builds their items (an entity's id, urn, type
 * and the latest texts of the aspects search reads, read from the store) and hands them to the
 * SearchIndex. Queries go to the index the same way.
 *
 * Two ways in, chosen by the pair the catalog was given:
 * - in the write's transaction, when the store has transactions and the index can apply inside
 *   one (PostgreSQL): the write carries a sidecar that builds the items from the rows as the
 *   transaction sees them and applies them through the store's handle, so a committed write is
 *   searchable on every replica at once and a rolled-back one never was.
 * - after the store acknowledges (the embedded store's search thread, the in-thread index): the
 *   changed urns wait here as urns, holding no copy, and are sent INDEX_BATCH at a time as the
 *   index has room, their items read from the store when they are sent. A query first sends
 *   everything pending, so it sees every write acknowledged before it.
 *
 * Glossary:
 * - feeds search: an aspect search reads (model/search-doc.ts) or the entity's key aspect.
 * - changed: after an op, search may see the entity differently: a new entity, a new value of an
 *   aspect that feeds search, a removal that removed something.
 * - projection: of a large aspect, the few fields search reads, taken from the value the write
 *   side parsed already (proposal.ts) and sent instead of the whole text while that text is the
 *   stored one, so the index need not parse the whole aspect again. In the write's transaction
 *   the projection (or, of a small aspect, the parsed value itself) is handed over as a value
 *   (`IndexItem.values`) and nothing is parsed again; after the acknowledgement only large
 *   aspects' projections wait, as text, since values waiting there would outlive the young
 *   generation.
 * - rebuild: an index that does not outlive the process (not `durable`) is filled from the store
 *   at the start, and again whenever it reports that it lost its documents.
 */
import {isKeyAspect, keyAspectName} from '../model/registry.js'
import {SEARCH_ASPECTS} from '../model/search-doc.js'
import type {EntityTexts, IndexItem, MetadataStore, SearchIndex, SearchRequest, SearchResponse, WriteOp, WriteResult} from '../store/types.js'

/** Entities read from the store and sent to the index at once. */
const INDEX_BATCH = 250

const SEARCH_ASPECT_LIST: readonly string[] = [...SEARCH_ASPECTS]

/**
 * Where an upsert carries its projection (see the glossary): a symbol-keyed property, which the
 * store never sees (JSON.stringify, Object.keys and structured clones skip symbol keys).
 *
 * Why not a WeakMap beside the op, as before: every upsert of a search aspect made an entry, and
 * a WeakMap's entries are ephemerons that each collection processes apart. A million-aspect ingest
 * (bench/store.ts) spent 26.5 µs of CPU per aspect with the property against 27.8–28.3 with the
 * WeakMap (its server thread 16.1–16.3 s against 17.2 s).
 */
const PROJECTION = Symbol('searchProjection')

type Projecting = WriteOp & {[PROJECTION]?: {value: unknown; whole: boolean}}

/**
 * Notes what search reads of an upsert's value (see projection), for the feed to use instead of
 * the text; `whole` when it is the parsed value itself (used only in the write's transaction).
 */
export function noteSearchProjection(op: WriteOp, projection: unknown, whole = false): void {
  ;(op as Projecting)[PROJECTION] = {value: projection, whole}
}

/** Whether an aspect feeds search (see the glossary). */
export function feedsSearch(entityType: string, aspectName: string): boolean {
  return SEARCH_ASPECTS.has(aspectName) || isKeyAspect(entityType, aspectName)
}

/** Whether search may see the op's entity differently after it (see changed). */
function changesSearch(op: WriteOp, r: WriteResult): boolean {
  if (op.op === 'upsert') return r.createdEntity || (r.changed && feedsSearch(op.entityType, op.aspectName))
  if (op.op === 'timeseries') return r.createdEntity
  return r.changed
}

/** `urn:li:<type>:…` → `<type>`. */
function typeOfUrn(urn: string): string {
  return urn.slice('urn:li:'.length, urn.indexOf(':', 'urn:li:'.length))
}

/** By urn then aspect: the text a projection stands for, and the projection as text (waiting) or as a value (in the write's transaction). */
type Projected = Map<string, Map<string, {text: string; projection?: string; value?: unknown}>>
type ReadTexts = (urns: string[], aspectNames: readonly string[]) => Promise<Map<string, EntityTexts>>

export class SearchFeed {
  private pending = new Set<string>()
  /** Projections of acknowledged writes not yet sent, by urn then aspect (after-acknowledge way only). */
  private readonly projections: Projected = new Map()
  private running: Promise<void> | null = null
  private scheduled = false
  private rebuildDue: boolean
  private readonly inTransaction: boolean

  constructor(
    private readonly store: MetadataStore,
    readonly index: SearchIndex,
  ) {
    this.inTransaction = index.applyWithin !== undefined && store.capabilities?.transactions === true
    this.rebuildDue = index.durable !== true
    index.onLost?.(() => {
      this.rebuildDue = true
      this.schedule()
    })
  }

  /** Starts filling an index that does not outlive the process, in the background (else the first query does). */
  warm(): void {
    if (this.rebuildDue) this.schedule()
  }

  /** Writes ops through the store, feeding search in the write's transaction or after it. */
  async write(ops: WriteOp[]): Promise<WriteResult[]> {
    if (this.inTransaction) {
      return this.store.write(ops, async (tx, results) => {
        const urns = this.changedUrns(ops, results)
        if (urns.length === 0) return
        const local: Projected = new Map()
        ops.forEach((op, i) => this.noteProjection(local, op, results[i]!.changed, true))
        const items = await this.itemsOf(urns, (u, n) => tx.latestTexts(u, n), local)
        await this.index.applyWithin!(tx.handle, items)
      })
    }
    const results = await this.store.write(ops)
    ops.forEach((op, i) => {
      const r = results[i]!
      this.noteProjection(this.projections, op, r.changed)
      if (changesSearch(op, r)) this.pending.add(op.urn)
    })
    if (this.pending.size > 0) this.schedule()
    return results
  }

  /** Answers a query once everything written before it has been sent to the index. */
  async query(req: SearchRequest): Promise<SearchResponse> {
    await this.settle()
    return this.index.query(req)
  }

  /** Brings these entities' documents up to date (rows another program wrote, made visible by the store). */
  async refresh(urns: string[]): Promise<void> {
    if (urns.length === 0) return
    if (this.index.durable) {
      for (let i = 0; i < urns.length; i += INDEX_BATCH) await this.index.apply(await this.itemsOf(urns.slice(i, i + INDEX_BATCH), this.readStore, this.projections))
      return
    }
    for (const u of urns) this.pending.add(u)
    this.schedule()
  }

  /** Empties the index and fills it again from every entity of the store, in id order. */
  async rebuild(onProgress?: (done: number) => void): Promise<void> {
    this.rebuildDue = true
    this.onProgress = onProgress
    try {
      await this.settle()
    } finally {
      this.onProgress = undefined
    }
  }

  private onProgress: ((done: number) => void) | undefined

  /** Entities waiting to be sent to the index. */
  backlog(): number {
    return this.pending.size
  }

  /** Resolves once nothing is pending (and no rebuild is due); fails with what failed. */
  async settle(): Promise<void> {
    while (this.running || this.pending.size > 0 || this.rebuildDue) {
      if (!this.running) this.start()
      await this.running
    }
  }

  private readonly readStore: ReadTexts = (urns, names) => this.store.latestTexts(urns, names)

  private changedUrns(ops: WriteOp[], results: WriteResult[]): string[] {
    const urns = new Set<string>()
    ops.forEach((op, i) => changesSearch(op, results[i]!) && urns.add(op.urn))
    return [...urns]
  }

  /**
   * Keeps `into` in step with one op: its projection stands for its text (as a value when `asValue`,
   * in the write's transaction); a removal drops what it removed.
   */
  private noteProjection(into: Projected, op: WriteOp, changed: boolean, asValue = false): void {
    if (op.op === 'upsert') {
      if (!changed) return
      const p = (op as Projecting)[PROJECTION]
      let rec = into.get(op.urn)
      if (p === undefined || (p.whole && !asValue)) {
        rec?.delete(op.aspectName)
        return
      }
      if (!rec) into.set(op.urn, (rec = new Map()))
      rec.set(op.aspectName, asValue ? {text: op.value, value: p.value} : {text: op.value, projection: JSON.stringify(p.value)})
    } else if (op.op === 'deleteEntity') into.delete(op.urn)
    else if (op.op === 'deleteAspect' || op.op === 'revert') into.get(op.urn)?.delete(op.aspectName)
  }

  /** The items of these entities as `read` has them: a document, or the entity's removal. */
  private async itemsOf(urns: string[], read: ReadTexts, projected: Projected): Promise<IndexItem[]> {
    const types = new Set(urns.map(typeOfUrn))
    const names = [...SEARCH_ASPECT_LIST]
    for (const t of types) {
      const key = keyAspectName(t)
      if (key !== undefined) names.push(key)
    }
    const found = await read(urns, names)
    const items: IndexItem[] = []
    for (const urn of urns) {
      const e = found.get(urn)
      const rec = projected.get(urn)
      if (!e) {
        projected.delete(urn)
        items.push({id: 0, urn, type: typeOfUrn(urn), aspects: null})
        continue
      }
      const aspects: Record<string, string> = {}
      let values: Record<string, unknown> | undefined
      for (const name in e.values) {
        if (!feedsSearch(e.entityType, name)) continue
        const text = e.values[name]!
        const p = rec?.get(name)
        if (p !== undefined && p.text === text) {
          if (p.projection !== undefined) aspects[name] = p.projection
          else {
            aspects[name] = text
            ;(values ??= {})[name] = p.value
          }
          rec!.delete(name)
        } else aspects[name] = text
      }
      // What is left stands for a newer write, pending again; unless nothing is, it is stale.
      if (rec && (rec.size === 0 || !this.pending.has(urn))) projected.delete(urn)
      items.push(values ? {id: e.id, urn, type: e.entityType, aspects, values} : {id: e.id, urn, type: e.entityType, aspects})
    }
    return items
  }

  private schedule(): void {
    if (this.scheduled || this.running) return
    this.scheduled = true
    // After the current batch of writes: their urns go together.
    setImmediate(() => {
      this.scheduled = false
      if (!this.running) this.start()
    })
  }

  private start(): void {
    const run = this.drain()
    this.running = run.finally(() => (this.running = null))
    // A send that fails (a closed store) is not retried in the background: the next write or
    // query tries again, and a query reports what failed.
    run.then(
      () => (this.pending.size > 0 || this.rebuildDue) && this.schedule(),
      () => undefined,
    )
    this.running.catch(() => undefined)
  }

  private async drain(): Promise<void> {
    let done = 0
    for (;;) {
      if (this.rebuildDue) {
        this.rebuildDue = false
        try {
          await this.index.clear()
          const {urns} = await this.store.listUrns({includeSoftDeleted: true})
          // Every entity in id order, then whatever was pending besides.
          const before = this.pending
          this.pending = new Set(urns)
          for (const u of before) this.pending.add(u)
        } catch (e) {
          this.rebuildDue = true
          throw e
        }
      }
      if (this.pending.size === 0) return
      const urns: string[] = []
      for (const u of this.pending) {
        urns.push(u)
        if (urns.length >= INDEX_BATCH) break
      }
      for (const u of urns) this.pending.delete(u)
      try {
        await this.index.apply(await this.itemsOf(urns, this.readStore, this.projections))
      } catch (e) {
        for (const u of urns) this.pending.add(u)
        throw e
      }
      done += urns.length
      this.onProgress?.(done)
      // A turn of the event loop between batches: the index takes INDEX_IN_FLIGHT messages before
      // it makes the feed wait, and a request must not wait behind all of them (a rebuild at a
      // million aspects held the first request of a start 0.1 s).
      if (this.pending.size > 0) await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }
}
