/**
 * Search answered by PostgreSQL from `mdcli_search_doc`, with the embedded store's analysis and
 * semantics (`search-index.ts`): the same words are indexed, a query means the same words, and
 * filters, facets, windows and cursors behave alike — the store conformance suite holds both.
 *
 * Glossary:
 * - search vector: a document's `tsv`, written by the store from `indexTokens` (PostgreSQL's own
 *   parsers split `SampleKafkaDataset` or `orders2024` differently, so they are not used).
 * - name vector: `name_tsv`, the words of the display name and the urn alone; a match there ranks
 *   above a match only in the text.
 * - known word: a word some document is indexed under (the embedded index's vocabulary). A typed
 *   word that is known is matched whole; one that is not, by its parts; the last word, when not
 *   known, also as a prefix.
 * - name key: the lower-cased display name; a document whose name key is the query ranks first.
 */
import type pg from 'pg'
import {hasNul, noNul} from './nul.js'
import {FACET_FIELDS, type FacetField, urnWords} from '../../model/search-doc.js'
import {indexTokens, wordParts} from '../search-index.js'
import type {FacetFilter, SearchRequest, SearchResponse} from '../types.js'

/** The query splitter of `search-index.ts`: runs of letters and digits. */
const SPLIT = /[^\p{L}\p{N}]+/u

/** PostgreSQL refuses a lexeme of 2 KiB or more; no one types such a word, so it is left out. */
const MAX_LEXEME_BYTES = 2046
/** A tsvector must stay under 1 MiB; a document bigger than this keeps its first words. */
const MAX_VECTOR_BYTES = 900_000

function quoteLexeme(w: string): string {
  // Index words are letters and digits; only typed query words can hold a quote or a backslash.
  if (!NEEDS_ESCAPE.test(w)) return `'${w}'`
  return `'${w.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`
}

