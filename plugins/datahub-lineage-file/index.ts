/**
 * Source `datahub-lineage-file`: dataset lineage written by hand in YAML (DataHub's version 1
 * format) into `upstreamLineage` aspects.
 *
 * Glossary:
 * - entity node: `{entity: {name, type: dataset, env, platform, platform_instance}, upstream: [...],
 *   fineGrainedLineages: [...]}`; only top-level nodes with upstreams produce an aspect — nested
 *   nodes only name the upstreams.
 * - preserve_upstream (default true): keep the upstreams the dataset already has on the server
 *   and add the file's; without a reachable server the file's lineage replaces what is there.
 */
import {ConfigError, readDataFile, datasetUrn, mcp, type SourcePlugin, type WorkUnit, validateConfig, configSchema, type ConfigOf} from '../../src/sdk/index.js'

export type LineageConfig = ConfigOf<typeof CONFIG>

interface EntityDef {
  name: string
  type: string
  env?: string
  platform: string
  platform_instance?: string
}
interface FineGrained {
  upstreamType?: string
  upstreams?: string[]
  downstreamType?: string
  downstreams?: string[]
  transformOperation?: string
  confidenceScore?: number
}
interface EntityNode {
  entity: EntityDef
  upstream?: EntityNode[]
  fineGrainedLineages?: FineGrained[]
}

const entitySchema = {
  type: 'object',
  properties: {
    name: {type: 'string', minLength: 1},
    type: {type: 'string'},
    env: {type: 'string'},
    platform: {type: 'string', minLength: 1},
    platform_instance: {type: 'string'},
  },
  required: ['name', 'type', 'platform'],
  additionalProperties: false,
}
const LINEAGE_SCHEMA = {
  definitions: {
    node: {
      type: 'object',
      properties: {
        entity: entitySchema,
        upstream: {type: 'array', items: {$ref: '#/definitions/node'}},
        fineGrainedLineages: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              upstreamType: {enum: ['FIELD_SET', 'DATASET', 'NONE']},
              upstreams: {type: 'array', items: {type: 'string'}},
              downstreamType: {enum: ['FIELD', 'FIELD_SET']},
              downstreams: {type: 'array', items: {type: 'string'}},
              transformOperation: {type: 'string'},
              confidenceScore: {type: 'number'},
            },
            additionalProperties: false,
          },
        },
      },
      required: ['entity'],
      additionalProperties: false,
    },
  },
  type: 'object',
  properties: {version: {type: ['integer', 'string']}, lineage: {type: 'array', items: {$ref: '#/definitions/node'}}},
  required: ['version', 'lineage'],
  additionalProperties: false,
}

function checkEntity(e: EntityDef, file: string): void {
  if (e.type !== 'dataset') throw new ConfigError(`${file}: Type must be one of ['dataset'], ${e.type} is not yet supported.`)
  if (e.name.startsWith('urn:li:')) throw new ConfigError(`${file}: entity name '${e.name}' must be a name, not an urn`)
}

function urnOf(e: EntityDef): string {
  const name = e.platform_instance ? `${e.platform_instance}.${e.name}` : e.name
  return datasetUrn(e.platform, name, e.env ?? 'PROD')
}

interface Upstream {
  dataset: string
  [k: string]: unknown
}

const CONFIG = configSchema({
  type: 'object',
  properties: {file: {type: 'string', minLength: 1}, preserve_upstream: {type: 'boolean', default: true}},
  required: ['file'],
  additionalProperties: false,
})

const plugin: SourcePlugin<LineageConfig> = {
  description: 'Dataset lineage from a lineage YAML file.',
  autoStatus: true,
  configSchema: CONFIG,
  create(config, ctx) {
    const file = ctx.resolvePath(config.file)
    const doc = readDataFile(file, 'yaml') as {version: number | string; lineage: EntityNode[]}
    if (doc === null || typeof doc !== 'object') throw new ConfigError(`${file} must hold a mapping with 'version' and 'lineage'`)
    validateConfig(LINEAGE_SCHEMA, doc, {file, base: '', what: 'lineage file'})
    if (String(doc.version) !== '1') throw new ConfigError(`${file}: Only version 1 is supported`)
    const walk = (n: EntityNode): void => {
      checkEntity(n.entity, file)
      n.upstream?.forEach(walk)
    }
    doc.lineage.forEach(walk)
    return {
      async *workunits(): AsyncGenerator<WorkUnit> {
        const graph = config.preserve_upstream ? await ctx.graph() : undefined
        if (config.preserve_upstream && !graph) ctx.report.info('preserveUpstream', 'no server reachable: the file replaces existing lineage')
        for (const node of doc.lineage) {
          if (!node.upstream || node.upstream.length === 0) continue
          const urn = urnOf(node.entity)
          const time = ctx.now()
          let upstreams: Upstream[] = node.upstream.map((u) => ({dataset: urnOf(u.entity), type: 'TRANSFORMED', auditStamp: {time, actor: 'urn:li:corpUser:ingestion'}}))
          let fine = (node.fineGrainedLineages ?? []).map((f) => ({
            upstreamType: f.upstreamType ?? 'FIELD_SET',
            ...(f.upstreams ? {upstreams: f.upstreams} : {}),
            downstreamType: f.downstreamType ?? 'FIELD',
            ...(f.downstreams ? {downstreams: f.downstreams} : {}),
            ...(f.transformOperation !== undefined ? {transformOperation: f.transformOperation} : {}),
            confidenceScore: f.confidenceScore ?? 1.0,
          }))
          if (graph) {
            const current = await graph
              .getEntity(urn, ['upstreamLineage'])
              .then((e) => e.aspects.upstreamLineage?.value as {upstreams?: Upstream[]; fineGrainedLineages?: unknown[]} | undefined)
              .catch((e: {code?: string; message?: string}) => {
                if (e.code !== 'E_NOT_FOUND') ctx.report.warning('preserve_upstream', `${urn}: could not read current lineage (${e.message}); replacing it`)
                return undefined
              })
            if (current) {
              const mine = new Set(upstreams.map((u) => u.dataset))
              upstreams = [...upstreams, ...(current.upstreams ?? []).filter((u) => !mine.has(u.dataset))]
              const seen = new Set(fine.map((f) => JSON.stringify(f)))
              fine = [...fine, ...((current.fineGrainedLineages ?? []) as typeof fine).filter((f) => !seen.has(JSON.stringify(f)))]
            }
          }
          ctx.report.count('lineageEdges', upstreams.length)
          yield {id: `${urn}-upstreamLineage`, kind: 'mcp', proposals: [mcp(urn, 'upstreamLineage', {upstreams, ...(fine.length > 0 ? {fineGrainedLineages: fine} : {})})]}
        }
      },
    }
  },
}

export default plugin
