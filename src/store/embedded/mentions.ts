/**
 * Which entities' latest values mention an urn, for the questions the reference index (lineage
 * aspects only) does not answer: incoming ownership, tags, terms, membership, containers, what a
 * delete leaves dangling. Without it each such question read every value of the catalog.
 *
 * The index is built on the first such question (one pass, as the question used to cost), not at
 * start: a start at a million aspects would decode most values for it, and a catalog that never
 * asks pays nothing. From then on every new latest value adds its entity under each urn it
 * mentions.
 *
 * Entries are candidates, not answers: a value replaced or removed leaves its entries behind, and a
 * slot freed by a delete may hold another entity later. Keeping them exact would cost a search of
 * the target's list on every write (a tag on 100,000 datasets: 100,000 steps per write), so the
 * reader checks each candidate against the entity's current values and the list is rewritten to
 * what held; a list that doubles between two readings loses its repeats.
 *
 * Memory: one number per (target, entity) pair, in plain arrays; the keys are the target urns.
 * Entries left behind by changed values (and urns nothing mentions any more) are only dropped when
 * read, so once the index holds twice what it held when built (and a floor), `outgrown` says so
 * and the store drops it, to build it again on the next question: memory follows what is live, not
 * the history of writes.
 */
import {urnsIn} from '../reference-index.js'

/** A list grows to at most twice its last settled length (and this much) before its repeats go. */
const SLACK = 16
/** Entries an index may gain beyond twice its built size before it is outgrown. */
const OUTGROWN_FLOOR = 100_000

export class MentionIndex {
  private readonly byTarget = new Map<string, number[]>()
  /** Length of each list when last settled (checked by a reader or freed of repeats). */
  private readonly settled = new Map<string, number>()
  /** Entries in all lists, and as many when the index was built. */
  private entries = 0
  private built = Infinity

  /** The first pass has ended: growth is measured from here. */
  markBuilt(): void {
    this.built = this.entries
  }

  get outgrown(): boolean {
    return this.entries > 2 * this.built + OUTGROWN_FLOOR
  }

  /** Records that entity slot `slot`, whose urn is `self`, now has a value `text`. */
  note(slot: number, self: string, text: string): void {
    if (!text.includes('urn:li:')) return
    for (const t of urnsIn(text)) {
      if (t === self) continue
      let list = this.byTarget.get(t)
      if (!list) this.byTarget.set(t, (list = []))
      if (list[list.length - 1] === slot) continue
      list.push(slot)
      this.entries++
      const base = this.settled.get(t) ?? 0
      if (list.length > 2 * base + SLACK) {
        const unique = [...new Set(list)]
        this.entries -= list.length - unique.length
        this.byTarget.set(t, unique)
        this.settled.set(t, unique.length)
      }
    }
  }

  /** Slots that may mention `target`, each once, in ascending order. */
  candidates(target: string): number[] {
    const list = this.byTarget.get(target)
    if (!list) return []
    return [...new Set(list)].sort((a, b) => a - b)
  }

  /**
   * The slots a reader found to mention `target`, of the candidates it was given; it must not
   * yield between the two calls, or entries added meanwhile would be lost.
   */
  settle(target: string, live: number[]): void {
    this.entries += live.length - (this.byTarget.get(target)?.length ?? 0)
    if (live.length === 0) {
      this.byTarget.delete(target)
      this.settled.delete(target)
      return
    }
    this.byTarget.set(target, live)
    this.settled.set(target, live.length)
  }
}
