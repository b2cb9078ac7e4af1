import {createInterface} from 'node:readline/promises'
import {existsSync} from 'node:fs'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base.js'
import {configPath, DEFAULT_SERVER, normalizeServerUrl, resolveSettings, writeConfigFile} from '../config/settings.js'
import {UsageError} from '../errors.js'

export default class Init extends BaseCommand {
  static override summary = 'Configure which mdcli server to talk to (writes ~/.mdclienv).'
  static override description = `Prompts for the server URL and an access token and writes them to the config file
(owner-only). Flags skip the prompts, for scripts. Environment variables still win over the file.`
  static override examples = [
    '<%= config.bin %> init',
    '<%= config.bin %> init --host http://localhost:9002 --token "$TOKEN" --force',
  ]

  static override flags = {
    host: Flags.string({summary: `Server URL (default ${DEFAULT_SERVER}).`}),
    token: Flags.string({summary: 'Access token (empty for none).'}),
    force: Flags.boolean({char: 'f', summary: 'Overwrite an existing config file without asking.', default: false}),
  }

  async run(): Promise<{path: string; server: string; token: boolean}> {
    const {flags} = await this.parse(Init)
    const path = configPath()
    const interactive = process.stdin.isTTY === true
    const rl = interactive ? createInterface({input: process.stdin, output: process.stdout}) : undefined
    try {
      if (existsSync(path) && !flags.force) {
        if (!rl) throw new UsageError(`${path} already exists; pass --force to overwrite it`)
        const a = (await rl.question(`${path} already exists. Overwrite? [y/N]: `)).trim().toLowerCase()
        if (a !== 'y' && a !== 'yes') throw new UsageError('Aborted; the config file was left as it was')
      }
      this.log('Configure which mdcli instance to connect to')
      let host = flags.host
      if (host === undefined) host = rl ? (await rl.question(`Enter your mdcli host [${DEFAULT_SERVER}]: `)).trim() || DEFAULT_SERVER : DEFAULT_SERVER
      let token = flags.token
      if (token === undefined) token = rl ? (await rl.question('Enter your access token (supports env vars via `{VAR_NAME}` syntax) []: ')).trim() : ''
      const server = normalizeServerUrl(host)
      writeConfigFile(path, {server, token: token || null})
      this.log(`Written to ${path}`)
      // Variables win over the file: say so when some are set, so nobody wonders why it is ignored.
      const overriding = resolveSettings().sources.filter((x) => x.startsWith('environment variable'))
      if (overriding.length) this.log(`Note: ${overriding.join(', ')} ${overriding.length === 1 ? 'is' : 'are'} set and take${overriding.length === 1 ? 's' : ''} precedence over this file.`)
      return {path, server, token: Boolean(token)}
    } finally {
      rl?.close()
    }
  }
}
