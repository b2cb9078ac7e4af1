/**
 * Ingestion runs: listing them, describing their rows, and rolling them back.
 *
 * Glossary:
 * - run: every row whose `systemMetadata.runId` is the run's id (set by `mdcli ingest`).
 * - top versions: an aspect's versions from the latest down (version 0, then n, n-1, … 1).
 *   Rollback reverts the consecutive top versions the run wrote; a version of the run buried
 *   under a later run's version stays, because reverting it would also undo that later run.
 * - created entity: one whose key aspect row carries the run's id — the run brought it into
 *   being. Rollback soft-deletes it (`status {removed: true}`, run id `__mdcli-rollback`) or,
 *   with `hard`, deletes it with every row.
 * - unsafe entity: a created entity that also holds aspects of other runs; a soft delete hides
 *   them, a hard delete removes them.
 *
 * All writes of one rollback go to the store as one batch, after one authorization check.
 */
import {BadRequestError} from '../errors.js'
import {isKeyAspect, SECRET_ASPECTS, SOFT_DELETE_ASPECT, supportsSoftDelete} from '../model/registry.js'
import {DEFAULT_RUN_ID, type RunRow, type RunSummary, type SystemMetadata, type WriteOp} from '../store/types.js'
import {type Actor, type Catalog} from './catalog.js'

/** Run id stamped on the status rows a soft-deleting rollback writes. */
export const ROLLBACK_RUN_ID = '__mdcli-rollback'

/** The rows of a report, like DataHub's AspectRowSummary. */
export interface AspectRowSummary {
  runId: string
  aspectName: string
  urn: string
  /** When the row was written (ms). */
  timestamp: number
  version: number
  keyAspect: boolean
  /** The aspect value (describe with includeAspect). */
  aspect?: unknown
  /** Observed, not written: the run sent the value already stored (no new version). */
  unchanged?: boolean
}

/**
 * A run as `ingest list-runs` shows it. `rows` are aspect rows the run wrote; `unchanged` are
 * aspects it sent that were already up to date (a re-run of unchanged data writes none but
 * observes them all: DataHub moves their `lastRunId`). Only the latest run to observe an aspect
 * is known, as in DataHub's system metadata.
 */
export interface RunListing extends RunSummary {
  /** Rows that are aspects the run sent and the server stored as new versions (rows − keyAspects). */
  aspectsWritten: number
  /** Rows that are key aspects of entities the run created (stored with their first aspect, never sent). */
  keyAspects: number
  unchanged: number
  state: 'written' | 'observed' | 'rolled back'
}

export interface RollbackOptions {
  runId: string
  dryRun?: boolean
  /** Delete created entities with every row instead of marking them removed. */
  hard?: boolean
}

export interface RollbackReport {
  runId: string
  dryRun: boolean
  hard: boolean
  /** Distinct entities any op touches. */
  entitiesAffected: number
  /** Rows reverted: aspect versions reverted, timeseries rows deleted, and key rows of deleted entities. */
  aspectsReverted: number
  /** Of `aspectsReverted`, the key aspects of the entities the run created (the rest are aspects it wrote). */
  keyAspectsReverted: number
  /** Entities the run created that are (soft or hard) deleted. */
  entitiesDeleted: number
  /** Aspects of other runs on deleted entities (hidden by a soft delete, gone with a hard one). */
  aspectsAffected: number
  unsafeEntitiesCount: number
  unsafeEntities: Array<{urn: string}>
  /** Versions of the run that stay because a later run wrote over them. */
  aspectsKept: number
  /** The first 100 rows reverted or deleted. */
  aspectRowSummaries: AspectRowSummary[]
  /** Why nothing was rolled back, when nothing was. */
  note?: string
}

/** Property on the status rows of a soft-deleting rollback naming the run it rolled back. */
const ROLLED_BACK_RUN = 'mdcli.rolledBackRun'

interface Observations {
  /** Per run: aspects whose lastRunId is the run but whose value another run wrote. */
  unchanged: Map<string, Array<{urn: string; aspectName: string; time: number}>>
  /** Runs a rollback marked, with when. */
  rolledBack: Map<string, number>
  /** Per run: latest key aspects it stored (entities it created). */
  keyAspects: Map<string, number>
}

