/**
 * Group membership as DataHub's GroupService keeps it: on each user, in `groupMembership` (the
 * group urns the user belongs to). Removing also drops the user from the group's deprecated
 * `corpGroupInfo.members`, which the policy authorizer still honours.
 *
 * Who may: MANAGE_USERS_AND_GROUPS on the platform, or EDIT_GROUP_MEMBERS / EDIT_ENTITY on the group.
 */
import {BadRequestError, NotFoundError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import type {Actor, Catalog} from '../catalog.js'
import {type EditSummary, summarize, typeOf} from './common.js'
import {runEdit} from './engine.js'

type Obj = Record<string, any>

export async function updateGroupMembers(catalog: Catalog, actor: Actor, input: {groupUrn: string; userUrns: string[]}, mode: 'add' | 'remove'): Promise<EditSummary> {
  const g = input.groupUrn
  validateUrn(g)
  if (typeOf(g) !== 'corpGroup') throw new BadRequestError(`Failed to update members of ${g}. It is not a group urn.`)
  for (const u of input.userUrns) {
    validateUrn(u)
    if (typeOf(u) !== 'corpuser') throw new BadRequestError(`Failed to update members of ${g}. ${u} is not a user urn.`)
  }
  const users = [...new Set(input.userUrns)]
  const {writes} = await runEdit(catalog, actor, {
    authz: [{resourceUrn: g, privileges: [['MANAGE_USERS_AND_GROUPS'], ['EDIT_GROUP_MEMBERS'], ['EDIT_ENTITY']]}],
    locks: [g, ...users],
    build: async (tx) => {
      if (!(await tx.exists(g))) throw new NotFoundError(`Failed to update members of ${g}. The group does not exist.`)
      for (const u of users) {
        if (mode === 'add' && !(await tx.exists(u))) throw new BadRequestError(`Failed to add ${u} to ${g}. The user does not exist.`)
        for (const aspect of mode === 'add' ? ['groupMembership'] : ['groupMembership', 'nativeGroupMembership']) {
          const m = await tx.aspect<Obj>(u, aspect)
          const groups: string[] = m?.groups ?? []
          if (mode === 'add' && !groups.includes(g)) tx.put(u, aspect, {...m, groups: [...groups, g]})
          if (mode === 'remove' && groups.includes(g)) tx.put(u, aspect, {...m, groups: groups.filter((x) => x !== g)})
        }
      }
      if (mode === 'remove') {
        const info = await tx.aspect<Obj>(g, 'corpGroupInfo')
        if (info?.members?.some((m: string) => users.includes(m))) tx.put(g, 'corpGroupInfo', {...info, members: info.members.filter((m: string) => !users.includes(m))})
      }
    },
  })
  return summarize([g], writes)
}
