/**
 * Source `nats`: a NATS server's JetStream streams, catalogued the way DataHub's `kafka` source
 * catalogues topics — each stream a dataset `urn:li:dataset:(urn:li:dataPlatform:nats,<stream>,PROD)`
 * with its subjects, retention, limits and message and byte counts as custom properties, and a
 * schema where one is known: the stream's messages are DataHub MCP JSON (what the `nats` sink
 * writes), or the recipe declares a JSON Schema for the stream.
 *
 * Config: `server` (`nats://[user:pass@]host:port`), `stream_pattern` (allow/deny), `env`,
 * `platform_instance`, `schemas` (`{<stream>: <JSON Schema object or file path>}`),
 * `sample_messages` (how many of a stream's last messages are read to recognise MCP JSON).
 * Stale streams are soft-deleted by `stateful_ingestion` (read by the pipeline; job
 * `nats_stale_entity_removal`).
 */
import {connect} from '@nats-io/transport-node'
import {jetstreamManager, type StreamInfo} from '@nats-io/jetstream'
import {
  ALLOW_DENY_SCHEMA,
  ConfigError,
  ConnectionError,
  allowDeny,
  makeDataPlatformUrn,
  makeDatasetUrnWithPlatformInstance,
  mcp,
  readDataFile,
  schemaMetadata,
  type AllowDeny,
  type PluginContext,
  type ProposalInput,
  type Source,
  type SourcePlugin,
  type WorkUnit,
  configSchema,
  type ConfigOf,
  envOf,
} from '../../src/sdk/index.js'

export type NatsSourceConfig = ConfigOf<typeof CONFIG>

type JsonSchemaNode = {type?: string | string[]; properties?: Record<string, JsonSchemaNode>; items?: JsonSchemaNode; description?: string}

/** The fields of DataHub's MetadataChangeProposal as its JSON form carries them. */
const MCP_SCHEMA: JsonSchemaNode = {
  type: 'object',
  properties: {
    entityType: {type: 'string', description: 'The entity type, e.g. dataset'},
    entityUrn: {type: 'string', description: 'The urn of the entity changed'},
    changeType: {type: 'string', description: 'UPSERT, DELETE, …'},
    aspectName: {type: 'string', description: 'The aspect changed'},
    aspect: {type: 'object', properties: {value: {type: 'string'}, contentType: {type: 'string'}}},
    systemMetadata: {type: 'object', properties: {runId: {type: 'string'}, lastObserved: {type: 'integer'}}},
  },
}

const TYPE_CLASS: Record<string, string> = {
  string: 'StringType',
  integer: 'NumberType',
  number: 'NumberType',
  boolean: 'BooleanType',
  object: 'RecordType',
  array: 'ArrayType',
  null: 'NullType',
}

/** JSON Schema properties → DataHub schema fields, nested objects with dotted paths. */
export function jsonSchemaFields(schema: JsonSchemaNode, prefix = ''): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = []
  for (const [name, node] of Object.entries(schema.properties ?? {})) {
    const types = Array.isArray(node.type) ? node.type : [node.type ?? 'object']
    const main = types.find((t) => t !== 'null') ?? 'null'
    const path = prefix ? `${prefix}.${name}` : name
    out.push({
      fieldPath: path,
      nullable: types.includes('null'),
      ...(node.description ? {description: node.description} : {}),
      type: {type: {[`com.linkedin.schema.${TYPE_CLASS[main] ?? 'NullType'}`]: {}}},
      nativeDataType: main,
      recursive: false,
      isPartOfKey: false,
    })
    if (main === 'object' && node.properties) out.push(...jsonSchemaFields(node, path))
  }
  return out
}

function isMcpJson(text: string): boolean {
  try {
    const v = JSON.parse(text) as Record<string, unknown>
    return typeof v === 'object' && v !== null && typeof v.entityUrn === 'string' && typeof v.changeType === 'string'
  } catch {
    return false
  }
}

/** Stream state and config as DataHub-style string custom properties. */
export function streamProperties(info: StreamInfo): Record<string, string> {
  const c = info.config
  const s = info.state
  const p: Record<string, string> = {
    subjects: (c.subjects ?? []).join(','),
    retention: String(c.retention),
    storage: String(c.storage),
    replicas: String(c.num_replicas),
    discard: String(c.discard),
    max_msgs: String(c.max_msgs),
    max_bytes: String(c.max_bytes),
    max_age_seconds: String(Math.round(Number(c.max_age) / 1e9)),
    max_msg_size: String(c.max_msg_size),
    max_msgs_per_subject: String(c.max_msgs_per_subject),
    duplicate_window_seconds: String(Math.round(Number(c.duplicate_window ?? 0) / 1e9)),
    messages: String(s.messages),
    bytes: String(s.bytes),
    first_seq: String(s.first_seq),
    last_seq: String(s.last_seq),
    consumers: String(s.consumer_count),
  }
  if (c.description) p.description = c.description
  return p
}

