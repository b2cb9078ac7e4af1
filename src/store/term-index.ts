/**
 * The embedded store's inverted index: each word's documents as one ascending typed array of
 * postings, and each document's words in one shared arena (to take them out again on an update).
 *
 * It replaced FlexSearch, whose per-word slot arrays and per-document register held about
 * 3 KB per search document (600 MiB of a million-aspect store) and whose ranking was by word
 * position. Here a posting is `id * 2 + head`, `head` set when the word is in the document's
 * name or urn, which is the ranking the search contract asks for (a word in the name above one
 * only in the text) and what the PostgreSQL store's name vector gives.
 *
 * Glossary:
 * - term: a word as indexed (lower-cased, `indexTokens`), numbered on first sight.
 * - posting: `id * 2 + head` for one document holding a term. A term's postings are a plain
 *   number while it has one document (most numbers and names in a catalog are one document's),
 *   else a `PostingList`.
 * - arena: runs of integers per document id in one growing Int32Array; a run replaced by a
 *   longer one moves to the end, and an arena about to grow is compacted instead when half of it
 *   is stale. A typed
 *   array per document would cost more in object headers than its contents.
 */

/** Several postings, ascending by id, in the first `n` slots of `a`. */
interface PostingList {
  a: Int32Array
  n: number
}

type Postings = number | PostingList | undefined

function idOf(posting: number): number {
  return posting >>> 1
}

/** First index in `a[0..n)` whose id is ≥ `id`, searching from `from`. */
function seek(a: Int32Array | number[], n: number, id: number, from = 0): number {
  let lo = from
  let hi = n
  // Gallop first: intersections walk forward in small steps far more often than large ones.
  let step = 1
  while (lo + step < hi && idOf(a[lo + step]!) < id) {
    lo += step
    step *= 2
  }
  if (lo + step < hi) hi = lo + step + 1
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (idOf(a[mid]!) < id) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index of a sorted array whose element is not below `x`. */
export function lowerBound<T extends number | string>(a: readonly T[], x: T): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid]! < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

type Ints = Int32Array | Uint32Array | Uint16Array | Uint8Array

/** `a`, or a copy of it of the same kind doubled until index `i` fits. */
export function widen<A extends Ints>(a: A, i: number): A {
  if (i < a.length) return a
  let n = Math.max(a.length, 1)
  while (n <= i) n *= 2
  const wider = new (a.constructor as new (length: number) => A)(n)
  wider.set(a)
  return wider
}

function listOf(p: Postings): PostingList {
  if (p === undefined) return {a: new Int32Array(0), n: 0}
  if (typeof p === 'number') return {a: Int32Array.of(p), n: 1}
  return p
}

/** Integer runs per id (see the glossary). */
export class Arena {
  private data = new Int32Array(4096)
  private used = 0
  private stale = 0
  /** Per id: start of its run plus one (0: none), and its length. */
  private startOf = new Int32Array(1024)
  private lengthOf = new Int32Array(1024)

  get values(): Int32Array {
    return this.data
  }

  /** Start of `id`'s run in `values`, or -1. */
  start(id: number): number {
    return id < this.startOf.length ? this.startOf[id]! - 1 : -1
  }

  length(id: number): number {
    return id < this.lengthOf.length ? this.lengthOf[id]! : 0
  }

  set(id: number, run: ArrayLike<number>): void {
    this.startOf = widen(this.startOf, id)
    this.lengthOf = widen(this.lengthOf, id)
    const prev = this.startOf[id]! - 1
    if (prev >= 0 && this.lengthOf[id]! >= run.length) {
      // Fits where it was (a shorter run leaves its tail stale).
      this.stale += this.lengthOf[id]! - run.length
      this.data.set(run, prev)
      this.lengthOf[id] = run.length
      return
    }
    this.delete(id)
    if (this.used + run.length > this.data.length) {
      if (this.stale * 2 > this.used) this.compact()
      if (this.used + run.length > this.data.length) {
        const wider = new Int32Array(Math.max(this.data.length * 2, this.used + run.length))
        wider.set(this.data.subarray(0, this.used))
        this.data = wider
      }
    }
    this.data.set(run, this.used)
    this.startOf[id] = this.used + 1
    this.lengthOf[id] = run.length
    this.used += run.length
  }

  delete(id: number): void {
    if (this.start(id) < 0) return
    this.stale += this.lengthOf[id]!
    this.startOf[id] = 0
    this.lengthOf[id] = 0
  }

