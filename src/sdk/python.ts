/**
 * Python's spellings of values, where DataHub's Python sources write them into metadata (custom
 * properties): sources written here must produce the same strings to give the same aspects.
 */

/**
 * Python's `str()` of a scalar as DataHub's sources write custom properties (`True`, `False`,
 * `None`, numbers and strings as they are); lists and objects as JSON, which scripts can read.
 */
export function pyStr(v: unknown): string {
  if (v === true) return 'True'
  if (v === false) return 'False'
  if (v === null || v === undefined) return 'None'
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v)
}
