import {maskUrl} from '../store/postgres/url.js'
import {BaseCommand} from '../cli/base.js'
import {versionMismatch} from '../cli/version-check.js'

interface VersionInfo {
  cli: string
  node: string
  server?: string
  serverUrl: string
  warning?: string
}

export default class Version extends BaseCommand {
  static override summary = "Print the tool's version and, when a server answers, the server's."
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --json']

  async run(): Promise<VersionInfo> {
    await this.parse(Version)
    const info: VersionInfo = {cli: this.config.version, node: process.version, serverUrl: maskUrl(this.settings().server)}
    try {
      info.server = await this.client().serverVersion()
    } catch (e) {
      this.logDebug(`no server version: ${(e as Error).message}`)
    }
    const warning = info.server === undefined ? undefined : versionMismatch(info.cli, info.server)
    if (warning) info.warning = warning
    this.log(`mdcli CLI version: ${info.cli}`)
    this.log(`Node version: ${info.node}`)
    this.log(info.server ? `Server version: ${info.server} (${info.serverUrl})` : `Server version: unknown (no answer from ${info.serverUrl})`)
    if (info.warning) process.stderr.write(`Warning: ${info.warning}\n`)
    return info
  }
}
