/**
 * Run reports: what a source, sink or transformer did, in bounded memory.
 *
 * Glossary:
 * - count: a named tally (`workUnits`, `recordsWritten`, `filesRead`).
 * - warning / failure: a problem keyed by kind (`invalid record`, `E_INVALID_ASPECT`); each key
 *   keeps how often it happened and only its first few messages, so a file with a million bad
 *   records still yields a small report.
 * - info: free-form facts a plugin wants shown (the server version, a file list).
 */

/** Messages kept per key. */
export const EXAMPLES_PER_KEY = 5
/** Distinct keys kept per list; later keys fold into `other`. */
export const MAX_KEYS = 50

export interface ReportEntry {
  key: string
  count: number
  /** The first messages seen for this key. */
  examples: string[]
}

export interface ReportData {
  counts: Record<string, number>
  warnings: ReportEntry[]
  failures: ReportEntry[]
  info: Record<string, unknown>
}

class EntryList {
  private readonly entries = new Map<string, ReportEntry>()
  total = 0

  add(key: string, message: string): void {
    this.total++
    let e = this.entries.get(key)
    if (!e) {
      const k = this.entries.size >= MAX_KEYS ? 'other' : key
      e = this.entries.get(k)
      if (!e) {
        e = {key: k, count: 0, examples: []}
        this.entries.set(k, e)
      }
    }
    e.count++
    if (e.examples.length < EXAMPLES_PER_KEY) e.examples.push(message)
  }

  list(): ReportEntry[] {
    return [...this.entries.values()].map((e) => ({...e, examples: [...e.examples]}))
  }
}

/** A report a plugin fills while it runs; the pipeline reads it for progress and the summary. */
export class Report {
  private readonly countMap = new Map<string, number>()
  private readonly warningList = new EntryList()
  private readonly failureList = new EntryList()
  private readonly infoMap = new Map<string, unknown>()

  count(name: string, n = 1): void {
    this.countMap.set(name, (this.countMap.get(name) ?? 0) + n)
  }

  get(name: string): number {
    return this.countMap.get(name) ?? 0
  }

  warning(key: string, message: string): void {
    this.warningList.add(key, message)
  }

  failure(key: string, message: string): void {
    this.failureList.add(key, message)
  }

  info(name: string, value: unknown): void {
    this.infoMap.set(name, value)
  }

  get warningCount(): number {
    return this.warningList.total
  }

  get failureCount(): number {
    return this.failureList.total
  }

  toJSON(): ReportData {
    return {
      counts: Object.fromEntries(this.countMap),
      warnings: this.warningList.list(),
      failures: this.failureList.list(),
      info: Object.fromEntries(this.infoMap),
    }
  }
}