  private compact(): void {
    const out = new Int32Array(this.data.length)
    let used = 0
    for (let id = 0; id < this.startOf.length; id++) {
      const at = this.startOf[id]! - 1
      if (at < 0) continue
      const len = this.lengthOf[id]!
      out.set(this.data.subarray(at, at + len), used)
      this.startOf[id] = used + 1
      used += len
    }
    this.data = out
    this.used = used
    this.stale = 0
  }
}

export class TermIndex {
  /**
   * @param tokenize a word of a document into the terms it is indexed under (by default the word
   *   itself). A document's text repeats a catalog's common words, so each word's term numbers
   *   are remembered (`wordIds`): one lookup per word instead of lower-casing, splitting and one
   *   lookup per term.
   */
  constructor(private readonly tokenize: (word: string) => readonly string[] = (w) => [w]) {}

  /** Term numbers of a word, as `tokenize` and the vocabulary give them; forgotten when a term is. */
  private readonly wordIds = new Map<string, number[]>()
  /** Per term number, the `stamp` of the last `set` that took it: duplicates are skipped without a set. */
  private mark = new Int32Array(1024)
  private stamp = 0

  private readonly termOf = new Map<string, number>()
  private readonly terms: string[] = []
  private readonly postings: Postings[] = []
  /** Per document id, its terms as `term * 2 + head`, ascending. */
  private readonly docTerms = new Arena()
  /**
   * Numbers of terms no document holds any more, for reuse: a catalog whose descriptions carry a
   * revision number or a date would otherwise keep every word it ever held.
   */
  private readonly free: number[] = []
  /** Terms sorted, for prefix expansion; rebuilt on the first query after the vocabulary changed. */
  private sorted: string[] = []
  private vocabulary = 0
  private sortedAt = -1

  /** Whether some live document holds the term. */
  has(term: string): boolean {
    const t = this.termOf.get(term)
    return t !== undefined && this.postings[t] !== undefined
  }

  private termId(term: string): number {
    let t = this.termOf.get(term)
    if (t === undefined) {
      t = this.free.pop()
      if (t === undefined) {
        t = this.terms.length
        this.terms.push(term)
        this.postings.push(undefined)
        this.mark = widen(this.mark, t)
      } else this.terms[t] = term
      this.termOf.set(term, t)
      this.vocabulary++
    }
    return t
  }

  private idsOf(word: string): number[] {
    let ids = this.wordIds.get(word)
    if (ids === undefined) {
      ids = this.tokenize(word).map((t) => this.termId(t))
      // Names and numbers are mostly one document's: the memo is bounded, not a second vocabulary.
      if (this.wordIds.size >= 20_000) this.wordIds.clear()
      this.wordIds.set(word, ids)
    }
    return ids
  }

  /**
   * Sets a document's words: `head` are the words of its name and urn, `rest` all others (a
   * word in both counts as head). Only the terms that came or went touch the postings.
   */
  set(id: number, head: readonly string[], rest: readonly string[]): void {
    // Term numbers with the head bit, sorted, each term once (as head when it is in both).
    const stamp = ++this.stamp
    let n = 0
    for (let pass = 0; pass < 2; pass++) {
      const bit = pass === 0 ? 1 : 0
      for (const w of pass === 0 ? head : rest) {
        for (const t of this.idsOf(w)) {
          if (this.mark[t] === stamp) continue
          this.mark[t] = stamp
          if (n === this.next.length) this.next = widen(this.next, n)
          this.next[n++] = t * 2 + bit
        }
      }
    }
    const next = this.next.subarray(0, n).sort()
    // The old run is copied out first: the new one may be written over it.
    const at = this.docTerms.start(id)
    const m = at < 0 ? 0 : this.docTerms.length(id)
    if (m > this.prev.length) this.prev = widen(this.prev, m - 1)
    if (m > 0) this.prev.set(this.docTerms.values.subarray(at, at + m))
    const prev = this.prev
    this.docTerms.set(id, next)
    // Term numbers are below 2^30, so END sorts after every posting of either run.
    const END = 0x7fffffff
    let i = 0
    let j = 0
    while (i < m || j < n) {
      const a = i < m ? prev[i]! : END
      const b = j < n ? next[j]! : END
      const ta = a >>> 1
      const tb = b >>> 1
      if (ta === tb) {
        if (a !== b) this.put(tb, id, b & 1)
        i++
        j++
      } else if (ta < tb) {
        this.take(ta, id)
        i++
      } else {
        this.put(tb, id, b & 1)
        j++
      }
    }
  }

  /** Scratch runs of `set`: the document's new terms, and a copy of its old ones. */
  private next = new Int32Array(256)
  private prev = new Int32Array(256)

