/**
 * What `mdcli delete` prints: the urns a filter found, and the closing report (what was or would
 * be deleted, what was not found, which other entities still refer to the deleted urns). Lines
 * only; the command decides where they go (nothing under --json).
 */
import type {DeleteOutcome, DeletePlan} from '../cli/delete.js'
import {formatTimespan} from '../recipes/pipeline.js'

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
    const cleaned = outcome.cleanedUp ? ` and cleaned up ${count(outcome.cleanedUp, 'referenced entity', 'referenced entities')}` : ''
    lines.push(`${outcome.soft ? 'Soft' : 'Hard'} deleted ${count(outcome.entities, 'entity', 'entities')} ${impact}${cleaned} in ${formatTimespan(outcome.tookMs)}.`)
  }
  const ref = outcome.references
  if (ref && ref.checked && ref.total > 0) {
    lines.push(`${ref.total} aspect(s) of ${ref.entities} other entit${ref.entities === 1 ? 'y' : 'ies'} still refer to ${outcome.dryRun ? 'these urns' : 'the deleted urns'}${ref.total > ref.sample.length ? ' (sample)' : ''}:`)
    for (const r of ref.sample) lines.push(`  ${r.entity} ${r.aspect} (${r.relationship}) -> ${r.urn}`)
  }
  return lines
}

/** The [y/N] question before a delete: what will go, for good or not. */
export function deleteQuestion(plan: Pick<DeletePlan, 'soft' | 'target' | 'window'>, urns: string[], times: {start?: string; end?: string}): string {
  if (plan.window) return `This will permanently delete the ${plan.window.aspectName} rows between ${times.start} and ${times.end} of ${urns.length === 1 ? urns[0] : `${urns.length} entities`}. Do you want to continue?`
  // A soft delete of one urn asks nothing (see the delete command).
  if ('urn' in plan.target) return `This will permanently delete ${plan.target.urn} and all its history. Do you want to continue?`
  return `This will ${plan.soft ? 'soft' : 'hard'} delete ${urns.length} entities${plan.soft ? '' : ' permanently'}. Do you want to continue?`
}
