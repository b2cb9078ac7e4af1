import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {buildPutProposal} from '../../cli/put.js'
import {UsageError} from '../../errors.js'

export default class PutPlatform extends BaseCommand {
  static override summary = 'Create or update a data platform (its dataPlatformInfo aspect).'
  static override examples = [
    '<%= config.bin %> put platform --name my_db --display_name "My DB" --logo https://example.com/logo.png',
  ]

  static override flags = {
    name: Flags.string({summary: 'Platform name or urn (urn:li:dataPlatform:<name>).', required: true}),
    display_name: Flags.string({summary: 'Display name (defaults to the name).'}),
    logo: Flags.string({summary: 'URL of the platform logo.', required: true}),
  }

  async run(): Promise<{urn: string}> {
    const {flags} = await this.parse(PutPlatform)
    const prefix = 'urn:li:dataPlatform:'
    const name = flags.name.startsWith(prefix) ? flags.name.slice(prefix.length) : flags.name
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new UsageError(`Platform name '${name}' may hold only letters, digits, '.', '_' and '-'`)
    try {
      new URL(flags.logo)
    } catch {
      throw new UsageError(`--logo '${flags.logo}' is not a URL`)
    }
    // As DataHub's put_cli: an urn is kept exactly as given, a plain name is lower-cased.
    const urn = flags.name.startsWith(prefix) ? flags.name : `${prefix}${name.toLowerCase()}`
    const value = {
      name,
      displayName: flags.display_name ?? name,
      type: 'OTHERS',
      datasetNameDelimiter: '.',
      logoUrl: flags.logo,
    }
    await this.client().ingestProposal(buildPutProposal(urn, 'dataPlatformInfo', value, '--name/--logo'))
    this.log(`✅ Successfully wrote data platform metadata for ${urn} to mdcli (${this.settings().server})`)
    return {urn}
  }
}
