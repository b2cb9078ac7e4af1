/**
 * BI assets: `com.linkedin.dashboard`, `com.linkedin.chart` and `com.linkedin.notebook`
 * versioned aspects (their usage statistics are in timeseries.ts).
 */
import {
  arrayOf, auditStamp, changeAuditStamps, customProperties, edge, editableDescription, enumOf, externalReference,
  long, primitiveUnion, record, str, url, urn, versioned,
} from './common.js'
import type {AspectSpec} from './types.js'

const accessLevel = enumOf('PUBLIC', 'PRIVATE')

const cellBase = {cellId: str, changeAuditStamps}

export const DASHBOARD_ASPECTS: AspectSpec[] = [
  versioned('dashboardInfo', 'com.linkedin.dashboard.DashboardInfo', record(
    {title: str, description: str, lastModified: changeAuditStamps},
    {
      ...customProperties,
      ...externalReference,
      charts: arrayOf(urn),
      chartEdges: arrayOf(edge),
      datasets: arrayOf(urn),
      datasetEdges: arrayOf(edge),
      dashboards: arrayOf(edge),
      dashboardUrl: url,
      access: accessLevel,
      lastRefreshed: long,
    },
  )),
  versioned('editableDashboardProperties', 'com.linkedin.dashboard.EditableDashboardProperties', editableDescription),
  versioned('chartInfo', 'com.linkedin.chart.ChartInfo', record(
    {title: str, description: str, lastModified: changeAuditStamps},
    {
      ...customProperties,
      ...externalReference,
      chartUrl: url,
      // array[union[DatasetUrn]]: avro-JSON and the Python SDK write bare urns.
      inputs: arrayOf(primitiveUnion({'com.linkedin.common.DatasetUrn': urn, string: urn})),
      inputEdges: arrayOf(edge),
      type: enumOf('BAR', 'PIE', 'SCATTER', 'TABLE', 'TEXT', 'LINE', 'AREA', 'HISTOGRAM', 'BOX_PLOT', 'WORD_CLOUD', 'COHORT'),
      access: accessLevel,
      lastRefreshed: long,
    },
  )),
  versioned('editableChartProperties', 'com.linkedin.chart.EditableChartProperties', editableDescription),
  versioned('chartQuery', 'com.linkedin.chart.ChartQuery', record({rawQuery: str, type: enumOf('LOOKML', 'SQL')})),
  versioned('notebookInfo', 'com.linkedin.notebook.NotebookInfo', record(
    {title: str, changeAuditStamps},
    {...customProperties, ...externalReference, description: str},
  )),
  versioned('notebookContent', 'com.linkedin.notebook.NotebookContent', record({}, {
    cells: arrayOf(record(
      {type: enumOf('TEXT_CELL', 'QUERY_CELL', 'CHART_CELL')},
      {
        textCell: record({...cellBase, text: str}, {cellTitle: str}),
        queryCell: record({...cellBase, rawQuery: str}, {cellTitle: str, lastExecuted: auditStamp}),
        chartCell: record(cellBase, {cellTitle: str}),
      },
    )),
  })),
  versioned('editableNotebookProperties', 'com.linkedin.notebook.EditableNotebookProperties', editableDescription),
]
