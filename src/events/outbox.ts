/**
 * The change log's outbox: what makes publishing the change log at-least-once across a crash
 * between a commit and its publish (`lite --changelog`). A JSON-lines file beside the store,
 * `changelog-outbox.jsonl`:
 *
 * - `{"id": "<uuid>"}` once: the store's publisher id (message ids are `<id>-<commit>-<i>`, so a
 *   re-publish of a change already stored is de-duplicated by JetStream).
 * - `{"i": <commit>, "urns": [...], "ops": [[op, urn, aspect?], ...]}`: an intent, synced to disk
 *   BEFORE the store writes.
 * - `{"c": <commit>, "changes": [...]}`: the change-log entries the commit produced (after it).
 * - `{"p": <commit>}`: every entry of the commit acknowledged by the broker.
 *
 * On restart every commit without `p` is published again: from its `c` entries when written, or,
 * when the process died between the store's commit and `c`, rebuilt from the store's current
 * values for the intent's aspects (the value a subscriber must converge to; no previous value is
 * known then). An intent whose write never committed is re-published the same way: at least
 * once means a subscriber may see a current value twice, never miss one.
 */
import {randomUUID} from 'node:crypto'
import {closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import type {EntityRecord, WriteOp} from '../store/types.js'
import {entityTypeOf} from '../model/urn.js'
import type {LoggedChange} from '../model/changelog.js'
import {ConnectionError, UsageError} from '../errors.js'
import {isStoreUrl, maskUrl} from '../store/postgres/url.js'

export const OUTBOX_FILE = 'changelog-outbox.jsonl'
/** Past this size, a file whose commits were all published is rewritten to its header. */
const COMPACT_BYTES = 8 * 1024 * 1024

type Change = Omit<LoggedChange, 'id'>

export interface PendingCommit {
  commit: number
  ops: Array<[string, string, string?]>
  urns: string[]
  changes?: Change[]
}

/**
 * Refuses a store the outbox cannot sit beside: a PostgreSQL store has no directory, and an
 * outbox anywhere else (a file on one replica's disk) would not be written with the store's
 * commits nor found by the replica that restarts. Checked before anything is opened or written.
 */
export function checkOutboxStore(store: string): void {
  if (isStoreUrl(store)) {
    throw new UsageError(
      `--changelog needs a store directory: its outbox (what makes publishing at least once) is a file beside the store, and a PostgreSQL store (${maskUrl(store)}) has none; publish from a server on a store directory, or start without --changelog`,
    )
  }
}

export class ChangeOutbox {
  private fd: number
  private closed = false
  private nextCommit: number
  private readonly open = new Set<number>()
  private bytes: number

  private constructor(
    private readonly path: string,
    readonly id: string,
    /** Commits of earlier runs not yet published, oldest first. */
    readonly pending: PendingCommit[],
    nextCommit: number,
  ) {
    this.nextCommit = nextCommit
    this.fd = openSync(path, 'a')
    this.bytes = existsSync(path) ? readFileSync(path).length : 0
    for (const p of pending) this.open.add(p.commit)
  }

  /** The file's id, its commits not marked published (by commit), and the highest commit. */
  private static read(path: string): {id?: string; byCommit: Map<number, PendingCommit>; max: number} {
    let id: string | undefined
    const byCommit = new Map<number, PendingCommit>()
    let max = 0
    if (existsSync(path)) {
      for (const line of readFileSync(path, 'utf8').split('\n')) {
        if (!line) continue
        let rec: any
        try {
          rec = JSON.parse(line)
        } catch {
          // A torn last line (the process died mid-append) is dropped; its intent decides.
          continue
        }
        if (typeof rec.id === 'string') id = rec.id
        else if (typeof rec.i === 'number') {
          byCommit.set(rec.i, {commit: rec.i, ops: rec.ops, urns: rec.urns})
          max = Math.max(max, rec.i)
        } else if (typeof rec.c === 'number') {
          const p = byCommit.get(rec.c)
          if (p) p.changes = rec.changes
        } else if (typeof rec.p === 'number') byCommit.delete(rec.p)
      }
    }
    return {id, byCommit, max}
  }

  static open(storeDir: string): ChangeOutbox {
    const path = join(storeDir, OUTBOX_FILE)
    const read = ChangeOutbox.read(path)
    let id = read.id
    const {byCommit, max} = read
    if (!id) {
      id = randomUUID()
      writeFileSync(path, JSON.stringify({id}) + '\n', {mode: 0o600})
    }
    return new ChangeOutbox(path, id, [...byCommit.values()].sort((a, b) => a.commit - b.commit), max + 1)
  }

  private append(rec: unknown, sync: boolean): void {
    const line = JSON.stringify(rec) + '\n'
    writeSync(this.fd, line)
    this.bytes += Buffer.byteLength(line)
    if (sync) fsyncSync(this.fd)
  }

  /** Before a store write: the intent, on disk when this returns. */
  intent(ops: WriteOp[]): number {
    if (this.closed) throw new ConnectionError('The server is stopping; nothing of this request was written. Retry once it is back.')
    const commit = this.nextCommit++
    this.open.add(commit)
    const urns = [...new Set(ops.map((o) => o.urn))]
    this.append({i: commit, urns, ops: ops.map((o) => ('aspectName' in o ? [o.op, o.urn, o.aspectName] : [o.op, o.urn]))}, true)
    return commit
  }

  /**
   * After the write: the entries it produced (none: the commit is done). Once closed, nothing:
   * the write is saved and must not be reported failed; its intent, left open, has the next start
   * rebuild its entries from the store.
   */
  committed(commit: number, changes: Change[]): void {
    if (this.closed) return
    if (changes.length === 0) return this.published(commit)
    this.append({c: commit, changes}, false)
  }

  /**
   * Commits of this run whose entries were written and that are not marked published, oldest
   * first, at most `limit`: what a publisher let go of to bound its memory (see publish.ts), read
   * back from the file. A commit still being written (an intent without entries) is not among
   * them: its entries reach the publisher when it commits.
   */
  unpublished(limit: number): {commits: PendingCommit[]; more: boolean} {
    const done = [...ChangeOutbox.read(this.path).byCommit.values()].filter((p) => p.changes !== undefined).sort((a, b) => a.commit - b.commit)
    return {commits: done.slice(0, limit), more: done.length > limit}
  }

  /** A write that failed: nothing to publish. */
  abandoned(commit: number): void {
    this.published(commit)
  }

  /** Every entry of `commit` acknowledged. Not synced: losing it means publishing again. */
  published(commit: number): void {
    if (this.closed) return
    this.open.delete(commit)
    this.append({p: commit}, false)
    if (this.open.size === 0 && this.bytes > COMPACT_BYTES) this.compact()
  }

  private compact(): void {
    const tmp = `${this.path}.tmp`
    writeFileSync(tmp, JSON.stringify({id: this.id}) + '\n', {mode: 0o600})
    closeSync(this.fd)
    renameSync(tmp, this.path)
    this.fd = openSync(this.path, 'a')
    this.bytes = 0
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    closeSync(this.fd)
  }
}

/**
 * The entries of a commit whose own entries were lost: each touched aspect as it is now (an
 * UPSERT of its current value, or a DELETE when gone).
 */
export function rebuildChanges(p: PendingCommit, now: Map<string, EntityRecord>, time: number): Change[] {
  const out: Change[] = []
  const created = {time, actor: 'urn:li:corpuser:__datahub_system'}
  for (const [op, urn, aspect] of p.ops) {
    const entity = now.get(urn)
    const entityType = entity?.entityType ?? entityTypeOf(urn)
    if (op !== 'deleteEntity' && op !== 'upsert' && op !== 'deleteAspect' && op !== 'revert') continue
    if (op === 'deleteEntity' || !aspect) {
      if (!entity) out.push({mcl: {entityType, entityUrn: urn, changeType: 'DELETE', created}, changeEvents: []})
      continue
    }
    const a = entity?.aspects[aspect]
    out.push({
      mcl: a
        ? {entityType, entityUrn: urn, changeType: 'UPSERT', aspectName: aspect, aspect: {value: JSON.stringify(a.value), contentType: 'application/json'}, created, systemMetadata: a.systemMetadata as Record<string, unknown>}
        : {entityType, entityUrn: urn, changeType: 'DELETE', aspectName: aspect, created},
      changeEvents: [],
    })
  }
  return out
}
