/**
 * The authorization table (src/catalog/access/authorization-table.ts), tried door by door on a
 * real `mdcli lite`: every GraphQL mutation, and every privileged aspect over REST and over the
 * GraphQL mutation that writes it, as Admin, Editor, Reader, a user with no role and no one.
 * What each should get is worked out from the table and the default policies the server starts
 * with, not written down by hand: a rule or a policy changed without the other shows up here.
 * Then the escalation of issue 29, step by step: an Editor who joins a group holding the Admin
 * role and mints a token for the root user is refused at every step.
 *
 * Runs on the embedded store, and on PostgreSQL under `npm run test:pg:only`.
 */
import {expect} from 'chai'
import {getNamedType, type GraphQLInputType, isEnumType, isInputObjectType, isLeafType, isListType, isNonNullType} from 'graphql'
import {createHash} from 'node:crypto'
import {buildCatalogSchema} from '../../src/server/graphql/schema.js'
import {MUTATIONS, PRIVILEGED_ASPECTS, PRIVILEGED_ENTITIES, type Privileges, privilegedRule} from '../../src/catalog/access/authorization-table.js'
import {DEFAULT_POLICIES, ROLES} from '../../src/catalog/access/default-policies.js'
import {encodeUrnPath} from '../../src/model/urn.js'
import {http, type LiteProcess, startLite} from '../helpers/lite.js'
import {requireNats, uniqueName} from '../helpers/requires.js'

type Who = 'Admin' | 'Editor' | 'Reader' | 'plain'
const WHO: Record<Who, string> = {Admin: 'ann', Editor: 'ed', Reader: 'rita', plain: 'paul'}
const U = (n: string) => `urn:li:corpuser:${n}`
const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,authz.ds,PROD)'
const DS2 = 'urn:li:dataset:(urn:li:dataPlatform:hive,authz.up,PROD)'
const CHART = 'urn:li:chart:(looker,authz)'
const DASH = 'urn:li:dashboard:(looker,authz)'
const FLOW = 'urn:li:dataFlow:(airflow,authz,prod)'
const JOB = `urn:li:dataJob:(${FLOW},job)`
const NOTEBOOK = 'urn:li:notebook:(querybook,authz)'
const TAG = 'urn:li:tag:authz'
const TERM = 'urn:li:glossaryTerm:authz'
const TERM2 = 'urn:li:glossaryTerm:authz2'
const NODE = 'urn:li:glossaryNode:authz'
const DOMAIN = 'urn:li:domain:authz'
const GROUP = 'urn:li:corpGroup:authz'
const ADMINS = 'urn:li:corpGroup:admins'
const ZED = U('zed')
const ROOT = U('datahub')
const stamp = {time: 1, actor: ROOT}
const mcp = (urn: string, aspectName: string, json: unknown) => ({entityUrn: urn, aspectName, changeType: 'UPSERT', aspect: {json}})
const schema = {schemaName: 'x', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: ''}}, fields: [{fieldPath: 'id', nullable: false, type: {type: {'com.linkedin.schema.NumberType': {}}}, nativeDataType: 'int'}]}

/**
 * The privileges the default policies give a user of the role: platform policies always, metadata
 * policies when the request names an entity of `type` their resource filter takes.
 */
function granted(who: Who, type?: string): Set<string> {
  const out = new Set<string>()
  for (const {info} of DEFAULT_POLICIES) {
    if (info.state !== 'ACTIVE') continue
    const mine = info.actors.allUsers || (who !== 'plain' && (info.actors.roles ?? []).includes(ROLES[who]))
    if (!mine) continue
    if (info.type === 'METADATA') {
      if (type === undefined) continue
      const r = info.resources
      if (r?.type && r.type !== type) continue
      const byType = r?.filter?.criteria.find((c) => c.field === 'RESOURCE_TYPE')
      if (byType && !byType.values.includes(type)) continue
    }
    for (const p of info.privileges) out.add(p)
  }
  return out
}
const allows = (who: Who, privileges: Privileges, type?: string) => {
  const g = granted(who, type)
  return privileges.some((group) => group.every((p) => g.has(p)))
}

/** The catalog's schema, built once: building it parses the whole SDL (tenths of a CPU-second). */
let schemaBuilt: ReturnType<typeof buildCatalogSchema> | undefined
const catalogSchema = () => (schemaBuilt ??= buildCatalogSchema())

/** Literal arguments for a mutation of the schema: the required ones, each with a value of its type. */
function literalArgs(mutation: string): string {
  const field = catalogSchema().getMutationType()!.getFields()[mutation]!
  const value = (type: GraphQLInputType): string => {
    if (isNonNullType(type)) return value(type.ofType)
    if (isListType(type)) return `[${value(type.ofType)}]`
    if (isEnumType(type)) return type.getValues()[0]!.name
    if (isInputObjectType(type)) return `{${Object.values(type.getFields()).filter((f) => isNonNullType(f.type)).map((f) => `${f.name}: ${value(f.type)}`).join(', ')}}`
    if (type.name === 'Boolean') return 'false'
    if (type.name === 'Int' || type.name === 'Float' || type.name === 'Long') return '1'
    return '"urn:li:dataset:(urn:li:dataPlatform:hive,off,PROD)"'
  }
  const args = field.args.filter((a) => isNonNullType(a.type)).map((a) => `${a.name}: ${value(a.type)}`)
  const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }'
  return `${args.length ? `(${args.join(', ')})` : ''}${selection}`
}

