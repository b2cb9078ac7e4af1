/**
 * The catalog service: the one write path and the reads behind every endpoint.
 *
 * Every change — REST `ingestProposal`, every GraphQL mutation, `put`, `delete`, `migrate`,
 * `rollback` — ends in `Catalog.propose` or `Catalog.apply`: checked against the registry and
 * the aspect schemas, authorized for the acting user, stamped (actor, time, run id) and handed
 * to the store as one batch. Nothing here knows which store sits behind `MetadataStore`.
 *
 * Glossary:
 * - grant: proof that the authorizer allowed an actor a write, made only by `authorize` (or by
 *   `systemGrant` for the server's own jobs). `apply` and `writeOps` take one, so no public write
 *   reaches the store without having been through the authorizer or being declared the system's.
 * - locks: the per-urn mutex (edits/lock.ts) that serialises read-modify-write edits; the
 *   catalog owns it, so every writer on one catalog shares it.
 */
import {entityWithModelDefaults, withModelDefaults} from '../model/defaults.js'
import {changesOf} from '../store/core/changes.js'
import type {LoggedChange} from '../model/changelog.js'
import {BadRequestError, BugError, MdcliError, NotFoundError, UnknownAspectError} from '../errors.js'
import {aspectSpec, aspectsOf, isKeyAspect, isTimeseries, nearest, SECRET_ASPECTS, validateUrn} from '../model/registry.js'
import {
  DEFAULT_RUN_ID,
  type EntityRecord,
  type ListUrnsRequest,
  type MetadataStore,
  type ReferenceQuery,
  type RunRow,
  type RunSummary,
  type SearchIndex,
  type SearchRequest,
  type SearchResponse,
  type StoredAspect,
  type SystemMetadata,
  type WriteOp,
  type WriteResult,
} from '../store/types.js'
import {type Actor, type Authorizer, allowAll, type AuthzRequest} from './authorize.js'
import {conditionFailure, newEntityFailure, patchedInput, prepareProposal, type PreparedProposal, toWriteOp} from './proposal.js'
import type {ProposalInput} from '../model/wire.js'
import {KeyedMutex} from './edits/lock.js'
import {parseUrn} from '../model/urn.js'
import {positionOf, type QueuePosition} from './position.js'
import {SearchFeed} from './search-feed.js'
import {conditionHolds} from '../store/core/write.js'
import {createMemorySearchIndex} from '../store/index.js'
import {aspectPrivilege, needsBefore, privilegedAspectsOf, type PrivilegedRule, privilegedRequests, privilegedRule, type TableWrite} from './access/authorization-table.js'

export type {Actor} from './authorize.js'

export const SYSTEM_ACTOR: Actor = {urn: 'urn:li:corpuser:datahub'}

/** See the glossary above; only a Catalog makes one, and only that Catalog accepts it. */
export interface Grant {
  readonly actor: Actor
}

/** What the catalog needs of a change-log outbox (src/events/outbox.ts). */
export interface CommitOutbox {
  intent(ops: WriteOp[]): number
  committed(commit: number, changes: Array<Omit<LoggedChange, 'id'>>): void
  abandoned(commit: number): void
}

export interface CatalogOptions {
  store: MetadataStore
  /**
   * The search index the catalog feeds and asks (store/index.ts `openSearchIndex` opens the one
   * that goes with a store); its opener closes it. Without one, an index in this thread. An index
   * that does not outlive the process is filled from the store at the first search (or `warmSearch`).
   */
  search?: SearchIndex
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
  /** `ordered` only: not written, the aspect holds this queue position's value or a newer one. */
  stale?: boolean
  /**
   * For ok outcomes: the write brought the entity into being and so also stored its key aspect,
   * a row of the run that was not sent (list-runs and rollback count it among the run's rows).
   */
  keyAspect?: boolean
  error?: {code: string; status: number; message: string}
}

/** What a proposal asks of the authorizer, shared by every request of every batch (never changed). */
const DELETE_PRIVILEGES: string[][] = [['DELETE_ENTITY']]
const EDIT_PRIVILEGES: string[][] = [['EDIT_ENTITY']]
const EDIT_OR_CREATE_PRIVILEGES: string[][] = [['EDIT_ENTITY'], ['CREATE_ENTITY']]

