/** JSON with keys sorted at every level, as DataHub's CLI prints entities (`sort_keys=True`). */
export function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep)
  if (v === null || typeof v !== 'object') return v
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(v as Record<string, unknown>).sort()) out[k] = sortKeysDeep((v as Record<string, unknown>)[k])
  return out
}

export function prettyJson(v: unknown): string {
  return JSON.stringify(sortKeysDeep(v), null, 2)
}
