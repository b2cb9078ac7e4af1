/**
 * In-memory full-text search for the embedded store, on FlexSearch.
 *
 * FlexSearch's `Index` over one concatenated text field was the fastest option measured on this
 * machine kind (perf-baseline §3: p50 0.2 ms, p99 8 ms with totals at 100k documents, against
 * MiniSearch's 127 ms p99, which scores every match). Multi-word queries match documents holding
 * every word; ranking is FlexSearch's (earlier, closer words first), ties in insertion order.
 *
 * Each entity has a small integer id, assigned once and never reused while the process lives;
 * cursor walks (scroll) order by it, so an entity that exists throughout a walk is seen once.
 */
import flexsearch from 'flexsearch'
import type {FacetField, SearchDoc} from '../model/search-doc.js'
import type {FacetFilter, SearchRequest, SearchResponse} from './types.js'

const {Index} = flexsearch as unknown as {Index: typeof import('flexsearch').Index}

const SPLIT = /[^\p{L}\p{N}]+/u

function tokenize(text: string): string[] {
  return text.toLowerCase().split(SPLIT).filter((t) => t.length > 0)
}

export interface IndexedDoc {
  id: number
  urn: string
  type: string
  name: string
  removed: boolean
  facets: SearchDoc['facets']
  /** Hash of the indexed text: an unchanged text skips FlexSearch's update. */
  textHash: number
}

function hashText(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return (h ^ s.length) >>> 0
}

function facetValues(d: IndexedDoc, field: FacetField | 'urn' | 'removed'): string[] {
  switch (field) {
    case '_entityType':
      return [d.type]
    case 'urn':
      return [d.urn]
    case 'removed':
      return [String(d.removed)]
    case 'platform':
    case 'origin':
    case 'container': {
      const v = d.facets[field]
      return v ? [v] : []
    }
    default:
      return d.facets[field]
  }
}

function matchesGroup(d: IndexedDoc, group: FacetFilter[]): boolean {
  for (const f of group) {
    const vals = facetValues(d, f.field)
    const hit = f.values.some((v) => vals.includes(v))
    if (hit === Boolean(f.negated)) return false
  }
  return true
}

const PRESENT = 1
const REMOVED = 2

export class SearchIndex {
  // Lower-cased runs of letters and digits: `db.orders_2024` → db, orders, 2024. FlexSearch's
  // Default encoder also folds look-alike letters and splits digits, which made `table_5`
  // match `table_55`; this plain one is faster too. fastupdate keeps a register of each id's
  // entries: without it update/remove scan the whole index (about 5 ms per call at 20,000
  // documents), and every edit re-indexes its entity.
  private readonly ix = new Index({tokenize: 'strict', encoder: tokenize as never, resolution: 9, fastupdate: true})
  private readonly docs = new Map<number, IndexedDoc>()
  /** Ids per entity type, ascending: the order of `*` listings and of cursor walks. */
  private readonly byType = new Map<string, number[]>()
  /**
   * Per id, the entity type as a small code and a present/removed flag: the checks a plain page
   * of results needs for every match, without a Map lookup per match (a head word can match
   * two thirds of 100,000 documents).
   */
  private readonly typeCodes = new Map<string, number>()
  private typeOfId = new Uint16Array(1024)
  private flagsOfId = new Uint8Array(1024)
  private maxId = 0

  get size(): number {
    return this.docs.size
  }

  private setFlags(id: number, type: string | undefined, removed: boolean): void {
    if (id >= this.flagsOfId.length) {
      let n = this.flagsOfId.length
      while (n <= id) n *= 2
      const t = new Uint16Array(n)
      t.set(this.typeOfId)
      this.typeOfId = t
      const f = new Uint8Array(n)
      f.set(this.flagsOfId)
      this.flagsOfId = f
    }
    if (type === undefined) {
      this.flagsOfId[id] = 0
      return
    }
    let code = this.typeCodes.get(type)
    if (code === undefined) this.typeCodes.set(type, (code = this.typeCodes.size))
    this.typeOfId[id] = code
    this.flagsOfId[id] = PRESENT | (removed ? REMOVED : 0)
    if (id > this.maxId) this.maxId = id
  }

  /** Ids matching a full-text query, best first. */
  private matchIds(q: string): number[] {
    // With fastupdate, FlexSearch answers `undefined` rather than [] once a term's last
    // document is gone.
    return (this.ix.search(q, {limit: Math.max(this.docs.size, 1)}) as number[] | undefined) ?? []
  }

  upsert(id: number, urn: string, type: string, doc: SearchDoc): void {
    const prev = this.docs.get(id)
    const textHash = hashText(doc.text)
    this.docs.set(id, {id, urn, type, name: doc.name, removed: doc.removed, facets: doc.facets, textHash})
    this.setFlags(id, type, doc.removed)
    if (prev) {
      if (prev.textHash !== textHash) this.ix.update(id, doc.text)
    } else {
      this.ix.add(id, doc.text)
      let ids = this.byType.get(type)
      if (!ids) this.byType.set(type, (ids = []))
      // Ids grow monotonically, so appending keeps the array sorted except after a rebuild
      // that indexes out of order; insert in place then.
      if (ids.length === 0 || ids[ids.length - 1]! < id) ids.push(id)
      else ids.splice(lowerBound(ids, id), 0, id)
    }
  }

