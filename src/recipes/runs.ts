/**
 * The client side of ingestion runs: the `/runs` endpoints as typed calls, for
 * `ingest list-runs`, `ingest show` and `ingest rollback`.
 */
import type {MdcliClient} from '../client/client.js'
import type {AspectRowSummary, RollbackReport, RunListing} from '../catalog/runs.js'

export type {AspectRowSummary, RollbackReport, RunListing} from '../catalog/runs.js'

export async function fetchRuns(client: MdcliClient, opts: {start?: number; count?: number} = {}): Promise<RunListing[]> {
  const r = await client.call<{value: RunListing[]}>('POST', '/runs?action=list', {pageOffset: opts.start ?? 0, pageSize: opts.count ?? 100, includeSoft: false})
  return r.value
}

export async function fetchRunRows(client: MdcliClient, runId: string, opts: {start?: number; count?: number; includeAspect?: boolean} = {}): Promise<AspectRowSummary[]> {
  const r = await client.call<{value: AspectRowSummary[]}>('POST', '/runs?action=describe', {
    runId,
    start: opts.start ?? 0,
    count: opts.count ?? 100,
    includeSoft: false,
    includeAspect: opts.includeAspect ?? false,
  })
  return r.value
}

/**
 * Whether the server knows the run: it wrote or observed a row, or `list-runs` lists it (a run
 * rolled back may have no rows left). The runs endpoint, like DataHub's, describes an unknown run
 * as an empty page, which alone cannot tell "no such run" from "past the last row".
 */
export async function runExists(client: MdcliClient, runId: string): Promise<boolean> {
  if ((await fetchRunRows(client, runId, {start: 0, count: 1})).length > 0) return true
  const pageSize = 1000
  for (let start = 0; ; start += pageSize) {
    const page = await fetchRuns(client, {start, count: pageSize})
    if (page.some((r) => r.runId === runId)) return true
    if (page.length < pageSize) return false
  }
}

export interface RollbackRequest {
  runId: string
  dryRun: boolean
  /** DataHub's wire field: a safe rollback soft-deletes the entities the run created. */
  safe: boolean
}

export async function requestRollback(client: MdcliClient, req: RollbackRequest): Promise<RollbackReport> {
  const r = await client.call<{value: RollbackReport}>('POST', '/runs?action=rollback', req)
  return r.value
}
