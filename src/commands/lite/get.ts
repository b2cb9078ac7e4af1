import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {prettyJson, sortKeysDeep} from '../../cli/json.js'
import {withLocalCatalog} from '../../cli/local-store.js'
import {getLocal} from '../../catalog/local.js'
import {defaultStoreDir, defaultStoreHelp} from '../../config/settings.js'
import {NotFoundError} from '../../errors.js'

export default class LiteGet extends BaseCommand {
  static override summary = 'Print an entity from a stopped lite store (DataHub Lite\'s get).'
  static override description = `Reads the store directory directly; stop \`mdcli lite\` first, or use \`mdcli get\` against
the running server. Prints what \`mdcli get\` prints: a map of aspect name → value, keys sorted.`
  static override examples = [
    '<%= config.bin %> lite get --urn "urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)"',
    '<%= config.bin %> lite get --urn urn:li:corpuser:datahub -a corpUserInfo',
  ]

  static override flags = {
    urn: Flags.string({char: 'u', summary: 'The entity urn.', required: true}),
    aspect: Flags.string({char: 'a', summary: 'Only these aspects (repeatable).', multiple: true}),
    store: Flags.string({summary: 'Store directory.', defaultHelp: defaultStoreHelp}),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(LiteGet)
    return withLocalCatalog(flags.store, `get --urn '${flags.urn}'`, (m) => this.warn(m), async (catalog) => {
      const e = await getLocal(catalog, flags.urn, flags.aspect)
      if (!e) throw new NotFoundError(`No entity ${flags.urn} in the store`)
      // The same object and the same text as `mdcli get`, so scripts can use either.
      if (!this.jsonEnabled()) this.log(prettyJson(e.aspects))
      return sortKeysDeep(e.aspects) as Record<string, unknown>
    })
  }
}
