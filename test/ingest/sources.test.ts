import {requireSharedFixtures} from '../helpers/requires.js'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'chai'
import {ConfigError} from '../../src/errors.js'
import {mceToProposals} from '../../src/model/mce.js'
import {normalizeAspectValue} from '../../src/model/normalize.js'
import {ingest} from '../../src/recipes/pipeline.js'
import {parseRecipe} from '../../src/recipes/recipe.js'
import {cleanup, http, runCli, tempDir, useLite} from '../helpers/lite.js'
import {DATAHUB, DBT, OWN, datasetUrn, ingestJson, mcpRecord, offlineEnv, readJson, writeJson, writeRecipe} from './helpers.js'

/** 2020-04-14 07:00:00 UTC, the frozen time of DataHub's glossary golden file. */
const GOLDEN_TIME = 1586847600000

function recipeOf(obj: Record<string, unknown>, dir: string) {
  return parseRecipe(JSON.stringify(obj), join(dir, 'recipe.json'), 'json', {}, dir)
}

describe('ingest: sources refuse an env that is not one of DataHub\'s environments', () => {
  // Checked first thing in create, before a file is read or a server asked: a dataset urn needs a valid one.
  for (const name of ['dbt', 'delta-lake', 'duckdb', 'lookml', 'metabase', 'mode', 'nats-source', 's3', 'sql-queries']) {
    it(name, async () => {
      const plugin = (await import(`../../plugins/${name}/index.js`)).default
      let error: unknown
      try {
        await plugin.create({env: 'FOO'}, {})
      } catch (e) {
        error = e
      }
      expect(error).to.be.instanceOf(ConfigError)
      expect((error as Error).message).to.equal("source.config.env: 'FOO' is not an environment (one of DEV, TEST, QA, UAT, EI, PRE, STG, NON_PROD, PROD, CORP)")
    })
  }
})

