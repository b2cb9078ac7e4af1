/**
 * Schema-building helpers, the shapes every area shares (audit stamps, edges, tag and term
 * associations, the timeseries base) and the `com.linkedin.common` aspects most entities accept.
 */
import {FABRIC_TYPES} from '../urn.js'
import {MAX_URN_LENGTH} from '../limits.js'
import type {AspectSpec, JsonSchema} from './types.js'

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

type Props = Record<string, JsonSchema>

export const str: JsonSchema = {type: 'string'}
export const bool: JsonSchema = {type: 'boolean'}
/** Pegasus int and long. */
export const int: JsonSchema = {type: 'integer'}
export const long: JsonSchema = int
/** Pegasus float and double. */
export const num: JsonSchema = {type: 'number'}
/** An urn a value refers to is held to the same length as an entity's own (DataHub's urn column). */
export const urn: JsonSchema = {type: 'string', pattern: '^urn:li:', maxLength: MAX_URN_LENGTH}
/** Url is a plain string typeref: DataHub stores relative paths (`/assets/...`) in it, so no format check. */
export const url: JsonSchema = str
/** Opaque JSON blob (Pegasus `bytes`), kept as a string. */
export const bytes: JsonSchema = str

/** A Pegasus record. `required`: fields the PDL declares neither `optional` nor with a default; the rest go in `optional`. */
export function record(required: Props, optional: Props = {}): JsonSchema {
  const schema: JsonSchema = {type: 'object', properties: {...required, ...optional}, additionalProperties: false}
  const names = Object.keys(required)
  if (names.length > 0) schema.required = names
  return schema
}

export function arrayOf(items: JsonSchema): JsonSchema {
  return {type: 'array', items}
}

/** Pegasus maps always have string keys. */
export function mapOf(values: JsonSchema): JsonSchema {
  return {type: 'object', additionalProperties: values}
}

export function enumOf(...values: string[]): JsonSchema {
  return {type: 'string', enum: values}
}

/**
 * A Pegasus union: an object with exactly one key naming the member (`com.linkedin.<pkg>.<Record>`
 * for records and enums, `string`/`long`/... for primitives, the alias for aliased unions).
 */
export function union(members: Props): JsonSchema {
  return {type: 'object', properties: members, minProperties: 1, maxProperties: 1, additionalProperties: false}
}

/** Record members that carry no fields, e.g. `{"com.linkedin.schema.StringType": {}}`. */
export function emptyRecords(...fqns: string[]): Props {
  return Object.fromEntries(fqns.map((f) => [f, record({})]))
}

/**
 * A union of primitives as it reaches us from either format: Pegasus wraps the value
 * (`{"string": "x"}`), avro-JSON readers hand it over already unwrapped (`"x"`).
 */
export function primitiveUnion(members: Props): JsonSchema {
  return {anyOf: [...Object.values(members), union(members)]}
}

export function versioned(name: string, pdlClass: string, schema: JsonSchema): AspectSpec {
  return {name, kind: 'versioned', pdlClass, schema}
}

export function timeseries(name: string, pdlClass: string, schema: JsonSchema): AspectSpec {
  return {name, kind: 'timeseries', pdlClass, schema}
}

// ---------------------------------------------------------------------------------------------
// Shared shapes
// ---------------------------------------------------------------------------------------------

export const auditStamp = record({time: long, actor: urn}, {impersonator: urn, message: str})
export const timeStamp = record({time: long}, {actor: urn})

/** ChangeAuditStamps as mixed into a record: created/lastModified default to {0, unknown}. */
export const changeAuditFields: Props = {created: auditStamp, lastModified: auditStamp, deleted: auditStamp}
export const changeAuditStamps = record({}, changeAuditFields)

/** CustomProperties and ExternalReference mixins (both all-optional). */
export const customProperties: Props = {customProperties: mapOf(str)}
export const externalReference: Props = {externalUrl: url}

export const attribution = record({time: long, actor: urn}, {source: urn, sourceDetail: mapOf(str)})

export const edge = record(
  {destinationUrn: urn},
  {sourceUrn: urn, created: auditStamp, lastModified: auditStamp, properties: mapOf(str)},
)

/** FabricType: the environment labels urns accept. */
export const fabricType = enumOf(...FABRIC_TYPES)

export const globalTags = record({tags: arrayOf(record({tag: urn}, {context: str, attribution}))})
export const glossaryTerms = record({
  terms: arrayOf(record({urn}, {actor: urn, context: str, attribution})),
  auditStamp,
})

const calendarInterval = enumOf('SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR')
export const timeWindowSize = record({unit: calendarInterval}, {multiple: int})

/** TimeseriesAspectBase, mixed into every timeseries aspect. */
export const timeseriesBase: Props = {timestampMillis: long}
export const timeseriesBaseOptional: Props = {
  eventGranularity: timeWindowSize,
  partitionSpec: record(
    {partition: str},
    {
      type: enumOf('FULL_TABLE', 'QUERY', 'PARTITION'),
      timePartition: record({startTimeMillis: long, length: timeWindowSize}),
    },
  ),
  messageId: str,
}

