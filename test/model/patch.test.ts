import {expect} from 'chai'
import {applyAspectPatch, checkPatch} from '../../src/model/patch.js'

describe('PATCH: JSON Patch with DataHub keyed arrays', () => {
  it('adds and removes tags, terms and upstreams by urn, keeping the rest', () => {
    const tags = applyAspectPatch('globalTags', {tags: [{tag: 'urn:li:tag:a'}, {tag: 'urn:li:tag:b'}]}, [
      {op: 'add', path: '/tags/urn:li:tag:c', value: {tag: 'urn:li:tag:c'}},
      {op: 'remove', path: '/tags/urn:li:tag:a'},
    ])
    expect(tags).to.deep.equal({tags: [{tag: 'urn:li:tag:b'}, {tag: 'urn:li:tag:c'}]})
    // A value naming another key than its path would land twice under that key: refused.
    expect(() => applyAspectPatch('globalTags', {tags: [{tag: 'urn:li:tag:y'}]}, [{op: 'add', path: '/tags/urn:li:tag:x', value: {tag: 'urn:li:tag:y'}}])).to.throw(/PATCH value's tag "urn:li:tag:y" does not match its path's key "urn:li:tag:x"/)
    const up = applyAspectPatch('upstreamLineage', undefined, [
      {op: 'add', path: '/upstreams/urn:li:dataset:(urn:li:dataPlatform:s3,a~1b,PROD)', value: {dataset: 'urn:li:dataset:(urn:li:dataPlatform:s3,a/b,PROD)', type: 'COPY', auditStamp: {time: 0, actor: 'urn:li:corpuser:x'}}},
    ])
    expect(up.upstreams).to.deep.equal([{dataset: 'urn:li:dataset:(urn:li:dataPlatform:s3,a/b,PROD)', type: 'COPY', auditStamp: {time: 0, actor: 'urn:li:corpuser:x'}}])
  })

  it('owners are keyed by owner and type; custom properties by key; plain fields replace', () => {
    const own = applyAspectPatch('ownership', {owners: [{owner: 'urn:li:corpuser:a', type: 'DATAOWNER'}], lastModified: {time: 0, actor: 'urn:li:corpuser:x'}}, [
      {op: 'add', path: '/owners/urn:li:corpuser:b/TECHNICAL_OWNER', value: {owner: 'urn:li:corpuser:b', type: 'TECHNICAL_OWNER'}},
      {op: 'remove', path: '/owners/urn:li:corpuser:a/DATAOWNER'},
    ])
    expect(own.owners).to.deep.equal([{owner: 'urn:li:corpuser:b', type: 'TECHNICAL_OWNER'}])
    const props = applyAspectPatch('datasetProperties', {name: 'x', customProperties: {a: '1'}}, [
      {op: 'add', path: '/customProperties/b', value: '2'},
      {op: 'replace', path: '/name', value: 'y'},
    ])
    expect(props).to.deep.equal({name: 'y', customProperties: {a: '1', b: '2'}})
  })

  it('column lineage paths build fineGrainedLineages', () => {
    const d = 'urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:pg,v,PROD),id)'
    const u = 'urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:dbt,v,PROD),id)'
    const r = applyAspectPatch('upstreamLineage', {upstreams: []}, [{op: 'add', path: `/fineGrainedLineages/NONE/${d}/NONE/${u}`, value: {confidenceScore: 1}}])
    expect(r.fineGrainedLineages).to.deep.equal([{upstreamType: 'FIELD_SET', upstreams: [u], downstreamType: 'FIELD', downstreams: [d], confidenceScore: 1}])
  })

  it('schema fields are keyed by fieldPath, their tags and terms by urn within them', () => {
    const stored = {
      editableSchemaFieldInfo: [
        {fieldPath: 'a', description: 'kept', globalTags: {tags: [{tag: 'urn:li:tag:x'}]}},
        {fieldPath: 'b/c', glossaryTerms: {terms: [{urn: 'urn:li:glossaryTerm:t'}], auditStamp: {time: 1, actor: 'urn:li:corpuser:u'}}},
      ],
    }
    const r = applyAspectPatch('editableSchemaMetadata', stored, [
      {op: 'add', path: '/editableSchemaFieldInfo/a/globalTags/tags/urn:li:tag:pii', value: {tag: 'urn:li:tag:pii'}},
      {op: 'remove', path: '/editableSchemaFieldInfo/a/globalTags/tags/urn:li:tag:x', value: {}},
      {op: 'remove', path: '/editableSchemaFieldInfo/b~1c/glossaryTerms/terms/urn:li:glossaryTerm:t', value: {}},
      {op: 'add', path: '/editableSchemaFieldInfo/new/globalTags/tags/urn:li:tag:pii', value: {tag: 'urn:li:tag:pii'}},
    ])
    expect(r).to.deep.equal({
      editableSchemaFieldInfo: [
        {fieldPath: 'a', description: 'kept', globalTags: {tags: [{tag: 'urn:li:tag:pii'}]}},
        {fieldPath: 'b/c', glossaryTerms: {terms: [], auditStamp: {time: 1, actor: 'urn:li:corpuser:u'}}},
        {fieldPath: 'new', globalTags: {tags: [{tag: 'urn:li:tag:pii'}]}},
      ],
    })
  })

  it('structured properties are keyed by propertyUrn, links by url, siblings and domains by urn', () => {
    const X = 'urn:li:structuredProperty:io.x'
    const Y = 'urn:li:structuredProperty:io.y'
    const props = applyAspectPatch('structuredProperties', {properties: [{propertyUrn: X, values: [{string: 'old'}]}, {propertyUrn: Y, values: [{double: 1}]}]}, [
      {op: 'remove', path: `/properties/${X}`, value: {}},
      {op: 'add', path: `/properties/${X}`, value: {propertyUrn: X, values: [{string: 'foo'}]}},
    ])
    expect(props).to.deep.equal({properties: [{propertyUrn: Y, values: [{double: 1}]}, {propertyUrn: X, values: [{string: 'foo'}]}]})
    const links = applyAspectPatch('institutionalMemory', {elements: [{url: 'https://a/b', description: 'a'}]}, [
      {op: 'add', path: '/elements/https:~1~1c', value: {url: 'https://c', description: 'c'}},
      {op: 'remove', path: '/elements/https:~1~1a~1b'},
    ])
    expect(links.elements).to.deep.equal([{url: 'https://c', description: 'c'}])
    const sib = applyAspectPatch('siblings', {siblings: ['urn:li:dataset:a'], primary: false}, [{op: 'add', path: '/siblings/urn:li:dataset:b', value: 'urn:li:dataset:b'}])
    expect(sib).to.deep.equal({siblings: ['urn:li:dataset:a', 'urn:li:dataset:b'], primary: false})
  })

  it('a patch of an aspect the entity does not hold starts from the template\'s default, as DataHub\'s getDefault()', () => {
    const system = {time: 1234, actor: 'urn:li:corpuser:__datahub_system'}
    const terms = applyAspectPatch('glossaryTerms', undefined, [{op: 'add', path: '/terms/urn:li:glossaryTerm:t', value: {urn: 'urn:li:glossaryTerm:t'}}], 'patch', 1234)
    expect(terms).to.deep.equal({terms: [{urn: 'urn:li:glossaryTerm:t'}], auditStamp: system})
    const field = applyAspectPatch('editableSchemaMetadata', undefined, [{op: 'add', path: '/editableSchemaFieldInfo/f/glossaryTerms/terms/urn:li:glossaryTerm:t', value: {urn: 'urn:li:glossaryTerm:t'}}], 'patch', 1234)
    expect(field).to.deep.equal({created: system, lastModified: system, editableSchemaFieldInfo: [{fieldPath: 'f', glossaryTerms: {terms: [{urn: 'urn:li:glossaryTerm:t'}], auditStamp: system}}]})
    const dash = applyAspectPatch('dashboardInfo', undefined, [{op: 'add', path: '/chartEdges/urn:li:chart:(looker,c)', value: {destinationUrn: 'urn:li:chart:(looker,c)'}}], 'patch', 1234)
    expect(dash).to.deep.include({title: '', description: '', lastModified: {created: system, lastModified: system}, chartEdges: [{destinationUrn: 'urn:li:chart:(looker,c)'}]})
    // A stored value is patched as it is: nothing of the default is added to it.
    expect(applyAspectPatch('ownership', {owners: []}, [], 'patch', 1234)).to.deep.equal({owners: []})
    expect(applyAspectPatch('status', undefined, [{op: 'add', path: '/removed', value: true}], 'patch', 1234)).to.deep.equal({removed: true})
  })

  it('refuses a document that is not a patch, and prototype names in paths', () => {
    expect(() => checkPatch({tags: []})).to.throw(/JSON Patch array/)
    expect(() => checkPatch([{op: 'move', path: '/a'}])).to.throw(/operation 0/)
    expect(() => checkPatch([{op: 'add', path: '/__proto__/x', value: 1}])).to.throw(/not allowed/)
  })
})
