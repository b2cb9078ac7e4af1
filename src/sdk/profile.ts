/**
 * What DataHub's profilers share, so that sources computing profiles in different places (a SQL
 * server, a file read here) classify and label them alike.
 */

/** The partitionSpec of a profile or operation over the whole table. */
export const FULL_TABLE = {partition: 'FULL_TABLE_SNAPSHOT', type: 'FULL_TABLE'} as const

/** DataHub's classes of a column's distinct count (DatasetFieldProfile's cardinality). */
export type Cardinality = 'NONE' | 'ONE' | 'TWO' | 'VERY_FEW' | 'FEW' | 'MANY' | 'VERY_MANY' | 'UNIQUE'

/**
 * DataHub's `convert_to_cardinality`: the class of `unique` distinct values, `pct` being the
 * proportion its caller passes (the profilers differ in which one they pass).
 */
export function cardinality(unique: number, pct: number): Cardinality {
  if (unique === 0) return 'NONE'
  if (pct === 1.0) return 'UNIQUE'
  if (unique === 1) return 'ONE'
  if (unique === 2) return 'TWO'
  if (unique < 20) return 'VERY_FEW'
  if (unique < 60) return 'FEW'
  return pct > 0.1 ? 'VERY_MANY' : 'MANY'
}
