/** Resolvers of manage.graphql, each one edit service of catalog/edits/manage.ts. */
import * as E from '../../catalog/edits/index.js'
import type {Resolver} from './entities.js'
import type {GqlContext} from './context.js'

type Obj = Record<string, any>

/** Drops what an edit changed from the request's cache (a later field reads it anew); answers true. */
function forgetting(ctx: GqlContext, summary: E.EditSummary): boolean {
  for (const u of summary.urns) ctx.loader.forget(u)
  return true
}

export const MANAGE_MUTATION_FIELDS: Record<string, Resolver> = {
  createGroup: (_r, {input}: {input: Obj}, ctx) => E.createGroup(ctx.catalog, ctx.actor, {id: input.id, name: input.name, description: input.description}),
  deleteTag: async (_r, {urn}: {urn: string}, ctx) => {
    await E.deleteTag(ctx.catalog, ctx.actor, urn)
    return true
  },
  deleteDomain: async (_r, {urn}: {urn: string}, ctx) => {
    await E.deleteDomain(ctx.catalog, ctx.actor, urn)
    return true
  },
  setTagColor: async (_r, {urn, colorHex}: {urn: string; colorHex: string}, ctx) => {
    await E.setTagColor(ctx.catalog, ctx.actor, urn, colorHex)
    ctx.loader.forget(urn)
    return true
  },
  updateName: async (_r, {input}: {input: {urn: string; name: string}}, ctx) => {
    await E.updateName(ctx.catalog, ctx.actor, input)
    ctx.loader.forget(input.urn)
    return true
  },
  moveDomain: async (_r, {input}: {input: Obj}, ctx) => forgetting(ctx, await E.moveDomain(ctx.catalog, ctx.actor, {resourceUrn: input.resourceUrn, parentDomain: input.parentDomain})),
  updateParentNode: async (_r, {input}: {input: Obj}, ctx) => forgetting(ctx, await E.updateParentNode(ctx.catalog, ctx.actor, {resourceUrn: input.resourceUrn, parentNode: input.parentNode})),
  deleteGlossaryEntity: async (_r, {urn}: {urn: string}, ctx) => {
    await E.deleteGlossaryEntity(ctx.catalog, ctx.actor, urn)
    return true
  },
  addRelatedTerms: async (_r, {input}: {input: Obj}, ctx) => forgetting(ctx, await E.updateRelatedTerms(ctx.catalog, ctx.actor, input as never, 'add')),
  removeRelatedTerms: async (_r, {input}: {input: Obj}, ctx) => forgetting(ctx, await E.updateRelatedTerms(ctx.catalog, ctx.actor, input as never, 'remove')),
  addGroupMembers: async (_r, {input}: {input: Obj}, ctx) => forgetting(ctx, await E.updateGroupMembers(ctx.catalog, ctx.actor, input as never, 'add')),
  removeGroupMembers: async (_r, {input}: {input: Obj}, ctx) => forgetting(ctx, await E.updateGroupMembers(ctx.catalog, ctx.actor, input as never, 'remove')),
  // DataHub answers with the urn of the user.
  updateUserStatus: async (_r, {urn, status}: {urn: string; status: string}, ctx) => (forgetting(ctx, await E.updateUserStatus(ctx.catalog, ctx.actor, urn, status)), urn),
  removeUser: async (_r, {urn}: {urn: string}, ctx) => (await E.removeIdentity(ctx.catalog, ctx.actor, urn, 'user'), true),
  removeGroup: async (_r, {urn}: {urn: string}, ctx) => (await E.removeIdentity(ctx.catalog, ctx.actor, urn, 'group'), true),
  updateLink: async (_r, {input}: {input: Obj}, ctx) => {
    await E.updateLink(ctx.catalog, ctx.actor, {resourceUrn: input.resourceUrn, currentUrl: input.currentUrl, currentLabel: input.currentLabel, linkUrl: input.linkUrl, label: input.label, settings: input.settings})
    ctx.loader.forget(input.resourceUrn)
    return true
  },
  batchUpdateStepStates: async (_r, {input}: {input: {states: Array<{id: string; properties: Array<{key: string; value?: string | null} | null>}>}}, ctx) => {
    const results = await E.updateStepStates(ctx.catalog, ctx.actor, input.states)
    for (const s of input.states) ctx.loader.forget(`urn:li:dataHubStepState:${s.id}`)
    return {results}
  },
  upsertLink: async (_r, {input}: {input: Obj}, ctx) => {
    await E.addLink(ctx.catalog, ctx.actor, {resourceUrn: input.resourceUrn, linkUrl: input.linkUrl, label: input.label, settings: input.settings}, {upsert: true})
    ctx.loader.forget(input.resourceUrn)
    return true
  },
}

export const MANAGE_QUERY_FIELDS: Record<string, Resolver> = {
  batchGetStepStates: async (_r, {input}: {input: {ids: string[]}}, ctx) => ({
    results: (await E.readStepStates(ctx.catalog, input.ids)).map((s) => ({id: s.id, properties: Object.entries(s.properties).map(([key, value]) => ({key, value}))})),
  }),
}
