/**
 * DataHub clients' view of our GraphQL schema. (1) The introspected schema of a running
 * `mdcli lite` still has every type and field we claim, so dropping one fails here rather than
 * in a user's client. (2) Whole entity-page queries written the way DataHub's web app writes
 * them — one query per page, shared fragments, DataHub's field names — run on DataHub's
 * bootstrap file (and its domains file) without a single error, and find the data.
 */
import {expect} from 'chai'
import {cleanup, type LiteProcess, startLite, tempDir} from '../helpers/lite.js'
import {requireSharedFixtures} from '../helpers/requires.js'
import {ingestJson, writeRecipe} from '../ingest/helpers.js'
import {gql} from './helpers.js'

/** Type → fields we claim DataHub's clients can rely on. */
const CLAIMS: Record<string, string[]> = {
  Query: [
    'dataset', 'chart', 'dashboard', 'dataFlow', 'dataJob', 'container', 'domain', 'glossaryTerm', 'glossaryNode', 'tag', 'corpUser', 'corpGroup',
    'dataPlatform', 'mlModel', 'mlFeatureTable', 'entity', 'entities', 'me',
    'search', 'searchAcrossEntities', 'scrollAcrossEntities', 'searchAcrossLineage', 'scrollAcrossLineage',
    'browse', 'browseV2', 'browsePaths', 'aggregateAcrossEntities', 'autoComplete', 'autoCompleteForMultiple',
    'listDomains', 'listUsers', 'listGroups', 'getEntityCounts', 'getRootGlossaryTerms', 'getRootGlossaryNodes', 'listPolicies',
  ],
  Mutation: [
    'updateDataset', 'updateChart', 'updateDashboard', 'updateDataFlow', 'updateDataJob', 'updateTag',
    'addTag', 'addTags', 'batchAddTags', 'removeTag', 'batchRemoveTags', 'addTerm', 'addTerms', 'batchAddTerms', 'removeTerm', 'batchRemoveTerms',
    'addOwner', 'addOwners', 'batchAddOwners', 'removeOwner', 'batchRemoveOwners', 'setDomain', 'batchSetDomain', 'unsetDomain',
    'updateDeprecation', 'batchUpdateDeprecation', 'updateDescription', 'batchUpdateSoftDeleted', 'addLink', 'removeLink', 'updateLink',
    'createTag', 'createDomain', 'createGlossaryTerm', 'createGlossaryNode', 'createGroup', 'deleteTag', 'deleteDomain', 'setTagColor', 'updateName',
  ],
  Dataset: ['urn', 'type', 'name', 'platform', 'container', 'parentContainers', 'properties', 'editableProperties', 'ownership', 'deprecation', 'institutionalMemory', 'schemaMetadata', 'editableSchemaMetadata', 'status', 'tags', 'glossaryTerms', 'domain', 'dataPlatformInstance', 'browsePaths', 'browsePathV2', 'subTypes', 'lineage', 'relationships', 'exists'],
  Chart: ['urn', 'type', 'tool', 'chartId', 'platform', 'properties', 'editableProperties', 'ownership', 'tags', 'glossaryTerms', 'domain', 'container', 'browsePaths', 'browsePathV2', 'lineage', 'relationships'],
  Dashboard: ['urn', 'type', 'tool', 'dashboardId', 'platform', 'properties', 'editableProperties', 'ownership', 'tags', 'glossaryTerms', 'domain', 'container', 'browsePathV2', 'lineage', 'relationships'],
  DataFlow: ['urn', 'type', 'orchestrator', 'flowId', 'cluster', 'platform', 'properties', 'editableProperties', 'ownership', 'tags', 'domain', 'browsePathV2', 'lineage', 'relationships'],
  DataJob: ['urn', 'type', 'dataFlow', 'jobId', 'properties', 'editableProperties', 'inputOutput', 'ownership', 'tags', 'domain', 'browsePathV2', 'lineage', 'relationships'],
  Container: ['urn', 'type', 'platform', 'container', 'parentContainers', 'properties', 'editableProperties', 'subTypes', 'ownership', 'tags', 'domain', 'browsePathV2', 'relationships'],
  GlossaryTerm: ['urn', 'type', 'name', 'hierarchicalName', 'properties', 'ownership', 'parentNodes', 'deprecation', 'displayProperties', 'relationships'],
  GlossaryNode: ['urn', 'type', 'properties', 'relationships'],
  Domain: ['urn', 'type', 'id', 'properties', 'ownership', 'entities', 'parentDomains', 'displayProperties', 'deprecation', 'relationships'],
  Tag: ['urn', 'type', 'name', 'properties', 'ownership', 'description', 'relationships'],
  CorpUser: ['urn', 'type', 'username', 'properties', 'editableProperties', 'info', 'editableInfo', 'isNativeUser', 'relationships'],
  CorpGroup: ['urn', 'type', 'name', 'properties', 'editableProperties', 'info', 'ownership', 'relationships'],
  DataPlatform: ['urn', 'type', 'name', 'properties', 'info'],
  Owner: ['owner', 'type', 'ownershipType', 'associatedUrn', 'attribution'],
  Deprecation: ['deprecated', 'note', 'decommissionTime', 'actor', 'actorEntity', 'replacement'],
  EntityRelationshipsResult: ['start', 'count', 'total', 'relationships'],
  EntityRelationship: ['type', 'direction', 'entity'],
  BrowseResults: ['entities', 'groups', 'start', 'count', 'total', 'metadata'],
  BrowseResultsV2: ['groups', 'start', 'count', 'total', 'metadata'],
  BrowseResultGroupV2: ['name', 'entity', 'count', 'hasSubGroups'],
  SearchResults: ['start', 'count', 'total', 'searchResults', 'facets'],
  FacetMetadata: ['field', 'displayName', 'aggregations'],
  Entity: ['urn', 'type', 'relationships'],
}

