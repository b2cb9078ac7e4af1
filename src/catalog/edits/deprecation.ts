/**
 * Deprecation of entities: the `deprecation` aspect's flag, note, decommission time and the actor
 * who set it. Entity types without the aspect in the registry are refused, containers among them
 * (spec rule 1).
 */
import {BadRequestError} from '../../errors.js'
import type {Actor, Catalog} from '../catalog.js'
import {validateUrn} from '../../model/registry.js'
import {accepts, checkResource, type EditSummary, type ResourceRef, summarize} from './common.js'
import {runEdit} from './engine.js'

export interface DeprecationInput {
  deprecated: boolean
  /** Epoch ms; absent removes a previous decommission time. */
  decommissionTime?: number | null
  note?: string | null
  /** The urn of the entity to use instead; absent removes a previous one. */
  replacement?: string | null
  /** A column of the entity (DataHub's subResource): not supported, refused when given. */
  subResource?: string | null
}

/** Sets the deprecation of every resource; `single` selects updateDeprecation's error wording. */
export async function updateDeprecation(catalog: Catalog, actor: Actor, input: DeprecationInput, resources: ResourceRef[], opts: {single?: boolean} = {}): Promise<EditSummary> {
  const {writes} = await runEdit(catalog, actor, {
    authz: resources.map((r) => ({resourceUrn: r.resourceUrn, privileges: [['EDIT_ENTITY'], ['EDIT_DEPRECATION_PRIVILEGE']]})),
    locks: resources.map((r) => r.resourceUrn),
    build: async (tx) => {
      if (input.subResource) throw new BadRequestError(`Failed to update deprecation: deprecating a column (subResource ${input.subResource}) is not supported; deprecate the entity`)
      if (input.replacement) validateUrn(input.replacement)
      for (const r of resources) {
        const u = r.resourceUrn
        // The entity type decides first: a container urn is refused whether or not it exists.
        // The registry says which types take deprecation (containers do not, spec rule 1).
        const type = validateUrn(u).spec.name
        if (!accepts(type, 'deprecation')) {
          throw new BadRequestError(`Failed to update deprecation for Entity ${u}. Deprecation is not supported for ${type} entities.`)
        }
        if (opts.single) {
          if (!(await tx.exists(u))) throw new BadRequestError(`Failed to update deprecation for Entity ${u}. Entity does not exist.`)
        } else await checkResource(tx, {resourceUrn: u})
      }
      for (const r of resources) {
        const cur = (await tx.aspect<Record<string, unknown>>(r.resourceUrn, 'deprecation')) ?? {}
        const next: Record<string, unknown> = {...cur, deprecated: input.deprecated, note: input.note ?? '', actor: tx.stamp.actor}
        if (input.decommissionTime === null || input.decommissionTime === undefined) delete next.decommissionTime
        else next.decommissionTime = input.decommissionTime
        if (input.replacement) next.replacement = input.replacement
        else delete next.replacement
        tx.put(r.resourceUrn, 'deprecation', next)
      }
    },
  })
  return summarize(resources.map((r) => r.resourceUrn), writes)
}
