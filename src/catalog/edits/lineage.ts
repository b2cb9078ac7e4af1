/**
 * `updateLineage`: adds and removes lineage edges as DataHub's web app does, each edge written
 * into the aspect where DataHub keeps it, on the entity that holds it:
 *
 * | downstream | upstream        | aspect (on)                                   |
 * |------------|-----------------|-----------------------------------------------|
 * | dataset    | dataset         | upstreamLineage.upstreams (downstream)        |
 * | dataset    | dataJob         | dataJobInputOutput.outputDatasetEdges (job)    |
 * | chart      | dataset         | chartInfo.inputEdges (chart)                  |
 * | dashboard  | chart / dataset | dashboardInfo.chartEdges / datasetEdges       |
 * | dataJob    | dataset / job   | dataJobInputOutput.inputDatasetEdges / inputDatajobEdges |
 *
 * Every urn must exist; the actor needs EDIT_LINEAGE (or EDIT_ENTITY) on both ends of every
 * edge. All edges are written in one batch, or none.
 */
import {BadRequestError, NotFoundError} from '../../errors.js'
import type {Actor, Catalog} from '../catalog.js'
import {type EditSummary, summarize, typeOf} from './common.js'
import {type EditTx, runEdit} from './engine.js'

export interface LineageEdgeInput {
  upstreamUrn: string
  downstreamUrn: string
}

type Obj = Record<string, any>
type Edge = {destinationUrn: string; created?: Obj; lastModified?: Obj; [k: string]: unknown}

/** Where an edge lives: the entity holding it, its aspect, and the list inside the aspect. */
interface Placement {
  holder: string
  aspect: 'upstreamLineage' | 'dataJobInputOutput' | 'chartInfo' | 'dashboardInfo'
  list: string
  /** The urn written into the list. */
  target: string
}

function placement(e: LineageEdgeInput): Placement {
  const up = typeOf(e.upstreamUrn)
  const down = typeOf(e.downstreamUrn)
  if (!up) throw new BadRequestError(`Failed to update lineage: ${e.upstreamUrn} is not a valid urn`)
  if (!down) throw new BadRequestError(`Failed to update lineage: ${e.downstreamUrn} is not a valid urn`)
  if (e.upstreamUrn === e.downstreamUrn) throw new BadRequestError(`Failed to update lineage: ${e.upstreamUrn} cannot be its own upstream`)
  if (down === 'dataset' && up === 'dataset') return {holder: e.downstreamUrn, aspect: 'upstreamLineage', list: 'upstreams', target: e.upstreamUrn}
  if (down === 'dataset' && up === 'dataJob') return {holder: e.upstreamUrn, aspect: 'dataJobInputOutput', list: 'outputDatasetEdges', target: e.downstreamUrn}
  if (down === 'chart' && up === 'dataset') return {holder: e.downstreamUrn, aspect: 'chartInfo', list: 'inputEdges', target: e.upstreamUrn}
  if (down === 'dashboard' && up === 'chart') return {holder: e.downstreamUrn, aspect: 'dashboardInfo', list: 'chartEdges', target: e.upstreamUrn}
  if (down === 'dashboard' && up === 'dataset') return {holder: e.downstreamUrn, aspect: 'dashboardInfo', list: 'datasetEdges', target: e.upstreamUrn}
  if (down === 'dataJob' && up === 'dataset') return {holder: e.downstreamUrn, aspect: 'dataJobInputOutput', list: 'inputDatasetEdges', target: e.upstreamUrn}
  if (down === 'dataJob' && up === 'dataJob') return {holder: e.downstreamUrn, aspect: 'dataJobInputOutput', list: 'inputDatajobEdges', target: e.upstreamUrn}
  throw new BadRequestError(`Failed to update lineage: a ${down} cannot have a ${up} upstream (${e.upstreamUrn} → ${e.downstreamUrn})`)
}

/** The legacy urn list DataHub keeps beside each edge list (both are read by lineage). */
const LEGACY: Record<string, string | undefined> = {
  inputEdges: 'inputs',
  chartEdges: 'charts',
  datasetEdges: 'datasets',
  inputDatasetEdges: 'inputDatasets',
  outputDatasetEdges: 'outputDatasets',
  inputDatajobEdges: 'inputDatajobs',
}

