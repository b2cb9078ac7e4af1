/**
 * DataHub's Python SDK (acryl-datahub: DataHubGraph, the REST emitter, SDK v2's DataHubClient)
 * against a real `mdcli lite`: each request sent with the SDK's own path, query and body, and
 * checked against what the SDK reads back.
 */
import {expect} from 'chai'
import {encodeUrnPath} from '../../src/model/urn.js'
import {http, useLite} from '../helpers/lite.js'

const DS = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${n},PROD)`

/** An MCP as `MetadataChangeProposalWrapper.to_obj()` serialises it: the aspect as JSON text. */
const wrapped = (urn: string, changeType: string, aspectName: string, value: unknown) => ({
  entityType: urn.split(':')[2],
  entityUrn: urn,
  changeType,
  aspectName,
  aspect: {value: JSON.stringify(value), contentType: 'application/json'},
})

describe('DataHub’s Python SDK on lite', function () {
  this.timeout(120_000)
  const lite = useLite()
  /** `DataHubGraph.emit_mcps`: one ingestProposalBatch, no `atomic`, `async` as text. */
  const emitMcps = (proposals: unknown[]) => http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {proposals, async: 'false'}})
  const exists = async (urn: string) => (await http(`${lite.url}/entities?action=exists`, {body: {urn}})).body.value as boolean
  const aspect = async (urn: string, name: string) => {
    const r = await http(`${lite.url}/entitiesV2/${encodeUrnPath(urn)}?aspects=List(${name})&alwaysIncludeKeyAspect=false`)
    return r.status === 200 ? r.body.aspects[name]?.value : undefined
  }

  /** `MetadataPatchProposal.build()`: one PATCH per aspect, the ops as JSON text. */
  const patch = (urn: string, aspectName: string, ops: unknown[]) => ({
    entityType: urn.split(':')[2],
    entityUrn: urn,
    changeType: 'PATCH',
    aspectName,
    aspect: {value: JSON.stringify(ops), contentType: 'application/json-patch+json'},
  })

  describe('DatasetPatchBuilder: field-level and structured-property patches', () => {
    it('for_field().add_tag() / remove_tag(): the field keyed by fieldPath, its tags by urn, other fields kept', async () => {
      const urn = DS('sdk.patch.fields')
      const stored = {editableSchemaFieldInfo: [{fieldPath: 'field_bar', description: 'kept'}, {fieldPath: 'field_foo', globalTags: {tags: [{tag: 'urn:li:tag:old'}]}}]}
      expect((await emitMcps([wrapped(urn, 'UPSERT', 'editableSchemaMetadata', stored)])).status).to.equal(200)
      const r = await emitMcps([
        patch(urn, 'editableSchemaMetadata', [
          {op: 'add', path: '/editableSchemaFieldInfo/field_foo/globalTags/tags/urn:li:tag:pii', value: {tag: 'urn:li:tag:pii'}},
          {op: 'remove', path: '/editableSchemaFieldInfo/field_foo/globalTags/tags/urn:li:tag:old', value: {}},
          {op: 'add', path: '/editableSchemaFieldInfo/a~1b/globalTags/tags/urn:li:tag:pii', value: {tag: 'urn:li:tag:pii'}},
        ]),
      ])
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      expect((await aspect(urn, 'editableSchemaMetadata')).editableSchemaFieldInfo).to.deep.equal([
        {fieldPath: 'field_bar', description: 'kept'},
        {fieldPath: 'field_foo', globalTags: {tags: [{tag: 'urn:li:tag:pii'}]}},
        {fieldPath: 'a/b', globalTags: {tags: [{tag: 'urn:li:tag:pii'}]}},
      ])
    })

    it('set_structured_property(): remove then add /properties/<urn>, the other properties kept', async () => {
      const urn = DS('sdk.patch.props')
      const X = 'urn:li:structuredProperty:io.sdk.x'
      const Y = 'urn:li:structuredProperty:io.sdk.y'
      expect((await emitMcps([wrapped(urn, 'UPSERT', 'structuredProperties', {properties: [{propertyUrn: X, values: [{string: 'old'}]}, {propertyUrn: Y, values: [{double: 2}]}]})])).status).to.equal(200)
      const r = await emitMcps([
        patch(urn, 'structuredProperties', [
          {op: 'remove', path: `/properties/${X}`, value: {}},
          {op: 'add', path: `/properties/${X}`, value: {propertyUrn: X, values: [{string: 'foo'}]}},
        ]),
      ])
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      const props = (await aspect(urn, 'structuredProperties')).properties as Array<{propertyUrn: string; values: unknown[]}>
      expect(props.map((p) => p.propertyUrn)).to.deep.equal([Y, X])
      expect(JSON.stringify(props[1]!.values)).to.match(/foo/).and.not.to.match(/old/)
    })
  })

  describe('patch builders on an entity that does not hold the aspect yet', () => {
    const SYSTEM = 'urn:li:corpuser:__datahub_system'

    it('add_term, for_field().add_term, add_owner, add_tag start from DataHub\'s defaults and are written', async () => {
      const urn = DS('sdk.patch.fresh')
      const r = await emitMcps([
        patch(urn, 'glossaryTerms', [{op: 'add', path: '/terms/urn:li:glossaryTerm:Classification.PII', value: {urn: 'urn:li:glossaryTerm:Classification.PII'}}]),
        patch(urn, 'editableSchemaMetadata', [{op: 'add', path: '/editableSchemaFieldInfo/field_foo/glossaryTerms/terms/urn:li:glossaryTerm:t', value: {urn: 'urn:li:glossaryTerm:t'}}]),
        patch(urn, 'ownership', [{op: 'add', path: '/owners/urn:li:corpuser:jdoe/DATAOWNER', value: {owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER'}}]),
        patch(urn, 'globalTags', [{op: 'add', path: '/tags/urn:li:tag:pii', value: {tag: 'urn:li:tag:pii'}}]),
      ])
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      const terms = await aspect(urn, 'glossaryTerms')
      expect(terms.terms).to.deep.equal([{urn: 'urn:li:glossaryTerm:Classification.PII'}])
      expect(terms.auditStamp.actor).to.equal(SYSTEM)
      expect(terms.auditStamp.time).to.be.a('number').and.to.be.greaterThan(0)
      const fields = await aspect(urn, 'editableSchemaMetadata')
      expect(fields.editableSchemaFieldInfo[0].glossaryTerms.terms).to.deep.equal([{urn: 'urn:li:glossaryTerm:t'}])
      expect(fields.editableSchemaFieldInfo[0].glossaryTerms.auditStamp.actor).to.equal(SYSTEM)
      expect((await aspect(urn, 'ownership')).owners).to.deep.equal([{owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER'}])
      expect((await aspect(urn, 'globalTags')).tags).to.deep.equal([{tag: 'urn:li:tag:pii'}])
    })

    it('add_chart_edge, add_input_edge and add_output_dataset give dashboards, charts and jobs the fields their aspects require', async () => {
      const dashboard = 'urn:li:dashboard:(looker,sdk.fresh)'
      const chart = 'urn:li:chart:(looker,sdk.fresh)'
      const job = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,sdk_flow,PROD),sdk_task)'
      const r = await emitMcps([
        patch(dashboard, 'dashboardInfo', [{op: 'add', path: `/chartEdges/${chart}`, value: {destinationUrn: chart}}]),
        patch(chart, 'chartInfo', [{op: 'add', path: `/inputEdges/${DS('sdk.fresh.in')}`, value: {destinationUrn: DS('sdk.fresh.in')}}]),
        patch(job, 'dataJobInputOutput', [{op: 'add', path: `/outputDatasetEdges/${DS('sdk.fresh.out')}`, value: {destinationUrn: DS('sdk.fresh.out')}}]),
      ])
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      const dash = await aspect(dashboard, 'dashboardInfo')
      expect(dash.title).to.equal('')
      expect(dash.chartEdges).to.deep.equal([{destinationUrn: chart}])
      expect(dash.lastModified.created.actor).to.equal(SYSTEM)
      expect((await aspect(chart, 'chartInfo')).inputEdges).to.deep.equal([{destinationUrn: DS('sdk.fresh.in')}])
      const io = await aspect(job, 'dataJobInputOutput')
      expect(io.outputDatasetEdges).to.deep.equal([{destinationUrn: DS('sdk.fresh.out')}])
      expect(io.inputDatasets).to.deep.equal([])
    })
  })

  describe('get_related_entities(): GET /openapi/relationships/v1/', () => {
    const A = DS('sdk.rel.a')
    const B = DS('sdk.rel.b')
    const C = DS('sdk.rel.c')
    /** The query as `requests` encodes the SDK's params dict (a list repeats its key). */
    const query = (params: Array<[string, string | number]>) => params.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&')
    /** The SDK's loop: from start 0, add each page's count, stop at a count of 0. */
    async function related(urn: string, direction: string, types: string[], extra: Array<[string, number]> = []) {
      const out: Array<{urn: string; relationshipType: string}> = []
      let start = 0
      for (let pages = 0; pages < 20; pages++) {
        const r = await http(`${lite.url}/openapi/relationships/v1/?${query([['urn', urn], ['direction', direction], ...types.map((t): [string, string] => ['relationshipTypes', t]), ['start', start], ...extra])}`)
        expect(r.status, JSON.stringify(r.body)).to.equal(200)
        out.push(...r.body.entities)
        if (r.body.count === 0 || r.body.count < r.body.entities.length) return {out, pages: pages + 1, total: r.body.total}
        start += r.body.count
      }
      throw new Error('the SDK would page forever')
    }

    before(async () => {
      const lineage = (urn: string, ups: string[]) => wrapped(urn, 'UPSERT', 'upstreamLineage', {upstreams: ups.map((dataset) => ({dataset, type: 'TRANSFORMED', auditStamp: {time: 0, actor: 'urn:li:corpuser:x'}}))})
      const r = await emitMcps([lineage(A, [B]), lineage(C, [B]), wrapped(A, 'UPSERT', 'ownership', {owners: [{owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER'}]})])
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
    })

    it('answers the edges in GMS\'s shape, and the SDK\'s paging ends', async () => {
      const incoming = await related(B, 'INCOMING', ['DownstreamOf'])
      expect(incoming.out).to.have.deep.members([{urn: A, relationshipType: 'DownstreamOf'}, {urn: C, relationshipType: 'DownstreamOf'}])
      expect(incoming.total).to.equal(2)
      const outgoing = await related(A, 'OUTGOING', ['DownstreamOf', 'OwnedBy'])
      expect(outgoing.out).to.have.deep.members([{urn: B, relationshipType: 'DownstreamOf'}, {urn: 'urn:li:corpuser:jdoe', relationshipType: 'OwnedBy'}])
      const paged = await related(B, 'INCOMING', ['DownstreamOf'], [['count', 1]])
      expect(paged.pages).to.equal(3)
      expect(paged.out.map((e) => e.urn).sort()).to.deep.equal([A, C].sort())
      expect((await related(B, 'OUTGOING', ['DownstreamOf'])).out).to.deep.equal([])
    })

    it('names what is wrong with a request, and wants a token as /relationships does', async () => {
      const base = `${lite.url}/openapi/relationships/v1/`
      const noTypes = await http(`${base}?${query([['urn', B], ['direction', 'INCOMING']])}`)
      expect(noTypes.status).to.equal(400)
      expect(noTypes.body.message).to.match(/relationshipTypes/)
      const badDirection = await http(`${base}?${query([['urn', B], ['direction', 'UP'], ['relationshipTypes', 'DownstreamOf']])}`)
      expect(badDirection.status).to.equal(400)
      expect(badDirection.body.message).to.match(/direction/)
      const anonymous = await http(`${base}?${query([['urn', B], ['direction', 'INCOMING'], ['relationshipTypes', 'DownstreamOf']])}`, {token: null})
      expect(anonymous.status).to.equal(401)
    })
  })

  describe('hard_delete_timeseries_aspect(): a bound left out is open', () => {
    const profiled = async (name: string) => {
      const urn = DS(name)
      const points = [1_700_000_000_000, 1_700_000_100_000, 1_700_000_200_000].map((t, i) => wrapped(urn, 'UPSERT', 'datasetProfile', {timestampMillis: t, rowCount: i + 1}))
      expect((await emitMcps(points)).status).to.equal(200)
      return urn
    }
    const rowCounts = async (urn: string) => {
      const r = await http(`${lite.url}/aspects?action=getTimeseriesAspectValues`, {body: {urn, entity: 'dataset', aspect: 'datasetProfile', limit: 10}})
      return r.body.value.values.map((v: {aspect: {value: string}}) => JSON.parse(v.aspect.value).rowCount).sort()
    }
    /** The SDK's payload: urn and aspectName, and only the bounds it was given. */
    const hardDelete = (body: Record<string, unknown>) => http(`${lite.url}/entities?action=delete`, {body})

    it('deletes from a start to the end, from the beginning to an end, and everything with no bound', async () => {
      const fromStart = await profiled('sdk.ts.from')
      const r1 = await hardDelete({urn: fromStart, aspectName: 'datasetProfile', startTimeMillis: 1_700_000_100_000})
      expect(r1.status, JSON.stringify(r1.body)).to.equal(200)
      expect(r1.body.value.timeseriesRows).to.equal(2)
      expect(await rowCounts(fromStart)).to.deep.equal([1])
      const toEnd = await profiled('sdk.ts.to')
      const r2 = await hardDelete({urn: toEnd, aspectName: 'datasetProfile', endTimeMillis: 1_700_000_100_000})
      expect(r2.body.value.timeseriesRows).to.equal(2)
      expect(await rowCounts(toEnd)).to.deep.equal([3])
      const all = await profiled('sdk.ts.all')
      await emitMcps([wrapped(all, 'UPSERT', 'datasetProperties', {name: 'kept'})])
      const r3 = await hardDelete({urn: all, aspectName: 'datasetProfile'})
      expect(r3.body.value.timeseriesRows).to.equal(3)
      expect(await rowCounts(all)).to.deep.equal([])
      expect(await aspect(all, 'datasetProperties'), 'only the timeseries aspect goes').to.deep.equal({name: 'kept'})
    })

    it('still refuses a start after the end', async () => {
      const urn = await profiled('sdk.ts.backwards')
      const r = await hardDelete({urn, aspectName: 'datasetProfile', startTimeMillis: 1_700_000_200_000, endTimeMillis: 1_700_000_000_000})
      expect(r.status).to.equal(400)
      expect(r.body.message).to.match(/is after/)
      expect(await rowCounts(urn)).to.deep.equal([1, 2, 3])
    })
  })

  describe('get_aspect() of a DataHub aspect mdcli does not model', () => {
    it('answers 404 naming the aspect (the SDK returns None), while a write of it stays refused', async () => {
      const urn = DS('sdk.unmodelled')
      expect((await emitMcps([wrapped(urn, 'UPSERT', 'status', {removed: false})])).status).to.equal(200)
      for (const name of ['documentation', 'assertionsSummary', 'applications', 'displayProperties', 'logicalParent', 'schemaFieldsInfo']) {
        const r = await http(`${lite.url}/aspects/${encodeUrnPath(urn)}?aspect=${name}&version=0`)
        expect(r.status, `${name}: ${JSON.stringify(r.body)}`).to.equal(404)
        expect(r.body.code).to.equal('E_UNKNOWN_ASPECT')
        expect(r.body.message).to.contain(`Unknown aspect ${name}`)
      }
      const typo = await http(`${lite.url}/aspects/${encodeUrnPath(urn)}?aspect=statuss&version=0`)
      expect(typo.status).to.equal(404)
      expect(typo.body.message).to.match(/did you mean status\?/)
      const write = await emitMcps([wrapped(urn, 'UPSERT', 'documentation', {documentations: []})])
      expect(write.status).to.equal(400)
      expect(write.body.code).to.equal('E_UNKNOWN_ASPECT')
      // A modelled aspect the entity lacks is the other 404, as before.
      const missing = await http(`${lite.url}/aspects/${encodeUrnPath(urn)}?aspect=ownership&version=0`)
      expect(missing.status).to.equal(404)
      expect(missing.body.code).to.equal('E_NOT_FOUND')
    })

    it('get_entity_semityped(aspects=[…]) and get_aspects_for_entity leave such names out of the entitiesV2 answer', async () => {
      const urn = DS('sdk.unmodelled')
      const one = await http(`${lite.url}/entitiesV2/${encodeUrnPath(urn)}?aspects=List(status,documentation,displayProperties)`)
      expect(one.status, JSON.stringify(one.body)).to.equal(200)
      expect(Object.keys(one.body.aspects).sort()).to.deep.equal(['datasetKey', 'status'])
      const many = await http(`${lite.url}/entitiesV2?ids=List(${encodeUrnPath(encodeUrnPath(urn))})&aspects=List(documentation)`)
      expect(many.status, JSON.stringify(many.body)).to.equal(200)
      expect(Object.keys(many.body.results[urn].aspects)).to.deep.equal(['datasetKey'])
    })
  })

  describe('client.entities.create(): the key as CREATE_ENTITY, the aspects as CREATE', () => {
    const create = (urn: string, name: string, extra: unknown[] = []) =>
      emitMcps([
        wrapped(urn, 'CREATE_ENTITY', 'datasetKey', {platform: 'urn:li:dataPlatform:hive', name: urn.split(',')[1], origin: 'PROD'}),
        wrapped(urn, 'CREATE', 'datasetProperties', {name, customProperties: {}}),
        wrapped(urn, 'CREATE', 'status', {removed: false}),
        ...extra,
      ])

    it('creates a new entity whole', async () => {
      const urn = DS('sdk.create.new')
      expect(await exists(urn)).to.equal(false)
      const r = await create(urn, 'made')
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      expect(r.body.value.failed).to.equal(0)
      expect(await aspect(urn, 'datasetProperties')).to.deep.equal({name: 'made', customProperties: {}})
      expect(await aspect(urn, 'status')).to.deep.equal({removed: false})
      expect(await exists(urn)).to.equal(true)
    })

    it('refuses to create an entity that exists: 422 E_CONFLICT naming it, nothing of the batch written', async () => {
      const urn = DS('sdk.create.twice')
      expect((await create(urn, 'first')).status).to.equal(200)
      const again = await create(urn, 'second', [wrapped(DS('sdk.create.bystander'), 'UPSERT', 'status', {removed: false})])
      expect(again.status, JSON.stringify(again.body)).to.equal(422)
      expect(again.body.code).to.equal('E_CONFLICT')
      expect(again.body.message).to.contain(urn).and.to.match(/CREATE_ENTITY.*already exists/)
      expect(await aspect(urn, 'datasetProperties')).to.deep.equal({name: 'first', customProperties: {}})
      expect(await exists(DS('sdk.create.bystander')), 'the rest of the batch is not written').to.equal(false)
      // Nor when the existing entity carries no aspect the batch names.
      const other = DS('sdk.create.other')
      expect((await emitMcps([wrapped(other, 'UPSERT', 'globalTags', {tags: []})])).status).to.equal(200)
      expect((await create(other, 'late')).status).to.equal(422)
      expect(await aspect(other, 'datasetProperties')).to.equal(undefined)
    })

    it('counts a soft-deleted entity as existing, as GMS does (its key is still stored)', async () => {
      const urn = DS('sdk.create.soft')
      expect((await create(urn, 'was here')).status).to.equal(200)
      expect((await emitMcps([wrapped(urn, 'UPSERT', 'status', {removed: true})])).status).to.equal(200)
      const r = await create(urn, 'again')
      expect(r.status).to.equal(422)
      expect(await aspect(urn, 'datasetProperties')).to.deep.equal({name: 'was here', customProperties: {}})
    })

    it('lets every CREATE_ENTITY of a batch that brings the entity into being pass', async () => {
      const urn = DS('sdk.create.all')
      const r = await emitMcps([
        wrapped(urn, 'CREATE_ENTITY', 'datasetProperties', {name: 'all', customProperties: {}}),
        wrapped(urn, 'CREATE_ENTITY', 'status', {removed: false}),
      ])
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      expect(await aspect(urn, 'status')).to.deep.equal({removed: false})
    })

    it('writes nothing of a batch with an invalid proposal, so the same create succeeds once fixed', async () => {
      const urn = DS('sdk.create.retry')
      const bad = await create(urn, 'retried', [wrapped(urn, 'CREATE', 'globalTags', {tags: 'not a list'})])
      expect(bad.status).to.equal(400)
      expect(bad.body.code).to.equal('E_INVALID_ASPECT')
      expect(await exists(urn)).to.equal(false)
      const fixed = await create(urn, 'retried', [wrapped(urn, 'CREATE', 'globalTags', {tags: []})])
      expect(fixed.status, JSON.stringify(fixed.body)).to.equal(200)
      expect(await aspect(urn, 'datasetProperties')).to.deep.equal({name: 'retried', customProperties: {}})
    })

    it('answers per proposal with atomic: false (mdcli’s own sink), the refused CREATE_ENTITY among them', async () => {
      const urn = DS('sdk.create.sink')
      expect((await create(urn, 'first')).status).to.equal(200)
      const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {
        body: {atomic: false, proposals: [wrapped(urn, 'CREATE_ENTITY', 'status', {removed: false}), wrapped(DS('sdk.create.sink2'), 'CREATE_ENTITY', 'status', {removed: false})]},
      })
      expect(r.status).to.equal(422)
      expect(r.body.value.results.map((x: {ok: boolean; error?: {code: string}}) => x.error?.code ?? 'ok')).to.deep.equal(['E_CONFLICT', 'ok'])
      expect(await exists(DS('sdk.create.sink2'))).to.equal(true)
    })
  })
})
