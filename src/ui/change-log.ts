/**
 * What `mdcli events tail` prints of a change: one line (id, time, change type, urn, aspect,
 * actor), then one indented line per entity change event it implies.
 */
import type {StreamedChange} from '../client/client.js'

export function changeLines(c: StreamedChange): string {
  const when = new Date(c.mcl.created.time).toISOString().replace('T', ' ').slice(0, 19)
  const head = `${String(c.id).padStart(6)}  ${when}  ${c.mcl.changeType.padEnd(6)}  ${c.mcl.entityUrn}${c.mcl.aspectName ? `  ${c.mcl.aspectName}` : ''}  by ${c.mcl.created.actor}`
  return [head, ...c.changeEvents.map((e) => `          ${e.category} ${e.operation}: ${e.description}`)].join('\n')
}
