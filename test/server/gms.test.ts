import {expect} from 'chai'
import {readFileSync} from 'node:fs'
import {PolicyAuthorizer} from '../../src/catalog/access/policy-authorizer.js'
import {denyAll} from '../../src/catalog/authorize.js'
import {serverVersionOf} from '../../src/client/client.js'
import {isMce, mceToProposals} from '../../src/model/mce.js'
import {requireSharedFixtures} from '../helpers/requires.js'
import {app, call} from './helpers.js'

// DataHub GMS endpoints and behaviours (datahub-facts §3.4), in-process on the memory store.

const CONTAINER = 'urn:li:container:gms0123456789abcdef'

const secured = () => app({auth: true, authorizer: (store) => new PolicyAuthorizer(store)})

describe('GMS REST: GET /config', () => {
  it('says PATCH proposals are applied and gives the version where DataHub clients read it', async () => {
    const a = await secured()
    const r = await call(a, 'GET', '/config', undefined, '')
    expect(r.status).to.equal(200)
    expect(r.json.noCode).to.equal('true')
    expect(r.json.patchCapable).to.equal(true)
    expect(r.json.versions['acryldata/datahub'].version).to.match(/^\d+\.\d+\.\d+/)
    expect(r.json.versions['acryldata/datahub'].commit).to.be.a('string')
    // Our own readers (version, docker check, the REST sink) take it from there too.
    expect(serverVersionOf(r.json)).to.equal(r.json.versions['acryldata/datahub'].version)
    // Where offset paging of search stops (the pages follow the cursor past it).
    expect(r.json.server.maxResultWindow).to.equal(10_000)
  })

  it('our clients read a DataHub server\'s version, old key or new, before any other', () => {
    expect(serverVersionOf({versions: {other: {version: '9.9.9'}, 'acryldata/datahub': {version: 'v0.13.1', commit: 'abc'}}})).to.equal('v0.13.1')
    expect(serverVersionOf({versions: {'linkedin/datahub': {version: 'v0.8.45'}}})).to.equal('v0.8.45')
    expect(serverVersionOf({})).to.equal(undefined)
  })
})

describe('GMS REST: the registry decides what an entity accepts', () => {
  it('refuses a deprecation aspect on a container as an unknown aspect (400 E_UNKNOWN_ASPECT)', async () => {
    const a = await secured()
    const r = await call(a, 'POST', '/aspects?action=ingestProposal', {
      proposal: {entityType: 'container', entityUrn: CONTAINER, changeType: 'UPSERT', aspectName: 'deprecation', aspect: {contentType: 'application/json', value: JSON.stringify({deprecated: true, note: '', actor: 'urn:li:corpuser:x'})}},
    })
    expect(r.status).to.equal(400)
    expect(r.json.code).to.equal('E_UNKNOWN_ASPECT')
    expect(r.json.message).to.equal('Unknown aspect deprecation for entity container')
    expect(await a.catalog.exists(CONTAINER, {includeSoftDeleted: true})).to.equal(false)
  })
})

