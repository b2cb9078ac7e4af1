/**
 * The REST endpoints, shaped like DataHub's GMS Rest.li resources so that DataHub's CLI habits
 * carry over: `POST /aspects?action=ingestProposal`, `GET /aspects/{urn}`, `GET /entitiesV2/{urn}`,
 * `POST /entities?action=ingest|exists`, `GET /relationships` (and its OpenAPI twin
 * `/openapi/relationships/v1/`), `/config` (`/health` is in
 * operations.ts). Each handler
 * parses, calls the catalog, and renders; no logic lives here.
 */
import {decodeUriPart} from '../model/limits.js'
import {splitTopLevel} from '../model/urn.js'
import {BadRequestError} from '../errors.js'
import type {Catalog, ProposalOutcome} from '../catalog/catalog.js'
import {relationshipsOf} from '../catalog/relationships.js'
import {SEARCH_WINDOW} from '../catalog/delete.js'
import {mceToProposals} from '../model/mce.js'
import {aspectSpec, keyAspectOf, validateUrn} from '../model/registry.js'
import type {EntityRecord, StoredAspect} from '../store/types.js'
import type {ProposalInput} from '../model/wire.js'
import {Gate} from '../catalog/edits/gate.js'
import {json, type RequestContext, type Router} from './http.js'

export const SERVER_VERSION = '0.1.0'

/** `List(a,b,c)` (Rest.li) or `a,b,c` → names. */
export function parseList(s: string | null): string[] | undefined {
  if (s === null || s === '') return undefined
  const inner = s.startsWith('List(') && s.endsWith(')') ? s.slice(5, -1) : s
  // Split outside parentheses: DataHub's clients quote each urn once, so after the query's own
  // decoding a dataset urn's commas are plain commas again (a list quoted twice keeps them encoded).
  // Unbalanced, each comma splits and the urns' own check words what is wrong.
  const split = splitTopLevel(inner)
  return (split.unbalanced ? inner.split(',') : split.parts)
    .map((x) => decodeUriPart(x.trim(), 'a query list'))
    .filter((x) => x.length > 0)
}

export function envelope(a: StoredAspect): Record<string, unknown> {
  return {
    name: a.aspectName,
    type: a.kind === 'timeseries' ? 'TIMESERIES' : 'VERSIONED',
    version: a.version,
    value: a.value,
    created: a.created,
    systemMetadata: a.systemMetadata,
  }
}

export function entityResponse(e: EntityRecord): Record<string, unknown> {
  const aspects: Record<string, unknown> = {}
  for (const [name, a] of Object.entries(e.aspects)) aspects[name] = envelope(a)
  return {entityName: e.entityType, urn: e.urn, aspects}
}

/** `"key":<JSON of v>` after a comma, or nothing for undefined (as JSON.stringify leaves such a key out). */
const member = (key: string, v: unknown): string => (v === undefined ? '' : `,${JSON.stringify(key)}:${JSON.stringify(v)}`)

/**
 * `entityResponse` as JSON text, the same document JSON.stringify would give (up to the
 * whitespace inside a value): an aspect whose value is unchanged since it was stored goes out
 * as the stored text (`valueText`), not parsed and serialized again. Most of an entity read's
 * cost was that round trip.
 */
export function entityResponseText(e: EntityRecord): string {
  let aspects = ''
  for (const [name, a] of Object.entries(e.aspects)) {
    const value = a.valueText ?? JSON.stringify(a.value)
    const head = `{"name":${JSON.stringify(a.aspectName)},"type":"${a.kind === 'timeseries' ? 'TIMESERIES' : 'VERSIONED'}"${member('version', a.version)}`
    aspects += `${aspects === '' ? '' : ','}${JSON.stringify(name)}:${head}${value === undefined ? '' : `,"value":${value}`}${member('created', a.created)}${member('systemMetadata', a.systemMetadata)}}`
  }
  return `{"entityName":${JSON.stringify(e.entityType)},"urn":${JSON.stringify(e.urn)},"aspects":{${aspects}}}`
}

