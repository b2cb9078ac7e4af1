/**
 * `com.linkedin.assertion`: assertionInfo and the per-type definitions it carries (dataset,
 * freshness, volume, SQL, field, schema, custom). Run results are in timeseries.ts.
 */
import {
  auditStamp, arrayOf, bool, customProperties, enumOf, externalReference, long, mapOf, record, str, timeWindowSize,
  urn, versioned,
} from './common.js'
import {schemaMetadata} from './schema.js'
import type {AspectSpec} from './types.js'

const operator = enumOf(
  'BETWEEN', 'LESS_THAN', 'LESS_THAN_OR_EQUAL_TO', 'GREATER_THAN', 'GREATER_THAN_OR_EQUAL_TO', 'EQUAL_TO',
  'NOT_EQUAL_TO', 'NULL', 'NOT_NULL', 'CONTAIN', 'END_WITH', 'START_WITH', 'REGEX_MATCH', 'IN', 'NOT_IN',
  'IS_TRUE', 'IS_FALSE', '_NATIVE_',
)

const aggregation = enumOf(
  'ROW_COUNT', 'COLUMNS', 'COLUMN_COUNT', 'IDENTITY', 'MEAN', 'MEDIAN', 'UNIQUE_COUNT', 'UNIQUE_PROPORTION',
  'UNIQUE_PROPOTION', 'NULL_COUNT', 'NULL_PROPORTION', 'STDDEV', 'MIN', 'MAX', 'SUM', '_NATIVE_',
)

const parameter = record({value: str, type: enumOf('STRING', 'NUMBER', 'LIST', 'SET', 'UNKNOWN')})
const parameters = record({}, {value: parameter, maxValue: parameter, minValue: parameter})

const changeType = enumOf('ABSOLUTE', 'PERCENTAGE')
const datasetFilter = record({type: enumOf('SQL')}, {sql: str})
const schemaFieldSpec = record({path: str, type: str, nativeType: str})

/** Operator plus parameters: the comparison most assertion kinds end with. */
const comparison = {operator, parameters}

const segment = record(
  {field: schemaFieldSpec},
  {
    transformer: record(
      {
        type: enumOf(
          'TIMESTAMP_MS_TO_MINUTE', 'TIMESTAMP_MS_TO_HOUR', 'TIMESTAMP_MS_TO_DATE', 'TIMESTAMP_MS_TO_MONTH',
          'TIMESTAMP_MS_TO_YEAR', 'FLOOR', 'CEILING', 'NATIVE',
        ),
      },
      {nativeType: str},
    ),
  },
)

const datasetAssertion = record(
  {dataset: urn, scope: enumOf('DATASET_COLUMN', 'DATASET_ROWS', 'DATASET_STORAGE_SIZE', 'DATASET_SCHEMA', 'UNKNOWN'), operator},
  {fields: arrayOf(urn), aggregation, parameters, nativeType: str, nativeParameters: mapOf(str), logic: str},
)

const freshnessAssertion = record(
  {
    type: enumOf('DATASET_CHANGE', 'DATA_JOB_RUN'),
    entity: urn,
    schedule: record(
      {type: enumOf('CRON', 'FIXED_INTERVAL', 'SINCE_THE_LAST_CHECK')},
      {
        cron: record({cron: str, timezone: str}, {windowStartOffsetMs: long}),
        fixedInterval: timeWindowSize,
      },
    ),
  },
  {filter: datasetFilter},
)

const volumeAssertion = record(
  {
    type: enumOf('ROW_COUNT_TOTAL', 'ROW_COUNT_CHANGE', 'INCREMENTING_SEGMENT_ROW_COUNT_TOTAL', 'INCREMENTING_SEGMENT_ROW_COUNT_CHANGE'),
    entity: urn,
  },
  {
    rowCountTotal: record(comparison),
    rowCountChange: record({type: changeType, ...comparison}),
    incrementingSegmentRowCountTotal: record({segment, ...comparison}),
    incrementingSegmentRowCountChange: record({segment, type: changeType, ...comparison}),
    filter: datasetFilter,
  },
)

const sqlAssertion = record(
  {type: enumOf('METRIC', 'METRIC_CHANGE'), entity: urn, statement: str, ...comparison},
  {changeType},
)

const fieldAssertion = record(
  {type: enumOf('FIELD_VALUES', 'FIELD_METRIC'), entity: urn},
  {
    fieldValuesAssertion: record(
      {field: schemaFieldSpec, operator, failThreshold: record({}, {type: enumOf('COUNT', 'PERCENTAGE'), value: long})},
      {transform: record({type: enumOf('LENGTH')}), parameters, excludeNulls: bool},
    ),
    fieldMetricAssertion: record(
      {
        field: schemaFieldSpec,
        metric: enumOf(
          'UNIQUE_COUNT', 'UNIQUE_PERCENTAGE', 'NULL_COUNT', 'NULL_PERCENTAGE', 'MIN', 'MAX', 'MEAN', 'MEDIAN',
          'STDDEV', 'NEGATIVE_COUNT', 'NEGATIVE_PERCENTAGE', 'ZERO_COUNT', 'ZERO_PERCENTAGE', 'MIN_LENGTH',
          'MAX_LENGTH', 'EMPTY_COUNT', 'EMPTY_PERCENTAGE',
        ),
        operator,
      },
      {parameters},
    ),
    filter: datasetFilter,
  },
)

const schemaAssertion = record(
  {entity: urn, schema: schemaMetadata},
  {compatibility: enumOf('EXACT_MATCH', 'SUPERSET', 'SUBSET')},
)

const customAssertion = record({type: str, entity: urn}, {field: urn, logic: str})

export const ASSERTION_ASPECTS: AspectSpec[] = [
  versioned('assertionInfo', 'com.linkedin.assertion.AssertionInfo', record(
    {type: enumOf('DATASET', 'FRESHNESS', 'VOLUME', 'SQL', 'FIELD', 'DATA_SCHEMA', 'CUSTOM')},
    {
      ...customProperties,
      ...externalReference,
      datasetAssertion,
      freshnessAssertion,
      volumeAssertion,
      sqlAssertion,
      fieldAssertion,
      schemaAssertion,
      customAssertion,
      source: record({type: enumOf('NATIVE', 'EXTERNAL', 'INFERRED')}, {created: auditStamp}),
      lastUpdated: auditStamp,
      description: str,
      note: record({content: str, lastModified: auditStamp}),
    },
  )),
]
