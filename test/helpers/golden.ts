/**
 * Comparing a file sink's output with one of DataHub's golden files, after the normalisation of
 * `reference/datahub-sql-sources.md` §8: MCEs become one record per aspect, Pegasus union names
 * lose their `pegasus2avro` segment, run metadata and wall-clock values are dropped, and records
 * are compared per (urn, aspect) as multisets.
 */
import {expect} from 'chai'

export interface GoldenOptions {
  /** Paths (dot-separated, `[]` for every array element) zeroed on both sides. */
  ignore?: string[]
  /** Aspects left out on both sides. */
  skipAspects?: string[]
  /**
   * Arrays compared as sets, by aspect: `{inputFields: ['fields']}` (dot paths in the aspect).
   * For lists DataHub builds from a Python set, whose order is the interpreter's hash order.
   */
  unordered?: Record<string, string[]>
}

const DEFAULT_IGNORE = ['timestampMillis', 'lastUpdatedTimestamp', 'created', 'lastModified', 'upstreams[].auditStamp.time']

function lowerFirst(s: string): string {
  return s[0]!.toLowerCase() + s.slice(1)
}

function normaliseValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normaliseValue)
  if (v && typeof v === 'object') {
    // Avro-JSON's union member wrapper of a plain string (`{"string": "urn:…"}` in an MCE's
    // ChartInfo.inputs) is the string itself once the MCE is read as proposals.
    const keys = Object.keys(v)
    if (keys.length === 1 && keys[0] === 'string' && typeof (v as {string: unknown}).string === 'string') return (v as {string: string}).string
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(v).sort()) out[k.replace('.pegasus2avro.', '.')] = normaliseValue((v as Record<string, unknown>)[k])
    return out
  }
  return v
}

function zero(value: unknown, path: string[]): void {
  if (value === null || typeof value !== 'object') return
  const [head, ...rest] = path
  if (head === undefined) return
  if (head.endsWith('[]')) {
    const arr = (value as Record<string, unknown>)[head.slice(0, -2)]
    if (Array.isArray(arr)) for (const el of arr) rest.length ? zero(el, rest) : undefined
    return
  }
  const obj = value as Record<string, unknown>
  if (rest.length === 0) {
    if (head in obj) obj[head] = 0
    return
  }
  zero(obj[head], rest)
}

function sortAt(value: unknown, path: string[]): void {
  if (value === null || typeof value !== 'object') return
  const [head, ...rest] = path
  if (head === undefined) return
  const obj = value as Record<string, unknown>
  if (rest.length === 0) {
    if (Array.isArray(obj[head])) obj[head] = [...(obj[head] as unknown[])].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
    return
  }
  sortAt(obj[head], rest)
}

/** Records of a golden or sink file as `urn aspect` → normalised JSON texts. */
export function aspectMultiset(records: unknown[], opts: GoldenOptions = {}): Map<string, string[]> {
  const out = new Map<string, string[]>()
  const add = (urn: string, aspect: string, value: unknown) => {
    if (opts.skipAspects?.includes(aspect)) return
    const v = normaliseValue(value) as Record<string, unknown>
    for (const p of [...DEFAULT_IGNORE, ...(opts.ignore ?? [])]) zero(v, p.split('.'))
    for (const p of opts.unordered?.[aspect] ?? []) sortAt(v, p.split('.'))
    const key = `${urn} ${aspect}`
    // A record emitted twice (DataHub's browse-path processor does so) counts once.
    out.set(key, [...new Set([...(out.get(key) ?? []), JSON.stringify(v)])].sort())
  }
  for (const r of records as Array<Record<string, any>>) {
    if (r.proposedSnapshot) {
      const snap = Object.values(r.proposedSnapshot)[0] as {urn: string; aspects: Array<Record<string, unknown>>}
      for (const a of snap.aspects) {
        const [cls, value] = Object.entries(a)[0]!
        add(snap.urn, lowerFirst(cls.split('.').pop()!), value)
      }
    } else {
      const value = r.aspect?.json ?? (typeof r.aspect?.value === 'string' ? JSON.parse(r.aspect.value) : r.aspect)
      add(r.entityUrn, r.aspectName, value)
    }
  }
  return out
}

/** Asserts the two files carry the same (urn, aspect) multisets, naming every difference. */
export function expectSameAspects(actual: unknown[], golden: unknown[], opts: GoldenOptions = {}): void {
  const a = aspectMultiset(actual, opts)
  const g = aspectMultiset(golden, opts)
  const problems: string[] = []
  for (const [key, values] of g) {
    const mine = a.get(key)
    if (!mine) problems.push(`missing ${key}`)
    else if (JSON.stringify(mine) !== JSON.stringify(values)) problems.push(`differs ${key}\n   ours:   ${mine.join('\n           ')}\n   golden: ${values.join('\n           ')}`)
  }
  for (const key of a.keys()) if (!g.has(key)) problems.push(`extra ${key}`)
  expect(problems, problems.join('\n')).to.deep.equal([])
}
