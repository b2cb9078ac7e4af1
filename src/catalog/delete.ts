/**
 * Deleting entities, finding what refers to them, and the urn search that filter deletes walk.
 *
 * Glossary:
 * - hard delete: every row of the entity goes — all versions of every versioned aspect, every
 *   timeseries row — and the entity leaves search (store op `deleteEntity`).
 * - soft delete: the entity stays but `status {removed: true}` hides it from search, browse and
 *   lineage; written with run id `__mdcli-delete-cli`, as DataHub's CLI writes `__datahub-delete-cli`.
 * - reference: an aspect of another entity that holds the urn (lineage, container membership,
 *   tags on entities, …). Deleting never cascades: references are reported, not followed.
 * - versioned rows / timeseries rows: what a delete impacts, counted as DataHub's CLI reports it.
 */
import {BadRequestError, TooLargeError, UnknownEntityTypeError} from '../errors.js'
import {FACET_FIELDS, type FacetField} from '../model/search-doc.js'
import {aspectSpec, aspectsOf, entitySpecs, isTimeseries, nearest, validateUrn} from '../model/registry.js'
import {aspectProblems} from '../model/schemas.js'
import type {FacetFilter, SearchRequest, SearchResponse, WriteOp} from '../store/types.js'
import {type Actor, type Catalog, type Grant} from './catalog.js'
import {prepareProposal, toWriteOp} from './proposal.js'

export const DELETE_RUN_ID = '__mdcli-delete-cli'
/** Urns per store write: big enough to be fast, small enough to keep one journal record modest. */
export const DELETE_BATCH = 1000
/** Most urns one delete request may carry. */
export const MAX_DELETE_URNS = 10_000
/** How many references a report lists. */
export const REFERENCE_SAMPLE = 10
/** Largest page, and where offset paging stops unless the server's --max-result-window says otherwise (DataHub's search window); the `after` cursor walks past it. */
export const SEARCH_WINDOW = 10_000

export interface RelatedAspect {
  /** DataHub's relationship name where one fits (DownstreamOf, IsPartOf, …), else `References`. */
  relationship: string
  /** The entity holding the reference. */
  entity: string
  aspect: string
  /** The urn referred to (the deleted one). */
  urn: string
}

export interface ReferenceReport {
  checked: boolean
  /** Referencing aspects found. */
  total: number
  /** Distinct referencing entities. */
  entities: number
  sample: RelatedAspect[]
}

export interface DeleteRequest {
  urns: string[]
  soft?: boolean
  dryRun?: boolean
  /** Report references to hard-deleted urns. */
  checkReferences?: boolean
  /** Only this timeseries aspect's rows in [startTimeMillis, endTimeMillis] go (DataHub's `delete -a`); a bound left out is open. */
  aspectName?: string
  startTimeMillis?: number
  endTimeMillis?: number
}

export interface DeleteReport {
  soft: boolean
  dryRun: boolean
  /** Entities deleted (or, in a dry run, that would be). */
  entities: number
  /** Versioned aspect rows removed (hard) or written (soft). */
  rows: number
  timeseriesRows: number
  deleted: string[]
  /** Urns with no entity behind them: nothing to delete. */
  notFound: string[]
  /** Soft delete: urns already soft-deleted, left as they were (not counted in `entities`). */
  alreadyDeleted?: string[]
  references?: ReferenceReport
}

/** Aspect name → DataHub relationship name of the reference it holds. */
const RELATIONSHIPS: Record<string, string> = {
  upstreamLineage: 'DownstreamOf',
  container: 'IsPartOf',
  ownership: 'OwnedBy',
  globalTags: 'TaggedWith',
  glossaryTerms: 'TermedWith',
  domains: 'AssociatedWith',
  dashboardInfo: 'Contains',
  chartInfo: 'Consumes',
  dataJobInputOutput: 'Consumes',
  dataJobInfo: 'IsPartOf',
  glossaryTermInfo: 'IsPartOf',
  glossaryNodeInfo: 'IsPartOf',
  glossaryRelatedTerms: 'IsRelatedTo',
  groupMembership: 'IsMemberOfGroup',
  corpUserInfo: 'ReportsTo',
  siblings: 'SiblingOf',
  editableSchemaMetadata: 'TaggedWith',
  schemaMetadata: 'ForeignKeyTo',
}

