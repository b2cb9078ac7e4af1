/**
 * Group membership as DataHub's GroupService keeps it: on each user, in `groupMembership` (the
 * group urns the user belongs to). Removing also drops the user from the group's deprecated
 * `corpGroupInfo.members`, which the policy authorizer still honours.
 *
 * Who may: MANAGE_USERS_AND_GROUPS on the platform, or EDIT_GROUP_MEMBERS on the group — not
 * EDIT_ENTITY, which does not stand in for a privileged write (access/authorization-table.ts).
 */
import {BadRequestError, NotFoundError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import type {Actor, Catalog} from '../catalog.js'
import {type EditSummary, summarize, typeOf} from './common.js'
import {runEdit} from './engine.js'
import {MUTATIONS} from '../access/authorization-table.js'

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
    authz: [{resourceUrn: g, privileges: MUTATIONS.addGroupMembers!.privileges}],
    locks: [g, ...users],
    build: async (tx) => {
      if (!(await tx.exists(g))) throw new NotFoundError(`Failed to update members of ${g}. The group does not exist.`)
      for (const u of users) {
        if (mode === 'add' && !(await tx.exists(u))) throw new BadRequestError(`Failed to add ${u} to ${g}. The user does not exist.`)
        for (const [aspect, field] of mode === 'add' ? [['groupMembership', 'groups']] : [['groupMembership', 'groups'], ['nativeGroupMembership', 'nativeGroups']]) {
          const m = await tx.aspect<Obj>(u, aspect!)
          const groups: string[] = m?.[field!] ?? []
          if (mode === 'add' && !groups.includes(g)) tx.put(u, aspect!, {...m, [field!]: [...groups, g]})
          if (mode === 'remove' && groups.includes(g)) tx.put(u, aspect!, {...m, [field!]: groups.filter((x) => x !== g)})
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
