import {expect} from 'chai'
import {prepareProposal} from '../../src/catalog/proposal.js'
import type {ProposalInput} from '../../src/model/wire.js'

const DS = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`
const status = (entityUrn: string, systemMetadata?: Record<string, unknown>): ProposalInput => ({entityUrn, aspectName: 'status', changeType: 'UPSERT', aspect: {json: {removed: false}}, ...(systemMetadata ? {systemMetadata} : {})})

describe('prepareProposal (in-process)', () => {
  it('gives each proposal its own urn\'s key aspect, whatever urn came before it', () => {
    const keyOf = (urn: string) => JSON.parse(prepareProposal(status(urn)).keyAspect.value) as Record<string, string>
    expect(keyOf(DS('a'))).to.deep.equal({platform: 'urn:li:dataPlatform:hive', name: 'a', origin: 'PROD'})
    expect(keyOf(DS('a')).name).to.equal('a')
    expect(keyOf(DS('b')).name).to.equal('b')
    expect(keyOf('urn:li:tag:pii')).to.deep.equal({name: 'pii'})
    // A bad urn after a good one is refused, not answered from the last one checked.
    expect(() => prepareProposal(status(DS('b').replace(',PROD)', ',NOWHERE)')))).to.throw(/not an environment/)
  })

  it('takes flat systemMetadata as given and normalizes anything else (nulls dropped, avro keys renamed)', () => {
    expect(prepareProposal(status(DS('a'), {runId: 'r1', lastObserved: 5})).systemMetadata).to.deep.equal({runId: 'r1', lastObserved: 5})
    expect(prepareProposal(status(DS('a'), {runId: 'r1', lastRunId: null, properties: {team: 'x', gone: null}})).systemMetadata).to.deep.equal({runId: 'r1', properties: {team: 'x'}})
    expect(prepareProposal(status(DS('a'), {'com.linkedin.pegasus2avro.x': 'y'})).systemMetadata).to.deep.equal({'com.linkedin.x': 'y'})
    // A typed check still applies to what is taken as given.
    expect(() => prepareProposal(status(DS('a'), {runId: 5}))).to.throw(/systemMetadata.runId must be a string/)
  })
})
