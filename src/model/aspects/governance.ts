/**
 * Newer entity types of DataHub's registry that its ingestion files carry: structured properties
 * and their data/entity types, forms, documents, platform resources, ML model deployments; and
 * the newer aspects of older entities (data transform logic, query usage, version properties,
 * training runs, partition summaries). Field names and optionality follow DataHub's PDL.
 */
import {
  arrayOf, attribution, auditStamp, bool, customProperties, edge, enumOf, externalReference, long, mapOf, num,
  primitiveUnion, record, str, timeseries, timeseriesBase, timeseriesBaseOptional, urn, versioned,
} from './common.js'
import type {AspectSpec} from './types.js'

const queryStatement = record({value: str}, {language: enumOf('SQL', 'UNKNOWN')})
const versionTag = record({}, {versionTag: str, metadataAttribution: attribution})
const criterion = record({field: str}, {value: str, values: arrayOf(str), condition: str, negated: bool})
const filter = record({}, {or: arrayOf(record({and: arrayOf(criterion)})), criteria: arrayOf(criterion)})
const partitionSummary = record({partition: str}, {createdTime: long, lastModifiedTime: long})
const mlParam = record({name: str}, {description: str, value: str, createdAt: long})

export const GOVERNANCE_ASPECTS: AspectSpec[] = [
  versioned('propertyDefinition', 'com.linkedin.structured.StructuredPropertyDefinition', record(
    {qualifiedName: str, valueType: urn, entityTypes: arrayOf(urn)},
    {
      displayName: str,
      typeQualifier: mapOf(arrayOf(str)),
      allowedValues: arrayOf(record({value: primitiveUnion({string: str, double: num})}, {description: str})),
      cardinality: enumOf('SINGLE', 'MULTIPLE'),
      description: str,
      immutable: bool,
      filterStatus: enumOf('ENABLED', 'DISABLED'),
      version: str,
      created: auditStamp,
      lastModified: auditStamp,
    },
  )),
  versioned('structuredPropertySettings', 'com.linkedin.structured.StructuredPropertySettings', record({}, {
    isHidden: bool, showInSearchFilters: bool, showInAssetSummary: bool, hideInAssetSummaryWhenEmpty: bool, showAsAssetBadge: bool, showInColumnsTable: bool, lastModified: auditStamp,
  })),
  versioned('dataTypeInfo', 'com.linkedin.datatype.DataTypeInfo', record({qualifiedName: str}, {displayName: str, description: str})),
  versioned('entityTypeInfo', 'com.linkedin.entitytype.EntityTypeInfo', record({qualifiedName: str}, {displayName: str, description: str})),
  versioned('formInfo', 'com.linkedin.form.FormInfo', record({name: str}, {
    description: str,
    type: enumOf('COMPLETION', 'VERIFICATION'),
    prompts: arrayOf(record({id: str, title: str, type: enumOf('STRUCTURED_PROPERTY', 'FIELDS_STRUCTURED_PROPERTY')}, {
      description: str,
      structuredPropertyParams: record({urn}),
      required: bool,
    })),
    actors: record({}, {owners: bool, users: arrayOf(urn), groups: arrayOf(urn)}),
    verification: record({}, {type: urn}),
  })),
  versioned('dynamicFormAssignment', 'com.linkedin.form.DynamicFormAssignment', record({filter})),
  versioned('documentInfo', 'com.linkedin.knowledge.DocumentInfo', record({}, {
    ...customProperties,
    title: str,
    subType: str,
    source: record({sourceType: enumOf('NATIVE', 'EXTERNAL')}, {externalUrl: str, externalId: str}),
    status: record({state: enumOf('UNPUBLISHED', 'PUBLISHED')}),
    contents: record({text: str}),
    created: auditStamp,
    lastModified: auditStamp,
    relatedAssets: arrayOf(record({asset: urn})),
    relatedDocuments: arrayOf(record({document: urn})),
    parentDocument: record({document: urn}),
  })),
  versioned('documentSettings', 'com.linkedin.knowledge.DocumentSettings', record({}, {showInGlobalContext: bool, lastModified: auditStamp})),
  versioned('platformResourceInfo', 'com.linkedin.platformresource.PlatformResourceInfo', record({resourceType: str, primaryKey: str}, {
    secondaryKeys: arrayOf(str),
    value: record({blob: str}, {contentType: str, schemaType: enumOf('AVRO', 'PROTOBUF', 'PEGASUS', 'THRIFT', 'JSON', 'NONE'), schemaRef: str}),
  })),
  versioned('mlModelDeploymentProperties', 'com.linkedin.ml.metadata.MLModelDeploymentProperties', record({}, {
    ...customProperties,
    ...externalReference,
    description: str,
    createdAt: long,
    version: versionTag,
    status: enumOf('OUT_OF_SERVICE', 'CREATING', 'UPDATING', 'ROLLING_BACK', 'IN_SERVICE', 'DELETING', 'FAILED', 'UNKNOWN'),
  })),
  versioned('dataTransformLogic', 'com.linkedin.common.DataTransformLogic', record({transforms: arrayOf(record({}, {queryStatement}))})),
  timeseries('queryUsageStatistics', 'com.linkedin.query.QueryUsageStatistics', record(timeseriesBase, {
    ...timeseriesBaseOptional,
    queryCount: long,
    queryCost: num,
    lastExecutedAt: long,
    uniqueUserCount: long,
    userCounts: arrayOf(record({user: urn}, {count: long, userEmail: str})),
  })),
  versioned('versionProperties', 'com.linkedin.common.VersionProperties', record({versionSet: urn, version: versionTag, sortId: str}, {
    aliases: arrayOf(versionTag),
    comment: str,
    versioningScheme: enumOf('LEXICOGRAPHIC_STRING', 'ALPHANUMERIC_GENERATED_BY_DATAHUB'),
    sourceCreatedTimestamp: auditStamp,
    metadataCreatedTimestamp: auditStamp,
    isLatest: bool,
  })),
  versioned('mlTrainingRunProperties', 'com.linkedin.ml.metadata.MLTrainingRunProperties', record({}, {
    ...customProperties,
    ...externalReference,
    id: str,
    outputUrls: arrayOf(str),
    hyperParams: arrayOf(mlParam),
    trainingMetrics: arrayOf(mlParam),
  })),
  versioned('partitionsSummary', 'com.linkedin.dataset.PartitionsSummary', record({}, {minPartition: partitionSummary, maxPartition: partitionSummary})),
  versioned('dataProcessInstanceEdges', 'com.linkedin.dataprocess.DataProcessInstanceEdges', record({}, {inputEdges: arrayOf(edge), outputEdges: arrayOf(edge)})),
]
