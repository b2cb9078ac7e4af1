/**
 * Opening a stopped lite store from a command, with the way out when a running server holds it.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {defaultStoreDir} from '../config/settings.js'
import {FileError, MdcliError, StoreLockedError} from '../errors.js'
import {openStore} from '../store/index.js'
import type {MetadataStore} from '../store/types.js'

export async function withLocalStore<T>(dir: string | undefined, serverVerb: string, warn: (m: string) => void, fn: (store: MetadataStore) => Promise<T>): Promise<T> {
  const storeDir = dir ?? defaultStoreDir()
  // These verbs only read: a mistyped path must not leave a new, empty store behind.
  let entries: string[]
  try {
    entries = readdirSync(storeDir)
  } catch {
    throw new FileError(`No lite store at ${storeDir}: the directory does not exist (start \`mdcli lite --store ${storeDir}\` to create one)`)
  }
  if (entries.length === 0) throw new FileError(`No lite store at ${storeDir}: the directory is empty`)
  let store: MetadataStore
  try {
    store = await openStore({dir: storeDir, warn})
  } catch (error) {
    if (error instanceof MdcliError && error.code === 'E_STORE_LOCKED') {
      throw new StoreLockedError(`The store ${storeDir} is held by a running \`mdcli lite\`; stop it, or ask the server instead: \`mdcli ${serverVerb}\``)
    }
    throw error
  }
  try {
    return await fn(store)
  } finally {
    await store.close()
  }
}

/** Whether a live process holds the store's lock file. */
export function storeLocked(dir: string): boolean {
  try {
    const pid = Number.parseInt(readFileSync(join(dir, 'LOCK'), 'utf8'), 10)
    if (!Number.isFinite(pid) || pid <= 0) return false
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
