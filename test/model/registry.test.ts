import {expect} from 'chai'
import {aspectsOf, entitySpec, entitySpecs, isTimeseries, keyAspectOf, requireAspect, validateUrn} from '../../src/model/registry.js'
import {MdcliError} from '../../src/errors.js'

function err(fn: () => unknown): MdcliError {
  try {
    fn()
  } catch (e) {
    return e as MdcliError
  }
  throw new Error('expected an error')
}

describe('entity registry', () => {
  it('knows every entity type the spec names', () => {
    const names = entitySpecs().map((e) => e.name)
    for (const n of ['dataset', 'container', 'dashboard', 'chart', 'dataFlow', 'dataJob', 'domain', 'glossaryTerm', 'glossaryNode', 'tag', 'notebook', 'corpuser', 'corpGroup', 'dataPlatform', 'dataPlatformInstance', 'mlModel', 'mlModelGroup', 'mlFeature', 'mlFeatureTable', 'mlPrimaryKey']) {
      expect(names, n).to.include(n)
    }
  })

  it('derives key aspects from urns', () => {
    expect(keyAspectOf('urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)')).to.deep.equal({name: 'datasetKey', value: {platform: 'urn:li:dataPlatform:hive', name: 'db.t', origin: 'PROD'}})
    expect(keyAspectOf('urn:li:dataJob:(urn:li:dataFlow:(airflow,dag,PROD),t1)')).to.deep.equal({name: 'dataJobKey', value: {flow: 'urn:li:dataFlow:(airflow,dag,PROD)', jobId: 't1'}})
    expect(keyAspectOf('urn:li:corpuser:jdoe')).to.deep.equal({name: 'corpUserKey', value: {username: 'jdoe'}})
    expect(keyAspectOf('urn:li:glossaryTerm:A.B')).to.deep.equal({name: 'glossaryTermKey', value: {name: 'A.B'}})
  })

  it('checks key shape, nested urn types and environments', () => {
    expect(err(() => validateUrn('urn:li:dataset:(urn:li:dataPlatform:hive,db.t)')).message).to.match(/dataset key has 3 parts/)
    expect(err(() => validateUrn('urn:li:dataset:(urn:li:tag:x,db.t,PROD)')).message).to.match(/must be a dataPlatform urn/)
    expect(err(() => validateUrn('urn:li:dataset:(urn:li:dataPlatform:hive,db.t,MARS)')).message).to.match(/'MARS' is not an environment/)
    // A key part that is no urn at all is named from the urn sent, not from the part alone.
    const notUrn = err(() => validateUrn('urn:li:dataset:(hive,db.t,PROD)'))
    expect(notUrn.message).to.equal("Invalid urn urn:li:dataset:(hive,db.t,PROD): key part 'platform' must be a dataPlatform urn, found hive")
    expect(notUrn.code).to.equal('E_BAD_URN')
    expect(err(() => validateUrn('urn:li:nosuch:x')).code).to.equal('E_UNKNOWN_ENTITY_TYPE')
  })

  it('lists the aspects an entity accepts, key aspect first', () => {
    const a = aspectsOf('dataset')
    expect(a[0]).to.equal('datasetKey')
    expect(a).to.include.members(['ownership', 'schemaMetadata', 'datasetProfile', 'globalTags'])
    expect(entitySpec('domain').aspects).to.not.include('status')
  })

  it('refuses aspects an entity does not accept, suggesting the closest', () => {
    const e = err(() => requireAspect('dataset', 'ownershp'))
    expect(e.code).to.equal('E_UNKNOWN_ASPECT')
    expect(e.message).to.match(/did you mean ownership\?/)
    expect(err(() => requireAspect('tag', 'schemaMetadata')).code).to.equal('E_UNKNOWN_ASPECT')
  })

  it('gives containers DataHub\'s aspect list: no deprecation (spec rule 1), no incidentsSummary', () => {
    for (const a of ['deprecation', 'incidentsSummary']) {
      const e = err(() => requireAspect('container', a))
      expect(e.code, a).to.equal('E_UNKNOWN_ASPECT')
      expect(e.message).to.equal(`Unknown aspect ${a} for entity container`)
    }
    expect(aspectsOf('container')).to.have.members(['containerKey', 'containerProperties', 'editableContainerProperties', 'dataPlatformInstance', 'subTypes', 'ownership', 'container', 'globalTags', 'glossaryTerms', 'institutionalMemory', 'browsePaths', 'status', 'domains', 'browsePathsV2', 'structuredProperties', 'forms'])
    // The other assets keep theirs.
    for (const t of ['dataset', 'chart', 'dashboard', 'dataFlow', 'dataJob']) expect(aspectsOf(t), t).to.include.members(['deprecation', 'incidentsSummary'])
  })

  it('marks timeseries aspects', () => {
    expect(isTimeseries('datasetProfile')).to.equal(true)
    expect(isTimeseries('operation')).to.equal(true)
    expect(isTimeseries('ownership')).to.equal(false)
  })
})