export class Catalog {
  /** Private: everything reaches the store through the methods below, and only through them. */
  private readonly store: MetadataStore
  /** Search: fed from every write, asked by `search` (search-feed.ts). */
  private readonly feed: SearchFeed
  private readonly authorizer: Authorizer
  private readonly locks: KeyedMutex
  private readonly grants = new WeakSet<Grant>()
  /** Grants of the server's own jobs: the only writes the authorization table does not check. */
  private readonly systemGrants = new WeakSet<Grant>()
  readonly now: () => number
  private readonly writeListeners: Array<(urns: string[]) => void> = []
  private readonly resyncListeners: Array<() => void> = []
  /** Write batches handed to the store and not yet answered (the write queue's depth, for metrics). */
  private inFlight = 0
  private readonly changeListeners: Array<(changes: Array<Omit<LoggedChange, 'id'>>) => void> = []
  private outbox?: CommitOutbox

  constructor(opts: CatalogOptions) {
    this.store = opts.store
    this.feed = new SearchFeed(this.store, opts.search ?? createMemorySearchIndex())
    this.authorizer = opts.authorizer ?? allowAll
    this.locks = new KeyedMutex(this.store.withEntityLocks?.bind(this.store))
    this.now = opts.clock ?? Date.now
    const observe = this.authorizer.observeWrite?.bind(this.authorizer)
    if (observe) this.onWrite(observe)
    // Writes by other servers on a shared store reach the same caches as this server's own.
    this.store.onExternalWrite?.((urns) => {
      for (const listen of this.writeListeners) listen(urns)
    })
    const forget = this.authorizer.forget?.bind(this.authorizer)
    if (forget) this.onResync(forget)
    this.store.onResync?.(() => {
      for (const listen of this.resyncListeners) listen()
    })
  }

  /** Write batches handed to the store and not yet answered. */
  get writesInFlight(): number {
    return this.inFlight
  }

  /**
   * Calls `listen` when other processes' writes may have gone unannounced (a shared store's
   * notifications were interrupted): caches of stored state drop everything they hold.
   */
  onResync(listen: () => void): void {
    this.resyncListeners.push(listen)
  }

  private async storeWrite(ops: WriteOp[]): Promise<WriteResult[]> {
    this.inFlight++
    try {
      return await this.feed.write(ops)
    } finally {
      this.inFlight--
    }
  }

  /** Proposal batches worth preparing at once (the store's `writeConcurrency`). */
  get writeConcurrency(): number {
    return this.store.writeConcurrency ?? 2
  }

  /**
   * Validates, authorizes and writes proposals as one batch.
   * - `atomic` (default): any invalid proposal fails the whole call and nothing is written.
   * - not atomic: invalid proposals are reported per index and the valid ones are written.
   * - `ordered` (the queue consumer): a proposal whose systemMetadata carries a queue position
   *   (catalog/position.ts) is skipped, answered ok and `stale`, when its aspect already holds a
   *   value from the same stream at the same or a later position. Checked under the urns' locks,
   *   which the PostgreSQL store also takes across replicas, so no two writers interleave.
   */
  async propose(actor: Actor, inputs: ProposalInput[], opts: {atomic?: boolean; defaults?: SystemMetadata; ordered?: boolean} = {}): Promise<ProposalOutcome[]> {
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
    let valid = prepared.filter((p): p is PreparedProposal => p !== undefined)
    const grant = await this.authorize(actor, await this.proposalRequests(valid))
    // Raw writes take the same per-urn locks as GraphQL's read-modify-write edits, so an edit
    // never writes back a value computed before this write landed; a PATCH is applied to the
    // stored value, and CREATE's and UPDATE's conditions are checked, inside the lock for the
    // same reason: nothing can write the aspect between the check and the write.
    let written: Array<{urn: string; aspectName: string; entityType: string} | undefined> = []
    const results = await this.withLocks(
      valid.map((p) => p.urn),
      async () => {
        if (opts.ordered) valid = await this.dropStale(valid, prepared, outcomes)
        if (valid.some((p) => p.changeType === 'PATCH' || p.condition !== undefined || p.newEntity)) valid = await this.resolveInOrder(valid, prepared, outcomes, atomic)
        const ops = this.opsOf(grant, valid, opts.defaults)
        // Inside the locks: the stored values the table compares against cannot change before the write.
        await this.checkTable(grant, ops)
        // From here the ops hold all the batch needs. The parsed values are let go before the
        // store's fsync: a batch waits there with several others, and what it holds then
        // outlives the young generation, costing a copy in every scavenge and a marking later.
        written = prepared.map((p) => p && {urn: p.urn, aspectName: p.aspectName, entityType: p.entityType})
        prepared.length = 0
        valid = []
        return this.write(ops, grant.actor)
      },
    )
    let r = 0
    written.forEach((p, index) => {
      if (!p) return
      const res = results[r++]!
      const outcome: ProposalOutcome = {index, urn: p.urn, aspectName: p.aspectName, ok: true, changed: res.changed}
      // Set only where true (as the answer has always read); no object spread per outcome.
      if (res.createdEntity && !isKeyAspect(p.entityType, p.aspectName)) outcome.keyAspect = true
      outcomes[index] = outcome
    })
    return outcomes
  }

