/**
 * Owners of entities (DataHub's OwnerUtils): adding replaces an existing entry of the same owner
 * and ownership type, removing drops the owner's entries, and both stamp `lastModified`.
 *
 * Glossary:
 * - owner entity type: CORP_USER or CORP_GROUP; the owner urn must be of that kind and exist.
 * - ownership type: the deprecated enum (`TECHNICAL_OWNER`, …) or an ownership-type urn. Any
 *   urn, custom or system (`urn:li:ownershipType:__system__technical_owner`), is stored as
 *   type CUSTOM plus `typeUrn`, as DataHub does.
 * - wording: single-resource mutations (addOwner, addOwners) and batch ones word their errors
 *   differently in DataHub; callers say which they are.
 */
import {BadRequestError} from '../../errors.js'
import type {Actor, Catalog} from '../catalog.js'
import {
  accepts, type EditSummary, type ResourceRef, summarize, SYSTEM_OWNERSHIP_TYPE_PREFIX, systemOwnershipTypeUrn, typeOf,
} from './common.js'
import {type EditTx, runEdit, type Stamp} from './engine.js'

export type OwnerEntityType = 'CORP_USER' | 'CORP_GROUP'

export interface OwnerSpec {
  ownerUrn: string
  ownerEntityType: OwnerEntityType
  /** OwnershipType enum value (deprecated in favour of ownershipTypeUrn). */
  type?: string | null
  ownershipTypeUrn?: string | null
}

export interface StoredOwner {
  owner: string
  type: string
  typeUrn?: string
  source?: {type: string; url?: string}
  [k: string]: unknown
}

export interface OwnershipValue {
  owners: StoredOwner[]
  lastModified?: Stamp
  [k: string]: unknown
}

const OWNER_ENTITY = {CORP_USER: {type: 'corpuser', noun: 'corp user'}, CORP_GROUP: {type: 'corpGroup', noun: 'corp group'}} as const

export const UNAUTHORIZED_OWNERS = 'Unauthorized to update owners. Please contact your DataHub administrator.'

function ownersAuthz(resources: ResourceRef[]) {
  return resources.map((r) => ({resourceUrn: r.resourceUrn, privileges: [['EDIT_ENTITY'], ['EDIT_ENTITY_OWNERS']]}))
}

/** The enum value and type urn an owner entry is stored with. */
export function resolveOwnershipType(spec: {type?: string | null; ownershipTypeUrn?: string | null}): {type: string; typeUrn?: string} | undefined {
  const typeUrn = spec.ownershipTypeUrn ?? undefined
  // DataHub stores CUSTOM beside any type urn, a system one included: the urn is what counts,
  // and the deprecated enum only says "see typeUrn".
  if (typeUrn) return {type: 'CUSTOM', typeUrn}
  if (spec.type) return {type: spec.type}
  return undefined
}

/** The ownership-type urn an entry stands for, whether stored with a typeUrn or an enum only. */
export function effectiveTypeUrn(o: {type?: string; typeUrn?: string}): string {
  return o.typeUrn ?? systemOwnershipTypeUrn(o.type ?? 'NONE')
}

export async function checkOwner(tx: EditTx, o: OwnerSpec, single: string | undefined, batchTypeUrn: string | null | undefined): Promise<void> {
  const want = OWNER_ENTITY[o.ownerEntityType]
  if (typeOf(o.ownerUrn) !== want.type) {
    throw new BadRequestError(
      single
        ? `Failed to change ownership for resource ${single}. Expected a ${want.noun} urn.`
        : `Failed to change ownership for resource(s). Expected a ${want.noun} urn, found ${o.ownerUrn}.`,
    )
  }
  const typeUrn = o.ownershipTypeUrn ?? batchTypeUrn
  if (!resolveOwnershipType({type: o.type, ownershipTypeUrn: typeUrn})) {
    throw new BadRequestError('Failed to change ownership for resource(s). Expected either type or ownershipTypeUrn to be specified.')
  }
  // System ownership types are built in; custom ones must have been created.
  if (typeUrn && !typeUrn.startsWith(SYSTEM_OWNERSHIP_TYPE_PREFIX) && (typeOf(typeUrn) !== 'ownershipType' || !(await tx.exists(typeUrn)))) {
    throw new BadRequestError(`Failed to change ownership for resource(s). Custom Ownership type with urn ${typeUrn} does not exist.`)
  }
  if (!(await tx.exists(o.ownerUrn))) {
    throw new BadRequestError(
      single
        ? `Failed to change ownership for resource ${single}. Owner ${o.ownerUrn} does not exist.`
        : `Failed to change ownership for resource(s). Owner with urn ${o.ownerUrn} does not exist.`,
    )
  }
}

