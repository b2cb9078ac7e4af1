/**
 * DataHub's model defaults for fields a writer may leave out, filled when an aspect is read, as
 * GMS answers them (its Pegasus records carry the default): a client reading `ownership` or
 * `upstreamLineage` always finds the audit stamps it expects. Stored values stay as written, so a
 * file exported from here is what was ingested.
 */

const UNKNOWN_STAMP = {time: 0, actor: 'urn:li:corpuser:unknown'}

type Obj = Record<string, unknown>

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)

const FILL: Record<string, (v: Obj) => Obj | undefined> = {
  ownership: (v) => (v.lastModified === undefined ? {...v, lastModified: {...UNKNOWN_STAMP}} : undefined),
  upstreamLineage: (v) => {
    if (!Array.isArray(v.upstreams) || v.upstreams.every((u) => !isObj(u) || u.auditStamp !== undefined)) return undefined
    return {...v, upstreams: v.upstreams.map((u) => (isObj(u) && u.auditStamp === undefined ? {...u, auditStamp: {...UNKNOWN_STAMP}} : u))}
  },
  status: (v) => (v.removed === undefined ? {...v, removed: false} : undefined),
}

const FILLED = Object.keys(FILL)

/** The value with DataHub's defaults filled in; the same object when nothing was missing. */
export function withModelDefaults<T>(aspectName: string, value: T): T {
  const f = FILL[aspectName]
  if (!f || !isObj(value)) return value
  return (f(value) ?? value) as T
}

/**
 * An entity record with DataHub's defaults in its aspects: a copy when one changes (a store may
 * hand out the objects it holds), the record itself otherwise.
 */
export function entityWithModelDefaults<R extends {aspects: Record<string, {value: unknown; valueText?: string}>}>(rec: R): R {
  let aspects: Record<string, {value: unknown; valueText?: string}> | undefined
  // Only the aspects that have defaults are looked at: a store may parse values on first read,
  // and a reader that selects two aspects of an entity should not pay for parsing all of them.
  for (const name of FILLED) {
    const a = rec.aspects[name]
    if (a === undefined) continue
    const v = withModelDefaults(name, a.value)
    if (v === a.value) continue
    aspects ??= {...rec.aspects}
    // The stored text no longer says what the value is.
    aspects[name] = {...a, value: v, valueText: undefined}
  }
  return aspects ? {...rec, aspects} : rec
}