  /**
   * `propose`'s `ordered` rule: walks the batch in order and drops each positioned proposal whose
   * aspect holds (stored, or as an earlier proposal of the batch leaves it) a position of the same
   * source at the same or a later seq. A DELETE leaves no position behind it.
   */
  private async dropStale(valid: PreparedProposal[], prepared: Array<PreparedProposal | undefined>, outcomes: ProposalOutcome[]): Promise<PreparedProposal[]> {
    const positioned = valid.filter((p) => p.kind === 'versioned' && positionOf(p.systemMetadata) !== undefined)
    if (positioned.length === 0) return valid
    const stored = await this.store.getEntities([...new Set(positioned.map((p) => p.urn))], [...new Set(positioned.map((p) => p.aspectName))])
    const latest = new Map<string, QueuePosition | undefined>()
    const indexOf = new Map(prepared.map((p, i) => [p, i]))
    const out: PreparedProposal[] = []
    for (const p of valid) {
      const pos = p.kind === 'versioned' ? positionOf(p.systemMetadata) : undefined
      if (pos === undefined) {
        out.push(p)
        continue
      }
      const key = `${p.urn}\u0000${p.aspectName}`
      const before = latest.has(key) ? latest.get(key) : positionOf(stored.get(p.urn)?.aspects[p.aspectName]?.systemMetadata)
      if (before !== undefined && before.source === pos.source && before.seq >= pos.seq) {
        const index = indexOf.get(p)!
        prepared[index] = undefined
        outcomes[index] = {index, urn: p.urn, aspectName: p.aspectName, ok: true, changed: false, stale: true}
        continue
      }
      latest.set(key, p.changeType === 'DELETE' ? undefined : pos)
      out.push(p)
    }
    return out
  }

  /**
   * Walks the batch in order as each proposal would find the aspect (stored, or as an earlier
   * proposal of the batch left it): applies each PATCH to the value before it and checks the
   * result like any UPSERT, and checks each CREATE's and UPDATE's condition. A CREATE_ENTITY is
   * judged by the entity as the batch found it (proposal.ts, "new entity"). A proposal that
   * fails here fails alone (the whole call, if atomic); the proposals after it see the batch
   * without it.
   */
  private async resolveInOrder(valid: PreparedProposal[], prepared: Array<PreparedProposal | undefined>, outcomes: ProposalOutcome[], atomic: boolean): Promise<PreparedProposal[]> {
    // Per urn and aspect, the value the batch has left so far; undefined = absent.
    const latest = new Map<string, Record<string, unknown> | undefined>()
    const out: PreparedProposal[] = []
    const indexOf = new Map(prepared.map((p, i) => [p, i]))
    const newEntityUrns = [...new Set(valid.filter((p) => p.newEntity).map((p) => p.urn))]
    const existedBefore = new Map(await Promise.all(newEntityUrns.map(async (urn) => [urn, await this.store.exists(urn, {includeSoftDeleted: true})] as const)))
    for (const p of valid) {
      const key = `${p.urn}\u0000${p.aspectName}`
      if (p.newEntity && existedBefore.get(p.urn)) {
        const index = indexOf.get(p)!
        const e = newEntityFailure(p, prepared.length > 1 ? `proposal ${index}` : 'proposal')
        if (atomic) throw e
        prepared[index] = undefined
        outcomes[index] = {index, urn: p.urn, aspectName: p.aspectName, ok: false, error: {code: e.code, status: e.status, message: e.message}}
        continue
      }
      if (p.changeType === 'DELETE' || (p.changeType === 'UPSERT' && p.condition === undefined)) {
        latest.set(key, p.changeType === 'DELETE' ? undefined : (p.value as Record<string, unknown>))
        out.push(p)
        continue
      }
      const before = latest.has(key) ? latest.get(key) : ((await this.store.getAspect(p.urn, p.aspectName))?.value as Record<string, unknown> | undefined)
      const index = indexOf.get(p)!
      const where = prepared.length > 1 ? `proposal ${index}` : 'proposal'
      try {
        if (!conditionHolds(p.condition, before !== undefined)) throw conditionFailure(p, where)
        const whole = p.changeType === 'PATCH' ? prepareProposal(patchedInput(p, before, this.now()), where) : p
        latest.set(key, whole.value as Record<string, unknown>)
        prepared[index] = whole
        out.push(whole)
      } catch (e) {
        if (atomic || !(e instanceof MdcliError)) throw e
        prepared[index] = undefined
        outcomes[index] = {index, urn: p.urn, aspectName: p.aspectName, ok: false, error: {code: e.code, status: e.status, message: e.message}}
      }
    }
    return out
  }

