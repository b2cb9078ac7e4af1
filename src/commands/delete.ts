import {readFileSync} from 'node:fs'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base.js'
import {confirm} from '../cli/confirm.js'
import type {MdcliClient} from '../client/client.js'
import {DELETE_BATCH, resolveEntityType, type DeleteReport, type RelatedAspect} from '../catalog/delete.js'
import {UsageError} from '../errors.js'
import {validateUrn} from '../model/registry.js'
import {FABRIC_TYPES} from '../model/urn.js'
import {deleteReportLines, foundUrnsLines, type DeleteOutcome} from '../ui/delete-report.js'

/** Every urn matching the filters, walked with the search cursor so that no window caps it. */
async function findUrns(client: MdcliClient, f: {entityType?: string; platform?: string; env?: string; query?: string; soft: boolean; onlySoftDeleted?: boolean}): Promise<Array<{urn: string; type: string}>> {
  const and = [
    ...(f.platform ? [{field: 'platform', value: f.platform}] : []),
    ...(f.env ? [{field: 'origin', value: f.env}] : []),
    ...(f.onlySoftDeleted ? [{field: 'removed', value: 'true'}] : []),
  ]
  const out: Array<{urn: string; type: string}> = []
  let after: string | null = null
  for (;;) {
    const page = await client.searchEntities({
      entity: f.entityType,
      input: f.query ?? '*',
      ...(and.length > 0 ? {filter: {or: [{and}]}} : {}),
      // DataHub: a soft delete only targets live entities, a hard delete every one.
      includeSoftDeleted: !f.soft,
      count: DELETE_BATCH,
      after,
    })
    for (const e of page.entities) out.push({urn: e.entity, type: e.entityType})
    if (!page.next) return out
    after = page.next
  }
}

export default class Delete extends BaseCommand {
  static override summary = 'Delete entities by urn, urn file or filters (soft by default, as in DataHub; --hard removes them for good).'
  static override description = `A soft delete (the default, --soft) writes status removed=true: the entity is hidden from search, browse and lineage and can be restored. A hard delete (--hard) removes every aspect of each entity — all versions and timeseries rows — and takes it out of search; with -a/--aspect it removes only that timeseries aspect's rows between --start-time and --end-time. Deleting never cascades: deleting a container leaves its datasets; delete each child by its own urn or filter. References that other entities still hold to hard-deleted urns are reported.

Without --force the command lists what matched and asks [y/N] (piped input answers with its first line, as in echo y | mdcli delete …); with no answer at all, it refuses. --dry-run lists what would go and changes nothing.`
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
    const warn = (line: string) => {
      if (!json) process.stderr.write(`Warning: ${line}\n`)
    }
    const filterGiven = flags['entity-type'] !== undefined || flags.platform !== undefined || flags.env !== undefined || flags.query !== undefined
    const direct = flags.urn !== undefined || flags['urn-file'] !== undefined
    if (flags.urn && flags['urn-file']) throw new UsageError('Give either --urn or --urn-file, not both.')
    if (direct && filterGiven) throw new UsageError('You cannot provide both an urn and a filter rule (entity-type / platform / env / query).')
    if (!direct && !filterGiven) throw new UsageError('You must provide either an urn or at least one filter (entity-type / platform / env / query) in order to delete entities.')
    // DataHub's default: soft. A hard delete is asked for by name.
    const soft = !flags.hard
    const dryRun = flags['dry-run']
    const kind = soft ? 'soft' : 'hard'
    if (flags.aspect !== undefined && soft) throw new UsageError('You cannot provide an aspect name when performing a soft delete. Use --hard to perform a hard delete.')
    if (flags['only-soft-deleted'] && soft) throw new UsageError('You cannot provide --only-soft-deleted when performing a soft delete. Use --hard to perform a hard delete.')
    if ((flags['start-time'] !== undefined || flags['end-time'] !== undefined) && flags.aspect === undefined) throw new UsageError('--start-time and --end-time go with -a/--aspect (a timeseries aspect).')
    if (flags.aspect !== undefined && (flags['start-time'] === undefined || flags['end-time'] === undefined)) throw new UsageError('You must provide both --start-time and --end-time when deleting a timeseries aspect.')
    const window = flags.aspect === undefined ? undefined : {aspectName: flags.aspect, startTimeMillis: parseTime(flags['start-time']!, '--start-time'), endTimeMillis: parseTime(flags['end-time']!, '--end-time')}

