/**
 * How every metadata edit runs: authorize once → lock the entities → read, validate and compute
 * the new aspect values → write them all in one `catalog.apply` (one store batch) → unlock.
 * Anything that throws before the write leaves the store untouched, which is what makes batch
 * mutations all-or-nothing.
 *
 * Glossary:
 * - edit plan: what an edit declares up front — its authorization requests and the urns it
 *   locks — plus `build`, which reads through the transaction and records the new values.
 * - transaction (`EditTx`): the reads and pending writes of one edit. Reads see the edit's own
 *   pending writes, so two steps of one batch that touch the same aspect compose.
 * - stamp: `{time, actor}` of the edit, used for audit fields inside aspect values
 *   (ownership.lastModified, deprecation.actor, glossaryTerms.auditStamp); the store stamps every
 *   written row with the same actor and time.
 */
import type {Actor, Catalog} from '../catalog.js'
import type {AuthzRequest} from '../authorize.js'
import {prepareProposal} from '../proposal.js'
import type {EntityRecord, WriteResult} from '../../store/types.js'

export interface Stamp {
  time: number
  actor: string
}

export interface EditPlan<T> {
  /** Checked once, before anything is read or written. */
  authz: AuthzRequest[]
  /** Message of the refusal when the actor is not authorized. */
  unauthorizedMessage?: string
  /** Entities whose aspects are read-modify-written; held for the whole edit. */
  locks: Iterable<string>
  /** Validates, reads the current values and records the new ones; throws to write nothing. */
  build(tx: EditTx): Promise<T>
}

export interface EditOutcome<T> {
  result: T
  /** One per aspect written, in write order. */
  writes: WriteResult[]
}

interface PendingWrite {
  urn: string
  aspectName: string
  value: Record<string, unknown>
}

export class EditTx {
  readonly stamp: Stamp
  private readonly reads = new Map<string, Promise<EntityRecord | null>>()
  private readonly pending = new Map<string, PendingWrite>()

  constructor(
    private readonly catalog: Catalog,
    readonly actor: Actor,
  ) {
    this.stamp = {time: catalog.now(), actor: actor.urn}
  }

  /** The entity with its latest aspects, or null; throws UrnError for a malformed urn. */
  entity(urn: string): Promise<EntityRecord | null> {
    let p = this.reads.get(urn)
    if (!p) this.reads.set(urn, (p = this.catalog.getEntity(urn)))
    return p
  }

  async exists(urn: string): Promise<boolean> {
    return (await this.entity(urn)) !== null
  }

  /** The value an aspect will have after this edit so far: pending write, else stored, else undefined. */
  async aspect<T = Record<string, unknown>>(urn: string, aspectName: string): Promise<T | undefined> {
    const w = this.pending.get(`${urn}\u0000${aspectName}`)
    if (w) return structuredClone(w.value) as T
    const e = await this.entity(urn)
    const v = e?.aspects[aspectName]?.value
    return v === undefined ? undefined : (structuredClone(v) as T)
  }

  /** Records the new value of an aspect; a later put of the same aspect replaces it. */
  put(urn: string, aspectName: string, value: Record<string, unknown>): void {
    const key = `${urn}\u0000${aspectName}`
    // Re-insert so the write order follows the last change.
    this.pending.delete(key)
    this.pending.set(key, {urn, aspectName, value})
  }

  writes(): PendingWrite[] {
    return [...this.pending.values()]
  }
}

/** Runs one edit; see the module comment for the order of steps. */
export async function runEdit<T>(catalog: Catalog, actor: Actor, plan: EditPlan<T>): Promise<EditOutcome<T>> {
  const grant = await catalog.authorize(actor, plan.authz, plan.unauthorizedMessage)
  return catalog.withLocks(plan.locks, async () => {
    const tx = new EditTx(catalog, actor)
    const result = await plan.build(tx)
    // Every value passes the same registry and schema checks as a REST proposal before any is written.
    const prepared = tx
      .writes()
      .map((w) => prepareProposal({entityUrn: w.urn, aspectName: w.aspectName, changeType: 'UPSERT', aspect: {json: w.value}}, `${w.aspectName} of ${w.urn}`))
    const writes = prepared.length > 0 ? await catalog.apply(grant, prepared) : []
    return {result, writes}
  })
}
