import {readFileSync} from 'node:fs'
import {Ajv} from 'ajv'
import {expect} from 'chai'
import {requireSharedFixtures} from '../helpers/requires.js'
import {ASPECT_SPECS, ASPECT_SPECS_BY_CLASS} from '../../src/model/aspects/index.js'
import {entitySpecs} from '../../src/model/registry.js'
import {aspectProblems} from '../../src/model/schemas.js'

const FIXTURES = '../../../../shared/fixtures/datahub/'

function readFixture(name: string): unknown[] {
  const data = JSON.parse(readFileSync(new URL(FIXTURES + name, import.meta.url), 'utf8')) as unknown
  return Array.isArray(data) ? data : [data]
}

// Avro-JSON wraps optional scalars as {"string": "x"}; only these keys are such wrappers.
const AVRO_WRAPPERS = new Set(['string', 'long', 'int', 'boolean', 'double', 'float', 'bytes', 'array', 'map'])
const AVRO_PREFIX = 'com.linkedin.pegasus2avro.'

const toPegasusName = (name: string): string =>
  name.startsWith(AVRO_PREFIX) ? 'com.linkedin.' + name.slice(AVRO_PREFIX.length) : name

/** Avro-JSON → Pegasus JSON as far as the catalog's readers do it: unwrap, drop nulls, rename. */
function normalise(value: unknown): unknown {
  if (value === null) return undefined
  if (Array.isArray(value)) return value.map(normalise).filter((v) => v !== undefined)
  if (typeof value !== 'object') return value
  const entries = Object.entries(value as Record<string, unknown>)
  if (entries.length === 1 && AVRO_WRAPPERS.has(entries[0]![0])) return normalise(entries[0]![1])
  const out: Record<string, unknown> = {}
  for (const [k, v] of entries) {
    const n = normalise(v)
    if (n !== undefined) out[toPegasusName(k)] = n
  }
  return out
}

interface FixtureAspect {
  where: string
  aspectName: string
  value: unknown
}

/** Every aspect value in a fixture file, from MCE snapshots and MCPs alike. */
function aspectsIn(file: string): FixtureAspect[] {
  const found: FixtureAspect[] = []
  readFixture(file).forEach((raw, i) => {
    const rec = raw as Record<string, unknown>
    if (rec.proposedSnapshot) {
      const [snapshotClass, snapshot] = Object.entries(rec.proposedSnapshot as Record<string, {urn: string; aspects: unknown[]}>)[0]!
      for (const wrapped of snapshot.aspects) {
        const [cls, value] = Object.entries(wrapped as Record<string, unknown>)[0]!
        const spec = ASPECT_SPECS_BY_CLASS[toPegasusName(cls)]
        const where = `${file}[${i}] ${snapshotClass.split('.').pop()} ${snapshot.urn} ${cls}`
        if (!spec) throw new Error(`${where}: no aspect spec has pdlClass ${toPegasusName(cls)}`)
        found.push({where, aspectName: spec.name, value: normalise(value)})
      }
    } else if (rec.aspect) {
      const aspect = rec.aspect as {value?: string; json?: unknown}
      const value = aspect.value !== undefined ? JSON.parse(aspect.value) : aspect.json
      found.push({
        where: `${file}[${i}] ${rec.entityType} ${rec.entityUrn} ${rec.aspectName}`,
        aspectName: rec.aspectName as string,
        value: normalise(value),
      })
    }
  })
  return found
}

