import {expect} from 'chai'
import {entitySpecs} from '../../src/model/registry.js'
import {buildSearchDoc, isSearchAspect} from '../../src/model/search-doc.js'

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
})
