/** Resolvers of manage.graphql, each one edit service of catalog/edits/manage.ts. */
import * as E from '../../catalog/edits/index.js'
import type {Resolver} from './entities.js'

type Obj = Record<string, any>

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
  updateLink: async (_r, {input}: {input: Obj}, ctx) => {
    await E.updateLink(ctx.catalog, ctx.actor, {resourceUrn: input.resourceUrn, currentUrl: input.currentUrl, currentLabel: input.currentLabel, linkUrl: input.linkUrl, label: input.label})
    ctx.loader.forget(input.resourceUrn)
    return true
  },
}
