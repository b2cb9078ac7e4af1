/**
 * The PostgreSQL schema: DataHub's `metadata_aspect_v2` for versioned aspects (so DataHub's
 * rows can be read as they are), and tables of our own for what DataHub keeps in Elasticsearch
 * (timeseries rows, search documents, references). Migrations are numbered and applied once,
 * under an advisory lock, so replicas starting together never race on DDL.
 */
import type {PoolClient} from 'pg'
import {nameKey, searchVectors} from './search-sql.js'

/** Any constant shared by every replica; it only has to be the same everywhere. */
export const MIGRATION_LOCK_KEY = 7_342_001

export interface Migration {
  version: number
  sql: string
  /** Work SQL cannot do, run after `sql` in the same transaction. */
  then?: (c: PoolClient) => Promise<unknown>
}

/** The GIN indexes every word search reads, and the pending list each may hold (kB; see migration 8). */
const GIN_INDEXES = ['mdcli_search_tsv_idx', 'mdcli_search_name_tsv_idx']
const GIN_PENDING_KB = 512

export const MIGRATIONS: ReadonlyArray<Migration> = [
  {
    version: 1,
    sql: `
CREATE TABLE IF NOT EXISTS metadata_aspect_v2 (
  urn varchar(500) NOT NULL,
  aspect varchar(200) NOT NULL,
  version bigint NOT NULL,
  metadata text NOT NULL,
  systemmetadata text,
  createdon timestamp NOT NULL,
  createdby varchar(255) NOT NULL,
  createdfor varchar(255),
  CONSTRAINT pk_metadata_aspect_v2 PRIMARY KEY (urn, aspect, version)
);
-- Runs are found by the runId inside systemmetadata (rollback, list runs).
CREATE INDEX IF NOT EXISTS mdcli_aspect_run_idx ON metadata_aspect_v2 ((systemmetadata::jsonb ->> 'runId'));

-- One row per entity: its listing/search id (new when it is created again after a delete),
-- its type and whether its status marks it removed.
CREATE TABLE IF NOT EXISTS mdcli_entity (
  urn varchar(500) PRIMARY KEY,
  id bigserial UNIQUE,
  entity_type varchar(100) NOT NULL,
  removed boolean NOT NULL DEFAULT false
);
CREATE INDEX IF NOT EXISTS mdcli_entity_type_idx ON mdcli_entity (entity_type, id);

CREATE TABLE IF NOT EXISTS mdcli_timeseries (
  urn varchar(500) NOT NULL,
  aspect varchar(200) NOT NULL,
  ts bigint NOT NULL,
  metadata text NOT NULL,
  systemmetadata text,
  createdon bigint NOT NULL,
  createdby varchar(255) NOT NULL,
  run_id varchar(255),
  PRIMARY KEY (urn, aspect, ts)
);
CREATE INDEX IF NOT EXISTS mdcli_timeseries_run_idx ON mdcli_timeseries (run_id);

-- What search sees of an entity; the tsvector weighs name and urn words above descriptions.
CREATE TABLE IF NOT EXISTS mdcli_search_doc (
  entity_id bigint PRIMARY KEY,
  urn varchar(500) NOT NULL,
  entity_type varchar(100) NOT NULL,
  name text NOT NULL,
  body text NOT NULL,
  removed boolean NOT NULL,
  platform text,
  origin text,
  container text,
  tags text[] NOT NULL DEFAULT '{}',
  owners text[] NOT NULL DEFAULT '{}',
  domains text[] NOT NULL DEFAULT '{}',
  glossary_terms text[] NOT NULL DEFAULT '{}',
  type_names text[] NOT NULL DEFAULT '{}',
  tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', name), 'A') || setweight(to_tsvector('simple', body), 'C')
  ) STORED
);
CREATE INDEX IF NOT EXISTS mdcli_search_tsv_idx ON mdcli_search_doc USING gin (tsv);
CREATE INDEX IF NOT EXISTS mdcli_search_type_idx ON mdcli_search_doc (entity_type, entity_id);
CREATE INDEX IF NOT EXISTS mdcli_search_platform_idx ON mdcli_search_doc (platform);
CREATE INDEX IF NOT EXISTS mdcli_search_tags_idx ON mdcli_search_doc USING gin (tags);
CREATE INDEX IF NOT EXISTS mdcli_search_owners_idx ON mdcli_search_doc USING gin (owners);
CREATE INDEX IF NOT EXISTS mdcli_search_domains_idx ON mdcli_search_doc USING gin (domains);
CREATE INDEX IF NOT EXISTS mdcli_search_terms_idx ON mdcli_search_doc USING gin (glossary_terms);

-- Urns mentioned by the latest value of each aspect (who points at a tag, a term, a user).
CREATE TABLE IF NOT EXISTS mdcli_reference (
  target varchar(500) NOT NULL,
  urn varchar(500) NOT NULL,
  aspect varchar(200) NOT NULL,
  PRIMARY KEY (target, urn, aspect)
);
CREATE INDEX IF NOT EXISTS mdcli_reference_src_idx ON mdcli_reference (urn, aspect);
`,
  },
  {
    // Tables made by DataHub's test setups carry an extra NOT NULL metadata_json column that
    // DataHub's server itself never writes; let rows without it in.
    version: 2,
    sql: `
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'metadata_aspect_v2' AND column_name = 'metadata_json' AND is_nullable = 'NO') THEN
    ALTER TABLE metadata_aspect_v2 ALTER COLUMN metadata_json DROP NOT NULL;
  END IF;
END $$;
`,
  },
  {
    // Search is answered by PostgreSQL: the search vector is written by the store from the
    // embedded store's word analysis (camelCase and digit parts), which to_tsvector cannot do,
    // and the lower-cased name ranks exact name matches first. Existing documents are rebuilt
    // from their stored name and text before the version moves.
    version: 3,
    sql: `
ALTER TABLE mdcli_search_doc DROP COLUMN IF EXISTS tsv;
ALTER TABLE mdcli_search_doc ADD COLUMN tsv tsvector;
ALTER TABLE mdcli_search_doc ADD COLUMN name_key text;
ALTER TABLE mdcli_search_doc ADD COLUMN name_tsv tsvector;
CREATE INDEX mdcli_search_tsv_idx ON mdcli_search_doc USING gin (tsv);
-- Documents written without a vector (by a server of an older version during an upgrade) are found and filled on open.
CREATE INDEX mdcli_search_unfilled_idx ON mdcli_search_doc (entity_id) WHERE tsv IS NULL;
`,
    then: fillSearchVectors,
  },
  {
    // Writes replace an entity's search document by urn; without this index each batch's delete
    // read the whole table (370 ms at 200,000 documents, growing with the catalog).
    version: 4,
    sql: `CREATE INDEX IF NOT EXISTS mdcli_search_doc_urn_idx ON mdcli_search_doc (urn);`,
  },
  {
    // References as one row per aspect holding its targets, found through a GIN index, instead of
    // a row per target under two B-trees: every write batch inserted about 1.2 rows per aspect
    // into both trees (the costliest statement of an ingest, 17 µs a row on a 2-core machine);
    // the new layout costs about a third of that, and a GIN index is made for "who mentions any
    // of these" (measured side by side: 100 batches, 18.6 ms against 6.4 ms each).
    version: 5,
    sql: `
CREATE TABLE mdcli_reference_new (
  urn varchar(500) NOT NULL,
  aspect varchar(200) NOT NULL,
  targets text[] NOT NULL,
  PRIMARY KEY (urn, aspect)
);
INSERT INTO mdcli_reference_new (urn, aspect, targets) SELECT urn, aspect, array_agg(target ORDER BY target) FROM mdcli_reference GROUP BY urn, aspect;
DROP TABLE mdcli_reference;
ALTER TABLE mdcli_reference_new RENAME TO mdcli_reference;
ALTER INDEX mdcli_reference_new_pkey RENAME TO mdcli_reference_pkey;
CREATE INDEX mdcli_reference_targets_idx ON mdcli_reference USING gin (targets);
`,
  },
  {
    // A search stops gathering a word's matches past EXACT_TOTAL_LIMIT (search-sql.ts), so the
    // document named exactly as the query is looked up by name key. A hash index: names have no
    // length limit, and a B-tree refuses an entry over about 2.7 kB.
    version: 6,
    sql: `CREATE INDEX IF NOT EXISTS mdcli_search_name_key_idx ON mdcli_search_doc USING hash (name_key);`,
  },
  {
    // A search ranks only a few candidates (search-sql.ts), among them the first name matches by
    // id, read from this index instead of testing every match's name vector.
    version: 7,
    sql: `CREATE INDEX IF NOT EXISTS mdcli_search_name_tsv_idx ON mdcli_search_doc USING gin (name_tsv);`,
  },
  {
    // A GIN index keeps new entries in a pending list (4 MB by default) until a vacuum or an
    // insert past the limit moves them into the index, and every search reads the whole list.
    // After an ingest of 100,000 datasets the two word indexes held 266 pending pages, about half
    // of a search's time in PostgreSQL. A small list keeps that bounded; the insert that passes
    // the limit moves the list in one go, which is what the list is for.
    version: 8,
    sql: GIN_INDEXES.map((i) => `ALTER INDEX IF EXISTS ${i} SET (gin_pending_list_limit = ${GIN_PENDING_KB});`).join('\n'),
  },
  {
    // No statement compares these long texts, so their planner statistics (a histogram of 30,000
    // sampled JSON or document texts, sorted under the collation) were pure cost: the search
    // store's ANALYZE after a bulk load (search-index.ts) spent a quarter of its time on the body
    // alone (1.12 → 0.78–0.90 s at 40,000 documents), and autovacuum's analyze of the aspect
    // table half (0.59 → 0.32 s at 200,000 rows). The run id's statistics are the expression
    // index's own and stay.
    version: 9,
    sql: `
ALTER TABLE mdcli_search_doc ALTER COLUMN body SET STATISTICS 0;
ALTER TABLE metadata_aspect_v2 ALTER COLUMN metadata SET STATISTICS 0;
ALTER TABLE metadata_aspect_v2 ALTER COLUMN systemmetadata SET STATISTICS 0;
`,
  },
]

