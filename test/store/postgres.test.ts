import {expect} from 'chai'
import pg from 'pg'
import {noteSearchProjection} from '../../src/catalog/search-feed.js'
import {SEARCHABLE_TYPES} from '../../src/store/index.js'
import {PgStore} from '../../src/store/postgres/pg-store.js'
import {PgSearchIndex} from '../../src/store/postgres/search-index.js'
import {MIGRATIONS} from '../../src/store/postgres/schema.js'
import {REGISTRY_RULES} from '../../src/store/rules.js'
import {createTestDatabase} from '../helpers/pg.js'
import {requirePostgres} from '../helpers/requires.js'
import {storeConformance, up} from './conformance.js'
import {pgIndex, searchable, type SearchableStore} from './searchable.js'

let adminUrl = ''
const made: Array<() => Promise<void>> = []

describe('PostgreSQL store', function () {
  before(async function () {
    adminUrl = await requirePostgres(this)
  })
  after(async () => {
    for (const d of made.splice(0)) await d()
  })

  storeConformance('postgres', async () => {
    const db = await createTestDatabase(adminUrl)
    made.push(db.drop)
    const make = () => searchable(new PgStore({url: db.url, rules: REGISTRY_RULES, poolMax: 4}), pgIndex(db.url))
    let store = make()
    await store.open()
    return {
      get store(): SearchableStore {
        return store
      },
      async reopen() {
        await store.close()
        store = make()
        await store.open()
        return store
      },
      async cleanup() {
        await store.close()
        await db.drop()
      },
    }
  })
})

