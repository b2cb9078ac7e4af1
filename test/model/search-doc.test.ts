import {expect} from 'chai'
import {entitySpecs} from '../../src/model/registry.js'
import {buildSearchDoc, isSearchAspect, searchProjection} from '../../src/model/search-doc.js'

describe('search documents', () => {
  it('read only the aspects the store re-indexes for', () => {
    // The store skips re-indexing when other aspects change, so a read outside the list would
    // leave search stale. Record every aspect buildSearchDoc touches, for every entity type.
    for (const spec of entitySpecs()) {
      const read = new Set<string>()
      const aspects = new Proxy({}, {get: (_t, k) => (typeof k === 'string' && read.add(k), undefined)})
      buildSearchDoc(spec.name, `urn:li:${spec.name}:x`, aspects)
      for (const a of read) expect(isSearchAspect(a), `${spec.name} reads ${a}`).to.equal(true)
    }
  })

  it('gathers words, name and facets from a dataset', () => {
    const d = buildSearchDoc('dataset', 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)', {
      datasetKey: {platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD'},
      datasetProperties: {name: 'orders', description: 'web purchases', customProperties: {team: 'shop'}},
      globalTags: {tags: [{tag: 'urn:li:tag:pii'}]},
      ownership: {owners: [{owner: 'urn:li:corpuser:alice', type: 'DATAOWNER'}]},
      schemaMetadata: {fields: [{fieldPath: 'order_id', glossaryTerms: {terms: [{urn: 'urn:li:glossaryTerm:id'}]}}]},
      status: {removed: true},
    })
    expect(d.name).to.equal('orders')
    for (const w of ['orders', 'web purchases', 'team=shop', 'pii', 'alice', 'order_id']) expect(d.text).to.include(w)
    expect(d.removed).to.equal(true)
    expect(d.facets).to.deep.include({platform: 'urn:li:dataPlatform:hive', origin: 'PROD', tags: ['urn:li:tag:pii'], owners: ['urn:li:corpuser:alice'], glossaryTerms: ['urn:li:glossaryTerm:id']})
  })

  it('reads platform, environment and a fallback name off the urn, not a key aspect that contradicts it', () => {
    const d = buildSearchDoc('dataset', 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)', {
      datasetKey: {platform: 'urn:li:dataPlatform:kafka', name: 'elsewhere', origin: 'DEV'},
    })
    expect(d.facets).to.deep.include({platform: 'urn:li:dataPlatform:hive', origin: 'PROD'})
    const dash = buildSearchDoc('dashboard', 'urn:li:dashboard:(powerbi,reports.5e42)', {dashboardKey: {dashboardTool: 'looker', dashboardId: 'other'}})
    expect(dash.name).to.equal('reports.5e42')
    expect(dash.facets.platform).to.equal('urn:li:dataPlatform:powerbi')
  })
})

describe('searchProjection', () => {
  const ds = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)'
  const aspects: Record<string, any> = {
    datasetKey: {platform: 'urn:li:dataPlatform:hive', name: 'db.orders', origin: 'PROD'},
    datasetProperties: {name: 'orders', description: 'all orders', qualifiedName: 'db.orders', customProperties: {team: 'sales'}, created: {time: 1}},
    editableDatasetProperties: {description: 'edited words', created: {time: 1, actor: 'urn:li:corpuser:x'}},
    schemaMetadata: {
      schemaName: 'orders',
      platform: 'urn:li:dataPlatform:hive',
      version: 0,
      hash: '',
      platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: 'x'}},
      fields: [
        {fieldPath: 'id', nativeDataType: 'int', type: {type: {'com.linkedin.schema.NumberType': {}}}, description: 'order id', globalTags: {tags: [{tag: 'urn:li:tag:key', context: 'x'}]}, glossaryTerms: {terms: [{urn: 'urn:li:glossaryTerm:Id'}], auditStamp: {time: 0, actor: 'a'}}},
        {fieldPath: 'amount', nativeDataType: 'decimal', type: {type: {'com.linkedin.schema.NumberType': {}}}},
      ],
    },
    editableSchemaMetadata: {editableSchemaFieldInfo: [{fieldPath: 'amount', description: 'in cents', globalTags: {tags: [{tag: 'urn:li:tag:money'}]}}]},
    globalTags: {tags: [{tag: 'urn:li:tag:pii', context: 'c'}]},
    glossaryTerms: {terms: [{urn: 'urn:li:glossaryTerm:Order'}], auditStamp: {time: 0, actor: 'a'}},
    ownership: {owners: [{owner: 'urn:li:corpuser:alice', type: 'DATAOWNER', source: {type: 'MANUAL'}}], lastModified: {time: 0, actor: 'a'}},
    domains: {domains: ['urn:li:domain:sales']},
    container: {container: 'urn:li:container:db'},
    subTypes: {typeNames: ['Table']},
    status: {removed: true},
    dataPlatformInstance: {platform: 'urn:li:dataPlatform:hive', instance: 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:hive,i)'},
  }

  it('gives buildSearchDoc the same document as the whole values, with less text', () => {
    const projected: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(aspects)) projected[k] = JSON.parse(JSON.stringify(searchProjection(v)))
    expect(buildSearchDoc('dataset', ds, projected)).to.deep.equal(buildSearchDoc('dataset', ds, aspects))
    expect(JSON.stringify(projected.schemaMetadata).length).to.be.lessThan(JSON.stringify(aspects.schemaMetadata).length / 2)
    expect(JSON.stringify(projected)).not.to.include('NumberType')
  })

  it('gives the same document for users, groups and terms', () => {
    const cases: Array<[string, string, Record<string, any>]> = [
      ['corpuser', 'urn:li:corpuser:bob', {corpUserKey: {username: 'bob'}, corpUserInfo: {active: true, displayName: 'Bob B', email: 'bob@x', title: 'eng', managerUrn: 'urn:li:corpuser:m'}}],
      ['corpGroup', 'urn:li:corpGroup:eng', {corpGroupKey: {name: 'eng'}, corpGroupInfo: {displayName: 'Engineering', description: 'builders', admins: [], members: [], groups: []}}],
      ['glossaryTerm', 'urn:li:glossaryTerm:t', {glossaryTermKey: {name: 't'}, glossaryTermInfo: {name: 'Term', definition: 'a meaning', termSource: 'INTERNAL'}}],
    ]
    for (const [type, urn, a] of cases) {
      const projected = Object.fromEntries(Object.entries(a).map(([k, v]) => [k, JSON.parse(JSON.stringify(searchProjection(v)))]))
      expect(buildSearchDoc(type, urn, projected), type).to.deep.equal(buildSearchDoc(type, urn, a))
    }
  })
})