class NatsSource implements Source {
  constructor(
    private readonly config: NatsSourceConfig,
    private readonly ctx: PluginContext,
  ) {}

  private declaredSchema(stream: string): JsonSchemaNode | undefined {
    const s = this.config.schemas?.[stream]
    if (s === undefined) return undefined
    if (typeof s === 'string') return readDataFile(this.ctx.resolvePath(s)) as JsonSchemaNode
    return s as JsonSchemaNode
  }

  async *workunits(): AsyncGenerator<WorkUnit> {
    const u = new URL(this.config.server)
    if (u.protocol !== 'nats:') throw new ConfigError(`source.config.server: expected nats://host:port, got '${u.protocol}'`)
    let nc
    try {
      nc = await connect({
        servers: u.host,
        name: 'mdcli-nats-source',
        timeout: 5000,
        maxReconnectAttempts: 2,
        ...(u.username ? {user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password)} : {}),
      })
    } catch (error) {
      throw new ConnectionError(`Could not reach NATS at nats://${u.host}: ${(error as Error).message}`)
    }
    try {
      const jsm = await jetstreamManager(nc)
      const wanted = allowDeny(this.config.stream_pattern, false, 'source.config.stream_pattern')
      const infos: StreamInfo[] = []
      for await (const info of jsm.streams.list()) if (wanted(info.config.name)) infos.push(info)
      infos.sort((a, b) => a.config.name.localeCompare(b.config.name))
      const platform = 'nats'
      const instance = this.config.platform_instance
      for (const info of infos) {
        const name = info.config.name
        const urn = makeDatasetUrnWithPlatformInstance(platform, name, instance, this.config.env)
        let schema: {node: JsonSchemaNode; kind: string} | undefined
        try {
          const declared = this.declaredSchema(name)
          if (declared) schema = {node: declared, kind: 'declared'}
          else if (info.state.messages > 0 && this.config.sample_messages > 0) {
            const last = Number(info.state.last_seq)
            const first = Math.max(Number(info.state.first_seq), last - this.config.sample_messages + 1)
            let seen = 0
            let mcps = 0
            for (let seq = last; seq >= first; seq--) {
              const m = await jsm.streams.getMessage(name, {seq}).catch(() => null)
              if (!m) continue
              seen++
              if (isMcpJson(new TextDecoder().decode(m.data))) mcps++
            }
            if (seen > 0 && mcps === seen) schema = {node: MCP_SCHEMA, kind: 'mcp'}
          }
        } catch (error) {
          this.ctx.report.warning(name, `schema not read: ${(error as Error).message}`)
        }
        const proposals: ProposalInput[] = [
          mcp(urn, 'datasetProperties', {name, customProperties: streamProperties(info), ...(info.config.description ? {description: info.config.description} : {}), tags: []}),
          mcp(urn, 'subTypes', {typeNames: ['Stream']}),
        ]
        if (instance) proposals.push(mcp(urn, 'dataPlatformInstance', {platform: makeDataPlatformUrn(platform), instance: `urn:li:dataPlatformInstance:(${makeDataPlatformUrn(platform)},${instance})`}))
        if (schema) {
          proposals.push(
            mcp(urn, 'schemaMetadata', schemaMetadata(name, platform, jsonSchemaFields(schema.node), {platformSchema: {'com.linkedin.schema.OtherSchema': {rawSchema: JSON.stringify(schema.node)}}})),
          )
        }
        yield {id: urn, kind: 'mcp', proposals}
      }
    } finally {
      await nc.close().catch(() => undefined)
    }
  }
}

const CONFIG = configSchema({
  type: 'object',
  properties: {
    server: {type: 'string', default: 'nats://127.0.0.1:4222'},
    stream_pattern: ALLOW_DENY_SCHEMA,
    env: {type: 'string', default: 'PROD'},
    platform_instance: {type: 'string'},
    schemas: {type: 'object', additionalProperties: {type: ['object', 'string']}},
    sample_messages: {type: 'integer', minimum: 0, default: 5},
  },
  additionalProperties: false,
})

const plugin: SourcePlugin<NatsSourceConfig> = {
  description: "NATS JetStream streams as datasets (DataHub's kafka source, for JetStream)",
  platform: 'nats',
  autoStatus: true,
  configSchema: CONFIG,
  create: (config, ctx) => {
    config.env = envOf(config.env)
    return new NatsSource(config, ctx)
  },
}

export default plugin
