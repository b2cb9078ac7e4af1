import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {withStoreCatalog} from '../../cli/local-store.js'
import {hasEntities} from '../../catalog/local.js'
import {importRecords, type ImportReport} from '../../catalog/backup.js'
import {defaultStoreDir, defaultStoreHelp} from '../../config/settings.js'
import {FileError, MdcliError, ParseError} from '../../errors.js'
import {readJsonElements} from '../../sdk/json-stream.js'
import {maskUrl} from '../../store/postgres/url.js'
import {existsSync, statSync} from 'node:fs'

export default class LiteImport extends BaseCommand {
  static override summary = 'Load a DataHub change-event JSON file into a stopped lite store (restore).'
  static override description = `Reads FILE (a JSON array of MCPs, as \`mdcli lite export\` or DataHub's file sink writes it) as a
stream and writes every record in order, checked like any proposal: versions, timeseries rows,
audit stamps and run ids come back as exported. Into an empty store it restores a backup; into a
store with data it adds to it. Stop \`mdcli lite\` first: a running server holds the store.`
  static override examples = [
    '<%= config.bin %> lite import --file backup.json',
    '<%= config.bin %> lite import --store ./restored-store --file backup.json --json',
  ]

  static override flags = {
    file: Flags.string({char: 'f', summary: 'Change-event JSON file to read.', required: true}),
    store: Flags.string({summary: 'Store directory (created when missing), or a PostgreSQL URL postgres://user:pass@host:port/db.', defaultHelp: defaultStoreHelp}),
  }

  async run(): Promise<ImportReport> {
    const {flags} = await this.parse(LiteImport)
    if (!existsSync(flags.file)) throw new FileError(`File not found: ${flags.file}`)
    // Checked before the store is opened: a refused import must not leave a new, empty store behind.
    const st = statSync(flags.file)
    if (!st.isFile()) throw new FileError(`${flags.file} is not a file (a directory?): give the JSON file \`mdcli lite export\` wrote`)
    if (st.size === 0) throw new FileError(`${flags.file} is empty: nothing to import`)
    // A large store takes seconds to open: its progress lines go to stderr, out of the way of --json.
    const where = maskUrl(flags.store ?? defaultStoreDir())
    return withStoreCatalog(flags.store ?? defaultStoreDir(), {warn: (m) => this.warn(m), info: (m) => process.stderr.write(`${m}\n`), outbox: true}, async (catalog) => {
      // Into a store with data the records add up: a version already there is written again as a
      // newer one. Said first, since a retried restore into a half-filled store is the usual case.
      const heldEntities = await hasEntities(catalog)
      if (heldEntities) {
        process.stderr.write(`Note: ${where} already holds entities; the file's records are added to them (a version already there is written again as a newer one). To restore a backup, import into a new or empty store.\n`)
      }
      let report: ImportReport
      // A file cut short (a truncated copy) ends the records there: the whole records before the
      // cut are written, so the error can say exactly what the store holds now.
      let cut: MdcliError | undefined
      async function* upToCut(elements: ReturnType<typeof readJsonElements>): ReturnType<typeof readJsonElements> {
        try {
          yield* elements
        } catch (e) {
          if (!(e instanceof MdcliError && e.code === 'E_PARSE')) throw e
          cut = e
        }
      }
      try {
        report = await importRecords(catalog, catalog.systemGrant(), flags.file, upToCut(readJsonElements(flags.file)))
      } catch (e) {
        if (cut) throw cutShort(flags.file, where, cut, 0, heldEntities)
        // The server's wording ("reads keep working") is not this command's: say what is left.
        if (e instanceof MdcliError && (e.code === 'E_STORE_FULL' || e.code === 'E_STORE_IO' || e.code === 'E_STORE_MEMORY')) {
          throw new FileError(`The import stopped: ${e.message.split('. ')[0]}. ${where} now holds part of ${flags.file}: remove it (mdcli lite nuke --store ${where} --force) and import again into an empty store once that is fixed.`)
        }
        throw e
      }
      if (cut) throw cutShort(flags.file, where, cut, report.records, heldEntities)
      this.log(`Imported ${report.records} records (${report.entities} new entities) from ${report.file}${report.failed > 0 ? `; ${report.failed} refused` : ''}`)
      for (const f of report.failures) this.log(`  record ${f.index}: ${f.message}`)
      // A restore that left records out is not a restore: scripts must see it.
      if (report.failed > 0) process.exitCode = 1
      return report
    })
  }
}

/** The error of an import from a file that ends too soon: what the store holds now, and the way back. */
function cutShort(file: string, where: string, cut: MdcliError, written: number, heldEntities: boolean): ParseError {
  const what = `The import stopped: ${file} is cut short (${cut.message}).`
  if (written === 0) return new ParseError(`${what} Nothing of it was written to ${where}.`)
  const before = heldEntities ? ', beside the entities it held before' : ''
  return new ParseError(`${what} ${where} now holds its first ${written} records${before}: remove it (mdcli lite nuke --store ${where} --force) and import a whole file into an empty store.`)
}