/** An entity type by registry name, case-insensitively; unknown names get a suggestion. */
export function resolveEntityType(name: string): string {
  const specs = entitySpecs()
  const hit = specs.find((s) => s.name.toLowerCase() === name.toLowerCase() || s.graphqlType === name.toUpperCase())
  if (hit) return hit.name
  const names = specs.map((s) => s.name)
  const guess = nearest(name, names)
  throw new UnknownEntityTypeError(`Unknown entity type '${name}'.${guess ? ` Did you mean '${guess}'?` : ''} Known types: ${names.join(', ')}`)
}

// ------------------------------------------------------------------ search

export interface UrnSearchRequest {
  /** Offset paging stops here (default SEARCH_WINDOW; the server's --max-result-window). */
  window?: number
  /** Entity types (registry names); empty = every searchable type. */
  types?: string[]
  query?: string
  /**
   * OR of AND-groups of facet conditions: platform (urn or plain name), origin, removed, or any
   * facet field; `negated` inverts one condition.
   */
  filters?: Array<Array<{field: string; value: string; negated?: boolean}>>
  includeSoftDeleted?: boolean
  start?: number
  count?: number
  /** Cursor mode: `null` starts a walk, a previous `next` continues it. */
  after?: string | null
}

export interface UrnSearchPage {
  total: number
  entities: Array<{urn: string; entityType: string}>
  next?: string | null
}

function facetFilter(field: string, value: string, negated?: boolean): FacetFilter {
  const f = field.endsWith('.keyword') ? field.slice(0, -'.keyword'.length) : field
  const neg = negated ? {negated: true} : {}
  if (typeof value !== 'string') throw new BadRequestError(`Filter on '${field}' needs a string value`)
  if (f === 'platform') return {field: 'platform', values: [value.startsWith('urn:li:dataPlatform:') ? value : `urn:li:dataPlatform:${value}`], ...neg}
  if (f === 'removed' || f === 'urn' || f === 'name') return {field: f, values: [value], ...neg}
  if (f === '') throw new BadRequestError('A filter needs a field name')
  // Any other field matches nothing (negated, everything), as in GraphQL and in DataHub's index
  // for a field its documents lack: DataHub's clients send such fields among alternatives.
  return {field: (FACET_FIELDS as readonly string[]).includes(f) ? (f as FacetField) : f, values: [value], ...neg}
}

/** One page of urns matching types, text and facet filters; offset pages stop at the search window. */
export async function searchUrns(store: {search(req: SearchRequest): Promise<SearchResponse>}, req: UrnSearchRequest): Promise<UrnSearchPage> {
  const types = (req.types ?? []).map(resolveEntityType)
  const window = req.window ?? SEARCH_WINDOW
  const cursor = req.after !== undefined
  // A page is at most SEARCH_WINDOW long whatever the window; offset pages also end within it.
  const count = req.count ?? (cursor ? 1000 : Math.min(1000, window))
  if (!Number.isInteger(count) || count < 0 || count > SEARCH_WINDOW) throw new BadRequestError(`count must be between 0 and ${SEARCH_WINDOW}`)
  const start = req.start ?? 0
  if (!cursor && start + count > window) {
    // The window in details too: a client without the cursor (the CLI's search) words its own advice.
    throw new BadRequestError(`start + count must not exceed ${window}; walk further with the 'after' cursor (start a walk with "after": null)`, {window})
  }
  const groups = (req.filters ?? []).map((g) => g.map((f) => facetFilter(f.field, f.value, f.negated))).filter((g) => g.length > 0)
  const res = await store.search({
    types,
    query: req.query && req.query.trim() !== '' ? req.query : '*',
    filters: groups.length > 0 ? groups : undefined,
    // A condition on `removed` is meaningless unless soft-deleted entities are in the running.
    includeSoftDeleted: req.includeSoftDeleted === true || groups.some((g) => g.some((f) => f.field === 'removed')),
    count,
    ...(cursor ? {after: req.after} : {start}),
  })
  return {total: res.total, entities: res.hits.map((h) => ({urn: h.urn, entityType: h.entityType})), ...(cursor ? {next: res.next ?? null} : {})}
}

