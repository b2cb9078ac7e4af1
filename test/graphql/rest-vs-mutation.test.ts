/**
 * A raw REST write and a GraphQL read-modify-write of the same aspect, racing: every outcome
 * must be one of the two serial orders, never the edit writing back a value read before the
 * acknowledged REST write (a lost update).
 */
import {expect} from 'chai'
import {encodeUrnPath} from '../../src/model/urn.js'
import {cleanup, http, type LiteProcess, startLite} from '../helpers/lite.js'

describe('graphql: REST writes and mutations on one entity', function () {
  this.timeout(60000)
  let lite: LiteProcess
  before(async () => {
    lite = await startLite()
    const tag = {proposal: {entityUrn: 'urn:li:tag:gql', aspectName: 'tagProperties', changeType: 'UPSERT', aspect: {json: {name: 'gql'}}}}
    expect((await http(`${lite.url}/aspects?action=ingestProposal`, {body: tag})).status).to.equal(200)
  })
  after(async () => {
    await lite.stop()
    cleanup(lite.storeDir, lite.home)
  })

  it('never loses an acknowledged REST write to a concurrent addTags', async () => {
    for (let i = 0; i < 40; i++) {
      const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,race_${i},PROD)`
      const seed = {proposal: {entityUrn: urn, aspectName: 'globalTags', changeType: 'UPSERT', aspect: {json: {tags: [{tag: 'urn:li:tag:old'}]}}}}
      expect((await http(`${lite.url}/aspects?action=ingestProposal`, {body: seed})).status).to.equal(200)
      const rest = http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: {...seed.proposal, aspect: {json: {tags: [{tag: 'urn:li:tag:rest'}]}}}}})
      const gql = http(`${lite.url}/api/graphql`, {body: {query: `mutation { addTags(input: {tagUrns: ["urn:li:tag:gql"], resourceUrn: "${urn}"}) }`}})
      const [r, g] = await Promise.all([rest, gql])
      expect(r.status).to.equal(200)
      expect(g.body).to.deep.equal({data: {addTags: true}})
      const final = await http(`${lite.url}/aspects/${encodeUrnPath(urn)}?aspect=globalTags`)
      const tags = (final.body.aspect['com.linkedin.common.GlobalTags'].tags as Array<{tag: string}>).map((t) => t.tag).sort()
      // REST then addTags: [gql, rest]; addTags then REST: [rest]. Never [gql, old].
      expect([JSON.stringify(['urn:li:tag:gql', 'urn:li:tag:rest']), JSON.stringify(['urn:li:tag:rest'])], `round ${i}: ${tags}`).to.include(JSON.stringify(tags))
    }
  })
})
