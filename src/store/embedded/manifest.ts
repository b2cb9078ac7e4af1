/**
 * The embedded store's manifest: which snapshot shards and journal segments make up the store,
 * each with its size and SHA-256, and the checksum that keeps an edited manifest from being
 * believed. Written last by a checkpoint; read first by a start (see recovery.ts).
 */
import {createHash} from 'node:crypto'

/**
 * The layout of format 3, whose journal records may also carry their aspect values after their
 * JSON (journal.ts): a store of format 3 becomes one of this format when it opens, before a
 * record of that kind is written, so that an older mdcli refuses it rather than misreading one.
 */
export const FORMAT = 'mdcli-lowdb-4'
/** Journal records as plain JSON lines; otherwise as FORMAT. */
export const FORMAT_3 = 'mdcli-lowdb-3'
/** Old versions in the shards, not in the history file: read, then moved there by the next checkpoint. */
export const FORMAT_2 = 'mdcli-lowdb-2'
/** Stores written before the manifest accounted for every file: read, then rewritten in FORMAT. */
export const LEGACY_FORMAT = 'mdcli-lowdb-1'

/** Size and SHA-256 of a file the manifest accounts for. */
export interface FileSum {
  size: number
  sha256: string
}

export interface Manifest {
  format: string
  shards: number
  /** First journal segment that recovery must replay. */
  walFrom: number
  nextId: number
  /** Checkpoints so far; shard files carry the number of the checkpoint that wrote them. */
  gen?: number
  /** Every snapshot shard file (path relative to the store directory) with its size and checksum. */
  files?: Record<string, FileSum>
  /** Journal segments closed since the last checkpoint (by number), with size and checksum. */
  sealed?: Record<string, FileSum>
  /** Bytes of history.log that the shards may point into (synced by the checkpoint that wrote this). */
  historyBytes?: number
  /**
   * The journal segment writes go to, recorded before the first write reaches it: every segment
   * from `walFrom` to this one must exist, so a deleted live segment (the writes since the last
   * checkpoint) stops the start. Absent in stores written before it was recorded.
   */
  live?: number
  /**
   * SHA-256 of the canonical JSON of every other field (see manifestChecksum): an edit that keeps
   * the JSON valid (a lower historyBytes, a dropped shard) would otherwise be believed, and the
   * store would cut or delete what it names. Absent in stores written before it was recorded.
   */
  checksum?: string
}

export const shardFile = (i: number, gen: number): string => `shards/shard-${String(i).padStart(2, '0')}.g${gen}.json`
export const LEGACY_SHARD = /^shard-(\d{2})\.json$/
export const SHARD = /^shard-(\d{2})\.g(\d+)\.json$/

/** Bytes of the snapshot shards a manifest names. */
export function snapshotBytes(m: Manifest | null): number {
  let n = 0
  for (const [name, f] of Object.entries(m?.files ?? {})) if (name.startsWith('shards/')) n += f.size
  return n
}

/** JSON with object keys sorted at every level, so that a checksum does not depend on key order or layout. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`
  }
  return JSON.stringify(v)
}

export function manifestChecksum(m: Manifest): string {
  const {checksum: _, ...rest} = m
  return sum(Buffer.from(canonicalJson(rest), 'utf8')).sha256
}

export function sum(buf: Buffer): FileSum {
  return {size: buf.length, sha256: createHash('sha256').update(buf).digest('hex')}
}