// ------------------------------------------------------------------ references

/** Aspects of other entities that hold any of `urns` (one pass), leaving out entities in `exclude`. */
export async function findReferences(catalog: Pick<Catalog, 'referencesTo'>, urns: string[], exclude?: ReadonlySet<string>): Promise<RelatedAspect[]> {
  const refs = await catalog.referencesTo(urns)
  return refs
    .filter((r) => !exclude?.has(r.urn))
    .map((r) => ({relationship: RELATIONSHIPS[r.aspectName] ?? 'References', entity: r.urn, aspect: r.aspectName, urn: r.target}))
}

function referenceReport(all: RelatedAspect[]): ReferenceReport {
  return {checked: true, total: all.length, entities: new Set(all.map((r) => r.entity)).size, sample: all.slice(0, REFERENCE_SAMPLE)}
}

/**
 * Whether an object is an audit stamp (`{time, actor, impersonator?, message?}`): it says who did
 * something and when, which is no relationship. DataHub's references are its graph's edges, and
 * no edge runs from an aspect to the actor of its stamps, so deleting a user's references leaves
 * every `created` / `lastModified` / `auditStamp` naming them as it is.
 */
function isAuditStamp(x: object): boolean {
  const o = x as Record<string, unknown>
  return typeof o.time === 'number' && typeof o.actor === 'string'
}

/** Whether a value holds `urn` other than as an audit stamp's actor. */
function refersTo(v: unknown, urn: string): boolean {
  if (v === urn) return true
  if (Array.isArray(v)) return v.some((x) => refersTo(x, urn))
  if (v !== null && typeof v === 'object') return !isAuditStamp(v) && Object.values(v as Record<string, unknown>).some((x) => refersTo(x, urn))
  return false
}

/**
 * The value without its references to `urn`, as DataHub removes a relationship at its path: a
 * list item that is, or directly holds, the urn goes; a field holding it goes (a term's
 * `parentNode`, a user's `managerUrn`); audit stamps stay. Whether what remains is still a valid
 * value (a `container` without its container is not) is for the caller to ask.
 */
function withoutReference(v: unknown, urn: string): {value: unknown; stillHeld: boolean} {
  let stillHeld = false
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) {
      return x
        .filter((item) => {
          if (item === urn) return false
          if (item !== null && typeof item === 'object' && !Array.isArray(item) && !isAuditStamp(item)) return !Object.values(item as Record<string, unknown>).includes(urn)
          return true
        })
        .map(walk)
    }
    if (x !== null && typeof x === 'object' && isAuditStamp(x)) return x
    if (x !== null && typeof x === 'object') {
      const out: Record<string, unknown> = {}
      for (const [k, val] of Object.entries(x as Record<string, unknown>)) if (val !== urn) out[k] = walk(val)
      return out
    }
    if (x === urn) stillHeld = true
    return x
  }
  const value = walk(v)
  return {value, stillHeld}
}

/**
 * DataHub's `deleteReferences`: lists the aspects that refer to `urn`; unless `dryRun`, removes
 * the reference from each (the list item or the field that holds it), deleting the aspect instead
 * when what remains would not be a valid value (e.g. `container {container: urn}`).
 */
