/**
 * Access policies (DataHub's `dataHubPolicy` entities with `dataHubPolicyInfo`) deciding every
 * write. A request passes when, for one of its privilege groups, every privilege is granted to
 * the actor on the resource by some ACTIVE policy.
 *
 * Glossary:
 * - actor filter: users, groups, roles, all users, all groups, or the resource's owners.
 * - resource filter: none (every resource), a type (also narrowing `allResources`), a list of
 *   urns, or criteria (EQUALS, NOT_EQUALS, STARTS_WITH) on the entity's type, urn, domains,
 *   tags, container or platform instance. A criterion on any other field, a condition of any
 *   other kind and value constraints (`privilegeConstraints`) match nothing: what this server
 *   does not evaluate never widens a policy. METADATA policies apply to requests on an entity;
 *   PLATFORM policies to platform requests (no resource) and, being global, to entity ones too.
 *
 * Policies and group member lists are cached and dropped whenever a write touches a policy or a
 * group, so a change takes effect at the next request, and in any case once older than
 * ACCESS_CACHE_MAX_AGE_MS or when other replicas' writes may have gone unannounced (`forget`);
 * a user's own memberships and roles are read per request.
 */
import {systemOwnershipTypeUrn} from '../edits/common.js'
import {UnauthorizedError} from '../../errors.js'
import type {MetadataStore} from '../../store/types.js'
import type {Actor} from '../catalog.js'
import type {AuthzRequest, Authorizer} from '../authorize.js'
import type {PolicyInfo} from './default-policies.js'
import {ACCESS_CACHE_MAX_AGE_MS, monotonicMs} from './cache-bound.js'

interface Principal {
  urn: string
  groups: Set<string>
  roles: Set<string>
}

/**
 * An active policy with its privileges as a set, made once per load of the policies: a request
 * is settled by asking the policies that match it, not by gathering their privileges into a set
 * of its own (an ingest asks once per entity; the admin's two policies hold about 150
 * privileges, which were copied into a new set for every entity of every batch).
 */
interface LoadedPolicy {
  info: PolicyInfo
  privileges: ReadonlySet<string>
}

export class PolicyAuthorizer implements Authorizer {
  private policies?: Promise<LoadedPolicy[]>
  private groupMembers?: Promise<Map<string, Set<string>>>
  /** When each cache was last loaded (monotonicMs). */
  private policiesAt = 0
  private groupMembersAt = 0

  constructor(private readonly store: MetadataStore) {}

  observeWrite(urns: Iterable<string>): void {
    for (const u of urns) {
      if (u.startsWith('urn:li:dataHubPolicy:')) this.policies = undefined
      // Only groups list members; a user's own memberships are read per request, so writes to
      // users (an ingest of thousands) must not force a rescan of every group.
      if (u.startsWith('urn:li:corpGroup:')) this.groupMembers = undefined
    }
  }

  forget(): void {
    this.policies = undefined
    this.groupMembers = undefined
  }

  private loadPolicies(): Promise<LoadedPolicy[]> {
    if (this.policies && monotonicMs() - this.policiesAt > ACCESS_CACHE_MAX_AGE_MS) this.policies = undefined
    if (!this.policies) this.policiesAt = monotonicMs()
    this.policies ??= (async () => {
      const {urns} = await this.store.listUrns({entityType: 'dataHubPolicy', includeSoftDeleted: true})
      const out: LoadedPolicy[] = []
      for (const e of (await this.store.getEntities(urns, ['dataHubPolicyInfo'])).values()) {
        const info = e.aspects.dataHubPolicyInfo?.value as PolicyInfo | undefined
        if (info && info.state === 'ACTIVE') out.push({info, privileges: new Set(info.privileges)})
      }
      // Policies naming users, groups or roles first: they settle most requests without
      // reading the resource's owners.
      return out.sort((a, b) => Number(a.info.actors.resourceOwners) - Number(b.info.actors.resourceOwners))
    })().catch((e) => {
      this.policies = undefined
      throw e
    })
    return this.policies
  }

  /** Group urn → member urns, from corpGroupInfo.members of every group. */
  private loadGroupMembers(): Promise<Map<string, Set<string>>> {
    if (this.groupMembers && monotonicMs() - this.groupMembersAt > ACCESS_CACHE_MAX_AGE_MS) this.groupMembers = undefined
    if (!this.groupMembers) this.groupMembersAt = monotonicMs()
    this.groupMembers ??= (async () => {
      const {urns} = await this.store.listUrns({entityType: 'corpGroup', includeSoftDeleted: false})
      const map = new Map<string, Set<string>>()
      for (const e of (await this.store.getEntities(urns, ['corpGroupInfo'])).values()) {
        const members = (e.aspects.corpGroupInfo?.value as {members?: string[]} | undefined)?.members ?? []
        map.set(e.urn, new Set(members))
      }
      return map
    })().catch((e) => {
      this.groupMembers = undefined
      throw e
    })
    return this.groupMembers
  }

