/**
 * Mutation resolvers: each turns DataHub's input shape into a call of one edit service
 * (`catalog/edits`) with the request's actor, and answers `true` — or, for `update<Entity>`, the
 * entity re-read after the write.
 */
import {BadRequestError} from '../../errors.js'
import * as E from '../../catalog/edits/index.js'
import type {EntityUpdate} from '../../catalog/edits/index.js'
import {Ent, type GqlContext} from './context.js'
import type {Resolver} from './entities.js'

type Obj = Record<string, any>

const ref = (i: Obj): E.ResourceRef => ({resourceUrn: i.resourceUrn, subResourceType: i.subResourceType ?? null, subResource: i.subResource ?? null})
const refs = (l: Array<Obj | null>): E.ResourceRef[] => E.nonNullRefs(l as Array<E.ResourceRef | null>).map(ref)

function ownersUpdate(o: Obj | null | undefined): EntityUpdate['owners'] {
  return o ? o.owners.map((x: Obj) => ({owner: x.owner, type: x.type ?? null, ownershipTypeUrn: x.ownershipTypeUrn ?? null})) : undefined
}

function tagsUpdate(t: Obj | null | undefined): string[] | undefined {
  return t ? (t.tags ?? []).map((x: Obj) => x.tag.urn) : undefined
}

/** `tagUrn` or `tagUrns` (and the same for terms): DataHub's singular field or the spec's list. */
function labelUrns(input: Obj, kind: 'tag' | 'term', op: string): string[] {
  const one = input[`${kind}Urn`]
  const many = input[`${kind}Urns`]
  const urns = [...(typeof one === 'string' ? [one] : []), ...(Array.isArray(many) ? many : [])]
  if (urns.length === 0) throw new BadRequestError(`${op}: give ${kind}Urn or a non-empty ${kind}Urns`)
  return [...new Set(urns)]
}

/** Drops sections the input left out, so that only given sections are written. */
function sections(u: EntityUpdate): EntityUpdate {
  return Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined)) as EntityUpdate
}

function datasetUpdate(i: Obj): EntityUpdate {
  return sections({
    owners: ownersUpdate(i.ownership),
    tags: tagsUpdate(i.tags ?? i.globalTags),
    description: i.editableProperties?.description,
    deprecation: i.deprecation ?? undefined,
    links: i.institutionalMemory?.elements,
    columns: i.editableSchemaMetadata?.editableSchemaFieldInfo.map((f: Obj) => ({fieldPath: f.fieldPath, description: f.description ?? null, tags: f.globalTags ? tagsUpdate(f.globalTags) : null})),
  })
}

function assetUpdate(i: Obj): EntityUpdate {
  return sections({owners: ownersUpdate(i.ownership), tags: tagsUpdate(i.tags ?? i.globalTags), description: i.editableProperties?.description})
}

async function reload(ctx: GqlContext, urn: string, entityType: string): Promise<Ent | null> {
  ctx.loader.forget(urn)
  const rec = await ctx.loader.load(urn)
  return rec ? new Ent(urn, entityType, rec) : null
}

/** update<Entity>(urn, input): writes, then returns the entity as it now is. */
function updater(entityType: string, toUpdate: (input: Obj, urn: string) => EntityUpdate): Resolver {
  return async (_r, {urn, input}: {urn: string; input: Obj}, ctx) => {
    await E.updateEntity(ctx.catalog, ctx.actor, {urn, entityType, update: toUpdate(input, urn)})
    return reload(ctx, urn, entityType)
  }
}

/** Runs an edit and answers DataHub's Boolean. */
const done =
  (f: (args: Obj, ctx: GqlContext) => Promise<unknown>): Resolver =>
  async (_r, args, ctx) => {
    await f(args, ctx)
    return true
  }

