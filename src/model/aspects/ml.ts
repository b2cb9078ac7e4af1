/**
 * Machine learning (`com.linkedin.ml.metadata`): models, groups, features, feature tables and
 * primary keys, the model-card aspects, plus `cost`, which only ML models accept.
 */
import {
  arrayOf, attribution, bool, customProperties, enumOf, externalReference, int, long, mapOf, num, primitiveUnion,
  record, str, timeStamp, url, urn, versioned,
} from './common.js'
import type {AspectSpec} from './types.js'

const M = 'com.linkedin.ml.metadata.'

const versionTag = record({}, {versionTag: str, metadataAttribution: attribution})

const mlFeatureDataType = enumOf(
  'USELESS', 'NOMINAL', 'ORDINAL', 'BINARY', 'COUNT', 'TIME', 'INTERVAL', 'IMAGE', 'VIDEO', 'AUDIO', 'TEXT',
  'MAP', 'SEQUENCE', 'SET', 'CONTINUOUS', 'BYTE', 'UNKNOWN',
)

/** MLHyperParam and MLMetric share this shape. */
const namedValue = record({name: str}, {description: str, value: str, createdAt: long})

const baseData = record({dataset: urn}, {motivation: str, preProcessing: arrayOf(str)})

const factors = record({}, {groups: arrayOf(str), instrumentation: arrayOf(str), environment: arrayOf(str)})

// ResultsType = union[string]
const results = primitiveUnion({string: str})

const description = record({}, {description: str})

export const ML_ASPECTS: AspectSpec[] = [
  versioned('mlModelProperties', `${M}MLModelProperties`, record({}, {
    ...customProperties,
    ...externalReference,
    name: str,
    description: str,
    date: long,
    created: timeStamp,
    lastModified: timeStamp,
    version: versionTag,
    type: str,
    hyperParameters: mapOf(primitiveUnion({string: str, int, float: num, double: num, boolean: bool})),
    hyperParams: arrayOf(namedValue),
    trainingMetrics: arrayOf(namedValue),
    onlineMetrics: arrayOf(namedValue),
    mlFeatures: arrayOf(urn),
    tags: arrayOf(str),
    deployments: arrayOf(urn),
    trainingJobs: arrayOf(urn),
    downstreamJobs: arrayOf(urn),
    groups: arrayOf(urn),
  })),
  versioned('editableMLModelProperties', `${M}EditableMLModelProperties`, description),
  versioned('intendedUse', `${M}IntendedUse`, record({}, {
    primaryUses: arrayOf(str),
    primaryUsers: arrayOf(enumOf('ENTERPRISE', 'HOBBY', 'ENTERTAINMENT')),
    outOfScopeUses: arrayOf(str),
  })),
  versioned('mlModelFactorPrompts', `${M}MLModelFactorPrompts`, record({}, {
    relevantFactors: arrayOf(factors),
    evaluationFactors: arrayOf(factors),
  })),
  versioned('mlModelMetrics', `${M}Metrics`, record({}, {
    performanceMeasures: arrayOf(str),
    decisionThreshold: arrayOf(str),
  })),
  versioned('mlModelEvaluationData', `${M}EvaluationData`, record({evaluationData: arrayOf(baseData)})),
  versioned('mlModelTrainingData', `${M}TrainingData`, record({trainingData: arrayOf(baseData)})),
  versioned('mlModelQuantitativeAnalyses', `${M}QuantitativeAnalyses`, record({}, {
    unitaryResults: results,
    intersectionalResults: results,
  })),
  versioned('mlModelEthicalConsiderations', `${M}EthicalConsiderations`, record({}, {
    data: arrayOf(str),
    humanLife: arrayOf(str),
    mitigations: arrayOf(str),
    risksAndHarms: arrayOf(str),
    useCases: arrayOf(str),
  })),
  versioned('mlModelCaveatsAndRecommendations', `${M}CaveatsAndRecommendations`, record({}, {
    caveats: record({}, {needsFurtherTesting: bool, caveatDescription: str, groupsNotRepresented: arrayOf(str)}),
    recommendations: str,
    idealDatasetCharacteristics: arrayOf(str),
  })),
  versioned('sourceCode', `${M}SourceCode`, record({
    sourceCode: arrayOf(record({
      type: enumOf('ML_MODEL_SOURCE_CODE', 'TRAINING_PIPELINE_SOURCE_CODE', 'EVALUATION_PIPELINE_SOURCE_CODE'),
      sourceCodeUrl: url,
    })),
  })),
  versioned('cost', 'com.linkedin.common.Cost', record({
    costType: enumOf('ORG_COST_TYPE'),
    // CostValue = union[costId: double, costCode: string]: Pegasus keys the member by its alias
    // ({"costCode": "x"}); avro-JSON turns aliased unions into a record that also names the
    // member in `fieldDiscriminator`.
    cost: {
      anyOf: [
        {...record({}, {costId: num, costCode: str}), minProperties: 1, maxProperties: 1},
        record({fieldDiscriminator: enumOf('costId', 'costCode')}, {costId: num, costCode: str}),
      ],
    },
  })),
  versioned('mlModelGroupProperties', `${M}MLModelGroupProperties`, record({}, {
    ...customProperties,
    name: str,
    description: str,
    createdAt: long,
    created: timeStamp,
    lastModified: timeStamp,
    version: versionTag,
    trainingJobs: arrayOf(urn),
    downstreamJobs: arrayOf(urn),
  })),
  versioned('editableMLModelGroupProperties', `${M}EditableMLModelGroupProperties`, description),
  versioned('mlFeatureProperties', `${M}MLFeatureProperties`, record({}, {
    ...customProperties,
    description: str,
    dataType: mlFeatureDataType,
    version: versionTag,
    sources: arrayOf(urn),
  })),
  versioned('editableMlFeatureProperties', `${M}EditableMLFeatureProperties`, description),
  versioned('mlFeatureTableProperties', `${M}MLFeatureTableProperties`, record({}, {
    ...customProperties,
    description: str,
    mlFeatures: arrayOf(urn),
    mlPrimaryKeys: arrayOf(urn),
  })),
  versioned('editableMlFeatureTableProperties', `${M}EditableMLFeatureTableProperties`, description),
  versioned('mlPrimaryKeyProperties', `${M}MLPrimaryKeyProperties`, record(
    {sources: arrayOf(urn)},
    {...customProperties, description: str, dataType: mlFeatureDataType, version: versionTag},
  )),
  versioned('editableMlPrimaryKeyProperties', `${M}EditableMLPrimaryKeyProperties`, description),
]
