/**
 * Stream processors the pipeline applies around a source (DataHub's work-unit processors).
 *
 * Glossary:
 * - auto status: after a source's stream ends, one `status {removed: false}` proposal for each
 *   entity the source produced that carried no status of its own, sorted by urn, so that
 *   re-ingesting an entity that a rollback or a soft delete hid brings it back (DataHub's
 *   `auto_status_aspect`). Entity types without a `status` aspect are passed over, and so is an
 *   entity the stream deletes (a DELETE proposal), which a status would bring back to life.
 */
import {findEntity} from '../model/registry.js'
import {mcp, type WorkUnit, type WorkUnitStream} from '../sdk/plugin.js'

function acceptsStatus(urn: string): boolean {
  const type = urn.split(':')[2] ?? ''
  return findEntity(type)?.aspects.includes('status') ?? false
}

/** Appends status proposals for entities without one (memory: one set entry per entity). */
export async function* autoStatus(stream: WorkUnitStream): AsyncGenerator<WorkUnit> {
  const seen = new Set<string>()
  const withStatus = new Set<string>()
  for await (const wu of stream) {
    // A malformed work unit is the counting stage's to report; it passes through untouched.
    for (const p of Array.isArray(wu?.proposals) ? wu.proposals : []) {
      if (p === null || typeof p !== 'object' || typeof p.entityUrn !== 'string') continue
      seen.add(p.entityUrn)
      if (p.aspectName === 'status' || p.changeType === 'DELETE') withStatus.add(p.entityUrn)
    }
    yield wu
  }
  const missing = [...seen].filter((u) => !withStatus.has(u) && acceptsStatus(u)).sort()
  for (const urn of missing) yield {id: `status-for-${urn}`, kind: 'mcp', proposals: [mcp(urn, 'status', {removed: false})]}
}

/** Stops after `n` work units (preview). Returning ends the upstream generators too. */
export async function* take(stream: WorkUnitStream, n: number): AsyncGenerator<WorkUnit> {
  if (n <= 0) return
  let i = 0
  for await (const wu of stream) {
    yield wu
    if (++i >= n) return
  }
}
