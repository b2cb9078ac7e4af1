/**
 * `mdcli delete` as a service: what the flags ask for (checked before anything is read), the
 * urns it names (given, from a file, or found by filters with the search cursor), and the
 * delete itself in batches of DELETE_BATCH urns through the client, summed into one outcome.
 * Returns data; the command asks, and src/ui/delete-report.ts words it.
 *
 * Glossary:
 * - target: where the urns come from — one urn, a file of urns, or search filters.
 * - window: with --hard -a, the timeseries rows of one aspect between two times (the entity stays).
 */
import {readFileSync} from 'node:fs'
import type {MdcliClient} from '../client/client.js'
import {DELETE_BATCH, resolveEntityType, type DeleteReport, type RelatedAspect} from '../catalog/delete.js'
import {UsageError} from '../errors.js'
import {validateUrn} from '../model/registry.js'
import {FABRIC_TYPES} from '../model/urn.js'

/** What one `mdcli delete` did: the server's reports summed over its batches (also its --json output). */
export interface DeleteOutcome extends DeleteReport {
  aborted?: boolean
  /** Entities whose references to a hard-deleted tag, user, group, domain or term were removed. */
  cleanedUp?: number
  /** Urns the urn, the file or the filters named. */
  matched: number
  tookMs: number
}

/** The flags of `mdcli delete`, as parsed. */
export interface DeleteFlags {
  urn?: string
  'urn-file'?: string
  'entity-type'?: string
  platform?: string
  env?: string
  query?: string
  hard: boolean
  aspect?: string
  'start-time'?: string
  'end-time'?: string
  'only-soft-deleted': boolean
  'dry-run': boolean
}

export interface DeleteFilters {
  entityType?: string
  platform?: string
  env?: string
  query?: string
  onlySoftDeleted?: boolean
}

export interface DeletePlan {
  soft: boolean
  dryRun: boolean
  target: {urn: string} | {file: string} | {filters: DeleteFilters}
  window?: {aspectName: string; startTimeMillis: number; endTimeMillis: number}
  /** Cautions DataHub's CLI prints for broad filters. */
  warnings: string[]
}

/** Checks the flags together (DataHub's rules and wording) and says what the delete will do; reads nothing. */
export function planDelete(flags: DeleteFlags): DeletePlan {
  const filterGiven = flags['entity-type'] !== undefined || flags.platform !== undefined || flags.env !== undefined || flags.query !== undefined
  const direct = flags.urn !== undefined || flags['urn-file'] !== undefined
  if (flags.urn && flags['urn-file']) throw new UsageError('Give either --urn or --urn-file, not both.')
  if (direct && filterGiven) throw new UsageError('You cannot provide both an urn and a filter rule (entity-type / platform / env / query).')
  if (!direct && !filterGiven) throw new UsageError('You must provide either an urn or at least one filter (entity-type / platform / env / query) in order to delete entities.')
  // DataHub's default: soft. A hard delete is asked for by name.
  const soft = !flags.hard
  if (flags.aspect !== undefined && soft) throw new UsageError('You cannot provide an aspect name when performing a soft delete. Use --hard to perform a hard delete.')
  if (flags['only-soft-deleted'] && soft) throw new UsageError('You cannot provide --only-soft-deleted when performing a soft delete. Use --hard to perform a hard delete.')
  // It narrows a filter; an urn or a file names what to delete, and silently ignoring it would delete a live entity.
  if (flags['only-soft-deleted'] && direct) throw new UsageError('--only-soft-deleted narrows a filter (entity-type / platform / env / query); it cannot be used with --urn or --urn-file.')
  if ((flags['start-time'] !== undefined || flags['end-time'] !== undefined) && flags.aspect === undefined) throw new UsageError('--start-time and --end-time go with -a/--aspect (a timeseries aspect).')
  if (flags.aspect !== undefined && (flags['start-time'] === undefined || flags['end-time'] === undefined)) throw new UsageError('You must provide both --start-time and --end-time when deleting a timeseries aspect.')
  const window = flags.aspect === undefined ? undefined : {aspectName: flags.aspect, startTimeMillis: parseTime(flags['start-time']!, '--start-time'), endTimeMillis: parseTime(flags['end-time']!, '--end-time')}
  const base = {soft, dryRun: flags['dry-run'], ...(window ? {window} : {}), warnings: [] as string[]}
  if (flags.urn !== undefined) {
    validateUrn(flags.urn)
    return {...base, target: {urn: flags.urn}}
  }
  if (flags['urn-file'] !== undefined) return {...base, target: {file: flags['urn-file']}}
  const entityType = flags['entity-type'] === undefined ? undefined : resolveEntityType(flags['entity-type'])
  let env = flags.env
  if (env !== undefined) {
    env = env.toUpperCase()
    if (!(FABRIC_TYPES as readonly string[]).includes(env)) throw new UsageError(`Unknown environment '${flags.env}' (one of ${FABRIC_TYPES.join(', ')})`)
  }
  if (flags.query !== undefined) base.warnings.push('Using --query is an advanced feature and can easily delete unintended entities. Please use with caution.')
  if (env !== undefined && !entityType && !flags.platform && flags.query === undefined) {
    base.warnings.push(`Using --env without other filters will delete all metadata in the ${env} environment. Please use with caution.`)
  }
  return {...base, target: {filters: {entityType, platform: flags.platform, env, query: flags.query, onlySoftDeleted: flags['only-soft-deleted']}}}
}

