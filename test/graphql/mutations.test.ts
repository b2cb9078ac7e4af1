/**
 * Mutations against a real `mdcli lite`: every mutation, at entity level and on dataset columns
 * where DataHub supports it, read back through GraphQL, the REST aspect endpoint (versions,
 * audit stamps) and `mdcli get` — one write path whichever way a change comes in.
 */
import {expect} from 'chai'
import {cleanup, type LiteProcess, runCli, startLite} from '../helpers/lite.js'
import {aspectVersion, dataset, ds, fails, fixtureCatalog, ingest, latest, mcp, ok, U} from './helpers.js'

describe('graphql: mutations', function () {
  this.timeout(60_000)
  let lite: LiteProcess
  let n = 0
  /** A fresh dataset (properties + 3-column schema), so that each test starts from a known state. */
  const fresh = async (): Promise<string> => {
    const name = `mut.t${++n}`
    await ingest(lite.url, dataset(name))
    return ds(name)
  }
  const tagsOf = async (urn: string) =>
    (await ok(lite.url, `{ dataset(urn: "${urn}") { tags { tags { tag { urn } } } } }`)).dataset.tags?.tags.map((t: any) => t.tag.urn) ?? []
  const columnInfo = async (urn: string) =>
    (await ok(lite.url, `{ dataset(urn: "${urn}") { editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description tags { tags { tag { urn } } } glossaryTerms { terms { term { urn } } } } } } }`)).dataset
      .editableSchemaMetadata?.editableSchemaFieldInfo

  before(async () => {
    lite = await startLite()
    await ingest(lite.url, fixtureCatalog())
  })
  after(async () => {
    await lite?.stop()
    if (lite) cleanup(lite.storeDir, lite.home)
  })

  describe('tags', () => {
    it('addTag/addTags/removeTag on an entity: versioned, stamped, visible to mdcli get', async () => {
      const urn = await fresh()
      await ok(lite.url, `mutation { addTag(input: {tagUrn: "${U.pii}", resourceUrn: "${urn}"}) }`)
      expect(await ok(lite.url, `mutation { addTags(input: {tagUrns: ["${U.gold}", "${U.pii}"], resourceUrn: "${urn}"}) }`)).to.deep.equal({addTags: true})
      expect(await tagsOf(urn)).to.deep.equal([U.pii, U.gold])
      // The previous value is kept as version 1; the write carries the acting user.
      const v1 = await aspectVersion(lite.url, urn, 'globalTags', 1)
      expect(v1.body.aspect['com.linkedin.common.GlobalTags']).to.deep.equal({tags: [{tag: U.pii}]})
      const v0 = await aspectVersion(lite.url, urn, 'globalTags', 0)
      expect(v0.body.created.actor).to.equal(U.datahub)
      const got = await runCli(['get', '--urn', urn, '--aspect', 'globalTags'], {env: lite.env()})
      expect(got.code, got.stderr).to.equal(0)
      expect(JSON.parse(got.stdout)).to.deep.equal({globalTags: {tags: [{tag: U.pii}, {tag: U.gold}]}})
      await ok(lite.url, `mutation { removeTag(input: {tagUrn: "${U.pii}", resourceUrn: "${urn}"}) }`)
      expect(await tagsOf(urn)).to.deep.equal([U.gold])
      // The spec's list form, on removes as on adds; neither form is a 400 naming both.
      await ok(lite.url, `mutation { addTag(input: {tagUrns: ["${U.pii}"], resourceUrn: "${urn}"}) }`)
      await ok(lite.url, `mutation { removeTag(input: {tagUrns: ["${U.pii}", "${U.gold}"], resourceUrn: "${urn}"}) }`)
      expect(await tagsOf(urn)).to.deep.equal([])
      expect((await fails(lite.url, `mutation { removeTag(input: {resourceUrn: "${urn}"}) }`)).message).to.match(/tagUrn or a non-empty tagUrns/)
    })

    it('removeTag/removeTerm take the spec’s tagUrns/termUrns lists as well as the singular forms, and refuse neither', async () => {
      const urn = await fresh()
      await ok(lite.url, `mutation { addTags(input: {tagUrns: ["${U.pii}", "${U.gold}"], resourceUrn: "${urn}"}) }`)
      await ok(lite.url, `mutation { addTerms(input: {termUrns: ["${U.confidential}"], resourceUrn: "${urn}"}) }`)
      expect(await ok(lite.url, `mutation { removeTag(input: {tagUrns: ["${U.pii}", "${U.gold}"], resourceUrn: "${urn}"}) }`)).to.deep.equal({removeTag: true})
      expect(await tagsOf(urn)).to.deep.equal([])
      await ok(lite.url, `mutation { removeTerm(input: {termUrns: ["${U.confidential}"], resourceUrn: "${urn}"}) }`)
      const terms = (await ok(lite.url, `{ dataset(urn: "${urn}") { glossaryTerms { terms { term { urn } } } } }`)).dataset.glossaryTerms?.terms ?? []
      expect(terms).to.deep.equal([])
      const e = await fails(lite.url, `mutation { removeTag(input: {resourceUrn: "${urn}"}) }`)
      expect(e.message).to.match(/tagUrn or a non-empty tagUrns/)
    })

    it('reads ownership written without lastModified with DataHub’s default stamp', async () => {
      const urn = await fresh()
      await ingest(lite.url, [mcp(urn, 'ownership', {owners: [{owner: U.jdoe, type: 'DATAOWNER'}]})])
      const v0 = await aspectVersion(lite.url, urn, 'ownership', 0)
      expect(v0.body.aspect['com.linkedin.common.Ownership'].lastModified).to.deep.equal({time: 0, actor: 'urn:li:corpuser:unknown'})
      const got = (await ok(lite.url, `{ dataset(urn: "${urn}") { ownership { lastModified { time actor } } } }`)).dataset.ownership
      expect(got.lastModified).to.deep.equal({time: 0, actor: 'urn:li:corpuser:unknown'})
    })

    it('adds and removes tags on a dataset column (editableSchemaMetadata)', async () => {
      const urn = await fresh()
      await ok(lite.url, `mutation { addTags(input: {tagUrns: ["${U.pii}"], resourceUrn: "${urn}", subResourceType: DATASET_FIELD, subResource: "email"}) }`)
      await ok(lite.url, `mutation { addTag(input: {tagUrn: "${U.gold}", resourceUrn: "${urn}", subResourceType: DATASET_FIELD, subResource: "email"}) }`)
      expect(await columnInfo(urn)).to.deep.equal([{fieldPath: 'email', description: null, tags: {tags: [{tag: {urn: U.pii}}, {tag: {urn: U.gold}}]}, glossaryTerms: null}])
      expect(await tagsOf(urn)).to.deep.equal([])
      await ok(lite.url, `mutation { removeTag(input: {tagUrn: "${U.pii}", resourceUrn: "${urn}", subResourceType: DATASET_FIELD, subResource: "email"}) }`)
      expect((await columnInfo(urn))[0].tags).to.deep.equal({tags: [{tag: {urn: U.gold}}]})
      const esm = await latest(lite.url, urn, 'editableSchemaMetadata')
      expect(esm.lastModified.actor).to.equal(U.datahub)
    })

    it('refuses a column that is not in the schema, and a sub-resource without its type', async () => {
      const urn = await fresh()
      const e = await fails(lite.url, `mutation { addTags(input: {tagUrns: ["${U.pii}"], resourceUrn: "${urn}", subResourceType: DATASET_FIELD, subResource: "nope"}) }`)
      expect(e.message).to.equal(`Failed to update ${urn} & field nope. Field nope does not exist in the datasets schema.`)
      expect(e.extensions?.code).to.equal(400)
      const e2 = await fails(lite.url, `mutation { addTags(input: {tagUrns: ["${U.pii}"], resourceUrn: "${urn}", subResource: "email"}) }`)
      expect(e2.message).to.equal(`Failed to updates resource with urn ${urn}. SubResource (email) provided without a subResourceType.`)
      expect(await latest(lite.url, urn, 'editableSchemaMetadata')).to.equal(undefined)
    })

    it('batchAddTags/batchRemoveTags over entities and columns', async () => {
      const [a, b] = [await fresh(), await fresh()]
      await ok(lite.url, `mutation { batchAddTags(input: {tagUrns: ["${U.legacy}", "${U.gold}"], resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}, {resourceUrn: "${b}", subResourceType: DATASET_FIELD, subResource: "id"}]}) }`)
      expect(await tagsOf(a)).to.deep.equal([U.legacy, U.gold])
      expect(await tagsOf(b)).to.deep.equal([U.legacy, U.gold])
      expect((await columnInfo(b))[0].tags.tags.map((t: any) => t.tag.urn)).to.deep.equal([U.legacy, U.gold])
      await ok(lite.url, `mutation { batchRemoveTags(input: {tagUrns: ["${U.legacy}"], resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}", subResourceType: DATASET_FIELD, subResource: "id"}]}) }`)
      expect(await tagsOf(a)).to.deep.equal([U.gold])
      expect(await tagsOf(b)).to.deep.equal([U.legacy, U.gold])
      expect((await columnInfo(b))[0].tags.tags.map((t: any) => t.tag.urn)).to.deep.equal([U.gold])
    })
  })

  describe('batches are all-or-nothing', () => {
    it('writes nothing when one resource does not exist, and names it', async () => {
      const a = await fresh()
      const missing = ds('mut.missing')
      const e = await fails(lite.url, `mutation { batchAddTags(input: {tagUrns: ["${U.pii}"], resources: [{resourceUrn: "${a}"}, {resourceUrn: "${missing}"}]}) }`)
      expect(e.message).to.equal(`Failed to update resource with urn ${missing}. Entity does not exist.`)
      expect(e.extensions).to.deep.equal({code: 400, type: 'BAD_REQUEST', classification: 'DataFetchingException'})
      expect(e.path).to.deep.equal(['batchAddTags'])
      expect(await latest(lite.url, a, 'globalTags')).to.equal(undefined)
    })

    it('writes nothing when one column is invalid or one label is not a tag', async () => {
      const [a, b] = [await fresh(), await fresh()]
      await ok(lite.url, `mutation { addTags(input: {tagUrns: ["${U.gold}"], resourceUrn: "${a}"}) }`)
      const e = await fails(lite.url, `mutation { batchAddTags(input: {tagUrns: ["${U.pii}"], resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}", subResourceType: DATASET_FIELD, subResource: "ghost"}]}) }`)
      expect(e.message).to.contain('Field ghost does not exist')
      const e2 = await fails(lite.url, `mutation { batchAddTerms(input: {termUrns: ["${U.confidential}", "${U.pii}"], resources: [{resourceUrn: "${a}"}]}) }`)
      expect(e2.message).to.equal(`Failed to validate label with urn ${U.pii}. Urn type does not match entity type glossaryTerm..`)
      expect(await tagsOf(a)).to.deep.equal([U.gold])
      expect((await aspectVersion(lite.url, a, 'globalTags', 1)).status).to.equal(404)
      expect(await latest(lite.url, a, 'glossaryTerms')).to.equal(undefined)
      expect(await latest(lite.url, b, 'globalTags')).to.equal(undefined)
    })

    it('refuses a tag that does not exist', async () => {
      const a = await fresh()
      const e = await fails(lite.url, `mutation { addTags(input: {tagUrns: ["urn:li:tag:ghost"], resourceUrn: "${a}"}) }`)
      expect(e.message).to.equal('Failed to validate label with urn urn:li:tag:ghost. Urn does not exist.')
      expect(e.extensions?.code).to.equal(400)
    })
  })

  describe('glossary terms', () => {
    it('addTerm/addTerms/removeTerm on an entity and a column; batchAddTerms/batchRemoveTerms', async () => {
      const [a, b] = [await fresh(), await fresh()]
      const termsOf = async (urn: string) => (await ok(lite.url, `{ dataset(urn: "${urn}") { glossaryTerms { terms { term { urn } } } } }`)).dataset.glossaryTerms?.terms.map((t: any) => t.term.urn)
      await ok(lite.url, `mutation { addTerm(input: {termUrn: "${U.confidential}", resourceUrn: "${a}"}) }`)
      await ok(lite.url, `mutation { addTerms(input: {termUrns: ["${U.public}"], resourceUrn: "${a}"}) }`)
      expect(await termsOf(a)).to.deep.equal([U.confidential, U.public])
      expect((await latest(lite.url, a, 'glossaryTerms')).auditStamp.actor).to.equal(U.datahub)
      await ok(lite.url, `mutation { addTerms(input: {termUrns: ["${U.confidential}"], resourceUrn: "${a}", subResourceType: DATASET_FIELD, subResource: "address"}) }`)
      expect((await columnInfo(a))[0].glossaryTerms).to.deep.equal({terms: [{term: {urn: U.confidential}}]})
      await ok(lite.url, `mutation { removeTerm(input: {termUrns: ["${U.confidential}"], resourceUrn: "${a}"}) }`)
      expect(await termsOf(a)).to.deep.equal([U.public])
      await ok(lite.url, `mutation { removeTerm(input: {termUrn: "${U.confidential}", resourceUrn: "${a}", subResourceType: DATASET_FIELD, subResource: "address"}) }`)
      expect((await columnInfo(a))[0].glossaryTerms).to.deep.equal({terms: []})
      await ok(lite.url, `mutation { batchAddTerms(input: {termUrns: ["${U.confidential}"], resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}]}) }`)
      expect(await termsOf(b)).to.deep.equal([U.confidential])
      await ok(lite.url, `mutation { batchRemoveTerms(input: {termUrns: ["${U.confidential}", "${U.public}"], resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}]}) }`)
      expect(await termsOf(a)).to.deep.equal([])
      expect(await termsOf(b)).to.deep.equal([])
    })
  })

  describe('owners', () => {
    const ownersOf = async (urn: string) =>
      (await ok(lite.url, `{ dataset(urn: "${urn}") { ownership { owners { owner { ... on CorpUser { urn } ... on CorpGroup { urn } } type ownershipType { urn } } lastModified { actor } } } }`)).dataset.ownership

    it('addOwner/addOwners/batchAddOwners/removeOwner/batchRemoveOwners, stamping lastModified', async () => {
      const [a, b] = [await fresh(), await fresh()]
      await ok(lite.url, `mutation { addOwner(input: {ownerUrn: "${U.jdoe}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER, resourceUrn: "${a}"}) }`)
      await ok(lite.url, `mutation { addOwners(input: {owners: [{ownerUrn: "${U.analysts}", ownerEntityType: CORP_GROUP, type: BUSINESS_OWNER}, {ownerUrn: "${U.jdoe}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resourceUrn: "${a}"}) }`)
      let o = await ownersOf(a)
      expect(o.lastModified.actor).to.equal(U.datahub)
      // Re-adding the same owner with the same type replaces the entry instead of duplicating it.
      expect(o.owners.map((x: any) => [x.owner.urn, x.type])).to.deep.equal([[U.analysts, 'BUSINESS_OWNER'], [U.jdoe, 'TECHNICAL_OWNER']])
      await ok(lite.url, `mutation { batchAddOwners(input: {owners: [{ownerUrn: "${U.alice}", ownerEntityType: CORP_USER}], ownershipTypeUrn: "urn:li:ownershipType:__system__data_steward", resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}]}) }`)
      o = await ownersOf(b)
      // An ownership type urn makes the stored enum CUSTOM, a system urn included (DataHub's OwnerUtils).
      expect(o.owners).to.deep.equal([{owner: {urn: U.alice}, type: 'CUSTOM', ownershipType: {urn: 'urn:li:ownershipType:__system__data_steward'}}])
      await ok(lite.url, `mutation { removeOwner(input: {ownerUrn: "${U.jdoe}", resourceUrn: "${a}"}) }`)
      expect((await ownersOf(a)).owners.map((x: any) => x.owner.urn)).to.deep.equal([U.analysts, U.alice])
      await ok(lite.url, `mutation { batchRemoveOwners(input: {ownerUrns: ["${U.alice}", "${U.analysts}"], resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}]}) }`)
      expect((await ownersOf(a)).owners).to.deep.equal([])
      expect((await ownersOf(b)).owners).to.deep.equal([])
    })

    it('addOwners with ownershipTypeUrn stores type CUSTOM beside the urn, even when a type is given', async () => {
      const a = await fresh()
      const steward = 'urn:li:ownershipType:__system__data_steward'
      await ok(lite.url, `mutation { addOwners(input: {owners: [{ownerUrn: "${U.jdoe}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER, ownershipTypeUrn: "${steward}"}], resourceUrn: "${a}"}) }`)
      await ok(lite.url, `mutation { addOwner(input: {ownerUrn: "${U.alice}", ownerEntityType: CORP_USER, ownershipTypeUrn: "${steward}", resourceUrn: "${a}"}) }`)
      const stored = (await latest(lite.url, a, 'ownership')).owners.map((x: any) => ({owner: x.owner, type: x.type, typeUrn: x.typeUrn}))
      expect(stored).to.deep.equal([{owner: U.jdoe, type: 'CUSTOM', typeUrn: steward}, {owner: U.alice, type: 'CUSTOM', typeUrn: steward}])
      expect((await ownersOf(a)).owners.map((x: any) => [x.type, x.ownershipType.urn])).to.deep.equal([['CUSTOM', steward], ['CUSTOM', steward]])
      // Removing by the same urn still matches the entries.
      await ok(lite.url, `mutation { removeOwner(input: {ownerUrn: "${U.jdoe}", ownershipTypeUrn: "${steward}", resourceUrn: "${a}"}) }`)
      expect((await ownersOf(a)).owners.map((x: any) => x.owner.urn)).to.deep.equal([U.alice])
    })

    it('addOwners with a non-corp-user urn: DataHub’s 400 with path [addOwners]', async () => {
      const a = await fresh()
      const e = await fails(lite.url, `mutation { addOwners(input: {owners: [{ownerUrn: "${U.analysts}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resourceUrn: "${a}"}) }`)
      expect(e).to.deep.include({
        message: `Failed to change ownership for resource ${a}. Expected a corp user urn.`,
        path: ['addOwners'],
        extensions: {code: 400, type: 'BAD_REQUEST', classification: 'DataFetchingException'},
      })
      expect(e.data).to.deep.equal({addOwners: null})
      const e2 = await fails(lite.url, `mutation { addOwners(input: {owners: [{ownerUrn: "urn:li:corpuser:ghost", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resourceUrn: "${a}"}) }`)
      expect(e2.message).to.equal(`Failed to change ownership for resource ${a}. Owner urn:li:corpuser:ghost does not exist.`)
      expect(await latest(lite.url, a, 'ownership')).to.equal(undefined)
    })
  })

  describe('domains', () => {
    const domainOf = async (urn: string) => (await ok(lite.url, `{ dataset(urn: "${urn}") { domain { domain { urn } } } }`)).dataset.domain?.domain.urn ?? null

    it('setDomain/unsetDomain/batchSetDomain', async () => {
      const [a, b] = [await fresh(), await fresh()]
      await ok(lite.url, `mutation { setDomain(entityUrn: "${a}", domainUrn: "${U.marketing}") }`)
      expect(await domainOf(a)).to.equal(U.marketing)
      await ok(lite.url, `mutation { batchSetDomain(input: {domainUrn: "${U.finance}", resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}]}) }`)
      expect([await domainOf(a), await domainOf(b)]).to.deep.equal([U.finance, U.finance])
      await ok(lite.url, `mutation { unsetDomain(entityUrn: "${a}") }`)
      expect(await domainOf(a)).to.equal(null)
      await ok(lite.url, `mutation { batchSetDomain(input: {domainUrn: null, resources: [{resourceUrn: "${b}"}]}) }`)
      expect(await domainOf(b)).to.equal(null)
    })

    it('refuses a domain that does not exist', async () => {
      const a = await fresh()
      const e = await fails(lite.url, `mutation { setDomain(entityUrn: "${a}", domainUrn: "urn:li:domain:ghost") }`)
      expect(e.message).to.equal(`Failed to add Entity ${a} to Domain urn:li:domain:ghost. Domain does not exist.`)
      const e2 = await fails(lite.url, `mutation { batchSetDomain(input: {domainUrn: "urn:li:domain:ghost", resources: [{resourceUrn: "${a}"}]}) }`)
      expect(e2.message).to.equal('Failed to validate Domain with urn urn:li:domain:ghost. Urn does not exist.')
    })
  })

  describe('deprecation', () => {
    it('updateDeprecation/batchUpdateDeprecation, with the actor stamped', async () => {
      const [a, b] = [await fresh(), await fresh()]
      expect(await ok(lite.url, `mutation { updateDeprecation(input: {urn: "${a}", deprecated: true, decommissionTime: 1900000000000, note: "use v2"}) }`)).to.deep.equal({updateDeprecation: true})
      let d = await ok(lite.url, `{ dataset(urn: "${a}") { deprecation { deprecated decommissionTime note actor } } }`)
      expect(d.dataset.deprecation).to.deep.equal({deprecated: true, decommissionTime: 1900000000000, note: 'use v2', actor: U.datahub})
      await ok(lite.url, `mutation { batchUpdateDeprecation(input: {deprecated: false, resources: [{resourceUrn: "${a}"}, {resourceUrn: "${b}"}, {resourceUrn: "${U.chart}"}]}) }`)
      d = await ok(lite.url, `{ a: dataset(urn: "${a}") { deprecation { deprecated decommissionTime note } } c: chart(urn: "${U.chart}") { deprecation { deprecated } } }`)
      expect(d.a.deprecation).to.deep.equal({deprecated: false, decommissionTime: null, note: ''})
      expect(d.c.deprecation).to.deep.equal({deprecated: false})
    })

    it('keeps the replacement DataHub’s app sends, and refuses a column (subResource) with a 400', async () => {
      const a = await fresh()
      await ok(lite.url, `mutation { batchUpdateDeprecation(input: {deprecated: true, note: "n", decommissionTime: null, replacement: "${U.chart}", resources: [{resourceUrn: "${a}"}]}) }`)
      let d = await ok(lite.url, `{ dataset(urn: "${a}") { deprecation { deprecated replacement { urn } } } }`)
      expect(d.dataset.deprecation).to.deep.equal({deprecated: true, replacement: {urn: U.chart}})
      await ok(lite.url, `mutation { updateDeprecation(input: {urn: "${a}", subResourceType: null, subResource: null, deprecated: false, replacement: null}) }`)
      d = await ok(lite.url, `{ dataset(urn: "${a}") { deprecation { deprecated replacement { urn } } } }`)
      expect(d.dataset.deprecation).to.deep.equal({deprecated: false, replacement: null})
      const e = await fails(lite.url, `mutation { updateDeprecation(input: {urn: "${a}", subResourceType: DATASET_FIELD, subResource: "id", deprecated: true}) }`)
      expect(e.extensions?.code).to.equal(400)
      expect(e.message).to.equal('Failed to update deprecation: deprecating a column (subResource id) is not supported; deprecate the entity')
    })

    it('refuses containers with a 400 that says so', async () => {
      const e = await fails(lite.url, `mutation { updateDeprecation(input: {urn: "${U.container}", deprecated: true}) }`)
      expect(e.message).to.equal(`Failed to update deprecation for Entity ${U.container}. Deprecation is not supported for container entities.`)
      expect(e.extensions?.code).to.equal(400)
      const a = await fresh()
      const e2 = await fails(lite.url, `mutation { batchUpdateDeprecation(input: {deprecated: true, resources: [{resourceUrn: "${a}"}, {resourceUrn: "${U.container}"}]}) }`)
      expect(e2.message).to.contain('Deprecation is not supported for container entities')
      expect(await latest(lite.url, a, 'deprecation')).to.equal(undefined)
    })
  })

  describe('updateDescription', () => {
    it('documents a dataset column, and the dataset itself without a sub-resource', async () => {
      const a = await fresh()
      await ok(lite.url, `mutation { updateDescription(input: {description: "Where we write", resourceUrn: "${a}", subResourceType: DATASET_FIELD, subResource: "email"}) }`)
      expect((await columnInfo(a))[0]).to.include({fieldPath: 'email', description: 'Where we write'})
      await ok(lite.url, `mutation { updateDescription(input: {description: "The dataset", resourceUrn: "${a}"}) }`)
      expect(await latest(lite.url, a, 'editableDatasetProperties')).to.include({description: 'The dataset'})
    })

    it('documents every entity type the spec lists, in its own aspect', async () => {
      const targets: Array<[string, string, string]> = [
        [U.container, 'container', 'editableProperties { description }'],
        [U.marketing, 'domain', 'properties { description }'],
        [U.confidential, 'glossaryTerm', 'properties { description }'],
        [U.classification, 'glossaryNode', 'properties { description }'],
        [U.legacy, 'tag', 'properties { description }'],
        [U.analysts, 'corpGroup', 'editableProperties { description }'],
        [U.notebook, 'notebook', 'editableProperties { description }'],
        [U.mlModel, 'mlModel', 'editableProperties { description }'],
        [U.mlModelGroup, 'mlModelGroup', 'editableProperties { description }'],
        [U.mlFeature, 'mlFeature', 'editableProperties { description }'],
        [U.mlFeatureTable, 'mlFeatureTable', 'editableProperties { description }'],
        [U.mlPrimaryKey, 'mlPrimaryKey', 'editableProperties { description }'],
      ]
      for (const [urn, getter, sel] of targets) {
        await ok(lite.url, `mutation { updateDescription(input: {description: "doc of ${getter}", resourceUrn: "${urn}"}) }`)
        const d = await ok(lite.url, `{ x: ${getter}(urn: "${urn}") { ${sel} } }`)
        expect(Object.values(d.x)[0], getter).to.deep.equal({description: `doc of ${getter}`})
      }
    })

    it('names an unsupported entity type', async () => {
      for (const [urn, type] of [[U.dashboard, 'dashboard'], [U.jdoe, 'corpuser'], [U.flow, 'dataFlow']]) {
        const e = await fails(lite.url, `mutation { updateDescription(input: {description: "x", resourceUrn: "${urn}"}) }`)
        expect(e.message).to.equal(`Failed to update description. Unsupported resource type ${type} provided.`)
        expect(e.extensions?.code).to.equal(400)
      }
    })
  })

  describe('update<Entity>', () => {
    it('updateDataset replaces owners and tags wholesale and returns the entity', async () => {
      const a = await fresh()
      await ok(lite.url, `mutation { addTags(input: {tagUrns: ["${U.pii}", "${U.gold}"], resourceUrn: "${a}"}) }`)
      const d = await ok(
        lite.url,
        `mutation ($urn: String!) {
          updateDataset(urn: $urn, input: {
            editableProperties: {description: "Curated customers"}
            ownership: {owners: [{owner: "${U.alice}", type: DATA_STEWARD}]}
            tags: {tags: [{tag: {urn: "${U.legacy}", name: "legacy"}}]}
            deprecation: {deprecated: true, note: "old"}
            institutionalMemory: {elements: [{url: "https://wiki.example.com/customers", description: "Wiki", author: "${U.jdoe}", createdAt: 1700000000001}]}
            editableSchemaMetadata: {editableSchemaFieldInfo: [{fieldPath: "id", description: "Primary key", globalTags: {tags: [{tag: {urn: "${U.gold}", name: "gold"}}]}}]}
          }) {
            urn
            editableProperties { description }
            ownership { owners { owner { ... on CorpUser { urn } } type } }
            tags { tags { tag { urn } } }
            deprecation { deprecated note actor }
            institutionalMemory { elements { url label author { urn } created { time } } }
            editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description tags { tags { tag { urn } } } } }
          }
        }`,
        {urn: a},
      )
      expect(d.updateDataset).to.deep.equal({
        urn: a,
        editableProperties: {description: 'Curated customers'},
        ownership: {owners: [{owner: {urn: U.alice}, type: 'DATA_STEWARD'}]},
        tags: {tags: [{tag: {urn: U.legacy}}]},
        deprecation: {deprecated: true, note: 'old', actor: U.datahub},
        institutionalMemory: {elements: [{url: 'https://wiki.example.com/customers', label: 'Wiki', author: {urn: U.jdoe}, created: {time: 1700000000001}}]},
        editableSchemaMetadata: {editableSchemaFieldInfo: [{fieldPath: 'id', description: 'Primary key', tags: {tags: [{tag: {urn: U.gold}}]}}]},
      })
      const edp = await aspectVersion(lite.url, a, 'editableDatasetProperties')
      expect(edp.body.aspect['com.linkedin.dataset.EditableDatasetProperties'].lastModified.actor).to.equal(U.datahub)
    })

    it('updateDatasets updates several datasets in one batch, or none', async () => {
      const [a, b] = [await fresh(), await fresh()]
      const d = await ok(lite.url, `mutation { updateDatasets(input: [{urn: "${a}", update: {editableProperties: {description: "A"}}}, {urn: "${b}", update: {editableProperties: {description: "B"}}}]) { urn editableProperties { description } } }`)
      expect(d.updateDatasets).to.deep.equal([{urn: a, editableProperties: {description: 'A'}}, {urn: b, editableProperties: {description: 'B'}}])
      const e = await fails(lite.url, `mutation { updateDatasets(input: [{urn: "${a}", update: {editableProperties: {description: "A2"}}}, {urn: "${ds('mut.ghost')}", update: {editableProperties: {description: "x"}}}]) { urn } }`)
      expect(e.extensions?.code).to.equal(404)
      expect((await latest(lite.url, a, 'editableDatasetProperties')).description).to.equal('A')
    })

    it('updateChart/updateDashboard/updateDataFlow/updateDataJob/updateNotebook', async () => {
      for (const [m, urn, sel] of [
        ['updateChart', U.chart, 'chart'],
        ['updateDashboard', U.dashboard, 'dashboard'],
        ['updateDataFlow', U.flow, 'dataFlow'],
        ['updateDataJob', U.job, 'dataJob'],
        ['updateNotebook', U.notebook, 'notebook'],
      ]) {
        const d = await ok(
          lite.url,
          `mutation { x: ${m}(urn: "${urn}", input: {editableProperties: {description: "edited ${sel}"}, ownership: {owners: [{owner: "${U.jdoe}", type: TECHNICAL_OWNER}]}, tags: {tags: [{tag: {urn: "${U.gold}", name: "gold"}}]}}) {
            urn editableProperties { description } ownership { owners { owner { ... on CorpUser { urn } } } } tags { tags { tag { urn } } } } }`,
        )
        expect(d.x, m).to.deep.equal({urn, editableProperties: {description: `edited ${sel}`}, ownership: {owners: [{owner: {urn: U.jdoe}}]}, tags: {tags: [{tag: {urn: U.gold}}]}})
      }
    })

    it('updateTag, updateCorpUserProperties, updateCorpGroupProperties', async () => {
      const t = await ok(lite.url, `mutation { updateTag(urn: "${U.gold}", input: {urn: "${U.gold}", name: "Gold!", description: "Certified"}) { properties { name description } } }`)
      expect(t.updateTag.properties).to.deep.equal({name: 'Gold!', description: 'Certified'})
      const u = await ok(lite.url, `mutation { updateCorpUserProperties(urn: "${U.jdoe}", input: {title: "Lead", slack: "@jdoe"}) { editableProperties { title slack aboutMe } } }`)
      expect(u.updateCorpUserProperties.editableProperties).to.deep.equal({title: 'Lead', slack: '@jdoe', aboutMe: 'I move data'})
      const g = await ok(lite.url, `mutation { updateCorpGroupProperties(urn: "${U.analysts}", input: {email: "analysts@example.com"}) { editableProperties { email } } }`)
      expect(g.updateCorpGroupProperties.editableProperties).to.deep.equal({email: 'analysts@example.com'})
    })

    it('refuses an entity that does not exist with a 404 and an urn of the wrong type with a 400', async () => {
      const e = await fails(lite.url, `mutation { updateChart(urn: "urn:li:chart:(looker,ghost)", input: {editableProperties: {description: "x"}}) { urn } }`)
      expect(e.message).to.equal('Failed to update urn:li:chart:(looker,ghost). Entity does not exist.')
      expect(e.extensions?.type).to.equal('NOT_FOUND')
      const e2 = await fails(lite.url, `mutation { updateChart(urn: "${U.dashboard}", input: {editableProperties: {description: "x"}}) { urn } }`)
      expect(e2.message).to.equal(`Failed to update ${U.dashboard}. Expected a chart urn.`)
    })
  })

  describe('create*', () => {
    it('createTag/createDomain/createGlossaryNode/createGlossaryTerm return the new urn', async () => {
      const tag = (await ok(lite.url, 'mutation { createTag(input: {id: "fresh", name: "Fresh", description: "Just made"}) }')).createTag
      expect(tag).to.equal('urn:li:tag:fresh')
      const t = await ok(lite.url, `{ tag(urn: "${tag}") { properties { name description } ownership { owners { owner { ... on CorpUser { urn } } type } } } }`)
      expect(t.tag).to.deep.equal({properties: {name: 'Fresh', description: 'Just made'}, ownership: {owners: [{owner: {urn: U.datahub}, type: 'TECHNICAL_OWNER'}]}})
      expect((await fails(lite.url, 'mutation { createTag(input: {id: "fresh", name: "Again"}) }')).message).to.equal('This Tag already exists!')
      const generated = (await ok(lite.url, 'mutation { createTag(input: {name: "No id"}) }')).createTag
      expect(generated).to.match(/^urn:li:tag:[0-9a-f-]{36}$/)

      const domain = (await ok(lite.url, `mutation { createDomain(input: {id: "sales", name: "Sales", description: "Selling", parentDomain: "${U.marketing}"}) }`)).createDomain
      expect((await ok(lite.url, `{ domain(urn: "${domain}") { properties { name description } } }`)).domain.properties).to.deep.equal({name: 'Sales', description: 'Selling'})
      expect((await fails(lite.url, 'mutation { createDomain(input: {name: "X", parentDomain: "urn:li:domain:ghost"}) }')).message).to.equal('Parent Domain does not exist!')

      const node = (await ok(lite.url, 'mutation { createGlossaryNode(input: {id: "Quality", name: "Quality", description: "Data quality"}) }')).createGlossaryNode
      const term = (await ok(lite.url, `mutation { createGlossaryTerm(input: {id: "Quality.Gold", name: "Gold", description: "Best", parentNode: "${node}"}) }`)).createGlossaryTerm
      const g = await ok(lite.url, `{ glossaryTerm(urn: "${term}") { name properties { name description termSource } parentNodes { nodes { urn } } } }`)
      expect(g.glossaryTerm).to.deep.equal({name: 'Gold', properties: {name: 'Gold', description: 'Best', termSource: 'INTERNAL'}, parentNodes: {nodes: [{urn: node}]}})
      const clash = await fails(lite.url, `mutation { createGlossaryTerm(input: {name: "Gold", parentNode: "${node}"}) }`)
      expect(clash.message).to.equal('Glossary Term with this name already exists at this level of the Business Glossary')
      // DataHub compares names as they are written: another case is another name.
      await ok(lite.url, `mutation { createGlossaryTerm(input: {name: "gold", parentNode: "${node}"}) }`)
      await ok(lite.url, `mutation { createDomain(input: {name: "sales", parentDomain: "${U.marketing}"}) }`)
      expect((await fails(lite.url, `mutation { createDomain(input: {name: "Sales", parentDomain: "${U.marketing}"}) }`)).extensions?.code).to.equal(409)
    })
  })

  describe('links', () => {
    it('addLink/removeLink', async () => {
      const a = await fresh()
      await ok(lite.url, `mutation { addLink(input: {linkUrl: "https://docs.example.com/a", label: "Docs", resourceUrn: "${a}"}) }`)
      let d = await ok(lite.url, `{ dataset(urn: "${a}") { institutionalMemory { elements { url label author { urn } } } } }`)
      expect(d.dataset.institutionalMemory.elements).to.deep.equal([{url: 'https://docs.example.com/a', label: 'Docs', author: {urn: U.datahub}}])
      await ok(lite.url, `mutation { removeLink(input: {linkUrl: "https://docs.example.com/a", resourceUrn: "${a}"}) }`)
      d = await ok(lite.url, `{ dataset(urn: "${a}") { institutionalMemory { elements { url } } } }`)
      expect(d.dataset.institutionalMemory.elements).to.deep.equal([])
      expect((await fails(lite.url, `mutation { addLink(input: {linkUrl: "not a url", label: "x", resourceUrn: "${a}"}) }`)).message).to.equal(`Failed to change institutional memory for resource ${a}. Expected an url.`)
    })
  })

  describe('concurrency', () => {
    it('loses no update when 32 clients add different tags to one entity at once', async () => {
      const a = await fresh()
      const tags = Array.from({length: 32}, (_, i) => `urn:li:tag:c${i}`)
      await ingest(lite.url, tags.map((t, i) => mcp(t, 'tagProperties', {name: `c${i}`})))
      const results = await Promise.all(tags.map((t) => ok(lite.url, `mutation { addTags(input: {tagUrns: ["${t}"], resourceUrn: "${a}"}) }`)))
      expect(results.every((r) => r.addTags === true)).to.equal(true)
      expect([...(await tagsOf(a))].sort()).to.deep.equal([...tags].sort())
      // Each addition was its own read-modify-write: 32 versions, the first one the oldest.
      expect((await aspectVersion(lite.url, a, 'globalTags', 31)).status).to.equal(200)
    })
  })

  it('reads back every mutation family through mdcli get', async () => {
    const a = await fresh()
    await ok(lite.url, `mutation { addOwners(input: {owners: [{ownerUrn: "${U.jdoe}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}], resourceUrn: "${a}"}) }`)
    await ok(lite.url, `mutation { setDomain(entityUrn: "${a}", domainUrn: "${U.marketing}") }`)
    await ok(lite.url, `mutation { updateDeprecation(input: {urn: "${a}", deprecated: true}) }`)
    const got = await runCli(['get', '--urn', a, '--aspect', 'ownership', '--aspect', 'domains', '--aspect', 'deprecation'], {env: lite.env()})
    expect(got.code, got.stderr).to.equal(0)
    const out = JSON.parse(got.stdout)
    expect(out.ownership.owners).to.deep.equal([{owner: U.jdoe, type: 'TECHNICAL_OWNER', source: {type: 'MANUAL'}}])
    expect(out.ownership.lastModified.actor).to.equal(U.datahub)
    expect(out.domains).to.deep.equal({domains: [U.marketing]})
    expect(out.deprecation).to.deep.equal({deprecated: true, note: '', actor: U.datahub})
  })
})
