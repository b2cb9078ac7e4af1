/**
 * Resolvers of auth.graphql: invite and reset tokens of native users; the service checks access.
 */
import {NativeUsers} from '../../catalog/access/native-users.js'
import type {GqlContext} from './context.js'
import type {Resolver} from './entities.js'

const users = (ctx: GqlContext) => new NativeUsers(ctx.catalog)

export const AUTH_QUERY_FIELDS: Record<string, Resolver> = {
  getInviteToken: async (_s, {input}: {input: {roleUrn?: string | null}}, ctx: GqlContext) => ({inviteToken: await users(ctx).inviteToken(ctx.actor, input.roleUrn ?? undefined, true)}),
}

export const AUTH_MUTATION_FIELDS: Record<string, Resolver> = {
  createInviteToken: async (_s, {input}: {input: {roleUrn?: string | null}}, ctx: GqlContext) => ({inviteToken: await users(ctx).inviteToken(ctx.actor, input.roleUrn ?? undefined, false)}),
  acceptRole: async (_s, {input}: {input: {inviteToken: string}}, ctx: GqlContext) => users(ctx).acceptRole(ctx.actor, input.inviteToken),
  createNativeUserResetToken: async (_s, {input}: {input: {userUrn: string}}, ctx: GqlContext) => ({resetToken: await users(ctx).createResetToken(ctx.actor, input.userUrn)}),
}
