/**
 * Opening a stopped lite store from a command, with the way out when a running server holds it.
 * Commands get a Catalog on it, never the store: local verbs read and write as the server does
 * (the model's defaults, secret aspects left out, grants and the change log on writes).
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {defaultStoreDir} from '../config/settings.js'
import {Catalog} from '../catalog/catalog.js'
import {FileError, MdcliError, StoreLockedError} from '../errors.js'
import {ChangeOutbox, OUTBOX_FILE} from '../events/outbox.js'
import {isStoreUrl, lockHolderAlive, openSearchIndex, openStore} from '../store/index.js'
import type {MetadataStore} from '../store/types.js'

export async function withLocalCatalog<T>(dir: string | undefined, serverVerb: string, warn: (m: string) => void, fn: (catalog: Catalog) => Promise<T>): Promise<T> {
  const storeDir = dir ?? defaultStoreDir()
  // These verbs only read: a mistyped path must not leave a new, empty store behind. A
  // PostgreSQL store is opened as a server's replica opens it, beside a running server.
  mustHoldStore(storeDir)
  let store: MetadataStore
  try {
    store = await openStore({dir: storeDir, warn, mustExist: true})
  } catch (error) {
    if (error instanceof MdcliError && error.code === 'E_STORE_LOCKED') {
      throw new StoreLockedError(`The store ${storeDir} is held by a running \`mdcli lite\`; stop it, or ask the server instead: \`mdcli ${serverVerb}\``)
    }
    throw error
  }
  const search = await openSearchIndex({dir: storeDir, warn})
  try {
    return await fn(new Catalog({store, search}))
  } finally {
    await store.close()
    await search.close()
  }
}

/**
 * Runs `fn` with a Catalog on the store at `dir` (a directory, created when missing, or a
 * PostgreSQL URL), for the verbs that write a whole store (`lite import`) or read one whole
 * (`lite export`). Where a server published this store's change log (`lite --changelog`, an
 * outbox file beside it), the writes go into the same outbox, so that server publishes them
 * when it next starts.
 */
export async function withStoreCatalog<T>(dir: string, opts: {warn: (m: string) => void; info?: (m: string) => void; outbox?: boolean; mustExist?: boolean}, fn: (catalog: Catalog) => Promise<T>): Promise<T> {
  if (opts.mustExist) mustHoldStore(dir)
  const store = await openStore({dir, warn: opts.warn, ...(opts.info ? {info: opts.info} : {}), ...(opts.mustExist ? {mustExist: true} : {})})
  const search = await openSearchIndex({dir, warn: opts.warn})
  let outbox: {close(): void} | undefined
  try {
    const catalog = new Catalog({store, search})
    if (opts.outbox && !isStoreUrl(dir) && existsSync(join(dir, OUTBOX_FILE))) {
      const o = ChangeOutbox.open(dir)
      catalog.setOutbox(o)
      outbox = o
    }
    return await fn(catalog)
  } finally {
    outbox?.close()
    await store.close()
    await search.close()
  }
}

/** Whether a live process holds the store's lock file. */
export function storeLocked(dir: string): boolean {
  let text: string
  try {
    text = readFileSync(join(dir, 'LOCK'), 'utf8')
  } catch {
    return false
  }
  return lockHolderAlive(text)
}

/**
 * Refuses a directory that holds no store (missing or empty), naming it: a mistyped path must
 * not become a new store. A PostgreSQL URL is checked when it is opened with `mustExist`
 * (a database without mdcli's schema is refused there, before anything is written to it).
 */
export function mustHoldStore(storeDir: string): void {
  if (isStoreUrl(storeDir)) return
  let entries: string[]
  try {
    entries = readdirSync(storeDir)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'EACCES' || code === 'EPERM') throw new FileError(`Cannot read the store directory ${storeDir}: permission denied (${code}); run as the user who owns it, or give this user access`)
    if (code === 'ENOTDIR') throw new FileError(`No lite store at ${storeDir}: it is a file, not a directory`)
    throw new FileError(`No lite store at ${storeDir}: the directory does not exist (start \`mdcli lite --store ${storeDir}\` to create one)`)
  }
  if (entries.length === 0) throw new FileError(`No lite store at ${storeDir}: the directory is empty`)
}
