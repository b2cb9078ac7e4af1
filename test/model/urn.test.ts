import {expect} from 'chai'
import {datasetUrn, encodeUrnKeyPart, encodeUrnPath, formatUrn, parseUrn} from '../../src/model/urn.js'
import {MdcliError} from '../../src/errors.js'

function code(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (e) {
    return (e as MdcliError).code
  }
  return undefined
}

describe('urn', () => {
  const roundTrip = [
    'urn:li:tag:pii',
    'urn:li:corpuser:jdoe',
    'urn:li:dataPlatform:hive',
    'urn:li:glossaryTerm:Classification.Confidential',
    'urn:li:glossaryTerm:Personal Information.Email',
    'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)',
    'urn:li:dataFlow:(airflow,dag_abc,PROD)',
    'urn:li:dashboard:(looker,dashboards.1)',
    'urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_1)',
    'urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD),user.address.zip)',
    'urn:li:dataPlatformInstance:(urn:li:dataPlatform:mysql,prod_cluster)',
  ]
  for (const u of roundTrip) {
    it(`round-trips ${u}`, () => {
      const p = parseUrn(u)
      expect(formatUrn(p.entityType, p.parts)).to.equal(u)
      expect(p.raw).to.equal(u)
    })
  }

  it('splits tuple keys at depth 0 only, keeping nested urns whole', () => {
    const p = parseUrn('urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_1)')
    expect(p.entityType).to.equal('dataJob')
    expect(p.isTuple).to.equal(true)
    expect(p.parts).to.deep.equal(['urn:li:dataFlow:(airflow,dag_abc,PROD)', 'task_1'])
  })

  it("encodes a key part as DataHub's builders do: , ( ) only, and only once", () => {
    expect(encodeUrnKeyPart('db.s.t,(1) x%y')).to.equal('db.s.t%2C%281%29 x%y')
    expect(encodeUrnKeyPart(encodeUrnKeyPart('a,b'))).to.equal('a%2Cb')
    expect(parseUrn(datasetUrn('postgres', encodeUrnKeyPart('d.s.t,(1)'))).parts).to.have.length(3)
  })

  it('builds dataset urns', () => {
    expect(datasetUrn('hive', 'db.t')).to.equal('urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)')
    expect(datasetUrn('urn:li:dataPlatform:kafka', 'topic', 'DEV')).to.equal('urn:li:dataset:(urn:li:dataPlatform:kafka,topic,DEV)')
  })

  it('percent-encodes urns for paths', () => {
    expect(encodeUrnPath('urn:li:dataset:(urn:li:dataPlatform:hive,a,PROD)')).to.equal('urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3Ahive%2Ca%2CPROD%29')
  })

  const bad: Array<[string, RegExp]> = [
    ['', /empty/],
    ['foo:li:tag:x', /must start with 'urn:li:'/],
    ['urn:xx:tag:x', /must start with 'urn:li:'/],
    ['urn:li:tag', /expected urn:li:<entityType>:<key>/],
    ['urn:li:tag:', /empty key/],
    ['urn:li:Tag:x', /entity type 'Tag'/],
    ['urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD', /must end with '\)'/],
    ['urn:li:dataset:(urn:li:dataPlatform:hive,,PROD)', /tuple part 2 is empty/],
    ['urn:li:dataset:(urn:li:dataPlatform:hive,(x,PROD)', /unbalanced/],
    // The urn sent is named first, then the part and what is wrong with it.
    ['urn:li:dataset:(urn:li::hive,x,PROD)', /^Invalid urn urn:li:dataset:\(urn:li::hive,x,PROD\): part 1: Invalid urn urn:li::hive: expected/],
    ['urn:li:tag:a\nb', /control character/],
    // PostgreSQL's text cannot hold a NUL, so no store could read such an urn back.
    ['urn:li:dataset:(urn:li:dataPlatform:hive,a\u0000b,PROD)', /control character/],
  ]
  for (const [u, msg] of bad) {
    it(`rejects ${JSON.stringify(u)} with a typed error naming the problem`, () => {
      expect(code(() => parseUrn(u))).to.equal('E_BAD_URN')
      expect(() => parseUrn(u)).to.throw(msg)
    })
  }
})
