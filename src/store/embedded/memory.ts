/**
 * Memory limits of the embedded store.
 *
 * The embedded store keeps every live aspect in its heap; old versions are on disk. A heap that
 * reaches V8's limit kills the thread (a crash, not a refusal), so: the server thread's heap is
 * sized from the machine's memory (`serverHeapMb`), and writes are refused with E_STORE_MEMORY
 * once the heap in use nears that limit (`HeapGuard`). Reads keep working; the way on is the
 * PostgreSQL store, which keeps its data on disk.
 */
import {readFileSync} from 'node:fs'
import {totalmem} from 'node:os'
import {getHeapStatistics} from 'node:v8'
import {StoreMemoryError} from '../../errors.js'

/** The memory this process may use: the machine's, or a smaller cgroup (container) limit. */
export function availableMemory(): number {
  let limit = totalmem()
  for (const f of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    try {
      const n = Number(readFileSync(f, 'utf8').trim())
      if (Number.isFinite(n) && n > 0 && n < limit) limit = n
    } catch {
      /* no such limit */
    }
  }
  return limit
}

/**
 * Old-generation size (MiB) for the server thread: half of the memory available, at least
 * 1 GiB, at most 16 GiB. The other half covers the search thread, buffers outside the heap
 * (journal appends, sockets) and the machine's other work.
 */
export function serverHeapMb(available = availableMemory()): number {
  return Math.max(1024, Math.min(16384, Math.floor(available / 2 ** 20 / 2)))
}

/** Old-generation size (MiB) for the search thread: a quarter of the memory, 512 MiB to 8 GiB. */
export function searchHeapMb(available = availableMemory()): number {
  return Math.max(512, Math.min(8192, Math.floor(available / 2 ** 20 / 4)))
}

/**
 * Refuses writes once the heap in use passes `fraction` of the heap's limit. V8 collects more
 * eagerly near its limit, so a heap that stays above it holds that much live data.
 */
export class HeapGuard {
  constructor(
    private readonly storeDir: string,
    private readonly fraction = 0.85,
  ) {}

  /** Throws StoreMemoryError when the heap is too full to take more writes. */
  check(): void {
    const h = getHeapStatistics()
    if (h.used_heap_size <= h.heap_size_limit * this.fraction) return
    const mib = (b: number) => Math.round(b / 2 ** 20)
    const e = new StoreMemoryError(
      `The embedded store is near its memory limit (${mib(h.used_heap_size)} of ${mib(h.heap_size_limit)} MiB in use); the write was not saved. ` +
        'Reads keep working. For a catalog this size use the PostgreSQL store (`mdcli lite --store postgres://…`; move the data with `mdcli lite export` and `mdcli lite import`), or delete entities you no longer need',
      {heapUsedMiB: mib(h.used_heap_size), heapLimitMiB: mib(h.heap_size_limit)},
    )
    // The path is for the server's log, never for a client.
    e.serverDetail = `store ${this.storeDir}`
    throw e
  }
}
