import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {defaultStoreDir} from '../../config/settings.js'
import {UsageError} from '../../errors.js'
import {withStoreCatalog} from '../../cli/local-store.js'
import {isStoreUrl} from '../../store/index.js'
import {maskUrl} from '../../store/postgres/url.js'

export default class StoreReindex extends BaseCommand {
  static override summary = "Rebuild a PostgreSQL store's search, entity and reference tables from metadata_aspect_v2 (DataHub's restore indices)."
  static override description = `Reads every row of DataHub's metadata_aspect_v2 table and rebuilds what is derived from it: the
entity list, search documents and references. Use it on a table DataHub (or a restore) filled, or
after editing rows by hand. Servers on the same database may keep running; they reload their search
on their next start.`
  static override examples = [
    '<%= config.bin %> store reindex --store postgres://mdcli:secret@127.0.0.1:5432/catalog',
    'METADATA_STORE_URL=postgres://mdcli@db/catalog <%= config.bin %> store reindex --json',
  ]

  static override flags = {
    store: Flags.string({summary: 'PostgreSQL URL postgres://user:pass@host:port/db (env METADATA_STORE_URL).', defaultHelp: async () => maskUrl(defaultStoreDir())}),
  }

  async run(): Promise<{store: string; entities: number; removed: number}> {
    const {flags} = await this.parse(StoreReindex)
    const url = flags.store ?? defaultStoreDir()
    if (!isStoreUrl(url)) throw new UsageError('store reindex works on a PostgreSQL store: pass --store postgres://… or set METADATA_STORE_URL')
    const r = await withStoreCatalog(url, {warn: (m) => this.warn(m)}, (catalog) => catalog.reindex())
    if (!r) throw new UsageError(`the store at ${maskUrl(url)} has nothing to reindex`)
    this.log(`Reindexed ${r.entities} entities of ${maskUrl(url)}${r.removed > 0 ? ` (${r.removed} without rows dropped)` : ''}`)
    return {store: maskUrl(url), ...r}
  }
}
