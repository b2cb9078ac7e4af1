import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {NotFoundError} from '../../errors.js'
import {fetchRunRows, runExists, type AspectRowSummary} from '../../recipes/runs.js'
import {formatLocalTime, gridTable} from '../../ui/tables.js'

export default class ShowRun extends BaseCommand {
  static override summary = 'Show the rows an ingestion run wrote.'
  static override examples = [
    '<%= config.bin %> ingest show --run-id file-2024_05_01-10_00_00',
    '<%= config.bin %> ingest show --run-id file-2024_05_01-10_00_00 --show-aspect --count 5',
  ]

  static override flags = {
    'run-id': Flags.string({summary: 'Run to show.', required: true}),
    start: Flags.integer({summary: 'Rows to skip.', default: 0, min: 0}),
    count: Flags.integer({summary: 'Rows to show.', default: 100, min: 1, max: 10000}),
    'show-aspect': Flags.boolean({char: 'a', summary: 'Print each row with its aspect value, as JSON.', default: false}),
    'include-soft-deletes': Flags.boolean({summary: 'Accepted for DataHub compatibility.', default: false, hidden: true}),
  }

  async run(): Promise<AspectRowSummary[]> {
    const {flags} = await this.parse(ShowRun)
    const rows = await fetchRunRows(this.client(), flags['run-id'], {start: flags.start, count: flags.count, includeAspect: flags['show-aspect']})
    // A mistyped run id must not look like a run that wrote nothing.
    if (rows.length === 0 && !(await runExists(this.client(), flags['run-id']))) throw new NotFoundError(`No run ${flags['run-id']}`)
    if (!this.jsonEnabled()) {
      if (flags['show-aspect']) for (const r of rows) this.log(JSON.stringify(r, null, 4))
      else this.log(gridTable(['urn', 'aspect name', 'change', 'at'], rows.map((r) => [r.urn, r.aspectName, r.unchanged ? 'unchanged' : 'written', formatLocalTime(r.timestamp)])))
    }
    return rows
  }
}
