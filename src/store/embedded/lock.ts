/**
 * The embedded store's directory lock: `LOCK` holds the pid of the process using the store, so a
 * second server (or `mdcli lite export`, `token create --store`) on the same directory is refused
 * instead of corrupting it. A lock whose process is gone (kill -9), is a zombie, or is another
 * process that was given the same pid later (the start time differs) is taken over.
 */
import {closeSync, openSync, readFileSync, unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {StoreLockedError} from '../../errors.js'
import {storeWriteError} from './files.js'

/** A process's start time in clock ticks since boot (/proc/<pid>/stat field 22); undefined off Linux or when gone. */
function startTicks(pid: number | 'self'): {ticks: string; zombie: boolean} | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return {ticks: rest[19]!, zombie: rest[0] === 'Z'}
  } catch {
    return undefined
  }
}

/** What this process writes into a lock: its pid, and its start time where the system tells it. */
export function lockText(): string {
  const self = startTicks('self')
  return self ? `${process.pid} ${self.ticks}` : String(process.pid)
}

/**
 * Whether the process a lock's text names still holds it: alive, not a zombie (killed, not yet
 * reaped), and — where the lock recorded one — the same start time, so a pid reused after a
 * crash or a reboot by an unrelated process does not keep the store locked.
 */
export function lockHolderAlive(text: string): boolean {
  const [pidText, ticks] = text.trim().split(/\s+/)
  const pid = Number.parseInt(pidText ?? '', 10)
  if (!Number.isFinite(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  const proc = startTicks(pid)
  if (proc === undefined) return true
  if (proc.zombie) return false
  return ticks === undefined || ticks === proc.ticks
}

export class DirLock {
  readonly path: string
  private readonly text = lockText()

  constructor(private readonly dir: string) {
    this.path = join(dir, 'LOCK')
  }

  /** Takes the lock; throws StoreLockedError naming the live holder. */
  acquire(): void {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.path, 'wx', 0o600)
        try {
          writeFileSync(fd, this.text)
        } catch (e) {
          // A full disk: no empty LOCK is left behind, and the error names the store.
          closeSync(fd)
          unlinkSync(this.path)
          throw storeWriteError(e, this.dir, this.path)
        }
        closeSync(fd)
        return
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw (e as NodeJS.ErrnoException).code === undefined ? e : storeWriteError(e, this.dir, this.path)
        const held = readFileSync(this.path, 'utf8')
        const pid = Number.parseInt(held, 10)
        if (Number.isFinite(pid) && pid !== process.pid && lockHolderAlive(held)) {
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
      if (Number.parseInt(readFileSync(this.path, 'utf8'), 10) === process.pid) unlinkSync(this.path)
    } catch {
      /* already gone */
    }
  }
}