/** A 200 answer whose JSON body is already text. */
function jsonText(body: string): {status: number; headers: Record<string, string>; body: string} {
  return {status: 200, headers: {'content-type': 'application/json; charset=utf-8'}, body}
}

/** Per-proposal statuses that refuse what a proposal says (invalid value, unknown aspect, bad urn, oversized aspect). */
const VALIDATION_STATUSES = new Set([400, 413])

/**
 * The status of a non-atomic (`atomic: false`) ingestProposalBatch answer. A client may read
 * nothing but the status, so a batch with failed proposals must not answer 2xx or their loss goes
 * unseen: 422 (GMS's answer to an invalid proposal) when every failure is a validation failure,
 * else the status of the first other one (409 for a CREATE of a stored aspect, 404 for an UPDATE
 * of a missing one, …).
 */
export function batchStatus(failures: ProposalOutcome[]): number {
  if (failures.length === 0) return 200
  const other = failures.find((f) => !VALIDATION_STATUSES.has(f.error?.status ?? 500))
  return other ? (other.error?.status ?? 500) : 422
}

/** A JSON object body, or a 400 saying what it should have been. */
async function objectBody(ctx: RequestContext, shape: string): Promise<Record<string, unknown>> {
  const b = await ctx.json<unknown>()
  if (b === null || typeof b !== 'object' || Array.isArray(b)) throw new BadRequestError(`Request body must be a JSON object: ${shape}`)
  return b as Record<string, unknown>
}

/** A whole-number query parameter within [min, max], or its default when absent. */
function intParam(ctx: RequestContext, name: string, dflt: number, max: number): number {
  const v = ctx.query.get(name)
  if (v === null || v === '') return dflt
  const n = Number(v)
  if (!Number.isInteger(n) || n < 0 || n > max) throw new BadRequestError(`'${name}' must be a whole number from 0 to ${max}, got '${v.slice(0, 40)}'`)
  return n
}

function action(ctx: RequestContext): string {
  const a = ctx.query.get('action')
  if (!a) throw new BadRequestError("Missing '?action=' query parameter")
  return a
}

