/**
 * Access policies as a service: create, update, delete and list `dataHubPolicy` entities.
 * Every change needs the platform privilege MANAGE_POLICIES; policies marked not editable
 * (the root user's) cannot be changed or deleted, so the catalog cannot lock its admin out.
 */
import {randomUUID} from 'node:crypto'
import {BadRequestError, NotFoundError} from '../../errors.js'
import {validateUrn} from '../../model/registry.js'
import {type Actor, type Catalog, type Grant} from '../catalog.js'
import {prepareProposal} from '../proposal.js'
import type {PolicyInfo} from './default-policies.js'
import {ALL_PRIVILEGES} from './privileges.js'

export interface PolicyInput {
  type: 'METADATA' | 'PLATFORM'
  name: string
  state: 'DRAFT' | 'ACTIVE' | 'INACTIVE'
  description?: string | null
  resources?: PolicyInfo['resources'] | null
  privileges: string[]
  actors: PolicyInfo['actors']
}

export interface Policy extends PolicyInfo {
  urn: string
}

const POLICY_PREFIX = 'urn:li:dataHubPolicy:'

function clean<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as T
}

export class PolicyService {
  constructor(private readonly catalog: Catalog) {}

  private mayManage(actor: Actor): Promise<Grant> {
    return this.catalog.authorize(actor, [{privileges: [['MANAGE_POLICIES']]}])
  }

  private toInfo(input: PolicyInput): PolicyInfo {
    if (!input.name || input.name.trim() === '') throw new BadRequestError('A policy needs a name')
    const unknown = input.privileges.filter((p) => !ALL_PRIVILEGES.has(p))
    if (unknown.length > 0) throw new BadRequestError(`Unknown privilege(s): ${unknown.join(', ')}`)
    for (const u of [...(input.actors.users ?? []), ...(input.actors.groups ?? [])]) validateUrn(u)
    for (const u of input.actors.users ?? []) if (!u.startsWith('urn:li:corpuser:')) throw new BadRequestError(`actors.users takes corp user urns, found ${u}`)
    for (const g of input.actors.groups ?? []) if (!g.startsWith('urn:li:corpGroup:')) throw new BadRequestError(`actors.groups takes corp group urns, found ${g}`)
    const state = input.state === 'DRAFT' ? 'INACTIVE' : input.state
    return clean({
      displayName: input.name,
      description: input.description ?? '',
      type: input.type,
      state,
      privileges: [...new Set(input.privileges)],
      actors: clean({...input.actors, resourceOwners: Boolean(input.actors.resourceOwners), allUsers: Boolean(input.actors.allUsers), allGroups: Boolean(input.actors.allGroups)}),
      resources: input.resources ? clean({...input.resources, filter: input.resources.filter ?? undefined}) : undefined,
      editable: true,
      lastUpdatedTimestamp: this.catalog.now(),
    } as unknown as Record<string, unknown>) as unknown as PolicyInfo
  }

  private async write(grant: Grant, urn: string, info: PolicyInfo): Promise<void> {
    await this.catalog.apply(grant, [prepareProposal({entityUrn: urn, aspectName: 'dataHubPolicyInfo', changeType: 'UPSERT', aspect: {json: info}})])
  }

  async get(urn: string): Promise<Policy> {
    if (!urn.startsWith(POLICY_PREFIX)) throw new BadRequestError(`Expected a policy urn (${POLICY_PREFIX}<id>), found ${urn}`)
    const a = await this.catalog.rawAspect(urn, 'dataHubPolicyInfo')
    if (!a) throw new NotFoundError(`Policy ${urn} does not exist`)
    return {urn, ...(a.value as PolicyInfo)}
  }

  async create(actor: Actor, input: PolicyInput): Promise<string> {
    const grant = await this.mayManage(actor)
    const urn = POLICY_PREFIX + randomUUID()
    await this.write(grant, urn, this.toInfo(input))
    return urn
  }

  async update(actor: Actor, urn: string, input: PolicyInput): Promise<string> {
    const grant = await this.mayManage(actor)
    const current = await this.get(urn)
    if (current.editable === false) throw new BadRequestError(`Policy ${urn} (${current.displayName}) is not editable`)
    await this.write(grant, urn, this.toInfo(input))
    return urn
  }

  async delete(actor: Actor, urn: string): Promise<string> {
    const grant = await this.mayManage(actor)
    const current = await this.get(urn)
    if (current.editable === false) throw new BadRequestError(`Policy ${urn} (${current.displayName}) cannot be deleted`)
    await this.catalog.writeOps(grant, [{op: 'deleteEntity', urn}])
    return urn
  }

  /**
   * Policies, matching `query` (name or description) and `orFilters` — an OR of AND-groups of
   * conditions on `state`, `type` or `editable`, as DataHub's settings page sends them.
   */
  async list(actor: Actor, opts: {start?: number; count?: number; query?: string; orFilters?: PolicyFilter[][]} = {}): Promise<{total: number; policies: Policy[]}> {
    await this.mayManage(actor)
    const all: Policy[] = []
    for (const e of await this.catalog.rawEntitiesOfType('dataHubPolicy', ['dataHubPolicyInfo'])) {
      const info = e.aspects.dataHubPolicyInfo?.value as PolicyInfo | undefined
      if (info) all.push({urn: e.urn, ...info})
    }
    const q = opts.query?.trim().toLowerCase()
    const byText = q ? all.filter((p) => p.displayName.toLowerCase().includes(q) || p.description.toLowerCase().includes(q)) : all
    const groups = (opts.orFilters ?? []).filter((g) => g.length > 0)
    const matched = groups.length === 0 ? byText : byText.filter((p) => groups.some((g) => g.every((c) => policyMatches(p, c))))
    const start = opts.start ?? 0
    return {total: matched.length, policies: matched.slice(start, start + (opts.count ?? 20))}
  }
}

/** One condition of a policy filter: the policy's `field` equals one of `values` (or, negated, none). */
export interface PolicyFilter {
  field: string
  values: string[]
  negated?: boolean
}

function policyMatches(p: Policy, c: PolicyFilter): boolean {
  const value = c.field === 'state' ? p.state : c.field === 'type' ? p.type : c.field === 'editable' ? String(p.editable !== false) : undefined
  // A field policies do not have matches nothing, as a search on an unknown field does.
  const hit = value !== undefined && c.values.some((v) => v.toUpperCase() === String(value).toUpperCase())
  return c.negated ? !hit : hit
}
