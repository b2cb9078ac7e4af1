/**
 * Native users, as DataHub has them: people who sign in with a password kept by the catalog
 * rather than by an identity provider.
 *
 * Glossary:
 * - credentials: the user's `corpUserCredentials` aspect — a random salt and the scrypt hash of
 *   the password (`scrypt$N$r$p$<base64>`, so the cost can rise later without breaking old
 *   hashes), and while a reset is pending the SHA-256 of its reset token and its expiry. A secret
 *   aspect: no read, history or change-log entry returns it (model/registry SECRET_ASPECTS).
 * - invite token: a secret in an `inviteToken` entity (with the role it grants) that lets a
 *   person sign up; `getInviteToken` hands out the one of a role, `createInviteToken` a new one.
 * - reset token: one-time, 24 hours, made by a holder of MANAGE_USER_CREDENTIALS for one native
 *   user, who sets a new password with it.
 *
 * Privileged writes (credentials, invite tokens, memberships) go through `Catalog.apply` under a
 * grant: the admin's own (`catalog.authorize`) for invite and reset tokens, the system's for
 * sign-up and reset, whose authorization is the one-time token the person presented.
 */
import {createHash, randomBytes, scrypt as scryptCb, timingSafeEqual} from 'node:crypto'
import {promisify} from 'node:util'
import {BadRequestError, ConflictError, UnauthenticatedError} from '../../errors.js'
import {DEFAULT_RUN_ID} from '../../store/types.js'
import {type Actor, type Catalog, type Grant} from '../catalog.js'
import {prepareProposal} from '../proposal.js'
import type {ProposalInput} from '../../model/wire.js'
import {ROOT_USER} from './default-policies.js'
import {endSessionsOf, inactiveReason} from './tokens.js'

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number, opts: {N: number; r: number; p: number; maxmem: number}) => Promise<Buffer>

/** scrypt's cost: 2^15 × 8 blocks (32 MiB, tens of milliseconds a guess), OWASP's recommendation. */
const COST = {N: 2 ** 15, r: 8, p: 1}
const KEY_BYTES = 32
export const MIN_PASSWORD_LENGTH = 8
/** Longer passwords only cost hashing time. */
const MAX_PASSWORD_LENGTH = 1024
const RESET_TOKEN_TTL_MS = 24 * 3600_000

interface Credentials {
  salt: string
  hashedPassword: string
  passwordResetToken?: string
  passwordResetTokenExpirationTimeMillis?: number
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

function checkPassword(password: unknown): string {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH) throw new BadRequestError(`A password needs at least ${MIN_PASSWORD_LENGTH} characters`)
  if (password.length > MAX_PASSWORD_LENGTH) throw new BadRequestError(`A password has at most ${MAX_PASSWORD_LENGTH} characters`)
  return password
}

/** A new salt and the scrypt hash of `password`. */
export async function hashPassword(password: string): Promise<Credentials> {
  const salt = randomBytes(16)
  const key = await scrypt(password.normalize('NFC'), salt, KEY_BYTES, {...COST, maxmem: 64 * 1024 * 1024})
  return {salt: salt.toString('base64'), hashedPassword: `scrypt$${COST.N}$${COST.r}$${COST.p}$${key.toString('base64')}`}
}

/** Whether `password` matches stored credentials (in constant time once hashed). */
export async function passwordMatches(cred: Credentials, password: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=]+)$/.exec(cred.hashedPassword)
  if (!m) return false
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const want = Buffer.from(m[4]!, 'base64')
  const got = await scrypt(password.normalize('NFC'), Buffer.from(cred.salt, 'base64'), want.length, {N, r, p, maxmem: 256 * N * r + 1024 * 1024})
  return got.length === want.length && timingSafeEqual(got, want)
}

/** Credentials that match no password: unknown users cost the same hashing time as known ones. */
let decoy: Promise<Credentials> | undefined

const userUrn = (username: string) => (username.startsWith('urn:li:corpuser:') ? username : `urn:li:corpuser:${username}`)
const p = (entityUrn: string, aspectName: string, json: unknown): ProposalInput => ({entityUrn, aspectName, changeType: 'UPSERT', aspect: {json}})

export class NativeUsers {
  constructor(private readonly catalog: Catalog) {}

  private async credentials(urn: string): Promise<Credentials | undefined> {
    return (await this.catalog.rawAspect(urn, 'corpUserCredentials'))?.value as Credentials | undefined
  }

