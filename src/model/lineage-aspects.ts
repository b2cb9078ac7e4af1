/**
 * The aspects lineage is read from, as DataHub reads it: dataset upstreams (`upstreamLineage`),
 * a data job's inputs and outputs (`dataJobInputOutput`), a chart's inputs (`chartInfo`) and a
 * dashboard's charts and datasets (`dashboardInfo`). Stores keep an index of the urns these
 * aspects mention, so that walking lineage downstream never scans the catalog.
 */
export const LINEAGE_ASPECTS: readonly string[] = ['upstreamLineage', 'dataJobInputOutput', 'chartInfo', 'dashboardInfo']

const LINEAGE = new Set(LINEAGE_ASPECTS)

export const isLineageAspect = (aspectName: string): boolean => LINEAGE.has(aspectName)
