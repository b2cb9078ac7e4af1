/**
 * What a read means, decided once for the stores that hold rows in this process (the memory
 * store, the embedded memtable); PostgreSQL says the same in SQL (ORDER BY ts DESC, createdon DESC;
 * ORDER BY id; WHERE NOT removed).
 *
 * Glossary:
 * - latest timeseries row: the newest by timestampMillis; of two at one timestamp, the one
 *   written later (then the one met later).
 * - listing order: entities by their id (creation order; a new id when created again).
 */
import type {ListUrnsRequest} from '../types.js'

/** The latest of an aspect's timeseries rows (undefined when there are none). */
export function latestSeriesRow<R>(rows: readonly R[] | undefined, timestampOf: (r: R) => number, createdOf: (r: R) => number): R | undefined {
  if (!rows || rows.length === 0) return undefined
  let best: R = rows[0]!
  for (const r of rows) {
    const t = timestampOf(r)
    const b = timestampOf(best)
    if (t > b || (t === b && createdOf(r) >= createdOf(best))) best = r
  }
  return best
}

/** Timeseries rows in [startTime, endTime], newest first, at most `limit` (10,000 unless told). */
export function seriesWindow<R>(rows: readonly R[], timestampOf: (r: R) => number, opts: {startTime?: number; endTime?: number; limit?: number}): R[] {
  return rows
    .filter((r) => (opts.startTime === undefined || timestampOf(r) >= opts.startTime) && (opts.endTime === undefined || timestampOf(r) <= opts.endTime))
    .sort((a, b) => timestampOf(b) - timestampOf(a))
    .slice(0, opts.limit ?? 10000)
}

/** Whether an entity that is there counts as existing: a soft-deleted one does unless the caller says not. */
export function existsFor(removed: () => boolean, opts: {includeSoftDeleted?: boolean}): boolean {
  return opts.includeSoftDeleted === false ? !removed() : true
}

/** A page of the listing: the entities given (already filtered by type and removal) in listing order. */
export function listingPage<E extends {id: number}>(all: Array<[string, E]>, req: ListUrnsRequest): {total: number; urns: string[]} {
  all.sort((a, b) => a[1].id - b[1].id)
  const start = req.start ?? 0
  return {total: all.length, urns: all.slice(start, start + (req.count ?? all.length)).map(([u]) => u)}
}

type Reference = {target: string; urn: string; aspectName: string}
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * References in the one order every store answers them: by referring urn, then aspect, then
 * target, in code-unit order (PostgreSQL: ORDER BY … COLLATE "C"). Paging an entity's incoming
 * relationships by start and count needs the same order on every call and on every store.
 */
export function inReferenceOrder<R extends Reference>(refs: R[]): R[] {
  return refs.sort((a, b) => cmp(a.urn, b.urn) || cmp(a.aspectName, b.aspectName) || cmp(a.target, b.target))
}
