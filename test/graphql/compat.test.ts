import {expect} from 'chai'
import {cleanup, http, runCli, tempDir, useLite} from '../helpers/lite.js'
import {datasetUrn, mcpRecord, writeJson, writeRecipe} from '../ingest/helpers.js'

const DS = datasetUrn('compat.orders')
const NEW = datasetUrn('compat.orders_v2')
const stamp = {time: 1, actor: 'urn:li:corpuser:etl'}

describe("GraphQL as DataHub's web app asks: older field names, lists, counts, autocomplete", function () {
  this.timeout(120_000)
  const lite = useLite()
  let dir: string
  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const r = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query, variables}})
    expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
    return r.body.data
  }
  before(async () => {
    dir = tempDir('mdcli-compat-')
    const file = writeJson(dir, 'compat.json', [
      mcpRecord('urn:li:corpuser:ann', 'corpUserInfo', {active: true, displayName: 'Ann Lee', email: 'ann@example.com', title: 'Analyst', fullName: 'Ann Lee'}),
      mcpRecord('urn:li:corpGroup:analysts', 'corpGroupInfo', {displayName: 'Analysts', admins: ['urn:li:corpuser:ann'], members: ['urn:li:corpuser:ann'], groups: []}),
      mcpRecord('urn:li:domain:finance', 'domainProperties', {name: 'Finance'}),
      mcpRecord('urn:li:domain:billing', 'domainProperties', {name: 'Billing', parentDomain: 'urn:li:domain:finance'}),
      mcpRecord(DS, 'datasetProperties', {name: 'orders', customProperties: {}, tags: []}),
      mcpRecord(DS, 'deprecation', {deprecated: true, note: 'use v2', actor: 'urn:li:corpuser:ann', replacement: NEW}),
      mcpRecord(DS, 'ownership', {owners: [{owner: 'urn:li:corpuser:ann', type: 'DATAOWNER', attribution: {time: 5, actor: 'urn:li:corpuser:etl', source: 'urn:li:dataPlatform:dbt', sourceDetail: {job: 'nightly'}}}], lastModified: stamp}),
      mcpRecord(NEW, 'datasetProperties', {name: 'orders_v2', customProperties: {}, tags: []}),
    ])
    const r = await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'file', config: {path: file}}})], {env: lite.env()})
    expect(r.code, r.stdout + r.stderr).to.equal(0)
  })
  after(() => cleanup(dir))

  it("reads an entity page the way DataHub's app writes it: info, deprecation actor and replacement, owner attribution, platform info", async () => {
    const d = await gql(`query getDataset($urn: String!) {
      dataset(urn: $urn) { urn
        platform { urn name info { type displayName datasetNameDelimiter } properties { displayName logical } }
        deprecation { deprecated note actor actorEntity { urn ... on CorpUser { username info { displayName email } } } replacement { urn } }
        ownership { owners { owner { ... on CorpUser { urn info { fullName title } editableInfo { displayName } isNativeUser } } attribution { time actor { urn } source { urn } sourceDetail { key value } } } }
      } }`, {urn: DS})
    expect(d.dataset.deprecation.actorEntity).to.deep.equal({urn: 'urn:li:corpuser:ann', username: 'ann', info: {displayName: 'Ann Lee', email: 'ann@example.com'}})
    expect(d.dataset.deprecation.replacement).to.deep.equal({urn: NEW})
    const owner = d.dataset.ownership.owners[0]
    expect(owner.owner.info).to.deep.equal({fullName: 'Ann Lee', title: 'Analyst'})
    expect(owner.attribution).to.deep.equal({time: 5, actor: {urn: 'urn:li:corpuser:etl'}, source: {urn: 'urn:li:dataPlatform:dbt'}, sourceDetail: [{key: 'job', value: 'nightly'}]})
    expect(d.dataset.platform.info.displayName).to.be.a('string')
    expect(d.dataset.platform.properties.logical).to.equal(null)
  })

  it('groups, domains with their parents, lists of users, groups and domains, entity counts', async () => {
    const g = await gql('{ corpGroup(urn: "urn:li:corpGroup:analysts") { info { displayName admins { urn } members { urn } } } }')
    expect(g.corpGroup.info).to.deep.equal({displayName: 'Analysts', admins: [{urn: 'urn:li:corpuser:ann'}], members: [{urn: 'urn:li:corpuser:ann'}]})
    const dom = await gql('{ domain(urn: "urn:li:domain:billing") { displayProperties { colorHex } parentDomains { count domains { urn } } deprecation { deprecated } } }')
    expect(dom.domain).to.deep.equal({displayProperties: null, parentDomains: {count: 1, domains: [{urn: 'urn:li:domain:finance'}]}, deprecation: null})
    const lists = await gql(`{
      listDomains(input: {start: 0, count: 10}) { total domains { urn properties { name } } }
      listUsers(input: {start: 0, count: 50, query: "ann"}) { total users { urn } }
      listGroups(input: {start: 0, count: 10}) { total groups { urn } }
      getEntityCounts(input: {types: [DATASET, DOMAIN]}) { counts { entityType count } }
    }`)
    // As DataHub's ListDomainsResolver: without a parent the top-level domains, with one its children.
    expect(lists.listDomains).to.deep.equal({total: 1, domains: [{urn: 'urn:li:domain:finance', properties: {name: 'Finance'}}]})
    const children = async (parent: string) => (await gql('query l($p: String) { listDomains(input: {start: 0, count: 10, parentDomain: $p}) { total domains { urn } } }', {p: parent})).listDomains
    expect(await children('urn:li:domain:finance')).to.deep.equal({total: 1, domains: [{urn: 'urn:li:domain:billing'}]})
    expect(await children('urn:li:domain:billing')).to.deep.equal({total: 0, domains: []})
    expect(lists.listUsers.users.map((u: {urn: string}) => u.urn)).to.include('urn:li:corpuser:ann')
    expect(lists.listGroups.groups).to.deep.equal([{urn: 'urn:li:corpGroup:analysts'}])
    expect(lists.getEntityCounts.counts).to.deep.equal([
      {entityType: 'DATASET', count: 2},
      {entityType: 'DOMAIN', count: 2},
    ])
  })

  it('autoComplete and autoCompleteForMultiple suggest names as people type', async () => {
    const one = await gql('{ autoComplete(input: {type: DATASET, query: "orders", limit: 5}) { query suggestions entities { urn } } }')
    expect(one.autoComplete.suggestions).to.include.members(['orders', 'orders_v2'])
    const many = await gql('{ autoCompleteForMultiple(input: {query: "bill", limit: 5}) { suggestions { type suggestions entities { urn } } } }')
    expect(many.autoCompleteForMultiple.suggestions).to.deep.equal([{type: 'DOMAIN', suggestions: ['Billing'], entities: [{urn: 'urn:li:domain:billing'}]}])
  })

  it('filters users and groups as the app’s owner picker does: active users, or anyone with a display name', async () => {
    const file = writeJson(dir, 'people.json', [
      mcpRecord('urn:li:corpuser:gone', 'corpUserInfo', {active: false, displayName: 'Gone Person'}),
      mcpRecord('urn:li:corpuser:nameless', 'corpUserInfo', {active: false}),
    ])
    expect((await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'file', config: {path: file}}}, 'people.yml')], {env: lite.env()})).code).to.equal(0)
    const orFilters = [{and: [{field: 'active', values: ['true']}]}, {and: [{field: 'displayName', condition: 'EXISTS'}]}]
    const q = 'query s($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { searchResults { entity { urn } } } }'
    const urns = async (input: Record<string, unknown>) => (await gql(q, {input: {types: ['CORP_USER', 'CORP_GROUP'], query: '*', start: 0, count: 50, ...input}})).searchAcrossEntities.searchResults.map((r: any) => r.entity.urn).sort()
    const picked = await urns({orFilters})
    expect(picked).to.include.members(['urn:li:corpuser:ann', 'urn:li:corpGroup:analysts', 'urn:li:corpuser:gone'])
    expect(picked).to.not.include('urn:li:corpuser:nameless')
    expect(await urns({orFilters: [{and: [{field: 'active', values: ['false']}]}]})).to.deep.equal(['urn:li:corpuser:gone', 'urn:li:corpuser:nameless'])
    const many = await gql('query a($input: AutoCompleteMultipleInput!) { autoCompleteForMultiple(input: $input) { suggestions { type entities { urn } } } }', {input: {types: ['CORP_USER', 'CORP_GROUP'], query: 'analysts', limit: 10, orFilters}})
    expect(many.autoCompleteForMultiple.suggestions).to.deep.equal([{type: 'CORP_GROUP', entities: [{urn: 'urn:li:corpGroup:analysts'}]}])
  })

  it('autocomplete narrows its suggestions by the filters given, as a search does; a blank query is refused; five by default', async () => {
    const owned = '{field: "owners", values: ["urn:li:corpuser:ann"]}'
    const one = await gql(`{ autoComplete(input: {type: DATASET, query: "orders", filters: [${owned}]}) { suggestions entities { urn } } }`)
    expect(one.autoComplete.entities).to.deep.equal([{urn: DS}])
    const many = await gql(`{ autoCompleteForMultiple(input: {query: "ord", types: [DATASET], orFilters: [{and: [${owned}]}]}) { suggestions { suggestions entities { urn } } } }`)
    expect(many.autoCompleteForMultiple.suggestions).to.deep.equal([{suggestions: ['orders'], entities: [{urn: DS}]}])
    const blank = await http(`${lite.url}/api/graphql`, {token: lite.token, body: {query: '{ autoComplete(input: {type: DATASET, query: "  "}) { suggestions } }'}})
    expect(blank.body.errors[0].message).to.equal("'query' parameter can not be null or empty")
    expect(blank.body.errors[0].extensions.code).to.equal(400)
    const file = writeJson(dir, 'many.json', Array.from({length: 7}, (_, i) => mcpRecord(datasetUrn(`compat.ledger_${i}`), 'datasetProperties', {name: `ledger_${i}`, customProperties: {}, tags: []})))
    expect((await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'file', config: {path: file}}}, 'many.yml')], {env: lite.env()})).code).to.equal(0)
    expect((await gql('{ autoComplete(input: {type: DATASET, query: "ledger"}) { entities { urn } } }')).autoComplete.entities).to.have.length(5)
  })
})