describe('ingest: sources', function () {
  this.timeout(60_000)
  let dir: string
  before(() => {
    dir = tempDir('mdcli-sources-')
  })
  after(() => cleanup(dir))

  describe('datahub-business-glossary', () => {
    it('produces the same urns and aspects as DataHub’s golden file, in the same order', async function () {
    requireSharedFixtures(this, 'datahub')
      const out = join(dir, 'glossary.json')
      const recipe = recipeOf(
        {
          source: {type: 'datahub-business-glossary', config: {file: join(DATAHUB, 'business-glossary', 'business_glossary.yml')}},
          sink: {type: 'file', config: {filename: out}},
          run_id: 'datahub-business-glossary-2020_04_14-07_00_00',
        },
        dir,
      )
      const result = await ingest(recipe, {clock: () => GOLDEN_TIME, env: offlineEnv(dir)})
      expect(result.status, JSON.stringify(result.source.report)).to.equal('success')

      const golden = readJson<Array<Record<string, any>>>(join(DATAHUB, 'business-glossary', 'glossary_events_golden.json'))
      const expected: Array<[string, string, unknown]> = []
      for (const r of golden) {
        if (r.proposedSnapshot) for (const p of mceToProposals(r)) expected.push([p.entityUrn!, p.aspectName!, (p.aspect as {json: unknown}).json])
        else expected.push([r.entityUrn, r.aspectName, normalizeAspectValue(r.aspect.json)])
      }
      const got = readJson<Array<Record<string, any>>>(out)
      expect(got.map((r) => [r.entityUrn, r.aspectName, r.aspect.json])).to.deep.equal(expected)
      expect(got[0]!.systemMetadata).to.deep.equal({lastObserved: GOLDEN_TIME, runId: 'datahub-business-glossary-2020_04_14-07_00_00'})
      // The term whose path holds '%' gets DataHub's md5 id.
      expect(got.map((r) => r.entityUrn)).to.include('urn:li:glossaryTerm:4faf1eed790370f65942f2998a7993d6')
    })

    it('rejects a malformed glossary before running, naming the key path', async () => {
      const bad = join(dir, 'bad-glossary.yml')
      writeFileSync(bad, 'version: 1\nowners: {users: [a]}\nnodes:\n  - name: N\n    descripion: typo\n')
      const recipe = recipeOf({source: {type: 'datahub-business-glossary', config: {file: bad}}}, dir)
      await ingest(recipe, {env: offlineEnv(dir)}).then(
        () => expect.fail('should throw'),
        (e: Error) => expect(e.message).to.match(/nodes\[0\]: (unknown key 'descripion' \(did you mean 'description'\?\)|missing required key 'description')/),
      )
    })
  })

  describe('datahub-lineage-file', () => {
    it('emits upstreamLineage for top-level nodes with upstreams, then status', async () => {
      const out = join(dir, 'lineage.json')
      const r = await ingestJson(
        writeRecipe(dir, {source: {type: 'datahub-lineage-file', config: {file: join(OWN, 'lineage.yml'), preserve_upstream: false}}, sink: {type: 'file', config: {filename: out}}}, 'lineage.yml'),
        offlineEnv(dir),
      )
      expect(r.code, r.stderr).to.equal(0)
      const rows = readJson<Array<Record<string, any>>>(out)
      const topic3 = 'urn:li:dataset:(urn:li:dataPlatform:kafka,topic3,DEV)'
      const topic2 = 'urn:li:dataset:(urn:li:dataPlatform:kafka,topic2,DEV)'
      expect(rows.map((x) => [x.entityUrn, x.aspectName])).to.deep.equal([
        [topic3, 'upstreamLineage'],
        [topic2, 'upstreamLineage'],
        [topic2, 'status'],
        [topic3, 'status'],
      ])
      const l3 = rows[0]!.aspect.json
      expect(l3.upstreams.map((u: {dataset: string}) => u.dataset)).to.deep.equal([topic2, 'urn:li:dataset:(urn:li:dataPlatform:kafka,topic1,DEV)'])
      expect(l3.upstreams[0]).to.include({type: 'TRANSFORMED'})
      expect(l3.fineGrainedLineages[0]).to.include({upstreamType: 'FIELD_SET', downstreamType: 'FIELD_SET', transformOperation: 'func1', confidenceScore: 0.9})
      // platform_instance goes in front of the name.
      expect(rows[1]!.aspect.json.upstreams[0].dataset).to.equal('urn:li:dataset:(urn:li:dataPlatform:snowflake,test.kafka.topic2,PROD)')
    })

    it('rejects entity types other than dataset', async () => {
      const f = join(dir, 'bad-lineage.yml')
      writeFileSync(f, 'version: 1\nlineage:\n  - entity: {name: a, type: chart, platform: looker}\n    upstream: [{entity: {name: b, type: dataset, platform: hive}}]\n')
      const r = await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'datahub-lineage-file', config: {file: f}}}, 'badl.yml')], {env: offlineEnv(dir)})
      expect(r.code).to.equal(1)
      expect(r.stderr).to.match(/Type must be one of \['dataset'\], chart is not yet supported\./)
    })
  })

  describe('dbt', () => {
    it('turns manifest + catalog into dbt datasets with postgres siblings', async function () {
    requireSharedFixtures(this, 'datahub')
      const out = join(dir, 'dbt.json')
      const r = await ingestJson(
        writeRecipe(
          dir,
          {
            source: {type: 'dbt', config: {manifest_path: join(DBT, 'dbt_manifest.json'), catalog_path: join(DBT, 'dbt_catalog.json'), sources_path: join(DBT, 'dbt_sources.json'), target_platform: 'postgres'}},
            sink: {type: 'file', config: {filename: out}},
          },
          'dbt.yml',
        ),
        offlineEnv(dir),
      )
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      expect(r.result.failures).to.equal(0)
      const rows = readJson<Array<Record<string, any>>>(out)
      const aspect = (urn: string, name: string) => rows.find((x) => x.entityUrn === urn && x.aspectName === name)?.aspect.json
      const billing = 'urn:li:dataset:(urn:li:dataPlatform:dbt,pagila.dbt_postgres.an-aliased-view-for-monthly-billing,PROD)'
      const billingPg = 'urn:li:dataset:(urn:li:dataPlatform:postgres,pagila.dbt_postgres.an-aliased-view-for-monthly-billing,PROD)'
      const details = 'urn:li:dataset:(urn:li:dataPlatform:dbt,pagila.dbt_postgres.customer_details,PROD)'
      const actor = 'urn:li:dataset:(urn:li:dataPlatform:dbt,pagila.public.actor,PROD)'

      expect(aspect(billing, 'subTypes')).to.deep.equal({typeNames: ['Model', 'Table']})
      expect(aspect(actor, 'subTypes')).to.deep.equal({typeNames: ['Source']})
      expect(aspect(billing, 'datasetProperties')).to.deep.include({name: 'monthly_billing_with_cust'})
      expect(aspect(billing, 'upstreamLineage').upstreams.map((u: {dataset: string}) => u.dataset)).to.deep.equal([
        'urn:li:dataset:(urn:li:dataPlatform:dbt,pagila.dbt_postgres.payments_by_customer_by_month,PROD)',
        details,
      ])
      const schema = aspect(billing, 'schemaMetadata')
      expect(schema.platform).to.equal('urn:li:dataPlatform:dbt')
      expect(schema.fields.map((f: {fieldPath: string}) => f.fieldPath)).to.deep.equal(['billing_month', 'customer_id', 'amount', 'email'])
      expect(schema.fields[1]).to.deep.include({nativeDataType: 'integer', type: {type: {'com.linkedin.schema.NumberType': {}}}})
      // The postgres sibling carries the schema and points back.
      expect(aspect(billingPg, 'schemaMetadata').platform).to.equal('urn:li:dataPlatform:postgres')
      expect(aspect(billingPg, 'siblings')).to.deep.equal({siblings: [billing], primary: false})
      expect(aspect(billing, 'siblings')).to.deep.equal({siblings: [billingPg], primary: true})
      expect(aspect(actor, 'siblings')!.primary).to.equal(false)
      // Tags get the dbt: prefix; meta.owner becomes an owner; ephemeral models have no sibling.
      expect(aspect(details, 'globalTags')).to.deep.equal({tags: [{tag: 'urn:li:tag:dbt:test_tag'}]})
      expect(aspect(details, 'ownership').owners).to.deep.equal([{owner: 'urn:li:corpuser:@alice2', type: 'DATAOWNER'}])
      expect(rows.some((x) => x.entityUrn === 'urn:li:dataset:(urn:li:dataPlatform:postgres,pagila.dbt_postgres.customer_details,PROD)')).to.equal(false)
      const actorSchema = aspect(actor, 'schemaMetadata')
      expect(actorSchema.fields.find((f: {fieldPath: string}) => f.fieldPath === 'first_name')).to.deep.include({
        description: 'description for first_name from dbt',
        globalTags: {tags: [{tag: 'urn:li:tag:dbt:column_tag'}]},
      })
      expect(aspect('urn:li:tag:dbt:column_tag', 'tagKey')).to.deep.equal({name: 'dbt:column_tag'})
      expect(aspect(billing, 'status')).to.deep.equal({removed: false})
    })
  })

  describe('csv-enricher', () => {
    const lite = useLite()

    const ds = datasetUrn('csv.orders')
    const csv = () =>
      writeCsv(
        [
          'resource,subresource,glossary_terms,tags,owners,ownership_type,description,domain,ownership_type_urn',
          `"${ds}",,[urn:li:glossaryTerm:Revenue],[urn:li:tag:pii|urn:li:tag:gold],[urn:li:corpuser:ann],TECHNICAL_OWNER,"Orders, one row each",marketing,`,
          `"${ds}",order_id,,[urn:li:tag:key],,,The key,,`,
          `"${ds}",amount,[urn:li:glossaryTerm:Money],,,,,,`,
        ].join('\n'),
      )
    function writeCsv(text: string): string {
      const p = join(dir, 'enrich.csv')
      writeFileSync(p, text + '\n')
      return p
    }

    it('OVERRIDE works offline and writes whole aspects', async () => {
      const out = join(dir, 'csv.json')
      const r = await ingestJson(writeRecipe(dir, {source: {type: 'csv-enricher', config: {filename: csv(), write_semantics: 'OVERRIDE'}}, sink: {type: 'file', config: {filename: out}}}, 'csv1.yml'), offlineEnv(dir))
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      const rows = readJson<Array<Record<string, any>>>(out)
      const a = (name: string) => rows.find((x) => x.aspectName === name)!.aspect.json
      expect(a('globalTags')).to.deep.equal({tags: [{tag: 'urn:li:tag:pii'}, {tag: 'urn:li:tag:gold'}]})
      expect(a('glossaryTerms').terms).to.deep.equal([{urn: 'urn:li:glossaryTerm:Revenue'}])
      expect(a('ownership').owners).to.deep.equal([{owner: 'urn:li:corpuser:ann', type: 'TECHNICAL_OWNER'}])
      expect(a('editableDatasetProperties').description).to.equal('Orders, one row each')
      expect(a('domains')).to.deep.equal({domains: ['urn:li:domain:marketing']})
      const fields = a('editableSchemaMetadata').editableSchemaFieldInfo
      expect(fields).to.deep.equal([
        {fieldPath: 'order_id', description: 'The key', globalTags: {tags: [{tag: 'urn:li:tag:key'}]}},
        {fieldPath: 'amount', glossaryTerms: {terms: [{urn: 'urn:li:glossaryTerm:Money'}], auditStamp: fields[1].glossaryTerms.auditStamp}},
      ])
    })

    it('PATCH refuses to run without a server', async () => {
      const r = await runCli(['ingest', '-c', writeRecipe(dir, {source: {type: 'csv-enricher', config: {filename: csv()}}}, 'csv2.yml')], {env: offlineEnv(dir)})
      expect(r.code).to.equal(1)
      expect(r.stderr).to.match(/PATCH .* needs a reachable server/)
    })

    it('PATCH merges with what the server holds', async () => {
      const seed = writeJson(dir, 'seed.json', [
        mcpRecord(ds, 'globalTags', {tags: [{tag: 'urn:li:tag:legacy'}]}),
        mcpRecord(ds, 'ownership', {owners: [{owner: 'urn:li:corpuser:bob', type: 'DATAOWNER'}]}),
      ])
      expect((await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path: seed}}, sink: {type: 'datahub-rest'}}, 'seed.yml'), lite.env())).code).to.equal(0)
      const r = await ingestJson(writeRecipe(dir, {source: {type: 'csv-enricher', config: {filename: csv()}}, sink: {type: 'datahub-rest'}}, 'csv3.yml'), lite.env())
      expect(r.code, r.stderr + r.stdout).to.equal(0)
      const e = (await http(`${lite.url}/entitiesV2/${encodeURIComponent(ds)}`)).body.aspects
      expect(e.globalTags.value.tags.map((t: {tag: string}) => t.tag)).to.deep.equal(['urn:li:tag:legacy', 'urn:li:tag:pii', 'urn:li:tag:gold'])
      expect(e.ownership.value.owners.map((o: {owner: string}) => o.owner)).to.deep.equal(['urn:li:corpuser:bob', 'urn:li:corpuser:ann'])
    })
  })
})