  remove(id: number): void {
    const at = this.docTerms.start(id)
    if (at < 0) return
    const run = this.docTerms.values.slice(at, at + this.docTerms.length(id))
    for (const x of run) this.take(x >>> 1, id)
    this.docTerms.delete(id)
  }

  /** Adds or replaces the document's posting in a term's list. */
  private put(t: number, id: number, head: number): void {
    const v = id * 2 + head
    const p = this.postings[t]
    if (p === undefined) {
      this.postings[t] = v
      return
    }
    if (typeof p === 'number') {
      if (idOf(p) === id) this.postings[t] = v
      else this.postings[t] = {a: Int32Array.of(Math.min(p, v), Math.max(p, v), 0, 0), n: 2}
      return
    }
    // Ids grow, so a new document's posting goes at the end; an edit of an older one is placed.
    const at = idOf(p.a[p.n - 1]!) < id ? p.n : seek(p.a, p.n, id)
    if (at < p.n && idOf(p.a[at]!) === id) {
      p.a[at] = v
      return
    }
    if (p.n === p.a.length) {
      const wider = new Int32Array(p.n + (p.n >>> 1) + 4)
      wider.set(p.a)
      p.a = wider
    }
    if (at < p.n) p.a.copyWithin(at + 1, at, p.n)
    p.a[at] = v
    p.n++
  }

  private take(t: number, id: number): void {
    const p = this.postings[t]
    if (p === undefined) return
    if (typeof p === 'number') {
      if (idOf(p) === id) this.forget(t)
      return
    }
    const at = seek(p.a, p.n, id)
    if (at >= p.n || idOf(p.a[at]!) !== id) return
    p.a.copyWithin(at, at + 1, p.n)
    p.n--
    if (p.n === 1) this.postings[t] = p.a[0]!
    else if (p.n * 4 < p.a.length && p.a.length > 16) p.a = p.a.slice(0, p.n * 2)
  }

  /** The term's last document is gone: its number goes back to the pool. */
  private forget(t: number): void {
    this.wordIds.clear()
    this.postings[t] = undefined
    this.termOf.delete(this.terms[t]!)
    this.terms[t] = ''
    this.free.push(t)
    this.vocabulary++
  }

  /** Known terms that start with `prefix`, the shortest first, at most `cap`. */
  expand(prefix: string, cap: number): string[] {
    if (this.sortedAt !== this.vocabulary) {
      this.sorted = this.terms.filter((w) => w.length > 0).sort()
      this.sortedAt = this.vocabulary
    }
    const v = this.sorted
    const out: string[] = []
    for (let i = lowerBound(v, prefix); i < v.length && v[i]!.startsWith(prefix); i++) if (this.has(v[i]!)) out.push(v[i]!)
    return out.sort((a, b) => a.length - b.length || (a < b ? -1 : 1)).slice(0, cap)
  }

  private list(term: string): PostingList {
    const t = this.termOf.get(term)
    return listOf(t === undefined ? undefined : this.postings[t])
  }

  /**
   * Documents holding every one of `all` and at least one of `anyOf` (when given), as postings
   * ascending by id with `head` set when every matched word is in the name or urn.
   */
  match(all: readonly string[], anyOf?: readonly string[]): number[] {
    const lists: PostingList[] = all.map((w) => this.list(w))
    if (anyOf && anyOf.length > 0) lists.push(this.union(anyOf.map((w) => this.list(w))))
    if (lists.length === 0 || lists.some((l) => l.n === 0)) return []
    lists.sort((a, b) => a.n - b.n)
    const acc = Array.from(lists[0]!.a.subarray(0, lists[0]!.n))
    for (let l = 1; l < lists.length && acc.length > 0; l++) {
      const other = lists[l]!
      let out = 0
      let pos = 0
      for (const v of acc) {
        pos = seek(other.a, other.n, idOf(v), pos)
        if (pos >= other.n) break
        const o = other.a[pos]!
        if (idOf(o) === idOf(v)) acc[out++] = (v & o & 1) | (v & ~1)
      }
      acc.length = out
    }
    return acc
  }

  /** Postings of several lists merged by id; head is set when any list's posting has it. */
  private union(lists: PostingList[]): PostingList {
    const nonEmpty = lists.filter((l) => l.n > 0)
    if (nonEmpty.length <= 1) return nonEmpty[0] ?? listOf(undefined)
    const byId = new Map<number, number>()
    for (const l of nonEmpty) {
      for (let i = 0; i < l.n; i++) {
        const v = l.a[i]!
        byId.set(idOf(v), (byId.get(idOf(v)) ?? 0) | v)
      }
    }
    const a = Int32Array.from(byId.values()).sort()
    return {a, n: a.length}
  }
}
