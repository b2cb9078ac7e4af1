/**
 * The file systems a data-lake source reads, behind one small interface, so that path specs,
 * schema inference and profiling never know whether a path is a local file or an object.
 *
 * Glossary:
 * - path: the string the user wrote (`data/sales/2024/part1.csv`, `/lake/x.parquet`); datasets
 *   are named after it as written, never after where it resolves to.
 * - walk: every file under a folder, in Python's `os.walk` order (a folder's files sorted, then
 *   its sub-folders sorted, depth first) — the order DataHub lists local files in, which decides
 *   which of two files with the same modification time counts as the newest.
 *
 * An object store is one more implementation: `walk` is a paged LIST of the prefix (S3
 * `ListObjectsV2` returns keys sorted, with size and LastModified), `stat` is HEAD, `readRange`
 * is GET with a `Range` header, and `localPath` returns undefined so readers that need a real
 * file (DuckDB for Parquet) copy the object to a temporary file first — or, bounded, read ranges.
 */
import {createReadStream} from 'node:fs'
import {open, readdir, stat} from 'node:fs/promises'
import {isAbsolute, join, normalize, posix} from 'node:path'

export interface FileEntry {
  /** As the user would write it: the walked folder joined with the names below it. */
  path: string
  size: number
  mtimeMs: number
}

export interface FileSystem {
  /** What `path` is, or undefined when nothing is there. */
  stat(path: string): Promise<(FileEntry & {isDirectory: boolean}) | undefined>
  /** Every file under `folder` (not folders), in `os.walk` order. */
  walk(folder: string): AsyncIterable<FileEntry>
  /** The direct sub-folders of `folder`, sorted. */
  folders(folder: string): Promise<string[]>
  /** Bytes [start, end) of a file; fewer at its end. */
  readRange(path: string, start: number, end: number): Promise<Buffer>
  /** The whole file as a stream of chunks (for readers that go line by line). */
  stream(path: string): NodeJS.ReadableStream
  /** A path on this machine that a native reader may open, when there is one. */
  localPath(path: string): string | undefined
}

/** Joins like Python's `os.path.normpath(os.path.join(root, name))`, with forward slashes. */
export function joinPath(root: string, name: string): string {
  return posix.normalize(posix.join(root, name))
}

/** The local disk; relative paths are resolved against `baseDir` (the recipe's folder). */
export class LocalFileSystem implements FileSystem {
  constructor(private readonly baseDir: string) {}

  private real(path: string): string {
    return isAbsolute(path) ? normalize(path) : join(this.baseDir, path)
  }

  async stat(path: string) {
    try {
      const s = await stat(this.real(path))
      return {path, size: s.size, mtimeMs: s.mtimeMs, isDirectory: s.isDirectory()}
    } catch {
      return undefined
    }
  }

  async *walk(folder: string): AsyncGenerator<FileEntry> {
    const root = posix.normalize(folder).replace(/\/+$/, '') || '/'
    let entries
    try {
      entries = await readdir(this.real(root), {withFileTypes: true})
    } catch {
      return
    }
    const files = entries.filter((e) => e.isFile()).map((e) => e.name).sort()
    const dirs = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort()
    for (const f of files) {
      const path = joinPath(root, f)
      const s = await stat(this.real(path)).catch(() => undefined)
      if (s) yield {path, size: s.size, mtimeMs: s.mtimeMs}
    }
    for (const d of dirs) yield* this.walk(joinPath(root, d))
  }

  async folders(folder: string): Promise<string[]> {
    const entries = await readdir(this.real(folder), {withFileTypes: true})
    return entries.filter((e) => e.isDirectory()).map((e) => joinPath(folder, e.name)).sort()
  }

  async readRange(path: string, start: number, end: number): Promise<Buffer> {
    const fh = await open(this.real(path), 'r')
    try {
      const buf = Buffer.alloc(Math.max(0, end - start))
      const {bytesRead} = await fh.read(buf, 0, buf.length, start)
      return buf.subarray(0, bytesRead)
    } finally {
      await fh.close()
    }
  }

  stream(path: string): NodeJS.ReadableStream {
    return createReadStream(this.real(path))
  }

  localPath(path: string): string {
    return this.real(path)
  }
}
