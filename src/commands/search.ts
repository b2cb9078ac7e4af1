import {FACET_FIELDS} from '../model/search-doc.js'
import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base.js'
import {MdcliError, UsageError} from '../errors.js'
import {summarize, type EntitySummary} from '../client/summaries.js'

export interface SearchOutcome {
  total: number
  start: number
  count: number
  entities: EntitySummary[]
}

/** A column of the table cut to `max` characters (an ellipsis marks the cut). */
function cut(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ').trim()
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`
}

/** The table a person reads: name, type, platform, where it sits, and what it is. */
export function searchTable(entities: EntitySummary[], first = 1): string[] {
  const rows = entities.map((e, i) => [
    String(first + i),
    cut(e.name, 40),
    e.subType ?? e.entityType,
    e.platform ?? '',
    cut(e.containerPath.map((c) => c.name).join(' / '), 40),
    cut(e.description ?? '', 60),
  ])
  const head = ['#', 'NAME', 'TYPE', 'PLATFORM', 'CONTAINER', 'DESCRIPTION']
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd()
  return [line(head), ...rows.map(line)]
}

export default class Search extends BaseCommand {
  static override summary = 'Full-text search of the catalog, with filters and paging.'
  static override description = `Searches names, descriptions, urn parts, tags, terms and owners, like the catalog's search box.
Filters are field=value pairs (platform, origin, tags, glossaryTerms, owners, domains, removed, …);
several filters must all hold. Soft-deleted entities are left out unless --include-soft-deleted.`
  static override examples = [
    '<%= config.bin %> search customers',
    '<%= config.bin %> search orders --entity-type dataset --filter platform=postgres',
    '<%= config.bin %> search "*" --filter tags=urn:li:tag:pii --count 100 --json',
    '<%= config.bin %> search revenue --start 10 --count 10',
  ]

  static override args = {
    query: Args.string({description: 'What to look for; * (the default) lists everything.', default: '*'}),
  }

  static override flags = {
    'entity-type': Flags.string({char: 't', summary: 'Only this entity type (dataset, chart, glossaryTerm, …).', aliases: ['entity_type']}),
    filter: Flags.string({char: 'f', summary: 'A field=value filter; repeat for several (all must match).', multiple: true}),
    start: Flags.integer({summary: 'Offset of the first result.', default: 0, min: 0}),
    count: Flags.integer({summary: 'Number of results (at most 10,000).', default: 20, min: 0, max: 10_000}),
    'include-soft-deleted': Flags.boolean({summary: 'Include soft-deleted entities.', default: false}),
  }

  async run(): Promise<SearchOutcome> {
    const {args, flags} = await this.parse(Search)
    const and = (flags.filter ?? []).map((f) => {
      const i = f.indexOf('=')
      if (i <= 0 || i === f.length - 1) throw new UsageError(`--filter '${f}' is not field=value`)
      const field = f.slice(0, i)
      // The server lets a field no document holds match nothing, as DataHub does; typed here, it is a mistake.
      const known = [...FACET_FIELDS, 'urn', 'removed', 'name']
      if (!known.includes(field.replace(/\.keyword$/, ''))) throw new UsageError(`--filter field '${field}' is not one search filters on (use one of ${known.join(', ')})`)
      return {field, value: f.slice(i + 1)}
    })
    const page = await this.client()
      .searchEntities({
        entity: flags['entity-type'],
        input: args.query,
        ...(and.length > 0 ? {filter: {or: [{and}]}} : {}),
        includeSoftDeleted: flags['include-soft-deleted'],
        start: flags.start,
        count: flags.count,
      })
      .catch((e: unknown) => {
        throw pastWindow(e, flags.start, flags.count) ?? e
      })
    const entities = await summarize(
      this.client(),
      page.entities.map((e) => ({urn: e.entity, entityType: e.entityType})),
    )
    if (!this.jsonEnabled()) {
      if (entities.length === 0) this.log(page.numEntities === 0 ? 'No entities found.' : `No entities on this page (${page.numEntities} in all).`)
      else {
        for (const l of searchTable(entities, flags.start + 1)) this.log(l)
        // The urns, numbered as the rows, for `mdcli get --urn`.
        this.log('')
        const w = String(flags.start + entities.length).length
        for (const [i, e] of entities.entries()) this.log(`${String(flags.start + i + 1).padStart(w)}  ${e.urn}`)
        const last = flags.start + entities.length
        this.log(`\n${flags.start + 1}–${last} of ${page.numEntities}${last < page.numEntities ? ` (next page: --start ${last})` : ''}`)
      }
    }
    return {total: page.numEntities, start: flags.start, count: entities.length, entities}
  }
}

/**
 * The server's refusal of a page past its search window (its details name the window), in this
 * command's words: the server names the REST body's `after` cursor, which this command has no flag for.
 */
function pastWindow(e: unknown, start: number, count: number): UsageError | undefined {
  const window = e instanceof MdcliError ? (e.details as {window?: unknown} | undefined)?.window : undefined
  if (typeof window !== 'number') return undefined
  return new UsageError(`--start ${start} + --count ${count} is past the server's search window of ${window} results; narrow the search with a query, --filter or --entity-type (the window is \`mdcli lite --max-result-window\`)`)
}

