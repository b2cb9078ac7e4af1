/**
 * Tables in the grid style DataHub's CLI prints with `tabulate(tablefmt="grid")`
 * (`+---+` borders, `|` separators), drawn with cli-table3 and never coloured.
 */
import Table from 'cli-table3'

const GRID = {
  top: '-', 'top-mid': '+', 'top-left': '+', 'top-right': '+',
  bottom: '-', 'bottom-mid': '+', 'bottom-left': '+', 'bottom-right': '+',
  left: '|', 'left-mid': '+', mid: '-', 'mid-mid': '+',
  right: '|', 'right-mid': '+', middle: '|',
}

export function gridTable(head: string[], rows: Array<Array<string | number>>, align: Array<'left' | 'right'> = []): string {
  const t = new Table({head, chars: GRID, style: {head: [], border: [], 'padding-left': 1, 'padding-right': 1}, colAligns: head.map((_, i) => align[i] ?? 'left')})
  for (const r of rows) t.push(r.map((c) => String(c)))
  return t.toString()
}

/** `%Y-%m-%d %H:%M:%S (<zone>)` in local time, as DataHub's list-runs prints `created at`. */
export function formatLocalTime(ms: number): string {
  const d = new Date(ms)
  const p = (n: number): string => String(n).padStart(2, '0')
  const zone = new Intl.DateTimeFormat('en-US', {timeZoneName: 'short'}).formatToParts(d).find((x) => x.type === 'timeZoneName')?.value ?? 'local'
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} (${zone})`
}
