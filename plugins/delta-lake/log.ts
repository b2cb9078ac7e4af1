/**
 * A Delta table's state, read from its transaction log (`_delta_log/`) without a Delta engine.
 *
 * Glossary:
 * - commit: `_delta_log/<20-digit version>.json`, one action per line (`commitInfo`, `metaData`,
 *   `protocol`, `add`, `remove`).
 * - checkpoint: `<version>.checkpoint.parquet` (or `.checkpoint.<i>.<n>.parquet` parts), the
 *   replayed state at that version; `_last_checkpoint` names the newest. Replay starts there and
 *   applies the JSON commits after it.
 * - history: the `commitInfo` of each commit still in the log, newest first, with its version
 *   (what `DESCRIBE HISTORY` and delta-rs' `history()` return).
 */
import type {FileSystem} from '../data-lake-common/fs.js'

export interface DeltaMetadata {
  id: string
  name?: string | null
  description?: string | null
  schemaString: string
  partitionColumns: string[]
  configuration?: Record<string, string>
  createdTime?: number | null
}

export interface DeltaTableState {
  version: number
  metadata: DeltaMetadata
  /** Paths of the data files in the current version. */
  files: Set<string>
  /** Newest first; `limit` of them when asked. */
  history: Array<Record<string, unknown>>
}

const COMMIT = /^(\d{20})\.json$/
const CHECKPOINT = /^(\d{20})\.checkpoint(?:\.\d+\.\d+)?\.parquet$/

/** True when `folder` holds a Delta table (a `_delta_log` with a commit or a checkpoint). */
export async function isDeltaTable(fs: FileSystem, folder: string): Promise<boolean> {
  const log = `${folder.replace(/\/+$/, '')}/_delta_log`
  const s = await fs.stat(log)
  if (!s?.isDirectory) return false
  for await (const f of fs.walk(log)) {
    const name = f.path.split('/').pop()!
    if (COMMIT.test(name) || CHECKPOINT.test(name)) return true
  }
  return false
}

async function readText(fs: FileSystem, path: string): Promise<string> {
  const s = await fs.stat(path)
  return s ? (await fs.readRange(path, 0, s.size)).toString('utf8') : ''
}

/**
 * Replays the log. `readCheckpoint` turns a checkpoint's parquet parts into actions (the caller
 * brings a Parquet reader); `historyLimit` ≤ 0 keeps every commit's history.
 */
export async function readDeltaLog(
  fs: FileSystem,
  folder: string,
  opts: {historyLimit: number; withFiles: boolean; readCheckpoint?: (paths: string[]) => Promise<Array<Record<string, any>>>},
): Promise<DeltaTableState> {
  const log = `${folder.replace(/\/+$/, '')}/_delta_log`
  const commits: Array<{version: number; path: string}> = []
  const checkpoints = new Map<number, string[]>()
  for await (const f of fs.walk(log)) {
    if (f.path.slice(log.length + 1).includes('/')) continue
    const name = f.path.split('/').pop()!
    const c = COMMIT.exec(name)
    if (c) commits.push({version: Number(c[1]), path: f.path})
    const k = CHECKPOINT.exec(name)
    if (k) checkpoints.set(Number(k[1]), [...(checkpoints.get(Number(k[1])) ?? []), f.path])
  }
  commits.sort((a, b) => a.version - b.version)
  let metadata: DeltaMetadata | undefined
  const files = new Set<string>()
  let version = -1
  let from = 0
  const apply = (action: Record<string, any>) => {
    if (action.metaData) metadata = action.metaData as DeltaMetadata
    if (opts.withFiles && action.add?.path) files.add(action.add.path)
    if (opts.withFiles && action.remove?.path) files.delete(action.remove.path)
  }
  // The newest checkpoint whose parts are all there; commits before it may have been cleaned up.
  const newestCheckpoint = [...checkpoints.keys()].sort((a, b) => b - a)[0]
  if (newestCheckpoint !== undefined && opts.readCheckpoint) {
    for (const action of await opts.readCheckpoint(checkpoints.get(newestCheckpoint)!.sort())) apply(action)
    version = newestCheckpoint
    from = newestCheckpoint + 1
  }
  const history: Array<Record<string, unknown>> = []
  for (const c of commits) {
    const replay = c.version >= from
    for (const line of (await readText(fs, c.path)).split('\n')) {
      if (!line.trim()) continue
      const action = JSON.parse(line) as Record<string, any>
      if (action.commitInfo) history.push({...action.commitInfo, version: c.version})
      if (replay) apply(action)
    }
    if (replay) version = c.version
  }
  if (!metadata) throw new Error(`no metaData action in ${log}`)
  history.sort((a, b) => (b.version as number) - (a.version as number))
  return {version, metadata, files, history: opts.historyLimit > 0 ? history.slice(0, opts.historyLimit) : history}
}