describe('aspect schemas', () => {
  describe('coverage', () => {
    const named = new Set(entitySpecs().flatMap((e) => [e.keyAspect, ...e.aspects]))

    it('has a spec for every aspect the registry names', () => {
      const missing = [...named].filter((n) => !ASPECT_SPECS[n])
      expect(missing, `aspects without a spec: ${missing.join(', ')}`).to.deep.equal([])
    })

    it('has no spec the registry does not use', () => {
      const unused = Object.keys(ASPECT_SPECS).filter((n) => !named.has(n))
      expect(unused).to.deep.equal([])
    })

    it('compiles every schema, each valid against JSON Schema’s meta-schema (the server skips that check)', () => {
      const ajv = new Ajv({allErrors: true, strict: false, allowUnionTypes: true})
      for (const spec of Object.values(ASPECT_SPECS)) {
        expect(ajv.validateSchema(spec.schema), `${spec.name}: ${ajv.errorsText(ajv.errors)}`).to.equal(true)
        expect(() => ajv.compile(spec.schema), spec.name).not.to.throw()
      }
    })

    it('gives each spec a distinct Pegasus class', () => {
      const classes = Object.values(ASPECT_SPECS).map((s) => s.pdlClass)
      expect(new Set(classes).size).to.equal(classes.length)
      for (const c of classes) expect(c).to.match(/^com\.linkedin\.[a-z.]+\.[A-Z][A-Za-z0-9]*$/)
    })

    it('marks exactly the timeseries aspects as timeseries', () => {
      const timeseries = Object.values(ASPECT_SPECS).filter((s) => s.kind === 'timeseries').map((s) => s.name).sort()
      expect(timeseries).to.deep.equal([
        'assertionRunEvent', 'chartUsageStatistics', 'dashboardUsageStatistics', 'dataProcessInstanceRunEvent',
        'datahubIngestionCheckpoint', 'datahubIngestionRunSummary', 'datasetProfile', 'datasetUsageStatistics', 'operation', 'queryUsageStatistics',
      ])
    })

    it('gives key aspects exactly the registry key fields', () => {
      for (const entity of entitySpecs()) {
        const schema = ASPECT_SPECS[entity.keyAspect]!.schema as {properties: Record<string, unknown>}
        expect(Object.keys(schema.properties), entity.keyAspect).to.deep.equal(entity.keyFields.map((f) => f.name))
      }
    })

    it('maps the ML model-card classes to their aspect names', () => {
      const byClass = (c: string) => ASPECT_SPECS_BY_CLASS[c]?.name
      expect(byClass('com.linkedin.ml.metadata.MLModelProperties')).to.equal('mlModelProperties')
      expect(byClass('com.linkedin.common.Cost')).to.equal('cost')
      expect(byClass('com.linkedin.ml.metadata.CaveatsAndRecommendations')).to.equal('mlModelCaveatsAndRecommendations')
      expect(byClass('com.linkedin.ml.metadata.EthicalConsiderations')).to.equal('mlModelEthicalConsiderations')
      expect(byClass('com.linkedin.ml.metadata.EvaluationData')).to.equal('mlModelEvaluationData')
      expect(byClass('com.linkedin.ml.metadata.IntendedUse')).to.equal('intendedUse')
      expect(byClass('com.linkedin.ml.metadata.Metrics')).to.equal('mlModelMetrics')
      expect(byClass('com.linkedin.ml.metadata.TrainingData')).to.equal('mlModelTrainingData')
    })
  })

  describe('DataHub fixtures', function () {
    before(function () {
      requireSharedFixtures(this, 'datahub')
    })
    const files = [
      'bootstrap_mce.json',
      'single_mce.json',
      'test_domains.json',
      'data_platforms.json',
      'business-glossary/glossary_events_golden.json',
    ]
    for (const file of files) {
      it(`validates every aspect in ${file}`, () => {
        const aspects = aspectsIn(file)
        expect(aspects.length).to.be.greaterThan(0)
        const problems = aspects.flatMap((a) => aspectProblems(a.aspectName, a.value).map((p) => `${a.where}: ${p}`))
        expect(problems, problems.join('\n')).to.deep.equal([])
      })
    }

    it('covers the post, query and assertion entities in bootstrap_mce.json', () => {
      const names = new Set(aspectsIn('bootstrap_mce.json').map((a) => a.aspectName))
      for (const n of ['postInfo', 'queryProperties', 'querySubjects', 'assertionInfo', 'assertionRunEvent']) {
        expect(names.has(n), n).to.equal(true)
      }
    })

    it('validates the boot policies and roles', () => {
      const problems = [
        ...readFixture('boot/policies.json').flatMap((p) => aspectProblems('dataHubPolicyInfo', (p as {info: unknown}).info)),
        ...readFixture('boot/roles.json').flatMap((r) => aspectProblems('dataHubRoleInfo', (r as {info: unknown}).info)),
      ]
      expect(problems, problems.join('\n')).to.deep.equal([])
    })
  })

  describe('problems', () => {
    const stamp = {time: 1, actor: 'urn:li:corpuser:jdoe'}
    const expectProblem = (aspect: string, value: unknown, ...fragments: string[]) => {
      const problems = aspectProblems(aspect, value)
      for (const f of fragments) {
        expect(problems.some((p) => p.includes(f)), `expected a problem with "${f}" in:\n${problems.join('\n')}`).to.equal(true)
      }
    }

    it('accepts minimal valid values', () => {
      expect(aspectProblems('glossaryTerms', {terms: [{urn: 'urn:li:glossaryTerm:pii'}], auditStamp: stamp})).to.deep.equal([])
      expect(aspectProblems('deprecation', {deprecated: true, note: 'gone', actor: 'urn:li:corpuser:jdoe'})).to.deep.equal([])
      expect(aspectProblems('dataJobInfo', {name: 'j', type: {string: 'spark'}})).to.deep.equal([])
      expect(aspectProblems('dataJobInfo', {name: 'j', type: {'com.linkedin.datajob.azkaban.AzkabanJobType': 'SQL'}})).to.deep.equal([])
      expect(aspectProblems('status', {})).to.deep.equal([])
    })

    it('holds an urn inside a value to the 500 characters of an entity urn', () => {
      const long = `urn:li:dataset:(urn:li:dataPlatform:hive,${'c'.repeat(600)},PROD)`
      expectProblem('upstreamLineage', {upstreams: [{dataset: long, type: 'TRANSFORMED', auditStamp: stamp}]}, '/upstreams/0/dataset: must NOT have more than 500 characters')
      expectProblem('globalTags', {tags: [{tag: `urn:li:tag:${'t'.repeat(600)}`}]}, '/tags/0/tag: must NOT have more than 500 characters')
      expect(aspectProblems('globalTags', {tags: [{tag: `urn:li:tag:${'t'.repeat(489)}`}]})).to.deep.equal([])
    })

    it('reports a missing required field with its path', () => {
      expectProblem('glossaryTerms', {terms: []}, "(root): missing required field 'auditStamp'")
      expectProblem('deprecation', {deprecated: true, note: 'x'}, "(root): missing required field 'actor'")
      expectProblem(
        'schemaMetadata',
        {
          schemaName: 's', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '',
          platformSchema: {'com.linkedin.schema.MySqlDDL': {tableSchema: ''}},
          fields: [{fieldPath: 'a', type: {type: {'com.linkedin.schema.StringType': {}}}}],
        },
        "/fields/0: missing required field 'nativeDataType'",
      )
    })

    it('reports a wrong type with its path', () => {
      expectProblem('status', {removed: 'yes'}, '/removed: must be boolean')
      expectProblem('ownership', {owners: [{owner: 'urn:li:corpuser:a', type: 'DATAOWNER'}], lastModified: {time: 1.5, actor: 'urn:li:corpuser:a'}}, '/lastModified/time: must be integer')
      expectProblem('domains', {domains: ['marketing']}, '/domains/0: must match pattern')
    })

    it('reports an unknown field with its path', () => {
      expectProblem('globalTags', {tags: [{tag: 'urn:li:tag:a', colour: 'red'}]}, "/tags/0: unknown field 'colour'")
      expectProblem('schemaMetadata', {
        schemaName: 's', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '',
        platformSchema: {'com.linkedin.schema.NoSuchSchema': {}},
        fields: [],
      }, "/platformSchema: unknown field 'com.linkedin.schema.NoSuchSchema'")
    })

    it('reports a bad enum value with its path', () => {
      expectProblem('ownership', {owners: [{owner: 'urn:li:corpuser:a', type: 'KING'}]}, '/owners/0/type: must be one of')
      expectProblem('datasetKey', {platform: 'urn:li:dataPlatform:hive', name: 't', origin: 'MOON'}, '/origin: must be one of')
    })
  })
})