/** One pass over the latest aspects: what runs observed, and which runs were rolled back. */
async function observations(catalog: Catalog, onlyRun?: string): Promise<Observations> {
  const out: Observations = {unchanged: new Map(), rolledBack: new Map(), keyAspects: new Map()}
  const {urns} = await catalog.rawUrns({includeSoftDeleted: true})
  for (let i = 0; i < urns.length; i += 500) {
    const ents = await catalog.rawEntities(urns.slice(i, i + 500))
    for (const e of ents.values()) {
      for (const a of Object.values(e.aspects)) {
        const sm = a.systemMetadata
        if (sm.lastRunId && sm.lastRunId !== sm.runId && (!onlyRun || sm.lastRunId === onlyRun)) {
          const list = out.unchanged.get(sm.lastRunId) ?? []
          list.push({urn: e.urn, aspectName: a.aspectName, time: sm.lastObserved ?? a.created.time})
          out.unchanged.set(sm.lastRunId, list)
        }
        if (sm.runId && isKeyAspect(e.entityType, a.aspectName)) out.keyAspects.set(sm.runId, (out.keyAspects.get(sm.runId) ?? 0) + 1)
        const rb = sm.runId === ROLLBACK_RUN_ID ? sm.properties?.[ROLLED_BACK_RUN] : undefined
        if (rb) out.rolledBack.set(rb, Math.max(out.rolledBack.get(rb) ?? 0, a.created.time))
      }
    }
  }
  return out
}

const REPORT_ROWS = 100

/**
 * Every run that wrote or observed anything, newest first: runs with rows from the store's run
 * index, and runs that only observed (a re-run of unchanged data) from the aspects' lastRunId.
 */
export async function listRuns(catalog: Catalog, opts: {start?: number; count?: number} = {}): Promise<RunListing[]> {
  const written = await catalog.runIndex({start: 0, count: Number.MAX_SAFE_INTEGER})
  const obs = await observations(catalog)
  const byId = new Map<string, RunListing>()
  for (const r of written) {
    const keyAspects = Math.min(r.rows, obs.keyAspects.get(r.runId) ?? 0)
    byId.set(r.runId, {...r, aspectsWritten: r.rows - keyAspects, keyAspects, unchanged: 0, state: 'written'})
  }
  for (const [runId, list] of obs.unchanged) {
    const prev = byId.get(runId)
    if (prev) prev.unchanged = list.length
    else byId.set(runId, {runId, timestamp: Math.min(...list.map((l) => l.time)), rows: 0, aspectsWritten: 0, keyAspects: 0, unchanged: list.length, state: 'observed'})
  }
  for (const runId of obs.rolledBack.keys()) {
    const prev = byId.get(runId)
    if (prev) prev.state = 'rolled back'
  }
  const all = [...byId.values()].sort((a, b) => b.timestamp - a.timestamp || (a.runId < b.runId ? -1 : 1))
  const start = opts.start ?? 0
  return all.slice(start, start + (opts.count ?? 100))
}

function summary(runId: string, r: RunRow): AspectRowSummary {
  return {runId, aspectName: r.aspectName, urn: r.urn, timestamp: r.created.time, version: r.version, keyAspect: r.keyAspect}
}

function sortRows(rows: RunRow[]): RunRow[] {
  return rows.sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : a.aspectName < b.aspectName ? -1 : a.aspectName > b.aspectName ? 1 : a.version - b.version))
}

/**
 * A row's value as the run wrote it (not the read model's), except a secret's: a run's rows are
 * listed to anyone who may read, and credentials and invite tokens are returned by no read.
 */
async function writtenValue(catalog: Catalog, urn: string, aspectName: string, version: number): Promise<unknown> {
  return SECRET_ASPECTS.has(aspectName) ? undefined : (await catalog.rawAspect(urn, aspectName, version))?.value
}

