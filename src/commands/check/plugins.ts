import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {UsageError} from '../../errors.js'
import type {PluginKind} from '../../sdk/plugin.js'
import {PluginRegistry, type PluginStatus} from '../../recipes/registry.js'

/** Column widths of DataHub's `check plugins` (sources, sinks, transformers). */
const WIDTH: Record<PluginKind, number> = {source: 25, sink: 15, transformer: 30}
const TITLE: Record<PluginKind, string> = {source: 'Sources:', sink: 'Sinks:', transformer: 'Transformers:'}

export default class CheckPlugins extends BaseCommand {
  static override summary = 'List the sources, sinks and transformers, and whether each can load.'
  static override description = `Built-in plugins and third-party ones: npm packages in node_modules (of this directory or of mdcli) that declare "mdcli": {"plugins": {...}} in their package.json.

A plugin that cannot be imported is listed as disabled; --verbose says why, and lists each plugin's description and config keys (* = required).`
  static override examples = [
    '<%= config.bin %> check plugins',
    '<%= config.bin %> check plugins --verbose',
    '<%= config.bin %> check plugins --source postgres',
  ]

  static override flags = {
    verbose: Flags.boolean({char: 'v', summary: 'Show where each plugin comes from, what it does and its config keys, or why it is disabled.', default: false}),
    source: Flags.string({summary: 'Check one source and say whether it is enabled.'}),
  }

  async run(): Promise<PluginStatus[]> {
    const {flags} = await this.parse(CheckPlugins)
    const registry = PluginRegistry.discover()
    if (flags.source) {
      const all = await registry.check('source')
      const s = all.filter((p) => p.name === flags.source)
      if (s.length === 0) await registry.load('source', flags.source) // throws with a suggestion
      const best = s.find((p) => p.enabled) ?? s[0]!
      if (!best.enabled) throw new UsageError(`Source ${flags.source} is disabled: ${best.reason}`)
      if (!this.jsonEnabled()) this.log(`Source ${flags.source} is enabled.`)
      return s
    }
    const statuses = await registry.check()
    if (this.jsonEnabled()) return statuses
    let anyDisabled = false
    for (const kind of ['source', 'sink', 'transformer'] as PluginKind[]) {
      this.log(TITLE[kind])
      for (const p of statuses.filter((x) => x.kind === kind).sort((a, b) => a.name.localeCompare(b.name))) {
        if (!p.enabled) anyDisabled = true
        const pad = p.name.padEnd(Math.max(WIDTH[kind], p.name.length + 1))
        if (flags.verbose) {
          const where = p.origin === 'built-in' ? p.module.replace(/^.*\/plugins\//, 'plugins/') : `${p.origin}`
          this.log(p.enabled ? `${pad}${where}` : `${pad}(disabled) ${p.reason ?? ''}`)
          if (p.enabled && p.description) this.log(`${' '.repeat(pad.length)}${p.description}`)
          if (p.enabled && p.configKeys?.length) this.log(`${' '.repeat(pad.length)}config: ${p.configKeys.join(', ')}`)
        } else this.log(p.enabled ? p.name : `${pad}(disabled)`)
      }
      this.log('')
    }
    if (anyDisabled && !flags.verbose) this.log("For details on why a plugin is disabled, rerun with '--verbose'")
    this.log('If a plugin is disabled, install its package and its dependencies in this project: npm install <package>')
    return statuses
  }
}