/** `maxResultWindow`: where offset paging of search stops (lite --max-result-window), shown by GET /config. */
export function registerRest(router: Router, catalog: Catalog, info: {startedAt: number; storeId?: string; maxResultWindow?: number}): void {
  // Batches are parsed only when the store can take them: one waiting for its turn holds its
  // body's bytes, not a thousand parsed proposals that would outlive V8's young generation.
  const batches = new Gate(catalog.writeConcurrency)

  router.on('GET', '/config', async () =>
    json(200, {
      noCode: 'true',
      retention: 'true',
      statefulIngestionCapable: true,
      // PATCH proposals are applied (catalog/proposal.ts); DataHub's SDK sends them only when this is true.
      patchCapable: true,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      // DataHub's clients read the server's version under this key (and nowhere else). No commit
      // is known at run time: the package is not built from a checkout.
      versions: {'acryldata/datahub': {version: SERVER_VERSION, commit: 'unknown'}},
      telemetry: {enabledCli: false, enabledIngestion: false},
      startedAt: info.startedAt,
      // Clients that page by offset (our pages) stop here and follow the scroll cursor past it.
      server: {type: 'mdcli-lite', ...(info.storeId ? {store: info.storeId} : {}), maxResultWindow: info.maxResultWindow ?? SEARCH_WINDOW},
    }), {public: true})

  router.on('POST', '/aspects', async (ctx) => {
    const act = action(ctx)
    if (act === 'ingestProposal') {
      const body = await ctx.json<{proposal?: ProposalInput}>()
      if (!body || typeof body !== 'object' || !body.proposal) throw new BadRequestError("Request body must be {\"proposal\": {...}}")
      const [out] = await catalog.propose(ctx.actor, [body.proposal], {atomic: true})
      return json(200, {value: out!.urn})
    }
    if (act === 'ingestProposalBatch') {
      // The body arrives before the gate: a slow upload must not hold a turn that others wait for.
      await ctx.received()
      const outcomes = await batches.run(async () => {
        const body = await ctx.json<{proposals?: ProposalInput[]; atomic?: unknown}>()
        if (!body || !Array.isArray(body.proposals)) throw new BadRequestError('Request body must be {"proposals": [...]} ')
        if (body.atomic !== undefined && typeof body.atomic !== 'boolean') throw new BadRequestError(`"atomic" must be true or false, not ${JSON.stringify(body.atomic)?.slice(0, 40)}`)
        // All or nothing unless asked otherwise, as GMS fails a whole batch when one proposal is
        // invalid: DataHub's clients send no `atomic`, and would retry a half-written batch into
        // "already exists". `atomic: false` (mdcli's datahub-rest sink) gets each proposal's outcome.
        return catalog.propose(ctx.actor, body.proposals, {atomic: body.atomic !== false})
      })
      const failures = outcomes.filter((o) => !o.ok)
      const status = batchStatus(failures)
      const value = {written: outcomes.length - failures.length, failed: failures.length, results: outcomes}
      if (status === 200) return json(200, {value})
      // `status` and `message` too, so a client that reads error bodies has a line to show.
      return json(status, {status, message: `${failures.length} of ${outcomes.length} proposals failed (value.results has each outcome); first: ${failures[0]!.error!.message}`, value})
    }
    if (act === 'getTimeseriesAspectValues') {
      const body = await ctx.json<{urn?: string; aspect?: string; startTimeMillis?: number; endTimeMillis?: number; limit?: number; latestValue?: boolean}>()
      if (typeof body?.urn !== 'string' || typeof body.aspect !== 'string') throw new BadRequestError('Request body needs "urn" and "aspect"')
      // As GET /aspects does: a bad urn or an aspect that is no timeseries aspect is the caller's mistake, not an empty answer.
      validateUrn(body.urn)
      if (aspectSpec(body.aspect)?.kind !== 'timeseries') throw new BadRequestError(`Unknown timeseries aspect '${body.aspect.slice(0, 80)}'`)
      for (const f of ['startTimeMillis', 'endTimeMillis', 'limit'] as const) {
        const v = body[f]
        if (v !== undefined && v !== null && !(Number.isSafeInteger(v) && v >= 0)) throw new BadRequestError(`"${f}" must be a whole number (0 or more) of ${f === 'limit' ? 'rows' : 'milliseconds'}, not ${JSON.stringify(v)?.slice(0, 40)}`)
      }
      const filter = timeseriesFilter((body as {filter?: unknown}).filter)
      const sort = timeseriesSort((body as {sort?: unknown}).sort)
      const limit = body.latestValue ? 1 : body.limit
      let rows = await catalog.listTimeseries(body.urn, body.aspect, {
        startTime: body.startTimeMillis,
        endTime: body.endTimeMillis,
        // A filter or another order is applied to every row of the range before the limit.
        limit: filter || sort ? undefined : limit,
      })
      if (filter) rows = rows.filter((r) => filter(r.value))
      if (sort) rows = sort(rows)
      if (limit !== undefined && limit !== null) rows = rows.slice(0, limit)
      return json(200, {
        value: {
          entityName: rows[0]?.entityType,
          aspectName: body.aspect,
          limit: body.limit ?? 10000,
          values: rows.map((r) => ({aspect: {value: JSON.stringify(r.value), contentType: 'application/json'}, systemMetadata: r.systemMetadata})),
        },
      })
    }
    throw new BadRequestError(`Unknown action '${act}' on /aspects (expected ingestProposal, ingestProposalBatch or getTimeseriesAspectValues)`)
  })

  // How DataHub's emitter (`emit_mce`) and datahub-rest sink send an MCE: its snapshot, unpacked
  // into proposals by the same converter the change-event file reader uses, written all or nothing.
  router.on(
    'POST',
    '/entities',
    async (ctx) => {
      const shape = '{"entity": {"value": {"com.linkedin.metadata.snapshot.<X>Snapshot": {"urn", "aspects": [...]}}}, "systemMetadata"?: {...}}'
      const b = await objectBody(ctx, shape)
      const entity = b.entity as {value?: unknown} | null | undefined
      if (entity === null || typeof entity !== 'object' || Array.isArray(entity) || entity.value === undefined) throw new BadRequestError(`Request body needs "entity": {"value": {...}}, as in ${shape}`)
      if (b.systemMetadata !== undefined && b.systemMetadata !== null && (typeof b.systemMetadata !== 'object' || Array.isArray(b.systemMetadata))) throw new BadRequestError('"systemMetadata" must be an object')
      const proposals = mceToProposals({proposedSnapshot: entity.value, systemMetadata: b.systemMetadata}, 'entity')
      await catalog.propose(ctx.actor, proposals, {atomic: true})
      // Rest.li's answer to a void action: 200, no body.
      return {status: 200, headers: {}}
    },
    {action: 'ingest'},
  )

  router.on(
    'POST',
    '/entities',
    async (ctx) => {
      const b = await objectBody(ctx, '{"urn": "<urn>", "includeSoftDelete"?: true|false}')
      if (typeof b.urn !== 'string' || b.urn === '') throw new BadRequestError('Request body needs "urn" (a string)')
      if (b.includeSoftDelete !== undefined && b.includeSoftDelete !== null && typeof b.includeSoftDelete !== 'boolean') throw new BadRequestError(`"includeSoftDelete" must be true or false, got ${JSON.stringify(b.includeSoftDelete).slice(0, 40)}`)
      validateUrn(b.urn)
      // GMS counts a soft-deleted entity as existing unless told otherwise (EntityResource.exists:
      // includeSoftDelete == null || includeSoftDelete).
      return json(200, {value: await catalog.exists(b.urn, {includeSoftDeleted: b.includeSoftDelete !== false})})
    },
    {action: 'exists'},
  )

  // DataHub's Relationships resource; `count` is the page's length, which DataHub's graph client
  // pages by (it stops at an empty page).
  router.on('GET', '/relationships', async (ctx) => {
    // Rest.li 2.0 sends `types=List(A,B)`; 1.0 repeats the parameter.
    const {start, total, page} = await relatedPage(ctx, 'types', 100, "Missing '?types=List(...)' query parameter (relationship names, e.g. List(DownstreamOf,OwnedBy))")
    return json(200, {start, count: page.length, total, relationships: page.map((e) => ({type: e.type, entity: e.urn}))})
  })

  // The same edges under GMS's OpenAPI names (RelationshipsController), which DataHubGraph's
  // get_related_entities() pages through: `relationshipTypes` repeated, `count` 200 by default,
  // `entities: [{urn, relationshipType}]`; the client stops at a page of count 0.
  router.on('GET', '/openapi/relationships/v1', async (ctx) => {
    const {start, total, page} = await relatedPage(ctx, 'relationshipTypes', 200, "Missing '?relationshipTypes=' query parameter (a relationship name, repeated for more, e.g. relationshipTypes=DownstreamOf&relationshipTypes=OwnedBy)")
    return json(200, {start, count: page.length, total, entities: page.map((e) => ({urn: e.urn, relationshipType: e.type}))})
  })

  /** One page of an entity's edges, from the query both relationship routes share. */
  async function relatedPage(ctx: RequestContext, typesParam: string, defaultCount: number, missingTypes: string) {
    const urn = ctx.query.get('urn')
    if (!urn) throw new BadRequestError("Missing '?urn=' query parameter (the entity's urn, percent-encoded)")
    validateUrn(urn)
    const direction = ctx.query.get('direction')
    if (direction !== 'INCOMING' && direction !== 'OUTGOING') throw new BadRequestError(`'direction' must be INCOMING or OUTGOING, got '${(direction ?? '').slice(0, 40)}'`)
    const types = ctx.query.getAll(typesParam).flatMap((t) => parseList(t) ?? [])
    if (types.length === 0) throw new BadRequestError(missingTypes)
    const start = intParam(ctx, 'start', 0, Number.MAX_SAFE_INTEGER)
    const count = intParam(ctx, 'count', defaultCount, 10_000)
    const edges = await relationshipsOf(catalog, urn, {types, direction})
    return {start, total: edges.length, page: edges.slice(start, start + count)}
  }

  router.on('GET', '/aspects/*', async (ctx) => {
    const urn = ctx.params[0]!
    const aspectName = ctx.query.get('aspect')
    if (!aspectName) throw new BadRequestError("Missing '?aspect=' query parameter")
    const vq = ctx.query.get('version')
    const version = vq === null ? 0 : Number(vq)
    if (!Number.isInteger(version) || version < 0) throw new BadRequestError(`version must be a whole number >= 0, got '${vq}'`)
    const a = await catalog.getAspect(urn, aspectName, version)
    const spec = aspectSpec(aspectName)!
    // The stored text when the value is as stored (as entitiesV2 does; an old version of 20 KB
    // was parsed and serialized again for nothing).
    const value = a.valueText ?? JSON.stringify(a.value)
    return jsonText(`{"aspect":{${JSON.stringify(spec.pdlClass)}:${value}}${member('version', a.version)}${member('created', a.created)}${member('systemMetadata', a.systemMetadata)}}`)
  })

  router.on('GET', '/entitiesV2/*', async (ctx) => {
    const urn = ctx.params[0]!
    const aspects = parseList(ctx.query.get('aspects'))
    if (!alwaysIncludeKeyAspect(ctx)) return jsonText(entityResponseText(await catalog.requireEntity(urn, aspects)))
    return jsonText(entityResponseText(withKeyAspect(urn, await catalog.getEntity(urn, projectionWithKey(urn, aspects)))))
  })

  router.on('GET', '/entitiesV2', async (ctx) => {
    const ids = parseList(ctx.query.get('ids'))
    if (!ids) throw new BadRequestError("Missing '?ids=List(...)' query parameter")
    const aspects = parseList(ctx.query.get('aspects'))
    const withKey = alwaysIncludeKeyAspect(ctx)
    let results = ''
    // A urn listed twice is answered once (an object's key), as before.
    const seen = new Set<string>()
    for (const urn of ids) {
      if (seen.has(urn)) continue
      seen.add(urn)
      const e = withKey ? withKeyAspect(urn, await catalog.getEntity(urn, projectionWithKey(urn, aspects))) : await catalog.getEntity(urn, aspects)
      if (e) results += `${results === '' ? '' : ','}${JSON.stringify(urn)}:${entityResponseText(e)}`
    }
    return jsonText(`{"results":{${results}}}`)
  })
}