  private async write(grant: Grant, proposals: ProposalInput[]): Promise<void> {
    await this.catalog.apply(grant, proposals.map((x) => prepareProposal(x)), {runId: DEFAULT_RUN_ID})
  }

  /**
   * The actor a username and password sign in as. The same refusal for an unknown user, a user
   * without a password, a wrong password and a suspended or soft-deleted user: nothing tells which it was.
   */
  async signIn(username: unknown, password: unknown): Promise<Actor> {
    if (typeof username !== 'string' || username.trim() === '' || typeof password !== 'string' || password === '') {
      throw new BadRequestError('Sign-in needs a username and a password')
    }
    const urn = userUrn(username.trim())
    const refused = new UnauthenticatedError('Invalid credentials: unknown user or wrong password')
    if (password.length > MAX_PASSWORD_LENGTH) throw refused
    const cred = await this.credentials(urn).catch(() => undefined)
    const ok = await passwordMatches(cred ?? (await (decoy ??= hashPassword(randomBytes(16).toString('hex')))), password)
    if (!cred || !ok) throw refused
    if (await inactiveReason(this.catalog, urn)) throw refused
    return {urn}
  }

  /**
   * The first start's admin password: `given` (MDCLI_ADMIN_PASSWORD), else a generated one,
   * which is returned to be shown once. Nothing when the admin has a password already.
   */
  async bootstrapAdminPassword(given?: string): Promise<{generated?: string; set: boolean}> {
    if (await this.credentials(ROOT_USER)) return {set: false}
    const password = given && given !== '' ? checkPassword(given) : randomBytes(15).toString('base64url')
    await this.write(this.catalog.systemGrant(), [p(ROOT_USER, 'corpUserCredentials', await hashPassword(password))])
    return {set: true, generated: given ? undefined : password}
  }

  /** An invite token for `roleUrn` (or none): a new one, or with `reuse` the role's existing one. */
  async inviteToken(by: Actor, roleUrn: string | undefined, reuse: boolean): Promise<string> {
    const grant = await this.catalog.authorize(by, [{privileges: [['MANAGE_USERS_AND_GROUPS']]}], 'Inviting users needs the Manage Users & Groups privilege')
    if (roleUrn !== undefined && !(await this.catalog.exists(roleUrn))) throw new BadRequestError(`No role ${roleUrn}`)
    if (reuse) {
      for (const t of await this.invites()) if (t.role === roleUrn) return t.token
    }
    const token = randomBytes(24).toString('base64url')
    await this.write(grant, [p(`urn:li:inviteToken:${randomBytes(16).toString('hex')}`, 'inviteToken', {token, ...(roleUrn ? {role: roleUrn} : {})})])
    return token
  }

  private async invites(): Promise<Array<{token: string; role?: string}>> {
    const out: Array<{token: string; role?: string}> = []
    for (const e of await this.catalog.rawEntitiesOfType('inviteToken', ['inviteToken'], {includeSoftDeleted: false})) {
      const v = e.aspects.inviteToken?.value as {token?: string; role?: string} | undefined
      if (v?.token) out.push({token: v.token, role: v.role})
    }
    return out
  }

  /** The invite whose token is `presented`, compared in constant time. */
  private async invite(presented: unknown): Promise<{token: string; role?: string} | undefined> {
    const given = Buffer.from(typeof presented === 'string' ? presented : '')
    return (await this.invites()).find((t) => Buffer.byteLength(t.token) === given.length && timingSafeEqual(Buffer.from(t.token), given))
  }

  /**
   * DataHub's acceptRole: the signed-in `actor` presents an invite token and takes the invite's
   * role, if it names one (DataHub's web app sends it right after sign-up, which gave that role
   * already, so usually nothing changes). The valid token is the authorization, as at sign-up.
   */
  async acceptRole(actor: Actor, inviteToken: unknown): Promise<true> {
    const invite = await this.invite(inviteToken)
    if (!invite) throw new BadRequestError(`Failed to accept role using invite token ${typeof inviteToken === 'string' ? inviteToken.slice(0, 200) : ''}`)
    const role = invite.role
    if (role === undefined) return true
    await this.catalog.withLocks([actor.urn], async () => {
      const held = (await this.catalog.rawAspect(actor.urn, 'roleMembership'))?.value as {roles?: string[]} | undefined
      // As DataHub's role assignment: the invite's role replaces the ones held.
      if (held?.roles?.length === 1 && held.roles[0] === role) return
      await this.write(this.catalog.systemGrant(), [p(actor.urn, 'roleMembership', {roles: [role]})])
    })
    return true
  }

