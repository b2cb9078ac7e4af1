/**
 * Personal access tokens.
 *
 * A token is `mdt_` + 32 random bytes (base64url), shown once at creation. The catalog keeps
 * only its SHA-256, as the id of a `dataHubAccessToken` entity (as DataHub keys tokens by a
 * hash) with `dataHubAccessTokenInfo {name, actorUrn, ownerUrn, createdAt, expiresAt}`.
 * Verifying hashes the presented token, looks the entity up and compares the hashes in
 * constant time; revoking hard-deletes the entity, so it stops working at the next request.
 *
 * Every request presents a token, so verified tokens are remembered (a bounded map from the
 * presented text to its actor and expiry): a hit costs no hash and no store read. Any write to
 * an access-token entity empties the map, so a revoked token fails at its next request as
 * before; expiry is checked on every hit. An entry older than ACCESS_CACHE_MAX_AGE_MS is
 * verified afresh, and the map is emptied when other replicas' writes may have gone unannounced
 * (`Catalog.onResync`), so a revocation on another replica holds here within that bound even if
 * its notification is lost. Failures are never remembered, so unknown tokens cannot fill the map.
 *
 * A token of a suspended user (`corpUserStatus.status` SUSPENDED) or a soft-deleted one
 * (`status.removed`) is refused, as DataHub refuses an actor that is not active (its
 * ActorContext: neither removed nor suspended). The user's state is read with the token and
 * remembered with it; a write to any user empties the map too, so suspending or deleting takes
 * effect at the next request.
 *
 * Sign-in sessions (the web app's cookie) are tokens too: `mds_` + 32 random bytes, kept as a
 * `dataHubAccessToken` whose id is `session-<sha256>`, so they are checked, cached, expired and
 * refused for suspended users exactly as access tokens are, and signing out deletes the entity
 * (a stolen cookie dies with the session, which a stateless signed cookie would not). They are
 * not listed among a user's access tokens and work only as the session cookie.
 */
