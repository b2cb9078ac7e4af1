/**
 * Soft deletion: `status.removed` hides an entity from search, browse and lineage while it stays
 * readable by urn; setting it back to false restores it. Only the named entities change — a
 * container's children are deleted by their own urns (spec rule 2).
 */
import {BadRequestError} from '../../errors.js'
import type {Actor, Catalog} from '../catalog.js'
import {accepts, type EditSummary, summarize, typeOf} from './common.js'
import {runEdit} from './engine.js'

export async function setSoftDeleted(catalog: Catalog, actor: Actor, urns: string[], deleted: boolean): Promise<EditSummary> {
  const unique = [...new Set(urns)]
  const {writes} = await runEdit(catalog, actor, {
    authz: unique.map((u) => ({resourceUrn: u, privileges: [['DELETE_ENTITY']]})),
    locks: unique,
    build: async (tx) => {
      for (const u of unique) {
        if (!(await tx.exists(u))) throw new BadRequestError(`Failed to soft delete entity with urn ${u}. Entity does not exist.`)
        const type = typeOf(u)!
        if (!accepts(type, 'status')) throw new BadRequestError(`Failed to soft delete entity with urn ${u}. Entities of type ${type} cannot be soft-deleted.`)
      }
      for (const u of unique) {
        const cur = (await tx.aspect<Record<string, unknown>>(u, 'status')) ?? {}
        tx.put(u, 'status', {...cur, removed: deleted})
      }
    },
  })
  return summarize(unique, writes)
}
