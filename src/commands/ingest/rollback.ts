import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {confirm} from '../../cli/confirm.js'
import {MdcliClient} from '../../client/client.js'
import {UsageError} from '../../errors.js'
import {requestRollback, type RollbackReport} from '../../recipes/runs.js'
import {formatLocalTime, gridTable} from '../../ui/tables.js'
import {rowsSentence} from '../../model/counts.js'

const ROLLBACK_TIMEOUT_MS = 10 * 60 * 1000

const PROMPT = 'This will permanently delete data from mdcli. Do you want to continue? [y/N] '

export default class Rollback extends BaseCommand {
  static override summary = 'Undo an ingestion run: revert the aspects it wrote, delete the entities it created.'
  static override description = `Every aspect whose latest versions the run wrote goes back to the version before it; entities the run created are soft-deleted (status removed) or, with --hard, deleted with all their rows; timeseries rows of the run are deleted.

Asks for confirmation unless --force or --dry-run.`
  static override examples = [
    {description: 'See what a rollback would do', command: '<%= config.bin %> ingest rollback --run-id file-2024_05_01-10_00_00 --dry-run'},
    {description: 'Roll back without asking (scripts)', command: '<%= config.bin %> ingest rollback --run-id file-2024_05_01-10_00_00 --force'},
    {description: 'Also remove created entities completely', command: '<%= config.bin %> ingest rollback --run-id my-run --hard --force'},
  ]

  static override flags = {
    'run-id': Flags.string({summary: 'Run to roll back (see `ingest list-runs`).', required: true}),
    'dry-run': Flags.boolean({char: 'n', summary: 'Report what would change; change nothing.', default: false}),
    force: Flags.boolean({char: 'f', summary: 'Do not ask for confirmation.', default: false}),
    hard: Flags.boolean({summary: 'Delete the entities the run created with all their rows (DataHub: --nuke).', default: false, aliases: ['nuke']}),
  }

  private confirm(): Promise<boolean> {
    return confirm('Roll back?', '--force', {
      prompt: PROMPT,
      output: process.stdout,
      refusal: 'Refusing to roll back without confirmation: standard input is not a terminal and gave no answer. Re-run with --force (or --dry-run to look first).',
    })
  }

  async run(): Promise<RollbackReport | {aborted: true}> {
    const {flags} = await this.parse(Rollback)
    // A rollback of a large run rewrites many rows in one batch: allow it more than the usual 30 s.
    const client = MdcliClient.fromSettings(this.settings(), {timeoutMs: ROLLBACK_TIMEOUT_MS})
    try {
      return await this.rollback(client, flags)
    } finally {
      await client.close()
    }
  }

  private async rollback(client: MdcliClient, flags: {'run-id': string; 'dry-run': boolean; force: boolean; hard: boolean}): Promise<RollbackReport | {aborted: true}> {
    const runId = flags['run-id']
    const dryRun = flags['dry-run']
    // Fail on an unreachable server before asking anything.
    await client.config()
    if (!flags.force && !dryRun && !(await this.confirm())) {
      this.log('Aborted; nothing was changed.')
      process.exitCode = 1
      return {aborted: true}
    }
    const payload = {runId, dryRun, safe: !flags.hard}
    const report = await requestRollback(client, payload)
    if (this.jsonEnabled()) return report
    if (report.entitiesAffected === 0 && report.aspectRowSummaries.length === 0) {
      this.log(report.note ?? `No entities found. Payload used: ${JSON.stringify(payload)}`)
      return report
    }
    this.log('Rolling back deletes the entities created by a run and reverts the updated aspects')
    this.log(`This rollback ${dryRun ? 'will delete' : 'deleted'} ${report.entitiesAffected} entities and ${dryRun ? 'will roll' : 'rolled'} back ${report.aspectsReverted} aspects`)
    // The same words and sum as the ingest report and list-runs (src/model/counts.ts).
    const key = report.keyAspectsReverted ?? 0
    // list-runs counts every row the run wrote; those later runs wrote over stay (aspectsKept).
    const counted = report.aspectsKept > 0 ? `; \`ingest list-runs\` counts ${report.aspectsKept} more, which stay` : ' (as `ingest list-runs` counts them)'
    this.log(`Rows of run ${runId} ${dryRun ? 'to roll back' : 'rolled back'}: ${rowsSentence(report.aspectsReverted - key, key)}${counted}.`)
    const rows = report.aspectRowSummaries.filter((r) => r.runId === runId)
    this.log(`showing first ${rows.length} of ${report.aspectsReverted} aspects ${dryRun ? 'that will be ' : ''}reverted by this run`)
    this.log(gridTable(['urn', 'aspect name', 'created at'], rows.map((r) => [r.urn, r.aspectName, formatLocalTime(r.timestamp)])))
    if (report.aspectsAffected > 0) {
      const verb = flags.hard ? (dryRun ? 'will delete' : 'has deleted') : dryRun ? 'will hide' : 'has hidden'
      this.log(`WARNING: This rollback ${verb} ${report.aspectsAffected} aspects related to ${report.unsafeEntitiesCount} entities being rolled back that are not part ingestion run id.`)
    }
    if (report.aspectsKept > 0) {
      this.log(`Note: ${report.aspectsKept} older versions written by this run stay, because later runs wrote over them.`)
    }
    return report
  }
}
