/**
 * Writes a parsed LookML block back as LookML text, in the layout of the `lkml` Python package
 * DataHub uses (two-space indent, a blank line around blocks), so a native derived table's
 * `viewLogic` reads as DataHub shows it.
 */
import type {LookmlNode} from './project.js'

/** Keys whose values lkml writes in double quotes. */
const QUOTED = new Set(['label', 'view_label', 'group_label', 'group_item_label', 'description', 'value', 'label_from_parameter', 'default_value', 'allowed_value', 'link', 'url', 'icon_url'])

const isNode = (v: unknown): v is LookmlNode => v !== null && typeof v === 'object' && !Array.isArray(v)
const isExpression = (key: string): boolean => key === 'sql' || key.startsWith('sql_') || key.endsWith('_sql') || key === 'html' || key === 'expression'

function scalar(key: string, v: unknown): string {
  if (typeof v === 'boolean') return v ? 'yes' : 'no'
  const s = String(v)
  if (isExpression(key)) return `${s.trim()} ;;`
  return QUOTED.has(key) ? JSON.stringify(s) : s
}

function lines(node: LookmlNode, indent: string): string[][] {
  // Each entry is one item: a single line (a pair) or several (a block).
  const items: string[][] = []
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('$')) continue
    if (Array.isArray(value)) {
      if (value.every(isNode)) for (const v of value) items.push(block(key, v as LookmlNode, indent))
      else items.push([`${indent}${key}: [${value.map((v) => scalar(key, v)).join(', ')}]`])
    } else if (isNode(value)) {
      if (typeof value.$type === 'string') items.push(block(key, value, indent))
      else for (const v of Object.values(value)) if (isNode(v)) items.push(block(key, v, indent))
    } else items.push([`${indent}${key}: ${scalar(key, value)}`])
  }
  return items
}

function block(key: string, node: LookmlNode, indent: string): string[] {
  const head = `${indent}${key}: ${typeof node.$name === 'string' ? `${node.$name} ` : ''}{`
  return [head, ...join(lines(node, `${indent}  `)), `${indent}}`]
}

function join(items: string[][]): string[] {
  const out: string[] = []
  items.forEach((item, i) => {
    const prev = items[i - 1]
    if (prev && (prev.length > 1 || item.length > 1)) out.push('')
    out.push(...item)
  })
  return out
}

/** The children of `node` as LookML text (the node's own key and braces left out). */
export function dumpLookml(node: LookmlNode): string {
  return join(lines(node, '')).join('\n')
}
