/**
 * REST endpoints for history, deletion and migration, shaped like DataHub's:
 * - `GET /openapi/timeline/v1/{urn}` (and v0.13's `/openapi/v2/timeline/v1/{urn}`) →
 *   ChangeTransaction[];
 * - `POST /entities?action=delete | deleteReferences | search` (Rest.li actions; answers wrapped
 *   as `{"value": …}`);
 * - `POST /migrate?action=dataplatform2instance`.
 * Handlers parse and call the catalog services; nothing else lives here.
 */
import {BadRequestError} from '../errors.js'
import type {Catalog} from '../catalog/catalog.js'
import {deleteEntities, deleteReferences, searchUrns, type UrnSearchRequest} from '../catalog/delete.js'
import {migrateDataPlatformToInstance} from '../catalog/migrate.js'
import {getTimeline} from '../catalog/timeline.js'
import {parseCategories} from '../model/change-events.js'
import {json, type RequestContext, type Router} from './http.js'

function optionalInt(ctx: RequestContext, name: string): number | undefined {
  const v = ctx.query.get(name)
  if (v === null || v === '') return undefined
  const n = Number(v)
  if (!Number.isInteger(n)) throw new BadRequestError(`${name} must be a time in epoch milliseconds, got '${v}'`)
  return n
}

function bool(v: unknown, name: string, fallback = false): boolean {
  if (v === undefined || v === null) return fallback
  if (typeof v === 'boolean') return v
  if (v === 'true' || v === 'True') return true
  if (v === 'false' || v === 'False') return false
  throw new BadRequestError(`${name} must be true or false`)
}

async function body(ctx: RequestContext): Promise<Record<string, any>> {
  const b = await ctx.json<unknown>()
  if (b === null || typeof b !== 'object' || Array.isArray(b)) throw new BadRequestError('Request body must be a JSON object')
  return b as Record<string, any>
}

type Condition = {field?: unknown; value?: unknown; values?: unknown; condition?: unknown; negated?: unknown}

/** DataHub's `filter` (`{or: [{and: [...]}]}` or the older `{criteria: [...]}`) → OR of AND-groups. */
function parseFilter(filter: any): UrnSearchRequest['filters'] {
  if (filter === undefined || filter === null) return undefined
  const groups: Condition[][] = Array.isArray(filter.or) ? filter.or.map((g: any) => (Array.isArray(g?.and) ? g.and : [])) : Array.isArray(filter.criteria) ? [filter.criteria] : []
  if (groups.length === 0) throw new BadRequestError('filter must be {"or": [{"and": [{"field", "value"}]}]}')
  return groups.map((g) =>
    g.flatMap((c) => {
      if (typeof c?.field !== 'string') throw new BadRequestError('Each filter condition needs a "field"')
      if (c.condition !== undefined && c.condition !== 'EQUAL') throw new BadRequestError(`Filter condition ${String(c.condition)} is not supported (use EQUAL)`)
      const values = Array.isArray(c.values) ? c.values : [c.value]
      return values.map((v) => ({field: c.field as string, value: String(v), negated: c.negated === true}))
    }),
  )
}

