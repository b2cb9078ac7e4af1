import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {LOCAL_STORE_NOTE, withLocalStore} from '../../cli/local-store.js'
import {defaultStoreDir} from '../../config/settings.js'

export default class LiteListUrns extends BaseCommand {
  static override summary = 'Print every urn of a stopped lite store, one a line.'
  static override description = `Soft-deleted entities are left out unless --include-removed.

${LOCAL_STORE_NOTE}`
  static override examples = ['<%= config.bin %> lite list-urns', '<%= config.bin %> lite list-urns --store ./catalog-store --json']

  static override flags = {
    store: Flags.string({summary: 'Store directory.', defaultHelp: async () => defaultStoreDir()}),
    'include-removed': Flags.boolean({summary: 'Include soft-deleted entities.'}),
  }

  async run(): Promise<string[]> {
    const {flags} = await this.parse(LiteListUrns)
    const {urns} = await withLocalStore(flags.store, (m) => this.warn(m), (store) => store.listUrns({includeSoftDeleted: flags['include-removed']}))
    for (const u of urns) this.log(u)
    return urns
  }
}