export async function describeRun(catalog: Catalog, runId: string, opts: {start?: number; count?: number; includeAspect?: boolean} = {}): Promise<AspectRowSummary[]> {
  if (!runId) throw new BadRequestError('runId is required')
  const rows = sortRows(await catalog.runRows(runId))
  // What the run observed without writing follows what it wrote.
  const seen = ((await observations(catalog, runId)).unchanged.get(runId) ?? []).sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : a.aspectName < b.aspectName ? -1 : 1))
  const all: Array<{row?: RunRow; seen?: {urn: string; aspectName: string; time: number}}> = [...rows.map((row) => ({row})), ...seen.map((s) => ({seen: s}))]
  const start = opts.start ?? 0
  const page = all.slice(start, start + (opts.count ?? 100))
  const out: AspectRowSummary[] = []
  for (const {row: r, seen: o} of page) {
    if (o) {
      const s: AspectRowSummary = {runId, aspectName: o.aspectName, urn: o.urn, timestamp: o.time, version: 0, keyAspect: false, unchanged: true}
      if (opts.includeAspect) s.aspect = await writtenValue(catalog, o.urn, o.aspectName, 0)
      out.push(s)
      continue
    }
    const s = summary(runId, r!)
    if (opts.includeAspect && r!.kind === 'versioned') s.aspect = await writtenValue(catalog, r!.urn, r!.aspectName, r!.version)
    out.push(s)
  }
  return out
}

/** The order versions were written in reverse: 0, then n, n-1, …, 1. */
function topDown(versions: Array<{version: number; systemMetadata: SystemMetadata}>): Array<{version: number; systemMetadata: SystemMetadata}> {
  const latest = versions.filter((v) => v.version === 0)
  const older = versions.filter((v) => v.version > 0).sort((a, b) => b.version - a.version)
  return [...latest, ...older]
}