/**
 * Rest.li's `alwaysIncludeKeyAspect` of entitiesV2, true unless `false`: DataHub answers every urn
 * asked for with at least its key aspect, read off the urn when nothing is stored (its SDK's
 * `get_entity_semityped` says the key "will always be present", and `get_aspects_for_entity`
 * answers None for a missing entity's aspects rather than failing). mdcli's own client asks
 * without it, to learn that an entity does not exist.
 */
function alwaysIncludeKeyAspect(ctx: RequestContext): boolean {
  const v = ctx.query.get('alwaysIncludeKeyAspect')
  if (v === null || v === 'true') return true
  if (v === 'false') return false
  throw new BadRequestError(`'alwaysIncludeKeyAspect' must be true or false, got '${v.slice(0, 40)}'`)
}

/**
 * A projection that also names the urn's key aspect (none: every aspect, the key among them).
 * Names the registry does not know are left out: DataHub has aspects mdcli does not model
 * (documentation, displayProperties, …), which its SDK asks for by name; no entity here holds
 * one, so they are simply absent from the answer, as DataHub leaves out an aspect not stored.
 */
function projectionWithKey(urn: string, aspects: string[] | undefined): string[] | undefined {
  if (!aspects) return aspects
  const key = keyAspectOf(urn).name
  const known = aspects.filter((a) => aspectSpec(a) !== undefined)
  return known.includes(key) ? known : [...known, key]
}

