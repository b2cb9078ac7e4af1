import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {withLocalCatalog} from '../../cli/local-store.js'
import {listLocalUrns} from '../../catalog/local.js'
import {defaultStoreDir, defaultStoreHelp} from '../../config/settings.js'
import {resolveEntityType} from '../../catalog/delete.js'

export default class LiteListUrns extends BaseCommand {
  static override summary = 'List the urns in a stopped lite store (DataHub Lite\'s list-urns).'
  static override description = `Reads the store directory directly, as DataHub Lite reads its local file; stop \`mdcli lite\`
first, or use \`mdcli search "*"\` against the running server.`
  static override examples = [
    '<%= config.bin %> lite list-urns',
    '<%= config.bin %> lite list-urns --entity-type dataset --json',
  ]

  static override flags = {
    'entity-type': Flags.string({char: 't', summary: 'Only this entity type.'}),
    'include-soft-deleted': Flags.boolean({summary: 'Include soft-deleted entities.', default: false}),
    store: Flags.string({summary: 'Store directory.', defaultHelp: defaultStoreHelp}),
  }

  async run(): Promise<{total: number; urns: string[]}> {
    const {flags} = await this.parse(LiteListUrns)
    return withLocalCatalog(flags.store, 'search "*"', (m) => this.warn(m), async (catalog) => {
      const urns = await listLocalUrns(catalog, {entityType: flags['entity-type'] === undefined ? undefined : resolveEntityType(flags['entity-type']), includeSoftDeleted: flags['include-soft-deleted']})
      if (!this.jsonEnabled()) for (const u of urns) this.log(u)
      return {total: urns.length, urns}
    })
  }
}