async function checkOwnedResource(tx: EditTx, urn: string): Promise<void> {
  if (!(await tx.exists(urn))) throw new BadRequestError(`Failed to change ownership for resource ${urn}. Resource does not exist.`)
  const type = typeOf(urn)!
  if (!accepts(type, 'ownership')) throw new BadRequestError(`Failed to change ownership for resource ${urn}. Entities of type ${type} have no owners.`)
}

/** Adds owners to every resource. `single` selects DataHub's single-resource error wording. */
export async function addOwners(
  catalog: Catalog,
  actor: Actor,
  owners: OwnerSpec[],
  resources: ResourceRef[],
  opts: {ownershipTypeUrn?: string | null; single?: boolean} = {},
): Promise<EditSummary> {
  const single = opts.single ? resources[0]?.resourceUrn : undefined
  const {writes} = await runEdit(catalog, actor, {
    authz: ownersAuthz(resources),
    unauthorizedMessage: UNAUTHORIZED_OWNERS,
    locks: resources.map((r) => r.resourceUrn),
    build: async (tx) => {
      for (const o of owners) await checkOwner(tx, o, single, opts.ownershipTypeUrn)
      for (const r of resources) await checkOwnedResource(tx, r.resourceUrn)
      for (const r of resources) {
        const own = (await tx.aspect<OwnershipValue>(r.resourceUrn, 'ownership')) ?? {owners: []}
        let list = own.owners ?? []
        for (const o of owners) {
          const t = resolveOwnershipType({type: o.type, ownershipTypeUrn: o.ownershipTypeUrn ?? opts.ownershipTypeUrn})!
          const entry: StoredOwner = {owner: o.ownerUrn, type: t.type, ...(t.typeUrn ? {typeUrn: t.typeUrn} : {}), source: {type: 'MANUAL'}}
          const eff = effectiveTypeUrn(entry)
          list = list.filter((x) => !(x.owner === o.ownerUrn && effectiveTypeUrn(x) === eff))
          list.push(entry)
        }
        tx.put(r.resourceUrn, 'ownership', {...own, owners: list, lastModified: tx.stamp})
      }
    },
  })
  return summarize(resources.map((r) => r.resourceUrn), writes)
}

/**
 * Removes owners from every resource: with an ownership type only the entries of that type,
 * without one every entry of the owner.
 */
export async function removeOwners(
  catalog: Catalog,
  actor: Actor,
  ownerUrns: string[],
  resources: ResourceRef[],
  opts: {ownershipTypeUrn?: string | null} = {},
): Promise<EditSummary> {
  const typeUrn = opts.ownershipTypeUrn ?? undefined
  const {writes} = await runEdit(catalog, actor, {
    authz: ownersAuthz(resources),
    unauthorizedMessage: UNAUTHORIZED_OWNERS,
    locks: resources.map((r) => r.resourceUrn),
    build: async (tx) => {
      for (const r of resources) await checkOwnedResource(tx, r.resourceUrn)
      for (const r of resources) {
        const own = await tx.aspect<OwnershipValue>(r.resourceUrn, 'ownership')
        if (!own) continue
        const owners = (own.owners ?? []).filter((x) => !(ownerUrns.includes(x.owner) && (typeUrn === undefined || effectiveTypeUrn(x) === typeUrn)))
        tx.put(r.resourceUrn, 'ownership', {...own, owners, lastModified: tx.stamp})
      }
    },
  })
  return summarize(resources.map((r) => r.resourceUrn), writes)
}
