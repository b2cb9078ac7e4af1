/**
 * `update<Entity>`: whole-section updates of one or more entities — owners and tags replaced as
 * whole sets, the editable description, deprecation, links, column documentation, and the
 * profile fields of tags, users and groups. Each section given becomes one aspect write; all
 * entities of a call are written in one batch or not at all.
 *
 * Glossary:
 * - section: one optional part of an update (`owners`, `tags`, `description`, …).
 * - editable description: the description people edit, kept apart from the ingested one in an
 *   `editable*Properties` aspect so that the next ingestion run does not overwrite it.
 */
import {BadRequestError, NotFoundError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import type {Actor, Catalog} from '../catalog.js'
import type {Privilege} from '../authorize.js'
import {checkSubResource, editableSchema, type EditSummary, fieldInfo, summarize, typeOf} from './common.js'
import {type EditTx, runEdit} from './engine.js'
import {resolveOwnershipType, type StoredOwner} from './owners.js'

export interface OwnerUpdate {
  owner: string
  type?: string | null
  ownershipTypeUrn?: string | null
}

export interface EntityUpdate {
  /** Replaces every owner. */
  owners?: OwnerUpdate[]
  /** Replaces every tag (tag urns). */
  tags?: string[]
  /** The editable description. */
  description?: string
  deprecation?: {deprecated: boolean; decommissionTime?: number | null; note: string}
  /** Replaces every link. */
  links?: Array<{url: string; description?: string | null; author: string; createdAt?: number | null}>
  /** Per-column documentation and tags; columns not named keep what they have. */
  columns?: Array<{fieldPath: string; description?: string | null; tags?: string[] | null}>
  /** Tags only: name and description. */
  tagProperties?: {name: string; description?: string | null}
  /** Users only: corpUserEditableInfo fields to set. */
  userProfile?: Record<string, unknown>
  /** Groups only: corpGroupEditableInfo fields to set. */
  groupProfile?: Record<string, unknown>
}

export interface UpdateItem {
  urn: string
  /** The entity type the caller expects the urn to have (registry name). */
  entityType: string
  update: EntityUpdate
}

/** Where each entity type keeps its editable description. */
export const EDITABLE_DESCRIPTION_ASPECT: Record<string, string> = {
  dataset: 'editableDatasetProperties',
  chart: 'editableChartProperties',
  dashboard: 'editableDashboardProperties',
  dataFlow: 'editableDataFlowProperties',
  dataJob: 'editableDataJobProperties',
  notebook: 'editableNotebookProperties',
}

const CONTACT_FIELDS = ['slack', 'email', 'phone']

/** A user editing nothing but their own profile: DataHub asks no privilege of them (CorpUserType.isAuthorizedToUpdate). */
function ownProfile(item: UpdateItem, actor: Actor): boolean {
  const {userProfile, ...rest} = item.update
  return item.entityType === 'corpuser' && item.urn === actor.urn && userProfile !== undefined && Object.values(rest).every((v) => v === undefined)
}

/** DataHub's privileges of an update: EDIT_ENTITY, or every section's own privilege. */
function updatePrivileges(u: EntityUpdate): Privilege[][] {
  const all = new Set<Privilege>()
  if (u.owners) all.add('EDIT_ENTITY_OWNERS')
  if (u.tags) all.add('EDIT_ENTITY_TAGS')
  if (u.description !== undefined || u.tagProperties) all.add('EDIT_ENTITY_DOCS')
  if (u.deprecation) all.add('EDIT_ENTITY_STATUS')
  if (u.links) all.add('EDIT_ENTITY_DOC_LINKS')
  if (u.columns) (all.add('EDIT_DATASET_COL_TAGS'), all.add('EDIT_DATASET_COL_DESCRIPTION'))
  // As DataHub's CorpUserType: contact details have their own privilege.
  if (u.userProfile) all.add(CONTACT_FIELDS.some((f) => u.userProfile![f] !== undefined && u.userProfile![f] !== null) ? 'EDIT_CONTACT_INFO' : 'EDIT_USER_PROFILE')
  // As the mutation's row of the authorization table: a group's profile is its documentation.
  if (u.groupProfile) all.add('EDIT_ENTITY_DOCS')
  return all.size > 0 ? [['EDIT_ENTITY'], [...all]] : [['EDIT_ENTITY']]
}

function checkTagUrn(urn: string): void {
  if (typeOf(urn) !== 'tag') throw new BadRequestError(`Failed to validate label with urn ${urn}. Urn type does not match entity type tag..`)
}

async function checkItem(tx: EditTx, item: UpdateItem): Promise<void> {
  const {urn, entityType, update: u} = item
  if (validateUrn(urn).spec.name !== entityType) throw new BadRequestError(`Failed to update ${urn}. Expected a ${entityType} urn.`)
  if (!(await tx.exists(urn))) throw new NotFoundError(`Failed to update ${urn}. Entity does not exist.`)
  for (const o of u.owners ?? []) {
    const t = typeOf(o.owner)
    if (t !== 'corpuser' && t !== 'corpGroup') throw new BadRequestError(`Failed to update ${urn}. Owner ${o.owner} is not a corp user or corp group urn.`)
    if (!resolveOwnershipType(o)) throw new BadRequestError(`Failed to update ${urn}. Owner ${o.owner}: expected either type or ownershipTypeUrn to be specified.`)
  }
  for (const t of u.tags ?? []) checkTagUrn(t)
  if (u.description !== undefined && !EDITABLE_DESCRIPTION_ASPECT[entityType]) {
    throw new BadRequestError(`Failed to update ${urn}. Entities of type ${entityType} have no editable description.`)
  }
  for (const c of u.columns ?? []) {
    await checkSubResource(tx, urn, c.fieldPath)
    for (const t of c.tags ?? []) checkTagUrn(t)
  }
}

async function applyItem(tx: EditTx, item: UpdateItem): Promise<void> {
  const {urn, entityType, update: u} = item
  const stamp = tx.stamp
  if (u.owners) {
    const owners: StoredOwner[] = u.owners.map((o) => {
      const t = resolveOwnershipType(o)!
      return {owner: o.owner, type: t.type, ...(t.typeUrn ? {typeUrn: t.typeUrn} : {}), source: {type: 'MANUAL'}}
    })
    tx.put(urn, 'ownership', {owners, lastModified: stamp})
  }
  if (u.tags) {
    const cur = (await tx.aspect<{tags?: Array<{tag: string}>}>(urn, 'globalTags'))?.tags ?? []
    // Keep what an entry already carries (context, attribution) when its tag stays.
    const tags = [...new Set(u.tags)].map((t) => cur.find((c) => c.tag === t) ?? {tag: t})
    tx.put(urn, 'globalTags', {tags})
  }
  if (u.description !== undefined) {
    const aspect = EDITABLE_DESCRIPTION_ASPECT[entityType]!
    const cur = (await tx.aspect<Record<string, unknown>>(urn, aspect)) ?? {}
    tx.put(urn, aspect, {...cur, description: u.description, created: cur.created ?? stamp, lastModified: stamp})
  }
  if (u.deprecation) {
    const cur = (await tx.aspect<Record<string, unknown>>(urn, 'deprecation')) ?? {}
    const next: Record<string, unknown> = {...cur, deprecated: u.deprecation.deprecated, note: u.deprecation.note, actor: stamp.actor}
    if (u.deprecation.decommissionTime === null || u.deprecation.decommissionTime === undefined) delete next.decommissionTime
    else next.decommissionTime = u.deprecation.decommissionTime
    tx.put(urn, 'deprecation', next)
  }
  if (u.links) {
    const elements = u.links.map((l) => ({url: l.url, description: l.description ?? '', createStamp: {time: l.createdAt ?? stamp.time, actor: l.author}}))
    tx.put(urn, 'institutionalMemory', {elements})
  }
  if (u.columns) {
    const esm = await editableSchema(tx, urn)
    for (const c of u.columns) {
      const f = fieldInfo(esm, c.fieldPath)
      if (c.description !== undefined && c.description !== null) f.description = c.description
      if (c.tags) f.globalTags = {tags: [...new Set(c.tags)].map((tag) => ({tag}))}
    }
    tx.put(urn, 'editableSchemaMetadata', esm)
  }
  if (u.tagProperties) {
    const cur = (await tx.aspect<Record<string, unknown>>(urn, 'tagProperties')) ?? {}
    const next: Record<string, unknown> = {...cur, name: u.tagProperties.name}
    if (u.tagProperties.description !== undefined && u.tagProperties.description !== null) next.description = u.tagProperties.description
    tx.put(urn, 'tagProperties', next)
  }
  if (u.userProfile) tx.put(urn, 'corpUserEditableInfo', {...(await tx.aspect(urn, 'corpUserEditableInfo')), ...defined(u.userProfile)})
  if (u.groupProfile) tx.put(urn, 'corpGroupEditableInfo', {...(await tx.aspect(urn, 'corpGroupEditableInfo')), ...defined(u.groupProfile)})
}

function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null))
}

/** Updates every item, all in one batch; any invalid item writes nothing and is named. */
export async function updateEntities(catalog: Catalog, actor: Actor, items: UpdateItem[]): Promise<EditSummary> {
  const {writes} = await runEdit(catalog, actor, {
    authz: items.filter((i) => !ownProfile(i, actor)).map((i) => ({resourceUrn: i.urn, privileges: updatePrivileges(i.update)})),
    locks: items.map((i) => i.urn),
    build: async (tx) => {
      for (const i of items) await checkItem(tx, i)
      for (const i of items) await applyItem(tx, i)
    },
  })
  return summarize(items.map((i) => i.urn), writes)
}

export function updateEntity(catalog: Catalog, actor: Actor, item: UpdateItem): Promise<EditSummary> {
  return updateEntities(catalog, actor, [item])
}
