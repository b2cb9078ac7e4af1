/**
 * Normalising aspect JSON from the wire and from files into the one form the schemas and the
 * store hold (Pegasus JSON as GMS stores it):
 * - nulls are dropped (avro-JSON files and Python emitters write optional fields as null),
 * - avro union wrappers of primitives (`{"string": "x"}`) are unwrapped,
 * - `com.linkedin.pegasus2avro.` union keys become `com.linkedin.`.
 */

const PRIMITIVE_WRAPPERS = new Set(['string', 'long', 'int', 'boolean', 'double', 'float', 'bytes', 'array', 'map'])
const AVRO_PREFIX = 'com.linkedin.pegasus2avro.'
const PEGASUS_PREFIX = 'com.linkedin.'

export function normalizeAspectValue(v: unknown): unknown {
  if (Array.isArray(v)) {
    const out: unknown[] = []
    for (const x of v) if (x !== null) out.push(normalizeAspectValue(x))
    return out
  }
  if (v === null || typeof v !== 'object') return v
  const entries = Object.entries(v as Record<string, unknown>)
  if (entries.length === 1 && PRIMITIVE_WRAPPERS.has(entries[0]![0])) {
    const inner = entries[0]![1]
    // `{"array": [...]}` and `{"map": {...}}` wrap containers; anything else is a real field.
    if (entries[0]![0] !== 'array' || Array.isArray(inner)) {
      if (entries[0]![0] !== 'map' || (inner !== null && typeof inner === 'object' && !Array.isArray(inner))) {
        return normalizeAspectValue(inner)
      }
    }
  }
  const out: Record<string, unknown> = {}
  for (const [k, x] of entries) {
    if (x === null || x === undefined) continue
    const key = k.startsWith(AVRO_PREFIX) ? PEGASUS_PREFIX + k.slice(AVRO_PREFIX.length) : k
    out[key] = normalizeAspectValue(x)
  }
  return out
}
