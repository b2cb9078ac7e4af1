/**
 * Change-event files (what DataHub's file sink writes and its file source reads), record by
 * record, streamed. Shared by the `file` source and `mdcli check mce-file`.
 *
 * Glossary:
 * - record: one element of the file's top-level array (or the file's one object).
 * - MCE record: has `proposedSnapshot`; unpacked into one proposal per aspect.
 * - MCP record: has `aspect` (`{value: "<json>", contentType}` or `{json: {...}}`); one proposal.
 * - usage record: DataHub's legacy UsageAggregation (`bucket`, `duration`, `resource`); skipped
 *   with a warning. Anything else is a failed record.
 */
import {readdirSync, statSync} from 'node:fs'
import {extname, join, resolve} from 'node:path'
import {FileError} from '../errors.js'
import type {ProposalInput} from '../model/wire.js'
import {isMce, mceToProposals} from '../model/mce.js'
import {readJsonBatches} from './json-stream.js'

export interface EventRecord {
  file: string
  index: number
  line: number
  /** `file://<path>:<index>`, DataHub's work unit id. */
  id: string
  kind?: 'mce' | 'mcp'
  proposals?: ProposalInput[]
  /** Why the record cannot be used (it is a failure). */
  error?: string
  /** Why the record is skipped (it is a warning). */
  skipped?: string
  /** The urn the record names, when it names one (for messages). */
  urn?: string
}

/** Files a `path` stands for: the file itself, or the directory's files with `ext` (sorted). */
export function eventFiles(path: string, ext = '.json'): string[] {
  const abs = resolve(path)
  let st
  try {
    st = statSync(abs)
  } catch {
    throw new FileError(`File not found: ${abs}`)
  }
  if (st.isFile()) return [abs]
  if (!st.isDirectory()) throw new FileError(`Failed to process ${abs}: neither a file nor a directory`)
  const want = ext === '*' ? '' : ext.startsWith('.') ? ext : `.${ext}`
  // Sorted, unlike DataHub's filesystem order, so that two runs read the same sequence.
  return readdirSync(abs)
    .filter((n) => want === '' || extname(n) === want || n.endsWith(want))
    .map((n) => join(abs, n))
    .filter((p) => statSync(p).isFile())
    .sort()
}

function urnOf(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object') return undefined
  const o = v as Record<string, any>
  if (typeof o.entityUrn === 'string') return o.entityUrn
  const snap = o.proposedSnapshot
  if (snap && typeof snap === 'object') {
    const inner = Object.values(snap)[0] as {urn?: unknown} | undefined
    if (inner && typeof inner.urn === 'string') return inner.urn
  }
  return undefined
}

/** Turns one parsed record into proposals, or says why it cannot. */
export function recordToProposals(value: unknown, where: string): Pick<EventRecord, 'kind' | 'proposals' | 'error' | 'skipped' | 'urn'> {
  const urn = urnOf(value)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {error: `${where}: expected an object (an MCE or an MCP), found ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`}
  }
  if (isMce(value)) {
    try {
      return {kind: 'mce', proposals: mceToProposals(value, where), urn}
    } catch (e) {
      return {kind: 'mce', error: (e as Error).message, urn}
    }
  }
  const o = value as Record<string, unknown>
  if ('aspect' in o || 'aspectName' in o) {
    if (typeof o.entityUrn !== 'string') return {kind: 'mcp', error: `${where}: MCP has no 'entityUrn'`}
    if (typeof o.aspectName !== 'string') return {kind: 'mcp', error: `${where}: MCP for ${o.entityUrn} has no 'aspectName'`, urn}
    // The parsed record is ours alone: trim it in place rather than copy it.
    const p = o as ProposalInput
    if ('auditHeader' in p) delete p.auditHeader
    if (p.systemMetadata === null) delete p.systemMetadata
    if (p.entityKeyAspect === null) delete p.entityKeyAspect
    return {kind: 'mcp', proposals: [p], urn}
  }
  // DataHub's file source reads such a record as a UsageAggregation, which it no longer ingests;
  // anything else fails there too.
  if ('bucket' in o && 'duration' in o && 'resource' in o) return {skipped: `${where}: a legacy usage record (UsageAggregation); skipped`, urn}
  const keys = Object.keys(o).slice(0, 5).map((k) => `'${k}'`).join(', ')
  return {error: `${where}: not an MCE (no 'proposedSnapshot'), an MCP (no 'aspectName') or a usage record; it has ${keys || 'no keys'}`, urn}
}

export interface ReadEventsOptions {
  fileExtension?: string
  /** Only MCP proposals of this aspect pass (MCEs are filtered per aspect too). */
  aspect?: string
  onBytes?: (bytesOfAllFiles: number) => void
}

/** Total size of the files, for progress. */
export function totalBytes(files: string[]): number {
  return files.reduce((n, f) => n + statSync(f).size, 0)
}

/**
 * Reads every record of the files `path` stands for. A record that cannot be used comes back
 * with `error` (the read goes on); a file that is broken as a whole (truncated, not JSON at the
 * top level) yields one record with `error` and index -1, and the next file is read.
 */
export async function* readEventRecords(files: string[], opts: ReadEventsOptions = {}): AsyncGenerator<EventRecord> {
  let doneBytes = 0
  for (const file of files) {
    let lastIndex = -1
    try {
      for await (const els of readJsonBatches(file, {onBytes: (n) => opts.onBytes?.(doneBytes + n)})) for (const el of els) {
        lastIndex = el.index
        const id = `file://${file}:${el.index}`
        const where = `record ${el.index} (line ${el.line})`
        if (el.error !== undefined) {
          yield {file, index: el.index, line: el.line, id, error: `${where}: not valid JSON: ${el.error}`}
          continue
        }
        const r = recordToProposals(el.value, where)
        if (r.proposals && opts.aspect) r.proposals = r.proposals.filter((p) => p.aspectName === opts.aspect)
        yield {file, index: el.index, line: el.line, id, ...r}
      }
    } catch (e) {
      yield {file, index: -1, line: 0, id: `file://${file}`, error: `${file}: ${(e as Error).message}${lastIndex >= 0 ? ` (after record ${lastIndex})` : ''}`}
    }
    doneBytes += statSync(file).size
  }
}