export async function deleteReferences(catalog: Catalog, actor: Actor, req: {urn: string; dryRun?: boolean}): Promise<{total: number; relatedAspects: RelatedAspect[]}> {
  validateUrn(req.urn)
  // The stores' reference lists count every urn a value mentions, audit stamps' actors too:
  // each candidate is read and kept only where the urn is a reference (a stamp naming the
  // user is not, and removing it would have meant deleting the whole aspect).
  const related: RelatedAspect[] = []
  for (const r of await findReferences(catalog, [req.urn])) {
    const current = await catalog.rawAspect(r.entity, r.aspect)
    if (current && refersTo(current.value, req.urn)) related.push(r)
  }
  const out = {total: related.length, relatedAspects: related}
  if (req.dryRun !== false || related.length === 0) return out
  const grant = await catalog.authorize(actor, [
    {resourceUrn: req.urn, privileges: [['DELETE_ENTITY']]},
    ...[...new Set(related.map((r) => r.entity))].map((u) => ({resourceUrn: u, privileges: [['EDIT_ENTITY']]})),
  ])
  const time = catalog.now()
  const ops: WriteOp[] = []
  for (const r of related) {
    const current = await catalog.rawAspect(r.entity, r.aspect)
    if (!current) continue
    const {value, stillHeld} = withoutReference(current.value, req.urn)
    if (stillHeld || aspectProblems(r.aspect, value).length > 0) {
      ops.push({op: 'deleteAspect', urn: r.entity, aspectName: r.aspect})
      continue
    }
    const prepared = prepareProposal({entityUrn: r.entity, aspectName: r.aspect, changeType: 'UPSERT', aspect: {json: value}})
    ops.push(toWriteOp(prepared, {time, actor: actor.urn}, {runId: DELETE_RUN_ID, lastObserved: time}))
  }
  await catalog.writeOps(grant, ops)
  return out
}

// ------------------------------------------------------------------ delete

async function countRows(catalog: Catalog, urn: string, withTimeseries: boolean): Promise<{versioned: number; timeseries: number} | null> {
  const e = await catalog.rawEntity(urn)
  if (!e) return null
  let versioned = 0
  let timeseries = 0
  for (const a of Object.values(e.aspects)) {
    if (a.kind === 'versioned') versioned += (await catalog.rawVersions(urn, a.aspectName)).length
    else if (withTimeseries) timeseries += (await catalog.listTimeseries(urn, a.aspectName, {limit: Number.MAX_SAFE_INTEGER})).length
  }
  return {versioned, timeseries}
}

/**
 * Deletes entities, hard (every row) or soft (status removed), in batches of DELETE_BATCH urns
 * per store write, after the DELETE_ENTITY check on every urn. A dry run checks and counts the
 * same way and writes nothing.
 */
