/**
 * Tags and glossary terms on entities and on dataset columns (DataHub's LabelUtils).
 *
 * Glossary:
 * - label: a tag (`urn:li:tag:…`) or a glossary term (`urn:li:glossaryTerm:…`).
 * - entity level: the entity's `globalTags` / `glossaryTerms` aspect.
 * - column level: the column's entry in the dataset's `editableSchemaMetadata`.
 *
 * Adding is idempotent (a label already present is not added twice); removing a label that is
 * not there is not an error. Added labels must exist; removed ones need not.
 */
import {BadRequestError} from '../../errors.js'
import type {Actor, Catalog} from '../catalog.js'
import {
  accepts, checkResource, editableSchema, type EditSummary, fieldInfo, isColumnEdit, type ResourceRef, summarize, typeOf,
} from './common.js'
import {type EditTx, runEdit, type Stamp} from './engine.js'

export type LabelKind = 'tag' | 'term'

const KINDS = {
  tag: {entityType: 'tag', aspect: 'globalTags', privilege: 'EDIT_ENTITY_TAGS', columnPrivilege: 'EDIT_DATASET_COL_TAGS', noun: 'tags'},
  term: {entityType: 'glossaryTerm', aspect: 'glossaryTerms', privilege: 'EDIT_ENTITY_GLOSSARY_TERMS', columnPrivilege: 'EDIT_DATASET_COL_GLOSSARY_TERMS', noun: 'glossary terms'},
} as const

type GlobalTags = {tags?: Array<{tag: string; [k: string]: unknown}>; [k: string]: unknown}
type GlossaryTerms = {terms?: Array<{urn: string; [k: string]: unknown}>; auditStamp?: Stamp; [k: string]: unknown}

/** Adds every label to every resource. */
export function addLabels(catalog: Catalog, actor: Actor, kind: LabelKind, labelUrns: string[], resources: ResourceRef[]): Promise<EditSummary> {
  return editLabels(catalog, actor, kind, labelUrns, resources, 'add')
}

/** Removes every label from every resource. */
export function removeLabels(catalog: Catalog, actor: Actor, kind: LabelKind, labelUrns: string[], resources: ResourceRef[]): Promise<EditSummary> {
  return editLabels(catalog, actor, kind, labelUrns, resources, 'remove')
}

async function checkLabel(tx: EditTx, kind: LabelKind, urn: string, mustExist: boolean): Promise<void> {
  const want = KINDS[kind].entityType
  if (typeOf(urn) !== want) {
    // Two dots (sic): DataHub's message ends the type name with its own period.
    throw new BadRequestError(`Failed to validate label with urn ${urn}. Urn type does not match entity type ${want}..`)
  }
  if (mustExist && !(await tx.exists(urn))) throw new BadRequestError(`Failed to validate label with urn ${urn}. Urn does not exist.`)
}

async function editLabels(catalog: Catalog, actor: Actor, kind: LabelKind, labelUrns: string[], resources: ResourceRef[], op: 'add' | 'remove'): Promise<EditSummary> {
  const k = KINDS[kind]
  const labels = [...new Set(labelUrns)]
  const {writes} = await runEdit(catalog, actor, {
    authz: resources.map((r) => ({resourceUrn: r.resourceUrn, privileges: [['EDIT_ENTITY'], [isColumnEdit(r) ? k.columnPrivilege : k.privilege]]})),
    locks: resources.map((r) => r.resourceUrn),
    build: async (tx) => {
      // Every label and every resource is checked before any value is computed.
      for (const l of labels) await checkLabel(tx, kind, l, op === 'add')
      for (const r of resources) {
        await checkResource(tx, r)
        const type = typeOf(r.resourceUrn)!
        if (!isColumnEdit(r) && !accepts(type, k.aspect)) {
          throw new BadRequestError(`Failed to update resource with urn ${r.resourceUrn}. Entities of type ${type} have no ${k.noun}.`)
        }
      }
      for (const r of resources) {
        if (isColumnEdit(r)) await editColumn(tx, kind, labels, r.resourceUrn, r.subResource!, op)
        else await editEntity(tx, kind, labels, r.resourceUrn, op)
      }
    },
  })
  return summarize(resources.map((r) => r.resourceUrn), writes)
}

function addTags(g: GlobalTags | undefined, labels: string[]): GlobalTags {
  const tags = [...(g?.tags ?? [])]
  for (const l of labels) if (!tags.some((t) => t.tag === l)) tags.push({tag: l})
  return {...g, tags}
}

function addTerms(g: GlossaryTerms | undefined, labels: string[], stamp: Stamp): GlossaryTerms {
  const terms = [...(g?.terms ?? [])]
  for (const l of labels) if (!terms.some((t) => t.urn === l)) terms.push({urn: l})
  return {...g, terms, auditStamp: stamp}
}

async function editEntity(tx: EditTx, kind: LabelKind, labels: string[], urn: string, op: 'add' | 'remove'): Promise<void> {
  if (kind === 'tag') {
    const g = await tx.aspect<GlobalTags>(urn, 'globalTags')
    if (op === 'add') tx.put(urn, 'globalTags', addTags(g, labels))
    else if (g) tx.put(urn, 'globalTags', {...g, tags: (g.tags ?? []).filter((t) => !labels.includes(t.tag))})
    return
  }
  const g = await tx.aspect<GlossaryTerms>(urn, 'glossaryTerms')
  if (op === 'add') tx.put(urn, 'glossaryTerms', addTerms(g, labels, tx.stamp))
  else if (g) tx.put(urn, 'glossaryTerms', {...g, terms: (g.terms ?? []).filter((t) => !labels.includes(t.urn)), auditStamp: tx.stamp})
}

async function editColumn(tx: EditTx, kind: LabelKind, labels: string[], urn: string, fieldPath: string, op: 'add' | 'remove'): Promise<void> {
  const esm = await editableSchema(tx, urn)
  const has = esm.editableSchemaFieldInfo.some((f) => f.fieldPath === fieldPath)
  // Removing from a column that has no editable info yet changes nothing: write nothing.
  if (op === 'remove' && !has) return
  const f = fieldInfo(esm, fieldPath)
  if (kind === 'tag') {
    if (op === 'add') f.globalTags = addTags(f.globalTags, labels) as typeof f.globalTags
    else if (f.globalTags) f.globalTags = {...f.globalTags, tags: f.globalTags.tags.filter((t) => !labels.includes(t.tag))}
  } else {
    if (op === 'add') f.glossaryTerms = addTerms(f.glossaryTerms, labels, tx.stamp) as typeof f.glossaryTerms
    else if (f.glossaryTerms) f.glossaryTerms = {...f.glossaryTerms, terms: f.glossaryTerms.terms.filter((t) => !labels.includes(t.urn)), auditStamp: tx.stamp}
  }
  tx.put(urn, 'editableSchemaMetadata', esm)
}
