import {InvalidAspectError, MdcliError} from '../errors.js'
import {normalizeAspectValue} from '../model/normalize.js'
import {requireAspect, validateUrn} from '../model/registry.js'
import {validateAspect} from '../model/schemas.js'
import type {ProposalInput} from '../model/wire.js'

/** Builds the UPSERT proposal `put` sends, after checking urn, aspect and value locally. */
export function buildPutProposal(urn: string, aspectName: string, value: unknown, source: string): ProposalInput {
  const {spec} = validateUrn(urn)
  requireAspect(spec.name, aspectName)
  const normalized = normalizeAspectValue(value)
  if (normalized === null || typeof normalized !== 'object' || Array.isArray(normalized)) {
    throw new InvalidAspectError(`${source} must hold a JSON object (the ${aspectName} aspect)`)
  }
  try {
    validateAspect(aspectName, normalized)
  } catch (e) {
    if (e instanceof MdcliError) throw new InvalidAspectError(`${source}: ${e.message}`, e.details)
    throw e
  }
  return {
    entityType: spec.name,
    entityUrn: urn,
    aspectName,
    changeType: 'UPSERT',
    aspect: {contentType: 'application/json', value: JSON.stringify(normalized)},
  }
}
