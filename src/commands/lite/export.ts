import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {withStoreCatalog} from '../../cli/local-store.js'
import {exportStore, type ExportReport} from '../../catalog/backup.js'
import {defaultStoreDir, defaultStoreHelp} from '../../config/settings.js'
import {entitiesSentence} from '../../model/counts.js'

export default class LiteExport extends BaseCommand {
  static override summary = 'Write a lite store to a DataHub change-event JSON file (backup).'
  static override description = `Every aspect version, timeseries row and run id of the store goes into FILE as DataHub MCPs
(one per line), oldest version first, so \`mdcli lite import\` (or DataHub's file source) rebuilds it.
An embedded store must be stopped first: a running server holds it. A PostgreSQL store may keep
serving: the export reads it as it was at one moment (one read-only transaction), whatever the
servers write meanwhile. FILE must not exist yet.`
  static override examples = [
    '<%= config.bin %> lite export --file backup.json',
    '<%= config.bin %> lite export --store ./catalog-store --file backup.json --json',
  ]

  static override flags = {
    file: Flags.string({char: 'f', summary: 'File to write (must not exist).', required: true}),
    store: Flags.string({summary: 'Store directory, or a PostgreSQL URL postgres://user:pass@host:port/db.', defaultHelp: defaultStoreHelp}),
  }

  async run(): Promise<ExportReport> {
    const {flags} = await this.parse(LiteExport)
    // A large store takes seconds to open: its progress lines go to stderr, out of the way of --json.
    return withStoreCatalog(flags.store ?? defaultStoreDir(), {warn: (m) => this.warn(m), info: (m) => process.stderr.write(`${m}\n`), mustExist: true}, async (catalog) => {
      const report = await exportStore(catalog, flags.file)
      this.log(`Exported ${report.records} records (aspect versions and timeseries rows) of ${entitiesSentence(report.entitiesLive, report.entitiesSoftDeleted)} to ${report.file}`)
      return report
    })
  }
}