  /**
   * Asks the authorizer whether `actor` may do every request; resolves with the grant that
   * `apply` and `writeOps` take, or throws UnauthorizedError (with `message`, if given).
   */
  async authorize(actor: Actor, requests: AuthzRequest[], message?: string): Promise<Grant> {
    await this.authorizer.authorize(actor, requests, message)
    return this.grantFor(actor)
  }

  /**
   * A grant for the server's own jobs, which act for no user: first-start bootstrap, sample
   * data, test fixtures. Named so that every write not checked by the authorizer is easy to find.
   */
  systemGrant(): Grant {
    const grant = this.grantFor(SYSTEM_ACTOR)
    this.systemGrants.add(grant)
    return grant
  }

  /**
   * The privileges the authorizer grants `actor` on the platform, or on `resourceUrn` when given
   * (platform privileges count there too), where it can tell ('*' = everything).
   */
  async grantedPrivileges(actor: Actor, resourceUrn?: string): Promise<Set<string>> {
    const authz = this.authorizer as {grantedPrivileges?: (a: Actor, r?: string) => Promise<Set<string>>}
    return authz.grantedPrivileges ? authz.grantedPrivileges(actor, resourceUrn) : new Set<string>(['*'])
  }

  /**
   * Runs `fn` holding the per-urn locks of `urns` (in-process, then the store's own across
   * processes where it has them): read-modify-write edits run inside, so none is lost.
   */
  withLocks<T>(urns: Iterable<string>, fn: () => Promise<T>): Promise<T> {
    return this.locks.withLocks(urns, fn)
  }

  private grantFor(actor: Actor): Grant {
    const grant: Grant = Object.freeze({actor})
    this.grants.add(grant)
    return grant
  }

  private check(grant: Grant): void {
    // Only a grant this catalog made is accepted: a write cannot skip `authorize` by forging one.
    if (!this.grants.has(grant)) throw new BugError('A write reached the catalog without a grant from its authorizer')
  }

  /** Writes already-prepared proposals (callers that built values themselves, e.g. mutations). */
  async apply(grant: Grant, prepared: PreparedProposal[], defaults: SystemMetadata = {}): Promise<WriteResult[]> {
    const ops = this.opsOf(grant, prepared, defaults)
    await this.checkTable(grant, ops)
    return this.write(ops, grant.actor)
  }

  /**
   * Asks the authorizer what the authorization table (access/authorization-table.ts) requires of
   * the ops' privileged writes — group and role membership, policies, tokens, credentials — on
   * top of what the grant was given for, whichever route the ops came through. Only the system's
   * own grants skip it.
   */
  private async checkTable(grant: Grant, ops: WriteOp[]): Promise<void> {
    if (this.systemGrants.has(grant)) return
    const actor = grant.actor
    const ruled: Array<{op: WriteOp; rule: PrivilegedRule; w: TableWrite; readAspect?: string; onlyIfHeld?: boolean}> = []
    for (const op of ops) {
      if (op.op === 'timeseries' || op.op === 'deleteTimeseriesOfRun' || op.op === 'deleteTimeseriesRange') continue
      const entityType = 'entityType' in op ? op.entityType : entityTypeOf(op.urn)
      const aspectName = op.op === 'deleteEntity' ? undefined : op.aspectName
      const rule = privilegedRule(entityType, aspectName)
      if (!rule) {
        // Deleting a whole entity deletes its privileged aspects too (a user's status, roles and
        // credentials): each is decided as its own delete, where the entity holds it.
        if (op.op === 'deleteEntity') {
          for (const name of privilegedAspectsOf(entityType)) {
            ruled.push({op, rule: privilegedRule(entityType, name)!, w: {urn: op.urn, entityType, aspectName: name, deleted: true, afterKnown: true}, readAspect: name, onlyIfHeld: true})
          }
        }
        continue
      }
      const w: TableWrite = {urn: op.urn, entityType, aspectName, deleted: op.op === 'deleteEntity' || op.op === 'deleteAspect', afterKnown: op.op !== 'revert', after: op.op === 'upsert' ? JSON.parse(op.value) : undefined}
      // Entity rules (tokens) compare with the entity's one aspect, read whole.
      const readAspect = aspectName ?? ENTITY_INFO_ASPECT[entityType]
      ruled.push({op, rule, w, readAspect: needsBefore(rule) ? readAspect : undefined})
    }
    if (ruled.length === 0) return
    // The stored values the rules compare with, in one read: an ingest writes `status` for every
    // entity, and one read per write would be a round trip each on PostgreSQL.
    const reads = ruled.filter((r) => r.readAspect !== undefined)
    const stored = reads.length === 0 ? undefined : await this.store.getEntities([...new Set(reads.map((r) => r.op.urn))], [...new Set(reads.map((r) => r.readAspect!))])
    for (const {op, rule, w, readAspect, onlyIfHeld} of ruled) {
      const before = readAspect === undefined ? undefined : stored?.get(op.urn)?.aspects[readAspect]?.value
      if (onlyIfHeld && before === undefined) continue
      const fixed = rule.fixed?.(before)
      if (fixed !== undefined) throw new BadRequestError(`${op.urn} ${fixed}`)
      const requests = privilegedRequests(rule, w, actor.urn, before)
      if (requests.length === 0) continue
      const needs = requests.map((r) => r.privileges.map((g) => g.join(' and ')).join(' or ') + (r.resourceUrn && r.resourceUrn !== op.urn ? ` on ${r.resourceUrn}` : '')).join('; ')
      await this.authorizer.authorize(actor, requests, `Unauthorized to change ${rule.what} (${op.urn}${w.aspectName ? ` ${w.aspectName}` : ''}): needs ${needs}`)
    }
  }

