import {expect} from 'chai'
import {http, startLite, type LiteProcess} from '../helpers/lite.js'
import {datasetUrn} from '../ingest/helpers.js'

describe('graphql: managing tags, domains, groups, names and links (createGroup, deleteTag, deleteDomain, setTagColor, updateName, updateLink)', function () {
  this.timeout(60_000)
  let lite: LiteProcess
  let bobToken: string
  const DS = datasetUrn('manage.orders')
  const call = async (query: string, token = lite.token) => (await http(`${lite.url}/api/graphql`, {token, body: {query}})).body
  const ok = async (query: string) => {
    const b = await call(query)
    expect(b.errors, JSON.stringify(b.errors)).to.equal(undefined)
    return b.data
  }
  const refused = async (query: string) => {
    const b = await call(query, bobToken)
    expect(b.errors?.[0]?.extensions?.code, JSON.stringify(b)).to.equal(403)
  }

  before(async () => {
    lite = await startLite()
    await ok('mutation { createTag(input: {id: "gone", name: "gone"}) }')
    await ok('mutation { createTag(input: {id: "kept", name: "kept"}) }')
    await ok('mutation { createDomain(input: {id: "sales", name: "Sales"}) }')
    await ok('mutation { createDomain(input: {id: "emea", name: "EMEA", parentDomain: "urn:li:domain:sales"}) }')
    const r = await http(`${lite.url}/aspects?action=ingestProposal`, {
      token: lite.token,
      body: {proposal: {entityType: 'dataset', entityUrn: DS, changeType: 'UPSERT', aspectName: 'status', aspect: {contentType: 'application/json', value: '{"removed":false}'}}},
    })
    expect(r.status).to.equal(200)
    await ok(`mutation { addTags(input: {tagUrns: ["urn:li:tag:gone", "urn:li:tag:kept"], resourceUrn: "${DS}"}) }`)
    await ok(`mutation { setDomain(entityUrn: "${DS}", domainUrn: "urn:li:domain:emea") }`)
    await ok(`mutation { addLink(input: {linkUrl: "https://wiki.example.com/orders", label: "Wiki", resourceUrn: "${DS}"}) }`)
    bobToken = (await ok('mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "urn:li:corpuser:bob", duration: ONE_DAY, name: "bob"}) { accessToken } }')).createAccessToken.accessToken
  })
  after(async () => {
    await lite?.stop()
  })

  it('createDomain takes the owners DataHub\'s web app sends (its creator as business owner by default), and checks them', async () => {
    const biz = 'urn:li:ownershipType:__system__business_owner'
    const made = await ok(`mutation { createDomain(input: {id: "owned", name: "Owned", owners: [{ownerUrn: "urn:li:corpuser:datahub", ownerEntityType: CORP_USER, ownershipTypeUrn: "${biz}"}]}) }`)
    expect(made.createDomain).to.equal('urn:li:domain:owned')
    const read = await ok('{ domain(urn: "urn:li:domain:owned") { ownership { owners { owner { ... on CorpUser { urn } } ownershipType { urn } } } } }')
    expect(read.domain.ownership.owners).to.deep.equal([{owner: {urn: 'urn:li:corpuser:datahub'}, ownershipType: {urn: biz}}])
    const bad = await call('mutation { createDomain(input: {id: "badowner", name: "Bad owner", owners: [{ownerUrn: "urn:li:corpGroup:nobody", ownerEntityType: CORP_USER, type: BUSINESS_OWNER}]}) }')
    expect(bad.errors?.[0]?.message, JSON.stringify(bad)).to.match(/Expected a corp user urn/)
    expect((await call('{ domain(urn: "urn:li:domain:badowner") { urn } }')).data.domain).to.equal(null)
  })

  it('createGroup makes a group that reads back; an id in use is refused; bob may not', async () => {
    const urn = (await ok('mutation { createGroup(input: {id: "analysts", name: "Analysts", description: "People who ask"}) }')).createGroup
    expect(urn).to.equal('urn:li:corpGroup:analysts')
    const g = (await ok(`{ corpGroup(urn: "${urn}") { info { displayName description } } }`)).corpGroup
    expect(g.info).to.deep.equal({displayName: 'Analysts', description: 'People who ask'})
    expect((await call('mutation { createGroup(input: {id: "analysts", name: "Again"}) }')).errors[0].message).to.match(/already exists/)
    await refused('mutation { createGroup(input: {id: "bobs", name: "Bobs"}) }')
  })

  it('setTagColor and updateName change what reads back; a bad colour is a 400', async () => {
    await ok('mutation { setTagColor(urn: "urn:li:tag:kept", colorHex: "#1a2b3c") }')
    await ok('mutation { updateName(input: {urn: "urn:li:tag:kept", name: "Kept for good"}) }')
    await ok('mutation { updateName(input: {urn: "urn:li:domain:sales", name: "Sales & Marketing"}) }')
    const t = (await ok('{ tag(urn: "urn:li:tag:kept") { properties { name colorHex } } }')).tag
    expect(t.properties).to.deep.equal({name: 'Kept for good', colorHex: '#1a2b3c'})
    expect((await ok('{ domain(urn: "urn:li:domain:sales") { properties { name } } }')).domain.properties.name).to.equal('Sales & Marketing')
    expect((await call('mutation { setTagColor(urn: "urn:li:tag:kept", colorHex: "blue") }')).errors[0].message).to.match(/#1a2b3c/)
    expect((await call(`mutation { updateName(input: {urn: "${DS}", name: "x"}) }`)).errors[0].message).to.match(/no name to update/)
    await refused('mutation { setTagColor(urn: "urn:li:tag:kept", colorHex: "#000000") }')
  })

  it('updateLink replaces one link; an unknown one is refused', async () => {
    await ok(`mutation { updateLink(input: {currentUrl: "https://wiki.example.com/orders", currentLabel: "Wiki", linkUrl: "https://wiki.example.com/orders-v2", label: "Wiki (v2)", resourceUrn: "${DS}"}) }`)
    const links = (await ok(`{ dataset(urn: "${DS}") { institutionalMemory { elements { url label } } } }`)).dataset.institutionalMemory.elements
    expect(links).to.deep.equal([{url: 'https://wiki.example.com/orders-v2', label: 'Wiki (v2)'}])
    expect((await call(`mutation { updateLink(input: {currentUrl: "https://nowhere", currentLabel: "x", linkUrl: "https://a", label: "a", resourceUrn: "${DS}"}) }`)).errors[0].message).to.match(/has no link/)
  })

  it('deleteTag removes the tag and takes it off the entities that carried it; bob may not', async () => {
    await refused('mutation { deleteTag(urn: "urn:li:tag:gone") }')
    await ok('mutation { deleteTag(urn: "urn:li:tag:gone") }')
    expect((await ok('{ tag(urn: "urn:li:tag:gone") { urn } }')).tag).to.equal(null)
    const tags = (await ok(`{ dataset(urn: "${DS}") { tags { tags { tag { urn } } } } }`)).dataset.tags.tags.map((t: {tag: {urn: string}}) => t.tag.urn)
    expect(tags).to.deep.equal(['urn:li:tag:kept'])
  })

  it('deleteDomain refuses a domain with child domains, then deletes the child and unsets it', async () => {
    expect((await call('mutation { deleteDomain(urn: "urn:li:domain:sales") }')).errors[0].message).to.match(/child domains/)
    await ok('mutation { deleteDomain(urn: "urn:li:domain:emea") }')
    expect((await ok('{ domain(urn: "urn:li:domain:emea") { urn } }')).domain).to.equal(null)
    expect((await ok(`{ dataset(urn: "${DS}") { domain { domain { urn } } } }`)).dataset.domain).to.equal(null)
    await ok('mutation { deleteDomain(urn: "urn:li:domain:sales") }')
    expect((await call('mutation { deleteDomain(urn: "urn:li:domain:sales") }')).errors[0].message).to.match(/does not exist/)
  })
})
