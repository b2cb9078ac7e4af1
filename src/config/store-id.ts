/** A store's identity, kept apart from the settings so the server thread loads no YAML reader for it. */
import {createHash} from 'node:crypto'
import {resolve as resolvePath} from 'node:path'
import {isStoreUrl, maskUrl} from '../store/postgres/url.js'

/** How the config file names a store: a directory made absolute, a database URL with its password masked. */
export function storeIdentity(store: string): string {
  return isStoreUrl(store) ? maskUrl(store) : resolvePath(store)
}

/**
 * A short digest of a store's identity, which `GET /config` shows: enough for `docker quickstart`
 * to tell whether the server on a port serves the store it was asked for, without naming a path.
 */
export function storeFingerprint(store: string): string {
  return createHash('sha256').update(storeIdentity(store)).digest('hex').slice(0, 16)
}
