import {expect} from 'chai'
import {encodeUrnPath} from '../../src/model/urn.js'
import {cleanup, http, runCli, startLite, type LiteProcess} from '../helpers/lite.js'
import {skipWithReason} from '../helpers/requires.js'
import {AUDIT, CHANGE_AUDIT, dataset, mdcli, propose, proposeAll, readEntity, schemaMetadata, searchUrns, snapshot} from './helpers.js'

const INSTANCE_URN = (p: string, i: string) => `urn:li:dataPlatformInstance:(urn:li:dataPlatform:${p},${i})`

/** Aspect values only (no envelopes): what "the same state" means across a migration and its rollback. */
async function values(lite: LiteProcess, urns: string[]): Promise<Record<string, Record<string, unknown> | null>> {
  const out: Record<string, Record<string, unknown> | null> = {}
  for (const u of urns) {
    const e = await readEntity(lite, u)
    out[u] = e && Object.fromEntries(Object.entries(e.aspects as Record<string, {value: unknown}>).map(([k, a]) => [k, a.value]))
  }
  return out
}

function reportLines(stdout: string): string[] {
  const lines = stdout.trimEnd().split('\n')
  return lines.slice(lines.indexOf('Migration Report:'))
}

describe('migrate dataplatform2instance', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  const M1 = dataset('mighive', 'db.orders')
  const M2 = dataset('mighive', 'db.customers')
  const N1 = dataset('mighive', 'wh1.db.orders')
  const N2 = dataset('mighive', 'wh1.db.customers')
  const X = dataset('migother', 'reporting.sales')
  const CTR = 'urn:li:container:mig-warehouse'
  const CHART = 'urn:li:chart:(looker,mig_chart)'
  const DASH = 'urn:li:dashboard:(looker,mig_dash)'
  const JOB = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,prod),load_orders)'
  const field = (ds: string, f: string) => `urn:li:schemaField:(${ds},${f})`
  let original: Record<string, Record<string, unknown> | null>
  let runId = ''

  before(async () => {
    lite = await startLite()
    await proposeAll(lite, [
      [CTR, 'containerProperties', {name: 'warehouse'}],
      [M1, 'schemaMetadata', schemaMetadata('orders', [{path: 'id', type: 'int'}, {path: 'customer_id', type: 'int'}])],
      [M1, 'ownership', {owners: [{owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER'}]}],
      [M1, 'globalTags', {tags: [{tag: 'urn:li:tag:Legacy'}]}],
      [M1, 'datasetProperties', {description: 'all orders'}],
      [M1, 'container', {container: CTR}],
      [M1, 'datasetProfile', {timestampMillis: 1700000000000, rowCount: 42}],
      [
        M1,
        'upstreamLineage',
        {
          upstreams: [{dataset: M2, type: 'TRANSFORMED', auditStamp: AUDIT}],
          fineGrainedLineages: [{upstreamType: 'FIELD_SET', downstreamType: 'FIELD', upstreams: [field(M2, 'id')], downstreams: [field(M1, 'customer_id')]}],
        },
      ],
      [M2, 'datasetProperties', {description: 'customers'}],
      [X, 'upstreamLineage', {upstreams: [{dataset: M1, type: 'VIEW', auditStamp: AUDIT}]}],
      [CHART, 'chartInfo', {title: 'Orders', description: '', lastModified: CHANGE_AUDIT, inputs: [M1]}],
      [DASH, 'dashboardInfo', {title: 'Sales', description: '', lastModified: CHANGE_AUDIT, datasets: [M2]}],
      [JOB, 'dataJobInputOutput', {inputDatasets: [M1], outputDatasets: [X]}],
    ])
    await propose(lite, M1, 'globalTags', {tags: [{tag: 'urn:li:tag:Legacy'}, {tag: 'urn:li:tag:PII'}]})
    original = await values(lite, [M1, M2, X, CHART, DASH, JOB, N1, N2])
  })

  after(async () => {
    await lite?.stop()
    if (lite) cleanup(lite.storeDir, lite.home)
  })

  it('copies every versioned aspect to <instance>.<name>, rewrites references, soft-deletes the old datasets', async () => {
    const r = await mdcli(lite, ['migrate', 'dataplatform2instance', '--platform', 'mighive', '--instance', 'wh1', '-F'])
    expect(r.code, r.stderr).to.equal(0)
    expect(r.stdout.split('\n')[0]).to.equal('Starting migration: platform:mighive, instance=wh1, force=true, dry-run=false')
    const lines = reportLines(r.stdout)
    runId = /^Migration Run Id: (migrate-[0-9a-f-]{36})$/.exec(lines[2]!)![1]!
    expect(lines.slice(0, 8)).to.deep.equal([
      'Migration Report:',
      '--------------',
      `Migration Run Id: ${runId}`,
      'Num entities created = 2',
      'Num entities affected = 4',
      'Num entities migrated = 2',
      'Details:',
      `New Entities Created: ${JSON.stringify([N1, N2])}`,
    ])
    expect(lines[9]).to.equal(`Old Entities Migrated = ${JSON.stringify([M1, M2])}`)
    expect(lines).to.have.length(10)
    expect(lines[8]).to.match(/^External Entities Affected: \[.*\]$/)
    for (const u of [X, CHART, DASH, JOB]) expect(lines[8]).to.contain(JSON.stringify(u))

    const n1 = await readEntity(lite, N1)
    const old = original[M1]!
    expect(n1.aspects.datasetKey.value).to.deep.equal({platform: 'urn:li:dataPlatform:mighive', name: 'wh1.db.orders', origin: 'PROD'})
    expect(n1.aspects.dataPlatformInstance.value).to.deep.equal({platform: 'urn:li:dataPlatform:mighive', instance: INSTANCE_URN('mighive', 'wh1')})
    for (const a of ['schemaMetadata', 'ownership', 'globalTags', 'datasetProperties', 'container']) expect(n1.aspects[a].value, a).to.deep.equal(old[a])
    expect(n1.aspects.upstreamLineage.value).to.deep.equal({
      upstreams: [{dataset: N2, type: 'TRANSFORMED', auditStamp: AUDIT}],
      fineGrainedLineages: [{upstreamType: 'FIELD_SET', downstreamType: 'FIELD', upstreams: [field(N2, 'id')], downstreams: [field(N1, 'customer_id')]}],
    })
    for (const a of Object.values(n1.aspects) as any[]) expect(a.systemMetadata.runId, a.name).to.equal(runId)
    // Timeseries aspects stay behind.
    expect(n1.aspects).to.not.have.property('datasetProfile')
    expect((await http(`${lite.url}/aspects/${encodeUrnPath(N1)}?aspect=datasetProfile`)).status).to.equal(404)
    expect((await http(`${lite.url}/aspects/${encodeUrnPath(M1)}?aspect=datasetProfile`)).status).to.equal(200)

    const m1 = await readEntity(lite, M1)
    expect(m1.aspects.status.value).to.deep.equal({removed: true})
    expect(m1.aspects.status.systemMetadata.runId).to.equal(runId)
    expect(m1.aspects.schemaMetadata.value).to.deep.equal(old.schemaMetadata)

    const x = await readEntity(lite, X)
    expect(x.aspects.upstreamLineage.value.upstreams[0].dataset).to.equal(N1)
    expect(x.aspects.upstreamLineage.systemMetadata.runId).to.equal(runId)
    expect((await readEntity(lite, CHART)).aspects.chartInfo.value.inputs).to.deep.equal([N1])
    expect((await readEntity(lite, DASH)).aspects.dashboardInfo.value.datasets).to.deep.equal([N2])
    expect((await readEntity(lite, JOB)).aspects.dataJobInputOutput.value).to.deep.equal({inputDatasets: [N1], outputDatasets: [X]})

    expect((await searchUrns(lite, 'dataset', '*', [{field: 'platform', value: 'mighive'}])).sort()).to.deep.equal([N1, N2].sort())
  })

  it('does not migrate twice nor prefix twice', async () => {
    const again = await mdcli(lite, ['migrate', 'dataplatform2instance', '--platform', 'mighive', '--instance', 'wh1', '-F', '--json'])
    expect(again.code, again.stderr).to.equal(0)
    const out = JSON.parse(again.stdout)
    expect(out.counts).to.deep.equal({created: 0, affected: 0, migrated: 0})
    expect(out.skipped.sort()).to.deep.equal([N1, N2].sort())
    expect(await readEntity(lite, dataset('mighive', 'wh1.wh1.db.orders'))).to.equal(null)

    // A name that already carries the prefix but lacks the instance aspect is fixed in place.
    const P = dataset('migpre', 'wh1.db.z')
    await propose(lite, P, 'datasetProperties', {description: 'pre-named'})
    const inPlace = await mdcli(lite, ['migrate', 'dataplatform2instance', '--platform', 'migpre', '--instance', 'wh1', '-F', '--json'])
    expect(inPlace.code, inPlace.stderr).to.equal(0)
    expect(JSON.parse(inPlace.stdout).counts).to.deep.equal({created: 0, affected: 0, migrated: 1})
    expect(await readEntity(lite, dataset('migpre', 'wh1.wh1.db.z'))).to.equal(null)
    const p = await readEntity(lite, P)
    expect(p.aspects.dataPlatformInstance.value.instance).to.equal(INSTANCE_URN('migpre', 'wh1'))
    expect(p.aspects).to.not.have.property('status')
  })

  it('rollback of a migration restores the original state', async function () {
    // Needs `ingest rollback` and `POST /runs?action=rollback`, built on the ingestion branch: until
    // that is merged the endpoint answers 404 and this test is skipped (pending), not dropped.
    expect(runId, 'the migration test ran first').to.match(/^migrate-/)
    const probe = await http(`${lite.url}/runs?action=rollback`, {body: {runId, dryRun: true, safe: true}})
    if (probe.status === 404) {
      skipWithReason(this, `POST /runs?action=rollback answered 404 — ${probe.body?.message ?? 'no endpoint'}`)
    }
    const r = await mdcli(lite, ['ingest', 'rollback', '--run-id', runId, '--force'])
    expect(r.code, `${r.stdout}\n${r.stderr}`).to.equal(0)
    const after = await values(lite, [M1, M2, X, CHART, DASH, JOB])
    for (const u of [M1, M2, X, CHART, DASH, JOB]) expect(after[u], u).to.deep.equal(original[u])
    // The new entities are gone, or at least hidden as rollback's soft delete leaves them.
    for (const u of [N1, N2]) {
      const e = await readEntity(lite, u)
      if (e) expect(e.aspects.status?.value, u).to.deep.equal({removed: true})
    }
  })

  it('keeps the old datasets with --keep', async () => {
    const K = dataset('migkeep', 'events')
    const Y = dataset('migother', 'keep.consumer')
    await proposeAll(lite, [
      [K, 'datasetProperties', {description: 'events'}],
      [Y, 'upstreamLineage', {upstreams: [{dataset: K, type: 'COPY', auditStamp: AUDIT}]}],
    ])
    const r = await mdcli(lite, ['migrate', 'dataplatform2instance', '--platform', 'migkeep', '--instance', 'eu-1', '--keep', '-F'])
    expect(r.code, r.stderr).to.equal(0)
    const lines = reportLines(r.stdout)
    expect(lines).to.include('Num entities kept = 1')
    expect(lines).to.include(`Old Entities Kept = ${JSON.stringify([K])}`)
    const k = await readEntity(lite, K)
    expect(k.aspects).to.not.have.property('status')
    expect(await readEntity(lite, dataset('migkeep', 'eu-1.events'))).to.not.equal(null)
    expect((await readEntity(lite, Y)).aspects.upstreamLineage.value.upstreams[0].dataset).to.equal(dataset('migkeep', 'eu-1.events'))
  })

  it('hard-deletes the old datasets with --hard', async () => {
    const H = dataset('mighard', 'events', 'DEV')
    await proposeAll(lite, [
      [H, 'datasetProperties', {description: 'dev events'}],
      [H, 'datasetUsageStatistics', {timestampMillis: 1700000000000, uniqueUserCount: 3}],
    ])
    const r = await mdcli(lite, ['migrate', 'dataplatform2instance', '--platform', 'mighard', '--instance', 'dev_1', '--env', 'DEV', '--hard', '-F', '--json'])
    expect(r.code, r.stderr).to.equal(0)
    const out = JSON.parse(r.stdout)
    expect(out).to.include({mode: 'hard', env: 'DEV'})
    expect(out.counts).to.deep.equal({created: 1, affected: 0, migrated: 1})
    expect(await readEntity(lite, H)).to.equal(null)
    const n = await readEntity(lite, dataset('mighard', 'dev_1.events', 'DEV'))
    expect(n.aspects.datasetProperties.value).to.deep.equal({description: 'dev events'})
    expect(n.aspects).to.not.have.property('datasetUsageStatistics')
  })

  it('--dry-run reports with [Dry Run] on every line and changes nothing', async () => {
    const D1 = dataset('migdry', 'a')
    const Z = dataset('migother', 'dry.consumer')
    await proposeAll(lite, [
      [D1, 'datasetProperties', {description: 'a'}],
      [Z, 'upstreamLineage', {upstreams: [{dataset: D1, type: 'COPY', auditStamp: AUDIT}]}],
    ])
    const before = await snapshot(lite, [D1, Z, dataset('migdry', 'wh1.a')])
    const r = await mdcli(lite, ['migrate', 'dataplatform2instance', '--platform', 'migdry', '--instance', 'wh1', '-n'])
    expect(r.code, r.stderr).to.equal(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).to.equal('Starting migration: platform:migdry, instance=wh1, force=false, dry-run=true')
    for (const l of lines.slice(1)) expect(l).to.match(/^\[Dry Run\] /)
    expect(lines).to.include('[Dry Run] Num entities created = 1')
    expect(lines).to.include('[Dry Run] Num entities affected = 1')
    expect(lines).to.include(`[Dry Run] External Entities Affected: ${JSON.stringify([Z])}`)
    expect(await snapshot(lite, [D1, Z, dataset('migdry', 'wh1.a')])).to.deep.equal(before)
  })

  it('refuses a move that would merge two datasets into one, changing nothing', async () => {
    // Already named under the instance (fixed in place) and moved there: two datasets, one urn.
    const named = dataset('migclash', 'prod.payments')
    const plain = dataset('migclash', 'payments')
    // Under another instance already (so left alone), at the urn another dataset would move to.
    const other = dataset('migclash2', 'prod.refunds')
    const moving = dataset('migclash2', 'refunds')
    await proposeAll(lite, [
      [named, 'datasetProperties', {description: 'the real payments'}],
      [plain, 'datasetProperties', {description: 'another payments'}],
      [other, 'dataPlatformInstance', {platform: 'urn:li:dataPlatform:migclash2', instance: INSTANCE_URN('migclash2', 'eu')}],
      [other, 'datasetProperties', {description: 'refunds of eu'}],
      [moving, 'datasetProperties', {description: 'refunds'}],
    ])
    const watched = [named, plain, other, moving]
    const before = await snapshot(lite, watched)
    const two = await mdcli(lite, ['migrate', 'dataplatform2instance', '--platform', 'migclash', '--instance', 'prod', '--keep', '-F'])
    expect(two.code, two.stdout).to.equal(1)
    expect(two.stderr).to.contain(`would both move to ${named}`).and.contain('Nothing was changed.')
    const onto = await mdcli(lite, ['migrate', 'dataplatform2instance', '--platform', 'migclash2', '--instance', 'prod', '-F'])
    expect(onto.code, onto.stdout).to.equal(1)
    expect(onto.stderr).to.contain(`${moving} would move to ${other}, which exists already`).and.contain('Nothing was changed.')
    expect(await snapshot(lite, watched)).to.deep.equal(before)
  })

  it('refuses bad input with a clear message and changes nothing', async () => {
    const G = dataset('migbad', 'a')
    const W = dataset('migother', 'bad.consumer')
    await proposeAll(lite, [
      [G, 'datasetProperties', {description: 'g'}],
      [W, 'upstreamLineage', {upstreams: [{dataset: G, type: 'COPY', auditStamp: AUDIT}]}],
    ])
    const watched = [G, W, dataset('migbad', 'x y.a'), dataset('migbad', 'ok.a')]
    const before = await snapshot(lite, watched)
    const cases: Array<[string[], string]> = [
      [['--platform', 'nosuchplatform', '--instance', 'ok'], "Unknown platform 'nosuchplatform'"],
      [['--platform', 'migbad', '--instance', 'ok', '--env', 'NOSUCHENV'], "Unknown environment 'NOSUCHENV'"],
      [['--platform', 'migbad', '--instance', 'x y'], "Instance name 'x y' cannot be part of a urn"],
      [['--platform', 'migbad', '--instance', 'a,b'], "Instance name 'a,b' cannot be part of a urn"],
      [['--platform', 'migbad', '--instance', 'a(b)'], "Instance name 'a(b)' cannot be part of a urn"],
      [['--platform', 'migbad', '--instance', 'ok', '--keep', '--hard'], '--keep and --hard cannot be used together'],
    ]
    for (const [args, message] of cases) {
      const r = await mdcli(lite, ['migrate', 'dataplatform2instance', ...args, '-F'])
      expect(r.code, args.join(' ')).to.equal(1)
      expect(r.stderr, args.join(' ')).to.contain(message)
      expect(r.stderr).to.contain('Nothing was changed.')
      // Refused before it starts: no "Starting migration" on stdout, with or without --force.
      expect(r.stdout, args.join(' ')).to.equal('')
    }
    const noForce = await mdcli(lite, ['migrate', 'dataplatform2instance', '--platform', 'nosuchplatform', '--instance', 'ok'])
    expect(noForce.code).to.equal(1)
    expect(noForce.stdout).to.equal('')
    const unreachable = await runCli(['migrate', 'dataplatform2instance', '--platform', 'migbad', '--instance', 'ok', '-F'], {env: lite.env({METADATA_GMS_URL: 'http://127.0.0.1:1'})})
    expect(unreachable.code).to.equal(1)
    expect(unreachable.stderr).to.match(/^Error: /)
    expect(unreachable.stdout).to.equal('')
    const rest = await http(`${lite.url}/migrate?action=dataplatform2instance`, {body: {platform: 'migbad', instance: 'x y'}})
    expect(rest.status).to.equal(400)
    const restBoth = await http(`${lite.url}/migrate?action=dataplatform2instance`, {body: {platform: 'migbad', instance: 'ok', keep: true, hard: true}})
    expect(restBoth.status).to.equal(400)

    const noTty = await mdcli(lite, ['migrate', 'dataplatform2instance', '--platform', 'migbad', '--instance', 'ok'])
    expect(noTty.code).to.equal(1)
    expect(noTty.stdout).to.contain(`Will migrate 1 urns such as ${JSON.stringify([G])}`)
    expect(noTty.stdout).to.contain(`New urns will look like ${JSON.stringify([dataset('migbad', 'ok.a')])}`)
    expect(noTty.stderr).to.contain('standard input is not a terminal')
    expect(noTty.stderr).to.contain('--force (-F)')
    expect(await snapshot(lite, watched)).to.deep.equal(before)
  })
})