const INTROSPECT = `{ __schema { types { name fields(includeDeprecated: true) { name } } } }`

const OWNERSHIP = `fragment ownershipFields on Ownership {
  owners { owner { ... on CorpUser { urn type username info { active displayName title email firstName lastName fullName } properties { displayName email } editableProperties { displayName pictureLink } }
                   ... on CorpGroup { urn type name properties { displayName email } info { displayName email admins { urn username } members { urn username } groups } } }
           type ownershipType { urn type info { name description } } associatedUrn }
  lastModified { time actor }
}`

const GLOBAL_TAGS = `fragment globalTagsFields on GlobalTags { tags { tag { urn type name description properties { name colorHex } } associatedUrn } }`

const GLOSSARY_TERMS = `fragment glossaryTerms on GlossaryTerms { terms { term { urn type name hierarchicalName properties { name description definition termSource } } associatedUrn } }`

const DEPRECATION = `fragment deprecationFields on Deprecation { actor deprecated note decommissionTime actorEntity { urn type } replacement { urn type } }`

const PLATFORM = `fragment platformFields on DataPlatform { urn type lastIngested name properties { type displayName datasetNameDelimiter logoUrl } displayName info { type displayName datasetNameDelimiter logoUrl } }`

const ENTITY_DOMAIN = `fragment entityDomain on DomainAssociation { domain { urn type properties { name description } parentDomains { count domains { urn type ... on Domain { properties { name } } } } } associatedUrn }`

const PARENT_CONTAINERS = `fragment parentContainersFields on ParentContainersResult { count containers { urn type properties { name } subTypes { typeNames } } }`

const BROWSE_V2 = `fragment browsePathV2Fields on BrowsePathV2 { path { name entity { urn type ... on Container { properties { name } } } } }`

const INSTITUTIONAL = `fragment institutionalMemoryFields on InstitutionalMemory { elements { url description label author { urn username } created { time actor } associatedUrn } }`

const SCHEMA = `fragment schemaMetadataFields on SchemaMetadata {
  aspectVersion createdAt datasetUrn name platformUrn version cluster hash primaryKeys
  platformSchema { ... on TableSchema { schema } ... on KeyValueSchema { keySchema valueSchema } }
  fields { fieldPath label jsonPath nullable description type nativeDataType recursive isPartOfKey isPartitioningKey
           globalTags { ...globalTagsFields } glossaryTerms { ...glossaryTerms } }
}`

