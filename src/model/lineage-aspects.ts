/**
 * The aspects lineage is read from, as DataHub reads it: dataset upstreams (`upstreamLineage`),
 * a data job's inputs and outputs (`dataJobInputOutput`), a chart's inputs (`chartInfo`) and a
 * dashboard's charts and datasets (`dashboardInfo`), an ML feature's or primary key's sources and an
 * ML model's or model group's training jobs (their properties aspects). Stores keep an index of the
 * urns these aspects mention, so that walking lineage downstream never scans the catalog.
 */
export const LINEAGE_ASPECTS: readonly string[] = [
  'upstreamLineage', 'dataJobInputOutput', 'chartInfo', 'dashboardInfo',
  'mlFeatureProperties', 'mlPrimaryKeyProperties', 'mlModelProperties', 'mlModelGroupProperties',
]

const LINEAGE = new Set(LINEAGE_ASPECTS)

export const isLineageAspect = (aspectName: string): boolean => LINEAGE.has(aspectName)
