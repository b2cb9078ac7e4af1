import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {LOCAL_STORE_NOTE, withLocalStore} from '../../cli/local-store.js'
import {searchLocal, type LocalSearchHit} from '../../catalog/lite-local.js'
import {defaultStoreDir} from '../../config/settings.js'

export default class LiteSearch extends BaseCommand {
  static override summary = 'Find entities of a stopped lite store by urn or name.'
  static override description = `free_text (default): QUERY is a case-insensitive substring of the urn or of a \`name\` in any
aspect; exact: the whole urn or name. Prints the matching urns; --details prints one JSON object
{urn, aspect, snippet} per hit.

${LOCAL_STORE_NOTE}`
  static override examples = ['<%= config.bin %> lite search orders', '<%= config.bin %> lite search "Customer Orders" --flavor exact --details']

  static override args = {query: Args.string({description: 'Text to find.', required: true})}
  static override flags = {
    flavor: Flags.string({summary: 'free_text or exact.', options: ['free_text', 'exact'], default: 'free_text'}),
    aspect: Flags.string({summary: 'Look only in these aspects (repeatable).', multiple: true}),
    details: Flags.boolean({summary: 'Print {urn, aspect, snippet} per hit.', allowNo: true}),
    store: Flags.string({summary: 'Store directory.', defaultHelp: async () => defaultStoreDir()}),
  }

  async run(): Promise<LocalSearchHit[]> {
    const {args, flags} = await this.parse(LiteSearch)
    const hits = await withLocalStore(flags.store, (m) => this.warn(m), (store) =>
      searchLocal(store, args.query, {flavor: flags.flavor as 'free_text' | 'exact', aspects: flags.aspect}),
    )
    for (const h of hits) this.log(flags.details ? JSON.stringify(h) : h.urn)
    return hits
  }
}
