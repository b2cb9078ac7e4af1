/**
 * The timeseries aspects (profiles, usage, operations, run events, ingestion summaries): each
 * is TimeseriesAspectBase (`timestampMillis`, granularity, partition) plus its own fields.
 */
import {
  arrayOf, bytes, customProperties, enumOf, externalReference, int, long, mapOf, num, record, str, timeseries,
  timeseriesBase, timeseriesBaseOptional, urn,
} from './common.js'
import {jobStatus} from './datajob.js'
import type {AspectSpec, JsonSchema} from './types.js'

type Props = Record<string, JsonSchema>

/** A record that includes TimeseriesAspectBase. */
function event(required: Props, optional: Props = {}): JsonSchema {
  return record({...timeseriesBase, ...required}, {...timeseriesBaseOptional, ...optional})
}

const fieldProfile = record({fieldPath: str}, {
  uniqueCount: long,
  uniqueProportion: num,
  nullCount: long,
  nullProportion: num,
  min: str,
  max: str,
  mean: str,
  median: str,
  stdev: str,
  quantiles: arrayOf(record({quantile: str, value: str})),
  distinctValueFrequencies: arrayOf(record({value: str, frequency: long})),
  histogram: record({boundaries: arrayOf(str), heights: arrayOf(num)}),
  sampleValues: arrayOf(str),
})

const assertionResult = record(
  {type: enumOf('INIT', 'SUCCESS', 'FAILURE', 'ERROR')},
  {
    severity: enumOf('LOW', 'MEDIUM', 'HIGH'),
    rowCount: long,
    missingCount: long,
    unexpectedCount: long,
    actualAggValue: num,
    nativeResults: mapOf(str),
    externalUrl: str,
    error: record(
      {
        type: enumOf(
          'SOURCE_CONNECTION_ERROR', 'SOURCE_QUERY_FAILED', 'INSUFFICIENT_DATA', 'INVALID_PARAMETERS',
          'INVALID_SOURCE_TYPE', 'UNSUPPORTED_PLATFORM', 'CUSTOM_SQL_ERROR', 'FIELD_ASSERTION_ERROR', 'UNKNOWN_ERROR',
        ),
      },
      {properties: mapOf(str)},
    ),
  },
)

export const TIMESERIES_ASPECTS: AspectSpec[] = [
  timeseries('datasetProfile', 'com.linkedin.dataset.DatasetProfile', event({}, {
    rowCount: long,
    columnCount: long,
    fieldProfiles: arrayOf(fieldProfile),
    sizeInBytes: long,
  })),
  timeseries('datasetUsageStatistics', 'com.linkedin.dataset.DatasetUsageStatistics', event({}, {
    uniqueUserCount: int,
    totalSqlQueries: int,
    topSqlQueries: arrayOf(str),
    userCounts: arrayOf(record({user: urn, count: int}, {userEmail: str})),
    fieldCounts: arrayOf(record({fieldPath: str, count: int})),
  })),
  timeseries('operation', 'com.linkedin.common.Operation', event(
    {
      operationType: enumOf('INSERT', 'UPDATE', 'DELETE', 'CREATE', 'ALTER', 'DROP', 'CUSTOM', 'UNKNOWN'),
      lastUpdatedTimestamp: long,
    },
    {
      actor: urn,
      customOperationType: str,
      numAffectedRows: long,
      affectedDatasets: arrayOf(urn),
      sourceType: enumOf('DATA_PROCESS', 'DATA_PLATFORM', 'MANUAL'),
      customProperties: mapOf(str),
      queries: arrayOf(urn),
    },
  )),
  timeseries('dashboardUsageStatistics', 'com.linkedin.dashboard.DashboardUsageStatistics', event({}, {
    viewsCount: int,
    executionsCount: int,
    uniqueUserCount: int,
    userCounts: arrayOf(record({user: urn}, {viewsCount: int, executionsCount: int, usageCount: int, userEmail: str})),
    favoritesCount: int,
    lastViewedAt: long,
  })),
  timeseries('chartUsageStatistics', 'com.linkedin.chart.ChartUsageStatistics', event({}, {
    viewsCount: int,
    uniqueUserCount: int,
    userCounts: arrayOf(record({user: urn}, {viewsCount: int})),
  })),
  timeseries('assertionRunEvent', 'com.linkedin.assertion.AssertionRunEvent', event(
    {runId: str, assertionUrn: urn, asserteeUrn: urn, status: enumOf('COMPLETE')},
    {
      batchSpec: record({}, {...customProperties, nativeBatchId: str, query: str, limit: int}),
      result: assertionResult,
      runtimeContext: mapOf(str),
    },
  )),
  timeseries('dataProcessInstanceRunEvent', 'com.linkedin.dataprocess.DataProcessInstanceRunEvent', event(
    {status: enumOf('STARTED', 'COMPLETE')},
    {
      ...externalReference,
      attempt: int,
      result: record({
        type: enumOf('SUCCESS', 'FAILURE', 'SKIPPED', 'UP_FOR_RETRY'),
        nativeResultType: str,
      }),
      durationMillis: long,
    },
  )),
  timeseries('datahubIngestionRunSummary', 'com.linkedin.datajob.datahub.DatahubIngestionRunSummary', event(
    {pipelineName: str, platformInstanceId: str, runId: str, runStatus: jobStatus},
    {
      numWorkUnitsCommitted: long,
      numWorkUnitsCreated: long,
      numEvents: long,
      numEntities: long,
      numAspects: long,
      numSourceAPICalls: long,
      totalLatencySourceAPICalls: long,
      numSinkAPICalls: long,
      totalLatencySinkAPICalls: long,
      numWarnings: long,
      numErrors: long,
      numEntitiesSkipped: long,
      config: str,
      custom_summary: str,
      softwareVersion: str,
      systemHostName: str,
      operatingSystemName: str,
      numProcessors: int,
      totalMemory: long,
      availableMemory: long,
    },
  )),
  timeseries('datahubIngestionCheckpoint', 'com.linkedin.datajob.datahub.DatahubIngestionCheckpoint', event({
    pipelineName: str,
    platformInstanceId: str,
    config: str,
    state: record({formatVersion: str, serde: str}, {payload: bytes}),
    runId: str,
  })),
]
