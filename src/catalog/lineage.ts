/**
 * Lineage as DataHub reads it: dataset → dataset through `upstreamLineage`, dataset ↔ data job
 * through `dataJobInputOutput`, dataset → chart through `chartInfo` inputs, chart/dataset →
 * dashboard through `dashboardInfo`, source → ML feature/primary key (`sources`), training job →
 * ML model/group (`trainingJobs`). A walk goes hop by hop (breadth first) and visits each
 * entity once; soft-deleted entities are left out unless asked for.
 *
 * Glossary:
 * - degree: hops from the start (1 = direct neighbour).
 * - relationship: DataHub's name for the edge (`DownstreamOf`, `Consumes`, `Produces`,
 *   `Contains`, `DerivedFrom`, `TrainedBy`).
 * - column edge: a `fineGrainedLineages` entry, upstream schema fields → downstream fields.
 *
 * Downstream edges are found through the store's index of references made by the lineage
 * aspects, so one hop costs what refers to that entity, never a pass over the catalog.
 */
import {LINEAGE_ASPECTS} from '../model/lineage-aspects.js'
import {type Catalog} from './catalog.js'

export type LineageDirection = 'UPSTREAM' | 'DOWNSTREAM'

export interface LineageHit {
  urn: string
  entityType: string
  degree: number
  relationship: string
  /** The urns from the start to this entity (start first, this entity last). */
  path: string[]
}

export interface ColumnEdge {
  upstreams: string[]
  downstreams: string[]
  transformOperation?: string
}

type Obj = Record<string, any>

const urnsOf = (list: unknown, key?: string): string[] =>
  Array.isArray(list) ? list.map((x) => (key ? (x as Obj)?.[key] : typeof x === 'string' ? x : (x as Obj)?.string)).filter((u): u is string => typeof u === 'string') : []

/** Direct upstream neighbours named in an entity's own aspects. */
function upstreamsIn(aspects: Record<string, Obj | undefined>): Array<{urn: string; relationship: string}> {
  const out: Array<{urn: string; relationship: string}> = []
  const ul = aspects.upstreamLineage
  for (const u of urnsOf(ul?.upstreams, 'dataset')) out.push({urn: u, relationship: 'DownstreamOf'})
  const io = aspects.dataJobInputOutput
  for (const u of [...urnsOf(io?.inputDatasets), ...urnsOf(io?.inputDatasetEdges, 'destinationUrn'), ...urnsOf(io?.inputDatajobs), ...urnsOf(io?.inputDatajobEdges, 'destinationUrn')]) out.push({urn: u, relationship: 'Consumes'})
  const ci = aspects.chartInfo
  for (const u of [...urnsOf(ci?.inputs), ...urnsOf(ci?.inputEdges, 'destinationUrn')]) out.push({urn: u, relationship: 'Consumes'})
  const di = aspects.dashboardInfo
  for (const u of [...urnsOf(di?.charts), ...urnsOf(di?.chartEdges, 'destinationUrn')]) out.push({urn: u, relationship: 'Contains'})
  for (const u of [...urnsOf(di?.datasets), ...urnsOf(di?.datasetEdges, 'destinationUrn')]) out.push({urn: u, relationship: 'Consumes'})
  // ML entities, as DataHub's lineage registry has them: features and keys derive from their
  // sources, models and groups are trained by jobs.
  for (const k of ['mlFeatureProperties', 'mlPrimaryKeyProperties']) for (const u of urnsOf(aspects[k]?.sources)) out.push({urn: u, relationship: 'DerivedFrom'})
  for (const k of ['mlModelProperties', 'mlModelGroupProperties']) for (const u of urnsOf(aspects[k]?.trainingJobs)) out.push({urn: u, relationship: 'TrainedBy'})
  return out
}

/** Datasets a job writes: downstream of the job. */
function outputsOf(aspects: Record<string, Obj | undefined>): string[] {
  const io = aspects.dataJobInputOutput
  return [...urnsOf(io?.outputDatasets), ...urnsOf(io?.outputDatasetEdges, 'destinationUrn')]
}