  remove(id: number): void {
    const d = this.docs.get(id)
    if (!d) return
    this.docs.delete(id)
    this.setFlags(id, undefined, false)
    this.ix.remove(id)
    const ids = this.byType.get(d.type)
    if (ids) {
      const i = lowerBound(ids, id)
      if (ids[i] === id) ids.splice(i, 1)
    }
  }

  /**
   * A page by offset with no filters and no facets — the common search — counts the matches and
   * keeps only the page, checking each match against the per-id arrays.
   */
  private plainPage(req: SearchRequest, types: readonly string[], q: string, all: boolean): SearchResponse {
    const allowed = new Uint8Array(this.typeCodes.size + 1)
    for (const t of types) {
      const c = this.typeCodes.get(t)
      if (c !== undefined) allowed[c] = 1
    }
    const skip = req.includeSoftDeleted === true ? 0 : REMOVED
    const start = Math.max(0, req.start ?? 0)
    const end = start + Math.max(0, req.count ?? 10)
    const flags = this.flagsOfId
    const typeOf = this.typeOfId
    const page: number[] = []
    let total = 0
    const visit = (id: number) => {
      const f = flags[id]!
      if ((f & PRESENT) === 0 || (f & skip) !== 0 || allowed[typeOf[id]!] === 0) return
      if (total >= start && total < end) page.push(id)
      total++
    }
    if (!all) for (const id of this.matchIds(q)) visit(id)
    else if (types.length === 1) for (const id of this.byType.get(types[0]!) ?? []) visit(id)
    // Several types listed in id order: a scan of the id range is cheaper than merging lists.
    else for (let id = 1; id <= this.maxId; id++) visit(id)
    const hits = page.map((id) => this.docs.get(id)!).map((d) => ({urn: d.urn, entityType: d.type, name: d.name}))
    return {total, hits}
  }

  query(req: SearchRequest, searchableTypes: readonly string[]): SearchResponse {
    const types = req.types && req.types.length > 0 ? req.types : searchableTypes
    const q = req.query.trim()
    const all = q === '' || q === '*'
    const cursorMode = req.after !== undefined
    if (!cursorMode && (!req.filters || req.filters.length === 0) && (!req.facets || req.facets.length === 0)) return this.plainPage(req, types, q, all)
    const typeSet = new Set(types)
    const keep = (d: IndexedDoc | undefined): d is IndexedDoc =>
      d !== undefined &&
      typeSet.has(d.type) &&
      (req.includeSoftDeleted === true || !d.removed) &&
      (!req.filters || req.filters.length === 0 || req.filters.some((g) => matchesGroup(d, g)))

    let matched: IndexedDoc[] = []
    if (all) {
      for (const t of types) {
        for (const id of this.byType.get(t) ?? []) {
          const d = this.docs.get(id)
          if (keep(d)) matched.push(d)
        }
      }
      if (types.length > 1 || cursorMode) matched.sort((a, b) => a.id - b.id)
    } else {
      const ids = this.matchIds(q)
      for (const id of ids) {
        const d = this.docs.get(id)
        if (keep(d)) matched.push(d)
      }
      if (cursorMode) matched.sort((a, b) => a.id - b.id)
    }

    const total = matched.length
    const count = Math.max(0, req.count ?? 10)
    let page: IndexedDoc[]
    let next: string | null | undefined
    if (cursorMode) {
      const after = req.after ? Number.parseInt(req.after, 36) : -1
      const from = after < 0 ? 0 : upperBoundDocs(matched, after)
      page = matched.slice(from, from + count)
      next = from + count < matched.length && page.length > 0 ? page[page.length - 1]!.id.toString(36) : null
    } else {
      const start = Math.max(0, req.start ?? 0)
      page = matched.slice(start, start + count)
    }

    let facets: SearchResponse['facets']
    if (req.facets && req.facets.length > 0) {
      facets = {}
      for (const f of req.facets) {
        const counts = new Map<string, number>()
        for (const d of matched) for (const v of facetValues(d, f)) counts.set(v, (counts.get(v) ?? 0) + 1)
        facets[f] = [...counts.entries()]
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .map(([value, c]) => ({value, count: c}))
      }
    }
    return {
      total,
      hits: page.map((d) => ({urn: d.urn, entityType: d.type, name: d.name})),
      ...(facets ? {facets} : {}),
      ...(cursorMode ? {next} : {}),
    }
  }
}

function lowerBound(a: number[], x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid]! < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

function upperBoundDocs(a: IndexedDoc[], x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid]!.id <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}
