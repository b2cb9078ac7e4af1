/**
 * Opens the local lite store for a `mdcli lite <verb>` command and always closes it, so its lock
 * is released whatever the command does.
 */
import {defaultStoreDir} from '../config/settings.js'
import {openStore, type MetadataStore} from '../store/index.js'

export async function withLocalStore<T>(dir: string | undefined, warn: (m: string) => void, fn: (store: MetadataStore) => Promise<T>): Promise<T> {
  const store = await openStore({dir: dir ?? defaultStoreDir(), warn})
  try {
    return await fn(store)
  } finally {
    await store.close()
  }
}

/** One sentence for every local lite verb's help. */
export const LOCAL_STORE_NOTE = `Like DataHub Lite, this reads the store directory itself, not the server: stop \`mdcli lite\`
first (a running server holds the store and this refuses with E_STORE_LOCKED); while it runs,
use \`mdcli get\` / \`mdcli search\`, which go through the server.`
