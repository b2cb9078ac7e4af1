/**
 * What DataHub's web app and Python SDK ask first, on a real `mdcli lite` with tokens: `me` and
 * `appConfig`, partial data when one root field is refused, the dataset page's extra fields
 * (privileges, profiles, runs, operations) and the management mutations and lists.
 * The admin is the printed token; bob is a user with no policy of his own.
 */
import {expect} from 'chai'
import {http, type LiteProcess, startLite} from '../helpers/lite.js'

const U = (n: string) => `urn:li:corpuser:${n}`

describe('graphql: what DataHub’s UI and SDK ask first', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  let bobToken: string

  const call = async (query: string, variables: Record<string, unknown> = {}, token = lite.token) => (await http(`${lite.url}/api/graphql`, {token, body: {query, variables}})).body
  const ok = async (query: string, variables: Record<string, unknown> = {}, token = lite.token) => {
    const b = await call(query, variables, token)
    expect(b.errors, JSON.stringify(b.errors)).to.equal(undefined)
    return b.data
  }
  const asBob = (query: string, variables: Record<string, unknown> = {}) => call(query, variables, bobToken)

  before(async () => {
    lite = await startLite()
    const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {
      token: lite.token,
      body: {atomic: true, proposals: [{entityUrn: U('bob'), aspectName: 'corpUserInfo', changeType: 'UPSERT', aspect: {json: {active: true, displayName: 'Bob'}}}]},
    })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    const t = await ok('mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "urn:li:corpuser:bob", duration: ONE_DAY, name: "bob"}) { accessToken } }')
    bobToken = t.createAccessToken.accessToken
  })
  after(async () => {
    await lite?.stop()
  })

  const put = async (proposals: Array<[string, string, unknown]>) => {
    const r = await http(`${lite.url}/aspects?action=ingestProposalBatch`, {
      token: lite.token,
      body: {atomic: true, proposals: proposals.map(([entityUrn, aspectName, json]) => ({entityUrn, aspectName, changeType: 'UPSERT', aspect: {json}}))},
    })
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
  }

  describe('partial data', () => {
    it('listPolicies takes the settings page’s orFilters on the policy state', async () => {
      const q = `query p($state: String!, $negated: Boolean) { listPolicies(input: {start: 0, count: 100, orFilters: [{and: [{field: "state", values: [$state], negated: $negated}]}]}) { total policies { state } } }`
      const active = (await ok(q, {state: 'ACTIVE'})).listPolicies
      expect(active.total).to.be.greaterThan(0)
      expect(active.policies.every((p: {state: string}) => p.state === 'ACTIVE')).to.equal(true)
      const all = (await ok('{ listPolicies(input: {start: 0, count: 100}) { total } }')).listPolicies.total
      const notActive = (await ok(q, {state: 'ACTIVE', negated: true})).listPolicies.total
      expect(active.total + notActive).to.equal(all)
    })

    it('a refused listPolicies is null with a 403 at its path; the other fields still answer', async () => {
      const b = await asBob('{ listPolicies(input: {start: 0, count: 5}) { total } me { corpUser { urn } } }')
      expect(b.data).to.deep.equal({listPolicies: null, me: {corpUser: {urn: U('bob')}}})
      expect(b.errors).to.have.length(1)
      expect(b.errors[0]).to.deep.include({path: ['listPolicies'], extensions: {code: 403, type: 'UNAUTHORIZED', classification: 'DataFetchingException'}})
    })

    it('listUsers and listGroups need Manage Users & Groups, as DataHub’s; search still finds people', async () => {
      for (const q of ['{ listUsers(input: {start: 0, count: 5}) { total users { urn } } }', '{ listGroups(input: {start: 0, count: 5}) { total groups { urn } } }']) {
        const b = await asBob(q)
        expect(b.data, q).to.deep.equal({[q.includes('listUsers') ? 'listUsers' : 'listGroups']: null})
        expect(b.errors[0]).to.deep.include({message: 'Unauthorized to perform this action. Please contact your DataHub administrator.'})
        expect(b.errors[0].extensions.code).to.equal(403)
        expect((await call(q)).errors, `${q} as the admin`).to.equal(undefined)
      }
      const found = (await asBob('{ searchAcrossEntities(input: {types: [CORP_USER], query: "Bob", start: 0, count: 5}) { searchResults { entity { urn } } } }')).data
      expect(found.searchAcrossEntities.searchResults.map((r: any) => r.entity.urn)).to.include(U('bob'))
    })

    it('the admin gets both', async () => {
      const d = await ok('{ listPolicies(input: {start: 0, count: 100}) { total } me { corpUser { urn } } }')
      expect(d.listPolicies.total).to.be.greaterThan(0)
      expect(d.me.corpUser.urn).to.equal(U('datahub'))
    })
  })

  describe('the web app’s boot: me and appConfig', () => {
    const ME = `{ me { corpUser { urn } platformPrivileges { viewAnalytics managePolicies manageIdentities generatePersonalAccessTokens createDomains manageDomains
      manageIngestion manageSecrets manageTokens viewTests manageTests manageGlossaries manageUserCredentials createTags manageTags manageGlobalViews
      manageOwnershipTypes manageGlobalAnnouncements createBusinessAttributes manageBusinessAttributes manageStructuredProperties viewStructuredPropertiesPage } } }`

    it('the admin may manage what mdcli has; features mdcli lacks are false for everyone', async () => {
      const p = (await ok(ME)).me.platformPrivileges
      for (const k of ['managePolicies', 'manageIdentities', 'manageUserCredentials', 'generatePersonalAccessTokens', 'createDomains', 'manageDomains', 'manageTokens', 'manageGlossaries', 'createTags', 'manageTags']) expect(p[k], k).to.equal(true)
      for (const k of ['viewAnalytics', 'manageIngestion', 'manageSecrets', 'viewTests', 'manageTests', 'manageGlobalViews', 'manageOwnershipTypes', 'manageGlobalAnnouncements', 'createBusinessAttributes', 'manageBusinessAttributes', 'manageStructuredProperties', 'viewStructuredPropertiesPage']) expect(p[k], k).to.equal(false)
    })

    it('bob may only make his own tokens; a policy granting CREATE_TAGS shows as createTags', async () => {
      const before = (await asBob(ME)).data.me.platformPrivileges
      expect(Object.entries(before).filter(([, v]) => v).map(([k]) => k)).to.deep.equal(['generatePersonalAccessTokens'])
      const policy = (await ok('mutation p($input: PolicyUpdateInput!) { createPolicy(input: $input) }', {
        input: {type: 'PLATFORM', name: 'bob tags', state: 'ACTIVE', privileges: ['CREATE_TAGS'], actors: {users: [U('bob')], resourceOwners: false, allUsers: false, allGroups: false}},
      })).createPolicy
      try {
        const after = (await asBob(ME)).data.me.platformPrivileges
        expect([after.createTags, after.manageTags]).to.deep.equal([true, false])
        // The policy reads back with its users resolved to entities.
        const listed = (await ok('{ listPolicies(input: {start: 0, count: 100, query: "bob tags"}) { policies { urn actors { users resolvedUsers { urn username } resolvedGroups { urn } } } } }')).listPolicies.policies
        expect(listed).to.deep.equal([{urn: policy, actors: {users: [U('bob')], resolvedUsers: [{urn: U('bob'), username: 'bob'}], resolvedGroups: []}}])
      } finally {
        await ok(`mutation { deletePolicy(urn: "${policy}") }`)
      }
    })

    it('appConfig describes the features this server has', async () => {
      const c = (await asBob(`{ appConfig { appVersion authConfig { tokenAuthEnabled } analyticsConfig { enabled } policiesConfig { enabled platformPrivileges { type displayName description }
        resourcePrivileges { resourceType resourceTypeDisplayName entityType privileges { type displayName description } } } identityManagementConfig { enabled } managedIngestionConfig { enabled }
        lineageConfig { supportsImpactAnalysis } visualConfig { appTitle hideGlossary } telemetryConfig { enableThirdPartyLogging } testsConfig { enabled }
        viewsConfig { enabled } featureFlags { showBrowseV2 nestedDomainsEnabled readOnlyModeEnabled themeV2Enabled } chromeExtensionConfig { enabled } } }`)).data.appConfig
      expect(c.appVersion).to.be.a('string')
      expect(c.authConfig.tokenAuthEnabled).to.equal(true)
      expect([c.analyticsConfig.enabled, c.managedIngestionConfig.enabled, c.testsConfig.enabled, c.viewsConfig.enabled, c.chromeExtensionConfig.enabled]).to.deep.equal([false, false, false, false, false])
      expect([c.policiesConfig.enabled, c.identityManagementConfig.enabled, c.lineageConfig.supportsImpactAnalysis]).to.deep.equal([true, true, true])
      // The policy builder's words are DataHub's: its display names, a description for every privilege, resource types by name.
      const platform = new Map(c.policiesConfig.platformPrivileges.map((p: any) => [p.type, p.displayName]))
      expect(platform.get('MANAGE_POLICIES')).to.equal('Manage Policies')
      expect(platform.get('MANAGE_USERS_AND_GROUPS')).to.equal('Manage Users & Groups')
      expect(platform.get('MANAGE_INGESTION')).to.equal('Manage Metadata Ingestion')
      const ds = c.policiesConfig.resourcePrivileges.find((r: any) => r.resourceType === 'dataset')
      expect([ds.entityType, ds.resourceTypeDisplayName]).to.deep.equal(['DATASET', 'Datasets'])
      expect(ds.privileges.map((p: any) => p.type)).to.include.members(['EDIT_ENTITY_TAGS', 'EDIT_LINEAGE', 'EDIT_DATASET_COL_DESCRIPTION'])
      const names = new Map(ds.privileges.map((p: any) => [p.type, p.displayName]))
      expect([names.get('EDIT_ENTITY_TAGS'), names.get('EDIT_ENTITY_GLOSSARY_TERMS'), names.get('EDIT_ENTITY_DOCS')]).to.deep.equal(['Edit Tags', 'Edit Glossary Terms', 'Edit Description'])
      const byType = new Map(c.policiesConfig.resourcePrivileges.map((r: any) => [r.resourceType, r.resourceTypeDisplayName]))
      expect([byType.get('dataFlow'), byType.get('dataJob'), byType.get('glossaryNode'), byType.get('corpuser')]).to.deep.equal(['Data Pipelines', 'Data Tasks', 'Glossary Term Groups', 'Users'])
      const all = [...c.policiesConfig.platformPrivileges, ...c.policiesConfig.resourcePrivileges.flatMap((r: any) => r.privileges)]
      expect(all.filter((p: any) => typeof p.description !== 'string' || p.description === '').map((p: any) => p.type), 'privileges without a description').to.deep.equal([])
      expect(c.policiesConfig.resourcePrivileges.filter((r: any) => r.resourceTypeDisplayName === r.resourceType).map((r: any) => r.resourceType), 'resource types without a name').to.deep.equal([])
      expect(c.featureFlags).to.deep.equal({showBrowseV2: true, nestedDomainsEnabled: true, readOnlyModeEnabled: false, themeV2Enabled: false})
    })
  })

  describe('the dataset page', () => {
    const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,ui.orders,PROD)'
    const CUSTOMERS = 'urn:li:dataset:(urn:li:dataPlatform:hive,ui.customers,PROD)'
    const MINE = 'urn:li:dataset:(urn:li:dataPlatform:hive,ui.bobs,PROD)'
    const DB = 'urn:li:container:ui-db'
    const NB = 'urn:li:notebook:(querybook,ui-1)'
    const RUN_W = 'urn:li:dataProcessInstance:ui-write'
    const RUN_R = 'urn:li:dataProcessInstance:ui-read'
    const field = (fieldPath: string) => ({fieldPath, nullable: false, type: {type: {'com.linkedin.schema.NumberType': {}}}, nativeDataType: 'int'})
    const sf = (ds: string, path: string) => `urn:li:schemaField:(${ds},${path})`
    const profile = (t: number, partition: string, rowCount: number) => ({timestampMillis: t, rowCount, columnCount: 2, partitionSpec: {type: 'PARTITION', partition}})

    before(async () => {
      await put([
        [DS, 'schemaMetadata', {schemaName: 'orders', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: ''}},
          fields: [field('id'), field('customer_id')], foreignKeys: [{name: 'fk_customer', foreignFields: [sf(CUSTOMERS, 'id')], sourceFields: [sf(DS, 'customer_id')], foreignDataset: CUSTOMERS}]}],
        [DS, 'container', {container: DB}],
        [CUSTOMERS, 'container', {container: DB}],
        [DB, 'containerProperties', {name: 'ui-db'}],
        [MINE, 'ownership', {owners: [{owner: U('bob'), type: 'DATAOWNER'}], lastModified: {time: 1, actor: U('datahub')}}],
        [DS, 'datasetProfile', profile(1000, '2024-01-01', 10)],
        [DS, 'datasetProfile', profile(2000, '2024-01-02', 20)],
        [DS, 'datasetProfile', profile(3000, '2024-01-01', 11)],
        [DS, 'operation', {timestampMillis: 1500, lastUpdatedTimestamp: 1500, operationType: 'INSERT', partitionSpec: {type: 'PARTITION', partition: '2024-01-01'}}],
        [DS, 'operation', {timestampMillis: 2500, lastUpdatedTimestamp: 2500, operationType: 'DELETE'}],
        [RUN_W, 'dataProcessInstanceProperties', {name: 'write orders', created: {time: 10, actor: U('datahub')}}],
        [RUN_W, 'dataProcessInstanceOutput', {outputs: [DS]}],
        [RUN_R, 'dataProcessInstanceProperties', {name: 'read orders', created: {time: 20, actor: U('datahub')}}],
        [RUN_R, 'dataProcessInstanceInput', {inputs: [DS]}],
        [NB, 'notebookInfo', {title: 'ui notebook', changeAuditStamps: {created: {time: 1, actor: U('datahub')}, lastModified: {time: 1, actor: U('datahub')}}}],
        [NB, 'notebookContent', {cells: [
          {type: 'TEXT_CELL', textCell: {cellId: 't1', text: 'Hello', changeAuditStamps: {created: {time: 1, actor: U('datahub')}, lastModified: {time: 1, actor: U('datahub')}}}},
          {type: 'QUERY_CELL', queryCell: {cellId: 'q1', cellTitle: 'count', rawQuery: 'select count(*) from orders', changeAuditStamps: {created: {time: 1, actor: U('datahub')}, lastModified: {time: 2, actor: U('datahub')}}}},
        ]}],
      ])
    })

    it('datasetProfiles takes DataHub’s filter (one partition) and gives the partition spec', async () => {
      const q = `query p($filter: FilterInput) { dataset(urn: "${DS}") { datasetProfiles(limit: 10, filter: $filter) { timestampMillis rowCount partitionSpec { type partition } } } }`
      const all = (await ok(q)).dataset.datasetProfiles
      expect(all.map((p: any) => p.timestampMillis)).to.deep.equal([3000, 2000, 1000])
      const one = (await ok(q, {filter: {or: [{and: [{field: 'partitionSpec.partition', values: ['2024-01-01']}]}]}})).dataset.datasetProfiles
      expect(one).to.deep.equal([
        {timestampMillis: 3000, rowCount: 11, partitionSpec: {type: 'PARTITION', partition: '2024-01-01'}},
        {timestampMillis: 1000, rowCount: 10, partitionSpec: {type: 'PARTITION', partition: '2024-01-01'}},
      ])
      const latestOne = (await ok(`{ dataset(urn: "${DS}") { datasetProfiles(limit: 1, filter: {or: [{and: [{field: "partitionSpec.partition", values: ["2024-01-02"]}]}]}) { rowCount } } }`)).dataset.datasetProfiles
      expect(latestOne).to.deep.equal([{rowCount: 20}])
      // DataHub's web app sends one AND-group as `and`, with its negations.
      const others = (await ok(q, {filter: {and: [{field: 'partitionSpec.partition', values: ['2024-01-01'], negated: true}]}})).dataset.datasetProfiles
      expect(others.map((p: any) => p.timestampMillis)).to.deep.equal([2000])
    })

    it('operations take a filter too', async () => {
      const d = (await ok(`{ dataset(urn: "${DS}") { all: operations(limit: 10) { operationType partition }
        deletes: operations(limit: 10, filter: {or: [{and: [{field: "operationType", values: ["DELETE"]}]}]}) { timestampMillis } } }`)).dataset
      expect(d.all).to.deep.equal([{operationType: 'DELETE', partition: null}, {operationType: 'INSERT', partition: '2024-01-01'}])
      expect(d.deletes).to.deep.equal([{timestampMillis: 2500}])
    })

    it('runs: the process instances that wrote (INCOMING) or read (OUTGOING) the dataset', async () => {
      const d = (await ok(`{ dataset(urn: "${DS}") { wrote: runs(start: 0, count: 10, direction: INCOMING) { total runs { urn } } read: runs(start: 0, count: 10, direction: OUTGOING) { total runs { urn } } } }`)).dataset
      expect(d.wrote).to.deep.equal({total: 1, runs: [{urn: RUN_W}]})
      expect(d.read).to.deep.equal({total: 1, runs: [{urn: RUN_R}]})
    })

    it('schemaMetadata.foreignKeys names the columns and the dataset referred to', async () => {
      const fk = (await ok(`{ dataset(urn: "${DS}") { schemaMetadata { foreignKeys { name sourceFields { fieldPath } foreignFields { fieldPath parent { urn } } foreignDataset { urn } } } } }`)).dataset.schemaMetadata.foreignKeys
      expect(fk).to.deep.equal([{name: 'fk_customer', sourceFields: [{fieldPath: 'customer_id'}], foreignFields: [{fieldPath: 'id', parent: {urn: CUSTOMERS}}], foreignDataset: {urn: CUSTOMERS}}])
    })

    it('privileges: the admin may edit everything; bob only what he owns', async () => {
      const q = (urn: string) => `{ dataset(urn: "${urn}") { privileges { canEditLineage canEditEmbed canEditQueries canEditTags canEditDescription canEditSchemaFieldTags canManageEntity canProposeTags canViewDatasetProfile } } }`
      const admin = (await ok(q(DS))).dataset.privileges
      expect(admin).to.deep.equal({canEditLineage: true, canEditEmbed: true, canEditQueries: true, canEditTags: true, canEditDescription: true, canEditSchemaFieldTags: true, canManageEntity: true, canProposeTags: false, canViewDatasetProfile: true})
      const bob = (await asBob(q(DS))).data.dataset.privileges
      expect([bob.canEditLineage, bob.canEditTags, bob.canEditDescription, bob.canManageEntity]).to.deep.equal([false, false, false, false])
      const owned = (await asBob(q(MINE))).data.dataset.privileges
      // DataHub's asset-owners policy: EDIT_ENTITY and the edit privileges, not DELETE_ENTITY.
      expect([owned.canEditLineage, owned.canEditTags, owned.canEditEmbed, owned.canManageEntity]).to.deep.equal([true, true, true, false])
    })

    it('Container.entities searches the container’s children', async () => {
      const r = (await ok(`{ container(urn: "${DB}") { entities(input: {query: "*", start: 0, count: 10}) { total searchResults { entity { urn } } } } }`)).container.entities
      expect(r.total).to.equal(2)
      expect(r.searchResults.map((x: any) => x.entity.urn).sort()).to.deep.equal([CUSTOMERS, DS].sort())
      const one = (await ok(`{ container(urn: "${DB}") { entities(input: {query: "customers"}) { total } } }`)).container.entities
      expect(one.total).to.equal(1)
    })

    it('Notebook.content lists the stored cells', async () => {
      const c = (await ok(`{ notebook(urn: "${NB}") { content { cells { type textCell { cellId text } queryCell { cellId cellTitle rawQuery changeAuditStamps { lastModified { time } } } chartCell { cellId } } } } }`)).notebook.content
      expect(c.cells).to.deep.equal([
        {type: 'TEXT_CELL', textCell: {cellId: 't1', text: 'Hello'}, queryCell: null, chartCell: null},
        {type: 'QUERY_CELL', textCell: null, queryCell: {cellId: 'q1', cellTitle: 'count', rawQuery: 'select count(*) from orders', changeAuditStamps: {lastModified: {time: 2}}}, chartCell: null},
      ])
    })
  })

  describe('management mutations and lists', () => {
    const refused = async (query: string) => {
      const b = await asBob(query)
      expect(b.errors?.[0]?.extensions?.code, JSON.stringify(b)).to.equal(403)
    }
    const latestValue = async (urn: string, aspect: string) => {
      const r = await http(`${lite.url}/aspects/${encodeURIComponent(urn)}?aspect=${aspect}&version=0`, {token: lite.token})
      return r.status === 404 ? undefined : Object.values(r.body.aspect)[0]
    }

    before(async () => {
      await ok('mutation { createGlossaryNode(input: {id: "ui-node", name: "UI node"}) }')
      await ok('mutation { createGlossaryNode(input: {id: "ui-other", name: "UI other"}) }')
      await ok('mutation { createGlossaryTerm(input: {id: "ui-a", name: "A", parentNode: "urn:li:glossaryNode:ui-node"}) }')
      await ok('mutation { createGlossaryTerm(input: {id: "ui-b", name: "B", parentNode: "urn:li:glossaryNode:ui-node"}) }')
      await ok('mutation { createDomain(input: {id: "ui-top", name: "Top"}) }')
      await ok('mutation { createDomain(input: {id: "ui-sub", name: "Sub"}) }')
      await ok('mutation { createGroup(input: {id: "ui-team", name: "Team"}) }')
    })

    it('addRelatedTerms/removeRelatedTerms write glossaryRelatedTerms; a term cannot relate to itself; bob may not', async () => {
      const A = 'urn:li:glossaryTerm:ui-a'
      const B = 'urn:li:glossaryTerm:ui-b'
      await refused(`mutation { addRelatedTerms(input: {urn: "${A}", termUrns: ["${B}"], relationshipType: isA}) }`)
      await ok(`mutation { addRelatedTerms(input: {urn: "${A}", termUrns: ["${B}"], relationshipType: isA}) }`)
      await ok(`mutation { addRelatedTerms(input: {urn: "${A}", termUrns: ["${B}"], relationshipType: hasA}) }`)
      expect(await latestValue(A, 'glossaryRelatedTerms')).to.deep.equal({isRelatedTerms: [B], hasRelatedTerms: [B]})
      const self = await call(`mutation { addRelatedTerms(input: {urn: "${A}", termUrns: ["${A}"], relationshipType: isA}) }`)
      expect(self.errors[0].extensions.code).to.equal(400)
      await ok(`mutation { removeRelatedTerms(input: {urn: "${A}", termUrns: ["${B}"], relationshipType: isA}) }`)
      expect(await latestValue(A, 'glossaryRelatedTerms')).to.deep.equal({isRelatedTerms: [], hasRelatedTerms: [B]})
    })

    it('updateParentNode moves a term between nodes and to the top; deleteGlossaryEntity deletes it', async () => {
      const B = 'urn:li:glossaryTerm:ui-b'
      await refused(`mutation { updateParentNode(input: {resourceUrn: "${B}", parentNode: "urn:li:glossaryNode:ui-other"}) }`)
      await ok(`mutation { updateParentNode(input: {resourceUrn: "${B}", parentNode: "urn:li:glossaryNode:ui-other"}) }`)
      expect(((await latestValue(B, 'glossaryTermInfo')) as any).parentNode).to.equal('urn:li:glossaryNode:ui-other')
      await ok(`mutation { updateParentNode(input: {resourceUrn: "${B}"}) }`)
      expect(((await latestValue(B, 'glossaryTermInfo')) as any).parentNode).to.equal(undefined)
      const loop = await call('mutation { updateParentNode(input: {resourceUrn: "urn:li:glossaryNode:ui-node", parentNode: "urn:li:glossaryNode:ui-node"}) }')
      expect(loop.errors[0].extensions.code).to.equal(400)
      await refused(`mutation { deleteGlossaryEntity(urn: "${B}") }`)
      await ok(`mutation { deleteGlossaryEntity(urn: "${B}") }`)
      expect((await ok(`{ glossaryTerm(urn: "${B}") { urn } }`)).glossaryTerm).to.equal(null)
      // The related term that pointed at it is gone with it.
      expect(((await latestValue('urn:li:glossaryTerm:ui-a', 'glossaryRelatedTerms')) as any).hasRelatedTerms).to.deep.equal([])
    })

    it('moveDomain sets parentDomain, refuses a cycle, and needs MANAGE_DOMAINS', async () => {
      await refused('mutation { moveDomain(input: {resourceUrn: "urn:li:domain:ui-sub", parentDomain: "urn:li:domain:ui-top"}) }')
      await ok('mutation { moveDomain(input: {resourceUrn: "urn:li:domain:ui-sub", parentDomain: "urn:li:domain:ui-top"}) }')
      expect(((await latestValue('urn:li:domain:ui-sub', 'domainProperties')) as any).parentDomain).to.equal('urn:li:domain:ui-top')
      const cycle = await call('mutation { moveDomain(input: {resourceUrn: "urn:li:domain:ui-top", parentDomain: "urn:li:domain:ui-sub"}) }')
      expect(cycle.errors[0].extensions.code).to.equal(400)
      await ok('mutation { moveDomain(input: {resourceUrn: "urn:li:domain:ui-sub"}) }')
      expect(((await latestValue('urn:li:domain:ui-sub', 'domainProperties')) as any).parentDomain).to.equal(undefined)
    })

    it('addGroupMembers/removeGroupMembers write the users’ groupMembership, and membership grants the group’s policies', async () => {
      const G = 'urn:li:corpGroup:ui-team'
      await refused(`mutation { addGroupMembers(input: {groupUrn: "${G}", userUrns: ["${U('bob')}"]}) }`)
      await ok(`mutation { addGroupMembers(input: {groupUrn: "${G}", userUrns: ["${U('bob')}"]}) }`)
      expect(await latestValue(U('bob'), 'groupMembership')).to.deep.equal({groups: [G]})
      const policy = (await ok('mutation p($input: PolicyUpdateInput!) { createPolicy(input: $input) }', {
        input: {type: 'PLATFORM', name: 'team tags', state: 'ACTIVE', privileges: ['MANAGE_TAGS'], actors: {groups: [G], resourceOwners: false, allUsers: false, allGroups: false}},
      })).createPolicy
      try {
        expect((await asBob('{ me { platformPrivileges { manageTags } } }')).data.me.platformPrivileges.manageTags).to.equal(true)
        await ok(`mutation { removeGroupMembers(input: {groupUrn: "${G}", userUrns: ["${U('bob')}"]}) }`)
        expect(await latestValue(U('bob'), 'groupMembership')).to.deep.equal({groups: []})
        expect((await asBob('{ me { platformPrivileges { manageTags } } }')).data.me.platformPrivileges.manageTags).to.equal(false)
      } finally {
        await ok(`mutation { deletePolicy(urn: "${policy}") }`)
      }
    })

    it('listOwnershipTypes, listRoles, listPosts and the (empty) view lists', async () => {
      const d = await ok(`{ listOwnershipTypes(input: {start: 0, count: 10}) { total ownershipTypes { urn info { name } } }
        listRoles(input: {start: 0, count: 10}) { total roles { urn name } }
        listPosts(input: {start: 0, count: 10}) { total posts { urn } }
        listMyViews(input: {start: 0, count: 10}) { total views { urn } }
        listGlobalViews(input: {start: 0, count: 10}) { total views { urn } } }`)
      expect(d.listOwnershipTypes.ownershipTypes.map((t: any) => t.info.name)).to.deep.equal(['Business Owner', 'Data Steward', 'None', 'Technical Owner'])
      expect(d.listRoles.roles.map((r: any) => r.name)).to.deep.equal(['Admin', 'Editor', 'Reader'])
      expect([d.listPosts.total, d.listMyViews.total, d.listGlobalViews.total]).to.deep.equal([0, 0, 0])
    })

    it('roles show as DataHub’s relationships: a user’s IsMemberOfRole, a role’s users and policies (the Users and Roles pages)', async () => {
      await put([[U('carol'), 'corpUserInfo', {active: true, displayName: 'Carol'}], [U('carol'), 'roleMembership', {roles: ['urn:li:dataHubRole:Reader']}]])
      // The Users page's document: each user's role by name, and how many hold it.
      const users = (await ok(`{ listUsers(input: {start: 0, count: 100}) { users { urn roles: relationships(input: {types: ["IsMemberOfRole"], direction: OUTGOING, start: 0}) {
        total relationships { entity { ... on DataHubRole { urn type name relationships(input: {types: ["IsMemberOfRole"], direction: INCOMING}) { total } } } } } } } }`)).listUsers.users
      const roleOf = (u: string) => users.find((x: any) => x.urn === u).roles
      expect(roleOf(U('datahub')).total).to.equal(1)
      expect(roleOf(U('datahub')).relationships[0].entity).to.deep.include({urn: 'urn:li:dataHubRole:Admin', type: 'DATAHUB_ROLE', name: 'Admin'})
      expect(roleOf(U('carol')).relationships.map((r: any) => r.entity.name)).to.deep.equal(['Reader'])
      expect(roleOf(U('carol')).relationships[0].entity.relationships.total).to.equal(1)
      expect(roleOf(U('bob')).total).to.equal(0)
      // The Roles page's document: a role's users, and its policies.
      const roles = (await ok(`{ listRoles(input: {start: 0, count: 10}) { roles { name
        users: relationships(input: {types: ["IsMemberOfRole"], direction: INCOMING, start: 0, count: 20}) { total relationships { entity { urn } } }
        policies: relationships(input: {types: ["IsAssociatedWithRole"], direction: INCOMING, start: 0, count: 10, relatedEntityTypes: ["dataHubPolicy"]}) {
          total relationships { entity { ... on DataHubPolicy { urn name relationships(input: {types: ["IsAssociatedWithRole"], direction: OUTGOING}) { total } } } } } } } }`)).listRoles.roles
      const role = (n: string) => roles.find((r: any) => r.name === n)
      expect(role('Admin').users.relationships.map((r: any) => r.entity.urn)).to.deep.equal([U('datahub')])
      expect(role('Reader').users.relationships.map((r: any) => r.entity.urn)).to.deep.equal([U('carol')])
      expect(role('Admin').policies.total).to.be.greaterThan(0)
      for (const r of role('Admin').policies.relationships) expect(r.entity.relationships.total, r.entity.name).to.equal(1)
      // Who is granted what is for policy managers: to bob the same document answers, without policies.
      const bobs = await asBob('{ listRoles(input: {start: 0, count: 10}) { roles { name policies: relationships(input: {types: ["IsAssociatedWithRole"], direction: INCOMING}) { total relationships { entity { ... on DataHubPolicy { urn name } } } } } } }')
      expect(bobs.errors, JSON.stringify(bobs.errors)).to.equal(undefined)
      expect(bobs.data.listRoles.roles.map((r: any) => r.policies.total)).to.deep.equal([0, 0, 0])
    })

    it('acceptRole: a valid invite token gives its role to the caller; an invalid one is refused with DataHub’s words', async () => {
      await put([[U('dave'), 'corpUserInfo', {active: true, displayName: 'Dave'}]])
      const dave = (await ok(`mutation { createAccessToken(input: {type: PERSONAL, actorUrn: "${U('dave')}", duration: ONE_DAY, name: "dave"}) { accessToken } }`)).createAccessToken.accessToken
      const accept = (token: string) => call('mutation a($t: String!) { acceptRole(input: {inviteToken: $t}) }', {t: token}, dave)
      const roles = async () => ((await latestValue(U('dave'), 'roleMembership')) as {roles: string[]} | undefined)?.roles
      const bad = await accept('not-an-invite')
      expect(bad.errors?.[0]?.message).to.equal('Failed to accept role using invite token not-an-invite')
      expect(bad.errors[0].extensions.code).to.equal(400)
      expect(await roles()).to.equal(undefined)
      const editor = (await ok('mutation { createInviteToken(input: {roleUrn: "urn:li:dataHubRole:Editor"}) { inviteToken } }')).createInviteToken.inviteToken
      expect((await accept(editor)).data).to.deep.equal({acceptRole: true})
      expect(await roles()).to.deep.equal(['urn:li:dataHubRole:Editor'])
      // The Editor role's privileges are dave's at once.
      expect((await call('{ me { platformPrivileges { manageTags } } }', {}, dave)).data.me.platformPrivileges.manageTags).to.equal(true)
      // Accepting again, or an invite of no role, changes nothing.
      expect((await accept(editor)).data).to.deep.equal({acceptRole: true})
      const none = (await ok('mutation { createInviteToken(input: {}) { inviteToken } }')).createInviteToken.inviteToken
      expect((await accept(none)).data).to.deep.equal({acceptRole: true})
      expect(await roles()).to.deep.equal(['urn:li:dataHubRole:Editor'])
    })

    it('getGrantedPrivileges: your own, or anyone’s with MANAGE_POLICIES', async () => {
      const q = (actor: string) => `{ getGrantedPrivileges(input: {actorUrn: "${actor}"}) { privileges } }`
      expect((await asBob(q(U('bob')))).data.getGrantedPrivileges.privileges).to.deep.equal(['GENERATE_PERSONAL_ACCESS_TOKENS', 'VIEW_ANALYTICS'])
      await refused(q(U('datahub')))
      expect((await ok(q(U('bob')))).getGrantedPrivileges.privileges).to.include('GENERATE_PERSONAL_ACCESS_TOKENS')
      const onMine = (await asBob(`{ getGrantedPrivileges(input: {actorUrn: "${U('bob')}", resourceSpec: {resourceType: DATASET, resourceUrn: "urn:li:dataset:(urn:li:dataPlatform:hive,ui.bobs,PROD)"}}) { privileges } }`)).data
      expect(onMine.getGrantedPrivileges.privileges).to.include('EDIT_ENTITY_TAGS')
    })
  })
})
