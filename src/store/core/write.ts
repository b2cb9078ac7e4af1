/**
 * What a write means, decided once for every store. A store hands each op of a batch to
 * `applyWrite` (or, when its rows are a database's, asks the `decide*` functions below) and keeps
 * only how rows are held: the embedded store's memtable and journal, PostgreSQL's statements, the
 * memory store's maps.
 *
 * Glossary:
 * - latest: version 0 of a versioned aspect; `old` versions are 1 (oldest) … n (newest of the old).
 * - unchanged: an upsert whose value is the latest's: the same text, or (only when the texts
 *   differ) the same JSON value spelled otherwise (`sameValue`). As DataHub, it writes no version;
 *   only the latest's system metadata moves (`observedAgain`), and the stored text stays.
 * - key row: the key aspect written with an entity's first write, unless that write is the key
 *   itself or a key row is there already (DataHub's table may hold rows not indexed yet).
 * - timeseries row: keyed by its timestampMillis; a second write at the same time replaces it.
 * - removal: deleteEntity, deleteAspect, revert, deleteTimeseries*. An entity left without rows
 *   goes; one whose soft-delete aspect changed is removed or restored by the registry's rule.
 * - run bookkeeping: every row counts for its run (systemMetadata.runId) while it exists.
 * - condition: CREATE wants no latest value, UPDATE one (`conditionHolds`); the change records a
 *   committed batch makes are decided beside this file (changes.ts).
 */
import {isDeepStrictEqual} from 'node:util'
import type {RunCounts} from '../run-counts.js'
import {observedAgain} from '../types.js'
import type {AuditStamp, SystemMetadata, WriteOp, WriteResult} from '../types.js'

/**
 * A write's condition on the aspect's latest value (DataHub's ChangeType CREATE and UPDATE):
 * `absent`, there must be none; `present`, there must be one.
 */
export type WriteCondition = 'absent' | 'present'

/**
 * Whether a write's condition holds, given whether the aspect has a latest value as the write
 * finds it: stored, or as the writes before it in its batch leave it. The catalog asks this under
 * the urns' locks (and, on a shared store, the store's entity locks), before the batch is written.
 */
export function conditionHolds(condition: WriteCondition | undefined, latestExists: boolean): boolean {
  return condition === undefined || latestExists === (condition === 'present')
}

/** The op kinds that write a value (and may create the entity). */
export type ValueOp = Extract<WriteOp, {op: 'upsert' | 'timeseries'}>
/** The op kinds that remove rows. */
export type RemovalOp = Exclude<WriteOp, ValueOp>

/** What a removed row leaves behind for its run: the run id and the row's time. */
export type RowGone = (runId: string | undefined, time: number) => void

/** A timeseries row as the core hands it to a store. */
export interface SeriesRow {
  text: string
  created: AuditStamp
  systemMetadata: SystemMetadata
  timestampMillis: number
}

/**
 * A store's rows held in this process, as `applyWrite` sees them. Every method is one step a
 * store alone knows how to take; none decides anything.
 */
export interface RowTable<E> {
  /** Where rows are counted per run; absent when the store counts them otherwise. */
  readonly runs?: RunCounts
  entity(urn: string): E | undefined
  createEntity(urn: string, entityType: string): E
  /** Whether the aspect's latest value is `text` (undefined: no latest versioned row). */
  latestIs(e: E, aspectName: string, text: string): boolean | undefined
  /** The latest value's text (asked only when `latestIs` said false). */
  latestText(e: E, aspectName: string): string
  latestSystemMetadata(e: E, aspectName: string): SystemMetadata
  setLatestSystemMetadata(e: E, aspectName: string, sm: SystemMetadata): void
  /** The first version of an aspect. */
  insertLatest(urn: string, e: E, aspectName: string, text: string, created: AuditStamp, sm: SystemMetadata): void
  /** The latest becomes the newest old version; `text` the latest. */
  replaceLatest(urn: string, e: E, aspectName: string, text: string, created: AuditStamp, sm: SystemMetadata): void
  /** Adds a timeseries row, or replaces the one at its timestamp (then returns what it replaced, for its run). */
  putSeries(e: E, aspectName: string, row: SeriesRow): {runId: string | undefined; time: number} | undefined
  /** Removes every row of the entity; returns how many. */
  removeEntity(urn: string, e: E, gone: RowGone): number
  /** Removes every row of one aspect (versions or timeseries); returns how many. */
  removeAspect(urn: string, e: E, aspectName: string, gone: RowGone): number
  /** Drops the latest and makes the newest old version the latest (the aspect goes with none); false when there is no latest. */
  revertLatest(urn: string, e: E, aspectName: string, gone: RowGone): boolean
  /** Removes the timeseries rows `goes` picks; undefined when the aspect has none. */
  removeSeries(e: E, aspectName: string, goes: (row: {runId: string | undefined; timestampMillis: number}) => boolean, gone: RowGone): number | undefined
  /** Whether the entity has no row left. */
  isEmpty(e: E): boolean
  forget(urn: string, e: E): void
  /** After an op changed the entity's rows or metadata (it may be gone by now). */
  touched(urn: string, e: E): void
}

/** The result of an op that found nothing to do. */
export function noChange(op: WriteOp): WriteResult {
  return 'aspectName' in op ? {urn: op.urn, aspectName: op.aspectName, changed: false, createdEntity: false, rowsRemoved: 0} : {urn: op.urn, changed: false, createdEntity: false, rowsRemoved: 0}
}

