import {BaseCommand} from '../../cli/base.js'
import {serverVersionOf} from '../../client/client.js'
import {ServerError} from '../../errors.js'

export default class DockerCheck extends BaseCommand {
  static override summary = 'Check that the configured mdcli server is up and healthy.'
  static override examples = ['<%= config.bin %> docker check']

  async run(): Promise<{ok: true; server: string; version?: string}> {
    await this.parse(DockerCheck)
    const client = this.client()
    await client.health()
    const cfg = await client.config()
    if (cfg.noCode !== 'true') throw new ServerError(`${client.server} answered, but it is not an mdcli server`)
    this.log('✔ No issues detected')
    return {ok: true, server: client.server, version: serverVersionOf(cfg)}
  }
}
