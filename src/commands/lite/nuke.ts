import {Flags} from '@oclif/core'
import {existsSync} from 'node:fs'
import {NotFoundError} from '../../errors.js'
import {BaseCommand} from '../../cli/base.js'
import {confirm} from '../../cli/confirm.js'
import {withLocalStore} from '../../cli/local-store.js'
import {nukeStore} from '../../catalog/lite-local.js'
import {defaultStoreDir} from '../../config/settings.js'

export default class LiteNuke extends BaseCommand {
  static override summary = 'Delete a stopped lite store for good (asks first; --force skips the question).'
  static override description = `Removes the whole store directory: every entity, version, run and search index. Stop
\`mdcli lite\` first: a running server holds the store and this refuses with E_STORE_LOCKED.
Keep a copy with \`mdcli lite export\` before, if you may want it back.`
  static override examples = ['<%= config.bin %> lite nuke', '<%= config.bin %> lite nuke --store ./catalog-store --force']

  static override flags = {
    force: Flags.boolean({char: 'f', summary: 'Do not ask for confirmation.'}),
    store: Flags.string({summary: 'Store directory.', defaultHelp: async () => defaultStoreDir()}),
  }

  async run(): Promise<{store: string; nuked: boolean}> {
    const {flags} = await this.parse(LiteNuke)
    const dir = flags.store ?? defaultStoreDir()
    if (!existsSync(dir)) throw new NotFoundError(`No DataHub Lite instance at ${dir}`)
    // Opening takes the lock: a running server makes this refuse before anything is asked.
    await withLocalStore(dir, (m) => this.warn(m), async () => undefined)
    if (!flags.force && !(await confirm(`This will permanently delete the DataHub Lite instance at: ${dir}. Are you sure?`, '--force'))) {
      this.log('Nothing was deleted.')
      return {store: dir, nuked: false}
    }
    nukeStore(dir)
    this.log(`DataHub Lite at ${dir} nuked!`)
    return {store: dir, nuked: true}
  }
}
