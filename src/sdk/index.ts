/// <reference types="node" preserve="true" />
/**
 * The public plugin SDK: the one module built-in and third-party plugins import.
 *
 * Everything a source, sink or transformer needs is re-exported here (contracts, work units,
 * urn builders, errors, the report, file helpers); plugins never reach into other `src/` modules,
 * so the internals can move without breaking a plugin.
 */
export type {
  AnyPlugin,
  JsonSchema,
  PluginBase,
  PluginContext,
  PluginKind,
  ProposalInput,
  Sink,
  SinkPlugin,
  Source,
  SourcePlugin,
  Transform,
  TransformerPlugin,
  WorkUnit,
  WorkUnitStream,
} from './plugin.js'
export {mcp} from './plugin.js'
export {Report} from './report.js'
export {envOf, validateConfig} from './validate.js'
export {datasetUrn, encodeUrnKeyPart, entityTypeOf, FABRIC_TYPES, formatUrn, isUrn, parseUrn, URN_NS, type Urn} from '../model/urn.js'
export {
  ConfigError,
  ConnectionError,
  FileError,
  MdcliError,
  ParseError,
  PluginError,
  isMdcliError,
} from '../errors.js'
export {readDataFile, readText} from './files.js'
export {containerUrn, datahubGuid, type ContainerKey} from '../model/container-key.js'
export {ALLOW_DENY_SCHEMA, allowDeny, pythonRegex, type AllowDeny} from './patterns.js'
export {
  aspectWorkUnit,
  globalTags,
  makeChartUrn,
  makeDashboardUrn,
  makeDataPlatformUrn,
  makeDatasetUrn,
  makeDatasetUrnWithPlatformInstance,
  makeDomainUrn,
  makeGroupUrn,
  makeSchemaFieldUrn,
  makeTagUrn,
  makeTermUrn,
  makeUserUrn,
  ownership,
  schemaMetadata,
  type SchemaMetadataOptions,
} from './builders.js'
export {runSource, type SourceRun} from './testing.js'
export type {AuditStamp, SystemMetadata} from '../model/wire.js'
export {findEntity} from '../model/registry.js'
export {mceToProposals} from '../model/mce.js'
export {toFileRecord} from './records.js'
export {parseCsv} from './csv.js'
export {eventFiles, readEventRecords, totalBytes} from './events-file.js'
export {listEdit, transformerPair, type AspectEdit} from './transform.js'
export {stripWhere} from './messages.js'
export {pyFloat, pyStr} from './python.js'
export {cardinality, FULL_TABLE, type Cardinality} from './profile.js'
export {
  configuredServer,
  connectServer,
  openJetStream,
  parseQueueUrl,
  redactUrl,
  tlsOf,
  TLS_CONFIG_PROPERTIES,
  type TlsConfig,
  type ClientTls,
  type BatchOutcome,
  type PublishAck,
  type QueuePublisher,
  type ServerClient,
} from './connect.js'
export {configSchema, type ConfigOf, type JSONSchema} from './config.js'
export type {RequestLog} from '../client/client.js'
export {HttpClient, HttpError, offsetItems, pagedItems, redactSecrets, retryAfterMs, type HttpClientOptions, type JsonResponse, type RequestOptions, type RetryOptions} from './http.js'