/** Editable*Properties of charts, dashboards, flows, jobs, notebooks: ChangeAuditStamps + description. */
export const editableDescription = record({}, {...changeAuditFields, description: str})

// ---------------------------------------------------------------------------------------------
// com.linkedin.common aspects
// ---------------------------------------------------------------------------------------------

const ownershipType = enumOf(
  'CUSTOM', 'TECHNICAL_OWNER', 'BUSINESS_OWNER', 'DATA_STEWARD', 'NONE',
  // Deprecated values stay valid: sample data and older ingestion still write them.
  'DEVELOPER', 'DATAOWNER', 'DELEGATE', 'PRODUCER', 'CONSUMER', 'STAKEHOLDER',
)

const owner = record(
  {owner: urn, type: ownershipType},
  {
    typeUrn: urn,
    source: record(
      {type: enumOf('AUDIT', 'DATABASE', 'FILE_SYSTEM', 'ISSUE_TRACKING_SYSTEM', 'MANUAL', 'SERVICE', 'SOURCE_CONTROL', 'OTHER')},
      {url: str},
    ),
    attribution,
  },
)

const formPromptAssociation = record(
  {id: str, lastModified: auditStamp},
  {
    fieldAssociations: record({}, {
      completedFieldPrompts: arrayOf(record({fieldPath: str, lastModified: auditStamp})),
      incompleteFieldPrompts: arrayOf(record({fieldPath: str, lastModified: auditStamp})),
    }),
  },
)
const formAssociation = record(
  {urn},
  {incompletePrompts: arrayOf(formPromptAssociation), completedPrompts: arrayOf(formPromptAssociation)},
)

const testResult = record({test: urn, type: enumOf('SUCCESS', 'FAILURE')}, {testDefinitionMd5: str, lastComputed: auditStamp})

const incidentSummaryDetails = record({urn, type: str, createdAt: long}, {resolvedAt: long, priority: int})

export const COMMON_ASPECTS: AspectSpec[] = [
  versioned('ownership', 'com.linkedin.common.Ownership', record(
    {owners: arrayOf(owner)},
    {ownerTypes: mapOf(arrayOf(urn)), lastModified: auditStamp},
  )),
  versioned('status', 'com.linkedin.common.Status', record({}, {removed: bool})),
  versioned('globalTags', 'com.linkedin.common.GlobalTags', globalTags),
  versioned('glossaryTerms', 'com.linkedin.common.GlossaryTerms', glossaryTerms),
  versioned('institutionalMemory', 'com.linkedin.common.InstitutionalMemory', record({
    elements: arrayOf(record(
      {url, description: str, createStamp: auditStamp},
      {updateStamp: auditStamp, settings: record({}, {showInAssetPreview: bool})},
    )),
  })),
  versioned('browsePaths', 'com.linkedin.common.BrowsePaths', record({paths: arrayOf(str)})),
  versioned('browsePathsV2', 'com.linkedin.common.BrowsePathsV2', record({
    path: arrayOf(record({id: str}, {urn})),
  })),
  versioned('domains', 'com.linkedin.domain.Domains', record({domains: arrayOf(urn)})),
  versioned('deprecation', 'com.linkedin.common.Deprecation', record(
    {deprecated: bool, note: str, actor: urn},
    {decommissionTime: long, replacement: urn},
  )),
  versioned('dataPlatformInstance', 'com.linkedin.common.DataPlatformInstance', record({platform: urn}, {instance: urn})),
  versioned('subTypes', 'com.linkedin.common.SubTypes', record({typeNames: arrayOf(str)})),
  versioned('container', 'com.linkedin.container.Container', record({container: urn})),
  versioned('siblings', 'com.linkedin.common.Siblings', record({siblings: arrayOf(urn), primary: bool})),
  versioned('embed', 'com.linkedin.common.Embed', record({}, {renderUrl: str})),
  versioned('access', 'com.linkedin.common.Access', record({}, {roles: arrayOf(record({urn}))})),
  versioned('origin', 'com.linkedin.common.Origin', record({type: enumOf('NATIVE', 'EXTERNAL')}, {externalType: str})),
  versioned('structuredProperties', 'com.linkedin.structured.StructuredProperties', record({
    properties: arrayOf(record(
      {propertyUrn: urn, values: arrayOf(primitiveUnion({string: str, double: num}))},
      {created: auditStamp, lastModified: auditStamp, attribution},
    )),
  })),
  versioned('forms', 'com.linkedin.common.Forms', record(
    {incompleteForms: arrayOf(formAssociation), completedForms: arrayOf(formAssociation)},
    {verifications: arrayOf(record({form: urn}, {lastModified: auditStamp}))},
  )),
  versioned('incidentsSummary', 'com.linkedin.common.IncidentsSummary', record({}, {
    resolvedIncidents: arrayOf(urn),
    activeIncidents: arrayOf(urn),
    resolvedIncidentDetails: arrayOf(incidentSummaryDetails),
    activeIncidentDetails: arrayOf(incidentSummaryDetails),
  })),
  versioned('testResults', 'com.linkedin.test.TestResults', record({
    failing: arrayOf(testResult),
    passing: arrayOf(testResult),
  })),
]
