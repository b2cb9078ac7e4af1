import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base.js'
import {confirm} from '../../cli/confirm.js'
import {jsonList} from '../../cli/report.js'
import type {MigrationReport} from '../../catalog/migrate.js'
import {UsageError} from '../../errors.js'
import {FABRIC_TYPES} from '../../model/urn.js'

/** The report block of DataHub's `migrate` (facts §4.14), `[Dry Run] ` on every line of a dry run. */
export function renderReport(r: MigrationReport): string {
  const kept = r.mode === 'keep'
  const block = (b: {created: string[]; affected: string[]; migrated: string[]}) => [
    'Migration Report:',
    '--------------',
    `Migration Run Id: ${r.runId}`,
    `Num entities created = ${b.created.length}`,
    `Num entities affected = ${b.affected.length}`,
    `Num entities ${kept ? 'kept' : 'migrated'} = ${b.migrated.length}`,
    'Details:',
    `New Entities Created: ${jsonList(b.created)}`,
    `External Entities Affected: ${jsonList(b.affected)}`,
    `Old Entities ${kept ? 'Kept' : 'Migrated'} = ${jsonList(b.migrated)}`,
  ]
  // DataHub prints the containers' report after the datasets'; one run id here rolls both back.
  const lines = [...block(r), ...(r.containers.migrated.length > 0 ? block(r.containers) : [])]
  return lines.map((l) => (r.dryRun ? `[Dry Run] ${l}` : l)).join('\n')
}

export default class MigrateDataPlatformToInstance extends BaseCommand {
  static override summary = 'Move every dataset of a platform under a platform instance.'
  static override description = `For each dataset of --platform in --env that has no platform instance yet, writes a new dataset named <instance>.<name> with a copy of every versioned aspect (timeseries aspects such as profiles and usage stay behind) and a dataPlatformInstance aspect, rewrites the references other entities hold (lineage, dashboards, charts, jobs, …) to the new urns, then soft-deletes the old datasets — or keeps them (--keep) or hard-deletes them (--hard). The platform's containers (databases, schemas, projects, BigQuery datasets) move the same way, to the urns an ingestion with that platform_instance gives them; a second report block lists them.

Every change is written under one run id (migrate-<uuid>, shown in the report), so \`mdcli ingest rollback --run-id <id>\` undoes the migration. Without --force the plan is shown and confirmed with [y/N] first (piped input answers with its first line); with no answer at all, the command refuses.`
  static override examples = [
    '<%= config.bin %> migrate dataplatform2instance --platform hive --instance warehouse1 --dry-run',
    '<%= config.bin %> migrate dataplatform2instance --platform kafka --instance eu-cluster --env PROD --force',
    '<%= config.bin %> migrate dataplatform2instance --platform mysql --instance db2 --keep -F --json',
  ]

  static override flags = {
    platform: Flags.string({summary: 'Platform whose datasets move (name or urn).', required: true}),
    instance: Flags.string({summary: 'Platform instance to move them under (letters, digits, _ . -).', required: true}),
    env: Flags.string({summary: `Environment of the datasets (${FABRIC_TYPES.join(', ')}).`, default: 'PROD'}),
    'dry-run': Flags.boolean({char: 'n', summary: 'Report what would happen; change nothing.', default: false}),
    force: Flags.boolean({char: 'F', summary: 'Do not ask for confirmation.', default: false}),
    keep: Flags.boolean({summary: 'Keep the old datasets.', default: false}),
    hard: Flags.boolean({summary: 'Hard-delete the old datasets instead of soft-deleting them.', default: false}),
  }

  async run(): Promise<MigrationReport & {aborted?: boolean}> {
    const {flags} = await this.parse(MigrateDataPlatformToInstance)
    const json = this.jsonEnabled()
    const say = (line: string) => {
      if (!json) this.log(line)
    }
    if (flags.keep && flags.hard) throw new UsageError('--keep and --hard cannot be used together: --keep preserves the old entities, --hard deletes them. Nothing was changed.')
    if (!/^[A-Za-z0-9_.-]+$/.test(flags.instance)) {
      throw new UsageError(`Instance name '${flags.instance}' cannot be part of a urn: use letters, digits, '_', '.' or '-' only (no commas, parentheses or whitespace). Nothing was changed.`)
    }
    const dryRun = flags['dry-run']
    const request = {platform: flags.platform, instance: flags.instance, env: flags.env, keep: flags.keep, hard: flags.hard}
    // The server validates env and platform while planning; announcing the start only after it
    // answers keeps a refused or unreachable migration to its one error line, nothing on stdout.
    const plan = await this.client().migratePlatformInstance({...request, dryRun: true})
    say(`Starting migration: platform:${flags.platform}, instance=${flags.instance}, force=${flags.force}, dry-run=${dryRun}`)
    if (dryRun) {
      say(renderReport(plan))
      return plan
    }
    if (plan.counts.migrated === 0 && plan.containers.migrated.length === 0) {
      say(`No datasets or containers of platform ${plan.platform} in ${plan.env} need migrating.`)
      return plan
    }
    if (!flags.force) {
      say(`Will migrate ${plan.counts.migrated} urns such as ${jsonList(plan.migrated.slice(0, 10))}`)
      say(`New urns will look like ${jsonList(plan.created.slice(0, 10))}`)
      if (plan.containers.migrated.length > 0) say(`And ${plan.containers.migrated.length} containers such as ${jsonList(plan.containers.migrated.slice(0, 10))}`)
      if (!(await confirm('Ok to proceed?', '--force (-F)'))) {
        say('Aborted; nothing was changed.')
        process.exitCode = 1
        return {...plan, aborted: true}
      }
    }
    const report = await this.client().migratePlatformInstance({...request, dryRun: false})
    say(renderReport(report))
    return report
  }
}