describe('GMS REST: changeType CREATE and UPDATE (DataHub ChangeType.pdl)', () => {
  const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,gms.conditions,PROD)'
  const props = (changeType: string, description: string, urn = DS) => ({entityType: 'dataset', entityUrn: urn, changeType, aspectName: 'datasetProperties', aspect: {contentType: 'application/json', value: JSON.stringify({description})}})
  const description = async (a: Awaited<ReturnType<typeof secured>>, urn = DS) => ((await a.catalog.aspectValue(urn, 'datasetProperties')) as {description?: string} | undefined)?.description

  it('CREATE writes an aspect that does not exist, and refuses one that does: 409 naming urn and aspect, nothing written', async () => {
    const a = await secured()
    expect((await call(a, 'POST', '/aspects?action=ingestProposal', {proposal: props('CREATE', 'first')})).status).to.equal(200)
    const again = await call(a, 'POST', '/aspects?action=ingestProposal', {proposal: props('CREATE', 'second')})
    expect(again.status).to.equal(409)
    expect(again.json.code).to.equal('E_CONFLICT')
    expect(again.json.message).to.contain(DS).and.to.contain('datasetProperties').and.to.match(/already exists/)
    expect(await description(a)).to.equal('first')
    expect((await a.catalog.listVersions(DS, 'datasetProperties')).length).to.equal(1)
  })

  it('UPDATE refuses an aspect that does not exist (404 naming urn and aspect, entity not created) and replaces one that does', async () => {
    const a = await secured()
    const missing = await call(a, 'POST', '/aspects?action=ingestProposal', {proposal: props('UPDATE', 'nope')})
    expect(missing.status).to.equal(404)
    expect(missing.json.code).to.equal('E_NOT_FOUND')
    expect(missing.json.message).to.contain(DS).and.to.contain('datasetProperties').and.to.match(/does not exist/)
    expect(await a.catalog.exists(DS, {includeSoftDeleted: true})).to.equal(false)
    // Another aspect of the entity does not make this one exist.
    await call(a, 'POST', '/aspects?action=ingestProposal', {proposal: {entityUrn: DS, aspectName: 'status', changeType: 'UPSERT', aspect: {json: {removed: false}}}})
    expect((await call(a, 'POST', '/aspects?action=ingestProposal', {proposal: props('UPDATE', 'nope')})).status).to.equal(404)
    await call(a, 'POST', '/aspects?action=ingestProposal', {proposal: props('UPSERT', 'v1')})
    expect((await call(a, 'POST', '/aspects?action=ingestProposal', {proposal: props('UPDATE', 'v2')})).status).to.equal(200)
    expect(await description(a)).to.equal('v2')
  })

  it('judges each proposal of a batch as the batch before it left the aspect; failures fail alone when not atomic', async () => {
    const a = await secured()
    const other = 'urn:li:dataset:(urn:li:dataPlatform:hive,gms.conditions2,PROD)'
    const patch = {entityUrn: DS, aspectName: 'datasetProperties', changeType: 'PATCH', aspect: {json: [{op: 'add', path: '/customProperties/k', value: 'v'}]}}
    const outcomes = (r: {json: any}) => r.json.value.results.map((x: {ok: boolean; error?: {status: number}}) => (x.ok ? 'ok' : x.error!.status))
    const r = await call(a, 'POST', '/aspects?action=ingestProposalBatch', {atomic: false, proposals: [props('UPDATE', 'too early'), props('CREATE', 'made'), props('CREATE', 'twice'), patch, props('UPDATE', 'updated', other)]})
    expect(outcomes(r)).to.deep.equal([404, 'ok', 409, 'ok', 404])
    expect(r.json.value.results[2].error.message).to.match(/^proposal 2: cannot CREATE aspect datasetProperties of /)
    // The PATCH built on the CREATE before it, not on the refused one.
    expect(await a.catalog.aspectValue(DS, 'datasetProperties')).to.deep.equal({description: 'made', customProperties: {k: 'v'}})
    expect(await a.catalog.exists(other, {includeSoftDeleted: true})).to.equal(false)
    // After a DELETE earlier in the batch, the aspect is there to CREATE again.
    const r2 = await call(a, 'POST', '/aspects?action=ingestProposalBatch', {atomic: false, proposals: [{...props('DELETE', ''), aspect: undefined}, props('UPDATE', 'gone'), props('CREATE', 'again')]})
    expect(outcomes(r2)).to.deep.equal(['ok', 404, 'ok'])
    expect(await description(a)).to.equal('again')
  })

  it('CREATEs racing for one aspect: exactly one is written', async () => {
    const a = await secured()
    const answers = await Promise.all(Array.from({length: 8}, (_, i) => call(a, 'POST', '/aspects?action=ingestProposal', {proposal: props('CREATE', `racer ${i}`)})))
    const statuses = answers.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).to.have.length(1)
    expect(statuses.filter((s) => s === 409)).to.have.length(7)
    expect(await description(a)).to.equal(`racer ${statuses.indexOf(200)}`)
    expect((await a.catalog.listVersions(DS, 'datasetProperties')).length).to.equal(1)
  })

  it('refuses CREATE and UPDATE of a timeseries aspect (400): points are appended whatever is stored', async () => {
    const a = await secured()
    const r = await call(a, 'POST', '/aspects?action=ingestProposal', {proposal: {entityUrn: DS, aspectName: 'datasetProfile', changeType: 'CREATE', aspect: {json: {timestampMillis: 1, rowCount: 3}}}})
    expect(r.status).to.equal(400)
    expect(r.json.message).to.equal('proposal: changeType CREATE is not supported for timeseries aspect datasetProfile (use UPSERT)')
  })
})

