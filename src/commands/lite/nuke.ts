import {Flags} from '@oclif/core'
import {existsSync} from 'node:fs'
import {resolve} from 'node:path'
import {BaseCommand} from '../../cli/base.js'
import {confirm} from '../../cli/confirm.js'
import {storeLocked} from '../../cli/local-store.js'
import {nukeStore, type NukeReport} from '../../catalog/local.js'
import {defaultStoreDir, defaultStoreHelp} from '../../config/settings.js'
import {UsageError} from '../../errors.js'
import {isStoreUrl} from '../../store/index.js'
import {maskUrl} from '../../store/postgres/url.js'

export default class LiteNuke extends BaseCommand {
  static override summary = 'Remove a lite store and everything in it (DataHub Lite\'s nuke).'
  static override description = `Deletes the store directory for good: every entity, version and run. Asks first (--force to
skip); refuses while a server holds the store, and refuses a directory that is not a store.
Back it up first with \`mdcli lite export --file F\` if you may want it again.`
  static override examples = [
    '<%= config.bin %> lite nuke',
    '<%= config.bin %> lite nuke --store ./scratch-store --force',
  ]

  static override flags = {
    store: Flags.string({summary: 'Store directory.', defaultHelp: defaultStoreHelp}),
    force: Flags.boolean({char: 'f', summary: 'Do not ask.', default: false}),
  }

  async run(): Promise<NukeReport | {removed: false}> {
    const {flags} = await this.parse(LiteNuke)
    const dir = flags.store ?? defaultStoreDir()
    if (isStoreUrl(dir)) throw new UsageError(`lite nuke removes an embedded store directory; ${maskUrl(dir)} is a PostgreSQL database: drop it with PostgreSQL's tools`)
    // Already gone is what a nuke asks for: said, not an error, and nothing to confirm.
    if (!existsSync(dir)) {
      this.log(`No store at ${resolve(dir)}; nothing to remove.`)
      return {store: resolve(dir), removed: false, files: 0, bytes: 0}
    }
    if (!flags.force && !(await confirm(`Remove the store ${dir} and everything in it?`, '--force'))) {
      // As delete, migrate and rollback do: a declined question is not a success.
      throw new UsageError('Aborted; nothing was removed.')
    }
    const r = nukeStore(dir, () => storeLocked(dir))
    if (!r.removed) this.log(`No store at ${r.store}; nothing to remove.`)
    else this.log(`Removed the store ${r.store} (${r.files} files, ${(r.bytes / 1024).toFixed(0)} KiB).`)
    return r
  }
}
