/**
 * The base of every command: the global `--debug/--no-debug` flag, settings, the client, and
 * one place that turns errors into a single stderr line (a stack only with --debug) and a
 * non-zero exit code, or a JSON error object under `--json`.
 */
import {Command, Flags, type Interfaces} from '@oclif/core'
import {isMdcliError} from '../errors.js'
import {maskUrl} from '../store/postgres/url.js'
import {MdcliClient} from '../client/client.js'
import type {RequestLog} from '../client/client.js'
import {existsSync} from 'node:fs'
import {DEFAULT_SERVER, datahubConfigPath, debugFromEnv, resolveSettings, writeConfigFile, type Settings} from '../config/settings.js'

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

  /**
   * From the flags and METADATA_DEBUG alone (all the settings know of debug): it is read while
   * an error is reported, which must not resolve settings again, since a bad setting is often
   * the error being reported.
   */
  protected get debugEnabled(): boolean {
    return this.argv.includes('--debug') || (!this.argv.includes('--no-debug') && debugFromEnv())
  }

  protected settings(): Settings {
    if (!this.cachedSettings) {
      this.cachedSettings = resolveSettings()
      const s = this.cachedSettings
      this.logDebug(`server ${maskUrl(s.server)} (${s.serverSource}); settings from ${s.sources.length ? s.sources.join(', ') : 'defaults'}; token ${s.token ? 'set' : 'not set'}`)
    }
    return this.cachedSettings
  }

  /**
   * The spec's first use: a config file with the defaults in force, unless METADATA_SKIP_CONFIG.
   * `lite` is left out: it writes the file itself once it has bound its port and has a token.
   */
  private createConfigOnFirstUse(s: Settings): void {
    if (s.skipConfig || this.id === 'lite' || s.sources.some((x) => x.startsWith('config file')) || existsSync(s.configPath)) return
    // A DataHub user's settings are read while ours are absent; a file of ours would hide them.
    if (s.sources.some((x) => x.includes('DATAHUB_')) || existsSync(datahubConfigPath())) return
    try {
      writeConfigFile(s.configPath, {server: DEFAULT_SERVER, token: null})
      this.logDebug(`created the config file ${s.configPath} with the defaults in force`)
    } catch (error) {
      this.logDebug(`could not create the config file ${s.configPath}: ${(error as Error).message}`)
    }
  }

  /** The first command that talks to a server writes the config file (not `check` or `telemetry`). */
  protected client(): MdcliClient {
    if (!this.cachedClient) this.createConfigOnFirstUse(this.settings())
    const onRequest = this.requestLog()
    this.cachedClient ??= MdcliClient.fromSettings(this.settings(), onRequest ? {onRequest} : {})
    return this.cachedClient
  }

  /** With --debug: logs a request's method, URL, status and time (never its headers or token). */
  protected requestLog(): RequestLog | undefined {
    if (!this.debugEnabled) return undefined
    return (r) => this.logDebug(`${r.method} ${r.url} → ${r.status} in ${r.ms.toFixed(0)} ms`)
  }

  protected logDebug(msg: string): void {
    if (this.debugEnabled) process.stderr.write(`[debug] ${msg}\n`)
  }

  private readonly startedAt = performance.now()

  override async finally(err: Error | undefined): Promise<void> {
    await this.cachedClient?.close()
    this.logDebug(`${this.id ?? 'command'} finished in ${(performance.now() - this.startedAt).toFixed(0)} ms`)
    // After the command's output, handed to a detached process: the exit waits for no collector.
    const failed = (err !== undefined && (err as {oclif?: {exit?: number}}).oclif?.exit !== 0) || (process.exitCode !== undefined && process.exitCode !== 0)
    const {sendTelemetry} = await import('./telemetry.js')
    await sendTelemetry({command: (this.id ?? 'unknown').split(':').join(' '), version: this.config.version, success: !failed}, {notice: (t) => process.stderr.write(t + '\n')})
    return super.finally(err)
  }

  override async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<void> {
    // oclif's own exits (help, --version) and parse errors keep oclif's handling, except under
    // --json: oclif's JSON of an error serializes the command object, settings and token included.
    if (!isMdcliError(err)) {
      if (err.oclif?.exit === 0) throw err
      if (this.debugEnabled && err.stack) process.stderr.write(err.stack + '\n')
      if (!this.jsonEnabled()) return super.catch(err)
      const usage = typeof err.oclif?.exit === 'number'
      process.exitCode = err.oclif?.exit ?? 1
      // oclif's reasons follow its first line ("Parsing --count", "The following errors occurred:"): one line with all of them.
      const lines = err.message.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/^See more help/.test(l))
      this.logJson({error: {code: usage ? 'E_USAGE' : 'E_INTERNAL', message: lines.join(' ')}})
      return
    }
    process.exitCode = 1
    if (this.jsonEnabled()) {
      this.logJson({error: {code: err.code, status: err.status, message: err.message, ...(err.details === undefined ? {} : {details: err.details})}})
      return
    }
    // A command runs on the machine whose paths the server's log would name: it names them too.
    process.stderr.write(`Error: ${err.message}${err.serverDetail ? ` (${err.serverDetail})` : ''}\n`)
    if (this.debugEnabled && err.stack) process.stderr.write(err.stack + '\n')
  }
}
