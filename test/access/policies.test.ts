/**
 * Access policies end to end, on a real `mdcli lite` with tokens: for every mutation and every
 * REST write endpoint, no token is a 401, a user without a policy is a 403 that changes
 * nothing, and a policy lets the change through for each kind of actor (user, group, all
 * users, resource owner). Tokens are made through GraphQL's createAccessToken.
 */
import {expect} from 'chai'
import {createHash, randomBytes} from 'node:crypto'
import {encodeUrnPath} from '../../src/model/urn.js'
import {cleanup, http, type LiteProcess, runCli, startLite} from '../helpers/lite.js'

const DS = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${n},PROD)`
const A = DS('acl.a')
const B = DS('acl.b')
const U = (n: string) => `urn:li:corpuser:${n}`
const GROUP = 'urn:li:corpGroup:eng'
const PII = 'urn:li:tag:pii'
const TERM = 'urn:li:glossaryTerm:secret'
const DOMAIN = 'urn:li:domain:sales'

const stamp = {time: 1, actor: U('datahub')}
const schema = {schemaName: 'x', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: ''}}, fields: [{fieldPath: 'id', nullable: false, type: {type: {'com.linkedin.schema.NumberType': {}}}, nativeDataType: 'int'}]}
const mcp = (urn: string, aspectName: string, json: unknown) => ({entityUrn: urn, aspectName, changeType: 'UPSERT', aspect: {json}})

interface Case {
  name: string
  /** The privilege that allows it (besides EDIT_ENTITY). */
  privilege: string
  query: string
}

// One entry per mutation family and level, each repeatable (the same call may run four times).
const MUTATIONS: Case[] = [
  {name: 'addTags', privilege: 'EDIT_ENTITY_TAGS', query: `mutation { addTags(input: {tagUrns: ["${PII}"], resourceUrn: "${A}"}) }`},
  {name: 'addTags', privilege: 'EDIT_DATASET_COL_TAGS', query: `mutation { addTags(input: {tagUrns: ["${PII}"], resourceUrn: "${A}", subResourceType: DATASET_FIELD, subResource: "id"}) }`},
  {name: 'batchAddTags', privilege: 'EDIT_ENTITY_TAGS', query: `mutation { batchAddTags(input: {tagUrns: ["${PII}"], resources: [{resourceUrn: "${A}"}, {resourceUrn: "${B}"}]}) }`},
  {name: 'removeTag', privilege: 'EDIT_ENTITY_TAGS', query: `mutation { removeTag(input: {tagUrn: "${PII}", resourceUrn: "${B}"}) }`},
  {name: 'batchRemoveTags', privilege: 'EDIT_ENTITY_TAGS', query: `mutation { batchRemoveTags(input: {tagUrns: ["${PII}"], resources: [{resourceUrn: "${B}"}]}) }`},
  {name: 'addTerms', privilege: 'EDIT_ENTITY_GLOSSARY_TERMS', query: `mutation { addTerms(input: {termUrns: ["${TERM}"], resourceUrn: "${A}"}) }`},
  {name: 'addTerms', privilege: 'EDIT_DATASET_COL_GLOSSARY_TERMS', query: `mutation { addTerms(input: {termUrns: ["${TERM}"], resourceUrn: "${A}", subResourceType: DATASET_FIELD, subResource: "id"}) }`},
  {name: 'batchAddTerms', privilege: 'EDIT_ENTITY_GLOSSARY_TERMS', query: `mutation { batchAddTerms(input: {termUrns: ["${TERM}"], resources: [{resourceUrn: "${B}"}]}) }`},
  {name: 'removeTerm', privilege: 'EDIT_ENTITY_GLOSSARY_TERMS', query: `mutation { removeTerm(input: {termUrn: "${TERM}", resourceUrn: "${B}"}) }`},
  {name: 'batchRemoveTerms', privilege: 'EDIT_ENTITY_GLOSSARY_TERMS', query: `mutation { batchRemoveTerms(input: {termUrns: ["${TERM}"], resources: [{resourceUrn: "${B}"}]}) }`},
  {name: 'addOwners', privilege: 'EDIT_ENTITY_OWNERS', query: `mutation { addOwners(input: {owners: [{ownerUrn: "${U('zed')}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resourceUrn: "${A}"}) }`},
  {name: 'batchAddOwners', privilege: 'EDIT_ENTITY_OWNERS', query: `mutation { batchAddOwners(input: {owners: [{ownerUrn: "${U('zed')}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resources: [{resourceUrn: "${B}"}]}) }`},
  {name: 'removeOwner', privilege: 'EDIT_ENTITY_OWNERS', query: `mutation { removeOwner(input: {ownerUrn: "${U('zed')}", resourceUrn: "${B}"}) }`},
  {name: 'batchRemoveOwners', privilege: 'EDIT_ENTITY_OWNERS', query: `mutation { batchRemoveOwners(input: {ownerUrns: ["${U('zed')}"], resources: [{resourceUrn: "${B}"}]}) }`},
  {name: 'setDomain', privilege: 'EDIT_DOMAINS_PRIVILEGE', query: `mutation { setDomain(entityUrn: "${A}", domainUrn: "${DOMAIN}") }`},
  {name: 'batchSetDomain', privilege: 'EDIT_DOMAINS_PRIVILEGE', query: `mutation { batchSetDomain(input: {domainUrn: "${DOMAIN}", resources: [{resourceUrn: "${B}"}]}) }`},
  {name: 'unsetDomain', privilege: 'EDIT_DOMAINS_PRIVILEGE', query: `mutation { unsetDomain(entityUrn: "${B}") }`},
  {name: 'updateDeprecation', privilege: 'EDIT_DEPRECATION_PRIVILEGE', query: `mutation { updateDeprecation(input: {urn: "${A}", deprecated: true, note: "old"}) }`},
  {name: 'batchUpdateDeprecation', privilege: 'EDIT_DEPRECATION_PRIVILEGE', query: `mutation { batchUpdateDeprecation(input: {deprecated: false, resources: [{resourceUrn: "${B}"}]}) }`},
  {name: 'updateDescription', privilege: 'EDIT_DATASET_COL_DESCRIPTION', query: `mutation { updateDescription(input: {description: "the id", resourceUrn: "${A}", subResourceType: DATASET_FIELD, subResource: "id"}) }`},
  {name: 'updateDataset', privilege: 'EDIT_ENTITY_DOCS', query: `mutation { updateDataset(urn: "${A}", input: {editableProperties: {description: "docs"}}) { urn } }`},
  {name: 'batchUpdateSoftDeleted', privilege: 'DELETE_ENTITY', query: `mutation { batchUpdateSoftDeleted(input: {urns: ["${B}"], deleted: false}) }`},
]

describe('access policies', function () {
  this.timeout(120000)
  let lite: LiteProcess
  const tokens: Record<string, string> = {}

  const gqlAs = (who: string | null, query: string, variables: Record<string, unknown> = {}) =>
    http(`${lite.url}/api/graphql`, {body: {query, variables}, token: who === null ? null : who === 'admin' ? lite.token : tokens[who]!})
  const snapshot = async () => {
    const out: Record<string, unknown> = {}
    for (const u of [A, B, 'urn:li:tag:created-by-test']) out[u] = (await http(`${lite.url}/entitiesV2/${encodeUrnPath(u)}`)).body
    return JSON.stringify(out)
  }
  const policy = async (actors: Record<string, unknown>, privileges: string[], type = 'METADATA') => {
    const r = await gqlAs('admin', 'mutation p($input: PolicyUpdateInput!) { createPolicy(input: $input) }', {
      input: {type, name: `test ${JSON.stringify(actors)}`, state: 'ACTIVE', privileges, actors: {resourceOwners: false, allUsers: false, allGroups: false, ...actors}},
    })
    expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
    return r.body.data.createPolicy as string
  }
  const dropPolicy = async (urn: string) => {
    const r = await gqlAs('admin', `mutation { deletePolicy(urn: "${urn}") }`)
    expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
  }

  before(async () => {
    lite = await startLite()
    const seed = [
      mcp(A, 'schemaMetadata', schema),
      mcp(B, 'schemaMetadata', schema),
      // dave owns both datasets; the group eng counts carol as a member.
      mcp(A, 'ownership', {owners: [{owner: U('dave'), type: 'DATAOWNER'}], lastModified: stamp}),
      mcp(B, 'ownership', {owners: [{owner: U('dave'), type: 'DATAOWNER'}], lastModified: stamp}),
      mcp(PII, 'tagProperties', {name: 'pii'}),
      mcp(TERM, 'glossaryTermInfo', {definition: 'secret', termSource: 'INTERNAL'}),
      mcp(DOMAIN, 'domainProperties', {name: 'Sales'}),
      mcp(GROUP, 'corpGroupInfo', {admins: [], members: [U('carol')], groups: []}),
      ...['bob', 'carol', 'dave', 'erin', 'zed'].map((n) => mcp(U(n), 'corpUserInfo', {active: true})),
      // One aspect under its own run, for the rollback endpoint.
      {...mcp(A, 'browsePaths', {paths: ['/acl']}), systemMetadata: {runId: 'acl-run', lastObserved: 1}},
    ]
    const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {atomic: true, proposals: seed}})
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    for (const n of ['bob', 'carol', 'dave', 'erin']) {
      const t = await gqlAs('admin', 'mutation t($input: CreateAccessTokenInput!) { createAccessToken(input: $input) { accessToken metadata { actorUrn expiresAt } } }', {
        input: {type: 'PERSONAL', actorUrn: U(n), duration: 'ONE_DAY', name: `${n}'s token`},
      })
      expect(t.body.errors, JSON.stringify(t.body.errors)).to.equal(undefined)
      expect(t.body.data.createAccessToken.metadata.actorUrn).to.equal(U(n))
      tokens[n] = t.body.data.createAccessToken.accessToken
    }
  })
  after(async () => {
    await lite.stop()
    cleanup(lite.storeDir, lite.home)
  })

  it('the printed admin token lets GraphQL and the CLI change metadata', async () => {
    const r = await gqlAs('admin', `mutation { addTags(input: {tagUrns: ["${PII}"], resourceUrn: "${A}"}) }`)
    expect(r.body).to.deep.equal({data: {addTags: true}})
    const cli = await runCli(['put', '--urn', B, '-a', 'status', '-d', '-'], {env: lite.env(), input: '{"removed": false}'})
    expect(cli.code, cli.stderr).to.equal(0)
  })

  for (const m of MUTATIONS) {
    it(`${m.name} (${m.privilege}): 401 without a token, 403 without a policy, nothing written`, async () => {
      const before = await snapshot()
      const anon = await gqlAs(null, m.query)
      expect(anon.status).to.equal(401)
      expect(anon.body.data).to.equal(undefined)
      const r = await gqlAs('bob', m.query)
      expect(r.status).to.equal(200)
      expect(r.body.data).to.deep.equal({[m.name]: null})
      expect(r.body.errors[0].path[0]).to.equal(m.name)
      expect(r.body.errors[0].extensions).to.deep.equal({code: 403, type: 'UNAUTHORIZED', classification: 'DataFetchingException'})
      expect(await snapshot()).to.equal(before)
    })
  }

  it('createTag needs a platform privilege: 403 without, allowed with CREATE_TAGS', async () => {
    const q = 'mutation { createTag(input: {id: "created-by-test", name: "Created"}) }'
    const before = await snapshot()
    expect((await gqlAs('bob', q)).body.errors[0].extensions.code).to.equal(403)
    expect(await snapshot()).to.equal(before)
    const p = await policy({users: [U('bob')]}, ['CREATE_TAGS'], 'PLATFORM')
    expect((await gqlAs('bob', q)).body).to.deep.equal({data: {createTag: 'urn:li:tag:created-by-test'}})
    await dropPolicy(p)
  })

  const kinds: Array<[string, string, Record<string, unknown>]> = [
    ['a user', 'bob', {users: [U('bob')]}],
    ['a group', 'carol', {groups: [GROUP]}],
    ['all users', 'erin', {allUsers: true}],
    ['resource owners', 'dave', {resourceOwners: true}],
  ]
  const OWNERS_DEFAULT = 'urn:li:dataHubPolicy:asset-owners-metadata-policy'
  const setDefaultOwnersPolicy = async (state: 'ACTIVE' | 'INACTIVE') => {
    const cur = (await gqlAs('admin', 'query { listPolicies(input: {start: 0, count: 100}) { policies { urn type name description privileges actors { resourceOwners allUsers allGroups } } } }')).body.data.listPolicies.policies.find((x: {urn: string}) => x.urn === OWNERS_DEFAULT)
    const r = await gqlAs('admin', 'mutation u($urn: String!, $input: PolicyUpdateInput!) { updatePolicy(urn: $urn, input: $input) }', {
      urn: OWNERS_DEFAULT,
      input: {type: cur.type, name: cur.name, description: cur.description, state, privileges: cur.privileges, actors: cur.actors},
    })
    expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
  }

  for (const [kind, who, actors] of kinds) {
    it(`a policy for ${kind} lets every mutation through for ${who}, and is gone when deleted`, async () => {
      // Owners may edit what they own by default; switch that policy off to test ours alone.
      if (actors.resourceOwners) {
        await setDefaultOwnersPolicy('INACTIVE')
        expect((await gqlAs(who, MUTATIONS[0]!.query)).body.errors[0].extensions.code).to.equal(403)
      }
      const p = await policy(actors, [...new Set(MUTATIONS.map((m) => m.privilege))])
      for (const m of MUTATIONS) {
        const r = await gqlAs(who, m.query)
        expect(r.body.errors, `${m.name}: ${JSON.stringify(r.body.errors)}`).to.equal(undefined)
      }
      const stamped = await http(`${lite.url}/aspects/${encodeUrnPath(A)}?aspect=editableDatasetProperties`)
      expect(stamped.body.created.actor).to.equal(U(who))
      await dropPolicy(p)
      expect((await gqlAs(who, MUTATIONS[0]!.query)).body.errors[0].extensions.code).to.equal(403)
      if (actors.resourceOwners) {
        await setDefaultOwnersPolicy('ACTIVE')
        expect((await gqlAs(who, MUTATIONS[0]!.query)).body.errors, 'the default owners policy is back').to.equal(undefined)
      }
    })
  }

  it('a policy granting one privilege lets exactly that change through', async () => {
    const p = await policy({users: [U('bob')]}, ['EDIT_ENTITY_TAGS'])
    expect((await gqlAs('bob', MUTATIONS[0]!.query)).body).to.deep.equal({data: {addTags: true}})
    const before = await snapshot()
    for (const m of MUTATIONS.filter((x) => x.privilege !== 'EDIT_ENTITY_TAGS')) {
      expect((await gqlAs('bob', m.query)).body.errors?.[0]?.extensions?.code, m.name).to.equal(403)
    }
    expect(await snapshot()).to.equal(before)
    // EDIT_ENTITY covers every edit, as in DataHub.
    await dropPolicy(p)
    const all = await policy({users: [U('bob')]}, ['EDIT_ENTITY'])
    expect((await gqlAs('bob', MUTATIONS[10]!.query)).body).to.deep.equal({data: {addOwners: true}})
    await dropPolicy(all)
  })

  it('a new group member gets the privileges of the group at the next request', async () => {
    const p = await policy({groups: [GROUP]}, ['EDIT_ENTITY_TAGS'])
    expect((await gqlAs('erin', MUTATIONS[0]!.query)).body.errors[0].extensions.code).to.equal(403)
    const join = (members: string[]) => http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: mcp(GROUP, 'corpGroupInfo', {admins: [], members, groups: []})}})
    expect((await join([U('carol'), U('erin')])).status).to.equal(200)
    expect((await gqlAs('erin', MUTATIONS[0]!.query)).body).to.deep.equal({data: {addTags: true}})
    await join([U('carol')])
    expect((await gqlAs('erin', MUTATIONS[0]!.query)).body.errors[0].extensions.code).to.equal(403)
    await dropPolicy(p)
  })

  it('a policy limited to some resources does not reach others', async () => {
    const r = await gqlAs('admin', 'mutation p($input: PolicyUpdateInput!) { createPolicy(input: $input) }', {
      input: {type: 'METADATA', name: 'only A', state: 'ACTIVE', privileges: ['EDIT_ENTITY_TAGS'], actors: {users: [U('bob')], resourceOwners: false, allUsers: false, allGroups: false}, resources: {resources: [A], allResources: false}},
    })
    const p = r.body.data.createPolicy
    expect((await gqlAs('bob', `mutation { addTags(input: {tagUrns: ["${PII}"], resourceUrn: "${A}"}) }`)).body).to.deep.equal({data: {addTags: true}})
    expect((await gqlAs('bob', `mutation { addTags(input: {tagUrns: ["${PII}"], resourceUrn: "${B}"}) }`)).body.errors[0].extensions.code).to.equal(403)
    // One resource the actor may not touch refuses the whole batch.
    const before = await snapshot()
    const batch = await gqlAs('bob', `mutation { batchAddTags(input: {tagUrns: ["urn:li:tag:batchonly"], resources: [{resourceUrn: "${A}"}, {resourceUrn: "${B}"}]}) }`)
    expect(batch.body.errors[0].extensions.code).to.equal(403)
    expect(await snapshot()).to.equal(before)
    await dropPolicy(p)
  })

  describe('what a policy matches', () => {
    const CHART = 'urn:li:chart:(looker,acl_c1)'
    const writePolicy = async (id: string, resources: unknown, privileges: string[]) => {
      const info = {displayName: id, description: '', type: 'METADATA', state: 'ACTIVE', privileges, actors: {users: [U('bob')], resourceOwners: false, allUsers: false, allGroups: false}, resources}
      const r = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: mcp(`urn:li:dataHubPolicy:${id}`, 'dataHubPolicyInfo', info)}})
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      return `urn:li:dataHubPolicy:${id}`
    }
    const tagAs = async (urn: string) => {
      const r = await gqlAs('bob', `mutation { addTags(input: {tagUrns: ["${PII}"], resourceUrn: "${urn}"}) }`)
      return r.body.errors?.[0]?.extensions?.code ?? (r.body.data?.addTags === true ? 200 : JSON.stringify(r.body))
    }
    const restAs = async (urn: string, aspectName: string, json: unknown) => (await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: mcp(urn, aspectName, json)}, token: tokens.bob})).status
    before(async () => {
      const r = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: mcp(CHART, 'chartInfo', {title: 'c1', description: '', lastModified: {created: stamp, lastModified: stamp}})}})
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
    })

    it('a criterion on URN (DataHub\'s name) reaches only the urns it lists', async () => {
      const p = await writePolicy('acl-urn', {allResources: false, filter: {criteria: [{field: 'URN', values: [A], condition: 'EQUALS'}]}}, ['EDIT_ENTITY'])
      expect(await tagAs(A)).to.equal(200)
      expect(await tagAs(B)).to.equal(403)
      expect(await tagAs(CHART)).to.equal(403)
      expect(await restAs(CHART, 'status', {removed: false})).to.equal(403)
      await dropPolicy(p)
    })

    it('NOT_EQUALS excludes what it lists and STARTS_WITH matches by prefix', async () => {
      const ne = await writePolicy('acl-ne', {allResources: false, filter: {criteria: [{field: 'RESOURCE_URN', values: [A], condition: 'NOT_EQUALS'}, {field: 'TYPE', values: ['dataset'], condition: 'EQUALS'}]}}, ['EDIT_ENTITY'])
      expect(await tagAs(A)).to.equal(403)
      expect(await tagAs(B)).to.equal(200)
      expect(await tagAs(CHART)).to.equal(403)
      await dropPolicy(ne)
      const sw = await writePolicy('acl-sw', {allResources: false, filter: {criteria: [{field: 'URN', values: ['urn:li:chart:(looker,'], condition: 'STARTS_WITH'}]}}, ['EDIT_ENTITY'])
      expect(await tagAs(CHART)).to.equal(200)
      expect(await tagAs(A)).to.equal(403)
      await dropPolicy(sw)
    })

    it('a criterion on the entity\'s tags reaches the entities carrying them', async () => {
      const p = await writePolicy('acl-tag', {allResources: false, filter: {criteria: [{field: 'TAG', values: ['urn:li:tag:acl-marked'], condition: 'EQUALS'}]}}, ['EDIT_ENTITY_DOCS'])
      const doc = (urn: string) => restAs(urn, 'editableDatasetProperties', {description: 'marked'})
      expect(await doc(B)).to.equal(403)
      expect((await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: mcp(B, 'globalTags', {tags: [{tag: 'urn:li:tag:acl-marked'}]})}})).status).to.equal(200)
      expect(await doc(B)).to.equal(200)
      expect(await doc(A)).to.equal(403)
      await dropPolicy(p)
    })

    it('the type narrows allResources: a dataset policy does not reach a chart', async () => {
      const p = await writePolicy('acl-type', {type: 'dataset', allResources: true}, ['EDIT_ENTITY'])
      expect(await tagAs(A)).to.equal(200)
      expect(await tagAs(CHART)).to.equal(403)
      expect(await restAs(CHART, 'status', {removed: false})).to.equal(403)
      expect(await restAs('urn:li:tag:pii', 'tagProperties', {name: 'renamed by bob'})).to.equal(403)
      await dropPolicy(p)
    })

    it('value constraints are not widened into a plain grant, and a misspelt criterion field is refused on every route', async () => {
      const p = await writePolicy('acl-constrained', {allResources: true, privilegeConstraints: {criteria: [{field: 'URN', values: ['urn:li:tag:other'], condition: 'EQUALS'}]}}, ['EDIT_ENTITY_TAGS'])
      expect(await tagAs(A)).to.equal(403)
      await dropPolicy(p)
      const bad = {allResources: false, filter: {criteria: [{field: 'URNN', values: [A], condition: 'EQUALS'}]}}
      const rest = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: mcp('urn:li:dataHubPolicy:acl-bad', 'dataHubPolicyInfo', {displayName: 'bad', description: '', type: 'METADATA', state: 'ACTIVE', privileges: ['EDIT_ENTITY'], actors: {users: [U('bob')], resourceOwners: false, allUsers: false, allGroups: false}, resources: bad})}})
      expect(rest.status).to.equal(400)
      expect(rest.body.message).to.match(/field/)
      const gql = await gqlAs('admin', 'mutation p($input: PolicyUpdateInput!) { createPolicy(input: $input) }', {
        input: {type: 'METADATA', name: 'bad', state: 'ACTIVE', privileges: ['EDIT_ENTITY'], actors: {users: [U('bob')], resourceOwners: false, allUsers: false, allGroups: false}, resources: {allResources: false, filter: {criteria: [{field: 'URNN', values: [A], condition: 'EQUALS'}]}}},
      })
      expect(gql.body.errors?.[0]?.extensions?.code, JSON.stringify(gql.body)).to.equal(400)
      expect(await tagAs(A)).to.equal(403)
    })
  })

  describe('a write needs what it does, whichever route carries it', () => {
    const restAs = async (proposals: unknown[]) => (await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {atomic: true, proposals}, token: tokens.bob})).status

    it('EDIT_ENTITY_TAGS lets a raw globalTags write through, as it does addTags, and nothing more', async () => {
      const p = await policy({users: [U('bob')]}, ['EDIT_ENTITY_TAGS'])
      expect((await gqlAs('bob', MUTATIONS[0]!.query)).body).to.deep.equal({data: {addTags: true}})
      expect(await restAs([mcp(A, 'globalTags', {tags: [{tag: 'urn:li:tag:raw'}]})])).to.equal(200)
      const before = await snapshot()
      expect(await restAs([mcp(A, 'ownership', {owners: [{owner: U('bob'), type: 'DATAOWNER'}], lastModified: stamp})])).to.equal(403)
      expect(await restAs([mcp(A, 'globalTags', {tags: []}), mcp(A, 'schemaMetadata', schema)])).to.equal(403)
      expect(await snapshot()).to.equal(before)
      await dropPolicy(p)
    })

    it('soft deletion needs DELETE_ENTITY through a raw status write too; leaving status as it is needs only EDIT_ENTITY', async () => {
      const edit = await policy({users: [U('bob')]}, ['EDIT_ENTITY', 'CREATE_ENTITY'])
      const before = await snapshot()
      expect(await restAs([mcp(B, 'status', {removed: true})])).to.equal(403)
      expect((await gqlAs('bob', `mutation { batchUpdateSoftDeleted(input: {urns: ["${B}"], deleted: true}) }`)).body.errors[0].extensions.code).to.equal(403)
      expect(await snapshot()).to.equal(before)
      expect(await restAs([mcp(B, 'status', {removed: false})])).to.equal(200)
      // A new entity written with status removed:false, as every ingest does: no deletion in it.
      expect(await restAs([mcp(DS('acl.fresh'), 'status', {removed: false})])).to.equal(200)
      const del = await policy({users: [U('bob')]}, ['DELETE_ENTITY'])
      expect(await restAs([mcp(B, 'status', {removed: true})])).to.equal(200)
      await dropPolicy(del)
      // Undoing it is a deletion's business too.
      expect(await restAs([mcp(B, 'status', {removed: false})])).to.equal(403)
      await dropPolicy(edit)
      await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: mcp(B, 'status', {removed: false})}})
    })
  })

  describe('what a delete deletes', () => {
    const run = async (runId: string, proposals: unknown[]) => {
      const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {atomic: true, proposals: proposals.map((x) => ({...(x as object), systemMetadata: {runId, lastObserved: 1}}))}})
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
    }
    const rollbackAs = (who: string, runId: string) => http(`${lite.url}/runs?action=rollback`, {body: {runId, dryRun: false, safe: false}, token: tokens[who]})

    it('a hard rollback that removes whole entities needs DELETE_ENTITY, as a hard delete does: EDIT_ENTITY is not enough', async () => {
      const made = DS('acl.made_by_run')
      await run('acl-made', [mcp(made, 'datasetProperties', {name: 'made'})])
      const edit = await policy({users: [U('bob')]}, ['EDIT_ENTITY'])
      const r = await rollbackAs('bob', 'acl-made')
      expect(r.status, JSON.stringify(r.body)).to.equal(403)
      expect((await http(`${lite.url}/entitiesV2/${encodeUrnPath(made)}`)).status).to.equal(200)
      const del = await policy({users: [U('bob')]}, ['DELETE_ENTITY'])
      expect((await rollbackAs('bob', 'acl-made')).status).to.equal(200)
      expect((await http(`${lite.url}/entitiesV2/${encodeUrnPath(made)}?alwaysIncludeKeyAspect=false`)).status).to.equal(404)
      await dropPolicy(del)
      await dropPolicy(edit)
    })

    it('deleting a whole user deletes its status and roles, which need what writing them needs', async () => {
      const frank = U('frank')
      await run('acl-user', [mcp(frank, 'corpUserInfo', {active: true, displayName: 'Frank'})])
      const suspend = await gqlAs('admin', `mutation { updateUserStatus(urn: "${frank}", status: SUSPENDED) }`)
      expect(suspend.body.errors, JSON.stringify(suspend.body)).to.equal(undefined)
      const both = await policy({users: [U('bob')]}, ['DELETE_ENTITY', 'EDIT_ENTITY'])
      const r = await rollbackAs('bob', 'acl-user')
      expect(r.status, JSON.stringify(r.body)).to.equal(403)
      expect(r.body.message).to.include('user status')
      const status = await http(`${lite.url}/aspects/${encodeUrnPath(frank)}?aspect=corpUserStatus`)
      expect(status.body.aspect['com.linkedin.identity.CorpUserStatus'].status).to.equal('SUSPENDED')
      await dropPolicy(both)
    })
  })

  describe('owners by ownership type', () => {
    it('a policy naming ownership types reaches only owners of those types', async () => {
      // dave owns A as DATAOWNER (legacy type): a business owner's policy is not his. (Owners
      // may edit what they own by default; deleting is what these policies add.)
      const q = (deleted: boolean) => `mutation { batchUpdateSoftDeleted(input: {urns: ["${A}"], deleted: ${deleted}}) }`
      const business = await policy({resourceOwners: true, resourceOwnersTypes: ['urn:li:ownershipType:__system__business_owner']}, ['DELETE_ENTITY'])
      expect((await gqlAs('dave', q(true))).body.errors?.[0]?.extensions?.code).to.equal(403)
      await dropPolicy(business)
      const his = await policy({resourceOwners: true, resourceOwnersTypes: ['urn:li:ownershipType:__system__dataowner']}, ['DELETE_ENTITY'])
      expect((await gqlAs('bob', q(true))).body.errors?.[0]?.extensions?.code, 'bob owns nothing').to.equal(403)
      expect((await gqlAs('dave', q(true))).body).to.deep.equal({data: {batchUpdateSoftDeleted: true}})
      expect((await gqlAs('dave', q(false))).body).to.deep.equal({data: {batchUpdateSoftDeleted: true}})
      await dropPolicy(his)
    })
  })

  describe('the Editor role', () => {
    it('edits the primary metadata entities whole, but not users, groups or ownership types', async () => {
      const ed = U('ed')
      const seed = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {proposals: [mcp(ed, 'corpUserInfo', {active: true}), mcp(ed, 'roleMembership', {roles: ['urn:li:dataHubRole:Editor']})]}})
      expect(seed.status).to.equal(200)
      const t = await gqlAs('admin', `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${ed}", duration: ONE_DAY, name: "ed"}) { accessToken } }`)
      tokens.ed = t.body.data.createAccessToken.accessToken
      const rest = async (proposal: unknown) => (await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal}, token: tokens.ed})).status
      expect(await rest(mcp(A, 'datasetProperties', {name: 'edited by the editor'}))).to.equal(200)
      expect((await gqlAs('ed', `mutation { addTags(input: {tagUrns: ["${PII}"], resourceUrn: "${B}"}) }`)).body).to.deep.equal({data: {addTags: true}})
      expect(await rest(mcp(U('mallory'), 'corpUserInfo', {active: true}))).to.equal(403)
      expect(await rest(mcp('urn:li:corpGroup:edgroup', 'corpGroupEditableInfo', {description: 'x'}))).to.equal(403)
      expect(await rest(mcp('urn:li:ownershipType:edtype', 'ownershipTypeInfo', {name: 't', created: stamp, lastModified: stamp}))).to.equal(403)
      const profile = await gqlAs('ed', `mutation { updateCorpUserProperties(urn: "${U('datahub')}", input: {displayName: "pwned"}) { urn } }`)
      expect(profile.body.errors?.[0]?.extensions?.code, JSON.stringify(profile.body)).to.equal(403)
    })
  })

  describe('REST write endpoints', () => {
    const propose = {proposal: mcp(A, 'globalTags', {tags: [{tag: 'urn:li:tag:rest'}]})}
    const endpoints: Array<[string, string, unknown, string[]]> = [
      ['ingestProposal', '/aspects?action=ingestProposal', propose, ['EDIT_ENTITY']],
      ['ingestProposalBatch', '/aspects?action=ingestProposalBatch', {atomic: true, proposals: [propose.proposal]}, ['EDIT_ENTITY']],
      ['delete (soft)', '/entities?action=delete', {urn: B, soft: true}, ['DELETE_ENTITY']],
      ['deleteReferences', '/entities?action=deleteReferences', {urn: PII, dryRun: false}, ['DELETE_ENTITY', 'EDIT_ENTITY']],
      ['rollback', '/runs?action=rollback', {runId: 'acl-run', dryRun: false, safe: true}, ['DELETE_ENTITY', 'EDIT_ENTITY']],
      ['migrate', '/migrate?action=dataplatform2instance', {platform: 'hive', instance: 'eu1', dryRun: false, keep: true}, ['EDIT_ENTITY', 'CREATE_ENTITY']],
    ]
    for (const [name, path, body, privileges] of endpoints) {
      it(`${name}: 401 without a token, 403 without the privilege (nothing written), allowed with it`, async () => {
        const before = await snapshot()
        const anon = await http(`${lite.url}${path}`, {body, token: null})
        expect(anon.status).to.equal(401)
        const bob = await http(`${lite.url}${path}`, {body, token: tokens.bob})
        expect(bob.status, JSON.stringify(bob.body)).to.equal(403)
        expect(bob.body.code).to.equal('E_UNAUTHORIZED')
        expect(await snapshot()).to.equal(before)
        // The privileges the endpoint names let the same request through.
        const p = await policy({users: [U('bob')]}, privileges)
        const allowed = await http(`${lite.url}${path}`, {body, token: tokens.bob})
        expect(allowed.status, JSON.stringify(allowed.body)).to.equal(200)
        await dropPolicy(p)
        await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: mcp(B, 'status', {removed: false})}})
      })
    }

    it('migrate: CREATE_ENTITY alone cannot write over a dataset that exists at a new urn (it needs EDIT_ENTITY there)', async () => {
      // The stored dataset is already under the instance (an ingestion with platform_instance), so
      // the move is its own target: moving onto it edits it.
      const target = 'urn:li:dataset:(urn:li:dataPlatform:migacl,eu1.payments,PROD)'
      const source = 'urn:li:dataset:(urn:li:dataPlatform:migacl,payments,PROD)'
      const seed = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {atomic: true, proposals: [
        mcp(target, 'dataPlatformInstance', {platform: 'urn:li:dataPlatform:migacl', instance: 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:migacl,eu1)'}),
        mcp(target, 'editableDatasetProperties', {description: 'the real one'}),
        mcp(source, 'editableDatasetProperties', {description: 'bob was here'}),
      ]}})
      expect(seed.status, JSON.stringify(seed.body)).to.equal(200)
      const p = await policy({users: [U('bob')]}, ['CREATE_ENTITY'])
      const body = {platform: 'migacl', instance: 'eu1', dryRun: false, keep: true}
      const r = await http(`${lite.url}/migrate?action=dataplatform2instance`, {body, token: tokens.bob})
      expect(r.status, JSON.stringify(r.body)).to.equal(403)
      const after = await http(`${lite.url}/aspects/${encodeUrnPath(target)}?aspect=editableDatasetProperties`)
      expect(after.body.aspect['com.linkedin.dataset.EditableDatasetProperties'].description).to.equal('the real one')
      await dropPolicy(p)
    })

    it('ingestProposal is allowed with EDIT_ENTITY on the entity, and stamps the actor', async () => {
      const p = await policy({users: [U('bob')]}, ['EDIT_ENTITY'])
      const r = await http(`${lite.url}/aspects?action=ingestProposal`, {body: propose, token: tokens.bob})
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      const a = await http(`${lite.url}/aspects/${encodeUrnPath(A)}?aspect=globalTags`)
      expect(a.body.created.actor).to.equal(U('bob'))
      // Creating a new entity needs CREATE_ENTITY (or EDIT_ENTITY on it): bob has EDIT_ENTITY everywhere here.
      await dropPolicy(p)
    })

    it('a batch that writes and deletes aspects of one entity needs both privileges, which two policies may grant together', async () => {
      const batch = {atomic: true, proposals: [mcp(A, 'globalTags', {tags: [{tag: 'urn:li:tag:both'}]}), {entityUrn: A, aspectName: 'globalTags', changeType: 'DELETE'}]}
      const before = await snapshot()
      for (const privileges of [['EDIT_ENTITY'], ['DELETE_ENTITY']]) {
        const p = await policy({users: [U('bob')]}, privileges)
        const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: batch, token: tokens.bob})
        expect(r.status, `${privileges}: ${JSON.stringify(r.body)}`).to.equal(403)
        expect(await snapshot()).to.equal(before)
        await dropPolicy(p)
      }
      const edit = await policy({users: [U('bob')]}, ['EDIT_ENTITY'])
      const del = await policy({users: [U('bob')]}, ['DELETE_ENTITY'])
      const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: batch, token: tokens.bob})
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      await dropPolicy(edit)
      await dropPolicy(del)
    })

    it('delete is allowed with DELETE_ENTITY', async () => {
      const p = await policy({users: [U('bob')]}, ['DELETE_ENTITY'])
      const r = await http(`${lite.url}/entities?action=delete`, {body: {urn: B, soft: true}, token: tokens.bob})
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      await dropPolicy(p)
      await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: mcp(B, 'status', {removed: false})}})
    })

    it('writing policies or tokens through REST needs the platform privilege, even with EDIT_ENTITY', async () => {
      const p = await policy({users: [U('bob')]}, ['EDIT_ENTITY', 'CREATE_ENTITY'])
      const sneaky = {proposal: mcp('urn:li:dataHubPolicy:sneaky', 'dataHubPolicyInfo', {displayName: 'x', description: '', type: 'METADATA', state: 'ACTIVE', privileges: ['EDIT_ENTITY'], actors: {users: [U('bob')], resourceOwners: false, allUsers: false, allGroups: false}})}
      expect((await http(`${lite.url}/aspects?action=ingestProposal`, {body: sneaky, token: tokens.bob})).status).to.equal(403)
      const role = {proposal: mcp(U('bob'), 'roleMembership', {roles: ['urn:li:dataHubRole:Admin']})}
      expect((await http(`${lite.url}/aspects?action=ingestProposal`, {body: role, token: tokens.bob})).status).to.equal(403)
      await dropPolicy(p)
    })
  })

  describe('tokens', () => {
    it('a user may make a personal token but not one for someone else', async () => {
      const mine = await gqlAs('erin', `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${U('erin')}", duration: ONE_HOUR, name: "mine"}) { accessToken } }`)
      expect(mine.body.errors, JSON.stringify(mine.body.errors)).to.equal(undefined)
      const theirs = await gqlAs('erin', `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${U('bob')}", duration: ONE_HOUR, name: "theirs"}) { accessToken } }`)
      expect(theirs.body.errors[0].extensions.code).to.equal(403)
      const list = await gqlAs('erin', 'query { listAccessTokens(input: {start: 0, count: 100}) { total tokens { actorUrn name } } }')
      expect(list.body.data.listAccessTokens.tokens.every((t: {actorUrn: string}) => t.actorUrn === U('erin'))).to.equal(true)
      const all = await gqlAs('admin', 'query { listAccessTokens(input: {start: 0, count: 100}) { total } }')
      expect(all.body.data.listAccessTokens.total).to.be.greaterThan(list.body.data.listAccessTokens.total)
    })

    it('revocation takes effect at once', async () => {
      const t = await gqlAs('admin', `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${U('bob')}", duration: ONE_DAY, name: "short-lived"}) { accessToken metadata { id } } }`)
      const {accessToken, metadata} = t.body.data.createAccessToken
      expect((await http(`${lite.url}/entitiesV2/${encodeUrnPath(A)}`, {token: accessToken})).status).to.equal(200)
      expect((await gqlAs('admin', `mutation { revokeAccessToken(tokenId: "${metadata.id}") }`)).body).to.deep.equal({data: {revokeAccessToken: true}})
      const after = await http(`${lite.url}/entitiesV2/${encodeUrnPath(A)}`, {token: accessToken})
      expect(after.status).to.equal(401)
      expect(after.body.message).to.match(/unknown or revoked/)
    })

    it('a change stream opened with a token is closed once the token is revoked', async () => {
      const t = await gqlAs('admin', `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${U('bob')}", duration: ONE_DAY, name: "streaming"}) { accessToken metadata { id } } }`)
      const {accessToken, metadata} = t.body.data.createAccessToken
      const res = await fetch(`${lite.url}/events`, {headers: {authorization: `Bearer ${accessToken}`, accept: 'text/event-stream'}, signal: AbortSignal.timeout(60_000)})
      expect(res.status).to.equal(200)
      const reader = res.body!.getReader()
      await reader.read()
      expect((await gqlAs('admin', `mutation { revokeAccessToken(tokenId: "${metadata.id}") }`)).body).to.deep.equal({data: {revokeAccessToken: true}})
      // The server ends the stream by itself (re-checking every second); the test's own timeout is the hang guard.
      let text = ''
      for (;;) {
        const {done, value} = await reader.read()
        if (done) break
        text += Buffer.from(value).toString('utf8')
      }
      expect(text).to.include('event: error').and.include('unknown or revoked')
    })

    it('a token deleted through the REST delete endpoint stops working at once, though it was just used', async () => {
      const t = await gqlAs('admin', `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${U('bob')}", duration: ONE_DAY, name: "deleted"}) { accessToken metadata { urn } } }`)
      const {accessToken, metadata} = t.body.data.createAccessToken
      // Used twice: the second request is answered from the server's memory of verified tokens.
      for (let i = 0; i < 2; i++) expect((await http(`${lite.url}/entitiesV2/${encodeUrnPath(A)}`, {token: accessToken})).status).to.equal(200)
      const del = await http(`${lite.url}/entities?action=delete`, {body: {urn: metadata.urn}})
      expect(del.status, JSON.stringify(del.body)).to.equal(200)
      const after = await http(`${lite.url}/entitiesV2/${encodeUrnPath(A)}`, {token: accessToken})
      expect(after.status).to.equal(401)
    })

    it('expiry takes effect at once', async () => {
      // A token whose stored expiry has passed: minted here, its hash recorded by the admin.
      const token = 'mdt_' + randomBytes(32).toString('base64url')
      const id = createHash('sha256').update(token).digest('hex')
      const info = {name: 'expired', actorUrn: U('bob'), ownerUrn: U('datahub'), createdAt: Date.now() - 7200_000, expiresAt: Date.now() + 60_000}
      const put = (expiresAt: number) => http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: mcp(`urn:li:dataHubAccessToken:${id}`, 'dataHubAccessTokenInfo', {...info, expiresAt})}})
      expect((await put(info.expiresAt)).status).to.equal(200)
      expect((await http(`${lite.url}/entitiesV2/${encodeUrnPath(A)}`, {token})).status).to.equal(200)
      await put(Date.now() - 1000)
      const r = await http(`${lite.url}/entitiesV2/${encodeUrnPath(A)}`, {token})
      expect(r.status).to.equal(401)
      expect(r.body.message).to.match(/expired at/)
    })

    it('the CLI creates, lists and revokes tokens', async () => {
      const env = lite.env()
      const c = await runCli(['token', 'create', '--name', 'cli-made', '--actor', U('dave'), '--duration', 'ONE_WEEK', '--json'], {env})
      expect(c.code, c.stderr).to.equal(0)
      const made = JSON.parse(c.stdout)
      expect(made.accessToken).to.match(/^mdt_/)
      const get = await runCli(['get', '--urn', A, '-a', 'status'], {env: lite.env({METADATA_GMS_TOKEN: made.accessToken})})
      expect(get.code, get.stderr).to.equal(0)
      const l = await runCli(['token', 'list'], {env})
      expect(l.stdout).to.include('cli-made')
      expect(l.stdout).to.not.include(made.accessToken)
      const r = await runCli(['token', 'revoke', made.id.slice(0, 16)], {env})
      expect(r.code, r.stderr).to.equal(0)
      const denied = await runCli(['get', '--urn', A], {env: lite.env({METADATA_GMS_TOKEN: made.accessToken})})
      expect(denied.code).to.equal(1)
      expect(denied.stderr).to.match(/unknown or revoked/)
    })

    it('the default policies stay as they are on every route: a raw write, a REST delete and `mdcli delete --hard` are refused, even for the root user', async () => {
      const root = await http(`${lite.url}/aspects/${encodeUrnPath('urn:li:dataHubPolicy:1')}?aspect=dataHubPolicyInfo`)
      const info = root.body.aspect['com.linkedin.policy.DataHubPolicyInfo']
      expect(info.editable).to.equal(false)
      const off = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: mcp('urn:li:dataHubPolicy:1', 'dataHubPolicyInfo', {...info, state: 'INACTIVE'})}})
      expect(off.status, JSON.stringify(off.body)).to.equal(400)
      expect(off.body.message).to.match(/default policy/)
      expect((await http(`${lite.url}/entities?action=delete`, {body: {urn: 'urn:li:dataHubPolicy:0'}})).status).to.equal(400)
      const cli = await runCli(['delete', '--urn', 'urn:li:dataHubPolicy:0', '--hard', '--force'], {env: lite.env()})
      expect(cli.code).to.equal(1)
      expect(cli.stderr).to.match(/default policy/)
      // The root user can still write: nothing was taken away.
      expect((await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: mcp(PII, 'tagProperties', {name: 'pii'})}})).status).to.equal(200)
      const still = await http(`${lite.url}/aspects/${encodeUrnPath('urn:li:dataHubPolicy:1')}?aspect=dataHubPolicyInfo`)
      expect(still.body.aspect['com.linkedin.policy.DataHubPolicyInfo'].state).to.equal('ACTIVE')
    })

    it('policies are managed only with MANAGE_POLICIES; the root policies cannot be deleted', async () => {
      const r = await gqlAs('bob', 'query { listPolicies(input: {start: 0, count: 50}) { total } }')
      expect(r.body.errors[0].extensions.code).to.equal(403)
      const list = await gqlAs('admin', 'query { listPolicies(input: {start: 0, count: 50}) { total policies { urn name editable } } }')
      expect(list.body.data.listPolicies.total).to.be.greaterThan(5)
      const del = await gqlAs('admin', 'mutation { deletePolicy(urn: "urn:li:dataHubPolicy:0") }')
      expect(del.body.errors[0].message).to.match(/cannot be deleted/)
    })
  })
})