async function current(tx: EditTx, p: Placement): Promise<Obj> {
  const v = await tx.aspect<Obj>(p.holder, p.aspect)
  if (v) return v
  if (p.aspect === 'upstreamLineage') return {upstreams: []}
  if (p.aspect === 'dataJobInputOutput') return {inputDatasets: [], outputDatasets: []}
  // chartInfo and dashboardInfo carry required fields (title, lastModified…) only a source knows.
  throw new BadRequestError(`Failed to update lineage: ${p.holder} has no ${p.aspect} yet; ingest it before adding lineage to it`)
}

function add(v: Obj, p: Placement, stamp: {time: number; actor: string}): void {
  if (p.aspect === 'upstreamLineage') {
    const ups: Obj[] = v.upstreams ?? []
    if (!ups.some((u) => u.dataset === p.target)) ups.push({dataset: p.target, type: 'TRANSFORMED', auditStamp: stamp, created: stamp})
    v.upstreams = ups
    return
  }
  const edges: Edge[] = v[p.list] ?? []
  const legacy = LEGACY[p.list]
  const inLegacy = legacy !== undefined && Array.isArray(v[legacy]) && (v[legacy] as string[]).includes(p.target)
  if (!inLegacy && !edges.some((e) => e.destinationUrn === p.target)) edges.push({destinationUrn: p.target, created: stamp, lastModified: stamp})
  v[p.list] = edges
}

function remove(v: Obj, p: Placement): void {
  if (p.aspect === 'upstreamLineage') {
    v.upstreams = (v.upstreams ?? []).filter((u: Obj) => u.dataset !== p.target)
    // Column edges that came from the removed upstream go with it.
    if (Array.isArray(v.fineGrainedLineages)) {
      const from = `urn:li:schemaField:(${p.target},`
      v.fineGrainedLineages = v.fineGrainedLineages.filter((f: Obj) => !(f.upstreams ?? []).some((u: string) => u.startsWith(from)))
    }
    return
  }
  if (Array.isArray(v[p.list])) v[p.list] = (v[p.list] as Edge[]).filter((e) => e.destinationUrn !== p.target)
  const legacy = LEGACY[p.list]
  if (legacy && Array.isArray(v[legacy])) v[legacy] = (v[legacy] as string[]).filter((u) => u !== p.target)
}

export async function updateLineage(catalog: Catalog, actor: Actor, input: {edgesToAdd: LineageEdgeInput[]; edgesToRemove: LineageEdgeInput[]}): Promise<EditSummary> {
  const adds = input.edgesToAdd.filter(Boolean).map((e) => ({e, p: placement(e)}))
  const removes = input.edgesToRemove.filter(Boolean).map((e) => ({e, p: placement(e)}))
  const all = [...adds, ...removes]
  const ends = [...new Set(all.flatMap(({e}) => [e.upstreamUrn, e.downstreamUrn]))]
  const holders = [...new Set(all.map(({p}) => p.holder))]
  const {writes} = await runEdit(catalog, actor, {
    authz: ends.map((resourceUrn) => ({resourceUrn, privileges: [['EDIT_ENTITY'], ['EDIT_LINEAGE']]})),
    unauthorizedMessage: 'Unauthorized to update lineage. Please contact your DataHub administrator.',
    locks: holders,
    build: async (tx) => {
      for (const u of ends) if (!(await tx.exists(u))) throw new NotFoundError(`Failed to update lineage: ${u} does not exist`)
      const values = new Map<string, Obj>()
      const valueOf = async (p: Placement) => {
        const key = `${p.holder}\u0000${p.aspect}`
        let v = values.get(key)
        if (!v) values.set(key, (v = await current(tx, p)))
        return v
      }
      for (const {p} of removes) if ((await tx.aspect(p.holder, p.aspect)) !== undefined || values.has(`${p.holder}\u0000${p.aspect}`)) remove(await valueOf(p), p)
      for (const {p} of adds) add(await valueOf(p), p, tx.stamp)
      for (const [key, v] of values) {
        const [holder, aspect] = key.split('\u0000') as [string, string]
        tx.put(holder, aspect, v)
      }
    },
  })
  return summarize(holders, writes)
}
