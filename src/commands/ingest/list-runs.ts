import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {fetchRuns, type RunListing} from '../../recipes/runs.js'
import {formatLocalTime, gridTable} from '../../ui/tables.js'

export default class ListRuns extends BaseCommand {
  static override summary = 'List ingestion runs: run id, aspects written and unchanged, state, when.'
  static override description = `Newest first. Every run that wrote or observed anything is listed. DataHub's columns first: "rows" are the aspect rows the run stored, which are its "aspects written" (new versions of aspects it sent) plus its "key aspects" (stored with the first aspect of each entity it created, never sent) — the same numbers the ingest report gives; then "unchanged" are aspects it sent that were already up to date (a re-run of unchanged data writes none but observes them all). State: written, observed (wrote nothing) or rolled back. Roll one back with \`ingest rollback --run-id\`.`
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

  async run(): Promise<RunListing[]> {
    const {flags} = await this.parse(ListRuns)
    const runs = await fetchRuns(this.client(), {start: flags['page-offset'], count: flags['page-size']})
    if (!this.jsonEnabled()) {
      this.log(
        gridTable(
          ['runId', 'rows', 'created at', 'aspects written', 'key aspects', 'unchanged', 'state'],
          runs.map((r) => [r.runId, r.rows, formatLocalTime(r.timestamp), r.aspectsWritten, r.keyAspects, r.unchanged, r.state]),
          ['left', 'right', 'left', 'right', 'right', 'right', 'left'],
        ),
      )
    }
    return runs
  }
}