  /**
   * Sign-up with an invite token: a new native user `urn:li:corpuser:<email>` with the invite's
   * role. Refused for an unknown token and for an email that already has a password.
   */
  async signUp(input: {email?: unknown; fullName?: unknown; title?: unknown; password?: unknown; inviteToken?: unknown}): Promise<Actor> {
    const email = typeof input.email === 'string' ? input.email.trim() : ''
    if (!/^[^\s@,()]+@[^\s@,()]+$/.test(email)) throw new BadRequestError('Sign-up needs an email address')
    const fullName = typeof input.fullName === 'string' && input.fullName.trim() !== '' ? input.fullName.trim() : email
    const password = checkPassword(input.password)
    const invite = await this.invite(input.inviteToken)
    if (!invite) throw new UnauthenticatedError('Invalid invite token: ask an admin for a new invite link')
    const urn = userUrn(email)
    const hashed = await hashPassword(password)
    return this.catalog.withLocks([urn], async () => {
      if (await this.credentials(urn)) throw new ConflictError(`A user with email ${email} has signed up already; sign in, or ask an admin for a password reset`)
      // Any user already here (ingested, made by an admin, suspended) is refused, as DataHub
      // refuses it: an invite makes a new user, it never takes over one with its roles.
      if (await this.catalog.rawEntity(urn, ['corpUserKey'])) throw new ConflictError(`A user ${urn} exists already; sign-up makes new users only: ask an admin to give it a password (a reset link)`)
      const info = {active: true, displayName: fullName, fullName, email, ...(typeof input.title === 'string' && input.title !== '' ? {title: input.title} : {})}
      await this.write(this.catalog.systemGrant(), [
        p(urn, 'corpUserInfo', info),
        p(urn, 'corpUserStatus', {status: 'ACTIVE', lastModified: {time: this.catalog.now(), actor: urn}}),
        p(urn, 'corpUserCredentials', hashed),
        ...(invite.role ? [p(urn, 'roleMembership', {roles: [invite.role]})] : []),
      ])
      return {urn}
    })
  }

  /** A one-time reset token for a native user (MANAGE_USER_CREDENTIALS), valid 24 hours. */
  async createResetToken(by: Actor, targetUrn: string): Promise<string> {
    const grant = await this.catalog.authorize(by, [{privileges: [['MANAGE_USER_CREDENTIALS']]}], 'Resetting passwords needs the Manage User Credentials privilege')
    return this.catalog.withLocks([targetUrn], async () => {
      const cred = await this.credentials(targetUrn)
      if (!cred) throw new BadRequestError(`${targetUrn} is not a native user (no password here); only native users' passwords can be reset`)
      const token = randomBytes(24).toString('base64url')
      await this.write(grant, [p(targetUrn, 'corpUserCredentials', {salt: cred.salt, hashedPassword: cred.hashedPassword, passwordResetToken: sha256(token), passwordResetTokenExpirationTimeMillis: this.catalog.now() + RESET_TOKEN_TTL_MS})])
      return token
    })
  }

  /** Sets a new password with a reset token; the token is spent. */
  async resetPassword(input: {email?: unknown; password?: unknown; resetToken?: unknown}): Promise<Actor> {
    const email = typeof input.email === 'string' ? input.email.trim() : ''
    const presented = typeof input.resetToken === 'string' ? input.resetToken : ''
    const password = checkPassword(input.password)
    if (email === '' || presented === '') throw new BadRequestError('A password reset needs the email (username) and the reset token')
    const urn = userUrn(email)
    const refused = new UnauthenticatedError('Invalid or expired reset token: ask an admin for a new reset link')
    return this.catalog.withLocks([urn], async () => {
      const cred = await this.credentials(urn).catch(() => undefined)
      if (!cred?.passwordResetToken || !cred.passwordResetTokenExpirationTimeMillis) throw refused
      const same = timingSafeEqual(Buffer.from(cred.passwordResetToken, 'hex'), Buffer.from(sha256(presented), 'hex'))
      if (!same || cred.passwordResetTokenExpirationTimeMillis <= this.catalog.now()) throw refused
      await this.write(this.catalog.systemGrant(), [p(urn, 'corpUserCredentials', await hashPassword(password))])
      // A reset is what one does when a password may be known to someone else: whoever signed in
      // with the old one is signed out (sessions are kept here, so they can be ended).
      await endSessionsOf(this.catalog, this.catalog.systemGrant(), urn)
      return {urn}
    })
  }
}