  /** The store ops of prepared proposals, stamped now by the grant's actor. */
  private opsOf(grant: Grant, prepared: PreparedProposal[], defaults: SystemMetadata = {}): WriteOp[] {
    this.check(grant)
    const time = this.now()
    const created = {time, actor: grant.actor.urn}
    const base: SystemMetadata = {runId: DEFAULT_RUN_ID, ...defaults, lastObserved: defaults.lastObserved ?? time}
    return prepared.map((p) => toWriteOp(p, created, base))
  }

  /**
   * Raw store ops for delete, rollback and migration, under a grant from their own
   * authorization. Their change-log entries name the system, as they always have; naming the
   * granted actor instead would change the change log, which is for its own issue.
   */
  async writeOps(grant: Grant, ops: WriteOp[]): Promise<WriteResult[]> {
    this.check(grant)
    await this.checkTable(grant, ops)
    return this.write(ops, SYSTEM_ACTOR)
  }

  private async write(ops: WriteOp[], actor: Actor): Promise<WriteResult[]> {
    if (this.changeListeners.length === 0 && this.outbox === undefined) {
      const results = await this.storeWrite(ops)
      const urns = ops.map((o) => o.urn)
      for (const listen of this.writeListeners) listen(urns)
      return results
    }
    // A change log needs the values the write replaces: read them first (callers hold the urns' locks).
    const urns = [...new Set(ops.map((o) => o.urn))]
    // Only the aspects the ops touch (an entity delete needs to know just that the entity was there).
    const touched = [...new Set(ops.flatMap((o) => ('aspectName' in o ? [o.aspectName] : [])))]
    const before = await this.store.getEntities(urns, touched.length > 0 ? touched : undefined)
    const commit = this.outbox?.intent(ops)
    let results: WriteResult[]
    try {
      results = await this.storeWrite(ops)
    } catch (e) {
      if (commit !== undefined) this.outbox!.abandoned(commit)
      throw e
    }
    for (const listen of this.writeListeners) listen(urns)
    const after = ops.some((o) => o.op === 'revert') ? await this.store.getEntities(urns) : new Map()
    const changes = changesOf(ops, results, before, after, actor.urn, this.now())
    if (commit !== undefined) {
      // In place: a spread would work out each change's lazy change events now.
      changes.forEach((c, index) => (c.commit = {seq: commit, index}))
      this.outbox!.committed(commit, changes)
    }
    if (changes.length > 0) for (const listen of this.changeListeners) listen(changes)
    return results
  }

  /** Calls `listen` with the change-log entries of every committed write, in commit order. */
  onChange(listen: (changes: Array<Omit<LoggedChange, 'id'>>) => void): void {
    this.changeListeners.push(listen)
  }

  /**
   * Records every write's intent before it and its change-log entries after it, so a publisher
   * can re-publish what a crash kept from the broker (see src/events/outbox.ts).
   */
  setOutbox(outbox: CommitOutbox): void {
    this.outbox = outbox
  }

