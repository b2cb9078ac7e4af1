/**
 * The one authorization check point of mutations. The server is assembled in process
 * (`startServer`, the same assembly `mdcli lite` runs) so that the test can hand it an
 * authorizer: `denyAll` proves a refusal writes nothing; a recording authorizer proves every
 * mutation asks once, with DataHub's privileges, before it writes.
 */
import {expect} from 'chai'
import {type Authorizer, type AuthzRequest, denyAll} from '../../src/catalog/authorize.js'
import {type Actor, SYSTEM_ACTOR} from '../../src/catalog/catalog.js'
import {KeyedMutex} from '../../src/catalog/edits/lock.js'
import {prepareProposal} from '../../src/catalog/proposal.js'
import {type RunningServer, startServer} from '../../src/server/app.js'
import {cleanup, tempDir} from '../helpers/lite.js'
import {dataset, ds, gql, type Mcp, mcp, U} from './helpers.js'

const silent = {info() {}, debug() {}, warn() {}, error() {}}

async function serve(authorizer: Authorizer): Promise<{server: RunningServer; dir: string}> {
  const dir = tempDir('mdcli-authz-')
  try {
    // Tokens off: this suite looks at what the mutations ask the authorizer, not at who asks.
    const server = await startServer({storeDir: dir, port: 0, authorizer, logger: silent, auth: false})
    // Seeded through catalog.apply, which writes without asking the authorizer.
    const seed: Mcp[] = [...dataset('authz.a'), ...dataset('authz.b'), mcp(U.pii, 'tagProperties', {name: 'pii'}), mcp(U.jdoe, 'corpUserInfo', {active: true})]
    await server.catalog.apply(server.catalog.systemGrant(), seed.map((p) => prepareProposal(p)))
    return {server, dir}
  } catch (e) {
    cleanup(dir)
    throw e
  }
}

