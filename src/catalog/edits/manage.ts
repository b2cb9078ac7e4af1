/**
 * Managing tags, domains, groups, names and links as DataHub's web app does: `createGroup`,
 * `deleteTag`, `deleteDomain`, `setTagColor`, `updateName`, `updateLink`. Each is checked
 * against the access policies with DataHub's privileges before anything is read or written.
 *
 * Deleting a tag or a domain removes the entity and then its references from other entities
 * (as DataHub's cleanup does, on the system's behalf once the actor was allowed to delete).
 */
import {BadRequestError, ConflictError, NotFoundError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import {type Actor, type Catalog, SYSTEM_ACTOR} from '../catalog.js'
import {deleteEntities, deleteReferences} from '../delete.js'
import {summarize, typeOf, type EditSummary} from './common.js'
import {runEdit} from './engine.js'
import {randomUUID} from 'node:crypto'

type Obj = Record<string, any>

function expectType(urn: string, type: string, op: string): void {
  validateUrn(urn)
  if (typeOf(urn) !== type) throw new BadRequestError(`${op}: ${urn} is not a ${type} urn`)
}

/** A new group (`corpGroupInfo`), by id or a fresh UUID; MANAGE_USERS_AND_GROUPS. */
export async function createGroup(catalog: Catalog, actor: Actor, input: {id?: string | null; name: string; description?: string | null}): Promise<string> {
  if (!input.name?.trim()) throw new BadRequestError('createGroup: name must not be empty')
  const urn = `urn:li:corpGroup:${input.id && input.id.length > 0 ? input.id : randomUUID()}`
  validateUrn(urn)
  await runEdit(catalog, actor, {
    authz: [{privileges: [['MANAGE_USERS_AND_GROUPS']]}],
    locks: [urn],
    build: async (tx) => {
      if (await tx.exists(urn)) throw new ConflictError('This Group already exists!')
      tx.put(urn, 'corpGroupInfo', {displayName: input.name, ...(input.description ? {description: input.description} : {}), admins: [], members: [], groups: [], created: tx.stamp})
    },
  })
  return urn
}

async function deleteWithReferences(catalog: Catalog, urn: string): Promise<void> {
  await deleteEntities(catalog, SYSTEM_ACTOR, {urns: [urn], soft: false})
  await deleteReferences(catalog, SYSTEM_ACTOR, {urn, dryRun: false})
}

/** Deletes a tag and removes it from every entity that carries it; MANAGE_TAGS or DELETE_ENTITY on the tag. */
export async function deleteTag(catalog: Catalog, actor: Actor, urn: string): Promise<void> {
  expectType(urn, 'tag', 'deleteTag')
  await catalog.authorize(actor, [{resourceUrn: urn, privileges: [['MANAGE_TAGS'], ['DELETE_ENTITY']]}])
  if (!(await catalog.exists(urn, {includeSoftDeleted: true}))) throw new NotFoundError(`Tag ${urn} does not exist`)
  await deleteWithReferences(catalog, urn)
}

/** Deletes a domain that has no child domains, and unsets it on its entities; MANAGE_DOMAINS or DELETE_ENTITY. */
export async function deleteDomain(catalog: Catalog, actor: Actor, urn: string): Promise<void> {
  expectType(urn, 'domain', 'deleteDomain')
  await catalog.authorize(actor, [{resourceUrn: urn, privileges: [['MANAGE_DOMAINS'], ['DELETE_ENTITY']]}])
  if (!(await catalog.exists(urn, {includeSoftDeleted: true}))) throw new NotFoundError(`Domain ${urn} does not exist`)
  const children = (await catalog.rawEntitiesOfType('domain', ['domainProperties'])).filter((e) => (e.aspects.domainProperties?.value as Obj | undefined)?.parentDomain === urn)
  if (children.length > 0) throw new BadRequestError(`Cannot delete domain ${urn} which has child domains`)
  await deleteWithReferences(catalog, urn)
}

/** Sets a tag's colour (`#rrggbb`); MANAGE_TAGS or EDIT_ENTITY on the tag. */
export async function setTagColor(catalog: Catalog, actor: Actor, urn: string, colorHex: string): Promise<EditSummary> {
  expectType(urn, 'tag', 'setTagColor')
  if (!/^#[0-9a-fA-F]{6}$/.test(colorHex)) throw new BadRequestError(`setTagColor: colorHex must look like #1a2b3c, got '${colorHex}'`)
  const {writes} = await runEdit(catalog, actor, {
    authz: [{resourceUrn: urn, privileges: [['MANAGE_TAGS'], ['EDIT_ENTITY']]}],
    locks: [urn],
    build: async (tx) => {
      const props = await tx.aspect<Obj>(urn, 'tagProperties')
      if (!props) throw new NotFoundError(`Failed to set Tag ${urn} color. Tag does not exist.`)
      tx.put(urn, 'tagProperties', {...props, colorHex})
    },
  })
  return summarize([urn], writes)
}

/** Where each type keeps its name, and who may change it (DataHub's `updateName`). */
const NAMES: Record<string, {aspect: string; field: string; privileges: string[][]}> = {
  glossaryTerm: {aspect: 'glossaryTermInfo', field: 'name', privileges: [['MANAGE_GLOSSARIES'], ['EDIT_ENTITY']]},
  glossaryNode: {aspect: 'glossaryNodeInfo', field: 'name', privileges: [['MANAGE_GLOSSARIES'], ['EDIT_ENTITY']]},
  domain: {aspect: 'domainProperties', field: 'name', privileges: [['MANAGE_DOMAINS'], ['EDIT_ENTITY']]},
  corpGroup: {aspect: 'corpGroupInfo', field: 'displayName', privileges: [['MANAGE_USERS_AND_GROUPS'], ['EDIT_ENTITY']]},
  tag: {aspect: 'tagProperties', field: 'name', privileges: [['MANAGE_TAGS'], ['EDIT_ENTITY']]},
}

export async function updateName(catalog: Catalog, actor: Actor, input: {urn: string; name: string}): Promise<EditSummary> {
  validateUrn(input.urn)
  const type = typeOf(input.urn)!
  const where = NAMES[type]
  if (!where) throw new BadRequestError(`updateName: entities of type ${type} have no name to update (supported: ${Object.keys(NAMES).join(', ')})`)
  if (!input.name?.trim()) throw new BadRequestError('updateName: name must not be empty')
  const {writes} = await runEdit(catalog, actor, {
    authz: [{resourceUrn: input.urn, privileges: where.privileges}],
    locks: [input.urn],
    build: async (tx) => {
      const value = await tx.aspect<Obj>(input.urn, where.aspect)
      if (!value) throw new NotFoundError(`Failed to update name: ${input.urn} does not exist`)
      tx.put(input.urn, where.aspect, {...value, [where.field]: input.name})
    },
  })
  return summarize([input.urn], writes)
}

/** Replaces one link (by its current url and label) with another; EDIT_ENTITY_DOC_LINKS or EDIT_ENTITY. */
export async function updateLink(catalog: Catalog, actor: Actor, input: {resourceUrn: string; currentUrl: string; currentLabel: string; linkUrl: string; label: string; settings?: {showInAssetPreview?: boolean | null} | null}): Promise<EditSummary> {
  const u = input.resourceUrn
  validateUrn(u)
  try {
    new URL(input.linkUrl)
  } catch {
    throw new BadRequestError(`Failed to update link of ${u}: '${input.linkUrl}' is not an url`)
  }
  const {writes} = await runEdit(catalog, actor, {
    authz: [{resourceUrn: u, privileges: [['EDIT_ENTITY'], ['EDIT_ENTITY_DOC_LINKS']]}],
    locks: [u],
    build: async (tx) => {
      const mem = (await tx.aspect<Obj>(u, 'institutionalMemory')) ?? {}
      const elements: Obj[] = mem.elements ?? []
      const i = elements.findIndex((e) => e.url === input.currentUrl && e.description === input.currentLabel)
      if (i < 0) throw new NotFoundError(`Failed to update link of ${u}: it has no link ${input.currentUrl} labelled "${input.currentLabel}"`)
      if (elements.some((e, k) => k !== i && e.url === input.linkUrl && e.description === input.label)) throw new ConflictError(`Failed to update link of ${u}: ${input.linkUrl} labelled '${input.label}' is there already`)
      const next = [...elements]
      next[i] = {...elements[i], url: input.linkUrl, description: input.label, updateStamp: tx.stamp, ...(input.settings ? {settings: {showInAssetPreview: input.settings.showInAssetPreview === true}} : {})}
      tx.put(u, 'institutionalMemory', {...mem, elements: next})
    },
  })
  return summarize([u], writes)
}

/**
 * Moves a domain under another (`parentDomain`), or to the top when none is given; MANAGE_DOMAINS.
 * Refused: a parent that does not exist, a move into the domain itself or below it, and a name
 * already used under the new parent.
 */
export async function moveDomain(catalog: Catalog, actor: Actor, input: {resourceUrn: string; parentDomain?: string | null}): Promise<EditSummary> {
  const u = input.resourceUrn
  expectType(u, 'domain', 'moveDomain')
  const to = input.parentDomain ?? undefined
  if (to !== undefined) expectType(to, 'domain', 'moveDomain')
  const {writes} = await runEdit(catalog, actor, {
    authz: [{privileges: [['MANAGE_DOMAINS']]}],
    locks: [u],
    build: async (tx) => {
      const props = await tx.aspect<Obj>(u, 'domainProperties')
      if (!props) throw new NotFoundError(`Failed to move domain ${u}. It does not exist.`)
      if (to !== undefined) {
        if (!(await tx.aspect(to, 'domainProperties'))) throw new BadRequestError(`Failed to move domain ${u}. Parent domain ${to} does not exist.`)
        for (let cur: string | undefined = to, hops = 0; cur && hops < 100; hops++) {
          if (cur === u) throw new BadRequestError(`Failed to move domain ${u}. ${to} is the domain itself or one of its children.`)
          cur = (await tx.aspect<Obj>(cur, 'domainProperties'))?.parentDomain
        }
      }
      for (const e of await catalog.rawEntitiesOfType('domain', ['domainProperties'])) {
        const p = e.aspects.domainProperties?.value as Obj | undefined
        if (e.urn !== u && p?.parentDomain === to && typeof p?.name === 'string' && p.name.toLowerCase() === String(props.name).toLowerCase()) {
          throw new ConflictError(`"${props.name}" already exists in this domain. Please pick a unique name.`)
        }
      }
      const {parentDomain: _old, ...rest} = props
      tx.put(u, 'domainProperties', to ? {...rest, parentDomain: to} : rest)
    },
  })
  return summarize([u], writes)
}
