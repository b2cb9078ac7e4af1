import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {fetchRuns, type RunSummary} from '../../recipes/runs.js'
import {formatLocalTime, gridTable} from '../../ui/tables.js'

export default class ListRuns extends BaseCommand {
  static override summary = 'List ingestion runs: run id, rows written, when.'
  static override description = 'Newest first. A run is every row stamped with its run id; roll one back with `ingest rollback --run-id`.'
  static override examples = [
    '<%= config.bin %> ingest list-runs',
    '<%= config.bin %> ingest list-runs --page-size 20 --page-offset 20',
    '<%= config.bin %> ingest list-runs --json',
  ]

  static override flags = {
    'page-offset': Flags.integer({summary: 'Runs to skip.', default: 0, min: 0}),
    'page-size': Flags.integer({summary: 'Runs to list.', default: 100, min: 1, max: 10000}),
    'include-soft-deletes': Flags.boolean({summary: 'Accepted for DataHub compatibility; rows of soft-deleted entities are always counted.', default: false, hidden: true}),
  }

  async run(): Promise<RunSummary[]> {
    const {flags} = await this.parse(ListRuns)
    const runs = await fetchRuns(this.client(), {start: flags['page-offset'], count: flags['page-size']})
    if (!this.jsonEnabled()) {
      this.log(gridTable(['runId', 'rows', 'created at'], runs.map((r) => [r.runId, r.rows, formatLocalTime(r.timestamp)]), ['left', 'right', 'left']))
    }
    return runs
  }
}