describe('PostgreSQL search', function () {
  let url = ''
  let drop: () => Promise<void> = async () => undefined
  const stores: Array<SearchableStore<PgStore>> = []
  const open = async () => {
    const s = searchable(new PgStore({url, rules: REGISTRY_RULES, poolMax: 4}), pgIndex(url))
    await s.open()
    stores.push(s)
    return s
  }
  const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)'
  const q = async (s: SearchableStore, query: string) => (await s.search({types: ['dataset'], query})).hits.map((h) => h.urn)
  /** Runs `f` on a connection of its own to the test database (to look under the store). */
  const withClient = async <T>(f: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({connectionString: url})
    await c.connect()
    try {
      return await f(c)
    } finally {
      await c.end()
    }
  }

  beforeEach(async function () {
    const db = await createTestDatabase(await requirePostgres(this))
    url = db.url
    drop = db.drop
  })
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close()
    await drop()
  })

  it('answers from the database: a write through one store is found at once through another', async () => {
    const a = await open()
    const b = await open()
    await a.write([up(KAFKA, 'datasetProperties', {name: 'SampleKafkaDataset', description: 'events'})])
    // No wait for a notification: there is no copy of the index to bring up to date.
    expect(await q(b, 'kafka')).to.deep.equal([KAFKA])
    await b.write([up(KAFKA, 'status', {removed: true})])
    expect(await q(a, 'kafka')).to.deep.equal([])
  })

  it('refreshes the planner statistics of the search table after a bulk load itself (autovacuum comes a minute or more later)', async () => {
    const s = await open()
    const ds = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,bulk.t${i},PROD)`
    const ops = Array.from({length: 1000}, (_, i) => up(ds(i), 'datasetProperties', {name: `t${i}`}))
    await s.write(ops)
    await withClient(async (c) => {
      // The ANALYZE runs once the batch has committed: it sees the 1,000 documents (run while the
      // batch was still open, it counted none). The words' statistics are what the planner needs;
      // the long texts no statement compares are left out (sorting them was a quarter of the ANALYZE).
      let columns: string[] = []
      for (let t = 0; t < 100 && !columns.includes('tsv'); t++) {
        if (t > 0) await new Promise((r) => setTimeout(r, 50))
        columns = (await c.query<{attname: string}>("SELECT attname FROM pg_stats WHERE tablename = 'mdcli_search_doc'")).rows.map((r) => r.attname)
      }
      expect(columns).to.include.members(['tsv', 'name_tsv', 'entity_type'])
      expect(columns).to.not.include('body')
      const {rows} = await c.query<{n: string}>("SELECT reltuples::bigint::text AS n FROM pg_class WHERE relname = 'mdcli_search_doc'")
      expect(rows[0]!.n).to.equal('1000')
    })
  })

  it("moves the GIN indexes' pending entries in once writes pause, so searches after a load do not read the pending lists", async () => {
    const ds = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,settle.t${i},PROD)`
    const ops = Array.from({length: 200}, (_, i) => up(ds(i), 'datasetProperties', {name: `t${i}`, description: `orders of customer ${i}`}))
    /** The pending pages of every GIN index of the search table, moved in by the call itself. */
    const pendingPages = () =>
      withClient(async (c) => {
        const {rows} = await c.query<{n: string}>(`SELECT coalesce(sum(gin_clean_pending_list(i.indexrelid::regclass)), 0)::text AS n
          FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = 'mdcli_search_doc'::regclass AND a.amname = 'gin'`)
        return Number(rows[0]!.n)
      })
    const openWith = async (settleMs: number) => {
      const s = searchable(new PgStore({url, rules: REGISTRY_RULES, poolMax: 2}), PgSearchIndex.open(url, SEARCHABLE_TYPES, {poolMax: 2, settleMs}))
      await s.open()
      stores.push(s)
      return s
    }
    // Without the pause passing, the documents wait in the pending lists (what the check sees).
    const slow = await openWith(60_000)
    await slow.write(ops.slice(0, 100))
    expect(await pendingPages()).to.be.greaterThan(0)
    const quick = await openWith(50)
    await quick.write(ops.slice(100))
    // The settle comes 50 ms after the write; the rest is room for a busy machine.
    await new Promise((r) => setTimeout(r, 2000))
    expect(await pendingPages()).to.equal(0)
    expect((await quick.search({types: ['dataset'], query: 'customer', count: 1000})).total).to.equal(200)
  })

  it('finds what a write touches by index: no statement of the write path reads a whole table', async () => {
    const s = await open()
    await s.write([up(KAFKA, 'datasetProperties', {name: 'SampleKafkaDataset', description: 'events'})])
    await withClient(async (c) => {
      // With sequential scans priced out, a plan still scanning the table has no index to use.
      await c.query('SET enable_seqscan = off')
      const plan = async (sql: string) => (await c.query(`EXPLAIN ${sql}`, [[KAFKA]])).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n')
      for (const sql of [
        'DELETE FROM mdcli_search_doc WHERE urn = ANY($1)',
        'SELECT id, urn, entity_type FROM mdcli_entity WHERE urn = ANY($1)',
        'SELECT urn, aspect, metadata FROM metadata_aspect_v2 WHERE urn = ANY($1) AND version = 0',
        'SELECT urn, aspect FROM metadata_aspect_v2 WHERE urn = ANY($1) AND version = 0',
        'DELETE FROM mdcli_reference WHERE urn = ANY($1)',
        // referencesTo: who mentions any of these urns.
        'SELECT r.urn FROM mdcli_reference r WHERE r.targets && $1::text[]',
      ]) {
        expect(await plan(sql), sql).not.to.match(/Seq Scan/)
      }
    })
  })

  it('migrates a version 2 database: documents indexed by to_tsvector get the search vector before the version moves', async () => {
    const s = await open()
    await s.write([up(KAFKA, 'datasetProperties', {name: 'SampleKafkaDataset', description: 'events about each customer'})])
    await s.close()
    stores.length = 0
    const JDOE = 'urn:li:corpuser:jdoe'
    // The tables as migrations 1 and 2 left them (references a row per target).
    await withClient(async (c) => {
      await c.query(`DROP TABLE mdcli_reference;
        CREATE TABLE mdcli_reference (target varchar(500) NOT NULL, urn varchar(500) NOT NULL, aspect varchar(200) NOT NULL, PRIMARY KEY (target, urn, aspect));
        CREATE INDEX mdcli_reference_src_idx ON mdcli_reference (urn, aspect);
        INSERT INTO mdcli_reference VALUES ('${JDOE}', '${KAFKA}', 'ownership'), ('urn:li:corpuser:ann', '${KAFKA}', 'ownership'), ('${JDOE}', '${KAFKA}', 'editableDatasetProperties');
        DROP INDEX mdcli_search_unfilled_idx; ALTER TABLE mdcli_search_doc DROP COLUMN tsv, DROP COLUMN name_key, DROP COLUMN name_tsv;
        ALTER TABLE mdcli_search_doc ADD COLUMN tsv tsvector GENERATED ALWAYS AS (setweight(to_tsvector('simple', name), 'A') || setweight(to_tsvector('simple', body), 'C')) STORED;
        CREATE INDEX mdcli_search_tsv_idx ON mdcli_search_doc USING gin (tsv);
        DELETE FROM mdcli_schema_version WHERE version > 2`)
      const s2 = await open()
      expect(await q(s2, 'kafka')).to.deep.equal([KAFKA])
      expect(await q(s2, 'Customer')).to.deep.equal([KAFKA])
      expect((await c.query('SELECT max(version) AS v FROM mdcli_schema_version')).rows[0].v).to.equal(MIGRATIONS[MIGRATIONS.length - 1]!.version)
      // Migration 8 bounds the pending lists every word search reads.
      const opts = await c.query<{relname: string; reloptions: string[] | null}>(`SELECT relname, reloptions FROM pg_class WHERE relname IN ('mdcli_search_tsv_idx', 'mdcli_search_name_tsv_idx') ORDER BY relname`)
      expect(opts.rows.map((r) => `${r.relname} ${r.reloptions}`)).to.deep.equal(['mdcli_search_name_tsv_idx gin_pending_list_limit=512', 'mdcli_search_tsv_idx gin_pending_list_limit=512'])
      // Migration 5 keeps every reference, now a row per aspect.
      const refs = (await s2.referencesTo([JDOE, 'urn:li:corpuser:ann'])).map((r) => `${r.target} ${r.aspectName}`).sort()
      expect(refs).to.deep.equal(['urn:li:corpuser:ann ownership', `${JDOE} editableDatasetProperties`, `${JDOE} ownership`])
      expect((await s2.referencesTo([JDOE], {aspects: ['ownership']})).map((r) => r.urn)).to.deep.equal([KAFKA])
      expect((await c.query('SELECT count(*)::int AS n FROM mdcli_reference')).rows[0].n).to.equal(2)
      // A document written without a vector (by an older server during an upgrade) is filled on the next open.
      await c.query('UPDATE mdcli_search_doc SET tsv = NULL, name_key = NULL')
      expect(await q(s2, 'kafka')).to.deep.equal([])
      expect(await q(await open(), 'SampleKaf')).to.deep.equal([KAFKA])
    })
  })

  it('warns, and still serves, when a newer mdcli migrated the database (replicas upgraded one by one)', async () => {
    const s = await open()
    await s.write([up(KAFKA, 'datasetProperties', {name: 'SampleKafkaDataset', description: 'events'})])
    await withClient((c) => c.query('INSERT INTO mdcli_schema_version (version) VALUES (99)'))
    const warnings: string[] = []
    const older = new PgStore({url, rules: REGISTRY_RULES, poolMax: 2, warn: (m) => warnings.push(m)})
    await older.open()
    try {
      expect(warnings.join('\n')).to.include(`is at schema version 99, newer than this mdcli's ${MIGRATIONS[MIGRATIONS.length - 1]!.version} (a newer mdcli migrated it)`)
      expect((await older.getAspect(KAFKA, 'datasetProperties'))?.value).to.deep.equal({name: 'SampleKafkaDataset', description: 'events'})
    } finally {
      await older.close()
    }
    // A database at this build's version says nothing.
    await withClient((c) => c.query('DELETE FROM mdcli_schema_version WHERE version = 99'))
    const same: string[] = []
    const again = new PgStore({url, rules: REGISTRY_RULES, poolMax: 2, warn: (m) => same.push(m)})
    await again.open()
    await again.close()
    expect(same.filter((m) => /schema version/.test(m))).to.deep.equal([])
  })

  it('builds a batch\'s search documents from the write side\'s projections, and an untouched aspect from its stored row', async () => {
    const s = await open()
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:kafka,Projected,PROD)'
    const op = up(urn, 'datasetProperties', {name: 'Projected', description: 'plainword'})
    // A projection that differs from the text shows which of the two the document was built from.
    noteSearchProjection(op, {name: 'Projected', description: 'projectedword'})
    await s.write([op])
    expect(await q(s, 'projectedword')).to.deep.equal([urn])
    expect(await q(s, 'plainword')).to.deep.equal([])
    // A later batch touches another aspect: the untouched one is read back as stored.
    await s.write([up(urn, 'globalTags', {tags: [{tag: 'urn:li:tag:pii'}]})])
    expect(await q(s, 'plainword')).to.deep.equal([urn])
    const tagged = await s.search({types: ['dataset'], query: 'plainword', filters: [[{field: 'tags', values: ['urn:li:tag:pii']}]]})
    expect(tagged.hits.map((h) => h.urn)).to.deep.equal([urn])
    // Restore indices (no batch) reads every value from its row.
    await s.reindex()
    await s.feed.rebuild()
    expect(await q(s, 'plainword')).to.deep.equal([urn])
    expect(await q(s, 'projectedword')).to.deep.equal([])
  })

  it('indexes a batch\'s new entities from the batch itself, and reads what DataHub\'s table already held of one', async () => {
    const s = await open()
    const ds = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,db.${n},PROD)`
    // A row another program wrote, with no entity row yet (DataHub's table before a reindex).
    await withClient((c) =>
      c.query(`INSERT INTO metadata_aspect_v2 (urn, aspect, version, metadata, systemmetadata, createdon, createdby) VALUES ($1, 'datasetProperties', 0, $2, '{}', '2024-01-02 03:04:05', 'urn:li:corpuser:datahub')`, [
        ds('legacy'),
        JSON.stringify({name: 'legacy', description: 'legacyword'}),
      ]),
    )
    await s.write([
      up(ds('legacy'), 'globalTags', {tags: [{tag: 'urn:li:tag:pii'}]}),
      up(ds('fresh'), 'datasetProperties', {name: 'fresh', description: 'freshword'}),
      up(ds('fresh'), 'datasetProperties', {name: 'fresh', description: 'freshword againword'}),
      up(ds('gone'), 'datasetProperties', {name: 'gone', description: 'goneword'}),
      up(ds('kept'), 'datasetProperties', {name: 'kept', description: 'keptword'}),
      {op: 'deleteAspect', urn: ds('gone'), aspectName: 'datasetProperties'},
      up(ds('gone'), 'globalTags', {tags: [{tag: 'urn:li:tag:pii'}]}),
    ])
    // The untouched row of the entity the table held is read back; the new ones are as written last.
    expect(await q(s, 'legacyword')).to.deep.equal([ds('legacy')])
    expect(await q(s, 'againword')).to.deep.equal([ds('fresh')])
    expect(await q(s, 'keptword')).to.deep.equal([ds('kept')])
    expect(await q(s, 'goneword')).to.deep.equal([])
    const pii = await s.search({types: ['dataset'], query: '*', filters: [[{field: 'tags', values: ['urn:li:tag:pii']}]]})
    expect(pii.hits.map((h) => h.urn).sort()).to.deep.equal([ds('gone'), ds('legacy')])
    // Every document carries its entity's own id (a new entity's comes back from its insert).
    await withClient(async (c) => {
      const {rows} = await c.query<{urn: string; same: boolean}>('SELECT d.urn, d.entity_id = e.id AND d.entity_type = e.entity_type AS same FROM mdcli_search_doc d JOIN mdcli_entity e USING (urn) ORDER BY d.urn')
      expect(rows).to.deep.equal([ds('fresh'), ds('gone'), ds('kept'), ds('legacy')].map((urn) => ({urn, same: true})))
    })
  })

  it('rebuilds the search vectors on `store reindex`', async () => {
    const s = await open()
    await s.write([up(KAFKA, 'datasetProperties', {name: 'SampleKafkaDataset', description: 'events'})])
    await withClient(async (c) => {
      await c.query(`UPDATE mdcli_search_doc SET tsv = ''::tsvector`)
    })
    expect(await q(s, 'kafka')).to.deep.equal([])
    await s.reindex()
    await s.feed.rebuild()
    expect(await q(s, 'kafka')).to.deep.equal([KAFKA])
    expect((await s.search({types: ['dataset'], query: 'samplekafkadataset'})).hits.map((h) => h.name)).to.deep.equal(['SampleKafkaDataset'])
  })
})
