import {join} from 'node:path'
import {expect} from 'chai'
import {cleanup, http, tempDir, useLite} from '../helpers/lite.js'
import {OWN, datasetUrn, ingestHere, ingestJson, mcpRecord, offlineEnv, readJson, writeJson, writeRecipe} from './helpers.js'

const A = datasetUrn('sales.orders')
const B = datasetUrn('hr.people')
const CHART = 'urn:li:chart:(looker,c1)'

describe('ingest: transformers', function () {
  this.timeout(60_000)
  let dir: string
  let input: string
  before(() => {
    dir = tempDir('mdcli-transformers-')
    input = writeJson(dir, 'in.json', [
      mcpRecord(A, 'datasetProperties', {name: 'orders'}),
      mcpRecord(A, 'globalTags', {tags: [{tag: 'urn:li:tag:existing'}]}),
      mcpRecord(A, 'ownership', {owners: [{owner: 'urn:li:corpuser:old', type: 'DATAOWNER'}]}),
      mcpRecord(B, 'status', {removed: false}),
      mcpRecord(CHART, 'status', {removed: false}),
    ])
  })
  after(() => cleanup(dir))

  // In this process, as `mdcli ingest` runs a recipe: what the transformers make of the stream is
  // checked here; a bad config's error line and the REST sink go through the real command below.
  async function run(name: string, transformers: unknown[], env = offlineEnv(dir)): Promise<Array<Record<string, any>>> {
    const out = join(dir, `${name}.json`)
    const r = await ingestHere(writeRecipe(dir, {source: {type: 'file', config: {path: input}}, transformers, sink: {type: 'file', config: {filename: out}}}, `${name}.yml`), env)
    expect(r.code, r.stderr + r.stdout).to.equal(0)
    return readJson(out)
  }
  const value = (rows: Array<Record<string, any>>, urn: string, aspect: string) => rows.filter((x) => x.entityUrn === urn && x.aspectName === aspect).map((x) => x.aspect.json)

  it('simple_*: adds to the aspect in the stream, or adds the aspect after the stream; datasets only', async () => {
    const rows = await run('simple', [
      {type: 'simple_add_dataset_tags', config: {tag_urns: ['urn:li:tag:new', 'urn:li:tag:existing']}},
      {type: 'simple_add_dataset_ownership', config: {owner_urns: ['urn:li:corpGroup:team'], ownership_type: 'TECHNICAL_OWNER'}},
      {type: 'simple_add_dataset_terms', config: {term_urns: ['urn:li:glossaryTerm:Sales']}},
      {type: 'simple_add_dataset_domain', config: {domains: ['urn:li:domain:marketing']}},
    ])
    expect(value(rows, A, 'globalTags')).to.deep.equal([{tags: [{tag: 'urn:li:tag:existing'}, {tag: 'urn:li:tag:new'}]}])
    expect(value(rows, B, 'globalTags')).to.deep.equal([{tags: [{tag: 'urn:li:tag:new'}, {tag: 'urn:li:tag:existing'}]}])
    expect(value(rows, A, 'ownership')[0].owners).to.deep.equal([
      {owner: 'urn:li:corpuser:old', type: 'DATAOWNER'},
      {owner: 'urn:li:corpGroup:team', type: 'TECHNICAL_OWNER'},
    ])
    expect(value(rows, B, 'glossaryTerms')[0].terms).to.deep.equal([{urn: 'urn:li:glossaryTerm:Sales'}])
    expect(value(rows, A, 'domains')).to.deep.equal([{domains: ['urn:li:domain:marketing']}])
    expect(rows.filter((x) => x.entityUrn === CHART).map((x) => x.aspectName)).to.deep.equal(['status'])
    // After the stream, DataHub's AddDatasetTags creates each tag it added (its key aspect); the terms transformer does not.
    const tagKeys = rows.flatMap((x, i) => (x.aspectName === 'tagKey' ? [[i, x.entityUrn, x.aspect.json]] : []))
    expect(tagKeys.map((x) => x.slice(1))).to.deep.equal([
      ['urn:li:tag:new', {name: 'new'}],
      ['urn:li:tag:existing', {name: 'existing'}],
    ])
    expect(tagKeys[0]![0]).to.be.greaterThan(rows.findLastIndex((x) => x.aspectName === 'globalTags'))
    expect(rows.filter((x) => x.aspectName === 'glossaryTermKey')).to.deep.equal([])
  })

  it('pattern_*: rules keyed by regex, matched from the start of the urn', async () => {
    const rows = await run('pattern', [
      {type: 'pattern_add_dataset_tags', config: {tag_pattern: {rules: {'.*sales\\..*': ['urn:li:tag:sales'], 'urn:li:dataset:.*hr': ['urn:li:tag:hr'], 'sales': ['urn:li:tag:never']}}}},
      {type: 'pattern_add_dataset_ownership', config: {owner_pattern: {rules: {'.*people.*': ['urn:li:corpuser:hrlead']}}, ownership_type: 'urn:li:ownershipType:steward'}},
      {type: 'pattern_add_dataset_terms', config: {term_pattern: {rules: {'.*orders.*': ['urn:li:glossaryTerm:Order']}}}},
      {type: 'pattern_add_dataset_domain', config: {domain_pattern: {rules: {'.*hr\\..*': ['urn:li:domain:hr']}}}},
    ])
    expect(value(rows, A, 'globalTags')[0].tags.map((t: {tag: string}) => t.tag)).to.deep.equal(['urn:li:tag:existing', 'urn:li:tag:sales'])
    expect(value(rows, B, 'globalTags')[0].tags.map((t: {tag: string}) => t.tag)).to.deep.equal(['urn:li:tag:hr'])
    expect(value(rows, B, 'ownership')[0].owners).to.deep.equal([{owner: 'urn:li:corpuser:hrlead', type: 'CUSTOM', typeUrn: 'urn:li:ownershipType:steward'}])
    expect(value(rows, A, 'ownership')[0].owners).to.have.length(1)
    expect(value(rows, A, 'glossaryTerms')[0].terms).to.deep.equal([{urn: 'urn:li:glossaryTerm:Order'}])
    expect(value(rows, B, 'glossaryTerms')).to.deep.equal([])
    expect(value(rows, B, 'domains')).to.deep.equal([{domains: ['urn:li:domain:hr']}])
  })

  it('pattern_*: only the first matching rule applies unless first_match_only is false (DataHub’s KeyValuePattern)', async () => {
    const rules = <T>(first: T[], second: T[]) => ({'.*orders.*': first, '.*sales.*': second})
    const recipe = (firstMatchOnly?: boolean) => {
      const fmo = firstMatchOnly === undefined ? {} : {first_match_only: firstMatchOnly}
      return [
        {type: 'pattern_add_dataset_tags', config: {tag_pattern: {rules: rules(['urn:li:tag:o'], ['urn:li:tag:s', 'urn:li:tag:o']), ...fmo}}},
        {type: 'pattern_add_dataset_ownership', config: {owner_pattern: {rules: rules(['urn:li:corpuser:o'], ['urn:li:corpuser:s']), ...fmo}}},
        {type: 'pattern_add_dataset_terms', config: {term_pattern: {rules: rules(['urn:li:glossaryTerm:o'], ['urn:li:glossaryTerm:s']), ...fmo}}},
        {type: 'pattern_add_dataset_domain', config: {domain_pattern: {rules: rules(['urn:li:domain:o'], ['urn:li:domain:s']), ...fmo}}},
      ]
    }
    const got = (rows: Array<Record<string, any>>) => ({
      tags: value(rows, A, 'globalTags')[0].tags.map((t: {tag: string}) => t.tag),
      owners: value(rows, A, 'ownership')[0].owners.map((o: {owner: string}) => o.owner),
      terms: value(rows, A, 'glossaryTerms')[0].terms.map((t: {urn: string}) => t.urn),
      domains: value(rows, A, 'domains')[0].domains,
    })
    const first = {tags: ['urn:li:tag:existing', 'urn:li:tag:o'], owners: ['urn:li:corpuser:old', 'urn:li:corpuser:o'], terms: ['urn:li:glossaryTerm:o'], domains: ['urn:li:domain:o']}
    expect(got(await run('fmo-default', recipe()))).to.deep.equal(first)
    expect(got(await run('fmo-true', recipe(true)))).to.deep.equal(first)
    expect(got(await run('fmo-false', recipe(false)))).to.deep.equal({
      tags: ['urn:li:tag:existing', 'urn:li:tag:o', 'urn:li:tag:s'],
      owners: ['urn:li:corpuser:old', 'urn:li:corpuser:o', 'urn:li:corpuser:s'],
      terms: ['urn:li:glossaryTerm:o', 'urn:li:glossaryTerm:s'],
      domains: ['urn:li:domain:o', 'urn:li:domain:s'],
    })
  })

  it('pattern_*: Python regex rules — a leading (?i)/(?s)/(?m) becomes a flag; Python-only syntax JavaScript cannot express is refused saying so', async () => {
    const rows = await run('pyflags', [
      {type: 'pattern_add_dataset_tags', config: {tag_pattern: {rules: {'(?i).*ORDERS.*': ['urn:li:tag:orders'], '\\A(?P<u>urn):li:dataset:.*(?P=u):li:dataPlatform:hive,hr\\.': ['urn:li:tag:hr']}}}},
    ])
    expect(value(rows, A, 'globalTags')[0].tags.map((t: {tag: string}) => t.tag)).to.deep.equal(['urn:li:tag:existing', 'urn:li:tag:orders'])
    expect(value(rows, B, 'globalTags')[0].tags.map((t: {tag: string}) => t.tag)).to.deep.equal(['urn:li:tag:hr'])
    for (const [rule, re] of [
      ['(?x) .* orders', /tag_pattern\.rules rule: '\(\?x\) \.\* orders' uses Python's inline flag \(\?x\), which JavaScript regular expressions cannot express/],
      ['.*(?i)orders', /tag_pattern\.rules rule: '\.\*\(\?i\)orders' uses a Python inline flag group that is not at the start/],
    ] as const) {
      const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: input}}, transformers: [{type: 'pattern_add_dataset_tags', config: {tag_pattern: {rules: {[rule]: ['urn:li:tag:x']}}}}]}, 'pyflags-bad.yml'), offlineEnv(dir))
      expect(r.code).to.equal(1)
      expect(r.result.error.message).to.match(re)
    }
  })

  it('ownership: default_actor stamps the lastModified the transformer gives an ownership aspect', async () => {
    const rows = await run('actor', [{type: 'simple_add_dataset_ownership', config: {owner_urns: ['urn:li:corpuser:x'], default_actor: 'urn:li:corpuser:etl'}}])
    expect(value(rows, B, 'ownership')[0].lastModified.actor).to.equal('urn:li:corpuser:etl')
    const plain = await run('actor-default', [{type: 'simple_add_dataset_ownership', config: {owner_urns: ['urn:li:corpuser:x']}}])
    expect(value(plain, B, 'ownership')[0].lastModified.actor).to.equal('urn:li:corpuser:datahub')
  })

  it('replace_existing drops what the stream carried', async () => {
    const rows = await run('replace', [{type: 'simple_add_dataset_tags', config: {tag_urns: ['urn:li:tag:only'], replace_existing: true}}])
    expect(value(rows, A, 'globalTags')).to.deep.equal([{tags: [{tag: 'urn:li:tag:only'}]}])
  })

  it('what transformers add is not counted as the source’s output (events produced, records, aspects), as in DataHub', async () => {
    const recipe = (transformers: unknown[], name: string) => writeRecipe(dir, {source: {type: 'file', config: {path: input}}, transformers, sink: {type: 'file', config: {filename: join(dir, `${name}.json`)}}}, `${name}.yml`)
    const plain = await ingestJson(recipe([], 'count-plain'), offlineEnv(dir))
    const tagged = await ingestJson(recipe([{type: 'simple_add_dataset_tags', config: {tag_urns: ['urn:li:tag:t1', 'urn:li:tag:t2']}}, {type: 'simple_add_dataset_terms', config: {term_urns: ['urn:li:glossaryTerm:x']}}], 'count-tagged'), offlineEnv(dir))
    expect(plain.code, plain.stderr).to.equal(0)
    expect(tagged.code, tagged.stderr).to.equal(0)
    // Written: the source's records, the glossaryTerms of both datasets, B's globalTags and the two tagKeys.
    expect(readJson<unknown[]>(join(dir, 'count-tagged.json')).length).to.equal(readJson<unknown[]>(join(dir, 'count-plain.json')).length + 5)
    for (const key of ['eventsProduced', 'summary'] as const) expect(tagged.result[key].toString().replace(/ in .*/, '')).to.equal(plain.result[key].toString().replace(/ in .*/, ''))
    expect(tagged.result.source.workUnits).to.equal(plain.result.source.workUnits)
    expect(tagged.result.source.records).to.equal(plain.result.source.records)
    expect(tagged.result.source.aspects).to.deep.equal(plain.result.source.aspects)
    expect(tagged.result.source.aspects).to.not.have.property('tag')
  })

  it('rejects a bad config before running', async () => {
    const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: input}}, transformers: [{type: 'simple_add_dataset_tags', config: {tag_urns: ['pii']}}]}, 'bad.yml'), offlineEnv(dir))
    expect(r.code).to.equal(1)
    expect(r.result.error.message).to.match(/transformers\[0\]\.config\.tag_urns\[0\]: must match pattern/)
  })

  it('a domain given by name needs a server: without one the run stops naming it', async () => {
    for (const transformer of [
      {type: 'simple_add_dataset_domain', config: {domains: ['urn:li:domain:ok', 'marketing']}},
      {type: 'pattern_add_dataset_domain', config: {domain_pattern: {rules: {'.*': ['marketing']}}}},
    ]) {
      const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: input}}, transformers: [transformer], sink: {type: 'file', config: {filename: join(dir, 'dom-out.json')}}}, 'dom-offline.yml'), offlineEnv(dir))
      expect(r.code, r.stdout + r.stderr).to.equal(1)
      expect(r.result.error.message).to.match(/domain.*'marketing' is not a domain urn and needs a server/)
    }
  })

  describe('semantics PATCH with a server', () => {
    const lite = useLite()

    it('keeps the server’s tags and adds the configured ones; OVERWRITE replaces them', async () => {
      const urn = datasetUrn('patch.t')
      const seed = writeJson(dir, 'patch-seed.json', [mcpRecord(urn, 'globalTags', {tags: [{tag: 'urn:li:tag:server'}]})])
      expect((await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: seed}}, sink: {type: 'datahub-rest'}}, 'pseed.yml'), lite.env())).code).to.equal(0)
      const file = writeJson(dir, 'patch-in.json', [mcpRecord(urn, 'status', {removed: false})])
      const tags = async () => ((await http(`${lite.url}/entitiesV2/${encodeURIComponent(urn)}`)).body.aspects.globalTags.value.tags as Array<{tag: string}>).map((t) => t.tag)
      const recipe = (semantics: string) => ({source: {type: 'file', config: {path: file}}, transformers: [{type: 'simple_add_dataset_tags', config: {tag_urns: ['urn:li:tag:added'], semantics}}], sink: {type: 'datahub-rest'}})
      // In any case, as DataHub's ConfigEnum reads it.
      expect((await ingestJson(writeRecipe(dir, recipe('patch'), 'p1.yml'), lite.env())).code).to.equal(0)
      expect(await tags()).to.deep.equal(['urn:li:tag:server', 'urn:li:tag:added'])
      expect((await ingestJson(writeRecipe(dir, recipe('OVERWRITE'), 'p2.yml'), lite.env())).code).to.equal(0)
      expect(await tags()).to.deep.equal(['urn:li:tag:added'])
    })

    it('a tag a transformer adds becomes a tag entity, found by search', async () => {
      const urn = datasetUrn('tags.created')
      const file = writeJson(dir, 'tagkey-in.json', [mcpRecord(urn, 'status', {removed: false})])
      const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: file}}, transformers: [{type: 'pattern_add_dataset_tags', config: {tag_pattern: {rules: {'.*tags\\.created.*': ['urn:li:tag:Brand_New']}}}}], sink: {type: 'datahub-rest'}}, 'tagkey.yml'), lite.env())
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      const tag = (await http(`${lite.url}/entitiesV2/${encodeURIComponent('urn:li:tag:Brand_New')}`)).body
      expect(tag.aspects.tagKey.value).to.deep.equal({name: 'Brand_New'})
      const found = await http(`${lite.url}/entities?action=search`, {body: {input: 'Brand_New', entity: 'tag', start: 0, count: 10}})
      expect(found.status, JSON.stringify(found.body)).to.equal(200)
      expect(found.body.value.entities.map((e: {entity: string}) => e.entity)).to.deep.equal(['urn:li:tag:Brand_New'])
    })

    it('PATCH ownership: an owner the server has takes the configured type instead of being listed twice', async () => {
      const urn = datasetUrn('patch.owners')
      const seed = writeJson(dir, 'own-seed.json', [
        mcpRecord(urn, 'ownership', {owners: [{owner: 'urn:li:corpuser:bob', type: 'DATAOWNER'}, {owner: 'urn:li:corpuser:alice', type: 'DATAOWNER'}], lastModified: {time: 1, actor: 'urn:li:corpuser:seed'}}),
      ])
      expect((await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: seed}}, sink: {type: 'datahub-rest'}}, 'oseed.yml'), lite.env())).code).to.equal(0)
      const file = writeJson(dir, 'own-in.json', [mcpRecord(urn, 'status', {removed: false})])
      const config = {owner_urns: ['urn:li:corpuser:alice', 'urn:li:corpuser:carol'], ownership_type: 'TECHNICAL_OWNER', semantics: 'PATCH'}
      const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: file}}, transformers: [{type: 'simple_add_dataset_ownership', config}], sink: {type: 'datahub-rest'}}, 'own.yml'), lite.env())
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      const owners = (await http(`${lite.url}/entitiesV2/${encodeURIComponent(urn)}`)).body.aspects.ownership.value.owners as Array<{owner: string; type: string}>
      expect(owners.map((o) => `${o.owner} ${o.type}`)).to.deep.equal(['urn:li:corpuser:bob DATAOWNER', 'urn:li:corpuser:alice TECHNICAL_OWNER', 'urn:li:corpuser:carol TECHNICAL_OWNER'])
    })

    it('domains: an id or a name resolves to the domain’s urn on the server, as DataHub’s DomainRegistry; an unknown one stops the run', async () => {
      const seed = writeJson(dir, 'dom-seed.json', [
        mcpRecord('urn:li:domain:mkt', 'domainProperties', {name: 'Marketing'}),
        mcpRecord('urn:li:domain:finance', 'domainProperties', {name: 'Money'}),
      ])
      expect((await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: seed}}, sink: {type: 'datahub-rest'}}, 'dseed.yml'), lite.env())).code).to.equal(0)
      const urn = datasetUrn('domains.t')
      const file = writeJson(dir, 'dom-in.json', [mcpRecord(urn, 'status', {removed: false})])
      const uuid = '2f4c9a3e-1b7d-4e2a-9c3f-5d6e7f8a9b0c'
      const recipe = (transformer: Record<string, unknown>) => ({source: {type: 'file', config: {path: file}}, transformers: [transformer], sink: {type: 'datahub-rest'}})
      const domains = async () => (await http(`${lite.url}/entitiesV2/${encodeURIComponent(urn)}`)).body.aspects.domains.value.domains as string[]
      let r = await ingestJson(writeRecipe(dir, recipe({type: 'simple_add_dataset_domain', config: {domains: ['Marketing', 'finance', 'urn:li:domain:given', uuid]}}), 'd1.yml'), lite.env())
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      expect(await domains()).to.deep.equal(['urn:li:domain:mkt', 'urn:li:domain:finance', 'urn:li:domain:given', `urn:li:domain:${uuid}`])
      r = await ingestJson(writeRecipe(dir, recipe({type: 'pattern_add_dataset_domain', config: {domain_pattern: {rules: {'.*domains\\.t.*': ['Money']}}}}), 'd2.yml'), lite.env())
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      expect(await domains()).to.deep.equal(['urn:li:domain:finance'])
      r = await ingestJson(writeRecipe(dir, recipe({type: 'simple_add_dataset_domain', config: {domains: ['Nowhere']}}), 'd3.yml'), lite.env())
      expect(r.code).to.equal(1)
      expect(r.result.error.message).to.match(/domains: domain 'Nowhere' doesn't seem to be provisioned/)
      expect(await domains()).to.deep.equal(['urn:li:domain:finance'])
    })

    it('datahub-lineage-file with preserve_upstream keeps the server’s upstreams', async () => {
      const down = 'urn:li:dataset:(urn:li:dataPlatform:kafka,topic3,DEV)'
      const old = datasetUrn('legacy.source')
      const seed = writeJson(dir, 'lin-seed.json', [mcpRecord(down, 'upstreamLineage', {upstreams: [{dataset: old, type: 'COPY'}]})])
      expect((await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: seed}}, sink: {type: 'datahub-rest'}}, 'lseed.yml'), lite.env())).code).to.equal(0)
      const r = await ingestJson(
        writeRecipe(dir, {source: {type: 'datahub-lineage-file', config: {file: join(OWN, 'lineage.yml')}}, sink: {type: 'datahub-rest'}}, 'lin.yml'),
        lite.env(),
      )
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      const ups = (await http(`${lite.url}/entitiesV2/${encodeURIComponent(down)}`)).body.aspects.upstreamLineage.value.upstreams as Array<{dataset: string}>
      expect(ups.map((u) => u.dataset)).to.deep.equal(['urn:li:dataset:(urn:li:dataPlatform:kafka,topic2,DEV)', 'urn:li:dataset:(urn:li:dataPlatform:kafka,topic1,DEV)', old])
    })
  })
})