import {createHash, randomBytes, timingSafeEqual} from 'node:crypto'
import {BadRequestError, NotFoundError, UnauthenticatedError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import {type Actor, type Catalog, type Grant, SYSTEM_ACTOR} from '../catalog.js'
import {prepareProposal} from '../proposal.js'
import {ACCESS_CACHE_MAX_AGE_MS, monotonicMs} from './cache-bound.js'

export const TOKEN_PREFIX = 'mdt_'
export const SESSION_PREFIX = 'mds_'
const SESSION_ID_PREFIX = 'session-'

export const DURATIONS: Record<string, number | null> = {
  ONE_HOUR: 3600_000,
  ONE_DAY: 86_400_000,
  ONE_WEEK: 7 * 86_400_000,
  ONE_MONTH: 30 * 86_400_000,
  THREE_MONTHS: 90 * 86_400_000,
  SIX_MONTHS: 180 * 86_400_000,
  ONE_YEAR: 365 * 86_400_000,
  NO_EXPIRY: null,
}

export interface TokenMetadata {
  urn: string
  id: string
  name: string
  description?: string
  actorUrn: string
  ownerUrn: string
  createdAt: number
  expiresAt?: number
}

interface TokenInfo {
  name: string
  actorUrn: string
  ownerUrn: string
  createdAt: number
  expiresAt?: number
  description?: string
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

const TOKEN_URN_PREFIX = 'urn:li:dataHubAccessToken:'
const USER_URN_PREFIX = 'urn:li:corpuser:'
const tokenUrn = (id: string) => `${TOKEN_URN_PREFIX}${id}`

/** Verified tokens kept at most; far more than the clients of one server use at once. */
const VERIFIED_CAPACITY = 1_000

interface Verified {
  actor: Actor
  name: string
  expiresAt?: number
  /** When it was read from the store (monotonicMs): older than ACCESS_CACHE_MAX_AGE_MS is read again. */
  readAt: number
}

export class TokenService {
  private readonly verified = new Map<string, Verified>()
  /** Counts token writes: a lookup that raced one is not remembered. */
  private generation = 0

  constructor(private readonly catalog: Catalog) {
    catalog.onWrite((urns) => {
      if (!urns.some((u) => u.startsWith(TOKEN_URN_PREFIX) || u.startsWith(USER_URN_PREFIX))) return
      this.forget()
    })
    catalog.onResync(() => this.forget())
  }

  private forget(): void {
    this.generation++
    this.verified.clear()
  }

  /** Creates a token for `actorUrn`; the only time the secret exists outside the caller. */
  async create(by: Actor, input: {actorUrn: string; name: string; description?: string; duration?: string}): Promise<{accessToken: string; metadata: TokenMetadata}> {
    // Tokens for yourself need GENERATE_PERSONAL_ACCESS_TOKENS; for anyone else MANAGE_ACCESS_TOKENS.
    const privilege = input.actorUrn === by.urn ? [['GENERATE_PERSONAL_ACCESS_TOKENS'], ['MANAGE_ACCESS_TOKENS']] : [['MANAGE_ACCESS_TOKENS']]
    this.checkInput(input)
    return this.mint(await this.catalog.authorize(by, [{privileges: privilege}]), input)
  }

  private checkInput(input: {actorUrn: string; name: string; duration?: string}): void {
    if (!input.name || input.name.trim() === '') throw new BadRequestError('A token needs a name')
    const {spec} = validateUrn(input.actorUrn)
    if (spec.name !== 'corpuser') throw new BadRequestError(`A token acts for a user; expected a corp user urn, found ${input.actorUrn}`)
    if (input.duration !== undefined && !(input.duration in DURATIONS)) throw new BadRequestError(`Unknown duration ${input.duration}; one of ${Object.keys(DURATIONS).join(', ')}`)
  }

  /**
   * Makes and stores a token under `grant` with no access check of its own: `create` after its
   * check, and the first-start bootstrap and admin-token recovery with the system's grant.
   */
  async mint(grant: Grant, input: {actorUrn: string; name: string; description?: string; duration?: string}): Promise<{accessToken: string; metadata: TokenMetadata}> {
    this.checkInput(input)
    const accessToken = TOKEN_PREFIX + randomBytes(32).toString('base64url')
    const id = hashToken(accessToken)
    const createdAt = this.catalog.now()
    const ms = DURATIONS[input.duration ?? 'ONE_MONTH']
    const info: TokenInfo = {name: input.name, actorUrn: input.actorUrn, ownerUrn: grant.actor.urn, createdAt, ...(ms === null || ms === undefined ? {} : {expiresAt: createdAt + ms}), ...(input.description ? {description: input.description} : {})}
    await this.catalog.apply(grant, [prepareProposal({entityUrn: tokenUrn(id), aspectName: 'dataHubAccessTokenInfo', changeType: 'UPSERT', aspect: {json: info}})])
    return {accessToken, metadata: {urn: tokenUrn(id), id, ...info}}
  }

  /**
   * Starts a sign-in session for `actorUrn` lasting `ttlMs`, under the system's grant: the caller
   * (sign-in, sign-up, password reset) has checked the person's password or one-time token.
   */
  async startSession(actorUrn: string, ttlMs: number): Promise<{session: string; expiresAt: number}> {
    const session = SESSION_PREFIX + randomBytes(32).toString('base64url')
    const createdAt = this.catalog.now()
    const info: TokenInfo = {name: 'sign-in session', actorUrn, ownerUrn: actorUrn, createdAt, expiresAt: createdAt + ttlMs}
    await this.catalog.apply(this.catalog.systemGrant(), [prepareProposal({entityUrn: tokenUrn(SESSION_ID_PREFIX + hashToken(session)), aspectName: 'dataHubAccessTokenInfo', changeType: 'UPSERT', aspect: {json: info}})])
    return {session, expiresAt: info.expiresAt!}
  }

  /** Ends a sign-in session (sign-out); an unknown or ended one is no error. */
  async endSession(session: string): Promise<void> {
    if (!session.startsWith(SESSION_PREFIX)) return
    const urn = tokenUrn(SESSION_ID_PREFIX + hashToken(session))
    if (await this.catalog.exists(urn)) await this.catalog.writeOps(this.catalog.systemGrant(), [{op: 'deleteEntity', urn}])
  }

  /** The actor of a session cookie's value; 401 for unknown, ended or expired sessions. */
  verifySession(session: string): Promise<Actor> {
    if (!session.startsWith(SESSION_PREFIX)) return Promise.reject(new UnauthenticatedError('Invalid session: not a session this server started; sign in again'))
    return this.check(session)
  }

  /**
   * Resolves the actor of a presented access token; 401 for unknown, revoked or expired tokens.
   * A session's value is no access token: it works only as the cookie, where the cross-site
   * checks apply.
   */
  verify(token: string): Promise<Actor> {
    if (token.startsWith(SESSION_PREFIX)) return Promise.reject(new UnauthenticatedError('Invalid access token: a sign-in session works only as the session cookie; create an access token for scripts'))
    return this.check(token)
  }

  private async check(token: string): Promise<Actor> {
    const hit = this.verified.get(token)
    if (hit && monotonicMs() - hit.readAt <= ACCESS_CACHE_MAX_AGE_MS) {
      this.checkExpiry(hit)
      return hit.actor
    }
    if (hit) this.verified.delete(token)
    const session = token.startsWith(SESSION_PREFIX)
    if (!(token.startsWith(TOKEN_PREFIX) || session) || token.length < 20) throw new UnauthenticatedError('Invalid access token: not a token this server issued')
    const hash = hashToken(token)
    const id = session ? SESSION_ID_PREFIX + hash : hash
    const generation = this.generation
    const readAt = monotonicMs()
    const a = await this.catalog.rawAspect(tokenUrn(id), 'dataHubAccessTokenInfo')
    if (!a) throw new UnauthenticatedError(session ? 'Session ended or unknown; sign in again' : 'Invalid access token: unknown or revoked')
    // The lookup matched on the hash already; comparing again in constant time keeps the check
    // free of early exits should the lookup ever become a prefix or range scan.
    if (!timingSafeEqual(Buffer.from(a.urn.slice(tokenUrn(session ? SESSION_ID_PREFIX : '').length), 'hex'), Buffer.from(hash, 'hex'))) {
      throw new UnauthenticatedError('Invalid access token: unknown or revoked')
    }
    const info = a.value as TokenInfo
    const verified: Verified = {actor: {urn: info.actorUrn}, name: info.name, expiresAt: info.expiresAt, readAt}
    this.checkExpiry(verified)
    const inactive = await inactiveReason(this.catalog, info.actorUrn)
    if (inactive) throw new UnauthenticatedError(`Access token '${info.name}' acts for ${info.actorUrn}, who is ${inactive}`)
    if (generation === this.generation) {
      if (this.verified.size >= VERIFIED_CAPACITY) this.verified.delete(this.verified.keys().next().value!)
      this.verified.set(token, verified)
    }
    return verified.actor
  }

  private checkExpiry(v: Verified): void {
    if (v.expiresAt !== undefined && v.expiresAt <= this.catalog.now()) {
      throw new UnauthenticatedError(`Access token '${v.name}' expired at ${new Date(v.expiresAt).toISOString()}`)
    }
  }

  async get(id: string): Promise<TokenMetadata> {
    const a = await this.catalog.rawAspect(tokenUrn(id), 'dataHubAccessTokenInfo')
    if (!a) throw new NotFoundError(`No access token with id ${id}`)
    return {urn: tokenUrn(id), id, ...(a.value as TokenInfo)}
  }

  /** One token's metadata, for its owner, the user it acts for, or a holder of MANAGE_ACCESS_TOKENS. */
  async getFor(by: Actor, id: string): Promise<TokenMetadata> {
    const t = await this.get(id)
    if (t.ownerUrn !== by.urn && t.actorUrn !== by.urn) await this.catalog.authorize(by, [{privileges: [['MANAGE_ACCESS_TOKENS']]}])
    return t
  }

  private async canManage(by: Actor): Promise<boolean> {
    try {
      await this.catalog.authorize(by, [{privileges: [['MANAGE_ACCESS_TOKENS']]}])
      return true
    } catch {
      return false
    }
  }

  /** Tokens the caller may see: all with MANAGE_ACCESS_TOKENS, else the ones they own or act as. */
  async listFor(by: Actor, filter: {actorUrn?: string; ownerUrn?: string} = {}): Promise<TokenMetadata[]> {
    const all = await this.list(filter)
    if (await this.canManage(by)) return all
    return all.filter((t) => t.ownerUrn === by.urn || t.actorUrn === by.urn)
  }

  async list(filter: {actorUrn?: string; ownerUrn?: string} = {}): Promise<TokenMetadata[]> {
    const out: TokenMetadata[] = []
    for (const e of await this.catalog.rawEntitiesOfType('dataHubAccessToken', ['dataHubAccessTokenInfo'])) {
      const info = e.aspects.dataHubAccessTokenInfo?.value as TokenInfo | undefined
      if (!info || e.urn.startsWith(tokenUrn(SESSION_ID_PREFIX))) continue
      if (filter.actorUrn && info.actorUrn !== filter.actorUrn) continue
      if (filter.ownerUrn && info.ownerUrn !== filter.ownerUrn) continue
      out.push({urn: e.urn, id: e.urn.slice('urn:li:dataHubAccessToken:'.length), ...info})
    }
    return out.sort((a, b) => b.createdAt - a.createdAt)
  }

  /** Revokes a token: its owner, the user it acts for, or a holder of MANAGE_ACCESS_TOKENS. */
  async revoke(by: Actor, id: string): Promise<void> {
    const t = await this.get(id)
    // Its owner and the user it acts for need no privilege: there is nothing to ask the authorizer.
    const own = t.ownerUrn === by.urn || t.actorUrn === by.urn
    const grant = await this.catalog.authorize(by, own ? [] : [{privileges: [['MANAGE_ACCESS_TOKENS']]}])
    await this.catalog.writeOps(grant, [{op: 'deleteEntity', urn: tokenUrn(id)}])
  }
}

/**
 * Why `userUrn` may not act: 'suspended', 'deleted' (soft-deleted), or undefined when active.
 * The root user is always active: the catalog itself acts as it (first-start and recovery tokens),
 * so soft-deleting it must not lock every administrator out (it cannot be suspended either).
 */
export async function inactiveReason(catalog: Catalog, userUrn: string): Promise<'suspended' | 'deleted' | undefined> {
  if (userUrn === SYSTEM_ACTOR.urn) return undefined
  const e = await catalog.rawEntity(userUrn, ['corpUserStatus', 'status'])
  if ((e?.aspects.corpUserStatus?.value as {status?: string} | undefined)?.status === 'SUSPENDED') return 'suspended'
  if ((e?.aspects.status?.value as {removed?: boolean} | undefined)?.removed === true) return 'deleted'
  return undefined
}

/**
 * Ends every sign-in session of `actorUrn` (a password reset: whoever signed in with the old
 * password is signed out). Access tokens are kept, as DataHub keeps them.
 */
export async function endSessionsOf(catalog: Catalog, grant: Grant, actorUrn: string): Promise<number> {
  const urns: string[] = []
  for (const e of await catalog.rawEntitiesOfType('dataHubAccessToken', ['dataHubAccessTokenInfo'])) {
    if (e.urn.startsWith(tokenUrn(SESSION_ID_PREFIX)) && (e.aspects.dataHubAccessTokenInfo?.value as TokenInfo | undefined)?.actorUrn === actorUrn) urns.push(e.urn)
  }
  if (urns.length > 0) await catalog.writeOps(grant, urns.map((urn) => ({op: 'deleteEntity' as const, urn})))
  return urns.length
}