  /** Calls `listen` with the urns of every write, after it is durable: for caches of stored state. */
  onWrite(listen: (urns: string[]) => void): void {
    this.writeListeners.push(listen)
  }

  /**
   * What writing raw proposals needs (REST ingestProposal, put): EDIT_ENTITY on an existing
   * entity, or for an aspect with a privilege of its own (globalTags: EDIT_ENTITY_TAGS, …,
   * access/authorization-table.ts) that privilege instead, as the GraphQL edit of it asks;
   * CREATE_ENTITY or EDIT_ENTITY on a new one; DELETE_ENTITY for deletes. Privileged aspects
   * (memberships, policies, tokens, soft deletion) are checked again at the write by `checkTable`.
   */
  private async proposalRequests(prepared: PreparedProposal[]): Promise<AuthzRequest[]> {
    // The existence checks go out together, not one after another: a shared store answers a
    // batch's worth in one round trip instead of one per entity.
    const requests: Array<AuthzRequest | Promise<AuthzRequest[]>> = []
    const deletes = new Set<string>()
    // Per written urn, the specific privileges its aspects allow (undefined: some aspect needs EDIT_ENTITY).
    const writes = new Map<string, Set<string> | undefined>()
    for (const p of prepared) {
      if (p.changeType === 'DELETE') {
        if (!deletes.has(p.urn)) {
          deletes.add(p.urn)
          requests.push({resourceUrn: p.urn, privileges: DELETE_PRIVILEGES})
        }
        continue
      }
      const specific = aspectPrivilege(p.aspectName)
      if (!writes.has(p.urn)) writes.set(p.urn, specific === undefined ? undefined : new Set([specific]))
      else if (specific === undefined) writes.set(p.urn, undefined)
      else writes.get(p.urn)?.add(specific)
    }
    for (const [urn, specific] of writes) {
      requests.push(
        this.store.exists(urn).then((found): AuthzRequest[] => {
          if (!found) return [{resourceUrn: urn, privileges: EDIT_OR_CREATE_PRIVILEGES}]
          if (specific === undefined) return [{resourceUrn: urn, privileges: EDIT_PRIVILEGES}]
          return [...specific].map((s) => ({resourceUrn: urn, privileges: [['EDIT_ENTITY'], [s]]}))
        }),
      )
    }
    return (await Promise.all(requests)).flat()
  }

  // ------------------------------------------------------------------ reads
  //
  // The read model, one for every reader above the catalog (REST routes, GraphQL resolvers, the
  // local `lite` verbs): stored values with the model's defaults filled in (model/defaults.ts)
  // and secret aspects left out. `getEntity`/`getAspect` add REST's checks and not-found
  // answers; `readEntities`/`readAspect` answer absent or null, for GraphQL's loaders.

  /** The entities of `urns` that exist, with all or the named aspects, as the read model has them. */
  async readEntities(urns: string[], aspectNames?: string[]): Promise<Map<string, EntityRecord>> {
    const found = await this.store.getEntities(urns, aspectNames)
    for (const [urn, e] of found) {
      const read = readModelOf(e)
      if (read !== e) found.set(urn, read)
    }
    return found
  }

  /** One version of an aspect (0 = latest) as the read model has it, or null. */
  async readAspect(urn: string, aspectName: string, version = 0): Promise<StoredAspect | null> {
    const a = SECRET_ASPECTS.has(aspectName) ? null : await this.store.getAspect(urn, aspectName, version)
    if (!a) return null
    const v = withModelDefaults(aspectName, a.value)
    return v === a.value ? a : {...a, value: v, valueText: undefined}
  }

  async getEntity(urn: string, aspects?: string[]): Promise<EntityRecord | null> {
    const {spec} = validateUrn(urn)
    if (aspects) for (const a of aspects) if (!aspectSpec(a)) throw new BadRequestError(`Unknown aspect ${a} for entity ${spec.name}`)
    const e = await this.store.getEntity(urn, aspects)
    return e ? readModelOf(e) : e
  }

  async requireEntity(urn: string, aspects?: string[]): Promise<EntityRecord> {
    const e = await this.getEntity(urn, aspects)
    if (!e) throw new NotFoundError(`Entity ${urn} does not exist`)
    return e
  }

