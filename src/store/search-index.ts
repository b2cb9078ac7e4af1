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

export class SearchIndex {
  // Lower-cased runs of letters and digits: `db.orders_2024` → db, orders, 2024. FlexSearch's
  // Default encoder also folds look-alike letters and splits digits, which made `table_5`
  // match `table_55`; this plain one is faster too.
  private readonly ix = new Index({tokenize: 'strict', encoder: tokenize as never, resolution: 9})
  private readonly docs = new Map<number, IndexedDoc>()
  /** Ids per entity type, ascending: the order of `*` listings and of cursor walks. */
  private readonly byType = new Map<string, number[]>()

  get size(): number {
    return this.docs.size
  }

  upsert(id: number, urn: string, type: string, doc: SearchDoc): void {
    const had = this.docs.has(id)
    this.docs.set(id, {id, urn, type, name: doc.name, removed: doc.removed, facets: doc.facets})
    if (had) this.ix.update(id, doc.text)
    else {
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
    this.ix.remove(id)
    const ids = this.byType.get(d.type)
    if (ids) {
      const i = lowerBound(ids, id)
      if (ids[i] === id) ids.splice(i, 1)
    }
  }

  query(req: SearchRequest, searchableTypes: readonly string[]): SearchResponse {
    const types = req.types && req.types.length > 0 ? req.types : searchableTypes
    const typeSet = new Set(types)
    const q = req.query.trim()
    const all = q === '' || q === '*'
    const cursorMode = req.after !== undefined
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
      const ids = this.ix.search(q, {limit: Math.max(this.docs.size, 1)}) as number[]
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
