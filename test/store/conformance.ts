/**
 * The store conformance suite: every MetadataStore implementation runs these tests unchanged.
 * It speaks only through the interface, so a SQL store proves itself with the same file.
 *
 * `factory()` gives a fresh empty store and a way to reopen it (close, then open a new
 * instance on the same data), so persistence is tested through the interface too.
 */
import {expect} from 'chai'
import {entitySpecs, keyAspectOf, supportsSoftDelete} from '../../src/model/registry.js'
import {REGISTRY_RULES} from '../../src/store/rules.js'
import type {FacetFilter, SystemMetadata, WriteOp} from '../../src/store/types.js'
import type {SearchableStore} from './searchable.js'

export interface StoreHarness {
  /** The store, with the search index the catalog would feed from its writes (searchable.ts). */
  store: SearchableStore
  /** Closes the current instance and opens a new one on the same data. */
  reopen(): Promise<SearchableStore>
  cleanup(): Promise<void>
}

const DS = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${n},PROD)`
const ACTOR = 'urn:li:corpuser:tester'

/** The key aspect as the catalog derives it: name and value from the registry, never guessed. */
function keyOf(urn: string) {
  const k = keyAspectOf(urn)
  return {name: k.name, value: JSON.stringify(k.value)}
}

/** One urn of each entity type the spec names (and a few more), to cover per-type rules. */
export const SAMPLE_URNS: Record<string, string> = {
  dataset: 'urn:li:dataset:(urn:li:dataPlatform:hive,rules.t,PROD)',
  corpuser: 'urn:li:corpuser:rules-user',
  corpGroup: 'urn:li:corpGroup:rules-group',
  tag: 'urn:li:tag:rules-tag',
  glossaryTerm: 'urn:li:glossaryTerm:rules.term',
  glossaryNode: 'urn:li:glossaryNode:rules-node',
  domain: 'urn:li:domain:rules-domain',
  container: 'urn:li:container:rules-container',
  dashboard: 'urn:li:dashboard:(looker,rules-dash)',
  chart: 'urn:li:chart:(looker,rules-chart)',
  dataFlow: 'urn:li:dataFlow:(airflow,rules_flow,prod)',
  dataJob: 'urn:li:dataJob:(urn:li:dataFlow:(airflow,rules_flow,prod),rules_job)',
  notebook: 'urn:li:notebook:(querybook,rules-nb)',
}

export function up(urn: string, aspectName: string, value: unknown, opts: {time?: number; runId?: string; actor?: string} = {}): WriteOp {
  const sm: SystemMetadata = {runId: opts.runId ?? 'run-a', lastObserved: opts.time ?? 1000}
  return {
    op: 'upsert',
    urn,
    entityType: urn.split(':')[2]!,
    aspectName,
    value: JSON.stringify(value),
    created: {time: opts.time ?? 1000, actor: opts.actor ?? ACTOR},
    systemMetadata: sm,
    keyAspect: keyOf(urn),
  }
}

export function ts(urn: string, aspectName: string, timestampMillis: number, value: Record<string, unknown>, runId = 'run-ts'): WriteOp {
  return {
    op: 'timeseries',
    urn,
    entityType: urn.split(':')[2]!,
    aspectName,
    value: JSON.stringify({timestampMillis, ...value}),
    timestampMillis,
    created: {time: timestampMillis, actor: ACTOR},
    systemMetadata: {runId, lastObserved: timestampMillis},
    keyAspect: keyOf(urn),
  }
}

export function storeConformance(name: string, factory: () => Promise<StoreHarness>): void {
  describe(`MetadataStore conformance: ${name}`, function () {
    let h: StoreHarness
    let store: SearchableStore
    beforeEach(async () => {
      h = await factory()
      store = h.store
    })
    afterEach(async () => {
      await h.cleanup()
    })

    it('creates the entity with its key aspect on the first write', async () => {
      const [r] = await store.write([up(DS('a'), 'status', {removed: false})])
      expect(r!.createdEntity).to.equal(true)
      const e = await store.getEntity(DS('a'))
      expect(e!.entityType).to.equal('dataset')
      expect(Object.keys(e!.aspects).sort()).to.deep.equal(['datasetKey', 'status'])
      expect(e!.aspects.datasetKey!.value).to.deep.equal({platform: 'urn:li:dataPlatform:hive', name: 'a', origin: 'PROD'})
      expect(await store.exists(DS('a'))).to.equal(true)
      expect(await store.exists(DS('nope'))).to.equal(false)
      expect(await store.getEntity(DS('nope'))).to.equal(null)
    })

    it('keeps versions as DataHub does: 0 latest, 1 oldest, n newest of the old', async () => {
      await store.write([up(DS('v'), 'globalTags', {tags: [{tag: 'urn:li:tag:a'}]}, {time: 1})])
      await store.write([up(DS('v'), 'globalTags', {tags: [{tag: 'urn:li:tag:b'}]}, {time: 2})])
      await store.write([up(DS('v'), 'globalTags', {tags: [{tag: 'urn:li:tag:c'}]}, {time: 3})])
      const v = await store.listVersions(DS('v'), 'globalTags')
      expect(v.map((x) => x.version)).to.deep.equal([0, 1, 2])
      expect(v.map((x) => (x.value as any).tags[0].tag)).to.deep.equal(['urn:li:tag:c', 'urn:li:tag:a', 'urn:li:tag:b'])
      expect((await store.getAspect(DS('v'), 'globalTags', 1))!.created.time).to.equal(1)
      expect(await store.getAspect(DS('v'), 'globalTags', 3)).to.equal(null)
    })

    it('writes no new version for an identical value, but moves lastObserved and lastRunId', async () => {
      await store.write([up(DS('same'), 'status', {removed: false}, {time: 10, runId: 'first'})])
      const [r] = await store.write([up(DS('same'), 'status', {removed: false}, {time: 20, runId: 'second'})])
      expect(r!.changed).to.equal(false)
      const vs = await store.listVersions(DS('same'), 'status')
      expect(vs).to.have.length(1)
      expect(vs[0]!.systemMetadata.runId).to.equal('first')
      expect(vs[0]!.systemMetadata.lastRunId).to.equal('second')
      expect(vs[0]!.systemMetadata.lastObserved).to.equal(20)
    })

    it('an identical value merges the properties it carries over the stored ones (a queue position moves with it)', async () => {
      const withProps = (time: number, properties: Record<string, string>): WriteOp => {
        const op = up(DS('sameprops'), 'status', {removed: false}, {time})
        return {...op, systemMetadata: {...(op as {systemMetadata: SystemMetadata}).systemMetadata, properties}} as WriteOp
      }
      await store.write([withProps(10, {kept: 'yes', 'mdcli.queue.seq': '1'})])
      const [r] = await store.write([withProps(20, {'mdcli.queue.seq': '2'})])
      expect(r!.changed).to.equal(false)
      const a = await store.getAspect(DS('sameprops'), 'status')
      expect(a!.systemMetadata.properties).to.deep.equal({kept: 'yes', 'mdcli.queue.seq': '2'})
      await store.write([up(DS('sameprops'), 'status', {removed: false}, {time: 30})])
      expect((await store.getAspect(DS('sameprops'), 'status'))!.systemMetadata.properties, 'a write without properties leaves them').to.deep.equal({kept: 'yes', 'mdcli.queue.seq': '2'})
    })

    it('applies the ops of one batch in order, several on the same aspect and entity', async () => {
      const tag = (t: string) => ({tags: [{tag: `urn:li:tag:${t}`}]})
      const rs = await store.write([
        up(DS('seq'), 'globalTags', tag('a'), {time: 1}),
        up(DS('seq'), 'globalTags', tag('a'), {time: 2, runId: 'again'}),
        up(DS('seq'), 'globalTags', tag('b'), {time: 3}),
        up(DS('seq'), 'status', {removed: true}),
        up(DS('seq'), 'status', {removed: false}),
        up(DS('gone'), 'status', {removed: false}),
        {op: 'deleteEntity', urn: DS('gone')},
        up(DS('gone'), 'globalTags', tag('c')),
      ])
      expect(rs.map((r) => [r.changed, r.createdEntity])).to.deep.equal([[true, true], [false, false], [true, false], [true, false], [true, false], [true, true], [true, false], [true, true]])
      const v = await store.listVersions(DS('seq'), 'globalTags')
      expect(v.map((x) => (x.value as any).tags[0].tag)).to.deep.equal(['urn:li:tag:b', 'urn:li:tag:a'])
      expect(v[1]!.systemMetadata.lastRunId).to.equal('again')
      expect(await store.exists(DS('seq'))).to.equal(true)
      expect((await store.search({types: ['dataset'], query: '*'})).hits.map((h) => h.urn)).to.include.members([DS('seq'), DS('gone')])
      const gone = await store.getEntity(DS('gone'))
      expect(Object.keys(gone!.aspects).sort()).to.deep.equal(['datasetKey', 'globalTags'])
      expect((await store.referencesTo(['urn:li:tag:c'])).map((r) => r.urn)).to.deep.equal([DS('gone')])
      expect((await store.referencesTo(['urn:li:tag:a'])).map((r) => r.urn)).to.deep.equal([])
    })

    it('answers references in one order, by referring urn, aspect and target, however they were written', async () => {
      const t = 'urn:li:tag:ordered'
      const source = DS('ord.up')
      const tagged = (tagsOf: string[]) => ({tags: tagsOf.map((tag) => ({tag}))})
      for (const n of ['ord.c', 'ord.a', 'ord.b']) await store.write([up(DS(n), 'globalTags', tagged([t]))])
      // Written again: a store that kept write order (or a table's physical order) would move it.
      await store.write([up(DS('ord.a'), 'globalTags', tagged([t, 'urn:li:tag:other']))])
      await store.write([up(DS('ord.b'), 'upstreamLineage', {upstreams: [{dataset: source, type: 'TRANSFORMED', auditStamp: {time: 0, actor: 'urn:li:corpuser:x'}}]})])
      await store.write([up(DS('ord.b'), 'editableSchemaMetadata', {editableSchemaFieldInfo: [{fieldPath: 'x', globalTags: tagged([t])}]})])
      const refs = await store.referencesTo([source, t])
      expect(refs.map((r) => `${r.urn} ${r.aspectName} ${r.target}`)).to.deep.equal([
        `${DS('ord.a')} globalTags ${t}`,
        `${DS('ord.b')} editableSchemaMetadata ${t}`,
        `${DS('ord.b')} globalTags ${t}`,
        `${DS('ord.b')} upstreamLineage ${source}`,
        `${DS('ord.c')} globalTags ${t}`,
      ])
    })

    it('stamps audit and system metadata', async () => {
      await store.write([up(DS('s'), 'status', {removed: false}, {time: 42, runId: 'r-42', actor: 'urn:li:corpuser:x'})])
      const a = await store.getAspect(DS('s'), 'status')
      expect(a!.created).to.deep.equal({time: 42, actor: 'urn:li:corpuser:x'})
      expect(a!.systemMetadata.runId).to.equal('r-42')
      expect(a!.kind).to.equal('versioned')
    })

    it('appends timeseries rows and reads the latest', async () => {
      await store.write([ts(DS('t'), 'datasetProfile', 2000, {rowCount: 2})])
      await store.write([ts(DS('t'), 'datasetProfile', 1000, {rowCount: 1})])
      await store.write([ts(DS('t'), 'datasetProfile', 3000, {rowCount: 3})])
      const latest = await store.getAspect(DS('t'), 'datasetProfile')
      expect(latest!.kind).to.equal('timeseries')
      expect((latest!.value as any).rowCount).to.equal(3)
      const rows = await store.listTimeseries(DS('t'), 'datasetProfile', {startTime: 1500})
      expect(rows.map((r) => (r.value as any).rowCount)).to.deep.equal([3, 2])
      const e = await store.getEntity(DS('t'), ['datasetProfile'])
      expect((e!.aspects.datasetProfile!.value as any).rowCount).to.equal(3)
    })

    it('reads selected aspects of one or many entities', async () => {
      await store.write([up(DS('m1'), 'status', {removed: false}), up(DS('m1'), 'globalTags', {tags: []}), up(DS('m2'), 'status', {removed: false})])
      const e = await store.getEntity(DS('m1'), ['globalTags', 'nosuch'])
      expect(Object.keys(e!.aspects)).to.deep.equal(['globalTags'])
      const many = await store.getEntities([DS('m1'), DS('m2'), DS('missing')], ['status'])
      expect([...many.keys()].sort()).to.deep.equal([DS('m1'), DS('m2')])
    })

    it('reverts to the previous version and drops an aspect with no history', async () => {
      await store.write([up(DS('r'), 'globalTags', {tags: [{tag: 'urn:li:tag:a'}]}), up(DS('r'), 'status', {removed: false})])
      await store.write([up(DS('r'), 'globalTags', {tags: [{tag: 'urn:li:tag:b'}]})])
      await store.write([{op: 'revert', urn: DS('r'), aspectName: 'globalTags'}])
      expect(((await store.getAspect(DS('r'), 'globalTags'))!.value as any).tags[0].tag).to.equal('urn:li:tag:a')
      expect(await store.listVersions(DS('r'), 'globalTags')).to.have.length(1)
      await store.write([{op: 'revert', urn: DS('r'), aspectName: 'globalTags'}])
      expect(await store.getAspect(DS('r'), 'globalTags')).to.equal(null)
    })

    it('a revert naming a run reverts only a latest version that run wrote', async () => {
      await store.write([up(DS('rr'), 'globalTags', {tags: [{tag: 'urn:li:tag:base'}]}, {runId: 'run-base'})])
      await store.write([up(DS('rr'), 'globalTags', {tags: [{tag: 'urn:li:tag:x'}]}, {runId: 'run-x'})])
      // Another run's write lands after a rollback of run-x was planned: it stays.
      await store.write([up(DS('rr'), 'globalTags', {tags: [{tag: 'urn:li:tag:y'}]}, {runId: 'run-y'})])
      const [r] = await store.write([{op: 'revert', urn: DS('rr'), aspectName: 'globalTags', runId: 'run-x'}])
      expect(r!.changed).to.equal(false)
      expect(((await store.getAspect(DS('rr'), 'globalTags'))!.value as any).tags[0].tag).to.equal('urn:li:tag:y')
      expect(await store.listVersions(DS('rr'), 'globalTags')).to.have.length(3)
      const [mine] = await store.write([{op: 'revert', urn: DS('rr'), aspectName: 'globalTags', runId: 'run-y'}])
      expect(mine!.changed).to.equal(true)
      expect(((await store.getAspect(DS('rr'), 'globalTags'))!.value as any).tags[0].tag).to.equal('urn:li:tag:x')
      const [none] = await store.write([{op: 'revert', urn: DS('rr'), aspectName: 'nosuch', runId: 'run-x'}])
      expect(none!.changed).to.equal(false)
    })

    it('hard-deletes an entity with every aspect, version and timeseries row', async () => {
      await store.write([up(DS('d'), 'status', {removed: false}), ts(DS('d'), 'datasetProfile', 5, {rowCount: 1})])
      await store.write([up(DS('d'), 'status', {removed: true})])
      const [r] = await store.write([{op: 'deleteEntity', urn: DS('d')}])
      expect(r!.rowsRemoved).to.equal(4)
      expect(await store.exists(DS('d'))).to.equal(false)
      expect(await store.getAspect(DS('d'), 'datasetProfile')).to.equal(null)
      expect((await store.search({types: ['dataset'], query: '*', includeSoftDeleted: true})).hits.map((h) => h.urn)).to.not.include(DS('d'))
    })

    it('deletes one aspect', async () => {
      await store.write([up(DS('da'), 'status', {removed: false}), up(DS('da'), 'globalTags', {tags: []})])
      await store.write([{op: 'deleteAspect', urn: DS('da'), aspectName: 'globalTags'}])
      expect(await store.getAspect(DS('da'), 'globalTags')).to.equal(null)
      expect(await store.exists(DS('da'))).to.equal(true)
    })

    it('knows soft-deleted entities exist and hides them on request', async () => {
      await store.write([up(DS('soft'), 'status', {removed: true})])
      expect(await store.exists(DS('soft'))).to.equal(true)
      expect(await store.exists(DS('soft'), {includeSoftDeleted: false})).to.equal(false)
      expect((await store.listUrns({entityType: 'dataset'})).urns).to.not.include(DS('soft'))
      expect((await store.listUrns({entityType: 'dataset', includeSoftDeleted: true})).urns).to.include(DS('soft'))
    })

    it('lists urns by type with paging', async () => {
      await store.write(['a', 'b', 'c', 'd'].map((n) => up(DS(`l${n}`), 'status', {removed: false})))
      await store.write([up('urn:li:tag:x', 'tagProperties', {name: 'x'})])
      const page = await store.listUrns({entityType: 'dataset', start: 1, count: 2})
      expect(page.total).to.equal(4)
      expect(page.urns).to.deep.equal([DS('lb'), DS('lc')])
      expect((await store.listUrns({entityType: 'tag'})).urns).to.deep.equal(['urn:li:tag:x'])
      // Deleted and written again: gone from its type's list, then back at the end of it.
      await store.write([{op: 'deleteEntity', urn: DS('lb')}])
      expect((await store.listUrns({entityType: 'dataset'})).urns).to.deep.equal([DS('la'), DS('lc'), DS('ld')])
      await store.write([up(DS('lb'), 'status', {removed: false})])
      expect((await store.listUrns({entityType: 'dataset'})).urns).to.deep.equal([DS('la'), DS('lc'), DS('ld'), DS('lb')])
      store = await h.reopen()
      expect((await store.listUrns({entityType: 'dataset'})).urns).to.deep.equal([DS('la'), DS('lc'), DS('ld'), DS('lb')])
      expect((await store.listUrns({entityType: 'chart'})).total).to.equal(0)
    })

    it('searches full text over names, descriptions, tags, owners and field paths', async () => {
      await store.write([
        up(DS('orders'), 'datasetProperties', {name: 'orders', description: 'web shop purchases'}),
        up(DS('customers'), 'datasetProperties', {name: 'customers', description: 'people who bought'}),
        up(DS('customers'), 'globalTags', {tags: [{tag: 'urn:li:tag:pii'}]}),
        up(DS('customers'), 'ownership', {owners: [{owner: 'urn:li:corpuser:alice', type: 'DATAOWNER'}]}),
        up(DS('events'), 'schemaMetadata', {fields: [{fieldPath: 'session_identifier'}]}),
        up('urn:li:tag:pii', 'tagProperties', {name: 'pii'}),
      ])
      const q = async (query: string, types = ['dataset']) => (await store.search({types, query})).hits.map((h) => h.urn)
      expect(await q('purchases')).to.deep.equal([DS('orders')])
      expect(await q('pii')).to.deep.equal([DS('customers')])
      expect(await q('alice')).to.deep.equal([DS('customers')])
      expect(await q('session_identifier')).to.deep.equal([DS('events')])
      expect(await q('people bought')).to.deep.equal([DS('customers')])
      expect(await q('nothingmatches')).to.deep.equal([])
      expect(await q('pii', ['tag'])).to.deep.equal(['urn:li:tag:pii'])
      const all = await store.search({types: ['dataset'], query: '*', count: 2})
      expect(all.total).to.equal(3)
      expect(all.hits).to.have.length(2)
      const across = await store.search({query: 'pii', facets: ['_entityType', 'tags']})
      expect(across.total).to.equal(2)
      expect(across.facets!._entityType).to.deep.include({value: 'dataset', count: 1})
      expect(across.facets!.tags).to.deep.equal([{value: 'urn:li:tag:pii', count: 1}])
      const filtered = await store.search({types: ['dataset'], query: '*', filters: [[{field: 'owners', values: ['urn:li:corpuser:alice']}]]})
      expect(filtered.hits.map((h) => h.urn)).to.deep.equal([DS('customers')])
      const negated = await store.search({types: ['dataset'], query: '*', filters: [[{field: 'owners', values: ['urn:li:corpuser:alice'], negated: true}]]})
      expect(negated.total).to.equal(2)
    })

    it('filters with DataHub\'s conditions: IEQUAL, CONTAIN, START_WITH, END_WITH and EXISTS, negated too, LIKE characters taken literally', async () => {
      await store.write([
        up(DS('c_orders'), 'globalTags', {tags: [{tag: 'urn:li:tag:PII'}, {tag: 'urn:li:tag:gold%'}]}),
        up(DS('c_orders'), 'container', {container: 'urn:li:container:shop'}),
        up(DS('c_users'), 'globalTags', {tags: [{tag: 'urn:li:tag:pii_strict'}]}),
        up(DS('c_bare'), 'datasetProperties', {name: 'c_bare'}),
      ])
      const q = async (filters: FacetFilter[][]) => (await store.search({types: ['dataset'], query: '*', filters})).hits.map((h) => h.urn).sort()
      const all = [DS('c_bare'), DS('c_orders'), DS('c_users')].sort()
      expect(await q([[{field: 'tags', values: ['urn:li:tag:pii'], match: 'IEQUAL'}]])).to.deep.equal([DS('c_orders')])
      expect(await q([[{field: 'tags', values: ['pii'], match: 'CONTAIN'}]])).to.deep.equal([DS('c_users')])
      expect(await q([[{field: 'tags', values: ['urn:li:tag:pii'], match: 'START_WITH'}]])).to.deep.equal([DS('c_users')])
      expect(await q([[{field: 'tags', values: ['_strict'], match: 'END_WITH'}]])).to.deep.equal([DS('c_users')])
      // `%` and `_` are characters, not wildcards.
      expect(await q([[{field: 'tags', values: ['d%'], match: 'END_WITH'}]])).to.deep.equal([DS('c_orders')])
      expect(await q([[{field: 'tags', values: ['pii_'], match: 'CONTAIN'}]])).to.deep.equal([DS('c_users')])
      expect(await q([[{field: 'tags', values: ['_'], match: 'CONTAIN', negated: true}]])).to.deep.equal([DS('c_bare'), DS('c_orders')].sort())
      expect(await q([[{field: 'tags', values: [], match: 'EXISTS'}]])).to.deep.equal([DS('c_orders'), DS('c_users')].sort())
      expect(await q([[{field: 'tags', values: [], match: 'EXISTS', negated: true}]])).to.deep.equal([DS('c_bare')])
      expect(await q([[{field: 'container', values: [], match: 'EXISTS'}]])).to.deep.equal([DS('c_orders')])
      expect(await q([[{field: 'urn', values: ['c_us'], match: 'CONTAIN'}]])).to.deep.equal([DS('c_users')])
      expect(await q([[{field: 'urn', values: [], match: 'EXISTS'}]])).to.deep.equal(all)
      // A field no document holds: EXISTS matches nothing, negated everything.
      expect(await q([[{field: 'rowCount', values: [], match: 'EXISTS'}]])).to.deep.equal([])
      expect(await q([[{field: 'rowCount', values: [], match: 'EXISTS', negated: true}]])).to.deep.equal(all)
    })

    it('sees changes in search at once and hides soft-deleted entities', async () => {
      await store.write([up(DS('x'), 'datasetProperties', {name: 'x', description: 'alpha'})])
      expect((await store.search({types: ['dataset'], query: 'alpha'})).total).to.equal(1)
      await store.write([up(DS('x'), 'datasetProperties', {name: 'x', description: 'beta'})])
      expect((await store.search({types: ['dataset'], query: 'alpha'})).total).to.equal(0)
      expect((await store.search({types: ['dataset'], query: 'beta'})).total).to.equal(1)
      await store.write([up(DS('x'), 'status', {removed: true})])
      expect((await store.search({types: ['dataset'], query: 'beta'})).total).to.equal(0)
      expect((await store.search({types: ['dataset'], query: 'beta', includeSoftDeleted: true})).total).to.equal(1)
    })

    it('keeps search right when an entity is deleted and written again', async () => {
      await store.write([up(DS('again'), 'datasetProperties', {name: 'again', description: 'first'})])
      expect((await store.search({types: ['dataset'], query: 'first'})).total).to.equal(1)
      await store.write([{op: 'deleteEntity', urn: DS('again')}, up(DS('again'), 'datasetProperties', {name: 'again', description: 'second'})])
      expect((await store.search({types: ['dataset'], query: 'first'})).total).to.equal(0)
      expect((await store.search({types: ['dataset'], query: 'second'})).hits.map((h) => h.urn)).to.deep.equal([DS('again')])
      await store.write([{op: 'deleteEntity', urn: DS('again')}])
      expect((await store.search({types: ['dataset'], query: 'second'})).total).to.equal(0)
    })

    it('walks every match with a cursor, none skipped or repeated under concurrent writes', async () => {
      await store.write(Array.from({length: 50}, (_, i) => up(DS(`w${String(i).padStart(2, '0')}`), 'datasetProperties', {name: `w${i}`, description: 'walk'})))
      const seen: string[] = []
      let after: string | null = ''
      let i = 0
      while (after !== null) {
        const r = await store.search({types: ['dataset'], query: 'walk', count: 7, after: after === '' ? null : after})
        seen.push(...r.hits.map((h) => h.urn))
        after = r.next ?? null
        // Entities created and changed during the walk must not disturb the others.
        await store.write([up(DS(`new${i}`), 'datasetProperties', {name: `n${i}`, description: 'walk'}), up(DS('w03'), 'globalTags', {tags: [{tag: `urn:li:tag:t${i}`}]})])
        i++
      }
      const original = Array.from({length: 50}, (_, k) => DS(`w${String(k).padStart(2, '0')}`))
      for (const u of original) expect(seen.filter((s) => s === u), u).to.have.length(1)
      expect(new Set(seen).size).to.equal(seen.length)
    })

    it('tracks runs and their rows', async () => {
      await store.write([up(DS('run1'), 'status', {removed: false}, {runId: 'ingest-1', time: 100}), up(DS('run1'), 'globalTags', {tags: []}, {runId: 'ingest-1', time: 100})])
      await store.write([up(DS('run1'), 'globalTags', {tags: [{tag: 'urn:li:tag:z'}]}, {runId: 'ingest-2', time: 200})])
      const runs = await store.listRuns()
      const r1 = runs.find((r) => r.runId === 'ingest-1')!
      expect(r1.rows).to.equal(3)
      expect(r1.timestamp).to.equal(100)
      expect(runs[0]!.runId).to.equal('ingest-2')
      const rows = await store.runRows('ingest-1')
      expect(rows.map((r) => `${r.aspectName}@${r.version}${r.keyAspect ? ' key' : ''}`).sort()).to.deep.equal(['datasetKey@0 key', 'globalTags@1', 'status@0'])
    })

    it('marks the key aspect row of every entity type by the registry (corpuser: corpUserKey)', async () => {
      for (const [type, urn] of Object.entries(SAMPLE_URNS)) {
        const spec = entitySpecs().find((e) => e.name === type)!
        expect(spec, type).to.not.equal(undefined)
        await store.write([up(urn, 'status', {removed: false}, {runId: `rules-${type}`})])
        const rows = await store.runRows(`rules-${type}`)
        expect(rows.filter((r) => r.keyAspect).map((r) => r.aspectName), type).to.deep.equal([spec.keyAspect])
        expect(Object.keys((await store.getEntity(urn))!.aspects).sort(), type).to.deep.equal([spec.keyAspect, 'status'].sort())
      }
      expect(REGISTRY_RULES.keyAspectName('corpuser')).to.equal('corpUserKey')
    })

    it('soft-deletes by the registry: status removed, whatever the spacing of the text', async () => {
      for (const [type, urn] of Object.entries(SAMPLE_URNS)) {
        if (!supportsSoftDelete(type)) continue
        await store.write([{...(up(urn, 'status', {}) as Extract<WriteOp, {op: 'upsert'}>), value: '{ "removed" : true }'}])
        expect(await store.exists(urn, {includeSoftDeleted: false}), type).to.equal(false)
        expect(await store.exists(urn), type).to.equal(true)
        // The text is kept exactly as written.
        expect((await store.getAspect(urn, 'status'))!.value, type).to.deep.equal({removed: true})
      }
    })

    it('keeps a value text byte for byte: quotes, backslashes, escapes, line separators, astral characters, spacing', async () => {
      const texts = [
        '{"description":"say \\"hi\\" \\\\ C:\\\\path \\u0000 \\n\\t","name":"x"}',
        `{"description":"a\u2028b\u2029c é ß 数据 😀","name":"y"}`,
        '{ "name" : "spaced" ,\n  "description" : "kept as sent" }',
        '{"description":"\\ud83d\\ude00 and a lone \\ud800","name":"z"}',
        // A NUL inside urns that search and references would index.
        '{"name":"nul","tags":[{"tag":"urn:li:tag:a\\u0000b"}],"owner":"urn:li:corpuser:x\\u0000"}',
      ]
      for (const [i, text] of texts.entries()) {
        const urn = DS(`text-${i}`)
        await store.write([{...(up(urn, 'datasetProperties', {}) as Extract<WriteOp, {op: 'upsert'}>), value: text}])
        const got = (await store.getAspect(urn, 'datasetProperties'))!
        expect(got.valueText ?? JSON.stringify(got.value), `text ${i}`).to.equal(got.valueText === undefined ? JSON.stringify(JSON.parse(text)) : text)
        expect(got.value, `text ${i}`).to.deep.equal(JSON.parse(text))
        // The same text again is the same value: no new version.
        const [r] = await store.write([{...(up(urn, 'datasetProperties', {}) as Extract<WriteOp, {op: 'upsert'}>), value: text}])
        expect(r!.changed, `text ${i}`).to.equal(false)
      }
      // And in a tag, which search keeps as a facet.
      const tags = '{"tags":[{"tag":"urn:li:tag:a\\u0000b"}]}'
      await store.write([{...(up(DS('text-tags'), 'globalTags', {}) as Extract<WriteOp, {op: 'upsert'}>), value: tags}])
      expect((await store.getAspect(DS('text-tags'), 'globalTags'))!.value).to.deep.equal(JSON.parse(tags))
    })

    it('takes the same value spelled otherwise as unchanged, keeping the stored text; a changed value spelled so is a version', async () => {
      const urn = DS('spelling')
      const compact = '{"name":"x","customProperties":{"a":"1","b":"2"},"tags":[]}'
      await store.write([{...(up(urn, 'datasetProperties', {}) as Extract<WriteOp, {op: 'upsert'}>), value: compact}])
      // Python's json.dumps spacing, other key order, an escape where the text had the character.
      const spaced = '{"tags": [], "customProperties": {"b": "2", "a": "1"}, "name": "\\u0078"}'
      const [same] = await store.write([{...(up(urn, 'datasetProperties', {}, {time: 2000, runId: 'run-b'}) as Extract<WriteOp, {op: 'upsert'}>), value: spaced}])
      expect(same!.changed).to.equal(false)
      expect(await store.listVersions(urn, 'datasetProperties')).to.have.length(1)
      const got = (await store.getAspect(urn, 'datasetProperties'))!
      expect(got.valueText ?? JSON.stringify(got.value)).to.equal(compact)
      expect(got.systemMetadata, 'observed again by the later run').to.include({runId: 'run-a', lastRunId: 'run-b', lastObserved: 2000})
      // Arrays keep their order: the same members reordered are a change.
      const reordered = '{"name": "x", "customProperties": {"a": "1", "b": "2"}, "tags": ["t2", "t1"]}'
      await store.write([{...(up(urn, 'datasetProperties', {}, {time: 3000}) as Extract<WriteOp, {op: 'upsert'}>), value: '{"name":"x","customProperties":{"a":"1","b":"2"},"tags":["t1","t2"]}'}])
      const [changed] = await store.write([{...(up(urn, 'datasetProperties', {}, {time: 4000}) as Extract<WriteOp, {op: 'upsert'}>), value: reordered}])
      expect(changed!.changed).to.equal(true)
      expect(await store.listVersions(urn, 'datasetProperties')).to.have.length(3)
      expect((await store.getAspect(urn, 'datasetProperties'))!.value).to.deep.equal(JSON.parse(reordered))
    })

    it('answers reads naming a NUL character (which no store can hold) as finding nothing', async () => {
      const urn = DS('nul')
      await store.write([up(urn, 'status', {removed: false}, {runId: 'run-nul'})])
      const bad = DS('nu\u0000l')
      expect(await store.getEntity(bad)).to.equal(null)
      expect([...(await store.getEntities([bad, urn])).keys()]).to.deep.equal([urn])
      expect(await store.exists(bad)).to.equal(false)
      expect(await store.getAspect(urn, 'sta\u0000tus')).to.equal(null)
      expect(await store.getAspect(bad, 'status', 1)).to.equal(null)
      expect(await store.listVersions(bad, 'status')).to.deep.equal([])
      expect(await store.listTimeseries(bad, 'datasetProfile')).to.deep.equal([])
      expect(await store.referencesTo([bad])).to.deep.equal([])
      expect(await store.runRows('run-nul\u0000')).to.deep.equal([])
      const found = await store.search({types: ['dataset'], query: 'n\u0000ul', filters: [[{field: 'tags', values: ['urn:li:tag:\u0000']}]]})
      expect(found.total).to.equal(0)
      // A query word longer than PostgreSQL takes in a tsquery (2 KiB) matches nothing, on every store.
      expect((await store.search({types: ['dataset'], query: 'x'.repeat(3000)})).total).to.equal(0)
      expect((await store.search({types: ['dataset'], query: `${'é'.repeat(1100)}x`})).total).to.equal(0)
    })

    it('answers names of Object.prototype as absent aspects', async () => {
      await store.write([up(DS('proto'), 'status', {removed: false})])
      for (const n of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
        expect(await store.getAspect(DS('proto'), n), n).to.equal(null)
        expect(await store.listVersions(DS('proto'), n), n).to.deep.equal([])
        expect(await store.listTimeseries(DS('proto'), n), n).to.deep.equal([])
        expect(Object.keys((await store.getEntity(DS('proto'), [n]))!.aspects), n).to.deep.equal([])
      }
      expect((await store.write([{op: 'revert', urn: DS('proto'), aspectName: 'constructor'}]))[0]!.changed).to.equal(false)
      expect((await store.write([{op: 'deleteAspect', urn: DS('proto'), aspectName: 'toString'}]))[0]!.changed).to.equal(false)
      expect(await store.exists(DS('proto'))).to.equal(true)
    })

    it('answers concurrent reads each with what it asked for', async () => {
      // A shared store may answer reads of one moment together; every caller still gets its own urns and aspects.
      await store.write([up(DS('cr.a'), 'status', {removed: false}), up(DS('cr.a'), 'datasetProperties', {name: 'a'}), up(DS('cr.b'), 'status', {removed: true})])
      const [ab, aOnly, bProps, aStatus, aExists, bLive, gone, again] = await Promise.all([
        store.getEntities([DS('cr.b'), DS('cr.missing'), DS('cr.a')]),
        store.getEntities([DS('cr.a')], ['datasetProperties']),
        store.getEntity(DS('cr.b'), ['datasetProperties']),
        store.getAspect(DS('cr.a'), 'status'),
        store.exists(DS('cr.a')),
        store.exists(DS('cr.b'), {includeSoftDeleted: false}),
        store.exists(DS('cr.missing')),
        store.getEntities([DS('cr.a'), DS('cr.a')]),
      ])
      expect([...ab.keys()]).to.deep.equal([DS('cr.b'), DS('cr.a')])
      expect(Object.keys(ab.get(DS('cr.a'))!.aspects).sort()).to.deep.equal(['datasetKey', 'datasetProperties', 'status'])
      expect(Object.keys(aOnly.get(DS('cr.a'))!.aspects)).to.deep.equal(['datasetProperties'])
      expect(Object.keys(bProps!.aspects)).to.deep.equal([])
      expect(aStatus!.value).to.deep.equal({removed: false})
      expect([aExists, bLive, gone]).to.deep.equal([true, false, false])
      expect([...again.keys()]).to.deep.equal([DS('cr.a')])
      // Records are the caller's own: changing one leaves what another caller got alone.
      delete ab.get(DS('cr.a'))!.aspects.status
      expect(again.get(DS('cr.a'))!.aspects.status).to.not.equal(undefined)
    })

    it('finds the entities that reference an urn', async () => {
      await store.write([
        up(DS('down'), 'upstreamLineage', {upstreams: [{dataset: DS('up'), type: 'TRANSFORMED'}]}),
        up(DS('up'), 'status', {removed: false}),
        up(DS('other'), 'status', {removed: false}),
      ])
      expect(await store.referencesTo([DS('up')])).to.deep.equal([{target: DS('up'), urn: DS('down'), aspectName: 'upstreamLineage'}])
      // Many targets at once take the one-pass path and find the same.
      const many = Array.from({length: 20}, (_, i) => DS(`absent${i}`))
      expect(await store.referencesTo([...many, DS('up')])).to.deep.equal([{target: DS('up'), urn: DS('down'), aspectName: 'upstreamLineage'}])
      expect(await store.referencesTo([DS('down')])).to.deep.equal([])
    })

    it('answers references through the lineage aspects from its index, kept through changes, reverts, deletes and a reopen', async () => {
      const LINEAGE = {aspects: ['upstreamLineage', 'dataJobInputOutput', 'chartInfo', 'dashboardInfo']}
      const ul = (...ups: string[]) => ({upstreams: ups.map((u) => ({dataset: u, type: 'TRANSFORMED'}))})
      const refs = async (t: string) => (await store.referencesTo([t], LINEAGE)).map((r) => `${r.urn} ${r.aspectName}`).sort()
      await store.write([
        up(DS('l.b'), 'upstreamLineage', ul(DS('l.a'))),
        up(DS('l.c'), 'upstreamLineage', ul(DS('l.a'), DS('l.b'))),
        // A mention outside the lineage aspects is not a lineage reference.
        up(DS('l.d'), 'datasetProperties', {customProperties: {}, tags: [], description: DS('l.a'), name: 'd'}),
      ])
      expect(await refs(DS('l.a'))).to.deep.equal([`${DS('l.b')} upstreamLineage`, `${DS('l.c')} upstreamLineage`])
      await store.write([up(DS('l.c'), 'upstreamLineage', ul(DS('l.b')))])
      expect(await refs(DS('l.a'))).to.deep.equal([`${DS('l.b')} upstreamLineage`])
      await store.write([{op: 'revert', urn: DS('l.c'), aspectName: 'upstreamLineage'}])
      expect(await refs(DS('l.a'))).to.deep.equal([`${DS('l.b')} upstreamLineage`, `${DS('l.c')} upstreamLineage`])
      await store.write([{op: 'deleteEntity', urn: DS('l.b')}])
      expect(await refs(DS('l.a'))).to.deep.equal([`${DS('l.c')} upstreamLineage`])
      store = await h.reopen()
      expect(await refs(DS('l.a'))).to.deep.equal([`${DS('l.c')} upstreamLineage`])
      expect(await refs(DS('l.b'))).to.deep.equal([`${DS('l.c')} upstreamLineage`])
      await store.write([{op: 'deleteAspect', urn: DS('l.c'), aspectName: 'upstreamLineage'}])
      expect(await refs(DS('l.a'))).to.deep.equal([])
      expect(await store.referencesTo([DS('l.a')])).to.have.length(1) // datasetProperties of l.d, found without the filter
    })

    it('answers references through any aspect after a first question, kept through changes, reverts, deletes, a reused entity and a reopen', async () => {
      const TAG = 'urn:li:tag:mention'
      const OWNER = 'urn:li:corpuser:mention'
      const tags = (...t: string[]) => ({tags: t.map((tag) => ({tag}))})
      const owners = (...o: string[]) => ({owners: o.map((owner) => ({owner, type: 'DATAOWNER'}))})
      const refs = async (t: string, aspects?: string[]) => (await store.referencesTo([t], aspects ? {aspects} : {})).map((r) => `${r.urn} ${r.aspectName}`).sort()
      await store.write([up(DS('m.a'), 'globalTags', tags(TAG)), up(DS('m.b'), 'ownership', owners(OWNER)), up(DS('m.b'), 'globalTags', tags(TAG, 'urn:li:tag:other'))])
      // The first question (an embedded store builds its index of mentions here).
      expect(await refs(TAG)).to.deep.equal([`${DS('m.a')} globalTags`, `${DS('m.b')} globalTags`])
      expect(await refs(TAG, ['ownership'])).to.deep.equal([])
      expect(await refs(OWNER, ['ownership', 'globalTags'])).to.deep.equal([`${DS('m.b')} ownership`])
      // Written after it: a new entity, a changed value, a second aspect mentioning the same urn.
      await store.write([up(DS('m.c'), 'globalTags', tags(TAG)), up(DS('m.a'), 'globalTags', tags('urn:li:tag:other')), up(DS('m.c'), 'ownership', owners(OWNER))])
      expect(await refs(TAG)).to.deep.equal([`${DS('m.b')} globalTags`, `${DS('m.c')} globalTags`])
      expect(await refs(OWNER)).to.deep.equal([`${DS('m.b')} ownership`, `${DS('m.c')} ownership`])
      // A revert brings the old value's mention back; a removed aspect and a deleted entity take theirs away.
      await store.write([{op: 'revert', urn: DS('m.a'), aspectName: 'globalTags'}])
      expect(await refs(TAG)).to.deep.equal([`${DS('m.a')} globalTags`, `${DS('m.b')} globalTags`, `${DS('m.c')} globalTags`])
      await store.write([{op: 'deleteAspect', urn: DS('m.b'), aspectName: 'globalTags'}, {op: 'deleteEntity', urn: DS('m.c')}])
      expect(await refs(TAG)).to.deep.equal([`${DS('m.a')} globalTags`])
      expect(await refs(OWNER)).to.deep.equal([`${DS('m.b')} ownership`])
      // A new entity (which may take the deleted one's place in memory) that mentions nothing.
      await store.write([up(DS('m.d'), 'status', {removed: false})])
      expect(await refs(OWNER)).to.deep.equal([`${DS('m.b')} ownership`])
      // Many changes to one entity's mention of the same urn answer it once.
      for (let i = 0; i < 40; i++) await store.write([up(DS('m.a'), 'globalTags', tags(TAG, `urn:li:tag:n${i}`))])
      expect(await refs(TAG)).to.deep.equal([`${DS('m.a')} globalTags`])
      store = await h.reopen()
      expect(await refs(TAG)).to.deep.equal([`${DS('m.a')} globalTags`])
      expect(await refs(OWNER)).to.deep.equal([`${DS('m.b')} ownership`])
      expect(await refs('urn:li:tag:n39')).to.deep.equal([`${DS('m.a')} globalTags`])
      expect(await refs('urn:li:tag:n38')).to.deep.equal([])
    })

    it('finds names by the words they are made of: camelCase, digits, _ . - /, the last word as a prefix, exact names first', async () => {
      const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)'
      const TOPIC = 'urn:li:dataset:(urn:li:dataPlatform:kafka,kafka,PROD)'
      const ORDERS = 'urn:li:dataset:(urn:li:dataPlatform:hive,sales/orders-2024.v2_daily,PROD)'
      await store.write([
        up(KAFKA, 'datasetProperties', {name: 'SampleKafkaDataset', description: 'Events about each customer', customProperties: {}, tags: []}),
        up(TOPIC, 'datasetProperties', {name: 'kafka', description: 'mentions SampleKafkaDataset', customProperties: {}, tags: []}),
        up(ORDERS, 'status', {removed: false}),
      ])
      const q = async (query: string) => (await store.search({types: ['dataset'], query})).hits.map((h) => h.urn)
      for (const query of ['SampleKafkaDataset', 'sample', 'Sample', 'SampleKafka', 'Kafka Dataset', 'kafka', 'Customer', 'SampleKaf', 'samplekafkadataset']) {
        expect(await q(query), query).to.include(KAFKA)
      }
      // An exact name ranks first.
      expect((await q('kafka'))[0]).to.equal(TOPIC)
      expect((await q('SampleKafkaDataset'))[0]).to.equal(KAFKA)
      // Urn parts and delimiters.
      for (const query of ['orders', '2024', 'daily', 'sales orders', 'orders2024', 'hive', 'v2']) expect(await q(query), query).to.include(ORDERS)
      expect(await q('SampleKafkaDatasetX')).to.deep.equal([])
    })

    it('ranks exact names first, then a word in the name above one only in the text, then the older entity', async () => {
      await store.write([up(DS('rk.one'), 'datasetProperties', {name: 'alpha', description: 'zeta mentioned here'})])
      await store.write([up(DS('rk.two'), 'datasetProperties', {name: 'zeta orders', description: 'other'})])
      await store.write([up(DS('rk.three'), 'datasetProperties', {name: 'Zeta', description: 'other'})])
      await store.write([up(DS('rk.four'), 'datasetProperties', {name: 'beta', description: 'zeta again'})])
      const q = async (query: string) => (await store.search({types: ['dataset'], query})).hits.map((h) => h.urn)
      expect(await q('zeta')).to.deep.equal([DS('rk.three'), DS('rk.two'), DS('rk.one'), DS('rk.four')])
      expect(await q('ZETA')).to.deep.equal([DS('rk.three'), DS('rk.two'), DS('rk.one'), DS('rk.four')])
      // Pages of a ranked result follow that order.
      const page = await store.search({types: ['dataset'], query: 'zeta', start: 1, count: 2})
      expect(page.total).to.equal(4)
      expect(page.hits.map((h) => h.urn)).to.deep.equal([DS('rk.two'), DS('rk.one')])
      expect((await store.search({types: ['dataset'], query: 'zeta', start: 10, count: 2})).hits).to.deep.equal([])
    })

    it('matches a known word whole and other words by their parts; only the last word as a prefix, from three letters', async () => {
      await store.write([
        up(DS('kw.one'), 'datasetProperties', {name: 'w1a', description: 'first'}),
        up(DS('kw.two'), 'datasetProperties', {name: 'w 1 a', description: 'second'}),
        up(DS('kw.three'), 'datasetProperties', {name: 'kafkaesque', description: 'third'}),
      ])
      const q = async (query: string) => (await store.search({types: ['dataset'], query})).hits.map((h) => h.urn).sort()
      // `w1a` is a word of the catalog: it is not split into w, 1, a (which kw.two holds apart).
      expect(await q('w1a')).to.deep.equal([DS('kw.one')])
      expect(await q('W1A')).to.deep.equal([DS('kw.one')])
      // `w1` is not: its parts must all match, which both names hold.
      expect(await q('w1 a')).to.deep.equal([DS('kw.one'), DS('kw.two')].sort())
      expect(await q('kafkaes')).to.deep.equal([DS('kw.three')])
      expect(await q('kw kafkaes')).to.deep.equal([DS('kw.three')])
      expect(await q('kafkaes kw')).to.deep.equal([])
      expect(await q('ka')).to.deep.equal([])
      expect(await q('-- .')).to.deep.equal([])
    })

    describe('filters and facets', () => {
      const F1 = 'urn:li:dataset:(urn:li:dataPlatform:hive,fx.orders,PROD)'
      const F2 = 'urn:li:dataset:(urn:li:dataPlatform:hive,fx.refunds,PROD)'
      const F3 = 'urn:li:dataset:(urn:li:dataPlatform:kafka,fx.clicks,DEV)'
      const F4 = 'urn:li:dataset:(urn:li:dataPlatform:snowflake,fx.gone,PROD)'
      const CH = 'urn:li:chart:(looker,fx-orders-chart)'
      const C1 = 'urn:li:container:fx-c1'
      const tags = (...t: string[]) => ({tags: t.map((x) => ({tag: `urn:li:tag:${x}`}))})
      const owners = (...o: string[]) => ({owners: o.map((x) => ({owner: `urn:li:corpuser:${x}`, type: 'DATAOWNER'}))})
      const P = (p: string) => `urn:li:dataPlatform:${p}`
      beforeEach(async () => {
        await store.write([
          up(F1, 'datasetProperties', {name: 'fx_orders', description: 'daily orders'}),
          up(F1, 'globalTags', tags('pii', 'gold')),
          up(F1, 'ownership', owners('alice')),
          up(F1, 'container', {container: C1}),
          up(F1, 'subTypes', {typeNames: ['Table']}),
          up(F2, 'datasetProperties', {name: 'fx_refunds', description: 'orders refunded'}),
          up(F2, 'globalTags', tags('pii')),
          up(F2, 'ownership', owners('bob')),
          up(F2, 'subTypes', {typeNames: ['View']}),
          up(F3, 'datasetProperties', {name: 'fx_clicks', description: 'click orders stream'}),
          up(F3, 'ownership', owners('alice', 'bob')),
          up(F3, 'container', {container: C1}),
          up(F3, 'subTypes', {typeNames: ['Topic']}),
          up(F4, 'datasetProperties', {name: 'fx_gone', description: 'orders'}),
          up(F4, 'globalTags', tags('pii')),
          up(F4, 'status', {removed: true}),
          up(CH, 'chartInfo', {title: 'Orders chart', description: 'orders by day'}),
        ])
      })

      it('counts facets over every match, most frequent first then by value, whatever the page', async () => {
        const facets = ['_entityType', 'platform', 'origin', 'tags', 'owners', 'domains', 'container', 'typeNames'] as const
        const r = await store.search({query: 'orders', facets: [...facets], count: 1})
        expect(r.total).to.equal(4)
        expect(r.hits).to.have.length(1)
        expect(r.facets).to.deep.equal({
          _entityType: [{value: 'dataset', count: 3}, {value: 'chart', count: 1}],
          platform: [{value: P('hive'), count: 2}, {value: P('kafka'), count: 1}, {value: P('looker'), count: 1}],
          origin: [{value: 'PROD', count: 2}, {value: 'DEV', count: 1}],
          tags: [{value: 'urn:li:tag:pii', count: 2}, {value: 'urn:li:tag:gold', count: 1}],
          owners: [{value: 'urn:li:corpuser:alice', count: 2}, {value: 'urn:li:corpuser:bob', count: 2}],
          domains: [],
          container: [{value: C1, count: 2}],
          typeNames: [{value: 'Table', count: 1}, {value: 'Topic', count: 1}, {value: 'View', count: 1}],
        })
        const soft = await store.search({types: ['dataset'], query: '*', facets: ['tags', 'platform'], includeSoftDeleted: true, count: 0})
        expect(soft.total).to.equal(4)
        expect(soft.hits).to.deep.equal([])
        expect(soft.facets!.tags).to.deep.equal([{value: 'urn:li:tag:pii', count: 3}, {value: 'urn:li:tag:gold', count: 1}])
        expect(soft.facets!.platform).to.deep.equal([{value: P('hive'), count: 2}, {value: P('kafka'), count: 1}, {value: P('snowflake'), count: 1}])
        const none = await store.search({query: 'nothingmatches', facets: ['tags']})
        expect(none).to.deep.include({total: 0, hits: []})
        expect(none.facets).to.deep.equal({tags: []})
      })

      it('filters by an OR of AND groups, negated too, by urn, removed and type, on fields a document may lack', async () => {
        const q = async (filters: Parameters<SearchableStore['search']>[0]['filters'], extra: Partial<Parameters<SearchableStore['search']>[0]> = {}) =>
          (await store.search({types: ['dataset'], query: 'orders', filters, ...extra})).hits.map((h) => h.urn).sort()
        expect(await q([[{field: 'tags', values: ['urn:li:tag:pii']}]])).to.deep.equal([F1, F2].sort())
        expect(await q([[{field: 'tags', values: ['urn:li:tag:pii'], negated: true}]])).to.deep.equal([F3])
        // F2 has no container: a negated filter keeps it.
        expect(await q([[{field: 'container', values: [C1], negated: true}]])).to.deep.equal([F2])
        expect(await q([[{field: 'platform', values: [P('kafka')]}], [{field: 'owners', values: ['urn:li:corpuser:bob']}, {field: 'tags', values: ['urn:li:tag:pii']}]])).to.deep.equal([F2, F3].sort())
        expect(await q([[{field: 'origin', values: ['DEV'], negated: true}, {field: 'typeNames', values: ['View'], negated: true}]])).to.deep.equal([F1])
        expect(await q([[{field: 'owners', values: ['urn:li:corpuser:alice', 'urn:li:corpuser:carol']}]])).to.deep.equal([F1, F3].sort())
        expect(await q([[{field: 'urn', values: [F1, F4]}]])).to.deep.equal([F1])
        expect(await q([[{field: 'urn', values: [F1, F4]}]], {includeSoftDeleted: true})).to.deep.equal([F1, F4].sort())
        expect(await q([[{field: 'removed', values: ['true']}]], {includeSoftDeleted: true})).to.deep.equal([F4])
        expect(await q([[{field: 'removed', values: ['true']}]])).to.deep.equal([])
        expect(await q([[]])).to.deep.equal([F1, F2, F3].sort())
        expect(await q([[{field: 'tags', values: ['urn:li:tag:nosuch']}]])).to.deep.equal([])
        const across = await store.search({query: '*', filters: [[{field: '_entityType', values: ['chart']}]], facets: ['_entityType']})
        expect(across.hits.map((h) => h.urn)).to.deep.equal([CH])
        expect(across.facets!._entityType).to.deep.equal([{value: 'chart', count: 1}])
      })

      it('walks matches with a cursor: the total of all matches on every page, the same facets, null after the last', async () => {
        const whole = await store.search({query: 'orders', facets: ['tags', '_entityType']})
        const seen: string[] = []
        let after: string | null = null
        let pages = 0
        do {
          const r: Awaited<ReturnType<SearchableStore['search']>> = await store.search({query: 'orders', count: 3, after, facets: ['tags', '_entityType']})
          expect(r.total).to.equal(4)
          expect(r.facets).to.deep.equal(whole.facets)
          seen.push(...r.hits.map((h) => h.urn))
          after = r.next ?? null
          pages++
        } while (after !== null && pages < 10)
        expect(pages).to.equal(2)
        expect(seen.sort()).to.deep.equal([F1, F2, F3, CH].sort())
        // A page that holds the last match ends the walk.
        expect((await store.search({query: 'orders', count: 4, after: null})).next).to.equal(null)
        const listing = await store.search({types: ['dataset'], query: '*', count: 2, after: null})
        expect(listing.total).to.equal(3)
        expect(listing.next).to.be.a('string')
        const rest = await store.search({types: ['dataset'], query: '*', count: 2, after: listing.next})
        expect([...listing.hits, ...rest.hits].map((h) => h.urn).sort()).to.deep.equal([F1, F2, F3].sort())
        expect(rest.next).to.equal(null)
      })
    })

    it('applies concurrent batches completely', async () => {
      await Promise.all(Array.from({length: 40}, (_, i) => store.write([up(DS(`c${i}`), 'status', {removed: false}), up(DS('shared'), 'globalTags', {tags: [{tag: `urn:li:tag:${i}`}]})])))
      expect((await store.listUrns({entityType: 'dataset'})).total).to.equal(41)
      expect(await store.listVersions(DS('shared'), 'globalTags')).to.have.length(40)
    })

    it('reads old versions, their stamps and runs back after a reopen, and reverts to them', async () => {
      for (let i = 1; i <= 5; i++) await store.write([up(DS('old'), 'globalTags', {tags: [{tag: `urn:li:tag:t${i}`}]}, {time: i, runId: `run-${i}`, actor: `urn:li:corpuser:u${i}`})])
      store = await h.reopen()
      const vs = await store.listVersions(DS('old'), 'globalTags')
      expect(vs.map((v) => (v.value as any).tags[0].tag)).to.deep.equal(['urn:li:tag:t5', 'urn:li:tag:t1', 'urn:li:tag:t2', 'urn:li:tag:t3', 'urn:li:tag:t4'])
      const v2 = await store.getAspect(DS('old'), 'globalTags', 2)
      expect(v2!.created).to.deep.equal({time: 2, actor: 'urn:li:corpuser:u2'})
      expect(v2!.systemMetadata.runId).to.equal('run-2')
      const rows = await store.runRows('run-3')
      expect(rows.map((r) => [r.aspectName, r.version, r.created.actor])).to.deep.equal([['globalTags', 3, 'urn:li:corpuser:u3']])
      await store.write([{op: 'revert', urn: DS('old'), aspectName: 'globalTags'}])
      expect(((await store.getAspect(DS('old'), 'globalTags'))!.value as any).tags[0].tag).to.equal('urn:li:tag:t4')
      expect((await store.getAspect(DS('old'), 'globalTags'))!.created.actor).to.equal('urn:li:corpuser:u4')
      store = await h.reopen()
      expect((await store.listVersions(DS('old'), 'globalTags')).map((v) => (v.value as any).tags[0].tag)).to.deep.equal(['urn:li:tag:t4', 'urn:li:tag:t1', 'urn:li:tag:t2', 'urn:li:tag:t3'])
      expect((await store.listRuns()).map((r) => r.runId).sort()).to.deep.equal(['run-1', 'run-2', 'run-3', 'run-4'])
    })

    it('keeps everything across a reopen', async () => {
      await store.write([up(DS('p'), 'globalTags', {tags: [{tag: 'urn:li:tag:a'}]}, {time: 1}), ts(DS('p'), 'datasetProfile', 7, {rowCount: 7})])
      await store.write([up(DS('p'), 'globalTags', {tags: [{tag: 'urn:li:tag:b'}]}, {time: 2}), up(DS('gone'), 'status', {removed: false})])
      await store.write([{op: 'deleteEntity', urn: DS('gone')}])
      store = await h.reopen()
      expect((await store.listVersions(DS('p'), 'globalTags')).map((v) => (v.value as any).tags[0].tag)).to.deep.equal(['urn:li:tag:b', 'urn:li:tag:a'])
      expect(((await store.getAspect(DS('p'), 'datasetProfile'))!.value as any).rowCount).to.equal(7)
      expect(await store.exists(DS('gone'))).to.equal(false)
      expect((await store.search({types: ['dataset'], query: '*'})).hits.map((x) => x.urn)).to.deep.equal([DS('p')])
      expect((await store.listRuns()).map((r) => r.runId).sort()).to.deep.equal(['run-a', 'run-ts'])
    })
  })
}