  async getAspect(urn: string, aspectName: string, version = 0): Promise<StoredAspect> {
    const {spec} = validateUrn(urn)
    // Not found rather than a bad request: DataHub has aspects mdcli does not model
    // (documentation, displayProperties, …), and as no write of one is taken, no entity holds
    // one. DataHub's SDK reads a 404 as "no such aspect" (get_aspect answers None).
    if (!aspectSpec(aspectName)) {
      const hint = nearest(aspectName, aspectsOf(spec.name))
      throw new UnknownAspectError(`Unknown aspect ${aspectName}: mdcli does not model it, so ${urn} holds none${hint ? ` (did you mean ${hint}?)` : ''}`, 404)
    }
    if (!Number.isInteger(version) || version < 0) throw new BadRequestError(`version must be a whole number >= 0, got ${version}`)
    const a = await this.readAspect(urn, aspectName, version)
    if (!a) throw new NotFoundError(`Did not find urn: ${urn} aspect: ${aspectName} version: ${version}`)
    return a
  }

  /** Latest value of an aspect as stored (what an edit reads to modify and write back), or undefined. */
  async aspectValue<T = Record<string, unknown>>(urn: string, aspectName: string): Promise<T | undefined> {
    const a = SECRET_ASPECTS.has(aspectName) ? null : await this.store.getAspect(urn, aspectName, 0)
    return a ? (a.value as T) : undefined
  }

  isTimeseries(aspectName: string): boolean {
    return isTimeseries(aspectName)
  }

  /**
   * The entities of `urns` that exist, as stored (no model defaults), with all or the named
   * aspects, secret aspects never: what the change log carries (a re-publish rebuilds from it).
   */
  async entitiesAsStored(urns: string[], aspectNames?: string[]): Promise<Map<string, EntityRecord>> {
    const found = await this.store.getEntities(urns, aspectNames)
    for (const [urn, e] of found) {
      const clean = withoutSecrets(e)
      if (clean !== e) found.set(urn, clean)
    }
    return found
  }

  /** Whether a user has a native password (the credentials aspect), without reading its value out. */
  async hasNativeCredentials(urn: string): Promise<boolean> {
    return (await this.store.getAspect(urn, 'corpUserCredentials', 0)) !== null
  }

  exists(urn: string, opts?: {includeSoftDeleted?: boolean}): Promise<boolean> {
    return this.store.exists(urn, opts)
  }

  /** Urns of the live entities of one type, for lists of types search does not index (roles, posts). */
  async listUrns(entityType: string): Promise<string[]> {
    return (await this.store.listUrns({entityType, includeSoftDeleted: false})).urns
  }

  search(req: SearchRequest): Promise<SearchResponse> {
    return this.feed.query(urnQueryAsFilter(req))
  }

  /**
   * Starts filling a search index that does not outlive the process (the embedded store's thread)
   * in the background, as a server does at its start; otherwise the first search waits for it.
   */
  warmSearch(): void {
    this.feed.warm()
  }

  /** Entities written but not yet sent to the search index (after-acknowledge feeding only). */
  searchBacklog(): number {
    return this.feed.backlog()
  }

  async listVersions(urn: string, aspectName: string): Promise<StoredAspect[]> {
    return SECRET_ASPECTS.has(aspectName) ? [] : this.store.listVersions(urn, aspectName)
  }

  listTimeseries(urn: string, aspectName: string, opts?: {startTime?: number; endTime?: number; limit?: number}): Promise<StoredAspect[]> {
    return this.store.listTimeseries(urn, aspectName, opts)
  }

  /** Aspects of other entities that hold any of `targets`. */
  referencesTo(targets: string[], opts?: ReferenceQuery): Promise<Array<{target: string; urn: string; aspectName: string}>> {
    return this.store.referencesTo(targets, opts)
  }

  // ------------------------------------------------ reads for the catalog's own services
  //
  // As stored, secret aspects included, soft-deleted entities where asked: what delete, rollback,
  // migration and access control (the modules of src/catalog) decide from. Routes, resolvers and
  // commands read through the methods above; test/server/layering.test.ts holds them to it.

  /** One version of an aspect as stored (0 = latest), secrets included, or null. */
  rawAspect(urn: string, aspectName: string, version = 0): Promise<StoredAspect | null> {
    return this.store.getAspect(urn, aspectName, version)
  }

  /** An entity as stored (all or the named aspects, secrets included), or null. */
  rawEntity(urn: string, aspectNames?: string[]): Promise<EntityRecord | null> {
    return this.store.getEntity(urn, aspectNames)
  }

  /** The entities of `urns` that exist, as stored (secrets included). */
  rawEntities(urns: string[], aspectNames?: string[]): Promise<Map<string, EntityRecord>> {
    return this.store.getEntities(urns, aspectNames)
  }

