import {BaseCommand} from '../../cli/base.js'
import {putFlags, runPut} from './index.js'

export default class PutAspect extends BaseCommand {
  static override summary = 'Write one aspect of an entity (same as `put`).'
  static override examples = ['<%= config.bin %> put aspect --urn urn:li:corpuser:jdoe --aspect corpUserInfo -d user.json']
  static override flags = putFlags

  async run(): Promise<{status: number; urn: string; aspect: string}> {
    const {flags} = await this.parse(PutAspect)
    const r = await runPut(this.client(), flags)
    this.log(`Update succeeded with status ${r.status}`)
    return r
  }
}
