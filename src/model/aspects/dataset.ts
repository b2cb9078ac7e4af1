/**
 * `com.linkedin.dataset` versioned aspects: properties, lineage (current and legacy), view
 * definitions and the dataset-only deprecation. Dataset timeseries aspects live in timeseries.ts.
 */
import {
  arrayOf, auditStamp, bool, changeAuditFields, customProperties, enumOf, externalReference, long, mapOf,
  num, primitiveUnion, record, str, timeStamp, union, urn, versioned,
} from './common.js'
import type {AspectSpec} from './types.js'

const D = 'com.linkedin.dataset.'

/** Shared with dataJobInputOutput. */
export const fineGrainedLineage = record(
  {
    upstreamType: enumOf('FIELD_SET', 'DATASET', 'NONE'),
    downstreamType: enumOf('FIELD', 'FIELD_SET'),
  },
  {upstreams: arrayOf(urn), downstreams: arrayOf(urn), transformOperation: str, confidenceScore: num, query: urn},
)

const upstream = record(
  {dataset: urn, type: enumOf('COPY', 'TRANSFORMED', 'VIEW')},
  {auditStamp, created: auditStamp, properties: mapOf(str), query: urn},
)

// Legacy field-level lineage (DatasetFieldMapping), superseded by fineGrainedLineages.
const fieldMapping = record({
  created: auditStamp,
  transformation: union({
    'com.linkedin.common.fieldtransformer.TransformationType': enumOf('BLACKBOX', 'IDENTITY'),
    'com.linkedin.common.fieldtransformer.UDFTransformer': record({udf: str}),
  }),
  // union[DatasetFieldUrn]: a bare urn in avro-JSON, keyed by the typeref name in Pegasus.
  sourceFields: arrayOf(primitiveUnion({'com.linkedin.common.DatasetFieldUrn': urn})),
  destinationField: urn,
})

export const DATASET_ASPECTS: AspectSpec[] = [
  versioned('datasetProperties', `${D}DatasetProperties`, record({}, {
    ...customProperties,
    ...externalReference,
    name: str,
    qualifiedName: str,
    description: str,
    uri: str,
    created: timeStamp,
    lastModified: timeStamp,
    tags: arrayOf(str),
  })),
  versioned('editableDatasetProperties', `${D}EditableDatasetProperties`, record({}, {
    ...changeAuditFields,
    description: str,
    name: str,
  })),
  versioned('datasetDeprecation', `${D}DatasetDeprecation`, record(
    {deprecated: bool, note: str},
    {decommissionTime: long, actor: urn},
  )),
  versioned('upstreamLineage', `${D}UpstreamLineage`, record(
    {upstreams: arrayOf(upstream)},
    {fineGrainedLineages: arrayOf(fineGrainedLineage)},
  )),
  versioned('datasetUpstreamLineage', `${D}DatasetUpstreamLineage`, record({fieldMappings: arrayOf(fieldMapping)})),
  versioned('viewProperties', `${D}ViewProperties`, record(
    {materialized: bool, viewLogic: str, viewLanguage: str},
    {formattedViewLogic: str},
  )),
]
