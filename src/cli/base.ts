/**
 * The base of every command: the global `--debug/--no-debug` flag, settings, the client, and
 * one place that turns errors into a single stderr line (a stack only with --debug) and a
 * non-zero exit code, or a JSON error object under `--json`.
 */
import {Command, Flags, type Interfaces} from '@oclif/core'
import {isMdcliError} from '../errors.js'
import {MdcliClient} from '../client/client.js'
import {existsSync} from 'node:fs'
import {datahubConfigPath, DEFAULT_SERVER, resolveSettings, writeConfigFile, type Settings} from '../config/settings.js'
import {sendTelemetry} from './telemetry.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true

  static override baseFlags = {
    debug: Flags.boolean({
      allowNo: true,
      helpGroup: 'GLOBAL',
      summary: 'Debug logging (same as METADATA_DEBUG=true).',
    }),
  }

  private cachedSettings?: Settings
  private cachedClient?: MdcliClient

  protected get debugEnabled(): boolean {
    return this.argv.includes('--debug') || (!this.argv.includes('--no-debug') && this.settings().debug)
  }

  protected settings(): Settings {
    if (!this.cachedSettings) {
      this.cachedSettings = resolveSettings()
      const s = this.cachedSettings
      this.logDebug(`server ${s.server} (${s.serverSource}); settings from ${s.sources.length ? s.sources.join(', ') : 'defaults'}; token ${s.token ? 'set' : 'not set'}`)
    }
    return this.cachedSettings
  }

  /**
   * The spec's first use: with no config file of ours nor DataHub's, write ours with the defaults
   * (server, no token) so there is one file to edit; METADATA_SKIP_CONFIG=true writes nothing.
   */
  private createConfigOnFirstUse(s: Settings): void {
    if (s.skipConfig || existsSync(s.configPath) || existsSync(datahubConfigPath())) return
    try {
      writeConfigFile(s.configPath, {server: DEFAULT_SERVER, token: null})
      this.logDebug(`created config file ${s.configPath} (first use; METADATA_SKIP_CONFIG=true skips this)`)
    } catch (e) {
      this.logDebug(`could not create config file ${s.configPath}: ${(e as Error).message}`)
    }
  }

  protected client(): MdcliClient {
    // First use = the first command that talks to a server; `mdcli lite` writes its own file
    // once it has bound its port, and a failed start leaves nothing behind.
    if (!this.cachedClient) this.createConfigOnFirstUse(this.settings())
    this.cachedClient ??= MdcliClient.fromSettings(this.settings(), {
      // --debug: each request's method, URL, status and time; headers (the token) never.
      onRequest: this.debugEnabled ? (r) => this.logDebug(`${r.method} ${r.url} → ${r.status} in ${r.ms} ms`) : undefined,
    })
    return this.cachedClient
  }

  protected logDebug(msg: string): void {
    if (this.debugEnabled) process.stderr.write(`[debug] ${msg}\n`)
  }

  private readonly startedAt = performance.now()

  override async finally(err: Error | undefined): Promise<void> {
    await this.cachedClient?.close()
    this.logDebug(`${this.id ?? 'command'} ${err ? 'failed' : 'finished'} in ${Math.round(performance.now() - this.startedAt)} ms`)
    const failed = err !== undefined || (process.exitCode !== undefined && process.exitCode !== 0)
    sendTelemetry({command: this.id ?? 'unknown', version: this.config.version, os: process.platform, node: process.version, success: !failed})
    return super.finally(err)
  }

  override async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<void> {
    // oclif's own exits (help, --version) and parse errors keep oclif's handling.
    if (!isMdcliError(err)) {
      if (err.oclif?.exit === 0) throw err
      if (this.debugEnabled && err.stack) process.stderr.write(err.stack + '\n')
      return super.catch(err)
    }
    process.exitCode = 1
    if (this.jsonEnabled()) {
      this.logJson({error: {code: err.code, status: err.status, message: err.message, ...(err.details === undefined ? {} : {details: err.details})}})
      return
    }
    process.stderr.write(`Error: ${err.message}\n`)
    if (this.debugEnabled && err.stack) process.stderr.write(err.stack + '\n')
  }
}