describe('graphql: authorization', function () {
  this.timeout(30_000)
  const A = ds('authz.a')
  const B = ds('authz.b')

  describe('with denyAll', () => {
    let s: {server: RunningServer; dir: string}
    before(async () => (s = await serve(denyAll)))
    after(async () => {
      await s?.server.close()
      if (s) cleanup(s.dir)
    })

    it('refuses every mutation with 403 UNAUTHORIZED and writes nothing', async () => {
      const mutations: Array<[string, string]> = [
        ['addTags', `mutation { addTags(input: {tagUrns: ["${U.pii}"], resourceUrn: "${A}"}) }`],
        ['batchAddTags', `mutation { batchAddTags(input: {tagUrns: ["${U.pii}"], resources: [{resourceUrn: "${A}"}, {resourceUrn: "${B}", subResourceType: DATASET_FIELD, subResource: "id"}]}) }`],
        ['addOwners', `mutation { addOwners(input: {owners: [{ownerUrn: "${U.jdoe}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resourceUrn: "${A}"}) }`],
        ['updateDescription', `mutation { updateDescription(input: {description: "x", resourceUrn: "${A}", subResourceType: DATASET_FIELD, subResource: "id"}) }`],
        ['batchUpdateSoftDeleted', `mutation { batchUpdateSoftDeleted(input: {urns: ["${A}"], deleted: true}) }`],
        ['createTag', 'mutation { createTag(input: {id: "nope", name: "Nope"}) }'],
        ['updateDataset', `mutation { updateDataset(urn: "${A}", input: {editableProperties: {description: "x"}}) { urn } }`],
        ['createGroup', 'mutation { createGroup(input: {id: "nope", name: "Nope"}) }'],
        ['deleteTag', `mutation { deleteTag(urn: "${U.pii}") }`],
        ['deleteDomain', `mutation { deleteDomain(urn: "${U.marketing}") }`],
        ['setTagColor', `mutation { setTagColor(urn: "${U.pii}", colorHex: "#ff0000") }`],
        ['updateName', `mutation { updateName(input: {urn: "${U.marketing}", name: "x"}) }`],
        ['updateLink', `mutation { updateLink(input: {resourceUrn: "${A}", currentUrl: "https://a.example", currentLabel: "a", linkUrl: "https://b.example", label: "b"}) }`],
      ]
      for (const [field, query] of mutations) {
        const r = await gql(s.server.url, query)
        expect(r.status).to.equal(200)
        expect(r.body.data).to.deep.equal({[field]: null})
        expect(r.body.errors![0], field).to.deep.include({path: [field], extensions: {code: 403, type: 'UNAUTHORIZED', classification: 'DataFetchingException'}})
      }
      const owners = await gql(s.server.url, mutations[2]![1])
      expect(owners.body.errors![0]!.message).to.equal('Unauthorized to update owners. Please contact your DataHub administrator.')
      const other = await gql(s.server.url, mutations[0]![1])
      expect(other.body.errors![0]!.message).to.equal('Unauthorized to perform this action. Please contact your DataHub administrator.')
      // Nothing reached the store: only the seeded aspects exist.
      const a = await s.server.catalog.getEntity(A)
      expect(Object.keys(a!.aspects).sort()).to.deep.equal(['datasetKey', 'datasetProperties', 'schemaMetadata'])
      expect(await s.server.catalog.getEntity(ds('authz.b'), ['editableSchemaMetadata'])).to.deep.include({aspects: {}})
      expect(await s.server.catalog.getEntity('urn:li:tag:nope')).to.equal(null)
      expect(await s.server.catalog.getEntity('urn:li:corpGroup:nope')).to.equal(null)
      expect((await s.server.catalog.getEntity(U.pii))!.aspects.tagProperties!.value).to.deep.equal({name: 'pii'})
    })

    it('still answers queries', async () => {
      const r = await gql(s.server.url, `{ dataset(urn: "${A}") { name } }`)
      expect(r.body).to.deep.equal({data: {dataset: {name: 'authz.a'}}})
    })
  })

  describe('with a recording authorizer', () => {
    const calls: Array<{actor: Actor; requests: AuthzRequest[]}> = []
    const recording: Authorizer = {
      async authorize(actor, requests) {
        calls.push({actor, requests})
      },
    }
    let s: {server: RunningServer; dir: string}
    before(async () => (s = await serve(recording)))
    after(async () => {
      await s?.server.close()
      if (s) cleanup(s.dir)
    })
    beforeEach(() => (calls.length = 0))

    it('asks once per mutation, for every resource, with the column privilege on columns', async () => {
      const r = await gql(s.server.url, `mutation { batchAddTags(input: {tagUrns: ["${U.pii}"], resources: [{resourceUrn: "${A}"}, {resourceUrn: "${B}", subResourceType: DATASET_FIELD, subResource: "id"}]}) }`)
      expect(r.body).to.deep.equal({data: {batchAddTags: true}})
      expect(calls).to.deep.equal([
        {
          actor: SYSTEM_ACTOR,
          requests: [
            {resourceUrn: A, privileges: [['EDIT_ENTITY'], ['EDIT_ENTITY_TAGS']]},
            {resourceUrn: B, privileges: [['EDIT_ENTITY'], ['EDIT_DATASET_COL_TAGS']]},
          ],
        },
      ])
    })

    it('uses DataHub’s privilege for each mutation family', async () => {
      const cases: Array<[string, string[][]]> = [
        [`mutation { addTerms(input: {termUrns: [], resourceUrn: "${A}"}) }`, [['EDIT_ENTITY'], ['EDIT_ENTITY_GLOSSARY_TERMS']]],
        [`mutation { addOwners(input: {owners: [], resourceUrn: "${A}"}) }`, [['EDIT_ENTITY'], ['EDIT_ENTITY_OWNERS']]],
        [`mutation { unsetDomain(entityUrn: "${A}") }`, [['EDIT_ENTITY'], ['EDIT_DOMAINS_PRIVILEGE']]],
        [`mutation { updateDeprecation(input: {urn: "${A}", deprecated: false}) }`, [['EDIT_ENTITY'], ['EDIT_DEPRECATION_PRIVILEGE']]],
        [`mutation { updateDescription(input: {description: "d", resourceUrn: "${A}", subResourceType: DATASET_FIELD, subResource: "email"}) }`, [['EDIT_ENTITY'], ['EDIT_DATASET_COL_DESCRIPTION']]],
        [`mutation { batchUpdateSoftDeleted(input: {urns: ["${A}"], deleted: false}) }`, [['DELETE_ENTITY']]],
        [`mutation { updateDataset(urn: "${A}", input: {editableProperties: {description: "d"}, tags: {tags: []}}) { urn } }`, [['EDIT_ENTITY'], ['EDIT_ENTITY_TAGS', 'EDIT_ENTITY_DOCS']]],
      ]
      for (const [query, privileges] of cases) {
        calls.length = 0
        const r = await gql(s.server.url, query)
        expect(r.body.errors, query).to.equal(undefined)
        expect(calls.map((c) => c.requests), query).to.deep.equal([[{resourceUrn: A, privileges}]])
      }
    })
  })

  describe('the per-urn lock', () => {
    it('runs holders of one key one after another, and different keys side by side', async () => {
      const m = new KeyedMutex()
      const log: string[] = []
      const hold = (keys: string[], tag: string, ms: number) =>
        m.withLocks(keys, async () => {
          log.push(`+${tag}`)
          await new Promise((r) => setTimeout(r, ms))
          log.push(`-${tag}`)
        })
      await Promise.all([hold(['a'], '1', 20), hold(['a'], '2', 1), hold(['b'], '3', 1), hold(['b', 'a'], '4', 1)])
      // 1 and 2 share key a: 2 starts after 1 ends; 3 (key b) runs during 1; 4 needs both.
      expect(log.indexOf('+2')).to.be.greaterThan(log.indexOf('-1'))
      expect(log.indexOf('-3')).to.be.lessThan(log.indexOf('-1'))
      expect(log.indexOf('+4')).to.be.greaterThan(log.indexOf('-2'))
      expect(m.size).to.equal(0)
    })
  })
})
