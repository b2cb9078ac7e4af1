import {createInterface} from 'node:readline/promises'
import {existsSync} from 'node:fs'
import {Flags} from '@oclif/core'
import {maskUrl} from '../store/postgres/url.js'
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
    // A bad --host is refused before anything is asked or printed.
    if (flags.host !== undefined) normalizeServerUrl(flags.host, '--host')
    const ask = process.stdin.isTTY === true ? terminalPrompt() : pipedPrompt()
    try {
      if (existsSync(path) && !flags.force) {
        const a = (await ask.question(`${path} already exists. Overwrite? [y/N]: `))?.trim().toLowerCase()
        if (a === undefined) throw new UsageError(`${path} already exists; pass --force to overwrite it`)
        if (a !== 'y' && a !== 'yes') throw new UsageError('Aborted; the config file was left as it was')
      }
      this.log('Configure which mdcli instance to connect to')
      const host = flags.host ?? ((await ask.question(`Enter your mdcli host [${DEFAULT_SERVER}]: `))?.trim() || DEFAULT_SERVER)
      const token = flags.token ?? (await ask.question('Enter your access token (supports env vars via `{VAR_NAME}` syntax) []: '))?.trim() ?? ''
      const server = normalizeServerUrl(host, flags.host === undefined ? 'the host answered' : '--host')
      writeConfigFile(path, {server, token: token || null})
      this.log(`Written to ${path}`)
      // Variables win over the file: say so when some are set, so nobody wonders why it is ignored.
      const overriding = resolveSettings().sources.filter((x) => x.startsWith('environment variable'))
      if (overriding.length) this.log(`Note: ${overriding.join(', ')} ${overriding.length === 1 ? 'is' : 'are'} set and take${overriding.length === 1 ? 's' : ''} precedence over this file.`)
      return {path, server: maskUrl(server), token: Boolean(token)}
    } finally {
      ask.close()
    }
  }
}

/** Answers to the prompts, in order; undefined when there is none (no terminal, input ended). */
interface Prompt {
  question(text: string): Promise<string | undefined>
  close(): void
}

function terminalPrompt(): Prompt {
  const rl = createInterface({input: process.stdin, output: process.stdout})
  return {question: (text) => rl.question(text), close: () => rl.close()}
}

/**
 * Piped input answers the prompts a line each, as DataHub's prompts take it
 * (`printf 'http://host:8080\ntoken\n' | mdcli init`); a prompt past the input's end takes its
 * default. The input is read only when a prompt needs it, so that flags alone never wait on a
 * pipe that stays open. The prompts are not printed: they would only mix into the output.
 */
function pipedPrompt(): Prompt {
  let lines: Promise<string[]> | undefined
  const read = async () => {
    let text = ''
    process.stdin.setEncoding('utf8')
    for await (const chunk of process.stdin) text += chunk as string
    return text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/)
  }
  return {
    question: async () => (await (lines ??= read())).shift(),
    close() {},
  }
}
