import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base.js'
import {prettyJson, sortKeysDeep} from '../cli/json.js'
import {UsageError} from '../errors.js'
import {aspectSpec, validateUrn} from '../model/registry.js'

export default class Get extends BaseCommand {
  static override summary = 'Print an entity and its aspects as JSON.'
  static override description = `Reads the entity from the server and prints a map of aspect name → value, keys sorted.
Versioned aspects print their latest version; timeseries aspects their latest value.`
  static override examples = [
    '<%= config.bin %> get --urn "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)"',
    '<%= config.bin %> get --urn urn:li:corpuser:datahub --aspect corpUserInfo --aspect status',
  ]

  static override args = {urn: Args.string({description: 'Entity urn (or use --urn).', required: false})}
  static override flags = {
    urn: Flags.string({summary: 'Entity urn.'}),
    aspect: Flags.string({char: 'a', summary: 'Aspect to print (repeatable); all when absent.', multiple: true}),
  }

  async run(): Promise<Record<string, unknown>> {
    const {args, flags} = await this.parse(Get)
    if (flags.urn !== undefined && args.urn !== undefined && flags.urn !== args.urn) throw new UsageError(`Two urns given (${args.urn} and --urn ${flags.urn}); give one`)
    let urn = flags.urn ?? args.urn
    if (!urn) throw new UsageError('Nothing for me to get. Maybe provide an urn? (--urn <urn>)')
    if (urn.startsWith('urn%3A')) urn = decodeURIComponent(urn)
    validateUrn(urn)
    for (const a of flags.aspect ?? []) if (!aspectSpec(a)) throw new UsageError(`Unknown aspect ${a}`)
    const entity = await this.client().getEntity(urn, flags.aspect)
    const out: Record<string, unknown> = {}
    for (const [name, a] of Object.entries(entity.aspects)) out[name] = a.value
    if (!this.jsonEnabled()) this.log(prettyJson(out))
    return sortKeysDeep(out) as Record<string, unknown>
  }
}
