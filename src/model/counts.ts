/**
 * One vocabulary of counts, so that the ingest report, `ingest list-runs`, `ingest show`,
 * rollback, `lite export`/`ls` and the sample loader say the same number for the same thing.
 *
 * Glossary (each term is what it counts, and nothing else):
 * - work units: what a source produced, each holding aspects of one entity (the auto-status
 *   work units at the end included).
 * - aspects sent: aspects the sink delivered and the server accepted, written or unchanged.
 * - aspects written: new aspect versions stored from what was sent.
 * - aspects unchanged: aspects sent whose value was already stored: only observed, no version.
 * - key aspects: the key aspect the server stores with the first aspect of an entity that did
 *   not exist; a row of the run that was never sent.
 * - rows: aspects written + key aspects, what `list-runs` lists as a run's rows and what a
 *   rollback reverts.
 * - entities live / soft-deleted: entities in the store, without and with `status.removed`.
 * - failures: work units or aspects refused, each with its reason.
 */

/** The words used for each count, and what each one says it counts. */
export const COUNT_TERMS = {
  workUnits: 'work units',
  aspectsSent: 'aspects sent',
  aspectsWritten: 'aspects written',
  aspectsUnchanged: 'aspects unchanged',
  keyAspects: 'key aspects',
  rows: 'rows',
  entitiesLive: 'live',
  entitiesSoftDeleted: 'soft-deleted',
  failures: 'failures',
} as const

/** The counts of one ingestion run, as its report and `--json` give them. */
export interface RunCounts {
  workUnits: number
  aspectsSent: number
  aspectsWritten: number
  aspectsUnchanged: number
  /** Key aspects of entities the run created (stored, never sent). */
  keyAspects: number
  /** aspectsWritten + keyAspects: the run's rows in `list-runs`. */
  rows: number
  failures: number
}

const num = (n: number): string => n.toLocaleString('en-US')

/** `19 aspects written + 5 key aspects = 24 rows`, the sum every view of a run can be checked by. */
export function rowsSentence(written: number, keyAspects: number): string {
  return `${num(written)} ${COUNT_TERMS.aspectsWritten} + ${num(keyAspects)} ${COUNT_TERMS.keyAspects} = ${num(written + keyAspects)} ${COUNT_TERMS.rows}`
}

/** `29 live + 3 soft-deleted = 32 entities`. */
export function entitiesSentence(live: number, softDeleted: number): string {
  return `${num(live)} ${COUNT_TERMS.entitiesLive} + ${num(softDeleted)} ${COUNT_TERMS.entitiesSoftDeleted} = ${num(live + softDeleted)} entities`
}
