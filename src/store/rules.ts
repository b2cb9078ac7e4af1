/**
 * The entity rules a store follows, taken from the registry: which aspect is an entity's key,
 * what soft delete means, which aspects are timeseries. Stores receive them as
 * a collaborator so that no store derives them from name patterns.
 */
import {isRemovedStatusText, isTimeseries, keyAspectName, SOFT_DELETE_ASPECT} from '../model/registry.js'
import {isLineageAspect} from '../model/lineage-aspects.js'
import type {EntityRules} from './types.js'

/** The registry's rules: what every production store uses. */
export const REGISTRY_RULES: EntityRules = {
  keyAspectName,
  softDeleteAspect: SOFT_DELETE_ASPECT,
  isRemoved: isRemovedStatusText,
  isTimeseries,
  indexesReferences: isLineageAspect,
}
