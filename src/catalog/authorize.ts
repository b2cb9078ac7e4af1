/**
 * The one authorization check point. Every write (REST, GraphQL mutation, delete, rollback,
 * migration) asks `Authorizer.authorize` before anything reaches the store; a refusal throws
 * UnauthorizedError and nothing is written.
 *
 * Glossary:
 * - privilege: DataHub's privilege names (`EDIT_ENTITY_TAGS`, `EDIT_ENTITY`, …).
 * - request: a resource urn and the privileges that would allow the action, as an OR of
 *   AND-groups: `[['EDIT_ENTITY'], ['EDIT_ENTITY_TAGS']]` = EDIT_ENTITY or EDIT_ENTITY_TAGS.
 */
import {UnauthorizedError} from '../errors.js'

/** Whoever acts: the user a request's token names, or the system for the server's own jobs. */
export interface Actor {
  /** Corp user urn of whoever acts. */
  urn: string
}

export type Privilege = string

export interface AuthzRequest {
  /** The entity acted on; undefined for platform-level actions (policies, tokens). */
  resourceUrn?: string
  privileges: Privilege[][]
}

export interface Authorizer {
  /** Resolves when the actor may perform every request; throws UnauthorizedError otherwise. */
  authorize(actor: Actor, requests: AuthzRequest[], message?: string): Promise<void>
  /** Told about every written urn, so cached decisions (policies, groups) can be dropped. */
  observeWrite?(urns: Iterable<string>): void
  /** Told when writes may have gone unseen (another replica's, while notifications were down): drop every cached decision. */
  forget?(): void
}

/** Lets every actor do everything: the behaviour until access policies are switched on. */
export const allowAll: Authorizer = {
  async authorize() {
    /* allowed */
  },
}

/** Refuses everything; a test double for the refusal path that needs no policy engine. */
export const denyAll: Authorizer = {
  async authorize(_actor, _requests, message) {
    throw new UnauthorizedError(message)
  },
}
