import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {withLocalCatalog} from '../../cli/local-store.js'
import {lsPath, type LsEntry} from '../../catalog/local.js'
import {defaultStoreDir, defaultStoreHelp} from '../../config/settings.js'
import {entitiesSentence} from '../../model/counts.js'

export default class LiteLs extends BaseCommand {
  static override summary = 'Walk a stopped lite store like a file system (DataHub Lite\'s ls).'
  static override description = `Paths: / lists entity types, /<entityType> lists platforms (for types whose urns name one) and
entities, /<entityType>/<platform> lists the entities on that platform. Reads the store directory
directly; stop \`mdcli lite\` first.`
  static override examples = [
    '<%= config.bin %> lite ls /',
    '<%= config.bin %> lite ls /dataset',
    '<%= config.bin %> lite ls /dataset/hive --json',
  ]

  static override args = {path: Args.string({description: 'Where to look.', default: '/'})}
  static override flags = {store: Flags.string({summary: 'Store directory.', defaultHelp: defaultStoreHelp})}

  async run(): Promise<{path: string; entries: LsEntry[]}> {
    const {args, flags} = await this.parse(LiteLs)
    return withLocalCatalog(flags.store, 'search "*"', (m) => this.warn(m), async (catalog) => {
      const entries = await lsPath(catalog, args.path)
      if (!this.jsonEnabled()) {
        for (const e of entries) this.log(e.kind === 'folder' ? `${e.name.padEnd(30)} ${e.count}${e.softDeleted ? ` (+${e.softDeleted} soft-deleted)` : ''}` : e.name)
        if (entries.some((e) => e.softDeleted !== undefined)) {
          const live = entries.reduce((n, e) => n + (e.count ?? 0), 0)
          const soft = entries.reduce((n, e) => n + (e.softDeleted ?? 0), 0)
          this.log(`\n${entitiesSentence(live, soft)}`)
        }
      }
      return {path: args.path, entries}
    })
  }
}
