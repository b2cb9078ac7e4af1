import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {readDataFile} from '../../sdk/files.js'
import {buildPutProposal} from '../../cli/put.js'
import type {MdcliClient} from '../../client/client.js'

export const putFlags = {
  urn: Flags.string({summary: 'Entity urn.', required: true}),
  aspect: Flags.string({char: 'a', summary: 'Aspect name, e.g. ownership.', required: true}),
  'aspect-data': Flags.string({char: 'd', summary: 'File with the aspect value (.json, .yaml or .toml; - for stdin).', required: true}),
}

export async function runPut(client: MdcliClient, flags: {urn: string; aspect: string; 'aspect-data': string}): Promise<{status: number; urn: string; aspect: string}> {
  const value = readDataFile(flags['aspect-data'])
  const proposal = buildPutProposal(flags.urn, flags.aspect, value, flags['aspect-data'])
  await client.ingestProposal(proposal)
  return {status: 200, urn: flags.urn, aspect: flags.aspect}
}

export default class Put extends BaseCommand {
  static override summary = 'Write one aspect of an entity (an UPSERT proposal).'
  static override description = `Validates the file against the aspect's schema, then sends it to the server as an
UPSERT change proposal. Same as \`put aspect\`.`
  static override examples = [
    '<%= config.bin %> put --urn "urn:li:dataset:(urn:li:dataPlatform:hive,logs,PROD)" --aspect ownership -d ownership.json',
    'echo \'{"removed": false}\' | <%= config.bin %> put --urn urn:li:tag:pii -a status -d -',
  ]

  static override flags = putFlags

  async run(): Promise<{status: number; urn: string; aspect: string}> {
    const {flags} = await this.parse(Put)
    const r = await runPut(this.client(), flags)
    this.log(`Update succeeded with status ${r.status}`)
    return r
  }
}