export const MUTATION_FIELDS: Record<string, Resolver> = {
  updateDataset: updater('dataset', datasetUpdate),
  updateDatasets: async (_r, {input}: {input: Obj[]}, ctx) => {
    await E.updateEntities(ctx.catalog, ctx.actor, input.map((i) => ({urn: i.urn, entityType: 'dataset', update: datasetUpdate(i.update)})))
    return Promise.all(input.map((i) => reload(ctx, i.urn, 'dataset')))
  },
  updateChart: updater('chart', assetUpdate),
  updateDashboard: updater('dashboard', assetUpdate),
  updateDataFlow: updater('dataFlow', assetUpdate),
  updateDataJob: updater('dataJob', assetUpdate),
  updateNotebook: updater('notebook', assetUpdate),
  updateTag: updater('tag', (i, urn) => {
    if (i.urn !== urn) throw new BadRequestError(`updateTag: input.urn ${i.urn} does not match urn ${urn}`)
    return sections({tagProperties: {name: i.name, description: i.description ?? null}, owners: ownersUpdate(i.ownership)})
  }),
  updateCorpUserProperties: updater('corpuser', (i) => ({userProfile: i})),
  updateCorpGroupProperties: updater('corpGroup', (i) => ({groupProfile: i})),

  addTag: done(({input}, c) => E.addLabels(c.catalog, c.actor, 'tag', labelUrns(input, 'tag', 'addTag'), [ref(input)])),
  addTags: done(({input}, c) => E.addLabels(c.catalog, c.actor, 'tag', input.tagUrns, [ref(input)])),
  batchAddTags: done(({input}, c) => E.addLabels(c.catalog, c.actor, 'tag', input.tagUrns, refs(input.resources))),
  removeTag: done(({input}, c) => E.removeLabels(c.catalog, c.actor, 'tag', labelUrns(input, 'tag', 'removeTag'), [ref(input)])),
  batchRemoveTags: done(({input}, c) => E.removeLabels(c.catalog, c.actor, 'tag', input.tagUrns, refs(input.resources))),
  createTag: (_r, {input}, c) => E.createTag(c.catalog, c.actor, input),

  addTerm: done(({input}, c) => E.addLabels(c.catalog, c.actor, 'term', labelUrns(input, 'term', 'addTerm'), [ref(input)])),
  addTerms: done(({input}, c) => E.addLabels(c.catalog, c.actor, 'term', input.termUrns, [ref(input)])),
  batchAddTerms: done(({input}, c) => E.addLabels(c.catalog, c.actor, 'term', input.termUrns, refs(input.resources))),
  removeTerm: done(({input}, c) => E.removeLabels(c.catalog, c.actor, 'term', labelUrns(input, 'term', 'removeTerm'), [ref(input)])),
  batchRemoveTerms: done(({input}, c) => E.removeLabels(c.catalog, c.actor, 'term', input.termUrns, refs(input.resources))),
  createGlossaryTerm: (_r, {input}, c) => E.createGlossaryEntity(c.catalog, c.actor, 'term', input),
  createGlossaryNode: (_r, {input}, c) => E.createGlossaryEntity(c.catalog, c.actor, 'node', input),

  addOwner: done(({input}, c) => E.addOwners(c.catalog, c.actor, [input as E.OwnerSpec], [{resourceUrn: input.resourceUrn}], {single: true})),
  addOwners: done(({input}, c) => E.addOwners(c.catalog, c.actor, input.owners, [{resourceUrn: input.resourceUrn}], {single: true})),
  batchAddOwners: done(({input}, c) => E.addOwners(c.catalog, c.actor, input.owners, refs(input.resources), {ownershipTypeUrn: input.ownershipTypeUrn})),
  removeOwner: done(({input}, c) => E.removeOwners(c.catalog, c.actor, [input.ownerUrn], [{resourceUrn: input.resourceUrn}], {ownershipTypeUrn: input.ownershipTypeUrn})),
  batchRemoveOwners: done(({input}, c) => E.removeOwners(c.catalog, c.actor, input.ownerUrns, refs(input.resources), {ownershipTypeUrn: input.ownershipTypeUrn})),

  setDomain: done(({entityUrn, domainUrn}, c) => E.setDomain(c.catalog, c.actor, domainUrn, [{resourceUrn: entityUrn}], 'set')),
  batchSetDomain: done(({input}, c) => E.setDomain(c.catalog, c.actor, input.domainUrn ?? null, refs(input.resources), 'batch')),
  unsetDomain: done(({entityUrn}, c) => E.setDomain(c.catalog, c.actor, null, [{resourceUrn: entityUrn}], 'unset')),
  createDomain: (_r, {input}, c) => E.createDomain(c.catalog, c.actor, input),

  updateDeprecation: done(({input}, c) => E.updateDeprecation(c.catalog, c.actor, input, [{resourceUrn: input.urn}], {single: true})),
  batchUpdateDeprecation: done(({input}, c) => E.updateDeprecation(c.catalog, c.actor, input, refs(input.resources))),

  updateDescription: done(({input}, c) => E.updateDescription(c.catalog, c.actor, input)),
  batchUpdateSoftDeleted: done(({input}, c) => E.setSoftDeleted(c.catalog, c.actor, input.urns, input.deleted)),

  addLink: done(({input}, c) => E.addLink(c.catalog, c.actor, input)),
  removeLink: done(({input}, c) => E.removeLink(c.catalog, c.actor, input)),

  // DataHub declares String and its resolver answers a Boolean, which graphql-java prints as "true".
  reportOperation: async (_r, {input}, c) => (await E.reportOperation(c.catalog, c.actor, input), 'true'),
}
