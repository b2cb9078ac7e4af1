/**
 * PostgreSQL's search: one row per entity in `mdcli_search_doc` (a search vector of the embedded
 * store's word analysis, facet columns), answered by full-text SQL (search-sql.ts). The catalog
 * feeds it inside each write's transaction (`applyWithin`, through the store's write sidecar), so
 * every replica sees a committed write at once and a rolled-back one is never indexed.
 */
import pg from 'pg'
import {buildSearchDoc, type SearchDoc} from '../../model/search-doc.js'
import type {IndexItem, SearchIndex, SearchRequest, SearchResponse} from '../types.js'
import {arrayLiteral, boolArray} from './literal.js'
import {noNul} from './nul.js'
import {guardPool} from './unavailable.js'
import {fillSearchVectors} from './schema.js'
import {nameKey, searchDocs, searchVectors} from './search-sql.js'

/** A document to write, under the entity's search id. */
export interface SearchDocRow {
  id: number
  urn: string
  type: string
  doc: SearchDoc
}

const noNulOrNull = (s: string | undefined) => (s === undefined ? null : noNul(s))

const INSERT_DOCS_SQL = `INSERT INTO mdcli_search_doc (entity_id, urn, entity_type, name, body, removed, platform, origin, container, tags, owners, domains, glossary_terms, type_names, tsv, name_key, name_tsv)
SELECT i, u, t, n, b, r, p, o, c, tg::text[], ow::text[], d::text[], g::text[], tn::text[], v::tsvector, k, nv::tsvector
FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[])
  AS x(i, u, t, n, b, r, p, o, c, tg, ow, d, g, tn, v, k, nv)`

/**
 * Inserts documents (their ids and urns must hold none yet) in one statement of a column array
 * each: a VALUES list with a parameter per value cost PostgreSQL about twice the CPU (measured:
 * 21.7 µs per aspect, the costliest statement of an ingest, against about 10 for the arrays).
 */
export async function writeSearchDocs(c: pg.ClientBase | pg.Pool, docs: SearchDocRow[]): Promise<void> {
  if (docs.length === 0) return
  const cols: unknown[][] = Array.from({length: 17}, () => new Array(docs.length))
  docs.forEach((d, j) => {
    const f = d.doc.facets
    const name = noNul(d.doc.name)
    const v = searchVectors(d.urn, d.doc.name, d.doc.text, d.doc.head)
    const row = [d.id, d.urn, d.type, name, noNul(d.doc.text), d.doc.removed, noNulOrNull(f.platform), noNulOrNull(f.origin), noNulOrNull(f.container), listOf(f.tags), listOf(f.owners), listOf(f.domains), listOf(f.glossaryTerms), listOf(f.typeNames), v.search, nameKey(name), v.name]
    for (let i = 0; i < 17; i++) cols[i]![j] = row[i]
  })
  // Each column as one literal built here (see `arrayLiteral`): ids are numbers, column 5 booleans.
  await c.query(
    INSERT_DOCS_SQL,
    cols.map((col, i) => (i === 0 ? `{${col.join(',')}}` : i === 5 ? boolArray(col as boolean[]) : arrayLiteral(col as Array<string | null>))),
  )
}

const listOf = (xs: readonly string[]) => arrayLiteral(xs.map(noNul))

/** How often, and how many times, the ANALYZE after a bulk load looks whether its write has committed. */
const ANALYZE_POLL_MS = 10
const ANALYZE_WAIT_POLLS = 3000

/**
 * How long after its last write the index moves its GIN indexes' pending lists into the indexes
 * (see `settleLater`).
 */
const SETTLE_MS = 1000

/** Every GIN index of the search table, as `gin_clean_pending_list` takes them. */
const SEARCH_GIN_INDEXES_SQL = `SELECT i.indexrelid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
  WHERE i.indrelid = 'mdcli_search_doc'::regclass AND a.amname = 'gin'`