    let urns: string[]
    if (flags.urn) {
      validateUrn(flags.urn)
      urns = [flags.urn]
    } else if (flags['urn-file']) {
      urns = readUrnFile(flags['urn-file'])
      say(`Read ${urns.length} urn(s) from ${flags['urn-file']}.`)
    } else {
      const entityType = flags['entity-type'] === undefined ? undefined : resolveEntityType(flags['entity-type'])
      let env = flags.env
      if (env !== undefined) {
        env = env.toUpperCase()
        if (!(FABRIC_TYPES as readonly string[]).includes(env)) throw new UsageError(`Unknown environment '${flags.env}' (one of ${FABRIC_TYPES.join(', ')})`)
      }
      if (flags.query !== undefined) warn('Using --query is an advanced feature and can easily delete unintended entities. Please use with caution.')
      if (env !== undefined && !entityType && !flags.platform && flags.query === undefined) {
        warn(`Using --env without other filters will delete all metadata in the ${env} environment. Please use with caution.`)
      }
      const found = await findUrns(this.client(), {entityType, platform: flags.platform, env, query: flags.query, soft, onlySoftDeleted: flags['only-soft-deleted']})
      if (found.length === 0) {
        say('Found no urns to delete. Maybe you want to change your filters to be something different?')
        return {soft, dryRun, matched: 0, entities: 0, rows: 0, timeseriesRows: 0, deleted: [], notFound: [], tookMs: Date.now() - started}
      }
      for (const line of foundUrnsLines(found)) say(line)
      urns = found.map((f) => f.urn)
    }

    if (!dryRun && !flags.force) {
      const question = window
        ? `This will permanently delete the ${window.aspectName} rows between ${flags['start-time']} and ${flags['end-time']} of ${urns.length === 1 ? urns[0] : `${urns.length} entities`}. Do you want to continue?`
        : flags.urn
        ? soft
          ? `This will soft delete ${flags.urn}. Do you want to continue?`
          : `This will permanently delete ${flags.urn} and all its history. Do you want to continue?`
        : `This will ${kind} delete ${urns.length} entities${soft ? '' : ' permanently'}. Do you want to continue?`
      if (!(await confirm(question, '--force (-f)'))) {
        say('Aborted; nothing was deleted.')
        process.exitCode = 1
        return {soft, dryRun, aborted: true, matched: urns.length, entities: 0, rows: 0, timeseriesRows: 0, deleted: [], notFound: [], tookMs: Date.now() - started}
      }
    }

    const outcome: DeleteOutcome = {soft, dryRun, matched: urns.length, entities: 0, rows: 0, timeseriesRows: 0, deleted: [], notFound: [], tookMs: 0}
    const checkReferences = !soft
    const refs: RelatedAspect[] = []
    for (let i = 0; i < urns.length; i += DELETE_BATCH) {
      const r: DeleteReport = await this.client().deleteEntities({urns: urns.slice(i, i + DELETE_BATCH), soft, dryRun, checkReferences: checkReferences && !window, ...window})
      outcome.entities += r.entities
      outcome.rows += r.rows
      outcome.timeseriesRows += r.timeseriesRows
      outcome.deleted.push(...r.deleted)
      outcome.notFound.push(...r.notFound)
      if (r.alreadyDeleted?.length) (outcome.alreadyDeleted ??= []).push(...r.alreadyDeleted)
      if (r.references) {
        refs.push(...r.references.sample)
        outcome.references = {
          checked: r.references.checked,
          total: (outcome.references?.total ?? 0) + r.references.total,
          entities: (outcome.references?.entities ?? 0) + r.references.entities,
          sample: refs.slice(0, 10),
        }
      }
    }
    outcome.tookMs = Date.now() - started

    for (const line of deleteReportLines(outcome, window?.aspectName)) say(line)
    return outcome
  }
}

/** `2024-01-31`, `2024-01-31T12:00:00Z` or epoch milliseconds → epoch milliseconds. */
function parseTime(value: string, flag: string): number {
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value)
  if (!Number.isFinite(ms)) throw new UsageError(`${flag}: '${value}' is not a date, a date-time or epoch milliseconds`)
  return ms
}

/** Urns of a file, one per line; a line that is not an urn names its line number. */
function readUrnFile(path: string): string[] {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    throw new UsageError(`Cannot read --urn-file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
  const urns: string[] = []
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    try {
      validateUrn(line)
    } catch (e) {
      throw new UsageError(`${path}:${i + 1}: ${(e as Error).message}`)
    }
    urns.push(line)
  })
  if (urns.length === 0) throw new UsageError(`--urn-file ${path} names no urns`)
  return [...new Set(urns)]
}
