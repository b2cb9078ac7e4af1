/**
 * `updateDescription`: documentation of exactly the entity types the spec lists (rule 2) —
 * dataset columns, containers, domains, glossary terms and nodes, tags, groups, notebooks and
 * the ML entities. Each type keeps its description in a different aspect (DataHub's
 * DescriptionUtils); a dataset's own description is its `editableDatasetProperties`.
 */
import {BadRequestError, NotFoundError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import type {Actor, Catalog} from '../catalog.js'
import {checkSubResource, editableSchema, type EditSummary, fieldInfo, type ResourceRef, summarize} from './common.js'
import {runEdit} from './engine.js'

interface Target {
  aspect: string
  field: 'description' | 'definition'
  /** When set, the aspect must already exist (its other required fields cannot be made up). */
  mustExist?: string
}

const TARGETS: Record<string, Target> = {
  container: {aspect: 'editableContainerProperties', field: 'description'},
  domain: {aspect: 'domainProperties', field: 'description', mustExist: 'Properties for this Domain do not yet exist!'},
  tag: {aspect: 'tagProperties', field: 'description', mustExist: 'Properties for this Tag do not yet exist!'},
  glossaryTerm: {aspect: 'glossaryTermInfo', field: 'definition', mustExist: 'Properties for this Glossary Term do not yet exist!'},
  glossaryNode: {aspect: 'glossaryNodeInfo', field: 'definition', mustExist: 'Properties for this Glossary Node do not yet exist!'},
  corpGroup: {aspect: 'corpGroupEditableInfo', field: 'description'},
  notebook: {aspect: 'editableNotebookProperties', field: 'description'},
  mlModel: {aspect: 'editableMLModelProperties', field: 'description'},
  mlModelGroup: {aspect: 'editableMLModelGroupProperties', field: 'description'},
  mlFeature: {aspect: 'editableMlFeatureProperties', field: 'description'},
  mlFeatureTable: {aspect: 'editableMlFeatureTableProperties', field: 'description'},
  mlPrimaryKey: {aspect: 'editableMlPrimaryKeyProperties', field: 'description'},
}

/** Entity types whose description `updateDescription` edits (datasets: columns only). */
export const DESCRIPTION_TYPES: readonly string[] = ['dataset', ...Object.keys(TARGETS)]

export interface DescriptionInput extends ResourceRef {
  description: string
}

export async function updateDescription(catalog: Catalog, actor: Actor, input: DescriptionInput): Promise<EditSummary> {
  const u = input.resourceUrn
  const type = validateUrn(u).spec.name
  // A dataset's columns are documented with a sub-resource; the dataset itself without one.
  const column = type === 'dataset' && !!input.subResourceType
  if (!column && !TARGETS[type] && type !== 'dataset') throw new BadRequestError(`Failed to update description. Unsupported resource type ${type} provided.`)
  const {writes} = await runEdit(catalog, actor, {
    authz: [{resourceUrn: u, privileges: [['EDIT_ENTITY'], [column ? 'EDIT_DATASET_COL_DESCRIPTION' : 'EDIT_ENTITY_DOCS']]}],
    locks: [u],
    build: async (tx) => {
      if (column) {
        if (!input.subResource) throw new BadRequestError(`Failed to update resource with urn ${u}. SubResourceType (${input.subResourceType}) provided without a subResource.`)
        if (!(await tx.exists(u))) throw new NotFoundError(`Failed to update ${u}. ${u} does not exist.`)
        await checkSubResource(tx, u, input.subResource)
        const esm = await editableSchema(tx, u)
        fieldInfo(esm, input.subResource).description = input.description
        tx.put(u, 'editableSchemaMetadata', esm)
        return
      }
      if (!(await tx.exists(u))) throw new NotFoundError(`Failed to update ${u}. ${u} does not exist.`)
      const t = type === 'dataset' ? {aspect: 'editableDatasetProperties', field: 'description' as const} : TARGETS[type]!
      const cur = await tx.aspect<Record<string, unknown>>(u, t.aspect)
      if (!cur && t.mustExist) throw new BadRequestError(t.mustExist)
      tx.put(u, t.aspect, {...cur, [t.field]: input.description})
    },
  })
  return summarize([u], writes)
}