/** How long a search waits for a pooled connection before it answers E_STORE_UNAVAILABLE. */
const CONNECT_TIMEOUT_MS = 10_000

export class PgSearchIndex implements SearchIndex {
  /** The documents are rows of the database: they outlive the process. */
  readonly durable = true
  /** Documents this process wrote, and the count at which it next refreshes the planner's statistics. */
  private docsWritten = 0
  private analyzeAt = 1000
  private closed = false
  private settleTimer: NodeJS.Timeout | undefined
  /** Off once PostgreSQL refused to clean a pending list (not the indexes' owner, or a standby). */
  private settleOff = false

  constructor(
    private readonly db: pg.Pool,
    private readonly searchableTypes: readonly string[],
    private readonly opts: {ownsPool?: boolean; warn?: (m: string) => void; settleMs?: number} = {},
  ) {}

  /** An index on the database at `url`, on a pool of its own (queries; writes go in the writers' transactions). */
  static open(url: string, searchableTypes: readonly string[], opts: {poolMax?: number; warn?: (m: string) => void; settleMs?: number} = {}): PgSearchIndex {
    const pool = new pg.Pool({connectionString: url, max: opts.poolMax ?? 8, application_name: 'mdcli-search', connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true})
    // An idle client's error (server restart) must not crash the process; the next query reconnects.
    pool.on('error', () => undefined)
    return new PgSearchIndex(guardPool(pool), searchableTypes, {ownsPool: true, warn: opts.warn, settleMs: opts.settleMs})
  }

  /**
   * Documents written without a search vector (by an older server during an upgrade) get theirs
   * before this process first reads or rebuilds the table (once; the store's start migrated it).
   */
  private filled: Promise<void> | undefined

  private fillVectors(): Promise<void> {
    this.filled ??= (async () => {
      const c = await this.db.connect()
      try {
        await fillSearchVectors(c)
      } finally {
        c.release()
      }
    })().catch((e: unknown) => {
      this.filled = undefined
      throw e
    })
    return this.filled
  }

