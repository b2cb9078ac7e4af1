/**
 * Checks and small shapes every edit shares: resource references (an entity, or a column of a
 * dataset), their validation with DataHub's messages, and ownership-type urns.
 *
 * Glossary:
 * - resource: the entity an edit changes, named by urn.
 * - sub-resource: a part of a resource; only dataset columns (`DATASET_FIELD`, addressed by field
 *   path) exist. Column edits land in the dataset's `editableSchemaMetadata`.
 * - summary: what a service returns — the urns it touched and how many aspect rows it wrote.
 */
import {BadRequestError} from '../../errors.js'
import {aspectsOf, findEntity} from '../../model/registry.js'
import {parseUrn} from '../../model/urn.js'
import type {WriteResult} from '../../store/types.js'
import type {EditTx} from './engine.js'

export type SubResourceType = 'DATASET_FIELD'

export interface ResourceRef {
  resourceUrn: string
  subResourceType?: SubResourceType | null
  subResource?: string | null
}

export interface EditSummary {
  /** Resources the edit applied to, in input order. */
  urns: string[]
  /** Aspect values proposed. */
  aspectsWritten: number
  /** Of those, how many differed from the stored value (a new version). */
  changed: number
}

export function summarize(urns: string[], writes: WriteResult[]): EditSummary {
  return {urns, aspectsWritten: writes.length, changed: writes.filter((w) => w.changed).length}
}

/** Entity type of an urn, or undefined when the urn does not parse. */
export function typeOf(urn: string): string | undefined {
  try {
    return parseUrn(urn).entityType
  } catch {
    return undefined
  }
}

/** Whether entities of `entityType` accept `aspectName` (false for unknown types). */
export function accepts(entityType: string, aspectName: string): boolean {
  return findEntity(entityType) !== undefined && aspectsOf(entityType).includes(aspectName)
}

/** Edits that change column metadata carry a sub-resource; their privileges differ. */
export function isColumnEdit(ref: ResourceRef): boolean {
  return typeof ref.subResource === 'string' && ref.subResource.length > 0
}

/**
 * DataHub's checks of a resource reference, in its order: sub-resource pairing, existence, then
 * the column's presence in the dataset's schema.
 */
export async function checkResource(tx: EditTx, ref: ResourceRef, missing: (urn: string) => string = missingResource): Promise<void> {
  const u = ref.resourceUrn
  if (ref.subResourceType && !ref.subResource) {
    throw new BadRequestError(`Failed to update resource with urn ${u}. SubResourceType (${ref.subResourceType}) provided without a subResource.`)
  }
  if (ref.subResource && !ref.subResourceType) {
    // "updates" (sic) is DataHub's wording.
    throw new BadRequestError(`Failed to updates resource with urn ${u}. SubResource (${ref.subResource}) provided without a subResourceType.`)
  }
  if (!(await tx.exists(u))) throw new BadRequestError(missing(u))
  if (ref.subResource) await checkSubResource(tx, u, ref.subResource)
}

export function missingResource(urn: string): string {
  return `Failed to update resource with urn ${urn}. Entity does not exist.`
}

/** The column must be in the dataset's (ingested) schema. */
export async function checkSubResource(tx: EditTx, urn: string, fieldPath: string): Promise<void> {
  const schema = await tx.aspect<{fields?: Array<{fieldPath?: string}>}>(urn, 'schemaMetadata')
  if (!schema || !accepts(typeOf(urn) ?? '', 'editableSchemaMetadata')) {
    throw new BadRequestError(`Failed to update ${urn} & field ${fieldPath}. ${urn} has no schema.`)
  }
  if (!(schema.fields ?? []).some((f) => f.fieldPath === fieldPath)) {
    throw new BadRequestError(`Failed to update ${urn} & field ${fieldPath}. Field ${fieldPath} does not exist in the datasets schema.`)
  }
}

export interface EditableFieldInfo {
  fieldPath: string
  description?: string
  globalTags?: {tags: Array<{tag: string; [k: string]: unknown}>}
  glossaryTerms?: {terms: Array<{urn: string; [k: string]: unknown}>; auditStamp: {time: number; actor: string}}
}

export interface EditableSchemaMetadata {
  editableSchemaFieldInfo: EditableFieldInfo[]
  created?: {time: number; actor: string}
  lastModified?: {time: number; actor: string}
  [k: string]: unknown
}

/** Reads a dataset's editable schema (or a fresh one), stamped as modified by this edit. */
export async function editableSchema(tx: EditTx, urn: string): Promise<EditableSchemaMetadata> {
  const esm = (await tx.aspect<EditableSchemaMetadata>(urn, 'editableSchemaMetadata')) ?? {editableSchemaFieldInfo: []}
  esm.editableSchemaFieldInfo ??= []
  esm.created ??= tx.stamp
  esm.lastModified = tx.stamp
  return esm
}

/** The editable info of a column, created when the column has none yet. */
export function fieldInfo(esm: EditableSchemaMetadata, fieldPath: string): EditableFieldInfo {
  let f = esm.editableSchemaFieldInfo.find((x) => x.fieldPath === fieldPath)
  if (!f) esm.editableSchemaFieldInfo.push((f = {fieldPath}))
  return f
}

/** Ownership-type urns DataHub derives from the OwnershipType enum. */
export const SYSTEM_OWNERSHIP_TYPE_PREFIX = 'urn:li:ownershipType:__system__'

export function systemOwnershipTypeUrn(type: string): string {
  return SYSTEM_OWNERSHIP_TYPE_PREFIX + type.toLowerCase()
}

/** Null items are legal in some of DataHub's list inputs; an edit refuses them by position. */
export function nonNullRefs(refs: ReadonlyArray<ResourceRef | null | undefined>): ResourceRef[] {
  return refs.map((r, i) => {
    if (!r) throw new BadRequestError(`resources[${i}] must not be null`)
    return r
  })
}