const RELATIONSHIPS = (types: string) => `relationships(input: {types: [${types}], direction: INCOMING, start: 0, count: 10}) { start count total relationships { type direction entity { urn type } } }`

const FRAGMENTS = [OWNERSHIP, GLOBAL_TAGS, GLOSSARY_TERMS, DEPRECATION, PLATFORM, ENTITY_DOMAIN, PARENT_CONTAINERS, BROWSE_V2, INSTITUTIONAL, SCHEMA].join('\n')

/** One page query per entity type: the fields DataHub's entity pages read, spread over fragments. */
const PAGES: Record<string, {query: string; urn: string; check: (d: any) => void}> = {
  dataset: {
    urn: 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)',
    query: `query getDataset($urn: String!) {
      dataset(urn: $urn) {
        urn type exists name lastIngested
        platform { ...platformFields }
        container { urn properties { name } }
        parentContainers { ...parentContainersFields }
        properties { name description qualifiedName customProperties { key value } externalUrl created lastModified { time actor } }
        editableProperties { description }
        ownership { ...ownershipFields }
        deprecation { ...deprecationFields }
        institutionalMemory { ...institutionalMemoryFields }
        schemaMetadata { ...schemaMetadataFields }
        editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description globalTags { ...globalTagsFields } glossaryTerms { ...glossaryTerms } } }
        status { removed }
        tags { ...globalTagsFields }
        glossaryTerms { ...glossaryTerms }
        domain { ...entityDomain }
        subTypes { typeNames }
        browsePathV2 { ...browsePathV2Fields }
        browsePaths { path }
        upstream: lineage(input: {direction: UPSTREAM, start: 0, count: 100}) { start count total relationships { type degree entity { urn type } } }
        downstream: lineage(input: {direction: DOWNSTREAM, start: 0, count: 100}) { total relationships { type entity { urn type } } }
        incoming: ${RELATIONSHIPS('"DownstreamOf", "Consumes", "Produces"')}
      }
    }`,
    check: (d) => {
      expect(d.dataset.name).to.equal('SampleKafkaDataset')
      expect(d.dataset.ownership.owners.map((o: any) => o.owner.urn)).to.include('urn:li:corpuser:jdoe')
      expect(d.dataset.schemaMetadata.fields.length).to.be.greaterThan(0)
      expect(d.dataset.downstream.total).to.be.greaterThan(0)
    },
  },
  chart: {
    urn: 'urn:li:chart:(looker,baz1)',
    query: `query getChart($urn: String!) {
      chart(urn: $urn) {
        urn type exists tool chartId lastIngested
        platform { ...platformFields }
        properties { name description externalUrl type access lastRefreshed lastModified { time } created { time } customProperties { key value } }
        editableProperties { description }
        query { rawQuery type }
        ownership { ...ownershipFields }
        status { removed }
        deprecation { ...deprecationFields }
        tags { ...globalTagsFields }
        glossaryTerms { ...glossaryTerms }
        institutionalMemory { ...institutionalMemoryFields }
        domain { ...entityDomain }
        container { urn }
        parentContainers { ...parentContainersFields }
        browsePathV2 { ...browsePathV2Fields }
        subTypes { typeNames }
        inputs: lineage(input: {direction: UPSTREAM, start: 0, count: 100}) { total relationships { type entity { urn type } } }
        dashboards: ${RELATIONSHIPS('"Contains"')}
      }
    }`,
    check: (d) => {
      expect(d.chart.properties.name).to.be.a('string')
      expect(d.chart.dashboards.relationships.map((r: any) => r.entity.urn)).to.include('urn:li:dashboard:(looker,baz)')
    },
  },
  dashboard: {
    urn: 'urn:li:dashboard:(looker,baz)',
    query: `query getDashboard($urn: String!) {
      dashboard(urn: $urn) {
        urn type exists tool dashboardId lastIngested
        platform { ...platformFields }
        properties { name description externalUrl access lastRefreshed lastModified { time } customProperties { key value } }
        editableProperties { description }
        ownership { ...ownershipFields }
        status { removed }
        deprecation { ...deprecationFields }
        tags { ...globalTagsFields }
        glossaryTerms { ...glossaryTerms }
        institutionalMemory { ...institutionalMemoryFields }
        domain { ...entityDomain }
        parentContainers { ...parentContainersFields }
        browsePathV2 { ...browsePathV2Fields }
        subTypes { typeNames }
        charts: relationships(input: {types: ["Contains"], direction: OUTGOING, start: 0, count: 100}) { total relationships { type entity { urn type ... on Chart { properties { name } } } } }
      }
    }`,
    check: (d) => expect(d.dashboard.charts.total).to.equal(2),
  },
  dataFlow: {
    urn: 'urn:li:dataFlow:(airflow,dag_abc,PROD)',
    query: `query getDataFlow($urn: String!) {
      dataFlow(urn: $urn) {
        urn type exists orchestrator flowId cluster lastIngested
        platform { ...platformFields }
        properties { name description project externalUrl customProperties { key value } }
        editableProperties { description }
        ownership { ...ownershipFields }
        status { removed }
        deprecation { ...deprecationFields }
        tags { ...globalTagsFields }
        glossaryTerms { ...glossaryTerms }
        institutionalMemory { ...institutionalMemoryFields }
        domain { ...entityDomain }
        browsePathV2 { ...browsePathV2Fields }
        childJobs: relationships(input: {types: ["IsPartOf"], direction: INCOMING, start: 0, count: 100}) { total relationships { entity { urn type ... on DataJob { jobId properties { name } } } } }
      }
    }`,
    check: (d) => expect(d.dataFlow.childJobs.total).to.equal(2),
  },
  dataJob: {
    urn: 'urn:li:dataJob:(urn:li:dataFlow:(airflow,dag_abc,PROD),task_123)',
    query: `query getDataJob($urn: String!) {
      dataJob(urn: $urn) {
        urn type exists jobId lastIngested
        dataFlow { urn flowId orchestrator properties { name } }
        properties { name description externalUrl customProperties { key value } }
        editableProperties { description }
        inputOutput { inputDatasets { urn name } outputDatasets { urn name } inputDatajobs { urn jobId } }
        ownership { ...ownershipFields }
        status { removed }
        deprecation { ...deprecationFields }
        tags { ...globalTagsFields }
        glossaryTerms { ...glossaryTerms }
        institutionalMemory { ...institutionalMemoryFields }
        domain { ...entityDomain }
        browsePathV2 { ...browsePathV2Fields }
        upstream: lineage(input: {direction: UPSTREAM, start: 0, count: 100}) { total relationships { type entity { urn } } }
        partOf: relationships(input: {types: ["IsPartOf"], direction: OUTGOING}) { total relationships { entity { urn } } }
      }
    }`,
    check: (d) => {
      expect(d.dataJob.dataFlow.urn).to.equal('urn:li:dataFlow:(airflow,dag_abc,PROD)')
      expect(d.dataJob.partOf.relationships).to.deep.equal([{entity: {urn: 'urn:li:dataFlow:(airflow,dag_abc,PROD)'}}])
    },
  },
  glossaryTerm: {
    urn: 'urn:li:glossaryTerm:CustomerAccount',
    query: `query getGlossaryTerm($urn: String!) {
      glossaryTerm(urn: $urn) {
        urn type exists name hierarchicalName
        properties { name description definition termSource sourceRef sourceUrl rawSchema customProperties { key value } }
        ownership { ...ownershipFields }
        deprecation { ...deprecationFields }
        institutionalMemory { ...institutionalMemoryFields }
        domain { ...entityDomain }
        parentNodes { count nodes { urn type properties { name } } }
        displayProperties { colorHex icon { iconLibrary name style } }
        isA: relationships(input: {types: ["IsA"], direction: OUTGOING, start: 0, count: 100}) { total relationships { entity { urn } } }
        hasA: relationships(input: {types: ["HasA"], direction: OUTGOING, start: 0, count: 100}) { total }
        assets: ${RELATIONSHIPS('"TermedWith", "SchemaFieldWithGlossaryTerm"')}
      }
    }`,
    check: (d) => expect(d.glossaryTerm.properties.definition).to.be.a('string'),
  },
  domain: {
    urn: 'urn:li:domain:marketing',
    query: `query getDomain($urn: String!) {
      domain(urn: $urn) {
        urn type exists id
        properties { name description }
        ownership { ...ownershipFields }
        institutionalMemory { ...institutionalMemoryFields }
        parentDomains { count domains { urn type } }
        displayProperties { colorHex icon { name } }
        deprecation { ...deprecationFields }
        entities(input: {start: 0, count: 10, query: "*"}) { total searchResults { entity { urn type } } }
        children: relationships(input: {types: ["IsPartOf"], direction: INCOMING, start: 0, count: 0}) { total }
      }
    }`,
    check: (d) => {
      expect(d.domain.properties.name).to.equal('Sales')
      expect(d.domain.entities.total).to.be.greaterThan(0)
    },
  },
  tag: {
    urn: 'urn:li:tag:Legacy',
    query: `query getTag($urn: String!) {
      tag(urn: $urn) {
        urn type exists name description
        properties { name description colorHex }
        ownership { ...ownershipFields }
        tagged: ${RELATIONSHIPS('"TaggedWith", "SchemaFieldTaggedWith"')}
      }
    }`,
    check: (d) => expect(d.tag.tagged.total).to.be.greaterThan(0),
  },
  corpUser: {
    urn: 'urn:li:corpuser:jdoe',
    query: `query getUser($urn: String!) {
      corpUser(urn: $urn) {
        urn type exists username isNativeUser
        info { active displayName title firstName lastName fullName email departmentName manager { urn username } }
        editableProperties { displayName title pictureLink teams skills aboutMe slack phone email }
        editableInfo { pictureLink teams skills }
        properties { displayName email title active }
        status
        tags { ...globalTagsFields }
        groups: relationships(input: {types: ["IsMemberOfGroup", "IsMemberOfNativeGroup"], direction: OUTGOING, start: 0, count: 20}) { start count total relationships { type entity { urn type ... on CorpGroup { name info { displayName } } } } }
        owns: ${RELATIONSHIPS('"OwnedBy"')}
      }
    }`,
    check: (d) => {
      expect(d.corpUser.username).to.equal('jdoe')
      expect(d.corpUser.owns.total).to.be.greaterThan(0)
    },
  },
  corpGroup: {
    urn: 'urn:li:corpGroup:bfoo',
    query: `query getGroup($urn: String!) {
      corpGroup(urn: $urn) {
        urn type exists name
        info { displayName description email admins { urn username } members { urn username } groups }
        properties { displayName description email slack }
        editableProperties { description slack email pictureLink }
        ownership { ...ownershipFields }
        members: ${RELATIONSHIPS('"IsMemberOfGroup", "IsMemberOfNativeGroup"')}
      }
    }`,
    check: (d) => expect(d.corpGroup.name).to.be.a('string'),
  },
  container: {
    urn: 'urn:li:container:SCHEMA',
    query: `query getContainer($urn: String!) {
      container(urn: $urn) {
        urn type exists lastIngested
        platform { ...platformFields }
        properties { name description externalUrl qualifiedName customProperties { key value } }
        editableProperties { description }
        ownership { ...ownershipFields }
        tags { ...globalTagsFields }
        glossaryTerms { ...glossaryTerms }
        institutionalMemory { ...institutionalMemoryFields }
        subTypes { typeNames }
        domain { ...entityDomain }
        deprecation { ...deprecationFields }
        container { urn properties { name } }
        parentContainers { ...parentContainersFields }
        browsePathV2 { ...browsePathV2Fields }
        status { removed }
        contents: ${RELATIONSHIPS('"IsPartOf"')}
      }
    }`,
    check: (d) => expect(d.container.exists).to.equal(true),
  },
}

