import {expect} from 'chai'
import {entityWithModelDefaults} from '../../src/model/defaults.js'

describe('model defaults', () => {
  it('fill the aspects that have defaults and read no other aspect (a store may parse values on first read)', () => {
    const read = new Set<string>()
    const lazy = (name: string, value: unknown) => ({
      get value() {
        read.add(name)
        return value
      },
    })
    const rec = {urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)', aspects: {schemaMetadata: lazy('schemaMetadata', {fields: []}), ownership: lazy('ownership', {owners: []}), status: lazy('status', {})}}
    const out = entityWithModelDefaults(rec)
    expect([...read].sort()).to.deep.equal(['ownership', 'status'])
    expect(out.aspects.ownership!.value).to.deep.equal({owners: [], lastModified: {time: 0, actor: 'urn:li:corpuser:unknown'}})
    expect(out.aspects.status!.value).to.deep.equal({removed: false})
    // The stored record is not changed; the untouched aspect is the same object.
    expect(out).to.not.equal(rec)
    expect(out.aspects.schemaMetadata).to.equal(rec.aspects.schemaMetadata)
  })

  it('hands back the record itself when nothing is missing', () => {
    const rec = {aspects: {status: {value: {removed: true}}, datasetProperties: {value: {name: 'x'}}}}
    expect(entityWithModelDefaults(rec)).to.equal(rec)
  })
})