/** The entity with its key aspect, read off the urn where none is stored (version 0, as DataHub builds it). */
function withKeyAspect(urn: string, e: EntityRecord | null): EntityRecord {
  const key = keyAspectOf(urn)
  if (e?.aspects[key.name]) return e
  const {spec} = validateUrn(urn)
  const keyAspect = {urn, entityType: spec.name, aspectName: key.name, kind: 'versioned', version: 0, value: key.value} as StoredAspect
  return {urn: e?.urn ?? urn, entityType: spec.name, aspects: {[key.name]: keyAspect, ...e?.aspects}}
}

type Row = {value: unknown}

/** A value's field by dotted path (`eventGranularity.unit`). */
function fieldOf(value: unknown, path: string): unknown {
  let v: unknown = value
  for (const k of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<string, unknown>)[k]
  }
  return v
}

/**
 * The `filter` of getTimeseriesAspectValues (DataHub's Filter: `or` of `and` groups, or the older
 * `criteria`), on the rows' own fields, as DataHub's clients send it (the SDK's
 * `get_latest_timeseries_value` filters `EQUAL`). Undefined when there is none; any other
 * condition is refused rather than ignored.
 */
function timeseriesFilter(raw: unknown): ((value: unknown) => boolean) | undefined {
  if (raw === undefined || raw === null) return undefined
  const f = raw as {or?: unknown; criteria?: unknown}
  const groups = Array.isArray(f.or) ? f.or.map((g) => (g as {and?: unknown})?.and) : Array.isArray(f.criteria) ? [f.criteria] : undefined
  if (!groups || groups.some((g) => !Array.isArray(g))) throw new BadRequestError('"filter" must be {"or": [{"and": [{"field", "values", "condition"}]}]}')
  const tests = (groups as unknown[][]).map((and) =>
    and.map((c) => {
      const {field, value, values, condition, negated} = (c ?? {}) as {field?: unknown; value?: unknown; values?: unknown; condition?: unknown; negated?: unknown}
      if (typeof field !== 'string' || field === '') throw new BadRequestError('Each filter criterion needs a "field"')
      if (condition !== undefined && condition !== 'EQUAL') throw new BadRequestError(`Filter condition ${JSON.stringify(condition)} on "${field}" is not supported here (EQUAL is)`)
      const wanted = (Array.isArray(values) && values.length > 0 ? values : [value]).map(String)
      return (v: unknown) => {
        const x = fieldOf(v, field)
        const hit = x !== undefined && x !== null && wanted.includes(String(x))
        return negated === true ? !hit : hit
      }
    }),
  )
  return (v) => tests.some((and) => and.every((t) => t(v)))
}

/** The `sort` of getTimeseriesAspectValues (`{"field", "order": "ASCENDING"|"DESCENDING"}`). */
function timeseriesSort(raw: unknown): (<T extends Row>(rows: T[]) => T[]) | undefined {
  if (raw === undefined || raw === null) return undefined
  const {field, order} = raw as {field?: unknown; order?: unknown}
  if (typeof field !== 'string' || field === '') throw new BadRequestError('"sort" needs a "field"')
  if (order !== undefined && order !== 'ASCENDING' && order !== 'DESCENDING') throw new BadRequestError(`"sort.order" must be ASCENDING or DESCENDING, not ${JSON.stringify(order)}`)
  const sign = order === 'ASCENDING' ? 1 : -1
  return (rows) =>
    rows
      .map((r, i) => ({r, i, k: fieldOf(r.value, field) as number | string | undefined}))
      .sort((a, b) => (a.k === b.k ? a.i - b.i : a.k === undefined ? 1 : b.k === undefined ? -1 : a.k < b.k ? -sign : sign))
      .map((x) => x.r)
}
