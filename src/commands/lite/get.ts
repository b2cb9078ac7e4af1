import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {prettyJson} from '../../cli/json.js'
import {LOCAL_STORE_NOTE, withLocalStore} from '../../cli/local-store.js'
import {getLocal, urnAtPath} from '../../catalog/lite-local.js'
import {defaultStoreDir} from '../../config/settings.js'
import {UsageError} from '../../errors.js'

export default class LiteGet extends BaseCommand {
  static override summary = 'Print an entity of a stopped lite store as JSON: {urn, <aspect>: value…}.'
  static override description = `Name the entity by --urn, by --path (a browse path from \`mdcli lite ls\`), or as the argument
(an urn, or a path when it starts with /). --verbose adds each aspect's __systemMetadata.

${LOCAL_STORE_NOTE}`
  static override examples = [
    '<%= config.bin %> lite get --urn "urn:li:dataset:(urn:li:dataPlatform:postgres,shop.public.orders,PROD)"',
    '<%= config.bin %> lite get --path /databases/postgres/shop/public/orders -a schemaMetadata',
  ]

  static override args = {target: Args.string({description: 'Urn, or browse path starting with /.'})}
  static override flags = {
    urn: Flags.string({summary: 'Entity urn.'}),
    path: Flags.string({summary: 'Browse path of the entity.'}),
    aspect: Flags.string({char: 'a', summary: 'Aspect to print (repeatable); all when absent.', multiple: true}),
    verbose: Flags.boolean({summary: 'Add __systemMetadata to each aspect.'}),
    store: Flags.string({summary: 'Store directory.', defaultHelp: async () => defaultStoreDir()}),
  }

  async run(): Promise<Record<string, unknown>> {
    const {args, flags} = await this.parse(LiteGet)
    const path = flags.path ?? (args.target?.startsWith('/') ? args.target : undefined)
    const urn = flags.urn ?? (args.target && !args.target.startsWith('/') ? args.target : undefined)
    if (!urn && !path) throw new UsageError('Nothing for me to get. Maybe provide an urn or a path? Use `mdcli lite ls` if you want to explore me.')
    const out = await withLocalStore(flags.store, (m) => this.warn(m), async (store) =>
      getLocal(store, urn ?? (await urnAtPath(store, path!)), {aspects: flags.aspect, verbose: flags.verbose}),
    )
    if (!this.jsonEnabled()) this.log(prettyJson(out))
    return out
  }
}
