/**
 * What `docker quickstart` started, recorded in `~/.mdcli/quickstart.json` (owner-only), so
 * `docker quickstart --stop` stops it whatever store it was given, without repeating `--store`.
 */
import {existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, join, resolve} from 'node:path'

export interface QuickstartRecord {
  pid: number
  store: string
  url: string
  startedAt: string
}

export function quickstartRecordPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.HOME ?? homedir(), '.mdcli', 'quickstart.json')
}

export function readQuickstartRecord(path = quickstartRecordPath()): QuickstartRecord | undefined {
  if (!existsSync(path)) return undefined
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as Partial<QuickstartRecord>
    if (typeof r.pid === 'number' && typeof r.store === 'string') return {pid: r.pid, store: r.store, url: r.url ?? '', startedAt: r.startedAt ?? ''}
  } catch {
    /* unreadable: as if absent */
  }
  return undefined
}

export function writeQuickstartRecord(rec: Omit<QuickstartRecord, 'store'> & {store: string}, path = quickstartRecordPath()): void {
  mkdirSync(dirname(path), {recursive: true, mode: 0o700})
  writeFileSync(path, JSON.stringify({...rec, store: resolve(rec.store)}, null, 2), {mode: 0o600})
}

/** Forgets the record when it names `store` (or always, without a store). */
export function clearQuickstartRecord(store?: string, path = quickstartRecordPath()): void {
  const rec = readQuickstartRecord(path)
  if (rec && (store === undefined || resolve(store) === rec.store)) rmSync(path, {force: true})
}
