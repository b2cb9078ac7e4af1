/**
 * Per-urn async mutex: serialises read-modify-write edits of the same entity inside one process,
 * so that two concurrent edits (say, two addTags from two clients) never read the same old value
 * and lose one of the updates.
 *
 * Glossary:
 * - key: an entity urn.
 * - tail: the promise the next waiter on a key chains after; the map drops a key once its last
 *   holder releases, so idle keys cost nothing.
 *
 * An edit of several entities takes their locks in sorted order, so two batch edits over
 * overlapping sets can never wait on each other in a cycle.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>()

  /** `outer`: the store's cross-process locks (shared stores), taken once the in-process ones are held. */
  constructor(private readonly outer?: <T>(keys: string[], fn: () => Promise<T>) => Promise<T>) {}

  /** Waits for the key; resolves with the function that releases it. */
  async acquire(key: string): Promise<() => void> {
    const prev = this.tails.get(key)
    let release!: () => void
    const mine = new Promise<void>((r) => (release = r))
    const tail = prev ? prev.then(() => mine) : mine
    this.tails.set(key, tail)
    if (prev) await prev
    let released = false
    return () => {
      if (released) return
      released = true
      release()
      if (this.tails.get(key) === tail) this.tails.delete(key)
    }
  }

  /** Runs `fn` holding every key (deduplicated, taken in sorted order). */
  async withLocks<T>(keys: Iterable<string>, fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort()
    const releases: Array<() => void> = []
    try {
      for (const k of sorted) releases.push(await this.acquire(k))
      return this.outer && sorted.length > 0 ? await this.outer(sorted, fn) : await fn()
    } finally {
      for (let i = releases.length - 1; i >= 0; i--) releases[i]!()
    }
  }

  /** Keys currently held or waited on (for tests and diagnostics). */
  get size(): number {
    return this.tails.size
  }
}
