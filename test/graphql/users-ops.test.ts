/**
 * DataHub's user and group management mutations and the operations report, on a real
 * `mdcli lite` with tokens: `updateUserStatus` (and a suspended user's token refused),
 * `removeUser`, `removeGroup`, `reportOperation`. The admin is the printed token; bob and carol
 * are users with no policy of their own.
 */
import {expect} from 'chai'
import {http, type LiteProcess, startLite} from '../helpers/lite.js'

const U = (n: string) => `urn:li:corpuser:${n}`
const G = (n: string) => `urn:li:corpGroup:${n}`
const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,ops.events,PROD)'
const UNAUTHORIZED = /^Unauthorized to perform this action/

describe('graphql: users, groups and operations', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  const tokens: Record<string, string> = {}

  const call = async (query: string, variables: Record<string, unknown> = {}, token = lite.token) => (await http(`${lite.url}/api/graphql`, {token, body: {query, variables}})).body
  const ok = async (query: string, variables: Record<string, unknown> = {}, token = lite.token) => {
    const b = await call(query, variables, token)
    expect(b.errors, JSON.stringify(b.errors)).to.equal(undefined)
    return b.data
  }
  const refused = async (query: string, variables: Record<string, unknown>, token: string, code: number, message?: string | RegExp) => {
    const b = await call(query, variables, token)
    expect(b.errors, JSON.stringify(b)).to.have.length(1)
    expect(b.errors[0].extensions.code, JSON.stringify(b.errors)).to.equal(code)
    if (typeof message === 'string') expect(b.errors[0].message).to.equal(message)
    else if (message) expect(b.errors[0].message).to.match(message)
    return b
  }
  const put = async (proposals: Array<[string, string, unknown]>) => {
    const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {
      token: lite.token,
      body: {atomic: true, proposals: proposals.map(([entityUrn, aspectName, json]) => ({entityUrn, aspectName, changeType: 'UPSERT', aspect: {json}}))},
    })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
  }
  const aspect = async (urn: string, name: string) => {
    const r = await http(`${lite.url}/aspects/${encodeURIComponent(urn)}?aspect=${name}&version=0`, {token: lite.token})
    // GMS's shape: {aspect: {<pegasus class>: value}, version, …}
    return r.status === 200 ? (Object.values(r.body.aspect)[0] as Record<string, unknown>) : null
  }
  const tokenFor = async (user: string) =>
    (await ok('mutation t($u: String!) { createAccessToken(input: {type: PERSONAL, actorUrn: $u, duration: ONE_DAY, name: "t"}) { accessToken } }', {u: U(user)})).createAccessToken.accessToken

  before(async () => {
    lite = await startLite()
    await put([
      [U('bob'), 'corpUserInfo', {active: true, displayName: 'Bob'}],
      [U('carol'), 'corpUserInfo', {active: true, displayName: 'Carol'}],
      [DS, 'datasetProperties', {name: 'events'}],
    ])
    tokens.bob = await tokenFor('bob')
    tokens.carol = await tokenFor('carol')
  })
  after(async () => {
    await lite?.stop()
  })

  describe('updateUserStatus', () => {
    const SET = 'mutation s($urn: String!, $status: CorpUserStatus!) { updateUserStatus(urn: $urn, status: $status) }'
    const STATUS = 'query q($urn: String!) { corpUser(urn: $urn) { status } }'

    it('needs MANAGE_USERS_AND_GROUPS: bob may not suspend carol', async () => {
      await refused(SET, {urn: U('carol'), status: 'SUSPENDED'}, tokens.bob!, 403, UNAUTHORIZED)
      expect((await ok(STATUS, {urn: U('carol')})).corpUser.status).to.equal(null)
    })

    it('suspends: writes corpUserStatus {status, lastModified}, answers the urn, and carol’s token is refused', async () => {
      expect((await ok('{ me { corpUser { urn } } }', {}, tokens.carol)).me.corpUser.urn).to.equal(U('carol'))
      expect((await ok(SET, {urn: U('carol'), status: 'SUSPENDED'})).updateUserStatus).to.equal(U('carol'))
      const a = await aspect(U('carol'), 'corpUserStatus')
      expect(a).to.deep.include({status: 'SUSPENDED'})
      expect(a!.lastModified).to.have.property('actor', U('datahub'))
      expect((await ok(STATUS, {urn: U('carol')})).corpUser.status).to.equal('SUSPENDED')
      const r = await http(`${lite.url}/api/graphql`, {token: tokens.carol, body: {query: '{ me { corpUser { urn } } }'}})
      expect(r.status, JSON.stringify(r.body)).to.equal(401)
      expect(JSON.stringify(r.body)).to.match(/suspended/)
      // bob is untouched
      expect((await ok('{ me { corpUser { urn } } }', {}, tokens.bob)).me.corpUser.urn).to.equal(U('bob'))
    })

    it('re-activating lets the same token in again', async () => {
      expect((await ok(SET, {urn: U('carol'), status: 'ACTIVE'})).updateUserStatus).to.equal(U('carol'))
      expect((await ok(STATUS, {urn: U('carol')})).corpUser.status).to.equal('ACTIVE')
      expect((await ok('{ me { corpUser { urn } } }', {}, tokens.carol)).me.corpUser.urn).to.equal(U('carol'))
    })

    it('refuses a user that does not exist, a group urn, and suspending the root user, writing nothing', async () => {
      await refused(SET, {urn: U('nobody'), status: 'SUSPENDED'}, lite.token, 400, `Failed to update the status of ${U('nobody')}. The user does not exist.`)
      expect(await aspect(U('nobody'), 'corpUserStatus')).to.equal(null)
      await refused(SET, {urn: G('x'), status: 'ACTIVE'}, lite.token, 400, /not a user urn/)
      await refused(SET, {urn: U('datahub'), status: 'SUSPENDED'}, lite.token, 400, /root user cannot be suspended/)
      await refused(SET, {urn: U('carol'), status: 'GONE'}, lite.token, 400)
    })
  })

  describe('removeUser and removeGroup', () => {
    const RM_USER = 'mutation r($urn: String!) { removeUser(urn: $urn) }'
    const RM_GROUP = 'mutation r($urn: String!) { removeGroup(urn: $urn) }'

    before(async () => {
      await put([
        [U('dave'), 'corpUserInfo', {active: true, displayName: 'Dave'}],
        [U('erin'), 'corpUserInfo', {active: true, displayName: 'Erin'}],
      ])
      await ok('mutation { createGroup(input: {id: "eng", name: "Engineering"}) }')
      await ok('mutation { createGroup(input: {id: "ops", name: "Operations"}) }')
      await ok('mutation m($g: String!, $u: [String!]!) { addGroupMembers(input: {groupUrn: $g, userUrns: $u}) }', {g: G('eng'), u: [U('dave'), U('erin')]})
      await ok('mutation m($g: String!, $u: [String!]!) { addGroupMembers(input: {groupUrn: $g, userUrns: $u}) }', {g: G('ops'), u: [U('dave')]})
      await ok('mutation o($r: String!, $o: String!) { addOwner(input: {ownerUrn: $o, ownerEntityType: CORP_USER, type: TECHNICAL_OWNER, resourceUrn: $r}) }', {r: DS, o: U('erin')})
    })

    it('need MANAGE_USERS_AND_GROUPS: bob may remove neither, and nothing goes', async () => {
      await refused(RM_GROUP, {urn: G('eng')}, tokens.bob!, 403, UNAUTHORIZED)
      await refused(RM_USER, {urn: U('erin')}, tokens.bob!, 403, UNAUTHORIZED)
      expect(await aspect(G('eng'), 'corpGroupInfo')).to.not.equal(null)
      expect(await aspect(U('erin'), 'corpUserInfo')).to.not.equal(null)
    })

    it('removeGroup deletes the group and takes it out of each member’s groupMembership, leaving other groups', async () => {
      expect((await ok(RM_GROUP, {urn: G('eng')})).removeGroup).to.equal(true)
      expect(await aspect(G('eng'), 'corpGroupInfo')).to.equal(null)
      expect((await aspect(U('dave'), 'groupMembership'))!.groups).to.deep.equal([G('ops')])
      expect((await aspect(U('erin'), 'groupMembership'))!.groups).to.deep.equal([])
      expect((await ok('query q($u: String!) { corpGroup(urn: $u) { urn exists } }', {u: G('ops')})).corpGroup.exists).to.equal(true)
    })

    it('removeUser deletes the user and the references to it (its ownerships)', async () => {
      const owners = async () => (await ok('query q($u: String!) { dataset(urn: $u) { ownership { owners { owner { ... on CorpUser { urn } } } } } }', {u: DS})).dataset.ownership?.owners ?? []
      expect(await owners()).to.have.length(1)
      expect((await ok(RM_USER, {urn: U('erin')})).removeUser).to.equal(true)
      expect(await aspect(U('erin'), 'corpUserInfo')).to.equal(null)
      expect(await aspect(U('erin'), 'groupMembership')).to.equal(null)
      expect(await owners()).to.deep.equal([])
    })

    it('refuses the wrong type, the root user, and what does not exist', async () => {
      await refused(RM_USER, {urn: G('ops')}, lite.token, 400, /not a user urn/)
      await refused(RM_GROUP, {urn: U('dave')}, lite.token, 400, /not a group urn/)
      await refused(RM_USER, {urn: U('datahub')}, lite.token, 400, /root user cannot be removed/)
      await refused(RM_GROUP, {urn: G('eng')}, lite.token, 404, /does not exist/)
      await refused(RM_USER, {urn: 'not-an-urn'}, lite.token, 400)
    })
  })

  describe('reportOperation', () => {
    const REPORT = 'mutation r($input: ReportOperationInput!) { reportOperation(input: $input) }'
    const OPS = `query q($u: String!) { dataset(urn: $u) { operations(limit: 10) {
      timestampMillis lastUpdatedTimestamp actor operationType customOperationType sourceType numAffectedRows partition customProperties { key value } } } }`
    const ops = async () => (await ok(OPS, {u: DS})).dataset.operations

    it('needs EDIT_ENTITY or EDIT_ENTITY_OPERATIONS on the dataset: bob is refused until a policy grants the latter', async () => {
      await refused(REPORT, {input: {urn: DS, operationType: 'INSERT', sourceType: 'DATA_PROCESS'}}, tokens.bob!, 403, UNAUTHORIZED)
      expect(await ops()).to.deep.equal([])
      const policy = (await ok('mutation p($input: PolicyUpdateInput!) { createPolicy(input: $input) }', {
        input: {type: 'METADATA', name: 'bob reports', state: 'ACTIVE', privileges: ['EDIT_ENTITY_OPERATIONS'], resources: {resources: [DS], allResources: false}, actors: {users: [U('bob')], resourceOwners: false, allUsers: false, allGroups: false}},
      })).createPolicy
      try {
        expect((await ok(REPORT, {input: {urn: DS, operationType: 'INSERT', sourceType: 'DATA_PROCESS', timestampMillis: 1_700_000_000_000}}, tokens.bob)).reportOperation).to.equal('true')
      } finally {
        await ok('mutation d($u: String!) { deletePolicy(urn: $u) }', {u: policy})
      }
      const [row] = await ops()
      expect(row).to.deep.include({timestampMillis: 1_700_000_000_000, lastUpdatedTimestamp: 1_700_000_000_000, actor: U('bob'), operationType: 'INSERT', sourceType: 'DATA_PROCESS', numAffectedRows: null, partition: null})
    })

    it('writes every field DataHub writes: custom type, rows, partition, custom properties; the time defaults to now', async () => {
      const before = Date.now()
      await ok(REPORT, {input: {urn: DS, operationType: 'CUSTOM', customOperationType: 'BACKFILL', sourceType: 'MANUAL', numAffectedRows: 42, partition: 'ds=2024-01-01', customProperties: [{key: 'job', value: 'nightly'}]}})
      const rows = await ops()
      const row = rows.find((r: any) => r.operationType === 'CUSTOM')
      expect(row).to.deep.include({actor: U('datahub'), customOperationType: 'BACKFILL', sourceType: 'MANUAL', numAffectedRows: 42, partition: 'ds=2024-01-01', customProperties: [{key: 'job', value: 'nightly'}]})
      expect(row.timestampMillis).to.be.at.least(before - 60_000)
      expect(row.lastUpdatedTimestamp).to.equal(row.timestampMillis)
    })

    it('refuses other entity types in DataHub’s words, a missing dataset, CUSTOM without its type, and bad numbers, writing nothing', async () => {
      const n = (await ops()).length
      await refused(REPORT, {input: {urn: U('bob'), operationType: 'INSERT', sourceType: 'MANUAL'}}, lite.token, 400, 'Unable to report operation. Invalid entity type corpuser provided.')
      await refused(REPORT, {input: {urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,nope,PROD)', operationType: 'INSERT', sourceType: 'MANUAL'}}, lite.token, 400, /does not exist/)
      await refused(REPORT, {input: {urn: DS, operationType: 'CUSTOM', sourceType: 'MANUAL'}}, lite.token, 400, /customOperationType is required/)
      await refused(REPORT, {input: {urn: DS, operationType: 'INSERT', sourceType: 'MANUAL', numAffectedRows: -1}}, lite.token, 400, /numAffectedRows/)
      await refused(REPORT, {input: {urn: DS, operationType: 'INSERT', sourceType: 'MANUAL', timestampMillis: -5}}, lite.token, 400, /timestampMillis/)
      await refused(REPORT, {input: {urn: DS, operationType: 'INSERT', sourceType: 'MANUAL', customProperties: [{key: 'a', value: '1'}, {key: 'a', value: '2'}]}}, lite.token, 400, /given twice/)
      await refused(REPORT, {input: {urn: DS, operationType: 'MERGE', sourceType: 'MANUAL'}}, lite.token, 400)
      expect(await ops()).to.have.length(n)
    })
  })

  it('a user edits their own profile, contact details too, with no privilege (as DataHub); another user’s profile needs EDIT_USER_PROFILE or, for contact details, EDIT_CONTACT_INFO', async () => {
    const EDIT = 'mutation e($u: String!, $i: CorpUserUpdateInput!) { updateCorpUserProperties(urn: $u, input: $i) { urn } }'
    await ok(EDIT, {u: U('bob'), i: {title: 'Analyst', teams: ['zebrateam'], skills: ['quokkaskill'], slack: '@bob'}}, tokens.bob)
    expect(await aspect(U('bob'), 'corpUserEditableInfo')).to.deep.include({title: 'Analyst', teams: ['zebrateam'], slack: '@bob'})
    // Teams and skills are searched, as DataHub's CorpUserEditableInfo has them.
    for (const word of ['zebrateam', 'quokkaskill']) {
      const found = await ok('query s($q: String!) { searchAcrossEntities(input: {query: $q, start: 0, count: 10}) { searchResults { entity { urn } } } }', {q: word})
      expect(found.searchAcrossEntities.searchResults.map((r: {entity: {urn: string}}) => r.entity.urn), word).to.deep.equal([U('bob')])
    }
    await refused(EDIT, {u: U('carol'), i: {title: 'Intern'}}, tokens.bob, 403, UNAUTHORIZED)
    await refused(EDIT, {u: U('carol'), i: {email: 'x@example.com'}}, tokens.bob, 403, UNAUTHORIZED)
    expect(await aspect(U('carol'), 'corpUserEditableInfo')).to.equal(null)
  })

  describe('onboarding step states (batchGetStepStates / batchUpdateStepStates), as DataHub’s web app keeps them', () => {
    const GET = 'query g($ids: [String!]!) { batchGetStepStates(input: {ids: $ids}) { results { id properties { key value } } } }'
    const SET = 'mutation s($states: [StepStateInput!]!) { batchUpdateStepStates(input: {states: $states}) { results { id succeeded } } }'
    const state = (id: string, value: string) => ({id, properties: [{key: 'state', value}]})

    it('a user writes and reads back their own, replacing what was there; unknown ids are left out', async () => {
      const mine = `${U('bob')}-home-page-search-bar`
      expect((await ok(SET, {states: [state(mine, 'COMPLETE'), state(`${U('bob')}-lastViewedAnnouncementTimeMs`, '1700000000000')]}, tokens.bob)).batchUpdateStepStates.results).to.deep.equal([
        {id: mine, succeeded: true},
        {id: `${U('bob')}-lastViewedAnnouncementTimeMs`, succeeded: true},
      ])
      await ok(SET, {states: [{id: mine, properties: [{key: 'state', value: 'SEEN'}, {key: 'at', value: '2'}]}]}, tokens.bob)
      const got = (await ok(GET, {ids: [mine, `${U('bob')}-never-seen`, mine]}, tokens.bob)).batchGetStepStates.results
      expect(got).to.deep.equal([{id: mine, properties: [{key: 'state', value: 'SEEN'}, {key: 'at', value: '2'}]}])
      const stored = await aspect(`urn:li:dataHubStepState:${mine}`, 'dataHubStepStateProperties')
      expect(stored).to.deep.include({properties: {state: 'SEEN', at: '2'}})
      expect((stored!.lastModified as {actor: string}).actor).to.equal(U('bob'))
    })

    it("another user's step states need MANAGE_USERS_AND_GROUPS: nothing of the batch is written", async () => {
      const hers = `${U('carol')}-home-page-domains`
      const mine = `${U('bob')}-home-page-platforms`
      await refused(SET, {states: [state(mine, 'COMPLETE'), state(hers, 'COMPLETE')]}, tokens.bob, 403)
      expect((await ok(GET, {ids: [mine, hers]}, lite.token)).batchGetStepStates.results).to.deep.equal([])
      // The admin may.
      expect((await ok(SET, {states: [state(hers, 'COMPLETE')]})).batchUpdateStepStates.results).to.deep.equal([{id: hers, succeeded: true}])
      expect((await ok(GET, {ids: [hers]}, tokens.carol)).batchGetStepStates.results).to.have.length(1)
    })

    it('refuses a property without a value and an empty id, writing nothing', async () => {
      const id = `${U('bob')}-bad`
      await refused(SET, {states: [{id, properties: [{key: 'state', value: null}]}]}, tokens.bob, 400, /property 'state' has no value/)
      await refused(SET, {states: [state('', 'x')]}, tokens.bob, 400)
      expect((await ok(GET, {ids: [id]}, tokens.bob)).batchGetStepStates.results).to.deep.equal([])
    })
  })
})
