/**
 * Rows per ingestion run: what `list-runs` shows (DataHub's runs listing), kept by the stores
 * that hold their rows in memory.
 *
 * Glossary:
 * - row: a version of a versioned aspect or a timeseries point, stamped with the run id that wrote
 *   it (system metadata `runId`).
 * - a run's time: its earliest row's.
 */
import type {RunSummary} from './types.js'

export class RunCounts {
  private readonly runs = new Map<string, RunSummary>()

  /** Counts `delta` rows of a run written (> 0) or removed (< 0); a run left with none is forgotten. */
  count(runId: string | undefined, time: number, delta: number): void {
    if (!runId) return
    let r = this.runs.get(runId)
    if (!r) {
      if (delta <= 0) return
      r = {runId, timestamp: time, rows: 0}
      this.runs.set(runId, r)
    }
    r.rows += delta
    if (delta > 0 && time < r.timestamp) r.timestamp = time
    if (r.rows <= 0) this.runs.delete(runId)
  }

  /** A page of runs, newest first (then by run id), as copies. */
  list(opts: {start?: number; count?: number} = {}): RunSummary[] {
    const all = [...this.runs.values()].sort((a, b) => b.timestamp - a.timestamp || (a.runId < b.runId ? -1 : 1))
    const start = opts.start ?? 0
    return all.slice(start, start + (opts.count ?? 100)).map((r) => ({...r}))
  }
}
