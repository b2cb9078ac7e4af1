/**
 * Small renderers for report lines in the shapes DataHub's CLI prints them (humanfriendly
 * timespans), with JSON where DataHub prints Python reprs, so that scripts can read them.
 */

/** `1.23 seconds`, `2 minutes and 5 seconds`. */
export function timespan(ms: number): string {
  const s = ms / 1000
  if (s < 60) return `${s.toFixed(2)} seconds`
  const m = Math.floor(s / 60)
  const rest = Math.round(s - m * 60)
  return `${m} minute${m === 1 ? '' : 's'}${rest > 0 ? ` and ${rest} second${rest === 1 ? '' : 's'}` : ''}`
}

/** A list of urns as JSON, so scripts can read report lines (not Python's `['a']`). */
export function jsonList(items: readonly string[]): string {
  return JSON.stringify(items)
}