const SEARCH_RESULTS = `query getSearchResultsForMultiple($input: SearchAcrossEntitiesInput!) {
  searchAcrossEntities(input: $input) {
    start count total
    searchResults {
      entity {
        urn type
        ... on Dataset { name platform { ...platformFields } properties { name description } ownership { ...ownershipFields } tags { ...globalTagsFields } glossaryTerms { ...glossaryTerms } domain { ...entityDomain } subTypes { typeNames } parentContainers { ...parentContainersFields } deprecation { ...deprecationFields } }
        ... on Chart { tool chartId properties { name description } platform { ...platformFields } ownership { ...ownershipFields } }
        ... on Dashboard { tool dashboardId properties { name description } platform { ...platformFields } }
        ... on DataFlow { orchestrator flowId properties { name } }
        ... on DataJob { jobId dataFlow { urn } properties { name } }
        ... on GlossaryTerm { name hierarchicalName properties { name definition } }
        ... on CorpUser { username info { displayName } }
        ... on CorpGroup { name info { displayName } }
        ... on Tag { name properties { name colorHex } }
        ... on Domain { properties { name } }
        ... on Container { properties { name } subTypes { typeNames } }
      }
      matchedFields { name value }
      insights { text }
    }
    facets { field displayName aggregations { value count entity { urn type ... on DataPlatform { ...platformFields } } } }
  }
}`

