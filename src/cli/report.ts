/**
 * Small renderers for report lines in the shapes DataHub's CLI prints them (Python reprs of
 * lists and sets, humanfriendly timespans), so that people who know its output recognise ours.
 */

/** `1.23 seconds`, `2 minutes and 5 seconds`. */
export function timespan(ms: number): string {
  const s = ms / 1000
  if (s < 60) return `${s.toFixed(2)} seconds`
  const m = Math.floor(s / 60)
  const rest = Math.round(s - m * 60)
  return `${m} minute${m === 1 ? '' : 's'}${rest > 0 ? ` and ${rest} second${rest === 1 ? '' : 's'}` : ''}`
}

/** Python's list repr: `['a', 'b']`. */
export function pyList(items: readonly string[]): string {
  return `[${items.map((u) => `'${u}'`).join(', ')}]`
}

/** Python's set repr as DataHub's reports print it, `None` when empty: `{'a', 'b'}`. */
export function pySet(items: readonly string[]): string {
  return items.length === 0 ? 'None' : `{${items.map((u) => `'${u}'`).join(', ')}}`
}