  private async principal(actor: Actor): Promise<Principal> {
    const groups = new Set<string>()
    const roles = new Set<string>()
    const user = await this.store.getEntity(actor.urn, ['groupMembership', 'nativeGroupMembership', 'roleMembership'])
    for (const g of ((user?.aspects.groupMembership?.value as {groups?: string[]} | undefined)?.groups ?? [])) groups.add(g)
    // DataHub names the list `nativeGroups` here; `groups` was read once and is still honoured.
    const native = user?.aspects.nativeGroupMembership?.value as {nativeGroups?: string[]; groups?: string[]} | undefined
    for (const g of [...(native?.nativeGroups ?? []), ...(native?.groups ?? [])]) groups.add(g)
    for (const r of ((user?.aspects.roleMembership?.value as {roles?: string[]} | undefined)?.roles ?? [])) roles.add(r)
    for (const [g, members] of await this.loadGroupMembers()) if (members.has(actor.urn)) groups.add(g)
    if (groups.size > 0) {
      for (const g of (await this.store.getEntities([...groups], ['roleMembership'])).values()) {
        for (const r of ((g.aspects.roleMembership?.value as {roles?: string[]} | undefined)?.roles ?? [])) roles.add(r)
      }
    }
    return {urn: actor.urn, groups, roles}
  }

  /** The resource's owners, each with the urn of its ownership type. */
  private async owners(resourceUrn: string): Promise<Array<{owner: string; type: string}>> {
    const o = await this.store.getAspect(resourceUrn, 'ownership')
    return ((o?.value as {owners?: Array<{owner: string; type?: string; typeUrn?: string}>} | undefined)?.owners ?? []).map((x) => ({owner: x.owner, type: ownershipTypeUrn(x)}))
  }

  private async resourceMatches(policy: PolicyInfo, resourceUrn: string): Promise<boolean> {
    const r = policy.resources
    if (!r) return true
    // Value constraints (which tags a tag privilege may add, …) are not evaluated per value here:
    // such a policy grants nothing rather than more than it says.
    if ((r.privilegeConstraints?.criteria?.length ?? 0) > 0) return false
    const type = resourceUrn.split(':')[2] ?? ''
    // The legacy `type` narrows `allResources` too: "every dataset", as DataHub reads it.
    if (r.type && r.type !== type) return false
    if (r.allResources) return true
    if (r.resources && r.resources.length > 0 && !r.resources.includes(resourceUrn)) return false
    for (const c of r.filter?.criteria ?? []) {
      const field = CRITERION_FIELDS[c.field]
      // A field this server does not evaluate matches nothing: an unread criterion never widens a policy.
      if (field === undefined) return false
      const actual = field === 'type' ? [type] : field === 'urn' ? [resourceUrn] : await this.fieldValues(resourceUrn, field)
      if (!criterionHolds(c.condition ?? 'EQUALS', c.values, actual)) return false
    }
    return true
  }

  /** The values of an entity's field a criterion tests, read from its aspects. */
  private async fieldValues(resourceUrn: string, field: 'domain' | 'tag' | 'container' | 'platformInstance'): Promise<string[]> {
    const [aspect, read] = FIELD_ASPECTS[field]
    const a = await this.store.getAspect(resourceUrn, aspect)
    return a ? read(a.value as Record<string, any>) : []
  }

