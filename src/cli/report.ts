/**
 * Small renderers for report lines in the shapes DataHub's CLI prints them, with JSON where
 * DataHub prints Python reprs, so that scripts can read them. (Timespans: `formatTimespan` in
 * src/recipes/pipeline.ts, one humanfriendly-style formatter for every report.)
 */

/** A list of urns as JSON, so scripts can read report lines (not Python's `['a']`). */
export function jsonList(items: readonly string[]): string {
  return JSON.stringify(items)
}
