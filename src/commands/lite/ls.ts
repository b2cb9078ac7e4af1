import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {LOCAL_STORE_NOTE, withLocalStore} from '../../cli/local-store.js'
import {browse, type BrowseEntry} from '../../catalog/lite-local.js'
import {defaultStoreDir} from '../../config/settings.js'

export default class LiteLs extends BaseCommand {
  static override summary = 'List the browse tree of a stopped lite store, one level at a time.'
  static override description = `\`/\` lists platform categories (databases, data_lakes, bi_tools, streaming, orchestrators,
data_movers, transformation_tools, data_quality, data_platforms); below them come platforms, then
the parts of each entity's name; an entity prints as its path and urn.

${LOCAL_STORE_NOTE}`
  static override examples = [
    '<%= config.bin %> lite ls',
    '<%= config.bin %> lite ls /databases/postgres',
    '<%= config.bin %> lite ls /databases/postgres/shop/public --json',
  ]

  static override args = {path: Args.string({description: 'Browse path.', default: '/'})}
  static override flags = {
    store: Flags.string({summary: 'Store directory.', defaultHelp: async () => defaultStoreDir()}),
  }

  async run(): Promise<BrowseEntry[]> {
    const {args, flags} = await this.parse(LiteLs)
    const entries = await withLocalStore(flags.store, (m) => this.warn(m), (store) => browse(store, args.path))
    for (const e of entries) this.log(e.urn ? `${e.path}\t${e.urn}` : `${e.path}/`)
    return entries
  }
}
