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
/** Where a word breaks inside a name: `sampleKafka`, `HTTPServer`, `orders2024`, `v2data`. */
const PARTS = /\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{N}+|\p{L}+/gu

/** Character classes of the ASCII fast path: 0 other, 1 lower, 2 upper, 3 digit. */
function asciiClass(c: number): number {
  if (c >= 97 && c <= 122) return 1
  if (c >= 65 && c <= 90) return 2
  if (c >= 48 && c <= 57) return 3
  return 0
}

/**
 * The lower-cased parts of one word (camelCase and letter/digit boundaries); one part when it has
 * no boundary. Indexing calls this for every word of every document, so ASCII words (nearly all
 * names) are split by a scan of their characters; others go through the Unicode expression.
 */
export function wordParts(word: string): string[] {
  const parts: string[] = []
  let start = 0
  let prev = -1
  for (let i = 0; i < word.length; i++) {
    const k = asciiClass(word.charCodeAt(i))
    if (k === 0) {
      const all = word.match(PARTS) ?? [word]
      return all.length > 1 ? all.map((p) => p.toLowerCase()) : [word.toLowerCase()]
    }
    // A part ends before: lower→Upper (sampleKafka), letter↔digit (orders2024, v2), and the last
    // capital of a run followed by a lower-case letter (HTTPServer → HTTP, Server).
    const boundary =
      i > 0 &&
      ((prev === 1 && k === 2) || (prev === 3) !== (k === 3) || (prev === 2 && k === 2 && i + 1 < word.length && asciiClass(word.charCodeAt(i + 1)) === 1))
    if (boundary) {
      parts.push(word.slice(start, i).toLowerCase())
      start = i
    }
    prev = k
  }
  if (parts.length === 0) return [word.toLowerCase()]
  parts.push(word.slice(start).toLowerCase())
  return parts
}

/**
 * What a text is indexed under: each word whole (`samplekafkadataset`) and its parts (`sample`,
 * `kafka`, `dataset`), so a search finds a name by any of the words it is made of. Words are runs
 * of letters and digits: `_ . - /` and spaces separate them.
 */
export function indexTokens(text: string): string[] {
  const out: string[] = []
  for (const w of text.split(SPLIT)) {
    if (w.length === 0) continue
    out.push(w.toLowerCase())
    const parts = wordParts(w)
    if (parts.length > 1) out.push(...parts)
  }
  return out
}

/** A query as the words every match must hold: each typed word split into its parts. */
export function queryWords(q: string): string[] {
  return q.split(SPLIT).filter((w) => w.length > 0).flatMap(wordParts)
}

/** How many indexed words a last-word prefix expands to, at most. */
const PREFIX_EXPANSIONS = 24

export interface IndexedDoc {
  id: number
  urn: string
  type: string
  name: string
  removed: boolean
  /**
   * Facet values as codes of the index's dictionary, field after field in CODED_FIELDS order,
   * each run preceded by its length: one small typed array instead of a few string arrays, and
   * counting a facet over 100,000 matches is array arithmetic, not string hashing.
   */
  fc: Int32Array
  /** Hash of the indexed text: an unchanged text skips FlexSearch's update. */
  textHash: number
}

function hashText(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return (h ^ s.length) >>> 0
}

/** Facet fields held as codes, in the order of their runs in `IndexedDoc.fc`. */
const CODED_FIELDS = ['platform', 'origin', 'container', 'tags', 'owners', 'domains', 'glossaryTerms', 'typeNames'] as const
type CodedField = (typeof CODED_FIELDS)[number]
const FIELD_INDEX = new Map<string, number>(CODED_FIELDS.map((f, i) => [f, i]))

/** Start of field `fi`'s run in `fc` (the position of its length). */
function runStart(fc: Int32Array, fi: number): number {
  let p = 0
  for (let i = 0; i < fi; i++) p += fc[p]! + 1
  return p
}

const PRESENT = 1
const REMOVED = 2

export class SearchIndex {
  // Lower-cased runs of letters and digits: `db.orders_2024` → db, orders, 2024. FlexSearch's
  // Default encoder also folds look-alike letters and splits digits, which made `table_5`
  // match `table_55`; this plain one is faster too. fastupdate keeps a register of each id's
  // entries: without it update/remove scan the whole index (about 5 ms per call at 20,000
  // documents), and every edit re-indexes its entity.
  private readonly ix = new Index({tokenize: 'strict', encoder: ((t: string) => this.encodeText(t)) as never, resolution: 9, fastupdate: true})
  /** Every word ever indexed (for prefix expansion), and the same sorted, rebuilt when it grew. */
  private readonly vocab = new Set<string>()
  private sortedVocab: string[] = []
  private vocabSorted = true
  /** True while a document is being indexed: the encoder then also learns its words. */
  private indexing = false
  /** Documents by their lower-cased display name: exact name matches rank first. */
  private readonly byName = new Map<string, Set<number>>()