/** Whether mdcli ever created its schema in this database (a migration recorded there). */
export async function holdsSchema(c: PoolClient): Promise<boolean> {
  const {rows} = await c.query<{ok: boolean}>("SELECT to_regclass('mdcli_schema_version') IS NOT NULL AS ok")
  return rows[0]?.ok === true
}

/**
 * Applies the migrations not yet recorded; safe to call from many processes at once. Returns
 * this build's version and the one the database was at (higher when a newer mdcli migrated it).
 */
export async function migrate(c: PoolClient): Promise<{latest: number; database: number}> {
  await c.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
  try {
    await c.query('CREATE TABLE IF NOT EXISTS mdcli_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())')
    const {rows} = await c.query<{v: number | null}>('SELECT max(version) AS v FROM mdcli_schema_version')
    const current = rows[0]?.v ?? 0
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue
      await c.query('BEGIN')
      try {
        await c.query(m.sql)
        await m.then?.(c)
        await c.query('INSERT INTO mdcli_schema_version (version) VALUES ($1)', [m.version])
        await c.query('COMMIT')
      } catch (err) {
        await c.query('ROLLBACK')
        throw err
      }
    }
    return {latest: MIGRATIONS[MIGRATIONS.length - 1]!.version, database: current}
  } finally {
    await c.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
  }
}

/**
 * Writes the search vector and name key of every document that has none, page by page. Returns
 * how many it filled.
 */
export async function fillSearchVectors(c: PoolClient): Promise<number> {
  let filled = 0
  for (;;) {
    const {rows} = await c.query<{entity_id: string; urn: string; name: string; body: string}>(
      'SELECT entity_id, urn, name, body FROM mdcli_search_doc WHERE tsv IS NULL ORDER BY entity_id LIMIT 1000',
    )
    if (rows.length === 0) return filled
    const vectors = rows.map((r) => searchVectors(r.urn, r.name, r.body))
    // A row a writer replaced since it was read already has its newer vector: only empty ones are filled.
    await c.query('UPDATE mdcli_search_doc d SET tsv = x.v::tsvector, name_key = x.k, name_tsv = x.n::tsvector FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS x(id, v, k, n) WHERE d.entity_id = x.id AND d.tsv IS NULL', [
      rows.map((r) => r.entity_id),
      vectors.map((v) => v.search),
      rows.map((r) => nameKey(r.name)),
      vectors.map((v) => v.name),
    ])
    filled += rows.length
  }
}
