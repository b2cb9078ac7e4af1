/**
 * The catalog service: the one write path and the reads behind every endpoint.
 *
 * Every change — REST `ingestProposal`, every GraphQL mutation, `put`, `delete`, `migrate`,
 * `rollback` — ends in `Catalog.propose` or `Catalog.apply`: checked against the registry and
 * the aspect schemas, authorized for the acting user, stamped (actor, time, run id) and handed
 * to the store as one batch. Nothing here knows which store sits behind `MetadataStore`.
 */
import {BadRequestError, MdcliError, NotFoundError} from '../errors.js'
import {aspectSpec, isTimeseries, validateUrn} from '../model/registry.js'
import {
  DEFAULT_RUN_ID,
  type EntityRecord,
  type MetadataStore,
  type StoredAspect,
  type SystemMetadata,
  type WriteOp,
  type WriteResult,
} from '../store/types.js'
import {type Authorizer, allowAll, type Privilege} from './authorize.js'
import {prepareProposal, type PreparedProposal, type ProposalInput, toWriteOp} from './proposal.js'

export interface Actor {
  /** Corp user urn of whoever acts. */
  urn: string
}

export const SYSTEM_ACTOR: Actor = {urn: 'urn:li:corpuser:datahub'}

export interface CatalogOptions {
  store: MetadataStore
  authorizer?: Authorizer
  clock?: () => number
}

export interface ProposalOutcome {
  index: number
  urn?: string
  aspectName?: string
  ok: boolean
  /** For ok outcomes: false when the value equalled the stored one (no new version). */
  changed?: boolean
  error?: {code: string; status: number; message: string}
}

export class Catalog {
  readonly store: MetadataStore
  readonly authorizer: Authorizer
  readonly now: () => number

  constructor(opts: CatalogOptions) {
    this.store = opts.store
    this.authorizer = opts.authorizer ?? allowAll
    this.now = opts.clock ?? Date.now
  }

  /**
   * Validates, authorizes and writes proposals as one batch.
   * - `atomic` (default): any invalid proposal fails the whole call and nothing is written.
   * - not atomic: invalid proposals are reported per index and the valid ones are written.
   */
  async propose(actor: Actor, inputs: ProposalInput[], opts: {atomic?: boolean; defaults?: SystemMetadata} = {}): Promise<ProposalOutcome[]> {
    const atomic = opts.atomic !== false
    const prepared: Array<PreparedProposal | undefined> = []
    const outcomes: ProposalOutcome[] = []
    inputs.forEach((input, index) => {
      try {
        prepared.push(prepareProposal(input, inputs.length > 1 ? `proposal ${index}` : 'proposal'))
      } catch (e) {
        if (atomic || !(e instanceof MdcliError)) throw e
        prepared.push(undefined)
        outcomes[index] = {index, urn: typeof input?.entityUrn === 'string' ? input.entityUrn : undefined, aspectName: input?.aspectName, ok: false, error: {code: e.code, status: e.status, message: e.message}}
      }
    })
    const valid = prepared.filter((p): p is PreparedProposal => p !== undefined)
    await this.authorizer.authorize(actor, valid.map((p) => ({resourceUrn: p.urn, privileges: proposalPrivileges(p)})))
    const results = await this.apply(actor, valid, opts.defaults)
    let r = 0
    prepared.forEach((p, index) => {
      if (!p) return
      const res = results[r++]!
      outcomes[index] = {index, urn: p.urn, aspectName: p.aspectName, ok: true, changed: res.changed}
    })
    return outcomes
  }

  /** Writes already-prepared proposals (callers that built values themselves, e.g. mutations). */
  async apply(actor: Actor, prepared: PreparedProposal[], defaults: SystemMetadata = {}): Promise<WriteResult[]> {
    const time = this.now()
    const created = {time, actor: actor.urn}
    const base: SystemMetadata = {runId: DEFAULT_RUN_ID, ...defaults, lastObserved: defaults.lastObserved ?? time}
    return this.store.write(prepared.map((p) => toWriteOp(p, created, base)))
  }

  /** Raw store ops for delete, rollback and migration, after their own authorization. */
  async writeOps(ops: WriteOp[]): Promise<WriteResult[]> {
    return this.store.write(ops)
  }

  // ------------------------------------------------------------------ reads

  async getEntity(urn: string, aspects?: string[]): Promise<EntityRecord | null> {
    const {spec} = validateUrn(urn)
    if (aspects) for (const a of aspects) if (!aspectSpec(a)) throw new BadRequestError(`Unknown aspect ${a} for entity ${spec.name}`)
    return this.store.getEntity(urn, aspects)
  }

  async requireEntity(urn: string, aspects?: string[]): Promise<EntityRecord> {
    const e = await this.getEntity(urn, aspects)
    if (!e) throw new NotFoundError(`Entity ${urn} does not exist`)
    return e
  }

  async getAspect(urn: string, aspectName: string, version = 0): Promise<StoredAspect> {
    validateUrn(urn)
    if (!aspectSpec(aspectName)) throw new BadRequestError(`Unknown aspect ${aspectName}`)
    if (!Number.isInteger(version) || version < 0) throw new BadRequestError(`version must be a whole number >= 0, got ${version}`)
    const a = await this.store.getAspect(urn, aspectName, version)
    if (!a) throw new NotFoundError(`Did not find urn: ${urn} aspect: ${aspectName} version: ${version}`)
    return a
  }

  /** Latest value of an aspect, parsed, or undefined. */
  async aspectValue<T = Record<string, unknown>>(urn: string, aspectName: string): Promise<T | undefined> {
    const a = await this.store.getAspect(urn, aspectName, 0)
    return a ? (a.value as T) : undefined
  }

  isTimeseries(aspectName: string): boolean {
    return isTimeseries(aspectName)
  }
}

/** Privileges that allow writing a proposal: editing the entity, or creating it. */
function proposalPrivileges(p: PreparedProposal): Privilege[][] {
  return [['EDIT_ENTITY'], [p.changeType === 'DELETE' ? 'DELETE_ENTITY' : 'CREATE_ENTITY']]
}
