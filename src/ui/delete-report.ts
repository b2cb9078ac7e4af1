/**
 * What `mdcli delete` prints: the urns a filter found, and the closing report (what was or would
 * be deleted, what was not found, which other entities still refer to the deleted urns). Lines
 * only; the command decides where they go (nothing under --json).
 */
import {timespan} from '../cli/report.js'
import type {RelatedAspect} from '../catalog/delete.js'

/** What one `mdcli delete` did, summed over its batches (also its --json output). */
export interface DeleteOutcome {
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
  /** Soft delete: urns that were already soft-deleted (nothing written for them). */
  alreadyDeleted?: string[]
  references?: {checked: boolean; total: number; entities: number; sample: RelatedAspect[]}
  tookMs: number
}

/** The urns a filter found, by entity type, with a sample of each (as DataHub prints them). */
export function foundUrnsLines(found: Array<{urn: string; type: string}>): string[] {
  const byType = new Map<string, string[]>()
  for (const f of found) byType.set(f.type, [...(byType.get(f.type) ?? []), f.urn])
  if (byType.size === 1) {
    const [type, list] = [...byType][0]!
    return [`Found ${list.length} ${type} urn(s). Sample: ${JSON.stringify(list.slice(0, 5))}`]
  }
  return ['Found urns of multiple entity types', ...[...byType].map(([type, list]) => `- ${list.length} ${type} urn(s). Sample: ${JSON.stringify(list.slice(0, 5))}`)]
}

/** `1 entity`, `2 entities`. */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}

/** The closing report of a delete; `aspectName` when a timeseries window was deleted. */
export function deleteReportLines(outcome: DeleteOutcome, aspectName?: string): string[] {
  const lines: string[] = []
  for (const u of outcome.notFound) lines.push(aspectName ? `Nothing to delete for ${u}: no ${aspectName} rows in that window.` : `Nothing to delete for ${u}: no such entity.`)
  const already = outcome.alreadyDeleted ?? []
  for (const u of already.slice(0, 10)) lines.push(`${u} was already soft-deleted; left as it was.`)
  if (already.length > 10) lines.push(`… and ${already.length - 10} more already soft-deleted.`)
  const impact = `(impacts ${count(outcome.rows, 'versioned row')} and ${count(outcome.timeseriesRows, 'timeseries aspect row')})`
  if (outcome.dryRun) {
    for (const u of outcome.deleted) lines.push(`  ${u}`)
    lines.push(`[Dry-run] Would ${outcome.soft ? 'soft ' : ''}delete ${count(outcome.entities, 'entity', 'entities')} ${impact}.`)
  } else {
    lines.push(`${outcome.soft ? 'Soft' : 'Hard'} deleted ${count(outcome.entities, 'entity', 'entities')} ${impact} in ${timespan(outcome.tookMs)}.`)
  }
  const ref = outcome.references
  if (ref && ref.checked && ref.total > 0) {
    lines.push(`${ref.total} aspect(s) of ${ref.entities} other entit${ref.entities === 1 ? 'y' : 'ies'} still refer to ${outcome.dryRun ? 'these urns' : 'the deleted urns'}${ref.total > ref.sample.length ? ' (sample)' : ''}:`)
    for (const r of ref.sample) lines.push(`  ${r.entity} ${r.aspect} (${r.relationship}) -> ${r.urn}`)
  }
  return lines
}
