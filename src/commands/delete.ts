import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base.js'
import {confirm} from '../cli/confirm.js'
import {pyList, timespan} from '../cli/report.js'
import type {MdcliClient} from '../client/client.js'
import {DELETE_BATCH, resolveEntityType, type DeleteReport, type RelatedAspect} from '../catalog/delete.js'
import {UsageError} from '../errors.js'
import {validateUrn} from '../model/registry.js'
import {FABRIC_TYPES} from '../model/urn.js'

interface DeleteOutcome {
  soft: boolean
  dryRun: boolean
  aborted?: boolean
  /** Urns the urn or the filters named. */
  matched: number
  entities: number
  rows: number
  timeseriesRows: number
  deleted: string[]
  notFound: string[]
  references?: {checked: boolean; total: number; entities: number; sample: RelatedAspect[]}
  tookMs: number
}

/** Every urn matching the filters, walked with the search cursor so that no window caps it. */
async function findUrns(client: MdcliClient, f: {entityType?: string; platform?: string; env?: string; query?: string; soft: boolean}): Promise<Array<{urn: string; type: string}>> {
  const and = [...(f.platform ? [{field: 'platform', value: f.platform}] : []), ...(f.env ? [{field: 'origin', value: f.env}] : [])]
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
  static override summary = 'Delete entities by urn or by filters (hard by default; --soft to hide them instead).'
  static override description = `A hard delete removes every aspect of each entity — all versions and timeseries rows — and takes it out of search. A soft delete (--soft) writes status removed=true: the entity is hidden from search, browse and lineage and can be restored. Deleting never cascades: deleting a container leaves its datasets; delete each child by its own urn or filter. References that other entities still hold to hard-deleted urns are reported.

Without --force the command lists what matched and asks [y/N]; without a terminal to ask on, it refuses. --dry-run lists what would go and changes nothing.`
  static override examples = [
    '<%= config.bin %> delete --urn "urn:li:dataset:(urn:li:dataPlatform:hive,logs,PROD)"',
    '<%= config.bin %> delete --urn "urn:li:dataset:(urn:li:dataPlatform:hive,logs,PROD)" --soft --force',
    '<%= config.bin %> delete --entity-type dataset --platform hive --env DEV --dry-run',
    '<%= config.bin %> delete --platform kafka --query "clickstream" --force --json',
  ]

  static override flags = {
    urn: Flags.string({summary: 'Urn of the entity to delete.'}),
    'entity-type': Flags.string({summary: 'Filter: entity type (dataset, chart, container, …).', aliases: ['entity_type']}),
    platform: Flags.string({char: 'p', summary: 'Filter: platform name (hive) or urn.'}),
    env: Flags.string({char: 'e', summary: `Filter: environment (${FABRIC_TYPES.join(', ')}).`}),
    query: Flags.string({summary: 'Filter: full-text query.'}),
    soft: Flags.boolean({summary: 'Soft delete: mark removed instead of deleting the rows.', default: false}),
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
    if (flags.urn && filterGiven) throw new UsageError('You cannot provide both an urn and a filter rule (entity-type / platform / env / query).')
    if (!flags.urn && !filterGiven) throw new UsageError('You must provide either an urn or at least one filter (entity-type / platform / env / query) in order to delete entities.')
    const soft = flags.soft
    const dryRun = flags['dry-run']
    const kind = soft ? 'soft' : 'hard'

    let urns: string[]
    if (flags.urn) {
      validateUrn(flags.urn)
      urns = [flags.urn]
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
      const found = await findUrns(this.client(), {entityType, platform: flags.platform, env, query: flags.query, soft})
      if (found.length === 0) {
        say('Found no urns to delete. Maybe you want to change your filters to be something different?')
        return {soft, dryRun, matched: 0, entities: 0, rows: 0, timeseriesRows: 0, deleted: [], notFound: [], tookMs: Date.now() - started}
      }
      const byType = new Map<string, string[]>()
      for (const f of found) byType.set(f.type, [...(byType.get(f.type) ?? []), f.urn])
      if (byType.size === 1) {
        const [type, list] = [...byType][0]!
        say(`Found ${list.length} ${type} urn(s). Sample: ${pyList(list.slice(0, 5))}`)
      } else {
        say('Found urns of multiple entity types')
        for (const [type, list] of byType) say(`- ${list.length} ${type} urn(s). Sample: ${pyList(list.slice(0, 5))}`)
      }
      urns = found.map((f) => f.urn)
    }

    if (!dryRun && !flags.force) {
      const question = flags.urn
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
      const r: DeleteReport = await this.client().deleteEntities({urns: urns.slice(i, i + DELETE_BATCH), soft, dryRun, checkReferences})
      outcome.entities += r.entities
      outcome.rows += r.rows
      outcome.timeseriesRows += r.timeseriesRows
      outcome.deleted.push(...r.deleted)
      outcome.notFound.push(...r.notFound)
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

    for (const u of outcome.notFound) say(`Nothing to delete for ${u}: no such entity.`)
    const impact = `(impacts ${outcome.rows} versioned rows and ${outcome.timeseriesRows} timeseries aspect rows)`
    if (dryRun) {
      for (const u of outcome.deleted) say(`  ${u}`)
      say(`[Dry-run] Would ${soft ? 'soft ' : ''}delete ${outcome.entities} entities ${impact}.`)
    } else {
      say(`${soft ? 'Soft' : 'Hard'} deleted ${outcome.entities} entities ${impact} in ${timespan(outcome.tookMs)}.`)
    }
    const ref = outcome.references
    if (ref && ref.checked && ref.total > 0) {
      say(`${ref.total} aspect(s) of ${ref.entities} other entit${ref.entities === 1 ? 'y' : 'ies'} still refer to ${dryRun ? 'these urns' : 'the deleted urns'}${ref.total > ref.sample.length ? ' (sample)' : ''}:`)
      for (const r of ref.sample) say(`  ${r.entity} ${r.aspect} (${r.relationship}) -> ${r.urn}`)
    }
    return outcome
  }
}