const NEEDS_ESCAPE = /['\\]/

/** Whether a word is past what PostgreSQL takes as a lexeme. */
const tooLong = (w: string) => w.length * 3 > MAX_LEXEME_BYTES && Buffer.byteLength(w) > MAX_LEXEME_BYTES

/** The lower-cased display name, compared as `SearchIndex` compares names. */
export function nameKey(name: string): string {
  return name.toLowerCase()
}

/** Distinct words as tsvector text, without positions: matching needs none, and ranking reads the name vector. */
function vectorOf(tokens: Iterable<string>, maxBytes = MAX_VECTOR_BYTES): string {
  const words = new Set<string>()
  // A word takes at most 3 UTF-8 bytes per UTF-16 unit: its bytes are counted only once that
  // bound could pass a limit, and from then on exactly.
  let bytes = 0
  let exact = false
  for (const t of tokens) {
    if (words.has(t) || tooLong(t)) continue
    const bound = t.length * 3
    if (!exact && bytes + bound <= maxBytes) {
      bytes += bound + 8
      words.add(t)
      continue
    }
    if (!exact) {
      exact = true
      bytes = 0
      for (const w of words) bytes += Buffer.byteLength(w) + 8
    }
    const size = Buffer.byteLength(t)
    if (bytes + size > maxBytes) continue
    bytes += size + 8
    words.add(t)
  }
  // Index words are runs of letters and digits (indexTokens): none holds a quote or a backslash.
  let out = ''
  for (const w of words) out += out.length === 0 ? `'${w}'` : ` '${w}'`
  return out
}

/**
 * A document's two vectors as tsvector text. The search vector holds the words of its name, its
 * urn and its text. The name vector holds those of the name and the urn alone: ranking asks
 * whether a query matches it (name above text), and it is small enough to stay in the row, so
 * ranking thousands of matches does not read their whole search vectors back from TOAST.
 */
export function searchVectors(urn: string, name: string, text: string, docHead?: string): {search: string; name: string} {
  // A document's text starts with its head (the name and the urn's words, search-doc.ts): given
  // the head, that start is analysed once.
  if (docHead !== undefined && text.startsWith(docHead)) {
    const head = indexTokens(docHead)
    return {search: vectorOf([...head, ...indexTokens(text.slice(docHead.length))]), name: vectorOf(head)}
  }
  const head = indexTokens(`${name} ${urnWords(urn)}`)
  return {search: vectorOf([...head, ...indexTokens(text)]), name: vectorOf(head)}
}

/** What the store needs to know about a query's words before it can write the tsquery. */
export interface QueryPlan {
  /** The typed words, as in the query. */
  typed: string[]
  /** Words whose being known changes the tsquery. */
  questions: string[]
}

/** The words of a query, and those of them the store must look up before it writes the tsquery. */
export function planQuery(q: string): QueryPlan {
  const typed = q.split(SPLIT).filter((w) => w.length > 0)
  const questions = new Set<string>()
  typed.forEach((w, i) => {
    const parts = wordParts(w)
    if (parts.length > 1) questions.add(w.toLowerCase())
    if (i === typed.length - 1) {
      // The last word is either the typed word whole or its last part; a prefix only from 3 letters.
      const lower = w.toLowerCase()
      const lastPart = parts[parts.length - 1]!
      if (lower.length >= 3) questions.add(lower)
      if (lastPart.length >= 3) questions.add(lastPart)
    }
  })
  // No document is indexed under a word PostgreSQL cannot hold, so such a word is never known.
  return {typed, questions: [...questions].filter((w) => !tooLong(w))}
}

/**
 * The tsquery of a query, given which of its questioned words are known: every word must match,
 * the last one also as a prefix when it is not a known word. Undefined when the query has no word.
 */
export function tsqueryOf(plan: QueryPlan, known: ReadonlySet<string>): string | undefined {
  const words = plan.typed.flatMap((w) => (known.has(w.toLowerCase()) ? [w.toLowerCase()] : wordParts(w)))
  if (words.length === 0) return undefined
  const last = words[words.length - 1]!
  const lastTerm = last.length >= 3 && !known.has(last) ? `${quoteLexeme(last)}:*` : quoteLexeme(last)
  return [...words.slice(0, -1).map(quoteLexeme), lastTerm].join(' & ')
}

/** The column of each facet field, and whether it holds one value or a list. */
const FACET_COLUMNS: Record<FacetField, {col: string; list: boolean}> = {
  _entityType: {col: 'entity_type', list: false},
  platform: {col: 'platform', list: false},
  origin: {col: 'origin', list: false},
  container: {col: 'container', list: false},
  tags: {col: 'tags', list: true},
  owners: {col: 'owners', list: true},
  domains: {col: 'domains', list: true},
  glossaryTerms: {col: 'glossary_terms', list: true},
  typeNames: {col: 'type_names', list: true},
}

class Params {
  readonly values: unknown[] = []
  add(v: unknown, cast: string): string {
    this.values.push(v)
    return `$${this.values.length}::${cast}`
  }
}

/** LIKE patterns for a filter's values: `\\`, `%` and `_` taken literally. */
function likePatterns(match: FacetFilter['match'], values: readonly string[]): string[] {
  const lit = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`)
  return values.map((v) => (match === 'CONTAIN' ? `%${lit(v)}%` : match === 'START_WITH' ? `${lit(v)}%` : match === 'END_WITH' ? `%${lit(v)}` : lit(v)))
}

/** One filter as an SQL condition that is true or false, never null (negation must not drop rows). */
function filterSql(f: FacetFilter, p: Params): string {
  const match = f.match ?? 'EQUAL'
  // A scalar expression compared with the filter's values, as its match asks.
  const compare = (expr: string) =>
    match === 'EQUAL' ? `${expr} = ANY(${p.add(f.values, 'text[]')})` : `${expr} ${match === 'IEQUAL' ? 'ILIKE' : 'LIKE'} ANY(${p.add(likePatterns(match, f.values), 'text[]')})`
  let hit: string
  if (f.field === 'urn') hit = match === 'EXISTS' ? 'true' : compare('urn')
  else if (f.field === 'name') hit = match === 'EXISTS' ? `coalesce(name <> '', false)` : `coalesce(${compare('name')}, false)`
  else if (f.field === 'removed') hit = match === 'EXISTS' ? 'true' : compare('removed::text')
  else {
    const c = (FACET_COLUMNS as Partial<Record<string, {col: string; list: boolean}>>)[f.field]
    if (!c) hit = 'false'
    else if (match === 'EXISTS') hit = c.list ? `coalesce(cardinality(${c.col}) > 0, false)` : `${c.col} IS NOT NULL`
    else if (c.list && match === 'EQUAL') hit = `${c.col} && ${p.add(f.values, 'text[]')}`
    else if (c.list) hit = `EXISTS (SELECT 1 FROM unnest(${c.col}) AS x(v) WHERE ${compare('x.v')})`
    else hit = `coalesce(${compare(c.col)}, false)`
  }
  return f.negated ? `NOT (${hit})` : `(${hit})`
}

interface ResultRow {
  part: number
  f: string | null
  v: string | null
  n: string
  entity_id: string | null
  urn: string | null
  entity_type: string | null
  name: string | null
  exact: boolean | null
  /** Whether the name or urn matches. */
  rank: boolean | null
}

/** Which words of `questions` some document is indexed under: one GIN probe each, one round trip. */
async function knownWords(db: pg.Pool, questions: string[]): Promise<Set<string>> {
  if (questions.length === 0) return new Set()
  const {rows} = await db.query<{w: string}>(
    `SELECT t.w FROM unnest($1::text[], $2::tsquery[]) AS t(w, q) WHERE EXISTS (SELECT 1 FROM mdcli_search_doc d WHERE d.tsv @@ t.q)`,
    [questions, questions.map(quoteLexeme)],
  )
  return new Set(rows.map((r) => r.w))
}

/**
 * A search over `mdcli_search_doc`: the matches, their total, the page (by rank, or after a
 * cursor by entity id) and the facet counts, in one statement.
 *
 * A query's words are first taken as known. When anything matches, every word of that tsquery is
 * in some document, so the guess was right; only a query that matches nothing looks its words up
 * and runs again if that changes the tsquery. Common words, whose lookup costs a read of their
 * whole posting list, are thus never looked up.
 */
export async function searchDocs(db: pg.Pool, request: SearchRequest, searchableTypes: readonly string[]): Promise<SearchResponse> {
  const req = withoutNul(request)
  const q = req.query.trim()
  if (q === '' || q === '*') return runSearch(db, req, searchableTypes, undefined)
  const plan = planQuery(q)
  // Documents leave out words PostgreSQL cannot index, so a query needing one matches nothing
  // (and PostgreSQL refuses it in a tsquery).
  if (plan.typed.some((w) => tooLong(w) && wordParts(w).some(tooLong))) return emptyResponse(req)
  const guess = tsqueryOf(plan, new Set(plan.questions))
  if (guess === undefined) return emptyResponse(req)
  const res = await runSearch(db, req, searchableTypes, guess)
  if (res.total > 0 || plan.questions.length === 0) return res
  const tsquery = tsqueryOf(plan, await knownWords(db, plan.questions))!
  return tsquery === guess ? res : runSearch(db, req, searchableTypes, tsquery)
}

/**
 * PostgreSQL's text holds no NUL character. In a query a NUL separates words, as the documents'
 * words were split (and as the embedded store splits them); a filter value holding one matches
 * no stored value (a urn with a NUL is refused at write), so it becomes one nothing holds rather
 * than another value with the NUL taken out.
 */
function withoutNul(req: SearchRequest): SearchRequest {
  if (!hasNul(req.query) && !(req.filters ?? []).some((and) => and.some((f) => f.values.some(hasNul))) && !(req.after && hasNul(req.after))) return req
  return {
    ...req,
    query: req.query.replaceAll('\u0000', ' '),
    filters: req.filters?.map((and) => and.map((f) => ({...f, values: f.values.map((v) => (hasNul(v) ? NO_VALUE : v))}))),
    ...(typeof req.after === 'string' ? {after: noNul(req.after)} : {}),
  }
}

/** A filter value no document holds (a noncharacter, which no urn or name carries). */
const NO_VALUE = '\uffff'

/**
 * Matches a search counts exactly; beyond this many its total is PostgreSQL's estimate, and an
 * offset page ranks the first matches found: DataHub's own window (start + count) ends at 10,000.
 */
export const EXACT_TOTAL_LIMIT = 10_000

/**
 * The conditions of a request: its types, soft deletes, words and filters. `words` is the
 * condition on the words alone (`tsv @@ …`), `rest` the others, so that name matches can be asked
 * of the name vector with the same filters.
 */
function whereOf(req: SearchRequest, types: readonly string[], tsquery: string | undefined, p: Params): {where: string[]; rest: string[]; tq?: string} {
  const rest = [`entity_type = ANY(${p.add([...types], 'text[]')})`]
  if (req.includeSoftDeleted !== true) rest.push('NOT removed')
  if (req.filters && req.filters.length > 0) {
    rest.push(`(${req.filters.map((g) => (g.length === 0 ? 'true' : g.map((f) => filterSql(f, p)).join(' AND '))).join(' OR ')})`)
  }
  if (tsquery === undefined) return {where: rest, rest}
  const tq = p.add(tsquery, 'tsquery')
  return {where: [rest[0]!, `tsv @@ ${tq}`, ...rest.slice(1)], rest, tq}
}

async function runSearch(db: pg.Pool, req: SearchRequest, searchableTypes: readonly string[], tsquery: string | undefined): Promise<SearchResponse> {
  const types = req.types && req.types.length > 0 ? req.types : searchableTypes
  const q = req.query.trim()
  const cursorMode = req.after !== undefined
  const count = Math.max(0, req.count ?? 10)
  const facetFields = (req.facets ?? []).filter((f) => (FACET_FIELDS as readonly string[]).includes(f))
  // Facets count every match, and a scroll walks them all; an offset page without facets stops
  // gathering matches past EXACT_TOTAL_LIMIT (a common word's matches are most of the cost).
  const capped = !cursorMode && facetFields.length === 0
  // A window raised past 10,000 (--max-result-window) still gets its page.
  const cap = Math.max(EXACT_TOTAL_LIMIT, Math.max(0, req.start ?? 0) + count) + 1

  const p = new Params()
  const {where, rest, tq} = whereOf(req, types, tsquery, p)
  // The order of an offset page, as the contract has it: the exact name, then a match in the
  // name or urn above one only in the text, then the older entity.
  const key = tq !== undefined && !cursorMode ? p.add(nameKey(q), 'text') : undefined
  const ranked = key !== undefined
  const facetCols = [...new Set(facetFields.map((f) => FACET_COLUMNS[f].col))].filter((c) => c !== 'entity_type')
  const cols = ['entity_id', 'entity_type', ...facetCols].join(', ')

  let page: string
  const limit = p.add(cursorMode ? count + 1 : count, 'bigint')
  const start = Math.max(0, req.start ?? 0)
  if (cursorMode) {
    const after = req.after ? Number.parseInt(req.after, 36) : -1
    const from = Number.isFinite(after) ? Math.min(after, Number.MAX_SAFE_INTEGER) : -1
    page = `SELECT entity_id FROM m WHERE entity_id > ${p.add(from, 'bigint')} ORDER BY entity_id LIMIT ${limit}`
  } else if (ranked) {
    // Ranking every match (its name key compared, its name vector matched: about 2 µs a match)
    // was most of what a search cost beyond the words' own index scan. The page is instead
    // ranked among three small candidate lists, each from an index: the documents named exactly
    // as the query (the name key's hash index), the first `start + count` name matches by id
    // (the name vector's GIN index; the search vector is tested on those rows only, written so
    // that the planner cannot read its index a second time: the name vector's words are the
    // search vector's first, but a vector not yet filled must match nothing), and the first
    // `start + count` matches by
    // id. The page is then theirs: the exact names come first, then name matches by id (all of
    // the first start + count are candidates), then text-only matches by id, of which at least
    // start + count minus the names ahead of them are among the first matches by id.
    const n = p.add(start + count, 'bigint')
    page = `SELECT entity_id, urn, entity_type, name, (name_key = ${key}) AS exact, coalesce(name_tsv @@ ${tq}, false) AS rank FROM mdcli_search_doc WHERE entity_id IN (
        SELECT entity_id FROM mdcli_search_doc WHERE name_key = ${key} AND ${where.join(' AND ')}
        UNION ALL (SELECT entity_id FROM mdcli_search_doc WHERE name_tsv @@ ${tq} AND coalesce(tsv @@ ${tq}, false) AND ${rest.join(' AND ')} ORDER BY entity_id LIMIT ${n})
        UNION ALL (SELECT entity_id FROM m ORDER BY entity_id LIMIT ${n}))
      ORDER BY exact DESC, rank DESC, entity_id OFFSET ${p.add(start, 'bigint')} LIMIT ${limit}`
  } else {
    page = `SELECT entity_id FROM m ORDER BY entity_id OFFSET ${p.add(start, 'bigint')} LIMIT ${limit}`
  }
  const pageCols = ranked ? 'pg.exact, pg.rank' : 'NULL::boolean, NULL::boolean'
  // A word query's matches are gathered once (MATERIALIZED), capped, so the count is that of the
  // capped list; a listing is left inline, so its page reads the type's index in id order and
  // stops at the limit, and its count stops at the cap.
  const counted = tsquery === undefined && capped ? `(SELECT 1 FROM m LIMIT ${cap}) c` : 'm'
  const parts = [
    `SELECT 0 AS part, NULL::text AS f, NULL::text AS v, count(*) AS n, NULL::bigint AS entity_id, NULL::text AS urn, NULL::text AS entity_type, NULL::text AS name, NULL::boolean AS exact, NULL::boolean AS rank FROM ${counted}`,
    // A ranked page reads its documents' columns as it ranks them; the others join them in.
    ranked
      ? `SELECT 1, NULL, NULL, 0, pg.entity_id, pg.urn, pg.entity_type, pg.name, ${pageCols} FROM (${page}) pg`
      : `SELECT 1, NULL, NULL, 0, d.entity_id, d.urn, d.entity_type, d.name, ${pageCols} FROM (${page}) pg JOIN mdcli_search_doc d ON d.entity_id = pg.entity_id`,
  ]
  for (const f of facetFields) {
    const {col, list} = FACET_COLUMNS[f]
    const name = p.add(f, 'text')
    parts.push(
      list
        ? `SELECT 2, ${name}, x.v, count(*), NULL, NULL, NULL, NULL, NULL, NULL FROM m CROSS JOIN LATERAL unnest(m.${col}) AS x(v) GROUP BY x.v`
        : `SELECT 2, ${name}, m.${col}, count(*), NULL, NULL, NULL, NULL, NULL, NULL FROM m WHERE m.${col} IS NOT NULL GROUP BY m.${col}`,
    )
  }
  const matches = `SELECT ${cols} FROM mdcli_search_doc WHERE ${where.join(' AND ')}${tsquery !== undefined && capped ? ` LIMIT ${cap}` : ''}`
  const sql = `WITH m AS ${tsquery !== undefined ? '' : 'NOT '}MATERIALIZED (${matches})
${parts.map((x) => `(${x})`).join('\nUNION ALL ')}`
  // Planned at every search, on purpose: planning is about 1 ms of a 4.5 ms search, but a prepared
  // statement's generic plan cannot know how many documents a word matches (1 or 50,000), and
  // PostgreSQL picked one that walked the primary key for the name matches on one of two bench
  // databases of the same rows: every search 3.5× slower (p50 8.3 → 30 ms), for the connection's life.
  const {rows} = await db.query<ResultRow>(sql, p.values)

  let total = 0
  const hits: ResultRow[] = []
  const facetCounts = new Map<string, Array<{value: string; count: number}>>()
  for (const r of rows) {
    if (r.part === 0) total = Number(r.n)
    else if (r.part === 1) hits.push(r)
    else {
      let l = facetCounts.get(r.f!)
      if (!l) facetCounts.set(r.f!, (l = []))
      l.push({value: r.v!, count: Number(r.n)})
    }
  }
  if (capped && total >= cap) total = await estimatedTotal(db, req, types, tsquery, cap)
  // The rows of a UNION come in no promised order: the page is put back in its own.
  hits.sort((a, b) => {
    if (ranked) {
      if (a.exact !== b.exact) return a.exact ? -1 : 1
      if (a.rank !== b.rank) return a.rank ? -1 : 1
    }
    return Number(a.entity_id) - Number(b.entity_id)
  })
  let next: string | null | undefined
  if (cursorMode) {
    next = hits.length > count && count > 0 ? Number(hits[count - 1]!.entity_id).toString(36) : null
    hits.length = Math.min(hits.length, count)
  }
  let facets: SearchResponse['facets']
  if (req.facets && req.facets.length > 0) {
    facets = {}
    for (const f of req.facets) facets[f] = (facetCounts.get(f) ?? []).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1))
  }
  return {
    total,
    hits: hits.map((h) => ({urn: h.urn!, entityType: h.entity_type!, name: h.name!})),
    ...(facets ? {facets} : {}),
    ...(cursorMode ? {next} : {}),
  }
}

/**
 * The number of matches past EXACT_TOTAL_LIMIT, as PostgreSQL's planner estimates it (from the
 * statistics of the search vectors' most common words, which such a word is among): at least
 * the cap, since that many were found.
 */
async function estimatedTotal(db: pg.Pool, req: SearchRequest, types: readonly string[], tsquery: string | undefined, found: number): Promise<number> {
  const p = new Params()
  const {where} = whereOf(req, types, tsquery, p)
  const {rows} = await db.query<{'QUERY PLAN': Array<{Plan: {'Plan Rows': number}}>}>(`EXPLAIN (FORMAT JSON) SELECT 1 FROM mdcli_search_doc WHERE ${where.join(' AND ')}`, p.values)
  const planned = Math.round(rows[0]?.['QUERY PLAN']?.[0]?.Plan?.['Plan Rows'] ?? 0)
  return Math.max(found, planned)
}

/** The answer to a query with no word in it (`--`, `.`): nothing matches. */
function emptyResponse(req: SearchRequest): SearchResponse {
  const cursorMode = req.after !== undefined
  const facets = req.facets && req.facets.length > 0 ? Object.fromEntries(req.facets.map((f) => [f, []])) : undefined
  return {total: 0, hits: [], ...(facets ? {facets} : {}), ...(cursorMode ? {next: null} : {})}
}