async function lineageAspects(catalog: Catalog, urn: string): Promise<Record<string, Obj | undefined> | null> {
  const e = await catalog.getEntity(urn, [...LINEAGE_ASPECTS, 'status'])
  if (!e) return null
  const out: Record<string, Obj | undefined> = {}
  for (const [name, a] of Object.entries(e.aspects)) out[name] = a.value as Obj
  return out
}

/** One hop from `urn`. */
export async function neighbours(catalog: Catalog, urn: string, direction: LineageDirection): Promise<Array<{urn: string; relationship: string}>> {
  const own = (await lineageAspects(catalog, urn)) ?? {}
  const out: Array<{urn: string; relationship: string}> = []
  // Only the lineage aspects: the stores index those, so a hop costs its neighbours.
  const refs = await catalog.referencesTo([urn], {aspects: LINEAGE_ASPECTS})
  if (direction === 'UPSTREAM') {
    out.push(...upstreamsIn(own))
    // Jobs that write this entity are upstream of it.
    for (const r of refs) {
      if (r.aspectName !== 'dataJobInputOutput') continue
      const other = await lineageAspects(catalog, r.urn)
      if (other && outputsOf(other).includes(urn)) out.push({urn: r.urn, relationship: 'Produces'})
    }
  } else {
    for (const u of outputsOf(own)) out.push({urn: u, relationship: 'Produces'})
    for (const r of refs) {
      if (!LINEAGE_ASPECTS.includes(r.aspectName)) continue
      const other = await lineageAspects(catalog, r.urn)
      const hit = other && upstreamsIn(other).find((x) => x.urn === urn)
      if (hit) out.push({urn: r.urn, relationship: hit.relationship})
    }
  }
  const seen = new Set<string>()
  return out.filter((x) => x.urn !== urn && !seen.has(x.urn) && (seen.add(x.urn), true))
}

/** Breadth-first walk up to `maxHops` (at least 1). */
export async function walkLineage(
  catalog: Catalog,
  start: string,
  direction: LineageDirection,
  maxHops: number,
  opts: {includeSoftDeleted?: boolean; excludeGhosts?: boolean} = {},
): Promise<LineageHit[]> {
  const hits: LineageHit[] = []
  const visited = new Set([start])
  let frontier: Array<{urn: string; path: string[]}> = [{urn: start, path: [start]}]
  for (let degree = 1; degree <= Math.max(1, maxHops) && frontier.length > 0; degree++) {
    const next: Array<{urn: string; path: string[]}> = []
    for (const f of frontier) {
      for (const n of await neighbours(catalog, f.urn, direction)) {
        if (visited.has(n.urn)) continue
        visited.add(n.urn)
        const e = await catalog.getEntity(n.urn, ['status'])
        const removed = (e?.aspects.status?.value as Obj | undefined)?.removed === true
        if (removed && !opts.includeSoftDeleted) continue
        // A ghost: named by an edge, never written (DataHub's lineage field leaves them out by default).
        if (e === null && opts.excludeGhosts) continue
        const path = [...f.path, n.urn]
        hits.push({urn: n.urn, entityType: n.urn.split(':')[2] ?? 'unknown', degree, relationship: n.relationship, path})
        next.push({urn: n.urn, path})
      }
    }
    frontier = next
  }
  return hits
}

/** Column-level edges recorded on an entity (its `fineGrainedLineages`). */
export async function columnEdges(catalog: Catalog, urn: string): Promise<ColumnEdge[]> {
  const ul = (await catalog.getEntity(urn, ['upstreamLineage']))?.aspects.upstreamLineage?.value as Obj | undefined
  return (Array.isArray(ul?.fineGrainedLineages) ? ul.fineGrainedLineages : []).map((f: Obj) => ({
    upstreams: Array.isArray(f.upstreams) ? f.upstreams : [],
    downstreams: Array.isArray(f.downstreams) ? f.downstreams : [],
    ...(typeof f.transformOperation === 'string' ? {transformOperation: f.transformOperation} : {}),
  }))
}
