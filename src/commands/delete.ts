import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base.js'
import {confirm} from '../cli/confirm.js'
import {deleteInBatches, findUrns, nothingDeleted, planDelete, readUrnFile, type DeleteOutcome} from '../cli/delete.js'
import {FABRIC_TYPES} from '../model/urn.js'
import {deleteQuestion, deleteReportLines, foundUrnsLines} from '../ui/delete-report.js'

export default class Delete extends BaseCommand {
  static override summary = 'Delete entities by urn, urn file or filters (soft by default, as in DataHub; --hard removes them for good).'
  static override description = `A soft delete (the default, --soft) writes status removed=true: the entity is hidden from search, browse and lineage and can be restored. A hard delete (--hard) removes every aspect of each entity — all versions and timeseries rows — and takes it out of search; with -a/--aspect it removes only that timeseries aspect's rows between --start-time and --end-time. Deleting never cascades: deleting a container leaves its datasets; delete each child by its own urn or filter. References that other entities still hold to hard-deleted urns are reported.

Without --force a hard delete or a delete by filter lists what matched and asks [y/N] (a soft delete of one --urn asks nothing, as in DataHub) (piped input answers with its first line, as in echo y | mdcli delete …); with no answer at all, it refuses. --dry-run lists what would go and changes nothing.`
  static override examples = [
    '<%= config.bin %> delete --urn "urn:li:dataset:(urn:li:dataPlatform:hive,logs,PROD)"',
    '<%= config.bin %> delete --urn "urn:li:dataset:(urn:li:dataPlatform:hive,logs,PROD)" --hard --force',
    '<%= config.bin %> delete --urn "urn:li:dataset:(urn:li:dataPlatform:hive,logs,PROD)" --hard -a datasetProfile --start-time 2024-01-01 --end-time 2024-02-01',
    '<%= config.bin %> delete --urn-file stale-urns.txt --hard --force',
    '<%= config.bin %> delete --platform hive --hard --only-soft-deleted --force',
    '<%= config.bin %> delete --entity-type dataset --platform hive --env DEV --dry-run',
    '<%= config.bin %> delete --platform kafka --query "clickstream" --force --json',
  ]

  static override flags = {
    urn: Flags.string({summary: 'Urn of the entity to delete.'}),
    'entity-type': Flags.string({summary: 'Filter: entity type (dataset, chart, container, …).', aliases: ['entity_type']}),
    platform: Flags.string({char: 'p', summary: 'Filter: platform name (hive) or urn.'}),
    env: Flags.string({char: 'e', summary: `Filter: environment (${FABRIC_TYPES.join(', ')}).`}),
    query: Flags.string({summary: 'Filter: full-text query.'}),
    'urn-file': Flags.string({summary: 'A file of urns to delete, one per line (# comments and blank lines skipped).'}),
    soft: Flags.boolean({summary: 'Soft delete (the default): mark removed; restorable.', default: false, exclusive: ['hard']}),
    hard: Flags.boolean({summary: 'Hard delete: remove every row for good.', default: false, exclusive: ['soft']}),
    aspect: Flags.string({char: 'a', summary: 'With --hard: delete only this timeseries aspect (needs --start-time and --end-time).', aliases: ['aspect-name', 'aspect_name']}),
    'start-time': Flags.string({summary: 'With -a: start of the window (ISO date/time or epoch ms).', aliases: ['start_time']}),
    'end-time': Flags.string({summary: 'With -a: end of the window (ISO date/time or epoch ms).', aliases: ['end_time']}),
    'only-soft-deleted': Flags.boolean({summary: 'With --hard and filters: only entities already soft-deleted.', default: false, aliases: ['only_soft_deleted']}),
    'dry-run': Flags.boolean({char: 'n', summary: 'List what would be deleted; change nothing.', default: false}),
    force: Flags.boolean({char: 'f', summary: 'Do not ask for confirmation.', default: false}),
  }

  async run(): Promise<DeleteOutcome> {
    const {flags} = await this.parse(Delete)
    const started = Date.now()
    const json = this.jsonEnabled()
    const say = (line: string) => {
      if (!json) this.log(line)
    }
    const plan = planDelete(flags)
    for (const w of plan.warnings) if (!json) process.stderr.write(`Warning: ${w}\n`)
    let urns: string[]
    if ('urn' in plan.target) urns = [plan.target.urn]
    else if ('file' in plan.target) {
      urns = readUrnFile(plan.target.file)
      say(`Read ${urns.length} urn(s) from ${plan.target.file}.`)
    } else {
      const found = await findUrns(this.client(), {...plan.target.filters, soft: plan.soft})
      if (found.length === 0) {
        say('Found no urns to delete. Maybe you want to change your filters to be something different?')
        return nothingDeleted(plan, 0, started)
      }
      for (const line of foundUrnsLines(found)) say(line)
      urns = found.map((f) => f.urn)
    }
    // A soft delete of one named urn is undone by restoring it and asks nothing, as DataHub's
    // CLI asks nothing (scripts call it unattended); hard deletes and filters ask.
    const asks = !plan.dryRun && !flags.force && !(plan.soft && 'urn' in plan.target && !plan.window)
    if (asks && !(await confirm(deleteQuestion(plan, urns, {start: flags['start-time'], end: flags['end-time']}), '--force (-f)'))) {
      say('Aborted; nothing was deleted.')
      process.exitCode = 1
      return nothingDeleted(plan, urns.length, started, true)
    }
    const outcome = await deleteInBatches(this.client(), urns, plan, started)
    for (const line of deleteReportLines(outcome, plan.window?.aspectName)) say(line)
    return outcome
  }
}