  /** FlexSearch's encoder: a document's text into its index words; a query (already split into words) as it is. */
  private encodeText(text: string): string[] {
    if (!this.indexing) return text.split(' ').filter((w) => w.length > 0)
    const words = indexTokens(text)
    for (const w of words) {
      if (!this.vocab.has(w)) {
        this.vocab.add(w)
        this.vocabSorted = false
      }
    }
    return words
  }

  /** Indexed words that start with `prefix`, the word itself first when it is one. */
  private expand(prefix: string): string[] {
    if (!this.vocabSorted) {
      this.sortedVocab = [...this.vocab].sort()
      this.vocabSorted = true
    }
    const v = this.sortedVocab
    let lo = 0
    let hi = v.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (v[mid]! < prefix) lo = mid + 1
      else hi = mid
    }
    const out: string[] = []
    for (let i = lo; i < v.length && v[i]!.startsWith(prefix); i++) out.push(v[i]!)
    // The word itself, then the shortest completions (the likeliest), up to the cap.
    return out.sort((a, b) => a.length - b.length || (a < b ? -1 : 1)).slice(0, PREFIX_EXPANSIONS)
  }

  private nameKey(name: string): string {
    return name.toLowerCase()
  }
  private readonly docs = new Map<number, IndexedDoc>()
  /** Facet values ↔ codes, shared by all fields; values are never forgotten (they are few). */
  private readonly codeOf = new Map<string, number>()
  private readonly valueOf: string[] = []
  /** The same documents by id: an array read is cheaper than a Map lookup for the tens of thousands a facet count visits. */
  private readonly docById: Array<IndexedDoc | undefined> = []
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

  /**
   * Ids matching a full-text query, best first: documents holding every word of the query, the
   * last word also as a prefix (`SampleKaf` finds `SampleKafkaDataset`), with the documents
   * whose name is exactly the query ahead of the rest.
   */
  private matchIds(q: string): number[] {
    // A page of results and its filter counts come as two requests with the same query: the
    // second reuses the first's matches while nothing was indexed in between.
    if (this.lastMatch && this.lastMatch.q === q && this.lastMatch.generation === this.generation) return this.lastMatch.ids
    const ids = this.computeMatchIds(q)
    this.lastMatch = {q, generation: this.generation, ids}
    return ids
  }

  private generation = 0
  private lastMatch: {q: string; generation: number; ids: number[]} | undefined

  private computeMatchIds(q: string): number[] {
    // A typed word that is indexed whole (`w1a`, `orders`) is searched whole; one that is not
    // (`SampleKafka`, `orders2024`) by its parts. Parts like `w`, `1` match most of a catalog,
    // so splitting only when needed keeps common queries fast and exact.
    const words = q
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 0)
      .flatMap((w) => (this.vocab.has(w.toLowerCase()) ? [w.toLowerCase()] : wordParts(w)))
    if (words.length === 0) return []
    const limit = Math.max(this.docs.size, 1)
    // With fastupdate, FlexSearch answers `undefined` rather than [] once a term's last document is gone.
    const search = (ws: string[]) => (this.ix.search(ws.join(' '), {limit}) as number[] | undefined) ?? []
    const head = words.slice(0, -1)
    const last = words[words.length - 1]!
    // The last word is a prefix while it is not a word of the catalog yet (`SampleKaf`, `cust`);
    // one or two letters would expand to the most common words, so those match exactly.
    const lasts = last.length >= 3 && !this.vocab.has(last) ? this.expand(last) : [last]
    let ids: number[]
    if (lasts.length <= 1) ids = search([...head, lasts[0] ?? last])
    else {
      const seen = new Set<number>()
      ids = []
      for (const w of lasts) for (const id of search([...head, w])) if (!seen.has(id)) (seen.add(id), ids.push(id))
    }
    const exact = this.byName.get(this.nameKey(q.trim()))
    if (!exact || exact.size === 0) return ids
    const first = ids.filter((id) => exact.has(id))
    return first.length === 0 ? ids : [...first, ...ids.filter((id) => !exact.has(id))]
  }

  private code(v: string): number {
    let c = this.codeOf.get(v)
    if (c === undefined) {
      c = this.valueOf.length
      this.codeOf.set(v, c)
      this.valueOf.push(v)
    }
    return c
  }

  private encode(facets: SearchDoc['facets']): Int32Array {
    const out: number[] = []
    for (const f of CODED_FIELDS) {
      const v = facets[f]
      const list = Array.isArray(v) ? v : v ? [v] : []
      out.push(list.length)
      for (const x of list) out.push(this.code(x))
    }
    return Int32Array.from(out)
  }

  /** Counts of the facets' values over the matched documents, all in one pass over them. */
  private countFacets(docs: IndexedDoc[], fields: readonly FacetField[]): Map<string, Map<string, number>> {
    const out = new Map<string, Map<string, number>>()
    if (fields.includes('_entityType')) {
      const m = new Map<string, number>()
      for (const d of docs) m.set(d.type, (m.get(d.type) ?? 0) + 1)
      out.set('_entityType', m)
    }
    const wanted = CODED_FIELDS.map((f) => fields.includes(f))
    const counts = CODED_FIELDS.map((_, i) => (wanted[i] ? new Uint32Array(this.valueOf.length) : undefined))
    const touched: number[][] = CODED_FIELDS.map(() => [])
    const n = CODED_FIELDS.length
    for (const d of docs) {
      const fc = d.fc
      let p = 0
      for (let fi = 0; fi < n; fi++) {
        const len = fc[p]!
        const c = counts[fi]
        if (c !== undefined) {
          for (let k = p + 1, end = p + 1 + len; k < end; k++) {
            const code = fc[k]!
            if (c[code]++ === 0) touched[fi]!.push(code)
          }
        }
        p += len + 1
      }
    }
    CODED_FIELDS.forEach((f, fi) => {
      if (!wanted[fi]) return
      const m = new Map<string, number>()
      for (const code of touched[fi]!) m.set(this.valueOf[code]!, counts[fi]![code]!)
      out.set(f, m)
    })
    return out
  }

  /** A filter group as a test of one document (the values looked up once, not per document). */
  private groupTest(group: FacetFilter[]): (d: IndexedDoc) => boolean {
    const tests = group.map((f) => {
      let hit: (d: IndexedDoc) => boolean
      if (f.field === '_entityType') hit = (d) => f.values.includes(d.type)
      else if (f.field === 'urn') hit = (d) => f.values.includes(d.urn)
      else if (f.field === 'removed') hit = (d) => f.values.includes(String(d.removed))
      else {
        const fi = FIELD_INDEX.get(f.field as CodedField)
        const codes = new Set(f.values.map((v) => this.codeOf.get(v)).filter((c): c is number => c !== undefined))
        hit = (d) => {
          if (fi === undefined) return false
          const p = runStart(d.fc, fi)
          for (let k = p + 1, end = p + 1 + d.fc[p]!; k < end; k++) if (codes.has(d.fc[k]!)) return true
          return false
        }
      }
      const negated = Boolean(f.negated)
      return (d: IndexedDoc) => hit(d) !== negated
    })
    return (d) => tests.every((t) => t(d))
  }

  upsert(id: number, urn: string, type: string, doc: SearchDoc): void {
    this.generation++
    const prev = this.docs.get(id)
    const textHash = hashText(doc.text)
    const indexed = {id, urn, type, name: doc.name, removed: doc.removed, fc: this.encode(doc.facets), textHash}
    this.docs.set(id, indexed)
    this.docById[id] = indexed
    this.setFlags(id, type, doc.removed)
    if (prev) this.byName.get(this.nameKey(prev.name))?.delete(id)
    const key = this.nameKey(doc.name)
    let named = this.byName.get(key)
    if (!named) this.byName.set(key, (named = new Set()))
    named.add(id)
    this.indexing = true
    try {
      if (prev) {
        if (prev.textHash !== textHash) this.ix.update(id, doc.text)
      } else this.ix.add(id, doc.text)
    } finally {
      this.indexing = false
    }
    if (!prev) {
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
    this.generation++
    this.docs.delete(id)
    this.docById[id] = undefined
    const named = this.byName.get(this.nameKey(d.name))
    named?.delete(id)
    if (named?.size === 0) this.byName.delete(this.nameKey(d.name))
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
    const allowed = new Uint8Array(this.typeCodes.size + 1)
    for (const t of types) {
      const c = this.typeCodes.get(t)
      if (c !== undefined) allowed[c] = 1
    }
    const skip = req.includeSoftDeleted === true ? 0 : REMOVED
    const flags = this.flagsOfId
    const typeOf = this.typeOfId
    const byId = this.docById
    const groups = req.filters && req.filters.length > 0 ? req.filters.map((g) => this.groupTest(g)) : undefined
    const matched: IndexedDoc[] = []
    // The flag checks first (no object touched); the document only for what passes them.
    const visit = (id: number) => {
      const f = flags[id]!
      if ((f & PRESENT) === 0 || (f & skip) !== 0 || allowed[typeOf[id]!] === 0) return
      const d = byId[id]
      if (d && (!groups || groups.some((g) => g(d)))) matched.push(d)
    }
    if (all) {
      // Listings are in id order: one type's ascending list, or a scan of the id range for several.
      if (types.length === 1) for (const id of this.byType.get(types[0]!) ?? []) visit(id)
      else for (let id = 1; id <= this.maxId; id++) visit(id)
    } else {
      for (const id of this.matchIds(q)) visit(id)
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
      const counted = this.countFacets(matched, req.facets)
      for (const f of req.facets) {
        const counts = counted.get(f) ?? new Map<string, number>()
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
