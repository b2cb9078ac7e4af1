/**
 * Reporting an operation on a dataset (DataHub's `reportOperation`): one row of the `operation`
 * timeseries aspect — what happened (`operationType`), who reported it (the actor), from where
 * (`sourceType`) and when. The dataset page's "last updated" and `Dataset.operations` read it.
 *
 * Who may: EDIT_ENTITY or EDIT_ENTITY_OPERATIONS on the dataset.
 */
import {BadRequestError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import type {Actor, Catalog} from '../catalog.js'
import {type EditSummary, summarize} from './common.js'
import {runEdit} from './engine.js'

/** Entity types DataHub's resolver accepts. */
const SUPPORTED_TYPES = ['dataset']

export interface OperationReport {
  urn: string
  operationType: string
  customOperationType?: string | null
  sourceType: string
  customProperties?: Array<{key: string; value?: string | null}> | null
  partition?: string | null
  numAffectedRows?: number | null
  timestampMillis?: number | null
}

export async function reportOperation(catalog: Catalog, actor: Actor, input: OperationReport): Promise<EditSummary> {
  const {spec} = validateUrn(input.urn)
  if (!SUPPORTED_TYPES.includes(spec.name)) throw new BadRequestError(`Unable to report operation. Invalid entity type ${spec.name} provided.`)
  // DataHub's schema documents it as required for CUSTOM but does not check; without it the row says nothing.
  if (input.operationType === 'CUSTOM' && !input.customOperationType?.trim()) throw new BadRequestError('Unable to report operation. customOperationType is required when operationType is CUSTOM.')
  const time = input.timestampMillis
  if (time !== undefined && time !== null && !(Number.isSafeInteger(time) && time >= 0)) throw new BadRequestError(`Unable to report operation. timestampMillis must be a non-negative whole number of milliseconds, not ${time}.`)
  const rows = input.numAffectedRows
  if (rows !== undefined && rows !== null && !(Number.isSafeInteger(rows) && rows >= 0)) throw new BadRequestError(`Unable to report operation. numAffectedRows must be a non-negative whole number, not ${rows}.`)
  const keys = (input.customProperties ?? []).map((p) => p.key)
  const dup = keys.find((k, i) => keys.indexOf(k) !== i)
  if (dup !== undefined) throw new BadRequestError(`Unable to report operation. Custom property '${dup}' is given twice.`)

  const {writes} = await runEdit(catalog, actor, {
    authz: [{resourceUrn: input.urn, privileges: [['EDIT_ENTITY'], ['EDIT_ENTITY_OPERATIONS']]}],
    locks: [input.urn],
    build: async (tx) => {
      // DataHub would create the dataset from this row alone; a mistyped urn should not become one.
      if (!(await tx.exists(input.urn))) throw new BadRequestError(`Unable to report operation. Entity ${input.urn} does not exist.`)
      const at = time ?? tx.stamp.time
      tx.put(input.urn, 'operation', {
        timestampMillis: at,
        lastUpdatedTimestamp: at,
        actor: tx.stamp.actor,
        operationType: input.operationType,
        sourceType: input.sourceType,
        ...(input.customOperationType ? {customOperationType: input.customOperationType} : {}),
        ...(rows !== undefined && rows !== null ? {numAffectedRows: rows} : {}),
        ...(input.partition ? {partitionSpec: {type: 'PARTITION', partition: input.partition}} : {}),
        // A map of strings holds no null: a key sent without a value keeps an empty one.
        ...(input.customProperties ? {customProperties: Object.fromEntries(input.customProperties.map((p) => [p.key, p.value ?? '']))} : {}),
      })
    },
  })
  return summarize([input.urn], writes)
}
