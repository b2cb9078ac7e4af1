/**
 * Who refers to whom, kept in memory for a few aspects (the registry's lineage aspects), so that
 * "what points at this entity" costs the answer rather than a scan of the catalog: downstream
 * lineage asks it once per hop.
 *
 * Glossary:
 * - source: the entity whose aspect holds the urn.
 * - target: the urn mentioned in that aspect's latest value.
 */

/** String values of a JSON text that are urns; keys and nested text are left out. */
export function urnsIn(text: string): Set<string> {
  const out = new Set<string>()
  if (!text.includes('urn:li:')) return out
  const re = /"(urn:li:(?:[^"\\]|\\.)*)"/g
  for (let m = re.exec(text); m; m = re.exec(text)) {
    try {
      out.add(JSON.parse(`"${m[1]}"`) as string)
    } catch {
      // not a whole string value
    }
  }
  return out
}

export class ReferenceIndex {
  /** target → source urn → aspects of the source that mention the target. */
  private readonly byTarget = new Map<string, Map<string, string[]>>()

  constructor(readonly indexes: (aspectName: string) => boolean) {}

  /**
   * Records the references of a latest value (`text`) of `source`'s `aspect`. The text may be a
   * function: a store that keeps values encoded decodes only those of the aspects indexed here.
   */
  add(source: string, aspect: string, text: string | (() => string)): void {
    if (!this.indexes(aspect)) return
    for (const t of urnsIn(typeof text === 'function' ? text() : text)) {
      if (t === source) continue
      let sources = this.byTarget.get(t)
      if (!sources) this.byTarget.set(t, (sources = new Map()))
      const aspects = sources.get(source)
      if (!aspects) sources.set(source, [aspect])
      else if (!aspects.includes(aspect)) aspects.push(aspect)
    }
  }

  /** Forgets the references of a value that is no longer the latest. */
  remove(source: string, aspect: string, text: string | (() => string)): void {
    if (!this.indexes(aspect)) return
    for (const t of urnsIn(typeof text === 'function' ? text() : text)) {
      const sources = this.byTarget.get(t)
      const aspects = sources?.get(source)
      if (!sources || !aspects) continue
      const left = aspects.filter((a) => a !== aspect)
      if (left.length > 0) sources.set(source, left)
      else sources.delete(source)
      if (sources.size === 0) this.byTarget.delete(t)
    }
  }

  /** References to `targets` through `aspects` (all of which this index keeps). */
  referencesTo(targets: string[], aspects: readonly string[]): Array<{target: string; urn: string; aspectName: string}> {
    const out: Array<{target: string; urn: string; aspectName: string}> = []
    for (const target of new Set(targets)) {
      for (const [urn, names] of this.byTarget.get(target) ?? []) {
        for (const aspectName of names) if (aspects.includes(aspectName)) out.push({target, urn, aspectName})
      }
    }
    return out
  }
}
