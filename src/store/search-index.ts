/**
 * In-memory full-text search for the embedded store, on the compact inverted index of
 * `term-index.ts`. Multi-word queries match documents holding every word; ranking is the search
 * contract's: the exact name first, then documents with every word in the name or urn, then the
 * rest, older entities first within each group (as the PostgreSQL store ranks).
 *
 * Each entity has a small integer id (the store's), assigned once and never reused while the
 * process lives; cursor walks (scroll) order by it, so an entity that exists throughout a walk is
 * seen once. An urn is indexed under one id at a time: a document under a new id (the entity was
 * deleted and created again) replaces the one under the old.
 */
import type {FacetField, SearchDoc} from '../model/search-doc.js'
import {Arena, TermIndex, lowerBound, widen} from './term-index.js'
import {type FacetFilter, facetValueMatches, type SearchRequest, type SearchResponse} from './types.js'

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
  for (const w of textWords(text)) out.push(...wordTokens(w))
  return out
}

/** The words of a text as typed: runs of letters and digits. */
function textWords(text: string): string[] {
  return text.split(SPLIT).filter((w) => w.length > 0)
}

/** What one word is indexed under: itself lower-cased, and its parts when it has several. */
function wordTokens(w: string): string[] {
  const parts = wordParts(w)
  return parts.length > 1 ? [w.toLowerCase(), ...parts] : [w.toLowerCase()]
}

/** A query as the words every match must hold: each typed word split into its parts. */
export function queryWords(q: string): string[] {
  return q.split(SPLIT).filter((w) => w.length > 0).flatMap(wordParts)
}

/** How many indexed words a last-word prefix expands to, at most. */
const PREFIX_EXPANSIONS = 24

function hashText(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return (h ^ s.length) >>> 0
}

/**
 * Facet fields held as codes of the index's dictionary, field after field in this order, each
 * run preceded by its length: counting a facet over 100,000 matches is array arithmetic, not
 * string hashing.
 */
const CODED_FIELDS = ['platform', 'origin', 'container', 'tags', 'owners', 'domains', 'glossaryTerms', 'typeNames'] as const
type CodedField = (typeof CODED_FIELDS)[number]
const FIELD_INDEX = new Map<string, number>(CODED_FIELDS.map((f, i) => [f, i]))

const PRESENT = 1
const REMOVED = 2

/**
 * Everything is kept per document id in flat arrays (no object per document): at a million
 * aspects the index holds 200,000 documents, and an object, a typed array and a name set for
 * each cost more than the words.
 */
export class SearchIndex {
  private readonly terms = new TermIndex(wordTokens)
  private count = 0
  private readonly urnOf: Array<string | undefined> = []
  /** The id each urn is indexed under (the same strings as urnOf: a map entry, no copy). */
  private readonly idOfUrn = new Map<string, number>()
  private readonly nameOf: Array<string | undefined> = []
  /** Per id: hash of the lower-cased name (exact name matches rank first), hash of the indexed text (unchanged text skips the word index). */
  private nameHash = new Uint32Array(1024)
  private textHash = new Uint32Array(1024)
  /** Per id, its facet runs (see CODED_FIELDS). */
  private readonly facetRuns = new Arena()
  /** Facet values ↔ codes, shared by all fields; values are never forgotten (they are few). */
  private readonly codeOf = new Map<string, number>()
  private readonly valueOf: string[] = []
  /** Ids per entity type, ascending: the order of `*` listings and of cursor walks. */
  private readonly byType = new Map<string, number[]>()
  /** Per id, the entity type as a small code and a present/removed flag. */
  private readonly typeCodes = new Map<string, number>()
  private readonly typeNames: string[] = []
  private typeOfId = new Uint16Array(1024)
  private flagsOfId = new Uint8Array(1024)
  private maxId = 0

  get size(): number {
    return this.count
  }

  private grow(id: number): void {
    this.typeOfId = widen(this.typeOfId, id)
    this.flagsOfId = widen(this.flagsOfId, id)
    this.nameHash = widen(this.nameHash, id)
    this.textHash = widen(this.textHash, id)
  }

