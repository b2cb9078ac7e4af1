/**
 * The file layer under the embedded store: every byte the store writes goes through a `StoreFs`,
 * so that each write's byte count and each sync is checked in one place, and tests can inject
 * the failures a laptop produces (a full disk, an I/O error, a short write) without stubbing a
 * module.
 *
 * Glossary:
 * - durable write: the bytes are written in full and synced; only then is anything acknowledged.
 * - atomic replace: a whole file is written to a temporary name, synced, renamed over the old
 *   one, and the directory synced, so a reader sees the old file or the new one, never a mix.
 */
import {constants} from 'node:fs'
import {open, rename, rm} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import {StoreFullError, StoreIoError} from '../../errors.js'

/** An open file the journal appends to at explicit positions. */
export interface AppendFile {
  /** Writes `length` bytes of `buf` from `offset` at `position`; resolves to the bytes written (may be fewer). */
  write(buf: Buffer, offset: number, length: number, position: number): Promise<number>
  datasync(): Promise<void>
  truncate(length: number): Promise<void>
  size(): Promise<number>
  close(): Promise<void>
}

/** The filesystem operations of the embedded store that write. Reads go to node:fs directly. */
export interface StoreFs {
  /** Opens (creating if needed) a file to append to; never truncates it. */
  openAppend(path: string): Promise<AppendFile>
  /** Replaces `path` atomically and durably with `data` (see the glossary). */
  replaceFile(path: string, data: string | Buffer): Promise<void>
  /** Syncs a directory so that created, renamed or removed entries survive a crash. */
  syncDir(path: string): Promise<void>
}

/** The production file layer: node:fs/promises. */
export const nodeStoreFs: StoreFs = {
  async openAppend(path) {
    const fh = await open(path, constants.O_WRONLY | constants.O_CREAT, 0o600)
    return {
      write: async (buf, offset, length, position) => (await fh.write(buf, offset, length, position)).bytesWritten,
      datasync: () => fh.datasync(),
      truncate: (length) => fh.truncate(length),
      size: async () => (await fh.stat()).size,
      close: () => fh.close(),
    }
  },
  async replaceFile(path, data) {
    const tmp = join(dirname(path), `.${basename(path)}.tmp`)
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
    try {
      const fh = await open(tmp, 'w', 0o600)
      try {
        await writeFully(fh.write.bind(fh), buf, 0)
        await fh.sync()
      } finally {
        await fh.close()
      }
      await rename(tmp, path)
    } catch (e) {
      // A half-written temporary file would only hold space that a full disk needs back.
      await rm(tmp, {force: true}).catch(() => undefined)
      throw e
    }
    await this.syncDir(dirname(path))
  },
  async syncDir(path) {
    let fh
    try {
      fh = await open(path, 'r')
      await fh.sync()
    } catch (e) {
      // Some filesystems refuse fsync on a directory (EINVAL/EISDIR/EPERM); nothing more to do there.
      const code = (e as NodeJS.ErrnoException).code
      if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM' && code !== 'EBADF') throw e
    } finally {
      await fh?.close()
    }
  },
}

/** Writes all of `buf` at `position`, looping over short writes; a write of 0 bytes means no space. */
export async function writeFully(
  write: (buf: Buffer, offset: number, length: number, position: number) => Promise<number | {bytesWritten: number}>,
  buf: Buffer,
  position: number,
): Promise<void> {
  let done = 0
  while (done < buf.length) {
    const r = await write(buf, done, buf.length - done, position + done)
    const n = typeof r === 'number' ? r : r.bytesWritten
    if (!(n > 0)) throw Object.assign(new Error(`short write: ${done} of ${buf.length} bytes, then none`), {code: 'ENOSPC'})
    done += n
  }
}

const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG'])

/** Whether an error from the file layer means the disk (or quota) is full. */
export function isDiskFull(e: unknown): boolean {
  return FULL_CODES.has((e as NodeJS.ErrnoException)?.code ?? '')
}

/**
 * The typed error for a failed store write: full disk → StoreFullError (HTTP 507), anything else
 * from the file layer → StoreIoError. Either way the batch was not acknowledged.
 */
export function storeWriteError(e: unknown, storeDir: string, file: string): Error {
  if (e instanceof StoreFullError || e instanceof StoreIoError) return e
  const code = (e as NodeJS.ErrnoException)?.code
  if (isDiskFull(e)) return StoreFullError.at(storeDir, file, code ?? 'ENOSPC')
  return StoreIoError.at(storeDir, file, code ?? (e as Error)?.message ?? String(e))
}
