/**
 * Creating tags, domains, glossary terms and glossary nodes. The id is the caller's or a fresh
 * UUID; an id already taken is refused, as is a name already used by a sibling (same parent).
 * The creator becomes the new entity's technical owner, as in DataHub.
 */
import {randomUUID} from 'node:crypto'
import {BadRequestError, ConflictError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import {type Actor, type Catalog} from '../catalog.js'
import type {AuthzRequest} from '../authorize.js'
import {systemOwnershipTypeUrn, typeOf} from './common.js'
import {type EditTx, runEdit} from './engine.js'
import {checkOwner, type OwnerSpec, resolveOwnershipType} from './owners.js'

export interface CreateInput {
  id?: string | null
  name: string
  description?: string | null
}

function newUrn(entityType: string, id: string | null | undefined): string {
  const urn = `urn:li:${entityType}:${id && id.length > 0 ? id : randomUUID()}`
  validateUrn(urn)
  return urn
}

function creatorAsOwner(tx: EditTx, urn: string): void {
  const typeUrn = systemOwnershipTypeUrn('TECHNICAL_OWNER')
  tx.put(urn, 'ownership', {owners: [{owner: tx.stamp.actor, type: 'TECHNICAL_OWNER', typeUrn, source: {type: 'MANUAL'}}], lastModified: tx.stamp})
}

/** Names of existing entities of a type under the same parent (all when no parent field), compared as DataHub does: case and all. */
async function siblingNames(catalog: Catalog, entityType: string, infoAspect: string, parentField: string, parent: string | undefined): Promise<Set<string>> {
  const names = new Set<string>()
  for (const e of await catalog.rawEntitiesOfType(entityType, [infoAspect])) {
    const info = e.aspects[infoAspect]?.value as Record<string, unknown> | undefined
    if (info && info[parentField] === parent && typeof info.name === 'string') names.add(info.name)
  }
  return names
}

async function runCreate(catalog: Catalog, actor: Actor, urn: string, authz: AuthzRequest[], build: (tx: EditTx) => Promise<void>): Promise<string> {
  await runEdit(catalog, actor, {authz, locks: [urn], build})
  return urn
}

export async function createTag(catalog: Catalog, actor: Actor, input: CreateInput): Promise<string> {
  const urn = newUrn('tag', input.id)
  return runCreate(catalog, actor, urn, [{privileges: [['CREATE_TAGS'], ['MANAGE_TAGS']]}], async (tx) => {
    if (await tx.exists(urn)) throw new BadRequestError('This Tag already exists!')
    tx.put(urn, 'tagProperties', {name: input.name, ...(input.description ? {description: input.description} : {})})
    creatorAsOwner(tx, urn)
  })
}

export async function createDomain(catalog: Catalog, actor: Actor, input: CreateInput & {parentDomain?: string | null; owners?: OwnerSpec[] | null}): Promise<string> {
  const urn = newUrn('domain', input.id)
  const parent = input.parentDomain ?? undefined
  return runCreate(catalog, actor, urn, [{privileges: [['CREATE_DOMAINS'], ['MANAGE_DOMAINS']]}], async (tx) => {
    if (await tx.exists(urn)) throw new BadRequestError('This Domain already exists!')
    if (parent !== undefined && (typeOf(parent) !== 'domain' || !(await tx.exists(parent)))) throw new BadRequestError('Parent Domain does not exist!')
    if ((await siblingNames(catalog, 'domain', 'domainProperties', 'parentDomain', parent)).has(input.name)) {
      throw new ConflictError(`"${input.name}" already exists in this domain. Please pick a unique name.`)
    }
    tx.put(urn, 'domainProperties', {
      name: input.name,
      ...(input.description ? {description: input.description} : {}),
      created: tx.stamp,
      ...(parent ? {parentDomain: parent} : {}),
    })
    // DataHub's web app always sends owners (the creator, as business owner, by default); the
    // creator owns a domain made without any.
    const owners = input.owners ?? []
    if (owners.length === 0) creatorAsOwner(tx, urn)
    else {
      for (const o of owners) await checkOwner(tx, o, urn, undefined)
      tx.put(urn, 'ownership', {
        owners: owners.map((o) => {
          const t = resolveOwnershipType(o)!
          return {owner: o.ownerUrn, type: t.type, ...(t.typeUrn ? {typeUrn: t.typeUrn} : {}), source: {type: 'MANUAL'}}
        }),
        lastModified: tx.stamp,
      })
    }
  })
}

/** Creates a glossary term (`kind` term) or node under an optional parent node. */
export async function createGlossaryEntity(catalog: Catalog, actor: Actor, kind: 'term' | 'node', input: CreateInput & {parentNode?: string | null}): Promise<string> {
  const entityType = kind === 'term' ? 'glossaryTerm' : 'glossaryNode'
  const infoAspect = kind === 'term' ? 'glossaryTermInfo' : 'glossaryNodeInfo'
  const noun = kind === 'term' ? 'Glossary Term' : 'Glossary Node'
  const urn = newUrn(entityType, input.id)
  const parent = input.parentNode ?? undefined
  const authz: AuthzRequest[] = parent
    ? [{resourceUrn: parent, privileges: [['MANAGE_GLOSSARIES'], ['MANAGE_GLOSSARY_CHILDREN'], ['MANAGE_ALL_GLOSSARY_CHILDREN']]}]
    : [{privileges: [['MANAGE_GLOSSARIES']]}]
  return runCreate(catalog, actor, urn, authz, async (tx) => {
    if (await tx.exists(urn)) throw new BadRequestError(`This ${noun} already exists!`)
    if (parent !== undefined && (typeOf(parent) !== 'glossaryNode' || !(await tx.exists(parent)))) {
      throw new BadRequestError(`Failed to create ${noun}. Parent node ${parent} does not exist.`)
    }
    if ((await siblingNames(catalog, entityType, infoAspect, 'parentNode', parent)).has(input.name)) {
      throw new BadRequestError(`${noun} with this name already exists at this level of the Business Glossary`)
    }
    tx.put(urn, infoAspect, {
      name: input.name,
      definition: input.description ?? '',
      ...(kind === 'term' ? {termSource: 'INTERNAL'} : {}),
      ...(parent ? {parentNode: parent} : {}),
    })
    creatorAsOwner(tx, urn)
  })
}