export async function deleteEntities(catalog: Catalog, actor: Actor, req: DeleteRequest): Promise<DeleteReport> {
  const soft = req.soft === true
  const dryRun = req.dryRun === true
  const urns = [...new Set(req.urns)]
  if (urns.length > MAX_DELETE_URNS) throw new TooLargeError(`A delete request may name at most ${MAX_DELETE_URNS} urns (got ${urns.length}); send several requests`)
  for (const u of urns) {
    const {spec} = validateUrn(u)
    if (soft && !aspectsOf(spec.name).includes('status')) {
      throw new BadRequestError(`${spec.name} entities have no status aspect and cannot be soft-deleted (${u}); delete them hard instead`)
    }
  }
  const grant = await catalog.authorize(actor, urns.map((u) => ({resourceUrn: u, privileges: [['DELETE_ENTITY']]})))
  if (req.aspectName !== undefined) return deleteTimeseriesRows(catalog, grant, urns, req)

  const report: DeleteReport = {soft, dryRun, entities: 0, rows: 0, timeseriesRows: 0, deleted: [], notFound: []}
  if (!soft && req.checkReferences) {
    report.references = referenceReport(await findReferences(catalog, urns, new Set(urns)))
  }

  for (let i = 0; i < urns.length; i += DELETE_BATCH) {
    const batch = urns.slice(i, i + DELETE_BATCH)
    const ops: WriteOp[] = []
    const present: string[] = []
    let versionedInBatch = 0
    const time = catalog.now()
    for (const u of batch) {
      if (soft) {
        if (!(await catalog.exists(u))) {
          report.notFound.push(u)
          continue
        }
        // A second soft delete would write nothing new; it is reported as what it is.
        if (((await catalog.rawAspect(u, 'status'))?.value as {removed?: unknown} | undefined)?.removed === true) {
          ;(report.alreadyDeleted ??= []).push(u)
          continue
        }
        present.push(u)
        const prepared = prepareProposal({entityUrn: u, aspectName: 'status', changeType: 'UPSERT', aspect: {json: {removed: true}}})
        ops.push(toWriteOp(prepared, {time, actor: actor.urn}, {runId: DELETE_RUN_ID, lastObserved: time}))
      } else {
        const counts = await countRows(catalog, u, dryRun)
        if (!counts) {
          report.notFound.push(u)
          continue
        }
        present.push(u)
        versionedInBatch += counts.versioned
        if (dryRun) {
          report.rows += counts.versioned
          report.timeseriesRows += counts.timeseries
        }
        ops.push({op: 'deleteEntity', urn: u})
      }
    }
    report.deleted.push(...present)
    report.entities += present.length
    if (dryRun) {
      if (soft) report.rows += present.length
      continue
    }
    const results = await catalog.writeOps(grant, ops)
    if (soft) report.rows += results.filter((r) => r.changed).length
    else {
      const removed = results.reduce((n, r) => n + r.rowsRemoved, 0)
      report.rows += versionedInBatch
      report.timeseriesRows += removed - versionedInBatch
    }
  }
  return report
}

/** A time in milliseconds for a message: ISO when it is a date (a bound far out of range is not). */
const instant = (t: number): string => (Number.isFinite(new Date(t).getTime()) ? new Date(t).toISOString() : `${t} ms`)

/** Deletes the rows of one timeseries aspect in a time window, entity by entity. */
async function deleteTimeseriesRows(catalog: Catalog, grant: Grant, urns: string[], req: DeleteRequest): Promise<DeleteReport> {
  const aspect = req.aspectName!
  if (req.soft) throw new BadRequestError('You cannot provide an aspect name when performing a soft delete. Use --hard to perform a hard delete.')
  if (!aspectSpec(aspect)) throw new BadRequestError(`Unknown aspect ${aspect}`)
  if (!isTimeseries(aspect)) throw new BadRequestError('Aspect-specific deletion is only supported for timeseries aspects. Please delete the full entity or use a rollback instead.')
  // A missing bound is open, as GMS's deleteTimeseriesAspects takes it (the SDK's
  // hard_delete_timeseries_aspect sends none for "from the beginning" or "to the end"); the CLI
  // asks for both, as DataHub's does (cli/delete.ts).
  const start = req.startTimeMillis ?? Number.MIN_SAFE_INTEGER
  const end = req.endTimeMillis ?? Number.MAX_SAFE_INTEGER
  if (start > end) throw new BadRequestError(`--start-time (${instant(start)}) is after --end-time (${instant(end)})`)
  const report: DeleteReport = {soft: false, dryRun: req.dryRun === true, entities: 0, rows: 0, timeseriesRows: 0, deleted: [], notFound: []}
  const ops: WriteOp[] = []
  for (const u of urns) {
    const rows = (await catalog.listTimeseries(u, aspect, {startTime: start, endTime: end, limit: Number.MAX_SAFE_INTEGER})).length
    if (rows === 0) {
      report.notFound.push(u)
      continue
    }
    report.deleted.push(u)
    report.entities++
    report.timeseriesRows += rows
    ops.push({op: 'deleteTimeseriesRange', urn: u, aspectName: aspect, startTime: start, endTime: end})
  }
  if (!report.dryRun && ops.length > 0) await catalog.writeOps(grant, ops)
  return report
}