  /** Every version of an aspect as stored (secrets included). */
  rawVersions(urn: string, aspectName: string): Promise<StoredAspect[]> {
    return this.store.listVersions(urn, aspectName)
  }

  /** Urns by type (or of every type), soft-deleted ones included unless asked otherwise. */
  rawUrns(req: ListUrnsRequest): Promise<{total: number; urns: string[]}> {
    return this.store.listUrns({includeSoftDeleted: true, ...req})
  }

  /** Runs `fn` with the store's reads seeing one moment where other servers may write meanwhile (a backup); see `StoreCapabilities.snapshot`. */
  readSnapshot<T>(fn: () => Promise<T>): Promise<T> {
    const snapshot = this.store.capabilities?.snapshot
    return snapshot ? snapshot(fn) : fn()
  }

  /** Every entity of one type with the named aspects as stored: the small types access control and edits scan (policies, tokens, domains). */
  async rawEntitiesOfType(entityType: string, aspectNames: string[], opts: {includeSoftDeleted?: boolean} = {}): Promise<EntityRecord[]> {
    const {urns} = await this.store.listUrns({entityType, includeSoftDeleted: opts.includeSoftDeleted ?? true})
    return [...(await this.store.getEntities(urns, aspectNames)).values()]
  }

  /** The runs with rows in the store's run index (see `MetadataStore.listRuns`). */
  runIndex(opts?: {start?: number; count?: number}): Promise<RunSummary[]> {
    return this.store.listRuns(opts)
  }

  /** Every row a run wrote (any version, and timeseries rows). */
  runRows(runId: string): Promise<RunRow[]> {
    return this.store.runRows(runId)
  }

  /** Makes rows another program wrote to a shared store visible (see `MetadataStore.indexExisting`). */
  async indexExisting(urns: string[]): Promise<void> {
    if (!this.store.indexExisting) return
    await this.store.indexExisting(urns)
    await this.feed.refresh(urns)
  }

  /**
   * DataHub's "restore indices" for a store that declares it (`capabilities.reindex`): the store
   * rebuilds what it derives from its rows, then the search index is emptied and filled again
   * from every entity. Undefined when the store has nothing to rebuild.
   */
  async reindex(onProgress?: (done: number) => void): Promise<{entities: number; removed: number} | undefined> {
    const reindex = this.store.capabilities?.reindex
    if (!reindex) return undefined
    const r = await reindex(onProgress)
    await this.feed.rebuild()
    return r
  }
}

/** An entity as the read model has it (see the reads of Catalog): secrets out, defaults in. */
function readModelOf(e: EntityRecord): EntityRecord {
  return entityWithModelDefaults(withoutSecrets(e))
}

/** The entity without its secret aspects (the same object when it has none). */
function withoutSecrets(e: EntityRecord): EntityRecord {
  let aspects: EntityRecord['aspects'] | undefined
  for (const name of SECRET_ASPECTS) {
    if (e.aspects[name] === undefined) continue
    aspects ??= {...e.aspects}
    delete aspects[name]
  }
  return aspects ? {...e, aspects} : e
}

/** `urn:li:<type>:…` → `<type>` (urns reaching the write path were validated already). */
function entityTypeOf(urn: string): string {
  return urn.slice('urn:li:'.length, urn.indexOf(':', 'urn:li:'.length))
}

/** The aspect an entity rule of the authorization table reads to tell whose the entity is. */
const ENTITY_INFO_ASPECT: Record<string, string> = {dataHubAccessToken: 'dataHubAccessTokenInfo', dataHubPolicy: 'dataHubPolicyInfo'}

/**
 * A query that is a whole urn finds that entity: a DataHub user pastes urns into search, and an
 * urn's words alone ("urn", "li", the entity type) are not what documents are indexed under. The
 * urn becomes a filter of every AND-group, so types, other filters, soft deletion and paging apply
 * as to any query, and every index answers it the same way.
 */
export function urnQueryAsFilter(req: SearchRequest): SearchRequest {
  const q = req.query.trim()
  if (!q.startsWith('urn:li:')) return req
  let tuple: boolean
  try {
    tuple = parseUrn(q).isTuple
  } catch {
    return req
  }
  // A simple key may hold spaces, so a query with one is an urn only when a tuple's closing
  // parenthesis ends it: "urn:li:tag:pii customers" stays a query of words.
  if (!tuple && /\s/.test(q)) return req
  const byUrn = {field: 'urn', values: [q]}
  const groups = req.filters && req.filters.length > 0 ? req.filters : [[]]
  return {...req, query: '*', filters: groups.map((g) => [...g, byUrn])}
}

