/**
 * Small aspect builders both data-lake sources share, shaped as DataHub emits them.
 */
import {pyFloat, type ProposalInput} from '../../src/sdk/index.js'

/** DataHub's `auto_patch_last_modified`: a PATCH of `datasetProperties/lastModified`. */
export function lastModifiedPatch(datasetUrn: string, time: number): ProposalInput {
  return {entityType: 'dataset', entityUrn: datasetUrn, changeType: 'PATCH', aspectName: 'datasetProperties', aspect: {json: [{op: 'add', path: '/lastModified', value: {time}}]}} as ProposalInput
}

/** Python's `str()` of a JSON value: `True`, `None`, `['a', 'b']`, `{'k': 1}`. */
export function pyStr(v: unknown): string {
  if (typeof v === 'string') return v
  return pyRepr(v)
}

function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None'
  if (v === true) return 'True'
  if (v === false) return 'False'
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloat(v)
  if (typeof v === 'string') return v.includes("'") && !v.includes('"') ? `"${v}"` : `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`
  return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`
}
