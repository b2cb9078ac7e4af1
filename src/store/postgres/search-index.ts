/**
 * PostgreSQL's search: one row per entity in `mdcli_search_doc` (a search vector of the embedded
 * store's word analysis, facet columns), answered by full-text SQL (search-sql.ts). The store
 * writes documents in the transaction of the batch that changed them (`writeSearchDocs`), so every
 * replica sees a committed write at once; `PgSearchIndex` is the same table behind the search
 * contract, for a caller that feeds it items.
 */
import type pg from 'pg'
import {buildSearchDoc, type SearchDoc} from '../../model/search-doc.js'
import type {IndexItem, SearchIndex, SearchRequest, SearchResponse} from '../types.js'
import {noNul} from './nul.js'
import {nameKey, searchDocs, searchVectors} from './search-sql.js'

/** A document to write, under the entity's search id. */
export interface SearchDocRow {
  id: number
  urn: string
  type: string
  doc: SearchDoc
}

const noNulOrNull = (s: string | undefined) => (s === undefined ? null : noNul(s))

/** Inserts documents (their ids and urns must hold none yet), a thousand to a statement. */
export async function writeSearchDocs(c: pg.ClientBase | pg.Pool, docs: SearchDocRow[]): Promise<void> {
  // 17 parameters a row, under the protocol's 65,535 per statement.
  for (let i = 0; i < docs.length; i += 1000) {
    const part = docs.slice(i, i + 1000)
    const params: unknown[] = []
    const values = part.map((d) => {
      const f = d.doc.facets
      const at = params.length
      params.push(d.id, d.urn, d.type, noNul(d.doc.name), noNul(d.doc.text), d.doc.removed, noNulOrNull(f.platform), noNulOrNull(f.origin), noNulOrNull(f.container), f.tags.map(noNul), f.owners.map(noNul), f.domains.map(noNul), f.glossaryTerms.map(noNul), f.typeNames.map(noNul))
      const v = searchVectors(d.urn, d.doc.name, d.doc.text)
      params.push(v.search, nameKey(noNul(d.doc.name)), v.name)
      return `(${Array.from({length: 17}, (_x, j) => `$${at + j + 1}`).join(',')})`
    })
    await c.query(
      `INSERT INTO mdcli_search_doc (entity_id, urn, entity_type, name, body, removed, platform, origin, container, tags, owners, domains, glossary_terms, type_names, tsv, name_key, name_tsv) VALUES ${values.join(',')}`,
      params,
    )
  }
}

export class PgSearchIndex implements SearchIndex {
  constructor(
    private readonly db: pg.Pool,
    private readonly searchableTypes: readonly string[],
  ) {}

  /** In one transaction: every item's id leaves the table, then each entity's last document goes in. */
  async apply(items: IndexItem[]): Promise<void> {
    if (items.length === 0) return
    const last = new Map<number, IndexItem>()
    for (const it of items) last.set(it.id, it)
    const docs: SearchDocRow[] = []
    for (const it of last.values()) {
      if (it.aspects === null) continue
      const parsed: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(it.aspects)) parsed[k] = JSON.parse(v)
      docs.push({id: it.id, urn: it.urn, type: it.type, doc: buildSearchDoc(it.type, it.urn, parsed)})
    }
    const c = await this.db.connect()
    try {
      await c.query('BEGIN')
      await c.query('DELETE FROM mdcli_search_doc WHERE entity_id = ANY($1::bigint[]) OR urn = ANY($2::text[])', [[...last.keys()], docs.map((d) => d.urn)])
      await writeSearchDocs(c, docs)
      await c.query('COMMIT')
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined)
      throw e
    } finally {
      c.release()
    }
  }

  query(req: SearchRequest): Promise<SearchResponse> {
    return searchDocs(this.db, req, this.searchableTypes)
  }

  async clear(): Promise<void> {
    await this.db.query('DELETE FROM mdcli_search_doc')
  }

  async close(): Promise<void> {}
}