  /** In one transaction of its own: see `applyWithin`. */
  async apply(items: IndexItem[]): Promise<void> {
    if (items.length === 0) return
    await this.fillVectors()
    const c = await this.db.connect()
    try {
      await c.query('BEGIN')
      await this.applyWithin(c, items)
      await c.query('COMMIT')
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined)
      throw e
    } finally {
      c.release()
    }
  }

  /**
   * Inside a transaction (a write's, whose connection is `handle`): every item's urn leaves the
   * table, then each entity's last document goes in.
   */
  async applyWithin(handle: unknown, items: IndexItem[]): Promise<void> {
    if (items.length === 0) return
    const c = handle as pg.ClientBase
    const last = new Map<string, IndexItem>()
    for (const it of items) {
      last.delete(it.urn)
      last.set(it.urn, it)
    }
    const docs: SearchDocRow[] = []
    for (const it of last.values()) {
      if (it.aspects === null) continue
      const parsed: Record<string, unknown> = {}
      const given = it.values
      for (const k in it.aspects) parsed[k] = given !== undefined && k in given ? given[k] : JSON.parse(it.aspects[k]!)
      docs.push({id: it.id, urn: it.urn, type: it.type, doc: buildSearchDoc(it.type, it.urn, parsed)})
    }
    await c.query('DELETE FROM mdcli_search_doc WHERE urn = ANY($1::text[])', [[...last.keys()]])
    await writeSearchDocs(c, docs)
    await this.maybeAnalyze(c, docs.length)
    if (docs.length > 0) this.settleLater()
  }

  /**
   * A GIN index takes new documents into a pending list (up to 512 kB here, migration 8) that
   * every search using the index reads in full, until an insert past the limit or a vacuum moves
   * it into the index; after a load, autovacuum gets there a minute or more later. Measured on a
   * kept bench database of 40,000 datasets just after its ingest (the two word indexes 23 and 60
   * pending pages): a search in PostgreSQL p50 3.7–3.9 ms before, 2.7–3.0 ms once cleaned. So the
   * lists are moved once the index has had no write for a second: the work the next inserts past
   * the limit would do, done while nothing waits on it.
   */
  private settleLater(): void {
    if (this.settleOff || this.closed) return
    clearTimeout(this.settleTimer)
    this.settleTimer = setTimeout(() => void this.settle(), this.opts.settleMs ?? SETTLE_MS)
    this.settleTimer.unref()
  }

  private async settle(): Promise<void> {
    this.settleTimer = undefined
    if (this.closed) return
    try {
      await this.db.query(`SELECT gin_clean_pending_list(x.indexrelid::regclass) FROM (${SEARCH_GIN_INDEXES_SQL}) x`)
    } catch (e) {
      if (this.closed) return
      const code = (e as {code?: unknown}).code
      // Not the indexes' owner, or a read-only standby: autovacuum does it there, as before.
      if (code === '42501' || code === '25006') this.settleOff = true
      this.opts.warn?.(`moving the search indexes' pending entries in failed${this.settleOff ? ' (left to autovacuum from now on)' : ''}: ${(e as Error).message}`)
    }
  }

  /**
   * Refreshes the statistics of the search and entity tables after a bulk load, at 1,000, 4,000,
   * 16,000 … documents written by this process. Autovacuum gets there too, but only a minute or
   * more later; until then a fresh table looks empty to the planner, which then answered a common
   * word by reading every document of the type (40 ms) instead of the word's index entries (6 ms).
   * Each ANALYZE samples up to 30,000 rows (about a second of PostgreSQL's CPU at that size), and
   * what the planner reads of them, the share of documents holding a word, changes little as a
   * load of similar documents grows, while the table's size it takes from the file as it is. So
   * the statistics are refreshed each time the table has grown fourfold: doubling spent 3.35 s of
   * a 200,000-aspect ingest's PostgreSQL CPU on six ANALYZEs (17 µs per aspect).
   */
  private async maybeAnalyze(c: pg.ClientBase, docs: number): Promise<void> {
    this.docsWritten += docs
    if (this.docsWritten < this.analyzeAt || this.closed) return
    this.analyzeAt = this.docsWritten * 4
    // The ANALYZE must see the documents of the write that made it due, so it waits for that
    // write's transaction to end: run at once, it counted the table as empty whenever those were
    // all it had (the first ANALYZE of a load that comes in batches of 1,000 documents).
    const {rows} = await c.query<{x: string}>('SELECT txid_current()::text AS x')
    void this.analyzeAfter(rows[0]!.x)
  }

  private async analyzeAfter(xid: string): Promise<void> {
    try {
      // A write's transaction lasts a batch (milliseconds); the wait is bounded all the same.
      for (let i = 0; i < ANALYZE_WAIT_POLLS && !this.closed; i++) {
        const {rows} = await this.db.query<{s: string | null}>('SELECT txid_status($1::bigint) AS s', [xid])
        if (rows[0]?.s !== 'in progress') break
        await new Promise((r) => setTimeout(r, ANALYZE_POLL_MS))
      }
      if (!this.closed) await this.db.query('ANALYZE mdcli_search_doc, mdcli_entity')
    } catch (e) {
      // A pool ended by close() under it is no failure worth a word.
      if (!this.closed) this.opts.warn?.(`ANALYZE after a bulk load failed: ${(e as Error).message}`)
    }
  }

  async query(req: SearchRequest): Promise<SearchResponse> {
    await this.fillVectors()
    return searchDocs(this.db, req, this.searchableTypes)
  }

  async clear(): Promise<void> {
    await this.db.query('DELETE FROM mdcli_search_doc')
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.settleTimer)
    if (this.opts.ownsPool) await this.db.end()
  }
}
