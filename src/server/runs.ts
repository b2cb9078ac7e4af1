/**
 * `POST /runs?action=list|describe|rollback`, shaped like DataHub's Rest.li `runs` resource
 * (`{"value": ...}` answers). Parsing and rendering only; the work is in catalog/runs.ts.
 */
import {BadRequestError} from '../errors.js'
import type {Catalog} from '../catalog/catalog.js'
import {describeRun, listRuns, rollbackRun} from '../catalog/runs.js'
import {json, type Router} from './http.js'

function int(v: unknown, name: string, dflt: number): number {
  if (v === undefined || v === null) return dflt
  const n = Number(v)
  if (!Number.isInteger(n) || n < 0) throw new BadRequestError(`${name} must be a whole number >= 0, got ${JSON.stringify(v)}`)
  return n
}

function bool(v: unknown): boolean {
  return v === true || v === 'true'
}

function runIdOf(body: {runId?: unknown}): string {
  if (typeof body.runId !== 'string' || body.runId === '') throw new BadRequestError('Request body needs "runId"')
  return body.runId
}

export function registerRuns(router: Router, catalog: Catalog): void {
  router.on('POST', '/runs', async (ctx) => {
    const act = ctx.query.get('action')
    const body = ((await ctx.text()).trim() === '' ? {} : await ctx.json<Record<string, unknown>>()) ?? {}
    if (typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('Request body must be a JSON object')
    if (act === 'list') {
      const runs = await listRuns(catalog, {start: int(body.pageOffset, 'pageOffset', 0), count: int(body.pageSize, 'pageSize', 100)})
      return json(200, {value: runs})
    }
    if (act === 'describe') {
      const rows = await describeRun(catalog, runIdOf(body), {start: int(body.start, 'start', 0), count: int(body.count, 'count', 100), includeAspect: bool(body.includeAspect)})
      return json(200, {value: rows})
    }
    if (act === 'rollback') {
      // DataHub: `safe` wins over the deprecated `hardDelete`; a hard delete is `!safe`.
      const hard = body.safe !== undefined ? !bool(body.safe) : bool(body.hardDelete)
      const report = await rollbackRun(catalog, ctx.actor, {runId: runIdOf(body), dryRun: bool(body.dryRun), hard})
      return json(200, {value: report})
    }
    throw new BadRequestError(`Unknown action '${act ?? ''}' on /runs (expected list, describe or rollback)`)
  })
}