/** The result of a removal that took `rows` rows of an entity that existed. */
export function removalResult(op: RemovalOp, rows: number): WriteResult {
  const r = noChange(op)
  r.rowsRemoved = rows
  // Deleting an entity that exists changes it even when it held no row; the others change what they removed.
  r.changed = op.op === 'deleteEntity' || op.op === 'revert' || rows > 0
  return r
}

/** Whether an entity's first write also writes its key row. */
export function writesKeyRow(op: ValueOp, keyRowThere: boolean): boolean {
  return op.keyAspect !== undefined && op.keyAspect.name !== op.aspectName && !keyRowThere
}

/**
 * What an upsert does to the aspect's latest row: `insert` the first version, `replace` the latest
 * (which becomes the newest old version), or leave it `unchanged` with the system metadata that
 * moves (`observed`).
 */
export function decideUpsert(
  latestIs: boolean | undefined,
  stored: () => SystemMetadata,
  incoming: SystemMetadata,
  sameValueOtherwiseSpelled: () => boolean,
): {value: 'insert'} | {value: 'replace'} | {value: 'unchanged'; observed: SystemMetadata} {
  if (latestIs === undefined) return {value: 'insert'}
  if (!latestIs && !sameValueOtherwiseSpelled()) return {value: 'replace'}
  return {value: 'unchanged', observed: observedAgain(stored(), incoming)}
}

/**
 * Whether two JSON texts that differ hold the same value (key order, spacing, escapes, `1.0`).
 * Texts are stored as received, so one value reaches a store in two spellings: Python's emitters
 * send `json.dumps` with `", "` and `": "`, an MCE's aspect arrives parsed and is written compact.
 * DataHub compares values, not text; a second, identical version would also come back one short
 * from an export, which writes one spelling. Asked only when the texts differ, that is when the
 * write is otherwise a new version, so the parse is paid by changes alone.
 */
export function sameValue(storedText: string, text: string): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(storedText), JSON.parse(text))
  } catch {
    return false
  }
}

/** The timeseries rows a timeseries removal takes. */
export function seriesGoes(op: Extract<WriteOp, {op: 'deleteTimeseriesOfRun' | 'deleteTimeseriesRange'}>): (row: {runId: string | undefined; timestampMillis: number}) => boolean {
  return op.op === 'deleteTimeseriesOfRun' ? (r) => r.runId === op.runId : (r) => r.timestampMillis >= op.startTime && r.timestampMillis <= op.endTime
}

/**
 * Applies one op to rows held in this process, in the one order every store follows: the entity
 * (and its key row) first, then the value, then the bookkeeping; for a removal, the rows, then
 * the entity if nothing is left.
 */
export function applyWrite<E>(op: WriteOp, t: RowTable<E>): WriteResult {
  const runs = t.runs
  const gone: RowGone = (runId, time) => runs?.count(runId, time, -1)
  let e = t.entity(op.urn)
  switch (op.op) {
    case 'upsert':
    case 'timeseries': {
      let createdEntity = false
      if (e === undefined) {
        e = t.createEntity(op.urn, op.entityType)
        createdEntity = true
        if (writesKeyRow(op, false)) {
          t.insertLatest(op.urn, e, op.keyAspect!.name, op.keyAspect!.value, op.created, op.systemMetadata)
          runs?.count(op.systemMetadata.runId, op.created.time, 1)
        }
      }
      let changed = true
      if (op.op === 'upsert') {
        const entity = e
        const d = decideUpsert(
          t.latestIs(e, op.aspectName, op.value),
          () => t.latestSystemMetadata(entity, op.aspectName),
          op.systemMetadata,
          () => sameValue(t.latestText(entity, op.aspectName), op.value),
        )
        if (d.value === 'insert') t.insertLatest(op.urn, e, op.aspectName, op.value, op.created, op.systemMetadata)
        else if (d.value === 'replace') t.replaceLatest(op.urn, e, op.aspectName, op.value, op.created, op.systemMetadata)
        else {
          t.setLatestSystemMetadata(e, op.aspectName, d.observed)
          changed = false
        }
      } else {
        const replaced = t.putSeries(e, op.aspectName, {text: op.value, created: op.created, systemMetadata: op.systemMetadata, timestampMillis: op.timestampMillis})
        if (replaced) gone(replaced.runId, replaced.time)
      }
      if (changed) runs?.count(op.systemMetadata.runId, op.created.time, 1)
      t.touched(op.urn, e)
      return {urn: op.urn, aspectName: op.aspectName, changed, createdEntity, rowsRemoved: 0}
    }
    case 'deleteEntity': {
      if (e === undefined) return noChange(op)
      const n = t.removeEntity(op.urn, e, gone)
      t.forget(op.urn, e)
      t.touched(op.urn, e)
      return removalResult(op, n)
    }
    case 'deleteAspect':
    case 'revert':
    case 'deleteTimeseriesOfRun':
    case 'deleteTimeseriesRange': {
      if (e === undefined) return noChange(op)
      let n: number
      if (op.op === 'deleteAspect') n = t.removeAspect(op.urn, e, op.aspectName, gone)
      else if (op.op === 'revert') {
        // latestIs(…, '') asks only whether there is a latest: no stored value is the empty text.
        if (op.runId !== undefined && (t.latestIs(e, op.aspectName, '') === undefined || t.latestSystemMetadata(e, op.aspectName).runId !== op.runId)) return noChange(op)
        if (!t.revertLatest(op.urn, e, op.aspectName, gone)) return noChange(op)
        n = 1
      } else {
        const removed = t.removeSeries(e, op.aspectName, seriesGoes(op), gone)
        if (removed === undefined) return noChange(op)
        n = removed
      }
      if (t.isEmpty(e)) t.forget(op.urn, e)
      t.touched(op.urn, e)
      return removalResult(op, n)
    }
  }
}