/** How each mutation is called for one actor (`n` = the actor's name, for names of their own); `prepare` runs as the admin first. */
interface Call {
  query: (n: string, prepared: string) => string
  prepare?: (n: string) => Promise<string>
  /** The actor's own version of the call (a token for themselves), when the table says so. */
  self?: boolean
}

describe('authorization table: every door, every role', function () {
  this.timeout(300000)
  let lite: LiteProcess
  const tokens: Record<string, string> = {}
  const tokenOf = (who: Who | null) => (who === null ? null : tokens[WHO[who]]!)
  const gql = (who: Who | null, query: string) => http(`${lite.url}/api/graphql`, {body: {query}, token: tokenOf(who)})
  const ingest = (who: Who | null, ...proposals: unknown[]) => http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {atomic: true, proposals}, token: tokenOf(who)})
  const adminGql = async (query: string) => {
    const r = await http(`${lite.url}/api/graphql`, {body: {query}, token: lite.token})
    expect(r.body.errors, `${query}: ${JSON.stringify(r.body.errors)}`).to.equal(undefined)
    return r.body.data
  }
  const adminIngest = async (...proposals: unknown[]) => {
    const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {body: {atomic: true, proposals}, token: lite.token})
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
  }
  const entity = async (urn: string) => (await http(`${lite.url}/entitiesV2/${encodeUrnPath(urn)}`, {token: lite.token})).body
  const tokenFor = async (actor: string, name: string) =>
    (await adminGql(`mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${actor}", duration: ONE_DAY, name: "${name}"}) { accessToken metadata { id } } }`)).createAccessToken as {accessToken: string; metadata: {id: string}}

  const CALLS: Record<string, Call> = {
    updateDataset: {query: () => `mutation { updateDataset(urn: "${DS}", input: {editableProperties: {description: "d"}}) { urn } }`},
    updateDatasets: {query: () => `mutation { updateDatasets(input: [{urn: "${DS}", update: {editableProperties: {description: "d"}}}]) { urn } }`},
    updateChart: {query: () => `mutation { updateChart(urn: "${CHART}", input: {editableProperties: {description: "d"}}) { urn } }`},
    updateDashboard: {query: () => `mutation { updateDashboard(urn: "${DASH}", input: {editableProperties: {description: "d"}}) { urn } }`},
    updateDataFlow: {query: () => `mutation { updateDataFlow(urn: "${FLOW}", input: {editableProperties: {description: "d"}}) { urn } }`},
    updateDataJob: {query: () => `mutation { updateDataJob(urn: "${JOB}", input: {editableProperties: {description: "d"}}) { urn } }`},
    updateNotebook: {query: () => `mutation { updateNotebook(urn: "${NOTEBOOK}", input: {editableProperties: {description: "d"}}) { urn } }`},
    updateTag: {query: () => `mutation { updateTag(urn: "${TAG}", input: {urn: "${TAG}", name: "authz", description: "d"}) { urn } }`},
    updateCorpUserProperties: {query: () => `mutation { updateCorpUserProperties(urn: "${ZED}", input: {title: "t"}) { urn } }`},
    updateCorpGroupProperties: {query: () => `mutation { updateCorpGroupProperties(urn: "${GROUP}", input: {description: "d"}) { urn } }`},
    addTag: {query: () => `mutation { addTag(input: {tagUrn: "${TAG}", resourceUrn: "${DS}"}) }`},
    addTags: {query: () => `mutation { addTags(input: {tagUrns: ["${TAG}"], resourceUrn: "${DS}"}) }`},
    batchAddTags: {query: () => `mutation { batchAddTags(input: {tagUrns: ["${TAG}"], resources: [{resourceUrn: "${DS}"}]}) }`},
    removeTag: {query: () => `mutation { removeTag(input: {tagUrn: "${TAG}", resourceUrn: "${DS}"}) }`},
    batchRemoveTags: {query: () => `mutation { batchRemoveTags(input: {tagUrns: ["${TAG}"], resources: [{resourceUrn: "${DS}"}]}) }`},
    createTag: {query: (n) => `mutation { createTag(input: {id: "made-${n}", name: "made-${n}"}) }`},
    addTerm: {query: () => `mutation { addTerm(input: {termUrn: "${TERM}", resourceUrn: "${DS}"}) }`},
    addTerms: {query: () => `mutation { addTerms(input: {termUrns: ["${TERM}"], resourceUrn: "${DS}"}) }`},
    batchAddTerms: {query: () => `mutation { batchAddTerms(input: {termUrns: ["${TERM}"], resources: [{resourceUrn: "${DS}"}]}) }`},
    removeTerm: {query: () => `mutation { removeTerm(input: {termUrn: "${TERM}", resourceUrn: "${DS}"}) }`},
    batchRemoveTerms: {query: () => `mutation { batchRemoveTerms(input: {termUrns: ["${TERM}"], resources: [{resourceUrn: "${DS}"}]}) }`},
    createGlossaryTerm: {query: (n) => `mutation { createGlossaryTerm(input: {id: "made-${n}", name: "made-${n}"}) }`},
    createGlossaryNode: {query: (n) => `mutation { createGlossaryNode(input: {id: "made-${n}", name: "made-${n}"}) }`},
    addOwner: {query: () => `mutation { addOwner(input: {ownerUrn: "${ZED}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER, resourceUrn: "${DS}"}) }`},
    addOwners: {query: () => `mutation { addOwners(input: {owners: [{ownerUrn: "${ZED}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resourceUrn: "${DS}"}) }`},
    batchAddOwners: {query: () => `mutation { batchAddOwners(input: {owners: [{ownerUrn: "${ZED}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resources: [{resourceUrn: "${DS}"}]}) }`},
    removeOwner: {query: () => `mutation { removeOwner(input: {ownerUrn: "${ZED}", resourceUrn: "${DS}"}) }`},
    batchRemoveOwners: {query: () => `mutation { batchRemoveOwners(input: {ownerUrns: ["${ZED}"], resources: [{resourceUrn: "${DS}"}]}) }`},
    setDomain: {query: () => `mutation { setDomain(entityUrn: "${DS}", domainUrn: "${DOMAIN}") }`},
    batchSetDomain: {query: () => `mutation { batchSetDomain(input: {domainUrn: "${DOMAIN}", resources: [{resourceUrn: "${DS}"}]}) }`},
    unsetDomain: {query: () => `mutation { unsetDomain(entityUrn: "${DS}") }`},
    createDomain: {query: (n) => `mutation { createDomain(input: {id: "made-${n}", name: "made-${n}"}) }`},
    updateDeprecation: {query: () => `mutation { updateDeprecation(input: {urn: "${DS}", deprecated: false}) }`},
    batchUpdateDeprecation: {query: () => `mutation { batchUpdateDeprecation(input: {deprecated: false, resources: [{resourceUrn: "${DS}"}]}) }`},
    updateDescription: {query: () => `mutation { updateDescription(input: {description: "d", resourceUrn: "${DS}"}) }`},
    batchUpdateSoftDeleted: {query: () => `mutation { batchUpdateSoftDeleted(input: {urns: ["${DS}"], deleted: false}) }`},
    addLink: {query: (n) => `mutation { addLink(input: {linkUrl: "https://example.com/add-${n}", label: "l", resourceUrn: "${DS}"}) }`},
    removeLink: {
      prepare: async (n) => (await adminGql(`mutation { addLink(input: {linkUrl: "https://example.com/rm-${n}", label: "l", resourceUrn: "${DS}"}) }`), ''),
      query: (n) => `mutation { removeLink(input: {linkUrl: "https://example.com/rm-${n}", resourceUrn: "${DS}"}) }`,
    },
    updateLink: {
      prepare: async (n) => (await adminGql(`mutation { addLink(input: {linkUrl: "https://example.com/up-${n}", label: "l", resourceUrn: "${DS}"}) }`), ''),
      query: (n) => `mutation { updateLink(input: {currentUrl: "https://example.com/up-${n}", currentLabel: "l", linkUrl: "https://example.com/upped-${n}", label: "l", resourceUrn: "${DS}"}) }`,
    },
    upsertLink: {query: (n) => `mutation { upsertLink(input: {linkUrl: "https://example.com/upsert-${n}", label: "l", resourceUrn: "${DS}"}) }`},
    reportOperation: {query: () => `mutation { reportOperation(input: {urn: "${DS}", operationType: INSERT, sourceType: DATA_PLATFORM}) }`},
    updateLineage: {query: () => `mutation { updateLineage(input: {edgesToAdd: [{upstreamUrn: "${DS2}", downstreamUrn: "${DS}"}], edgesToRemove: []}) }`},
    addRelatedTerms: {query: () => `mutation { addRelatedTerms(input: {urn: "${TERM}", termUrns: ["${TERM2}"], relationshipType: isA}) }`},
    removeRelatedTerms: {query: () => `mutation { removeRelatedTerms(input: {urn: "${TERM}", termUrns: ["${TERM2}"], relationshipType: isA}) }`},
    updateParentNode: {
      prepare: async (n) => (await adminIngest(mcp(`urn:li:glossaryTerm:mv-${n}`, 'glossaryTermInfo', {name: `mv-${n}`, definition: 'd', termSource: 'INTERNAL'})), ''),
      query: (n) => `mutation { updateParentNode(input: {resourceUrn: "urn:li:glossaryTerm:mv-${n}", parentNode: "${NODE}"}) }`,
    },
    deleteGlossaryEntity: {
      prepare: async (n) => (await adminIngest(mcp(`urn:li:glossaryTerm:del-${n}`, 'glossaryTermInfo', {name: `del-${n}`, definition: 'd', termSource: 'INTERNAL'})), ''),
      query: (n) => `mutation { deleteGlossaryEntity(urn: "urn:li:glossaryTerm:del-${n}") }`,
    },
    updateName: {query: () => `mutation { updateName(input: {urn: "${TAG}", name: "authz"}) }`},
    setTagColor: {query: () => `mutation { setTagColor(urn: "${TAG}", colorHex: "#112233") }`},
    deleteTag: {
      prepare: async (n) => (await adminIngest(mcp(`urn:li:tag:del-${n}`, 'tagProperties', {name: `del-${n}`})), ''),
      query: (n) => `mutation { deleteTag(urn: "urn:li:tag:del-${n}") }`,
    },
    deleteDomain: {
      prepare: async (n) => (await adminIngest(mcp(`urn:li:domain:del-${n}`, 'domainProperties', {name: `del-${n}`})), ''),
      query: (n) => `mutation { deleteDomain(urn: "urn:li:domain:del-${n}") }`,
    },
    moveDomain: {
      prepare: async (n) => (await adminIngest(mcp(`urn:li:domain:mv-${n}`, 'domainProperties', {name: `mv-${n}`})), ''),
      query: (n) => `mutation { moveDomain(input: {resourceUrn: "urn:li:domain:mv-${n}", parentDomain: "${DOMAIN}"}) }`,
    },
    addGroupMembers: {query: () => `mutation { addGroupMembers(input: {groupUrn: "${GROUP}", userUrns: ["${ZED}"]}) }`},
    removeGroupMembers: {query: () => `mutation { removeGroupMembers(input: {groupUrn: "${GROUP}", userUrns: ["${ZED}"]}) }`},
    createGroup: {query: (n) => `mutation { createGroup(input: {id: "made-${n}", name: "made-${n}"}) }`},
    removeGroup: {
      prepare: async (n) => (await adminIngest(mcp(`urn:li:corpGroup:rm-${n}`, 'corpGroupInfo', {admins: [], members: [], groups: []})), ''),
      query: (n) => `mutation { removeGroup(urn: "urn:li:corpGroup:rm-${n}") }`,
    },
    removeUser: {
      prepare: async (n) => (await adminIngest(mcp(U(`rm-${n}`), 'corpUserInfo', {active: true})), ''),
      query: (n) => `mutation { removeUser(urn: "${U(`rm-${n}`)}") }`,
    },
    updateUserStatus: {query: () => `mutation { updateUserStatus(urn: "${ZED}", status: ACTIVE) }`},
    createPolicy: {query: (n) => `mutation { createPolicy(input: ${policyInput(n)}) }`},
    updatePolicy: {
      prepare: async (n) => (await adminGql(`mutation { createPolicy(input: ${policyInput(`up-${n}`)}) }`)).createPolicy as string,
      query: (n, urn) => `mutation { updatePolicy(urn: "${urn}", input: ${policyInput(`upped-${n}`)}) }`,
    },
    deletePolicy: {
      prepare: async (n) => (await adminGql(`mutation { createPolicy(input: ${policyInput(`del-${n}`)}) }`)).createPolicy as string,
      query: (_n, urn) => `mutation { deletePolicy(urn: "${urn}") }`,
    },
    // An invite of no role: the caller's roles stay as they are, whoever accepts it.
    acceptRole: {
      self: true,
      prepare: async () => (await adminGql('mutation { createInviteToken(input: {}) { inviteToken } }')).createInviteToken.inviteToken as string,
      query: (_n, token) => `mutation { acceptRole(input: {inviteToken: "${token}"}) }`,
    },
    batchUpdateStepStates: {self: true, query: (n) => `mutation { batchUpdateStepStates(input: {states: [{id: "${U(n)}-home-page-search-bar", properties: [{key: "state", value: "COMPLETE"}]}]}) { results { id succeeded } } }`},
    createAccessToken: {self: true, query: (n) => `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${U(n)}", duration: ONE_HOUR, name: "own"}) { accessToken } }`},
    revokeAccessToken: {
      prepare: async (n) => (await tokenFor(ZED, `for ${n} to revoke`)).metadata.id,
      query: (_n, id) => `mutation { revokeAccessToken(tokenId: "${id}") }`,
    },
    createInviteToken: {query: () => `mutation { createInviteToken(input: {roleUrn: "${ROLES.Reader}"}) { inviteToken } }`},
    createNativeUserResetToken: {
      // Only a user with a password has one to reset: the admin invites and signs one up first.
      prepare: async (n) => {
        const invite = (await adminGql('mutation { createInviteToken(input: {}) { inviteToken } }')).createInviteToken.inviteToken as string
        const r = await http(`${lite.url}/signUp`, {body: {email: `native-${n}@example.com`, fullName: n, password: 'a-long-enough-password', inviteToken: invite}, token: null})
        expect(r.status, `sign-up: ${JSON.stringify(r.body)}`).to.be.oneOf([200, 204])
        return U(`native-${n}@example.com`)
      },
      query: (_n, urn) => `mutation { createNativeUserResetToken(input: {userUrn: "${urn}"}) { resetToken } }`,
    },
  }
  function policyInput(name: string): string {
    return `{type: METADATA, name: "${name}", state: INACTIVE, privileges: ["VIEW_ENTITY_PAGE"], actors: {resourceOwners: false, allUsers: false, allGroups: false, users: ["${ZED}"]}}`
  }

  before(async () => {
    lite = await startLite()
    const named = (urn: string) => mcp(urn, 'status', {removed: false})
    await adminIngest(
      mcp(DS, 'schemaMetadata', schema),
      mcp(DS2, 'schemaMetadata', schema),
      ...[CHART, DASH, FLOW, JOB, NOTEBOOK].map(named),
      mcp(TAG, 'tagProperties', {name: 'authz'}),
      mcp(TERM, 'glossaryTermInfo', {name: 'authz', definition: 'd', termSource: 'INTERNAL'}),
      mcp(TERM2, 'glossaryTermInfo', {name: 'authz2', definition: 'd', termSource: 'INTERNAL'}),
      mcp(NODE, 'glossaryNodeInfo', {name: 'authz', definition: 'd'}),
      mcp(DOMAIN, 'domainProperties', {name: 'Authz'}),
      mcp(GROUP, 'corpGroupInfo', {admins: [], members: [], groups: []}),
      // The group whose members are admins, as in the issue.
      mcp(ADMINS, 'corpGroupInfo', {displayName: 'Admins', admins: [], members: [], groups: []}),
      mcp(ADMINS, 'roleMembership', {roles: [ROLES.Admin]}),
      mcp(ZED, 'corpUserInfo', {active: true}),
      ...Object.values(WHO).map((n) => mcp(U(n), 'corpUserInfo', {active: true})),
      ...(['Admin', 'Editor', 'Reader'] as const).map((r) => mcp(U(WHO[r]), 'roleMembership', {roles: [ROLES[r]]})),
    )
    for (const n of Object.values(WHO)) tokens[n] = (await tokenFor(U(n), `${n}'s token`)).accessToken
  })
  after(async () => {
    await lite?.stop()
  })

  // A switched-off mutation is refused before its arguments are read: any valid call will do.
  for (const [name, rule] of Object.entries(MUTATIONS)) if (rule.on === 'off' && !CALLS[name]) CALLS[name] = {query: () => `mutation { ${name}${literalArgs(name)} }`}

  it('the table names every mutation of the schema, and each has a call here', () => {
    const fields = Object.keys(catalogSchema().getMutationType()!.getFields()).sort()
    expect(Object.keys(MUTATIONS).sort()).to.deep.equal(fields)
    expect(Object.keys(CALLS).sort()).to.deep.equal(fields)
  })

  const ROLES_TRIED: Who[] = ['Admin', 'Editor', 'Reader', 'plain']
  for (const [name, rule] of Object.entries(MUTATIONS)) {
    it(rule.on === 'off' ? `GraphQL ${name}: switched off, refused for everyone` : `GraphQL ${name}: ${rule.privileges.map((g) => g.join('+')).join(' | ')} on ${rule.on === 'entity' ? `the ${rule.type}` : 'the platform'}`, async () => {
      const call = CALLS[name]!
      const anon = await gql(null, call.query('anon', await (call.prepare?.('anon') ?? '')))
      expect(anon.status, name).to.equal(401)
      if (rule.on === 'off') {
        for (const who of ROLES_TRIED) {
          const r = await gql(who, call.query(WHO[who], ''))
          expect(r.body.errors?.[0]?.extensions?.code, `${name} as ${who}: ${JSON.stringify(r.body)}`).to.equal(400)
          expect(r.body.errors[0].message).to.match(new RegExp(`^${name} is switched off on mdcli lite \\(.+\\); nothing was changed$`))
        }
        return
      }
      for (const who of ROLES_TRIED) {
        const n = WHO[who]
        const q = call.query(n, (await call.prepare?.(n)) ?? '')
        const r = await gql(who, q)
        const allowed = allows(who, rule.privileges, rule.on === 'entity' ? rule.type : undefined)
        if (allowed) expect(r.body.errors, `${name} as ${who} should be allowed: ${JSON.stringify(r.body.errors)}`).to.equal(undefined)
        else expect(r.body.errors?.[0]?.extensions?.code, `${name} as ${who} should be refused: ${JSON.stringify(r.body)}`).to.equal(403)
      }
    })
  }

  it('createAccessToken and revokeAccessToken for someone else need MANAGE_ACCESS_TOKENS', async () => {
    for (const who of ROLES_TRIED) {
      const other = await gql(who, `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${ZED}", duration: ONE_HOUR, name: "other"}) { accessToken } }`)
      const mine = await tokenFor(U(WHO[who]), 'own, to revoke')
      const revokeOwn = await gql(who, `mutation { revokeAccessToken(tokenId: "${mine.metadata.id}") }`)
      expect(revokeOwn.body.errors, `${who} revokes their own token`).to.equal(undefined)
      if (allows(who, [['MANAGE_ACCESS_TOKENS']])) expect(other.body.errors).to.equal(undefined)
      else expect(other.body.errors[0].extensions.code, who).to.equal(403)
    }
  })

  /**
   * A write of each privileged rule of the table, over REST (`rest`) and through the GraphQL
   * mutation that makes it (`graphql`, with the mutation's rule on `type`), for actor `n`.
   * Each writes to entities of the actor's own, so that a refusal can be seen to leave nothing.
   */
  interface Sample {
    rest: (n: string) => {urn: string; aspectName: string; value: unknown}
    graphql?: {mutation: string; type?: string; query: (n: string) => string; prepare?: (n: string) => Promise<void>; changed: (n: string) => string}
    /** The actor writes about themselves. */
    self?: boolean
  }
  const tokenInfo = (n: string, actor: string) => ({name: `t-${n}`, actorUrn: actor, ownerUrn: U(n), createdAt: 1})
  const hash = (s: string) => createHash('sha256').update(s).digest('hex')
  const SAMPLES: Record<string, Sample[]> = {
    dataHubPolicy: [
      {
        rest: (n) => ({urn: `urn:li:dataHubPolicy:rest-${n}`, aspectName: 'dataHubPolicyInfo', value: {displayName: n, description: '', type: 'PLATFORM', state: 'ACTIVE', privileges: ['MANAGE_POLICIES'], actors: {users: [U(n)], resourceOwners: false, allUsers: false, allGroups: false}, editable: true}}),
        graphql: {mutation: 'createPolicy', query: (n) => `mutation { createPolicy(input: ${policyInput(`gql-${n}`)}) }`, changed: () => ''},
      },
    ],
    inviteToken: [{rest: (n) => ({urn: `urn:li:inviteToken:rest-${n}`, aspectName: 'inviteToken', value: {token: `invite-${n}-${'x'.repeat(24)}`, role: ROLES.Admin}})}],
    dataHubRole: [{rest: (n) => ({urn: `urn:li:dataHubRole:rest-${n}`, aspectName: 'dataHubRoleInfo', value: {name: n, description: 'd', editable: true}})}],
    dataHubAccessToken: [
      {
        rest: (n) => ({urn: `urn:li:dataHubAccessToken:${hash(`root-${n}`)}`, aspectName: 'dataHubAccessTokenInfo', value: tokenInfo(n, ROOT)}),
        graphql: {mutation: 'createAccessToken', query: (n) => `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${ROOT}", duration: ONE_HOUR, name: "root for ${n}"}) { accessToken } }`, changed: () => ''},
      },
      {self: true, rest: (n) => ({urn: `urn:li:dataHubAccessToken:${hash(`own-${n}`)}`, aspectName: 'dataHubAccessTokenInfo', value: tokenInfo(n, U(n))})},
    ],
    roleMembership: [{rest: (n) => ({urn: U(`role-${n}`), aspectName: 'roleMembership', value: {roles: [ROLES.Admin]}})}],
    groupMembership: [
      {
        rest: (n) => ({urn: U(`gm-${n}`), aspectName: 'groupMembership', value: {groups: [ADMINS]}}),
        graphql: {
          mutation: 'addGroupMembers',
          type: 'corpGroup',
          prepare: async (n) => adminIngest(mcp(U(`gqlgm-${n}`), 'corpUserInfo', {active: true})),
          query: (n) => `mutation { addGroupMembers(input: {groupUrn: "${ADMINS}", userUrns: ["${U(`gqlgm-${n}`)}"]}) }`,
          changed: (n) => U(`gqlgm-${n}`),
        },
      },
    ],
    nativeGroupMembership: [{rest: (n) => ({urn: U(`ngm-${n}`), aspectName: 'nativeGroupMembership', value: {nativeGroups: [ADMINS]}})}],
    corpGroupInfo: [
      {
        rest: (n) => ({urn: `urn:li:corpGroup:gi-${n}`, aspectName: 'corpGroupInfo', value: {admins: [], members: [U(n)], groups: []}}),
        graphql: {
          mutation: 'removeGroupMembers',
          type: 'corpGroup',
          prepare: async (n) => adminIngest(mcp(`urn:li:corpGroup:gqlgi-${n}`, 'corpGroupInfo', {admins: [], members: [ZED], groups: []})),
          query: (n) => `mutation { removeGroupMembers(input: {groupUrn: "urn:li:corpGroup:gqlgi-${n}", userUrns: ["${ZED}"]}) }`,
          changed: (n) => `urn:li:corpGroup:gqlgi-${n}`,
        },
      },
    ],
    'corpGroup.ownership': [
      {
        rest: (n) => ({urn: `urn:li:corpGroup:own-${n}`, aspectName: 'ownership', value: {owners: [{owner: U(n), type: 'TECHNICAL_OWNER'}], lastModified: stamp}}),
        graphql: {
          mutation: 'addOwners',
          type: 'corpGroup',
          prepare: async (n) => adminIngest(mcp(`urn:li:corpGroup:gqlown-${n}`, 'corpGroupInfo', {admins: [], members: [], groups: []})),
          query: (n) => `mutation { addOwners(input: {owners: [{ownerUrn: "${U(n)}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resourceUrn: "urn:li:corpGroup:gqlown-${n}"}) }`,
          changed: (n) => `urn:li:corpGroup:gqlown-${n}`,
        },
      },
    ],
    corpUserCredentials: [{rest: (n) => ({urn: U(`cred-${n}`), aspectName: 'corpUserCredentials', value: {salt: 's', hashedPassword: 'h'}})}],
    corpUserStatus: [
      {
        rest: (n) => ({urn: U(`st-${n}`), aspectName: 'corpUserStatus', value: {status: 'SUSPENDED', lastModified: stamp}}),
        graphql: {
          mutation: 'updateUserStatus',
          prepare: async (n) => adminIngest(mcp(U(`gqlst-${n}`), 'corpUserInfo', {active: true})),
          query: (n) => `mutation { updateUserStatus(urn: "${U(`gqlst-${n}`)}", status: SUSPENDED) }`,
          changed: (n) => U(`gqlst-${n}`),
        },
      },
    ],
    status: [
      {
        rest: (n) => ({urn: `urn:li:dataset:(urn:li:dataPlatform:hive,authz.soft_${n},PROD)`, aspectName: 'status', value: {removed: true}}),
        graphql: {
          mutation: 'batchUpdateSoftDeleted',
          prepare: async (n) => {
            await adminIngest(mcp(`urn:li:dataset:(urn:li:dataPlatform:hive,authz.gsoft_${n},PROD)`, 'status', {removed: false}))
          },
          query: (n) => `mutation { batchUpdateSoftDeleted(input: {urns: ["urn:li:dataset:(urn:li:dataPlatform:hive,authz.gsoft_${n},PROD)"], deleted: true}) }`,
          changed: (n) => `urn:li:dataset:(urn:li:dataPlatform:hive,authz.gsoft_${n},PROD)`,
        },
      },
    ],
    corpUserSettings: [
      {rest: (n) => ({urn: U(`set-${n}`), aspectName: 'corpUserSettings', value: {appearance: {showSimplifiedHomepage: true}}})},
      {self: true, rest: (n) => ({urn: U(n), aspectName: 'corpUserSettings', value: {appearance: {showSimplifiedHomepage: true}}})},
    ],
  }

  it('every privileged rule of the table has a sample write here', () => {
    expect(Object.keys(SAMPLES).sort()).to.deep.equal([...Object.keys(PRIVILEGED_ENTITIES), ...Object.keys(PRIVILEGED_ASPECTS)].sort())
  })

  for (const [key, samples] of Object.entries(SAMPLES)) {
    const rule = PRIVILEGED_ENTITIES[key] ?? PRIVILEGED_ASPECTS[key]!
    samples.forEach((s, i) => {
      it(`${key}${s.self ? ' (about oneself)' : ''} — ${rule.what}: REST ${s.graphql ? `and GraphQL ${s.graphql.mutation} ` : ''}as each role`, async () => {
        const anon = s.rest('anon')
        expect((await ingest(null, mcp(anon.urn, anon.aspectName, anon.value))).status).to.equal(401)
        for (const who of ROLES_TRIED) {
          const n = WHO[who]
          const w = s.rest(n)
          const type = w.urn.split(':')[2]!
          const r = privilegedRule(type, w.aspectName)!
          expect(r, `${key} sample ${i}`).to.equal(rule)
          // REST needs EDIT_ENTITY (or CREATE_ENTITY for a new entity) on the entity, and the table's rule.
          const entityLevel = allows(who, [['EDIT_ENTITY'], ['CREATE_ENTITY']], type)
          const need = s.self ? rule.self!.upsert : [...rule.platform, ...(rule.resource?.privileges ?? [])]
          const tableLevel = need.length === 0 || (rule.resource?.on === 'changedGroups' ? allows(who, need, 'corpGroup') : allows(who, need, type))
          const before = JSON.stringify(await entity(w.urn))
          const res = await ingest(who, mcp(w.urn, w.aspectName, w.value))
          if (entityLevel && tableLevel) {
            expect(res.status, `REST ${key} as ${who}: ${JSON.stringify(res.body)}`).to.equal(200)
          } else {
            expect(res.status, `REST ${key} as ${who} should be refused: ${JSON.stringify(res.body)}`).to.equal(403)
            expect(JSON.stringify(await entity(w.urn)), 'nothing written').to.equal(before)
          }
          if (!s.graphql) continue
          const g = s.graphql
          await g.prepare?.(n)
          const m = MUTATIONS[g.mutation]!
          const changed = g.changed(n)
          const snapshot = changed ? JSON.stringify(await entity(changed)) : ''
          const out = await gql(who, g.query(n))
          const mutationLevel = allows(who, m.privileges, m.on === 'entity' ? (g.type ?? m.type) : undefined)
          const gqlTable = rule.self ? allows(who, rule.platform) : allows(who, [...rule.platform, ...(rule.resource?.privileges ?? [])], g.type ?? type)
          if (mutationLevel && gqlTable) expect(out.body.errors, `GraphQL ${g.mutation} as ${who}: ${JSON.stringify(out.body.errors)}`).to.equal(undefined)
          else {
            expect(out.body.errors?.[0]?.extensions?.code, `GraphQL ${g.mutation} as ${who} should be refused: ${JSON.stringify(out.body)}`).to.equal(403)
            if (changed) expect(JSON.stringify(await entity(changed)), 'nothing written').to.equal(snapshot)
          }
        }
      })
    })
  }

  describe('the escalation of issue 29 is refused at every step', () => {
    const ED = U(WHO.Editor)
    it('an Editor cannot join a group that holds the Admin role, by any door', async () => {
      const group = await entity(ADMINS)
      const me = await entity(ED)
      // GraphQL addGroupMembers.
      const add = await gql('Editor', `mutation { addGroupMembers(input: {groupUrn: "${ADMINS}", userUrns: ["${ED}"]}) }`)
      expect(add.body.errors?.[0]?.extensions?.code, JSON.stringify(add.body)).to.equal(403)
      // REST: the group's member list, the Editor's own membership lists, and owning the group.
      for (const p of [
        mcp(ADMINS, 'corpGroupInfo', {displayName: 'Admins', admins: [], members: [ED], groups: []}),
        mcp(ED, 'groupMembership', {groups: [ADMINS]}),
        mcp(ED, 'nativeGroupMembership', {nativeGroups: [ADMINS]}),
        mcp(ED, 'roleMembership', {roles: [ROLES.Admin]}),
        mcp(ADMINS, 'ownership', {owners: [{owner: ED, type: 'TECHNICAL_OWNER'}], lastModified: stamp}),
        {entityUrn: ADMINS, aspectName: 'corpGroupInfo', changeType: 'PATCH', aspect: {json: [{op: 'replace', path: '/members', value: [ED]}]}},
      ]) {
        const r = await http(`${lite.url}/aspects?action=ingestProposal`, {body: {proposal: p}, token: tokenOf('Editor')})
        expect(r.status, `${p.aspectName}: ${JSON.stringify(r.body)}`).to.equal(403)
      }
      // POST /entities (the Rest.li snapshot door).
      const snap = await http(`${lite.url}/entities?action=ingest`, {
        body: {entity: {value: {'com.linkedin.metadata.snapshot.CorpGroupSnapshot': {urn: ADMINS, aspects: [{'com.linkedin.identity.CorpGroupInfo': {admins: [], members: [ED], groups: []}}]}}}},
        token: tokenOf('Editor'),
      })
      expect(snap.status, JSON.stringify(snap.body)).to.equal(403)
      // GraphQL addOwners on the group (owners may edit members).
      const own = await gql('Editor', `mutation { addOwners(input: {owners: [{ownerUrn: "${ED}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resourceUrn: "${ADMINS}"}) }`)
      expect(own.body.errors?.[0]?.extensions?.code, JSON.stringify(own.body)).to.equal(403)
      expect(await entity(ADMINS)).to.deep.equal(group)
      expect(await entity(ED)).to.deep.equal(me)
    })

    it('an Editor cannot mint a token for the root user, by GraphQL or REST', async () => {
      const g = await gql('Editor', `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${ROOT}", duration: ONE_HOUR, name: "root"}) { accessToken } }`)
      expect(g.body.errors?.[0]?.extensions?.code).to.equal(403)
      const secret = 'mdt_' + 'x'.repeat(43)
      const r = await ingest('Editor', mcp(`urn:li:dataHubAccessToken:${hash(secret)}`, 'dataHubAccessTokenInfo', {name: 'root', actorUrn: ROOT, ownerUrn: U(WHO.Editor), createdAt: 1}))
      expect(r.status).to.equal(403)
      // Nor take over a token of theirs by pointing it at the root user.
      const mine = await gql('Editor', `mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${U(WHO.Editor)}", duration: ONE_HOUR, name: "mine"}) { accessToken metadata { id } } }`)
      expect(mine.body.errors).to.equal(undefined)
      const {accessToken, metadata} = mine.body.data.createAccessToken
      const turn = await ingest('Editor', mcp(`urn:li:dataHubAccessToken:${metadata.id}`, 'dataHubAccessTokenInfo', {name: 'mine', actorUrn: ROOT, ownerUrn: U(WHO.Editor), createdAt: 1}))
      expect(turn.status).to.equal(403)
      const who = await http(`${lite.url}/api/graphql`, {body: {query: '{ me { corpUser { urn } } }'}, token: accessToken})
      expect(who.body.data?.me?.corpUser?.urn ?? JSON.stringify(who.body)).to.equal(U(WHO.Editor))
      // With no Admin role and no token for the root user, policies stay out of reach too.
      const pol = await gql('Editor', `mutation { createPolicy(input: {type: PLATFORM, name: "mine", state: ACTIVE, privileges: ["MANAGE_POLICIES"], actors: {resourceOwners: false, allUsers: false, allGroups: false, users: ["${U(WHO.Editor)}"]}}) }`)
      expect(pol.body.errors?.[0]?.extensions?.code).to.equal(403)
    })

    it('a batch mixing an allowed write with a privileged one writes nothing', async () => {
      // As a recipe's REST sink sends it (ingestProposalBatch, atomic).
      const r = await ingest('Editor', mcp(DS, 'editableDatasetProperties', {description: 'mixed'}), mcp(ADMINS, 'corpGroupInfo', {admins: [], members: [U(WHO.Editor)], groups: []}))
      expect(r.status).to.equal(403)
      expect(JSON.stringify(await entity(DS))).to.not.include('mixed')
    })
  })

  it('the queue consumer meets the same table: an Editor\'s privileged proposal is dead-lettered, their plain edit applied', async function () {
    const url = await requireNats(this)
    const {jetstreamManager, jetstream} = await import('@nats-io/jetstream')
    const {connect, headers} = await import('@nats-io/transport-node')
    const nc = await connect({servers: url.replace(/^nats:\/\//, '')})
    const stream = uniqueName('MDCLI_AUTHZ').replace(/[^A-Za-z0-9_]/g, '_')
    const subject = `${stream.toLowerCase()}.proposals`
    const jsm = await jetstreamManager(nc)
    let consumer: LiteProcess | undefined
    try {
      await jsm.streams.add({name: stream, subjects: [subject, `${subject}.dead`]})
      // A server of its own, seeded with the users and roles, then sent the Editor's proposals.
      consumer = await startLite({args: ['--consume', `${url}/${stream}`]})
      const seed = [
        mcp(DS, 'schemaMetadata', schema),
        mcp(ADMINS, 'corpGroupInfo', {displayName: 'Admins', admins: [], members: [], groups: []}),
        mcp(ADMINS, 'roleMembership', {roles: [ROLES.Admin]}),
        mcp(U(WHO.Editor), 'corpUserInfo', {active: true}),
        mcp(U(WHO.Editor), 'roleMembership', {roles: [ROLES.Editor]}),
      ]
      const seeded = await http(`${consumer.url}/aspects?action=ingestProposalBatch`, {body: {atomic: true, proposals: seed}, token: consumer.token})
      expect(seeded.status).to.equal(200)
      const js = jetstream(nc)
      const h = headers()
      h.set('Mdcli-Actor', U(WHO.Editor))
      await js.publish(subject, JSON.stringify(mcp(ADMINS, 'corpGroupInfo', {displayName: 'Admins', admins: [], members: [U(WHO.Editor)], groups: []})), {headers: h})
      await js.publish(subject, JSON.stringify(mcp(DS, 'editableDatasetProperties', {description: 'through the queue'})), {headers: h})
      const read = async (urn: string) => JSON.stringify((await http(`${consumer!.url}/entitiesV2/${encodeUrnPath(urn)}`, {token: consumer!.token})).body)
      const deadline = Date.now() + 30_000
      let dead = 0
      while (Date.now() < deadline) {
        const info = await jsm.streams.info(stream, {subjects_filter: '>'})
        dead = (info.state.subjects as Record<string, number> | undefined)?.[`${subject}.dead`] ?? 0
        if (dead > 0 && (await read(DS)).includes('through the queue')) break
        await new Promise((r) => setTimeout(r, 200))
      }
      expect(dead).to.equal(1)
      expect(await read(DS)).to.include('through the queue')
      expect(await read(ADMINS)).to.not.include(U(WHO.Editor))
    } finally {
      await consumer?.stop()
      await jsm.streams.delete(stream).catch(() => undefined)
      await nc.close()
    }
  })
})
