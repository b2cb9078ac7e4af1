/**
 * Reading the embedded store's files back: whole files checked against the manifest's sums
 * (through lowdb's adapter interface), read ahead in two buffers used in turn. Writing goes
 * through the file layer (files.ts) alone.
 */
import {closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync} from 'node:fs'
import {open, readFile} from 'node:fs/promises'
import {join} from 'node:path'
import type {Adapter} from 'lowdb'
import type {StoreFs} from './files.js'
import {sum, type FileSum} from './manifest.js'

/**
 * Whole files read into two buffers used in turn: one file is read while the other is decoded.
 *
 * Why not readFile: every buffer it allocates counts as V8 external memory, and each 64 MiB of
 * new external memory starts a full marking of the heap. A start at 5,000,000 aspects read
 * 1.6 GB of shards (and webcrypto's digest copied them again): it marked a heap of up to 800 MiB
 * about twice a second, most of a 20 s start. The copy webcrypto makes for its digest on libuv's
 * pool cost the calling thread nearly as much as the sum: a shard of a large store is read and
 * summed on the shard reader's thread instead (shard-reader.ts), into the arena's memory or into
 * one of these buffers, made shared (`shared`). A decoder must copy what it keeps from these
 * buffers: they are read into again two files later (memory the arena claimed is the arena's).
 */
export class FileBuffers {
  private readonly bufs: Buffer[] = [Buffer.alloc(0), Buffer.alloc(0)]
  private turn = 0

  /**
   * The next of the two buffers, as `size` bytes of shared memory, for the shard reader's thread
   * to read a file into (shard-reader.ts); it takes the buffer's turn as `read` does.
   */
  shared(size: number): Buffer {
    const slot = this.turn
    this.turn ^= 1
    const buf = this.bufs[slot]!
    if (buf.length < size || !(buf.buffer instanceof SharedArrayBuffer)) this.bufs[slot] = Buffer.from(new SharedArrayBuffer(Math.max(size, buf.length)))
    return this.bufs[slot]!.subarray(0, size)
  }

  /**
   * Reads the file whole; into `into` when the file has exactly its size (the manifest's size
   * of a shard, whose memory the value arena claimed), else into a buffer of this reader's.
   */
  read(path: string, into?: Buffer): Promise<Buffer> {
    const slot = this.turn
    this.turn ^= 1
    const p = (async () => {
      const fh = await open(path, 'r')
      try {
        const size = (await fh.stat()).size
        if (into?.length !== size && this.bufs[slot]!.length < size) this.bufs[slot] = Buffer.allocUnsafeSlow(size)
        const buf = into?.length === size ? into : this.bufs[slot]!
        let got = 0
        while (got < size) {
          const {bytesRead} = await fh.read(buf, got, size - got, got)
          if (bytesRead === 0) break
          got += bytesRead
        }
        return got === buf.length ? buf : buf.subarray(0, got)
      } finally {
        await fh.close()
      }
    })()
    // Awaited later, by the file's turn; until then a failure must not count as unhandled.
    p.catch(() => undefined)
    return p
  }
}

/**
 * lowdb's adapter for one JSON file of the store: read whole and checked against the manifest's
 * sum when there is one; written only through the file layer's atomic, synced replace, under a
 * name no earlier checkpoint used, so nothing the manifest points to is ever overwritten.
 */
export class StoreJsonFile<T> implements Adapter<T> {
  /** Sum of the bytes last read or written. */
  last?: FileSum
  constructor(
    private readonly fs: StoreFs,
    readonly path: string,
    private readonly encode: (d: T) => string | Buffer,
    private readonly expect?: FileSum,
    private readonly onMismatch?: (why: string) => Error,
    /** The file's bytes, read ahead (see FileBuffers), with their sum when it was computed as they were read (shard-reader.ts). */
    private readonly ahead?: Promise<{buf: Buffer; sum?: FileSum}>,
    private readonly decode: (buf: Buffer) => T = (buf) => JSON.parse(buf.toString('utf8')) as T,
  ) {}

  async read(): Promise<T | null> {
    let buf: Buffer
    let summed: FileSum | undefined
    try {
      if (this.ahead) ({buf, sum: summed} = await this.ahead)
      else buf = await readFile(this.path)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        if (this.expect && this.onMismatch) throw this.onMismatch('is missing')
        return null
      }
      throw e
    }
    this.last = summed ?? sum(buf)
    if (this.expect && this.onMismatch) {
      if (this.last.size !== this.expect.size) throw this.onMismatch(`has ${this.last.size} bytes, the manifest recorded ${this.expect.size} (truncated or altered)`)
      if (this.last.sha256 !== this.expect.sha256) throw this.onMismatch('does not match the checksum the manifest recorded (altered)')
    }
    return this.decode(buf)
  }

  async write(data: T): Promise<void> {
    const enc = this.encode(data)
    const buf = typeof enc === 'string' ? Buffer.from(enc, 'utf8') : enc
    await this.fs.replaceFile(this.path, buf)
    this.last = sum(buf)
  }
}

/** A directory's entries; none when it does not exist (a start must not create it to look). */
export function listDir(path: string): string[] {
  try {
    return readdirSync(path)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw e
  }
}

export function readWhole(path: string): Buffer {
  const fd = openSync(path, 'r')
  try {
    const size = fstatSync(fd).size
    const buf = Buffer.allocUnsafe(size)
    let off = 0
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, off)
      if (n === 0) break
      off += n
    }
    return buf.subarray(0, off)
  } finally {
    closeSync(fd)
  }
}

/** Bytes of every file below `dir` (0 when it does not exist). */
export function duBytes(dir: string): number {
  if (!existsSync(dir)) return 0
  let total = 0
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    const st = statSync(p)
    total += st.isDirectory() ? duBytes(p) : st.size
  }
  return total
}
