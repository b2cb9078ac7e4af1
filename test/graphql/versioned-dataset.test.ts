/**
 * `versionedDataset(urn, versionStamp)` on a real `mdcli lite`: the aspects a stamp names at
 * those versions (0 = latest, 1 = the oldest kept, …), the others as they are now — what
 * DataHub's schema history view asks for.
 */
import {expect} from 'chai'
import {http, type LiteProcess, startLite} from '../helpers/lite.js'

const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,hist.orders,PROD)'
const stamp = {time: 0, actor: 'urn:li:corpuser:datahub'}
const field = (fieldPath: string) => ({fieldPath, nullable: true, type: {type: {'com.linkedin.schema.StringType': {}}}, nativeDataType: 'string'})
const schema = (fields: string[]) => ({schemaName: 'orders', platform: 'urn:li:dataPlatform:hive', version: 0, created: stamp, lastModified: stamp, hash: '', platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: ''}}, fields: fields.map(field)})

describe('graphql: versionedDataset', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  const call = async (query: string, variables: Record<string, unknown> = {}) => (await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query, variables}})).body
  const Q = `query v($urn: String!, $s: String) { versionedDataset(urn: $urn, versionStamp: $s) {
    urn type name platform { urn } properties { name description } schema { fields { fieldPath } lastObserved } editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description } } } }`
  const get = async (s?: string, urn = DS) => {
    const b = await call(Q, {urn, s})
    expect(b.errors, JSON.stringify(b.errors)).to.equal(undefined)
    return b.data.versionedDataset
  }
  const put = async (aspectName: string, json: unknown) => {
    const r = await http(`${lite.url}/aspects?action=ingestProposal`, {token: lite.token, body: {proposal: {entityUrn: DS, aspectName, changeType: 'UPSERT', aspect: {json}}}})
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
  }

  before(async () => {
    lite = await startLite()
    await put('datasetProperties', {name: 'orders', description: 'v1'})
    await put('schemaMetadata', schema(['id']))
    await put('schemaMetadata', schema(['id', 'amount']))
    await put('editableSchemaMetadata', {editableSchemaFieldInfo: [{fieldPath: 'id', description: 'key'}], created: stamp, lastModified: stamp})
    await put('datasetProperties', {name: 'orders', description: 'v2'})
  })
  after(async () => {
    await lite?.stop()
  })

  it('without a stamp: the dataset as it is now', async () => {
    const d = await get()
    expect(d).to.deep.include({urn: DS, type: 'DATASET', name: 'hist.orders', platform: {urn: 'urn:li:dataPlatform:hive'}, properties: {name: 'orders', description: 'v2'}})
    expect(d.schema.fields.map((f: any) => f.fieldPath)).to.deep.equal(['id', 'amount'])
    expect(d.schema.lastObserved).to.be.a('number')
  })

  it('with a stamp: the named aspects at those versions, the others now', async () => {
    const d = await get('schemaMetadata:1;datasetProperties:1')
    expect(d.schema.fields.map((f: any) => f.fieldPath)).to.deep.equal(['id'])
    expect(d.properties.description).to.equal('v1')
    expect(d.editableSchemaMetadata.editableSchemaFieldInfo).to.deep.equal([{fieldPath: 'id', description: 'key'}])
    expect((await get('schemaMetadata:0')).schema.fields).to.have.length(2)
  })

  it('a version that is not stored leaves that aspect out; a dataset that does not exist is null', async () => {
    expect((await get('schemaMetadata:9')).schema).to.equal(null)
    expect(await get(undefined, 'urn:li:dataset:(urn:li:dataPlatform:hive,nope,PROD)')).to.equal(null)
  })

  it('a malformed stamp, an aspect datasets do not have, and a non-dataset urn are 400s', async () => {
    for (const [urn, s] of [[DS, 'schemaMetadata'], [DS, 'schemaMetadata:x'], [DS, 'chartInfo:1'], [DS, 'schemaMetadata:1;schemaMetadata:2'], ['urn:li:corpuser:bob', undefined]] as const) {
      const b = await call(Q, {urn, s})
      expect(b.errors?.[0]?.extensions?.code, `${urn} ${s}: ${JSON.stringify(b)}`).to.equal(400)
    }
  })
})
