/**
 * The onboarding step states of DataHub's web app (`dataHubStepState`): which tours, education
 * steps and announcements a user has seen, so that the app shows each once rather than on every
 * page load. The app names them `<user urn>-<step>`.
 *
 * Who may: anyone signed in reads them and writes their own, as in DataHub (whose resolvers ask
 * nothing at all); another user's need MANAGE_USERS_AND_GROUPS, since nothing the app does
 * writes them and resetting someone else's tours is not a reader's to do.
 */
import {BadRequestError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import type {Actor, Catalog} from '../catalog.js'
import {runEdit} from './engine.js'

/** Step states per request: the app asks for a few dozen at once. */
export const MAX_STEP_STATES = 500

const ASPECT = 'dataHubStepStateProperties'

export interface StepState {
  id: string
  properties: Record<string, string>
}

function urnOf(id: unknown): string {
  if (typeof id !== 'string' || id === '') throw new BadRequestError('A step state id must be a non-empty string')
  const urn = `urn:li:dataHubStepState:${id}`
  validateUrn(urn)
  return urn
}

function bounded<T>(items: T[], what: string): T[] {
  if (items.length > MAX_STEP_STATES) throw new BadRequestError(`At most ${MAX_STEP_STATES} step states per request, not ${items.length} ${what}`)
  return items
}

/** The step states of `ids` that exist, in the order asked, each once (DataHub leaves out the others). */
export async function readStepStates(catalog: Catalog, ids: string[]): Promise<StepState[]> {
  const unique = [...new Set(bounded(ids, 'ids'))]
  const urns = unique.map(urnOf)
  const found = await catalog.readEntities(urns, [ASPECT])
  const out: StepState[] = []
  for (const [i, id] of unique.entries()) {
    const v = found.get(urns[i]!)?.aspects[ASPECT]?.value as {properties?: Record<string, string>} | undefined
    if (v) out.push({id, properties: v.properties ?? {}})
  }
  return out
}

/** Writes each state's properties (replacing what was there), all or nothing. */
export async function updateStepStates(catalog: Catalog, actor: Actor, states: Array<{id: string; properties: Array<{key: string; value?: string | null} | null>}>): Promise<Array<{id: string; succeeded: boolean}>> {
  bounded(states, 'states')
  const items = states.map((s) => {
    const properties: Record<string, string> = {}
    for (const p of s.properties ?? []) {
      if (!p) continue
      if (typeof p.value !== 'string') throw new BadRequestError(`Step state ${s.id}: property '${p.key}' has no value`)
      properties[p.key] = p.value
    }
    return {id: s.id, urn: urnOf(s.id), properties}
  })
  const othersOwn = items.some((s) => !s.id.startsWith(`${actor.urn}-`))
  await runEdit(catalog, actor, {
    authz: othersOwn ? [{privileges: [['MANAGE_USERS_AND_GROUPS']]}] : [],
    unauthorizedMessage: 'Unauthorized to update the step states of another user.',
    locks: items.map((s) => s.urn),
    build: async (tx) => {
      for (const s of items) tx.put(s.urn, ASPECT, {properties: s.properties, lastModified: tx.stamp})
    },
  })
  return items.map((s) => ({id: s.id, succeeded: true}))
}