  /**
   * The policies granting the actor something on the resource (or on the platform when none is
   * given). With `want`, stops as soon as one of its groups is fully granted, so the common case
   * (an admin, or a policy naming the user) never reads the resource's owners.
   */
  private async matching(who: Principal, policies: LoadedPolicy[], resourceUrn: string | undefined, want?: string[][]): Promise<LoadedPolicy[]> {
    const matched: LoadedPolicy[] = []
    let owners: Array<{owner: string; type: string}> | undefined
    for (const lp of policies) {
      const p = lp.info
      // Platform privileges hold everywhere, so they count for requests on an entity too
      // (MANAGE_GLOSSARIES allows creating under any glossary node).
      if (resourceUrn === undefined && p.type !== 'PLATFORM') continue
      const a = p.actors
      let match = a.allUsers || (a.users ?? []).includes(who.urn) || (a.allGroups && who.groups.size > 0) || (a.groups ?? []).some((g) => who.groups.has(g)) || (a.roles ?? []).some((r) => who.roles.has(r))
      if (!match && a.resourceOwners && resourceUrn !== undefined) {
        owners ??= await this.owners(resourceUrn)
        // `resourceOwnersTypes` narrows the owners to those of the named ownership types.
        const types = a.resourceOwnersTypes ?? []
        match = owners.some((o) => (o.owner === who.urn || who.groups.has(o.owner)) && (types.length === 0 || types.includes(o.type)))
      }
      if (!match) continue
      if (resourceUrn !== undefined && p.type === 'METADATA' && !(await this.resourceMatches(p, resourceUrn))) continue
      matched.push(lp)
      if (want !== undefined && grants(matched, want)) break
    }
    return matched
  }

  /** Every privilege the actor holds on the resource (or on the platform when none is given). */
  async grantedPrivileges(actor: Actor, resourceUrn?: string): Promise<Set<string>> {
    const [policies, who] = await Promise.all([this.loadPolicies(), this.principal(actor)])
    const granted = new Set<string>()
    for (const p of await this.matching(who, policies, resourceUrn)) for (const priv of p.privileges) granted.add(priv)
    return granted
  }

  async authorize(actor: Actor, requests: AuthzRequest[], message?: string): Promise<void> {
    if (requests.length === 0) return
    const [policies, who] = await Promise.all([this.loadPolicies(), this.principal(actor)])
    for (const req of requests) {
      if (!grants(await this.matching(who, policies, req.resourceUrn, req.privileges), req.privileges)) throw new UnauthorizedError(message)
    }
  }
}

/** Criterion fields (DataHub's names, the deprecated RESOURCE_* among them) → what they test; model/aspects/policy.ts admits these. */
const CRITERION_FIELDS: Readonly<Record<string, 'type' | 'urn' | 'domain' | 'tag' | 'container' | 'platformInstance'>> = {
  TYPE: 'type',
  RESOURCE_TYPE: 'type',
  URN: 'urn',
  RESOURCE_URN: 'urn',
  DOMAIN: 'domain',
  TAG: 'tag',
  CONTAINER: 'container',
  DATA_PLATFORM_INSTANCE: 'platformInstance',
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [])

const FIELD_ASPECTS: Readonly<Record<'domain' | 'tag' | 'container' | 'platformInstance', [string, (v: Record<string, any>) => string[]]>> = {
  domain: ['domains', (v) => strings(v.domains)],
  tag: ['globalTags', (v) => (Array.isArray(v.tags) ? v.tags.map((t: {tag?: unknown}) => t?.tag).filter((t: unknown): t is string => typeof t === 'string') : [])],
  container: ['container', (v) => strings(v.container)],
  platformInstance: ['dataPlatformInstance', (v) => strings(v.instance)],
}

/**
 * A criterion on a field's values: EQUALS when one of them is listed, NOT_EQUALS when none is,
 * STARTS_WITH when one begins with a listed value; any other condition holds for nothing.
 */
export function criterionHolds(condition: string, values: readonly string[], actual: readonly string[]): boolean {
  switch (condition) {
    case 'EQUALS':
      return actual.some((a) => values.includes(a))
    case 'NOT_EQUALS':
      return !actual.some((a) => values.includes(a))
    case 'STARTS_WITH':
      return actual.some((a) => values.some((v) => a.startsWith(v)))
    default:
      return false
  }
}

/** Whether the policies together grant every privilege of one of the groups. */
function grants(policies: readonly LoadedPolicy[], groups: readonly string[][]): boolean {
  // Plain loops: this runs per policy matched for every entity of an ingest, and closures allocate.
  for (const group of groups) {
    let all = true
    for (const priv of group) {
      let held = false
      for (const p of policies) if ((held = p.privileges.has(priv))) break
      if (!(all = held)) break
    }
    if (all) return true
  }
  return false
}

/**
 * The ownership type urn of an owner: its `typeUrn`, or the system type its legacy `type` names
 * (`TECHNICAL_OWNER` → `urn:li:ownershipType:__system__technical_owner`, as edits store it).
 */
export function ownershipTypeUrn(o: {type?: string; typeUrn?: string}): string {
  if (typeof o.typeUrn === 'string' && o.typeUrn !== '') return o.typeUrn
  return systemOwnershipTypeUrn(typeof o.type === 'string' ? o.type : 'NONE')
}