  private setFlags(id: number, type: string | undefined, removed: boolean): void {
    if (type === undefined) {
      this.flagsOfId[id] = 0
      return
    }
    let code = this.typeCodes.get(type)
    if (code === undefined) {
      this.typeCodes.set(type, (code = this.typeCodes.size))
      this.typeNames.push(type)
    }
    this.typeOfId[id] = code
    this.flagsOfId[id] = PRESENT | (removed ? REMOVED : 0)
    if (id > this.maxId) this.maxId = id
  }

  private typeOf(id: number): string {
    return this.typeNames[this.typeOfId[id]!]!
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
      .split(SPLIT)
      .filter((w) => w.length > 0)
      .flatMap((w) => (this.terms.has(w.toLowerCase()) ? [w.toLowerCase()] : wordParts(w)))
    if (words.length === 0) return []
    const head = words.slice(0, -1)
    const last = words[words.length - 1]!
    // The last word is a prefix while it is not a word of the catalog yet (`SampleKaf`, `cust`);
    // one or two letters would expand to the most common words, so those match exactly.
    const postings = last.length >= 3 && !this.terms.has(last) ? this.terms.match(head, this.terms.expand(last, PREFIX_EXPANSIONS)) : this.terms.match(words)
    const key = q.trim().toLowerCase()
    const keyHash = hashText(key)
    const first: number[] = []
    const named: number[] = []
    const rest: number[] = []
    for (const p of postings) {
      const id = p >>> 1
      if (this.nameHash[id] === keyHash && this.nameOf[id]!.toLowerCase() === key) first.push(id)
      else if (p & 1) named.push(id)
      else rest.push(id)
    }
    return first.length === 0 && named.length === 0 ? rest : [...first, ...named, ...rest]
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

  private encode(facets: SearchDoc['facets']): number[] {
    const out: number[] = []
    for (const f of CODED_FIELDS) {
      const v = facets[f]
      const list = Array.isArray(v) ? v : v ? [v] : []
      out.push(list.length)
      for (const x of list) out.push(this.code(x))
    }
    return out
  }

  /** Counts of the facets' values over the matched documents, all in one pass over them. */
  private countFacets(ids: number[], fields: readonly FacetField[]): Map<string, Map<string, number>> {
    const out = new Map<string, Map<string, number>>()
    if (fields.includes('_entityType')) {
      const m = new Map<string, number>()
      for (const id of ids) m.set(this.typeOf(id), (m.get(this.typeOf(id)) ?? 0) + 1)
      out.set('_entityType', m)
    }
    const wanted = CODED_FIELDS.map((f) => fields.includes(f))
    const counts = CODED_FIELDS.map((_, i) => (wanted[i] ? new Uint32Array(this.valueOf.length) : undefined))
    const touched: number[][] = CODED_FIELDS.map(() => [])
    const n = CODED_FIELDS.length
    const fc = this.facetRuns.values
    for (const id of ids) {
      let p = this.facetRuns.start(id)
      if (p < 0) continue
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
  private groupTest(group: FacetFilter[]): (id: number) => boolean {
    const tests = group.map((f) => {
      let hit: (id: number) => boolean
      const exists = f.match === 'EXISTS'
      const matches = facetValueMatches(f.match, f.values)
      if (f.field === '_entityType') hit = exists ? () => true : (id) => matches(this.typeOf(id))
      else if (f.field === 'urn') hit = exists ? () => true : (id) => matches(this.urnOf[id]!)
      else if (f.field === 'name') hit = exists ? (id) => (this.nameOf[id] ?? '') !== '' : (id) => matches(this.nameOf[id] ?? '')
      else if (f.field === 'removed') hit = exists ? () => true : (id) => matches(String((this.flagsOfId[id]! & REMOVED) !== 0))
      else {
        const fi = FIELD_INDEX.get(f.field as CodedField)
        // The codes of the values that match, looked up once: directly for exact values, else by a
        // pass over the distinct values (not over the documents).
        let codes: Set<number> | undefined
        if (!exists) {
          codes = new Set<number>()
          if (f.match === undefined || f.match === 'EQUAL') {
            for (const v of f.values) {
              const c = this.codeOf.get(v)
              if (c !== undefined) codes.add(c)
            }
          } else this.valueOf.forEach((v, c) => matches(v) && codes!.add(c))
        }
        hit = (id) => {
          const at = this.facetRuns.start(id)
          if (fi === undefined || at < 0) return false
          const fc = this.facetRuns.values
          let p = at
          for (let i = 0; i < fi; i++) p += fc[p]! + 1
          if (codes === undefined) return fc[p]! > 0
          for (let k = p + 1, end = p + 1 + fc[p]!; k < end; k++) if (codes.has(fc[k]!)) return true
          return false
        }
      }
      const negated = Boolean(f.negated)
      return (id: number) => hit(id) !== negated
    })
    return (id) => tests.every((t) => t(id))
  }

  upsert(id: number, urn: string, type: string, doc: SearchDoc): void {
    const was = this.idOfUrn.get(urn)
    if (was !== undefined && was !== id) this.remove(was)
    this.generation++
    this.grow(id)
    const known = this.urnOf[id] !== undefined
    if (!known) this.idOfUrn.set(urn, id)
    const textHash = hashText(doc.text)
    if (!known || this.textHash[id] !== textHash) {
      const rest = doc.text.startsWith(doc.head) ? doc.text.slice(doc.head.length) : doc.text
      this.terms.set(id, textWords(doc.head), textWords(rest))
    }
    if (!known) this.count++
    this.urnOf[id] = urn
    this.nameOf[id] = doc.name
    this.nameHash[id] = hashText(doc.name.toLowerCase())
    this.textHash[id] = textHash
    this.facetRuns.set(id, this.encode(doc.facets))
    this.setFlags(id, type, doc.removed)
    if (!known) {
      let ids = this.byType.get(type)
      if (!ids) this.byType.set(type, (ids = []))
      // Ids grow monotonically, so appending keeps the array sorted except after a rebuild
      // that indexes out of order; insert in place then.
      if (ids.length === 0 || ids[ids.length - 1]! < id) ids.push(id)
      else ids.splice(lowerBound(ids, id), 0, id)
    }
  }

  /** Takes an urn's document out, whatever id it is indexed under. */
  removeUrn(urn: string): void {
    const id = this.idOfUrn.get(urn)
    if (id !== undefined) this.remove(id)
  }

  remove(id: number): void {
    const urn = this.urnOf[id]
    if (urn === undefined) return
    if (this.idOfUrn.get(urn) === id) this.idOfUrn.delete(urn)
    this.generation++
    const type = this.typeOf(id)
    this.count--
    this.urnOf[id] = undefined
    this.nameOf[id] = undefined
    this.facetRuns.delete(id)
    this.setFlags(id, undefined, false)
    this.terms.remove(id)
    const ids = this.byType.get(type)
    if (ids) {
      const i = lowerBound(ids, id)
      if (ids[i] === id) ids.splice(i, 1)
    }
  }

  private hit(id: number): {urn: string; entityType: string; name: string} {
    return {urn: this.urnOf[id]!, entityType: this.typeOf(id), name: this.nameOf[id]!}
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
    return {total, hits: page.map((id) => this.hit(id))}
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
    const groups = req.filters && req.filters.length > 0 ? req.filters.map((g) => this.groupTest(g)) : undefined
    const matched: number[] = []
    // The flag checks first; the filters only for what passes them.
    const visit = (id: number) => {
      const f = flags[id]!
      if ((f & PRESENT) === 0 || (f & skip) !== 0 || allowed[typeOf[id]!] === 0) return
      if (!groups || groups.some((g) => g(id))) matched.push(id)
    }
    if (all) {
      // Listings are in id order: one type's ascending list, or a scan of the id range for several.
      if (types.length === 1) for (const id of this.byType.get(types[0]!) ?? []) visit(id)
      else for (let id = 1; id <= this.maxId; id++) visit(id)
    } else {
      for (const id of this.matchIds(q)) visit(id)
      if (cursorMode) matched.sort((a, b) => a - b)
    }

    const total = matched.length
    const count = Math.max(0, req.count ?? 10)
    let page: number[]
    let next: string | null | undefined
    if (cursorMode) {
      const after = req.after ? Number.parseInt(req.after, 36) : -1
      const from = after < 0 ? 0 : upperBound(matched, after)
      page = matched.slice(from, from + count)
      next = from + count < matched.length && page.length > 0 ? page[page.length - 1]!.toString(36) : null
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
      hits: page.map((id) => this.hit(id)),
      ...(facets ? {facets} : {}),
      ...(cursorMode ? {next} : {}),
    }
  }
}

function upperBound(a: number[], x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid]! <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}
