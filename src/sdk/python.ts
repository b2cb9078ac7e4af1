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

/** Python's `repr(float)`: shortest round-trip digits, `.0` on integral values, `e` form past 1e16. */
export function pyFloat(n: number): string {
  if (Number.isNaN(n)) return 'nan'
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf'
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return `${n}.0`
  const s = String(n)
  // JS writes 1e+21 and 1e-7; Python writes 1e+21 and 1e-07.
  return s.replace(/e([+-])(\d)$/, 'e$10$2')
}