/** Plans (and unless `dryRun`, applies) the rollback of a run. */
export async function rollbackRun(catalog: Catalog, actor: Actor, opts: RollbackOptions): Promise<RollbackReport> {
  const {runId} = opts
  const hard = opts.hard ?? false
  const dryRun = opts.dryRun ?? false
  if (!runId) throw new BadRequestError('runId is required')
  if (runId === DEFAULT_RUN_ID) {
    throw new BadRequestError(`${DEFAULT_RUN_ID} is a default run-id provided for non labeled ingestion runs. You cannot delete using this reserved run-id`)
  }
  const rows = sortRows(await catalog.runRows(runId))
  const keyRows = new Map(rows.filter((r) => r.keyAspect).map((r) => [r.urn, r]))
  const created = new Set(keyRows.keys())
  const ops: WriteOp[] = []
  const affected = new Set<string>()
  const reported: AspectRowSummary[] = []
  let aspectsReverted = 0
  let keyAspectsReverted = 0
  let aspectsKept = 0
  const note = (r: RunRow): void => {
    if (reported.length < REPORT_ROWS) reported.push(summary(runId, r))
  }

  // Group the run's rows by (urn, aspect) so each aspect is planned once.
  const groups = new Map<string, RunRow[]>()
  for (const r of rows) {
    if (r.keyAspect) continue
    const k = `${r.urn}\u0000${r.aspectName}`
    const g = groups.get(k)
    if (g) g.push(r)
    else groups.set(k, [r])
  }

  for (const g of groups.values()) {
    const {urn, aspectName, kind} = g[0]!
    if (hard && created.has(urn)) {
      // The entity goes as a whole below.
      aspectsReverted += g.length
      g.forEach(note)
      continue
    }
    if (kind === 'timeseries') {
      ops.push({op: 'deleteTimeseriesOfRun', urn, aspectName, runId})
      affected.add(urn)
      aspectsReverted += g.length
      g.forEach(note)
      continue
    }
    const versions = topDown(await catalog.rawVersions(urn, aspectName))
    let n = 0
    while (n < versions.length && versions[n]!.systemMetadata.runId === runId) n++
    // Each revert names the run: one another write slipped in above meanwhile stays (and the revert is counted as kept).
    for (let i = 0; i < n; i++) ops.push({op: 'revert', urn, aspectName, runId})
    if (n > 0) affected.add(urn)
    aspectsReverted += n
    aspectsKept += g.length - n
    const revertedVersions = new Set(versions.slice(0, n).map((v) => v.version))
    g.filter((r) => revertedVersions.has(r.version)).forEach(note)
  }

  // Entities the run created: soft delete (status) or hard delete.
  let aspectsAffected = 0
  const unsafe: Array<{urn: string}> = []
  let entitiesDeleted = 0
  const time = catalog.now()
  for (const urn of created) {
    const entity = await catalog.rawEntity(urn)
    if (!entity) continue
    const status = entity.aspects.status
    // Already soft-deleted (by an earlier rollback of this run, or by a delete): nothing left to
    // do, and nothing to report as deleted again.
    if (!hard && (status?.value as {removed?: boolean} | undefined)?.removed === true) continue
    const foreign = Object.values(entity.aspects).filter((a) => a.systemMetadata.runId !== runId && !isKeyAspect(entity.entityType, a.aspectName) && a.aspectName !== SOFT_DELETE_ASPECT)
    const soft = !hard && supportsSoftDelete(entity.entityType)
    // Types without a status aspect cannot be soft-deleted: they are removed, unless that would
    // take other runs' aspects with them.
    if (!hard && !soft && foreign.length > 0) continue
    aspectsAffected += foreign.length
    if (foreign.length > 0) unsafe.push({urn})
    note(keyRows.get(urn)!)
    affected.add(urn)
    // Counted like DataHub, where the key aspect row is one of the rows a rollback reports.
    aspectsReverted++
    keyAspectsReverted++
    entitiesDeleted++
    if (!soft) {
      ops.push({op: 'deleteEntity', urn})
      continue
    }
    ops.push({
      op: 'upsert',
      urn,
      entityType: entity.entityType,
      aspectName: SOFT_DELETE_ASPECT,
      value: JSON.stringify({removed: true}),
      created: {time, actor: actor.urn},
      systemMetadata: {runId: ROLLBACK_RUN_ID, lastObserved: time, properties: {[ROLLED_BACK_RUN]: runId}},
    })
  }

  const urns = [...affected]
  const removedWhole = new Set(ops.filter((o) => o.op === 'deleteEntity').map((o) => o.urn))
  // Every op's urn is in `affected`: whenever there is something to write, there is a grant.
  const grant =
    urns.length > 0
      ? await catalog.authorize(
          actor,
          // Removing a whole entity is a delete (as `delete --hard` asks it); reverting or removing
          // some of its aspects is an edit of it.
          urns.map((resourceUrn) => ({resourceUrn, privileges: removedWhole.has(resourceUrn) ? [['DELETE_ENTITY']] : [['DELETE_ENTITY'], ['EDIT_ENTITY']]})),
          `Unauthorized to roll back run ${runId}: it touches entities you may not delete or edit`,
        )
      : undefined
  if (!dryRun && grant && ops.length > 0) {
    const results = await catalog.writeOps(grant, ops)
    ops.forEach((op, i) => {
      if (op.op !== 'revert' || results[i]?.changed !== false) return
      aspectsReverted--
      aspectsKept++
    })
  }
  let nothing: string | undefined
  if (rows.length === 0) {
    const seen = (await observations(catalog, runId)).unchanged.get(runId)?.length ?? 0
    nothing = seen > 0
      ? `Run ${runId} wrote nothing: the ${seen} aspects it sent were already up to date, so there is nothing to roll back.`
      : `Nothing to roll back: no aspect was written or observed under run id ${runId}.`
  }
  return {
    ...(nothing ? {note: nothing} : {}),
    runId,
    dryRun,
    hard,
    entitiesAffected: urns.length,
    aspectsReverted,
    keyAspectsReverted,
    entitiesDeleted,
    aspectsAffected,
    unsafeEntitiesCount: unsafe.length,
    unsafeEntities: unsafe,
    aspectsKept,
    aspectRowSummaries: reported,
  }
}
