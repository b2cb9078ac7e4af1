/**
 * The embedded store's directory lock: `LOCK` holds the pid of the process using the store, so a
 * second server (or `mdcli lite export`, `token create --store`) on the same directory is refused
 * instead of corrupting it. A lock whose process is gone (kill -9) is taken over.
 */
import {closeSync, openSync, readFileSync, unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {StoreLockedError} from '../../errors.js'

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export class DirLock {
  readonly path: string

  constructor(private readonly dir: string) {
    this.path = join(dir, 'LOCK')
  }

  /** Takes the lock; throws StoreLockedError naming the live holder. */
  acquire(): void {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.path, 'wx', 0o600)
        writeFileSync(fd, String(process.pid))
        closeSync(fd)
        return
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
        const pid = Number.parseInt(readFileSync(this.path, 'utf8'), 10)
        if (Number.isFinite(pid) && pid !== process.pid && pidAlive(pid)) {
          throw new StoreLockedError(`Store ${this.dir} is in use by process ${pid}; stop it first or use another --store`)
        }
        // The holder died (kill -9 leaves the lock behind): take over.
        unlinkSync(this.path)
      }
    }
    throw new StoreLockedError(`Could not lock store ${this.dir}`)
  }

  /** Releases the lock if this process holds it. */
  release(): void {
    try {
      if (readFileSync(this.path, 'utf8') === String(process.pid)) unlinkSync(this.path)
    } catch {
      /* already gone */
    }
  }
}