describe('secrets in logs', function () {
  this.timeout(60000)
  it('a --debug server never writes a token to its log', async () => {
    const lite = await startLite({args: ['--debug']})
    try {
      const other = 'mdt_' + randomBytes(32).toString('base64url')
      await http(`${lite.url}/entitiesV2/${encodeUrnPath('urn:li:corpuser:datahub')}`)
      await http(`${lite.url}/entitiesV2/${encodeUrnPath('urn:li:corpuser:datahub')}`, {token: other})
      await http(`${lite.url}/api/graphql`, {body: {query: '{ me { corpUser { urn } } }'}})
      const made = await http(`${lite.url}/api/graphql`, {body: {query: 'mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "urn:li:corpuser:datahub", duration: ONE_HOUR, name: "x"}) { accessToken } }'}})
      const fresh = made.body.data.createAccessToken.accessToken as string
      await http(`${lite.url}/api/graphql?query=${encodeURIComponent('{ me { corpUser { urn } } }')}`, {token: fresh})
      await lite.stop()
      const out = lite.output()
      expect(out).to.match(/DEBUG/)
      // The first-start announcement shows the admin token once; no log line ever holds a token.
      const lines = out.split('\n').filter((l) => !/^\s+mdt_/.test(l))
      for (const secret of [lite.token, other, fresh]) expect(lines.join('\n')).to.not.include(secret)
      expect(out.split(lite.token).length - 1).to.equal(1)
    } finally {
      await lite.stop()
      cleanup(lite.storeDir, lite.home)
    }
  })
})