describe('graphql: DataHub clients’ queries', function () {
  this.timeout(120_000)
  let lite: LiteProcess
  let dir: string

  before(async function () {
    const boot = requireSharedFixtures(this, 'datahub', 'bootstrap_mce.json')
    const domains = requireSharedFixtures(this, 'datahub', 'test_domains.json')
    lite = await startLite()
    dir = tempDir('mdcli-pages-')
    for (const [i, path] of [boot, domains].entries()) {
      const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path}}, sink: {type: 'datahub-rest', config: {server: lite.url}}}, `r${i}.yml`), lite.env())
      expect(r.code, r.stderr).to.equal(0)
    }
  })
  after(async () => {
    await lite?.stop()
    if (lite) cleanup(lite.storeDir, lite.home)
    if (dir) cleanup(dir)
  })

  it('keeps every type and field we claim for DataHub’s clients', async () => {
    const r = await gql(lite.url, INTROSPECT)
    expect(r.body.errors).to.equal(undefined)
    const types = new Map<string, string[]>(r.body.data.__schema.types.map((t: any) => [t.name, (t.fields ?? []).map((f: any) => f.name)]))
    const missing: string[] = []
    for (const [type, fields] of Object.entries(CLAIMS)) {
      const have = types.get(type)
      if (!have) missing.push(type)
      else for (const f of fields) if (!have.includes(f)) missing.push(`${type}.${f}`)
    }
    expect(missing).to.deep.equal([])
  })

  for (const [name, page] of Object.entries(PAGES)) {
    it(`runs the ${name} page query with its fragments without errors`, async () => {
      const used = FRAGMENTS.split(/\n(?=fragment )/).filter((f) => page.query.includes(`...${/fragment (\w+)/.exec(f)![1]}`))
      // Fragments used by other fragments (schema fields use the tag and term ones).
      for (const f of FRAGMENTS.split(/\n(?=fragment )/)) if (!used.includes(f) && used.some((u) => u.includes(`...${/fragment (\w+)/.exec(f)![1]}`))) used.push(f)
      const r = await gql(lite.url, [page.query, ...used].join('\n'), {urn: page.urn})
      expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
      page.check(r.body.data)
    })
  }

  it('runs the search-results query across entity types without errors', async () => {
    const used = FRAGMENTS.split(/\n(?=fragment )/).filter((f) => SEARCH_RESULTS.includes(`...${/fragment (\w+)/.exec(f)![1]}`) || f.startsWith('fragment globalTagsFields') || f.startsWith('fragment glossaryTerms'))
    for (const query of ['*', 'sample', 'jdoe']) {
      const r = await gql(lite.url, [SEARCH_RESULTS, ...new Set(used)].join('\n'), {input: {query, start: 0, count: 20, types: []}})
      expect(r.body.errors, JSON.stringify(r.body.errors)).to.equal(undefined)
      expect(r.body.data.searchAcrossEntities.total, query).to.be.greaterThan(0)
    }
  })
})
