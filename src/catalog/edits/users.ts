/**
 * Managing users and groups as DataHub's users page does: suspending or re-activating a user
 * (`corpUserStatus`), and removing a user or a group outright.
 *
 * Who may: MANAGE_USERS_AND_GROUPS on the platform, for all of them (DataHub's
 * AuthorizationUtils.canManageUsersAndGroups).
 *
 * A suspended user keeps their tokens, but the token service refuses them at the next request
 * (see `TokenService.verify`), as DataHub refuses an actor that is not active.
 */
import {BadRequestError, NotFoundError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import {type Actor, type Catalog, SYSTEM_ACTOR} from '../catalog.js'
import {deleteEntities, deleteReferences} from '../delete.js'
import {type EditSummary, summarize, typeOf} from './common.js'
import {runEdit} from './engine.js'

/** The values of DataHub's GraphQL `CorpUserStatus`, written as `corpUserStatus.status`. */
export const USER_STATUSES = ['ACTIVE', 'SUSPENDED'] as const
export type UserStatus = (typeof USER_STATUSES)[number]

const MANAGE = {privileges: [['MANAGE_USERS_AND_GROUPS']]}

function expectType(urn: string, type: 'corpuser' | 'corpGroup', what: string, op: string): void {
  validateUrn(urn)
  if (typeOf(urn) !== type) throw new BadRequestError(`Failed to ${op} ${urn}. It is not a ${what} urn.`)
}

/** Sets a user's `corpUserStatus` to `{status, lastModified}`; the user must exist. */
export async function updateUserStatus(catalog: Catalog, actor: Actor, urn: string, status: string): Promise<EditSummary> {
  expectType(urn, 'corpuser', 'user', 'update the status of')
  // GraphQL's enum check covers the API; this one covers other callers.
  if (!(USER_STATUSES as readonly string[]).includes(status)) throw new BadRequestError(`Failed to update the status of ${urn}. Status must be one of ${USER_STATUSES.join(', ')}, not ${status}.`)
  // The root user is also the catalog's own actor (first-start and recovery tokens act for it):
  // suspending it would lock every administrator out.
  if (status === 'SUSPENDED' && urn === SYSTEM_ACTOR.urn) throw new BadRequestError(`Failed to update the status of ${urn}. The root user cannot be suspended.`)
  const {writes} = await runEdit(catalog, actor, {
    authz: [MANAGE],
    locks: [urn],
    build: async (tx) => {
      // DataHub would create a bare user here; a mistyped urn should not become one.
      if (!(await tx.exists(urn))) throw new BadRequestError(`Failed to update the status of ${urn}. The user does not exist.`)
      tx.put(urn, 'corpUserStatus', {status, lastModified: tx.stamp})
    },
  })
  return summarize([urn], writes)
}

/**
 * Hard-deletes a user or a group, then removes the references to it — for a group, its place in
 * each member's `groupMembership` / `nativeGroupMembership`; for a user, e.g. ownerships and
 * group lists. As deleteTag: once the actor was allowed, the delete service runs on the
 * system's behalf.
 */
export async function removeIdentity(catalog: Catalog, actor: Actor, urn: string, kind: 'user' | 'group'): Promise<void> {
  expectType(urn, kind === 'user' ? 'corpuser' : 'corpGroup', kind, 'remove')
  // Deleting the root user would take with it the actor the catalog itself writes as.
  if (urn === SYSTEM_ACTOR.urn) throw new BadRequestError(`Failed to remove ${urn}. The root user cannot be removed.`)
  await catalog.authorize(actor, [MANAGE])
  if (!(await catalog.exists(urn, {includeSoftDeleted: true}))) throw new NotFoundError(`Failed to remove ${urn}. The ${kind} does not exist.`)
  await deleteEntities(catalog, SYSTEM_ACTOR, {urns: [urn], soft: false})
  await deleteReferences(catalog, SYSTEM_ACTOR, {urn, dryRun: false})
}
