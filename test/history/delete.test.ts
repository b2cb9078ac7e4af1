import {expect} from 'chai'
import {encodeUrnPath} from '../../src/model/urn.js'
import {cleanup, http, startLite, type LiteProcess} from '../helpers/lite.js'
import {AUDIT, CHANGE_AUDIT, dataset, mdcli, propose, proposeAll, readEntity, schemaMetadata, searchUrns, snapshot} from './helpers.js'

const SUMMARY = /^(Hard|Soft) deleted (\d+) entit(?:y|ies) \(impacts (\d+) versioned rows? and (\d+) timeseries aspect rows?\) in [\d.]+ seconds?\.$/m

function summaryOf(stdout: string): {kind: string; entities: number; rows: number; timeseries: number} {
  const m = SUMMARY.exec(stdout)
  expect(m, stdout).to.not.equal(null)
  return {kind: m![1]!, entities: Number(m![2]), rows: Number(m![3]), timeseries: Number(m![4])}
}

/** The test server's search window: DELETE_BATCH (the CLI's page and batch) is 1000 too. */
const WINDOW = 1000

describe('delete', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  const C = 'urn:li:container:del-warehouse'
  const A = dataset('delhive', 'db.a')
  const B = dataset('delhive', 'db.b')
  const CHART = 'urn:li:chart:(looker,orders_chart)'

  before(async () => {
    // DataHub's search window in miniature (its default is 10,000), so that walking past it takes
    // a thousand entities rather than ten thousand.
    lite = await startLite({args: ['--max-result-window', String(WINDOW)]})
    await proposeAll(lite, [
      [C, 'containerProperties', {name: 'warehouse'}],
      [A, 'container', {container: C}],
      [A, 'schemaMetadata', schemaMetadata('a', [{path: 'id', type: 'int'}])],
      [A, 'globalTags', {tags: [{tag: 'urn:li:tag:Legacy'}]}],
      [A, 'datasetProfile', {timestampMillis: 1700000000000, rowCount: 10}],
      [B, 'container', {container: C}],
      [B, 'upstreamLineage', {upstreams: [{dataset: A, type: 'TRANSFORMED', auditStamp: AUDIT}]}],
      [CHART, 'chartInfo', {title: 'Orders', description: '', lastModified: CHANGE_AUDIT, inputs: [A]}],
    ])
    // A second version, so that history is part of what a hard delete removes.
    await propose(lite, A, 'globalTags', {tags: [{tag: 'urn:li:tag:Legacy'}, {tag: 'urn:li:tag:PII'}]})
  })

  after(async () => {
    await lite?.stop()
    if (lite) cleanup(lite.storeDir, lite.home)
  })

  it('hard-deletes by urn with --hard: every version and timeseries row, out of search, references reported', async () => {
    expect(await searchUrns(lite, 'dataset', '*', [{field: 'platform', value: 'delhive'}])).to.include(A)
    expect((await http(`${lite.url}/aspects/${encodeUrnPath(A)}?aspect=datasetProfile`)).status).to.equal(200)

    const r = await mdcli(lite, ['delete', '--urn', A, '--hard', '--force'])
    expect(r.code, r.stderr).to.equal(0)
    // datasetKey, container, schemaMetadata and two versions of globalTags.
    expect(summaryOf(r.stdout)).to.deep.equal({kind: 'Hard', entities: 1, rows: 5, timeseries: 1})
    expect(r.stdout).to.contain('2 aspect(s) of 2 other entities still refer to the deleted urns')
    expect(r.stdout).to.contain(`${B} upstreamLineage (DownstreamOf) -> ${A}`)
    expect(r.stdout).to.contain(`${CHART} chartInfo (Consumes) -> ${A}`)

    expect(await readEntity(lite, A)).to.equal(null)
    expect((await http(`${lite.url}/aspects/${encodeUrnPath(A)}?aspect=datasetProfile`)).status).to.equal(404)
    expect((await http(`${lite.url}/aspects/${encodeUrnPath(A)}?aspect=globalTags&version=1`)).status).to.equal(404)
    const ts = await http(`${lite.url}/aspects?action=getTimeseriesAspectValues`, {body: {urn: A, entity: 'dataset', aspect: 'datasetProfile', limit: 100}})
    expect(ts.body.value.values).to.deep.equal([])
    const found = await http(`${lite.url}/entities?action=search`, {body: {entity: 'dataset', input: '*', includeSoftDeleted: true, filter: {or: [{and: [{field: 'platform', value: 'delhive'}]}]}}})
    expect(found.body.value.entities.map((e: any) => e.entity)).to.not.include(A)
    // Never cascades, never rewrites: the referencing entities are as they were.
    expect((await readEntity(lite, B)).aspects.upstreamLineage.value.upstreams[0].dataset).to.equal(A)
    expect(await readEntity(lite, CHART)).to.not.equal(null)
  })

  it('a hard-deleted tag (or user, group, domain, term) is also taken out of what referred to it, as DataHub\'s CLI does', async () => {
    const T = 'urn:li:tag:del-doomed'
    const D = dataset('delhive', 'db.tagged')
    await proposeAll(lite, [
      [T, 'tagProperties', {name: 'doomed'}],
      [D, 'globalTags', {tags: [{tag: T}, {tag: 'urn:li:tag:stays'}]}],
    ])
    const r = await mdcli(lite, ['delete', '--urn', T, '--hard', '--force'])
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stdout).to.match(/Hard deleted 1 entity \(impacts \d+ versioned rows? and 0 timeseries aspect rows\) and cleaned up 1 referenced entity in /)
    expect(r.stdout).not.to.contain('still refer')
    expect((await readEntity(lite, D)).aspects.globalTags.value.tags).to.deep.equal([{tag: 'urn:li:tag:stays'}])
  })

  it('soft-deletes with --soft: status removed under the delete run id, data kept, hidden from search', async () => {
    const E = dataset('delhive', 'db.e')
    await propose(lite, E, 'datasetProperties', {description: 'to be hidden'})
    const r = await mdcli(lite, ['delete', '--urn', E, '--soft', '-f'])
    expect(r.code, r.stderr).to.equal(0)
    expect(summaryOf(r.stdout)).to.deep.equal({kind: 'Soft', entities: 1, rows: 1, timeseries: 0})
    const e = await readEntity(lite, E)
    expect(e.aspects.status.value).to.deep.equal({removed: true})
    expect(e.aspects.status.systemMetadata.runId).to.equal('__mdcli-delete-cli')
    expect(e.aspects.datasetProperties.value.description).to.equal('to be hidden')
    expect(await searchUrns(lite, 'dataset', '*', [{field: 'platform', value: 'delhive'}])).to.not.include(E)
  })

  it("is soft by default, as DataHub's delete is: the data stays and can come back", async () => {
    const S = dataset('delhive', 'db.default_soft')
    await propose(lite, S, 'datasetProperties', {name: 'default_soft'})
    const r = await mdcli(lite, ['delete', '--urn', S, '--force'])
    expect(r.code, r.stderr).to.equal(0)
    expect(summaryOf(r.stdout)).to.include({kind: 'Soft', entities: 1})
    const e = await readEntity(lite, S)
    expect(e.aspects.status.value.removed).to.equal(true)
    expect(e.aspects.datasetProperties.value.name).to.equal('default_soft')
    const both = await mdcli(lite, ['delete', '--urn', S, '--soft', '--hard', '-f'])
    expect(both.code).to.equal(2)
  })

  it('-a/--aspect with --hard deletes only the timeseries rows in the window', async () => {
    const T = dataset('delhive', 'db.profiled')
    for (const [ts, rows] of [[1704067200000, 1], [1706745600000, 2], [1709251200000, 3]] as const) await propose(lite, T, 'datasetProfile', {timestampMillis: ts, rowCount: rows})
    await propose(lite, T, 'datasetProperties', {name: 'profiled'})
    const soft = await mdcli(lite, ['delete', '--urn', T, '-a', 'datasetProfile', '--start-time', '2024-01-01', '--end-time', '2024-02-15', '-f'])
    expect(soft.code).to.equal(1)
    expect(soft.stderr).to.contain('You cannot provide an aspect name when performing a soft delete. Use --hard to perform a hard delete.')
    const noEnd = await mdcli(lite, ['delete', '--urn', T, '--hard', '-a', 'datasetProfile', '--start-time', '2024-01-01', '-f'])
    expect(noEnd.stderr).to.contain('You must provide both --start-time and --end-time')
    const versioned = await mdcli(lite, ['delete', '--urn', T, '--hard', '-a', 'datasetProperties', '--start-time', '2024-01-01', '--end-time', '2024-02-15', '-f'])
    expect(versioned.code).to.equal(1)
    expect(versioned.stderr).to.contain('Aspect-specific deletion is only supported for timeseries aspects')
    const r = await mdcli(lite, ['delete', '--urn', T, '--hard', '-a', 'datasetProfile', '--start-time', '2024-01-01', '--end-time', '2024-02-15', '-f', '--json'])
    expect(r.code, r.stderr).to.equal(0)
    expect(JSON.parse(r.stdout)).to.include({entities: 1, timeseriesRows: 2})
    const left = await http(`${lite.url}/aspects?action=getTimeseriesAspectValues`, {body: {urn: T, aspect: 'datasetProfile', limit: 10}})
    expect(left.body.value.values.map((v: any) => JSON.parse(v.aspect.value).rowCount)).to.deep.equal([3])
    expect((await readEntity(lite, T)).aspects.datasetProperties.value.name).to.equal('profiled')
  })

  it('--urn-file reads urns a line each; --only-soft-deleted hard-deletes only the hidden ones', async () => {
    const {writeFileSync, mkdtempSync} = await import('node:fs')
    const {join} = await import('node:path')
    const {tmpdir} = await import('node:os')
    const U1 = dataset('delfile', 'a')
    const U2 = dataset('delfile', 'b')
    const U3 = dataset('delfile', 'c')
    for (const u of [U1, U2, U3]) await propose(lite, u, 'datasetProperties', {name: u})
    const dir = mkdtempSync(join(tmpdir(), 'mdcli-urnfile-'))
    try {
      const file = join(dir, 'urns.txt')
      writeFileSync(file, `# stale tables\n${U1}\n\n${U2}\n`)
      const r = await mdcli(lite, ['delete', '--urn-file', file, '-f'])
      expect(r.code, r.stderr).to.equal(0)
      expect(summaryOf(r.stdout)).to.include({kind: 'Soft', entities: 2})
      writeFileSync(join(dir, 'bad.txt'), `${U1}\nnot-an-urn\n`)
      const bad = await mdcli(lite, ['delete', '--urn-file', join(dir, 'bad.txt'), '-f'])
      expect(bad.code).to.equal(1)
      expect(bad.stderr).to.contain('bad.txt:2:')

      const hard = await mdcli(lite, ['delete', '--platform', 'delfile', '--hard', '--only-soft-deleted', '-f', '--json'])
      expect(hard.code, hard.stderr).to.equal(0)
      expect(JSON.parse(hard.stdout).deleted).to.have.members([U1, U2])
      expect((await http(`${lite.url}/entitiesV2/${encodeUrnPath(U1)}?alwaysIncludeKeyAspect=false`)).status).to.equal(404)
      expect((await readEntity(lite, U3)).aspects.datasetProperties.value.name).to.equal(U3)
      const only = await mdcli(lite, ['delete', '--platform', 'delfile', '--only-soft-deleted', '-f'])
      expect(only.stderr).to.contain('You cannot provide --only-soft-deleted when performing a soft delete')
      // With an urn it would be ignored and a live entity deleted: refused, the entity kept.
      const live = await mdcli(lite, ['delete', '--urn', U3, '--hard', '--only-soft-deleted', '-f'])
      expect(live.code).to.equal(1)
      expect(live.stderr).to.contain('--only-soft-deleted narrows a filter')
      expect(await readEntity(lite, U3)).to.not.equal(null)
    } finally {
      cleanup(dir)
    }
  })

  it('by entity type: every container goes, the datasets in them stay', async () => {
    const C2 = 'urn:li:container:del-lake'
    const L = dataset('dellake', 'raw.events')
    await proposeAll(lite, [
      [C2, 'containerProperties', {name: 'lake'}],
      [L, 'container', {container: C2}],
    ])
    const r = await mdcli(lite, ['delete', '--entity-type', 'container', '--hard', '-f'])
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stdout).to.contain('Found 2 container urn(s).')
    expect(summaryOf(r.stdout)).to.include({kind: 'Hard', entities: 2})
    expect(r.stdout).to.contain(`${L} container (IsPartOf) -> ${C2}`)
    expect(await readEntity(lite, C)).to.equal(null)
    expect(await readEntity(lite, C2)).to.equal(null)
    expect((await readEntity(lite, B)).aspects.container.value.container).to.equal(C)
    expect((await readEntity(lite, L)).aspects.container.value.container).to.equal(C2)
  })

  it('by platform, by environment and by query, each touching only what matches', async () => {
    const K1 = dataset('delkafka', 'clicks')
    const K2 = dataset('delkafka', 'views')
    const U1 = dataset('deluat', 'a', 'UAT')
    const U2 = dataset('deluat2', 'b', 'UAT')
    const U3 = dataset('deluat', 'c', 'PROD')
    const Q1 = dataset('delquery', 'x')
    const Q2 = dataset('delquery', 'y')
    await proposeAll(lite, [
      [K1, 'status', {removed: false}],
      [K2, 'status', {removed: false}],
      [U1, 'status', {removed: false}],
      [U2, 'status', {removed: false}],
      [U3, 'status', {removed: false}],
      [Q1, 'datasetProperties', {description: 'zyxclickstream sessions'}],
      [Q2, 'datasetProperties', {description: 'orders'}],
    ])
    const byPlatform = await mdcli(lite, ['delete', '--platform', 'delkafka', '--hard', '-f', '--json'])
    expect(byPlatform.code, byPlatform.stderr).to.equal(0)
    const out = JSON.parse(byPlatform.stdout)
    expect(out).to.include({soft: false, dryRun: false, matched: 2, entities: 2})
    expect(out.deleted).to.have.members([K1, K2])

    const byEnv = await mdcli(lite, ['delete', '--env', 'uat', '--hard', '-f'])
    expect(byEnv.code, byEnv.stderr).to.equal(0)
    expect(byEnv.stderr).to.contain('Using --env without other filters will delete all metadata in the UAT environment')
    expect(summaryOf(byEnv.stdout)).to.include({entities: 2})

    const byQuery = await mdcli(lite, ['delete', '--query', 'zyxclickstream', '--hard', '-f'])
    expect(byQuery.code, byQuery.stderr).to.equal(0)
    expect(byQuery.stderr).to.contain('Using --query is an advanced feature')
    expect(summaryOf(byQuery.stdout)).to.include({entities: 1})

    const gone = await snapshot(lite, [K1, K2, U1, U2, Q1])
    expect(Object.values(gone)).to.deep.equal([null, null, null, null, null])
    expect(await readEntity(lite, U3)).to.not.equal(null)
    expect(await readEntity(lite, Q2)).to.not.equal(null)

    const none = await mdcli(lite, ['delete', '--platform', 'delkafka', '--hard', '-f'])
    expect(none.code).to.equal(0)
    expect(none.stdout).to.contain('Found no urns to delete.')
  })

  it('--dry-run lists what would go and writes nothing', async () => {
    const F1 = dataset('deldry', 'one')
    const F2 = dataset('deldry', 'two')
    await proposeAll(lite, [
      [F1, 'status', {removed: false}],
      [F1, 'datasetProfile', {timestampMillis: 1700000000000, rowCount: 1}],
      [F2, 'status', {removed: false}],
      [B, 'upstreamLineage', {upstreams: [{dataset: F1, type: 'COPY', auditStamp: AUDIT}]}],
    ])
    const before = await snapshot(lite, [F1, F2, B])
    const r = await mdcli(lite, ['delete', '--platform', 'deldry', '--hard', '--dry-run'])
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stdout).to.contain(`  ${F1}\n`)
    expect(r.stdout).to.contain(`  ${F2}\n`)
    expect(r.stdout).to.contain('[Dry-run] Would delete 2 entities (impacts 4 versioned rows and 1 timeseries aspect row).')
    expect(r.stdout).to.contain(`${B} upstreamLineage (DownstreamOf) -> ${F1}`)
    const soft = await mdcli(lite, ['delete', '--urn', F1, '--soft', '-n', '--json'])
    expect(JSON.parse(soft.stdout)).to.include({soft: true, dryRun: true, entities: 1})
    expect(await snapshot(lite, [F1, F2, B])).to.deep.equal(before)
  })

  it('refuses contradictory or missing targets, unknown types, and deleting without confirmation — changing nothing', async () => {
    const G = dataset('delguard', 'keep')
    await propose(lite, G, 'status', {removed: false})
    const before = await snapshot(lite, [G])
    const both = await mdcli(lite, ['delete', '--urn', G, '--platform', 'delguard'])
    expect(both.code).to.equal(1)
    expect(both.stderr).to.contain('You cannot provide both an urn and a filter rule')
    const neither = await mdcli(lite, ['delete', '--force'])
    expect(neither.code).to.equal(1)
    expect(neither.stderr).to.contain('You must provide either an urn or at least one filter')
    const badType = await mdcli(lite, ['delete', '--entity-type', 'datset', '-f'])
    expect(badType.code).to.equal(1)
    expect(badType.stderr).to.contain("Unknown entity type 'datset'. Did you mean 'dataset'?")
    const badEnv = await mdcli(lite, ['delete', '--env', 'moon', '-f'])
    expect(badEnv.code).to.equal(1)
    const noTty = await mdcli(lite, ['delete', '--urn', G, '--hard'])
    expect(noTty.code).to.equal(1)
    expect(noTty.stderr).to.contain('standard input is not a terminal')
    expect(noTty.stderr).to.contain('--force')
    const noTtyFilter = await mdcli(lite, ['delete', '--platform', 'delguard', '--soft'])
    expect(noTtyFilter.code).to.equal(1)
    expect(noTtyFilter.stdout).to.contain('Found 1 dataset urn(s).')
    expect(await snapshot(lite, [G])).to.deep.equal(before)
  })

  it('serves DataHub’s delete, deleteReferences and search actions', async () => {
    const T = 'urn:li:tag:del-obsolete'
    const H = dataset('delrest', 'h')
    await proposeAll(lite, [
      [T, 'tagProperties', {name: 'obsolete'}],
      [H, 'globalTags', {tags: [{tag: T}, {tag: 'urn:li:tag:Keep'}]}],
    ])
    const dry = await http(`${lite.url}/entities?action=delete`, {body: {urn: T, dryRun: true}})
    expect(dry.status).to.equal(200)
    expect(dry.body.value).to.include({urn: T, entities: 1, rows: 2, timeseriesRows: 0, dryRun: true})
    expect(dry.body.value.references).to.include({checked: true, total: 1})

    const refs = await http(`${lite.url}/entities?action=deleteReferences`, {body: {urn: T, dryRun: true}})
    expect(refs.body.value).to.deep.equal({total: 1, relatedAspects: [{relationship: 'TaggedWith', entity: H, aspect: 'globalTags', urn: T}]})
    const cleaned = await http(`${lite.url}/entities?action=deleteReferences`, {body: {urn: T, dryRun: false}})
    expect(cleaned.status).to.equal(200)
    expect((await readEntity(lite, H)).aspects.globalTags.value).to.deep.equal({tags: [{tag: 'urn:li:tag:Keep'}]})

    const del = await http(`${lite.url}/entities?action=delete`, {body: {urn: T}})
    expect(del.body.value).to.include({urn: T, entities: 1, rows: 2})
    expect(await readEntity(lite, T)).to.equal(null)

    const unknown = await http(`${lite.url}/entities?action=nuke`, {body: {}})
    expect(unknown.status).to.equal(400)
    expect(unknown.body.message).to.contain('delete, deleteReferences, search')
    const aspect = await http(`${lite.url}/entities?action=delete`, {body: {urn: H, aspectName: 'globalTags'}})
    expect(aspect.status).to.equal(400)
  })

  it('deleteReferences of a user leaves the aspects whose stamps name them: only the user’s place in an owner list goes', async () => {
    const bob = 'urn:li:corpuser:del-bob'
    const alice = 'urn:li:corpuser:del-alice'
    const D = dataset('delstamp', 'orders')
    const SRC = dataset('delstamp', 'src')
    const stamp = {time: 1, actor: bob}
    await proposeAll(lite, [
      [D, 'ownership', {owners: [{owner: alice, type: 'DATAOWNER'}, {owner: bob, type: 'DATAOWNER'}], lastModified: stamp}],
      [D, 'upstreamLineage', {upstreams: [{dataset: SRC, type: 'TRANSFORMED', auditStamp: stamp}]}],
      [D, 'schemaMetadata', {...schemaMetadata('orders', [{path: 'id', type: 'int'}]), created: stamp, lastModified: stamp}],
    ])
    const dry = await http(`${lite.url}/entities?action=deleteReferences`, {body: {urn: bob, dryRun: true}})
    expect(dry.body.value).to.deep.equal({total: 1, relatedAspects: [{relationship: 'OwnedBy', entity: D, aspect: 'ownership', urn: bob}]})
    const done = await http(`${lite.url}/entities?action=deleteReferences`, {body: {urn: bob, dryRun: false}})
    expect(done.status, JSON.stringify(done.body)).to.equal(200)
    const e = await readEntity(lite, D)
    expect(e.aspects.ownership.value).to.deep.equal({owners: [{owner: alice, type: 'DATAOWNER'}], lastModified: stamp})
    expect(e.aspects.upstreamLineage.value.upstreams).to.deep.equal([{dataset: SRC, type: 'TRANSFORMED', auditStamp: stamp}])
    expect(e.aspects.schemaMetadata.value.fields).to.have.length(1)
  })

  it('a hard delete of a tag nobody made still takes it off what carries it', async () => {
    const ghost = 'urn:li:tag:del-ghost'
    const D = dataset('delghost', 'a')
    await proposeAll(lite, [[D, 'globalTags', {tags: [{tag: ghost}, {tag: 'urn:li:tag:Keep'}]}]])
    const r = await mdcli(lite, ['delete', '--urn', ghost, '--hard', '--force', '--json'])
    expect(r.code, r.stderr).to.equal(0)
    expect(JSON.parse(r.stdout)).to.include({entities: 0, cleanedUp: 1})
    expect((await readEntity(lite, D)).aspects.globalTags.value).to.deep.equal({tags: [{tag: 'urn:li:tag:Keep'}]})
  })

  it('hard-deleting a glossary node keeps its terms: only their parentNode goes; a container reference takes its aspect with it', async () => {
    const node = 'urn:li:glossaryNode:del-finance'
    const term = 'urn:li:glossaryTerm:del-revenue'
    const C = 'urn:li:container:del-box'
    const inBox = dataset('delnode', 'boxed')
    await proposeAll(lite, [
      [node, 'glossaryNodeInfo', {definition: 'money', name: 'Finance'}],
      [term, 'glossaryTermInfo', {name: 'Revenue', definition: 'what comes in', termSource: 'INTERNAL', parentNode: node}],
      [C, 'containerProperties', {name: 'box'}],
      [inBox, 'container', {container: C}],
    ])
    const r = await mdcli(lite, ['delete', '--urn', node, '--hard', '--force'])
    expect(r.code, r.stderr).to.equal(0)
    expect((await readEntity(lite, term)).aspects.glossaryTermInfo.value).to.deep.equal({name: 'Revenue', definition: 'what comes in', termSource: 'INTERNAL'})
    const refs = await http(`${lite.url}/entities?action=deleteReferences`, {body: {urn: C, dryRun: false}})
    expect(refs.body.value.total).to.equal(1)
    expect((await readEntity(lite, inBox)).aspects).to.not.have.property('container')
  })

  it('walks past the search window when deleting by filter', async function () {
    // More entities than the window holds (and than one page and one delete batch of the CLI):
    // the walk crosses pages with the cursor, and the last page and batch are partial.
    this.timeout(420_000)
    const n = WINDOW + 50
    const items: Array<[string, string, unknown]> = []
    for (let i = 0; i < n; i++) items.push([dataset('delbulk', `t${i}`), 'status', {removed: false}])
    await proposeAll(lite, items)
    const window = await http(`${lite.url}/entities?action=search`, {body: {entity: 'dataset', input: '*', start: WINDOW - 10, count: 20}})
    expect(window.status).to.equal(400)
    expect(window.body.message).to.contain("'after' cursor")
    expect((await http(`${lite.url}/entities?action=search`, {body: {entity: 'dataset', input: '*', start: WINDOW - 20, count: 20}})).status).to.equal(200)

    const r = await mdcli(lite, ['delete', '--platform', 'delbulk', '--hard', '-f', '--json'], {timeoutMs: 300_000})
    expect(r.code, r.stderr).to.equal(0)
    const out = JSON.parse(r.stdout)
    expect(out).to.include({matched: n, entities: n, rows: 2 * n})
    // References are checked however many entities go: one pass over the store per batch.
    expect(out.references).to.include({checked: true, total: 0})
    const left = await http(`${lite.url}/entities?action=search`, {body: {entity: 'dataset', input: '*', count: 0, includeSoftDeleted: true, filter: {or: [{and: [{field: 'platform', value: 'delbulk'}]}]}}})
    expect(left.body.value.numEntities).to.equal(0)
  })
})