/** `maxResultWindow`: where the search action's offset paging stops (lite --max-result-window). */
export function registerHistory(router: Router, catalog: Catalog, opts: {maxResultWindow?: number} = {}): void {
  const timeline = async (ctx: RequestContext) => {
    const categories = parseCategories((ctx.query.get('categories') ?? '').split(','))
    const transactions = await getTimeline(
      catalog,
      {
        urn: ctx.params[0]!,
        categories,
        // `start`/`end` are the names older DataHub CLIs send.
        startTime: optionalInt(ctx, 'startTime') ?? optionalInt(ctx, 'start'),
        endTime: optionalInt(ctx, 'endTime') ?? optionalInt(ctx, 'end'),
        raw: bool(ctx.query.get('raw') ?? undefined, 'raw'),
      },
      catalog.now,
    )
    return json(200, transactions)
  }
  router.on('GET', '/openapi/timeline/v1/*', timeline)
  router.on('GET', '/openapi/v2/timeline/v1/*', timeline)

  router.on(
    'POST',
    '/entities',
    async (ctx) => {
      const b = await body(ctx)
      if (b.aspectName !== undefined && typeof b.aspectName !== 'string') throw new BadRequestError('"aspectName" must be a string')
      const millis = (v: unknown, name: string): number | undefined => {
        if (v === undefined || v === null) return undefined
        if (typeof v !== 'number' || !Number.isFinite(v)) throw new BadRequestError(`"${name}" must be epoch milliseconds`)
        return v
      }
      const urns: unknown = b.urns ?? (b.urn === undefined ? undefined : [b.urn])
      if (!Array.isArray(urns) || urns.length === 0 || urns.some((u) => typeof u !== 'string')) throw new BadRequestError('Request body needs "urn" (a string) or "urns" (a list of strings)')
      const report = await deleteEntities(catalog, ctx.actor, {
        urns: urns as string[],
        soft: bool(b.soft, 'soft'),
        dryRun: bool(b.dryRun, 'dryRun'),
        checkReferences: bool(b.checkReferences, 'checkReferences', true),
        ...(b.aspectName === undefined ? {} : {aspectName: b.aspectName as string, startTimeMillis: millis(b.startTimeMillis, 'startTimeMillis'), endTimeMillis: millis(b.endTimeMillis, 'endTimeMillis')}),
      })
      return json(200, {value: {...(b.urn !== undefined && b.urns === undefined ? {urn: b.urn} : {}), ...report}})
    },
    {action: 'delete'},
  )

  router.on(
    'POST',
    '/entities',
    async (ctx) => {
      const b = await body(ctx)
      if (typeof b.urn !== 'string') throw new BadRequestError('Request body needs "urn"')
      const value = await deleteReferences(catalog, ctx.actor, {urn: b.urn, dryRun: bool(b.dryRun, 'dryRun', true)})
      return json(200, {value})
    },
    {action: 'deleteReferences'},
  )

  router.on(
    'POST',
    '/entities',
    async (ctx) => {
      const b = await body(ctx)
      const entity = b.entity
      const types = entity === undefined || entity === null || entity === '*' || entity === '' ? [] : Array.isArray(entity) ? entity.map(String) : [String(entity)]
      const cursor = 'after' in b
      const page = await searchUrns(catalog, {
        window: opts.maxResultWindow,
        types,
        query: typeof b.input === 'string' ? b.input : '*',
        filters: parseFilter(b.filter),
        includeSoftDeleted: bool(b.includeSoftDeleted, 'includeSoftDeleted'),
        start: typeof b.start === 'number' ? b.start : 0,
        count: typeof b.count === 'number' ? b.count : undefined,
        ...(cursor ? {after: b.after === null ? null : String(b.after)} : {}),
      })
      return json(200, {
        value: {
          numEntities: page.total,
          entities: page.entities.map((e) => ({entity: e.urn, entityType: e.entityType})),
          from: cursor ? undefined : (b.start ?? 0),
          pageSize: page.entities.length,
          ...(cursor ? {next: page.next ?? null} : {}),
        },
      })
    },
    {action: 'search'},
  )

  router.on(
    'POST',
    '/migrate',
    async (ctx) => {
      const b = await body(ctx)
      const report = await migrateDataPlatformToInstance(catalog, ctx.actor, {
        platform: b.platform,
        instance: b.instance,
        env: typeof b.env === 'string' ? b.env : undefined,
        dryRun: bool(b.dryRun, 'dryRun'),
        keep: bool(b.keep, 'keep'),
        hard: bool(b.hard, 'hard'),
      })
      return json(200, {value: report})
    },
    {action: 'dataplatform2instance'},
  )
}
