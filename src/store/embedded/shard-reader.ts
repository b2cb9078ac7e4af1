/**
 * Shard files read and summed on a thread of their own while the store's thread decodes the
 * shard before: at a million aspects the SHA-256 of 300 MiB of shards was a fifth of `lite`'s
 * start on the store's thread (1.34 against 1.03 s to first answer without it, this host). The
 * file goes straight into the value arena's shared memory (ValueArena.claim), so nothing is
 * copied between threads. A file that is not the size the manifest recorded is left to the
 * caller, which reads it itself and reports the difference.
 */
import {Worker} from 'node:worker_threads'
import type {FileSum} from './manifest.js'
import type {ReadReply, ReadRequest} from './shard-read-worker.js'

interface Waiting {
  into: Buffer
  resolve: (r: {buf: Buffer; sum: FileSum} | undefined) => void
  reject: (e: Error) => void
}

/** The reader's thread could not start or stopped: the caller reads the file itself. */
export class ReaderUnavailable extends Error {}

export class ShardReader {
  private worker?: Worker
  private seq = 0
  private readonly waiting = new Map<number, Waiting>()
  private failed?: ReaderUnavailable
  /** Files read by the thread since the process started (for tests). */
  static filesRead = 0

  /** Whether `into` is memory the thread can read into (the arena's shared reservation). */
  static canRead(into: Buffer | undefined): into is Buffer {
    return into !== undefined && into.buffer instanceof SharedArrayBuffer
  }

  /**
   * The file's bytes in `into` and their sum, or undefined when the file is not `into`'s size
   * (nothing read). Rejects with the file system's error (its `code` kept: ENOENT is a missing
   * file), or with ReaderUnavailable when the thread could not start or stopped.
   */
  read(path: string, into: Buffer): Promise<{buf: Buffer; sum: FileSum} | undefined> {
    let w: Worker
    try {
      if (this.failed) throw this.failed
      w = this.start()
    } catch (e) {
      this.fail(e instanceof ReaderUnavailable ? e : new ReaderUnavailable(`the shard reader's thread did not start: ${(e as Error).message}`))
      return Promise.reject(this.failed)
    }
    const seq = ++this.seq
    const p = new Promise<{buf: Buffer; sum: FileSum} | undefined>((resolve, reject) => this.waiting.set(seq, {into, resolve, reject}))
    const req: ReadRequest = {seq, path, memory: into.buffer as SharedArrayBuffer, offset: into.byteOffset, length: into.length}
    // Held while a read waits: a start awaiting one has nothing else keeping its thread's loop alive.
    w.ref()
    w.postMessage(req)
    return p
  }

  /** Stops the thread; reads still waiting fail. */
  async close(): Promise<void> {
    const w = this.worker
    this.worker = undefined
    // Not ReaderUnavailable: reads still asked for are no longer wanted (a start that failed).
    const closed = new Error('the shard reader was closed')
    this.failed ??= new ReaderUnavailable(closed.message)
    for (const q of this.waiting.values()) q.reject(closed)
    this.waiting.clear()
    if (w) await w.terminate()
  }

  private start(): Worker {
    if (this.worker) return this.worker
    const w = new Worker(new URL('./shard-read-worker.js', import.meta.url))
    w.on('message', (m: ReadReply) => {
      const q = this.waiting.get(m.seq)
      if (!q) return
      this.waiting.delete(m.seq)
      if (this.waiting.size === 0) w.unref()
      if ('error' in m) q.reject(Object.assign(new Error(m.error.message), m.error.code ? {code: m.error.code} : {}))
      else if ('size' in m) q.resolve(undefined)
      else {
        ShardReader.filesRead++
        q.resolve({buf: q.into, sum: {size: q.into.length, sha256: m.sha256}})
      }
    })
    w.on('error', (e) => this.fail(new ReaderUnavailable(`the shard reader's thread failed: ${e.message}`)))
    w.on('exit', (code) => this.fail(new ReaderUnavailable(`the shard reader's thread stopped (exit code ${code})`)))
    w.unref()
    this.worker = w
    return w
  }

  private fail(e: ReaderUnavailable): void {
    this.failed ??= e
    for (const q of this.waiting.values()) q.reject(e)
    this.waiting.clear()
  }
}