describe('GMS REST: POST /entities?action=ingest (an MCE, as DataHub\'s emitter sends it)', () => {
  const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,gms.mce,PROD)'
  const owners = {owners: [{owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER'}], lastModified: {time: 1, actor: 'urn:li:corpuser:jdoe'}}
  const snapshot = (aspects: unknown[], urn = DS, cls = 'com.linkedin.metadata.snapshot.DatasetSnapshot') => ({[cls]: {urn, aspects}})
  const ingest = (a: Awaited<ReturnType<typeof secured>>, body: unknown, token?: string) => call(a, 'POST', '/entities?action=ingest', body, token ?? a.adminToken)

  it('writes every aspect of a snapshot, with its systemMetadata, and answers as Rest.li does for a void action', async () => {
    const a = await secured()
    const r = await ingest(a, {
      entity: {value: snapshot([{'com.linkedin.common.Ownership': owners}, {'com.linkedin.common.Status': {removed: false}}, {'com.linkedin.dataset.DatasetProperties': {description: 'from an MCE', customProperties: {k: 'v'}}}])},
      systemMetadata: {lastObserved: 1700000000000, runId: 'emitter-run'},
    })
    expect(r.status).to.equal(200)
    expect(r.response.body ?? '').to.equal('')
    const e = await call(a, 'GET', `/entitiesV2/${encodeURIComponent(DS)}`)
    expect(Object.keys(e.json.aspects)).to.have.members(['datasetKey', 'ownership', 'status', 'datasetProperties'])
    expect(e.json.aspects.ownership.value.owners).to.deep.equal(owners.owners)
    expect(e.json.aspects.datasetProperties.value.description).to.equal('from an MCE')
    expect(e.json.aspects.ownership.systemMetadata).to.include({runId: 'emitter-run', lastObserved: 1700000000000})
  })

  it('writes the snapshots of bootstrap_mce.json (Pegasus names, as the emitter sends them) as the file reader does', async function () {
    const path = requireSharedFixtures(this, 'datahub', 'bootstrap_mce.json')
    // The emitter's pre_json_transform: avro namespaces become Pegasus ones.
    const records = (JSON.parse(readFileSync(path, 'utf8')) as unknown[]).filter(isMce)
    expect(records.length).to.be.greaterThan(50)
    const a = await secured()
    for (const mce of records) {
      const wire = JSON.parse(JSON.stringify(mce.proposedSnapshot).replaceAll('com.linkedin.pegasus2avro.', 'com.linkedin.'))
      const r = await ingest(a, {entity: {value: wire}, systemMetadata: {lastObserved: 1, runId: 'bootstrap'}})
      expect(r.status, JSON.stringify(r.json)).to.equal(200)
      // What the change-event file reader would have written for the same record.
      for (const p of mceToProposals(mce)) {
        const stored = await a.catalog.rawAspect(p.entityUrn!, p.aspectName!)
        expect(stored?.value, `${p.entityUrn} ${p.aspectName}`).to.deep.equal(JSON.parse(JSON.stringify((p.aspect as {json: unknown}).json)))
        expect(stored?.systemMetadata.runId).to.equal('bootstrap')
      }
    }
    const kafka = await a.catalog.aspectValue<{platformSchema: Record<string, unknown>}>('urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)', 'schemaMetadata')
    expect(Object.keys(kafka!.platformSchema)).to.deep.equal(['com.linkedin.schema.KafkaSchema'])
  })

  it('refuses what is not an MCE snapshot with a 400 naming the problem, and writes none of a snapshot with one bad aspect', async () => {
    const a = await secured()
    const cases: Array<[unknown, RegExp]> = [
      [{}, /needs "entity": \{"value"/],
      [{entity: {value: snapshot([])}, systemMetadata: 'x'}, /"systemMetadata" must be an object/],
      [{entity: {value: {'com.linkedin.metadata.snapshot.NoSuchSnapshot': {urn: DS, aspects: []}}}}, /unknown snapshot class com\.linkedin\.metadata\.snapshot\.NoSuchSnapshot/],
      [{entity: {value: snapshot([], 'urn:li:tag:x')}}, /DatasetSnapshot holds urn urn:li:tag:x of entity type tag, expected dataset/],
      [{entity: {value: snapshot([{'com.linkedin.common.NoSuchAspect': {}}])}}, /aspect 0 of .* has unknown class com\.linkedin\.common\.NoSuchAspect/],
      [{entity: {value: snapshot([{'com.linkedin.common.Status': {removed: false}}, {'com.linkedin.common.Ownership': {owners: [{owner: 'urn:li:corpuser:x', type: 'NOT_A_TYPE'}]}}])}}, /must be one of/],
    ]
    for (const [body, message] of cases) {
      const r = await ingest(a, body)
      expect(r.status, JSON.stringify(body)).to.equal(400)
      expect(r.json.message).to.match(message)
    }
    expect(await a.catalog.exists(DS, {includeSoftDeleted: true})).to.equal(false)
  })

  it('is authorized like ingestProposal: 401 without a token, 403 when the write is denied', async () => {
    const a = await secured()
    const body = {entity: {value: snapshot([{'com.linkedin.common.Status': {removed: false}}])}}
    expect((await ingest(a, body, '')).status).to.equal(401)
    const denied = await app({auth: false, authorizer: () => denyAll})
    const r = await ingest(denied, body)
    expect(r.status).to.equal(403)
    expect(r.json.code).to.equal('E_UNAUTHORIZED')
    expect(await denied.catalog.exists(DS, {includeSoftDeleted: true})).to.equal(false)
  })
})

describe('GMS REST: POST /entities?action=exists', () => {
  const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,gms.exists,PROD)'
  const exists = (a: Awaited<ReturnType<typeof secured>>, body: unknown, token?: string) => call(a, 'POST', '/entities?action=exists', body, token ?? a.adminToken)

  it('answers {value: true|false}; a soft-deleted entity exists unless includeSoftDelete is false (as GMS)', async () => {
    const a = await secured()
    expect((await exists(a, {urn: DS})).json).to.deep.equal({value: false})
    await call(a, 'POST', '/aspects?action=ingestProposal', {proposal: {entityUrn: DS, aspectName: 'status', changeType: 'UPSERT', aspect: {json: {removed: false}}}})
    expect((await exists(a, {urn: DS})).json).to.deep.equal({value: true})
    await call(a, 'POST', '/aspects?action=ingestProposal', {proposal: {entityUrn: DS, aspectName: 'status', changeType: 'UPSERT', aspect: {json: {removed: true}}}})
    expect((await exists(a, {urn: DS})).json).to.deep.equal({value: true})
    expect((await exists(a, {urn: DS, includeSoftDelete: true})).json).to.deep.equal({value: true})
    expect((await exists(a, {urn: DS, includeSoftDelete: false})).json).to.deep.equal({value: false})
  })

  it('refuses bad input with a 400 naming it, and a request without a token with 401', async () => {
    const a = await secured()
    const cases: Array<[unknown, RegExp]> = [
      [{}, /needs "urn"/],
      [[DS], /must be a JSON object/],
      [{urn: 'not-an-urn'}, /urn/i],
      [{urn: 'urn:li:nosuch:x'}, /Unknown entity type 'nosuch'/],
      [{urn: DS, includeSoftDelete: 'yes'}, /"includeSoftDelete" must be true or false/],
    ]
    for (const [body, message] of cases) {
      const r = await exists(a, body)
      expect(r.status, JSON.stringify(body)).to.equal(400)
      expect(r.json.message).to.match(message)
    }
    expect((await exists(a, {urn: DS}, '')).status).to.equal(401)
  })
})

describe('GMS REST: GET /relationships', () => {
  const A = 'urn:li:dataset:(urn:li:dataPlatform:hive,gms.rel_a,PROD)'
  const B = 'urn:li:dataset:(urn:li:dataPlatform:hive,gms.rel_b,PROD)'
  const C = 'urn:li:dataset:(urn:li:dataPlatform:hive,gms.rel_c,PROD)'
  const q = (urn: string, direction: string, types: string, extra = '') => `/relationships?urn=${encodeURIComponent(urn)}&direction=${direction}&types=${encodeURIComponent(types)}${extra}`

  async function seeded() {
    const a = await secured()
    const lineage = (urn: string, ups: string[]) => ({entityUrn: urn, aspectName: 'upstreamLineage', changeType: 'UPSERT', aspect: {json: {upstreams: ups.map((dataset) => ({dataset, type: 'TRANSFORMED', auditStamp: {time: 0, actor: 'urn:li:corpuser:x'}}))}}})
    const r = await call(a, 'POST', '/aspects?action=ingestProposalBatch', {
      atomic: true,
      proposals: [
        lineage(A, [B]),
        lineage(C, [B]),
        {entityUrn: B, aspectName: 'status', changeType: 'UPSERT', aspect: {json: {removed: false}}},
        {entityUrn: A, aspectName: 'ownership', changeType: 'UPSERT', aspect: {json: {owners: [{owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER'}]}}},
      ],
    })
    expect(r.status).to.equal(200)
    return a
  }

  it('answers an entity\'s edges of the asked types and direction, in DataHub\'s shape', async () => {
    const a = await seeded()
    const out = await call(a, 'GET', q(A, 'OUTGOING', 'List(DownstreamOf,OwnedBy)'))
    expect(out.status).to.equal(200)
    expect(out.json.start).to.equal(0)
    expect(out.json.total).to.equal(2)
    expect(out.json.count).to.equal(2)
    expect(out.json.relationships).to.have.deep.members([{type: 'DownstreamOf', entity: B}, {type: 'OwnedBy', entity: 'urn:li:corpuser:jdoe'}])
    const only = await call(a, 'GET', q(A, 'OUTGOING', 'List(OwnedBy)'))
    expect(only.json.relationships).to.deep.equal([{type: 'OwnedBy', entity: 'urn:li:corpuser:jdoe'}])
    const incoming = await call(a, 'GET', q(B, 'INCOMING', 'List(DownstreamOf)'))
    expect(incoming.json.relationships).to.have.deep.members([{type: 'DownstreamOf', entity: A}, {type: 'DownstreamOf', entity: C}])
    // Unencoded List(...) and the repeated parameter of Rest.li 1.0 read the same.
    const plain = await call(a, 'GET', `/relationships?urn=${encodeURIComponent(B)}&direction=INCOMING&types=List(DownstreamOf)`)
    const repeated = await call(a, 'GET', `/relationships?urn=${encodeURIComponent(A)}&direction=OUTGOING&types=DownstreamOf&types=OwnedBy`)
    expect(plain.json.total).to.equal(2)
    expect(repeated.json.total).to.equal(2)
  })

  it('pages with start and count; count is the page\'s length, total all edges', async () => {
    const a = await seeded()
    const first = await call(a, 'GET', q(B, 'INCOMING', 'List(DownstreamOf)', '&start=0&count=1'))
    const second = await call(a, 'GET', q(B, 'INCOMING', 'List(DownstreamOf)', '&start=1&count=1'))
    const past = await call(a, 'GET', q(B, 'INCOMING', 'List(DownstreamOf)', '&start=2&count=1'))
    expect([first.json.count, second.json.count, past.json.count]).to.deep.equal([1, 1, 0])
    expect([first.json.total, second.json.total, past.json.total]).to.deep.equal([2, 2, 2])
    expect([first.json.relationships[0].entity, second.json.relationships[0].entity]).to.have.members([A, C])
    expect(past.json).to.deep.equal({start: 2, count: 0, total: 2, relationships: []})
  })

  it('refuses bad input with a 400 naming it, and a request without a token with 401', async () => {
    const a = await seeded()
    const cases: Array<[string, RegExp]> = [
      ['/relationships?direction=OUTGOING&types=List(OwnedBy)', /Missing '\?urn='/],
      [`/relationships?urn=${encodeURIComponent(A)}&types=List(OwnedBy)`, /'direction' must be INCOMING or OUTGOING/],
      [q(A, 'SIDEWAYS', 'List(OwnedBy)'), /'direction' must be INCOMING or OUTGOING, got 'SIDEWAYS'/],
      [`/relationships?urn=${encodeURIComponent(A)}&direction=OUTGOING`, /Missing '\?types=List/],
      [q(A, 'OUTGOING', 'List()'), /Missing '\?types=List/],
      [q(A, 'OUTGOING', 'List(OwnedBy)', '&count=-1'), /'count' must be a whole number from 0 to 10000/],
      [q(A, 'OUTGOING', 'List(OwnedBy)', '&start=x'), /'start' must be a whole number/],
      [q('urn:li:nosuch:x', 'OUTGOING', 'List(OwnedBy)'), /Unknown entity type 'nosuch'/],
    ]
    for (const [url, message] of cases) {
      const r = await call(a, 'GET', url)
      expect(r.status, url).to.equal(400)
      expect(r.json.message, url).to.match(message)
    }
    expect((await call(a, 'GET', q(A, 'OUTGOING', 'List(OwnedBy)'), undefined, '')).status).to.equal(401)
  })
})