/** Every urn matching the filters, walked with the search cursor so that no window caps it. */
export async function findUrns(client: MdcliClient, f: DeleteFilters & {soft: boolean}): Promise<Array<{urn: string; type: string}>> {
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

/** Entity types whose hard delete also removes the references to them (DataHub's CLI). */
const CLEANED_TYPES = new Set(['tag', 'corpuser', 'corpGroup', 'domain', 'glossaryTerm', 'glossaryNode'])

/** Deletes `urns` in batches of DELETE_BATCH, summing the server's reports into one outcome. */
export async function deleteInBatches(client: MdcliClient, urns: string[], plan: Pick<DeletePlan, 'soft' | 'dryRun' | 'window'>, started: number): Promise<DeleteOutcome> {
  const {soft, dryRun, window} = plan
  const outcome: DeleteOutcome = {soft, dryRun, matched: urns.length, entities: 0, rows: 0, timeseriesRows: 0, deleted: [], notFound: [], tookMs: 0}
  const refs: RelatedAspect[] = []
  const cleanedUrns = new Set<string>()
  for (let i = 0; i < urns.length; i += DELETE_BATCH) {
    const r: DeleteReport = await client.deleteEntities({urns: urns.slice(i, i + DELETE_BATCH), soft, dryRun, checkReferences: !soft && !window, ...window})
    outcome.entities += r.entities
    outcome.rows += r.rows
    outcome.timeseriesRows += r.timeseriesRows
    outcome.deleted.push(...r.deleted)
    outcome.notFound.push(...r.notFound)
    if (r.alreadyDeleted?.length) (outcome.alreadyDeleted ??= []).push(...r.alreadyDeleted)
    // DataHub's CLI: a hard-deleted tag, user, group, domain, term or term group is also taken
    // out of whatever referred to it, so no entity keeps pointing at nothing — even when there
    // was no entity to delete (a transformer's tag usually has none).
    const cleaned = new Set<string>()
    if (!soft && !dryRun && !window) {
      for (const u of [...r.deleted, ...r.notFound]) {
        if (!CLEANED_TYPES.has(u.split(':')[2] ?? '')) continue
        const refsOf = await client.deleteReferences(u, false)
        for (const a of refsOf.relatedAspects) cleaned.add(a.entity)
        cleanedUrns.add(u)
      }
      outcome.cleanedUp = (outcome.cleanedUp ?? 0) + cleaned.size
    }
    if (r.references) {
      const left = r.references.sample.filter((x) => !cleanedUrns.has(x.urn))
      // The sample is every reference when it is not longer than the total: count what is left.
      const whole = r.references.sample.length >= r.references.total
      if (whole) r.references = {...r.references, sample: left, total: left.length, entities: new Set(left.map((x) => x.entity)).size}
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
  return outcome
}

/** An outcome where nothing was deleted (no urns found, or the user said no). */
export function nothingDeleted(plan: Pick<DeletePlan, 'soft' | 'dryRun'>, matched: number, started: number, aborted = false): DeleteOutcome {
  return {soft: plan.soft, dryRun: plan.dryRun, ...(aborted ? {aborted} : {}), matched, entities: 0, rows: 0, timeseriesRows: 0, deleted: [], notFound: [], tookMs: Date.now() - started}
}

/** `2024-01-31`, `2024-01-31T12:00:00Z` or epoch milliseconds → epoch milliseconds. */
export function parseTime(value: string, flag: string): number {
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value)
  if (!Number.isFinite(ms) || !calendarDate(value)) throw new UsageError(`${flag}: '${value}' is not a date, a date-time or epoch milliseconds`)
  return ms
}

/**
 * False for a text starting with a day the calendar does not have (2024-02-31, 2023-13-01):
 * Date.parse rolls those over to another day rather than refusing them.
 */
export function calendarDate(value: string): boolean {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})/.exec(value)
  if (!m) return true
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const t = new Date(Date.UTC(y, mo - 1, d))
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d
}

/** Urns of a file, one per line; a line that is not an urn names its line number. */
export function readUrnFile(path: string): string[] {
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
