import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {checkEventFile, type FileCheckResult} from '../../recipes/check.js'

export default class CheckMceFile extends BaseCommand {
  static override summary = 'Validate a change-event (MCE/MCP) file without writing anything.'
  static override description = `Reads the file (or every .json file of a directory) record by record and checks each against the entity registry and the aspect schemas, as the server would.

Prints "<n> MCEs found - all valid", or one line per bad record and exits 1.`
  static override examples = [
    '<%= config.bin %> check mce-file ./bootstrap_mce.json',
    '<%= config.bin %> check metadata-file ./events/ --json',
  ]

  static override args = {file: Args.string({description: 'File or directory to check.', required: true})}
  static override flags = {
    'file-extension': Flags.string({summary: 'With a directory: which files to read.', default: '.json'}),
  }

  async run(): Promise<FileCheckResult> {
    const {args, flags} = await this.parse(CheckMceFile)
    const result = await checkEventFile(args.file, {fileExtension: flags['file-extension']})
    if (!result.valid) process.exitCode = 1
    if (this.jsonEnabled()) return result
    if (result.valid) {
      this.log(`${result.records} MCEs found - all valid${result.skipped > 0 ? ` (${result.skipped} legacy usage ${result.skipped === 1 ? 'record' : 'records'} among them, skipped as ingestion skips them)` : ''}`)
      return result
    }
    const many = result.files.length > 1
    for (const b of result.bad) {
      const where = many ? `${b.file} ` : ''
      if (b.index < 0) this.log(`${where}${b.reason}`)
      else this.log(`${where}record ${b.index}${b.urn ? ` (${b.urn})` : ''}: ${b.reason}`)
    }
    if (result.moreBad > 0) this.log(`… and ${result.moreBad} more bad records`)
    process.stderr.write(`Event file check failed: ${failureSummary(result)}\n`)
    return result
  }
}

/**
 * The closing line of a failed check, with counts that add up: a file that cannot be read as JSON
 * is a broken file, not an invalid record, so it is never counted among the records.
 */
export function failureSummary(result: FileCheckResult): string {
  const broken = result.bad.filter((b) => b.index < 0).length
  const invalid = result.bad.length - broken + result.moreBad
  const parts: string[] = []
  if (broken > 0) parts.push(`${broken} ${broken === 1 ? 'file is' : 'files are'} not readable change-event JSON`)
  if (invalid > 0 || broken === 0) parts.push(`${invalid} of ${result.records} records ${invalid === 1 ? 'is' : 'are'} invalid`)
  else parts.push(`${result.records} ${result.records === 1 ? 'record was' : 'records were'} read before that`)
  return parts.join('; ')
}
