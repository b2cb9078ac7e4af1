/**
 * The REST endpoints, shaped like DataHub's GMS Rest.li resources so that DataHub's CLI habits
 * carry over: `POST /aspects?action=ingestProposal`, `GET /aspects/{urn}`, `GET /entitiesV2/{urn}`,
 * `/health`, `/config`. Each handler parses, calls the catalog, and renders; no logic lives here.
 */
import {decodeUriPart} from '../model/limits.js'
import {BadRequestError} from '../errors.js'
import type {Catalog} from '../catalog/catalog.js'
import {aspectSpec} from '../model/registry.js'
import type {EntityRecord, StoredAspect} from '../store/types.js'
import type {ProposalInput} from '../catalog/proposal.js'
import {Gate} from '../catalog/edits/gate.js'
import {json, type RequestContext, type Router} from './http.js'

export const SERVER_VERSION = '0.1.0'

/** `List(a,b,c)` (Rest.li) or `a,b,c` → names. */
export function parseList(s: string | null): string[] | undefined {
  if (s === null || s === '') return undefined
  const inner = s.startsWith('List(') && s.endsWith(')') ? s.slice(5, -1) : s
  return inner
    .split(',')
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

function action(ctx: RequestContext): string {
  const a = ctx.query.get('action')
  if (!a) throw new BadRequestError("Missing '?action=' query parameter")
  return a
}

export function registerRest(router: Router, catalog: Catalog, info: {startedAt: number}): void {
  // Batches are parsed only when the store can take them: one waiting for its turn holds its
  // body's bytes, not a thousand parsed proposals that would outlive V8's young generation.
  const batches = new Gate(catalog.writeConcurrency)
  router.on('GET', '/health', async () => ({status: 200, headers: {}}), {public: true})

  router.on('GET', '/config', async () =>
    json(200, {
      noCode: 'true',
      retention: 'true',
      statefulIngestionCapable: true,
      patchCapable: false,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      versions: {'mdcli/server': {version: SERVER_VERSION}},
      telemetry: {enabledCli: false, enabledIngestion: false},
      startedAt: info.startedAt,
      server: {type: 'mdcli-lite'},
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
        const body = await ctx.json<{proposals?: ProposalInput[]; atomic?: boolean}>()
        if (!body || !Array.isArray(body.proposals)) throw new BadRequestError('Request body must be {"proposals": [...]} ')
        return catalog.propose(ctx.actor, body.proposals, {atomic: body.atomic === true})
      })
      const failed = outcomes.filter((o) => !o.ok).length
      return json(200, {value: {written: outcomes.length - failed, failed, results: outcomes}})
    }
    if (act === 'getTimeseriesAspectValues') {
      const body = await ctx.json<{urn?: string; aspect?: string; startTimeMillis?: number; endTimeMillis?: number; limit?: number; latestValue?: boolean}>()
      if (typeof body?.urn !== 'string' || typeof body.aspect !== 'string') throw new BadRequestError('Request body needs "urn" and "aspect"')
      for (const f of ['startTimeMillis', 'endTimeMillis', 'limit'] as const) {
        const v = body[f]
        if (v !== undefined && v !== null && !(Number.isSafeInteger(v) && v >= 0)) throw new BadRequestError(`"${f}" must be a whole number (0 or more) of ${f === 'limit' ? 'rows' : 'milliseconds'}, not ${JSON.stringify(v)?.slice(0, 40)}`)
      }
      const rows = await catalog.listTimeseries(body.urn, body.aspect, {
        startTime: body.startTimeMillis,
        endTime: body.endTimeMillis,
        limit: body.latestValue ? 1 : body.limit,
      })
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

  router.on('GET', '/aspects/*', async (ctx) => {
    const urn = ctx.params[0]!
    const aspectName = ctx.query.get('aspect')
    if (!aspectName) throw new BadRequestError("Missing '?aspect=' query parameter")
    const vq = ctx.query.get('version')
    const version = vq === null ? 0 : Number(vq)
    if (!Number.isInteger(version) || version < 0) throw new BadRequestError(`version must be a whole number >= 0, got '${vq}'`)
    const a = await catalog.getAspect(urn, aspectName, version)
    const spec = aspectSpec(aspectName)!
    return json(200, {aspect: {[spec.pdlClass]: a.value}, version: a.version, created: a.created, systemMetadata: a.systemMetadata})
  })

  router.on('GET', '/entitiesV2/*', async (ctx) => {
    const urn = ctx.params[0]!
    const e = await catalog.requireEntity(urn, parseList(ctx.query.get('aspects')))
    return json(200, entityResponse(e))
  })

  router.on('GET', '/entitiesV2', async (ctx) => {
    const ids = parseList(ctx.query.get('ids'))
    if (!ids) throw new BadRequestError("Missing '?ids=List(...)' query parameter")
    const aspects = parseList(ctx.query.get('aspects'))
    const results: Record<string, unknown> = {}
    for (const urn of ids) {
      const e = await catalog.getEntity(urn, aspects)
      if (e) results[urn] = entityResponse(e)
    }
    return json(200, {results})
  })
}
