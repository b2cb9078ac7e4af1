/**
 * Resolvers for access tokens, policies and `me`: each calls the token or policy service with
 * the request's actor; the services do the access checks.
 */
import {PolicyService, type Policy} from '../../catalog/access/policies.js'
import {hashToken, TokenService} from '../../catalog/access/tokens.js'
import {Ent, type GqlContext, stub, stubOrNull} from './context.js'
import type {Resolver} from './entities.js'

type Obj = Record<string, any>

// One per catalog: a TokenService listens to the catalog's writes for as long as the catalog
// lives, so one made per request would pile up listeners.
const services = new WeakMap<GqlContext['catalog'], TokenService>()
const tokens = (ctx: GqlContext): TokenService => {
  let t = services.get(ctx.catalog)
  if (!t) services.set(ctx.catalog, (t = new TokenService(ctx.catalog)))
  return t
}
const policies = (ctx: GqlContext) => new PolicyService(ctx.catalog)

function tokenView(t: Obj): Obj {
  return {...t, type: 'ACCESS_TOKEN', expiresAt: t.expiresAt ?? null, description: t.description ?? null}
}

const stubs = (urns: string[] | undefined, type: string) => (urns ?? []).map((u) => stub(u, type))

/** A policy's actor filter, with the urns it names also as entities (DataHub's resolved* fields). */
export function actorFilterView(a: Obj): Obj {
  return {
    resourceOwners: false,
    allUsers: false,
    allGroups: false,
    ...a,
    resolvedUsers: stubs(a.users, 'corpuser'),
    resolvedGroups: stubs(a.groups, 'corpGroup'),
    resolvedRoles: stubs(a.roles, 'dataHubRole'),
    resolvedOwnershipTypes: stubs(a.resourceOwnersTypes, 'ownershipType'),
  }
}

/** A policy's resource filter as DataHub answers it: each criterion's values with their entities. */
export function resourceFilterView(r: Obj | undefined | null): Obj | null {
  if (!r) return null
  const criteria = r.filter?.criteria
  return {
    ...r,
    filter: r.filter
      ? {
          criteria: Array.isArray(criteria)
            ? criteria.map((c: Obj) => ({
                field: c.field,
                condition: c.condition ?? 'EQUALS',
                values: (c.values ?? []).map((v: string) => ({value: v, entity: typeof v === 'string' && v.startsWith('urn:li:') ? stub(v) : null})),
              }))
            : null,
        }
      : null,
  }
}

function policyView(p: Policy): Obj {
  return {
    urn: p.urn,
    type: p.type,
    name: p.displayName,
    state: p.state,
    description: p.description ?? null,
    resources: resourceFilterView(p.resources),
    privileges: p.privileges,
    actors: actorFilterView(p.actors),
    editable: p.editable !== false,
  }
}

export const ACCESS_QUERY_FIELDS: Record<string, Resolver> = {
  listAccessTokens: async (_s, {input}: {input: Obj}, ctx: GqlContext) => {
    const filters: Array<{field: string; values?: string[]; value?: string}> = input.filters ?? []
    const pick = (field: string) => filters.find((f) => f.field === field)?.values?.[0] ?? filters.find((f) => f.field === field)?.value
    const all = await tokens(ctx).listFor(ctx.actor, {actorUrn: pick('actorUrn'), ownerUrn: pick('ownerUrn')})
    const start = input.start ?? 0
    const count = input.count ?? 20
    return {start, count, total: all.length, tokens: all.slice(start, start + count).map(tokenView)}
  },
  // Whoever holds a token may read its metadata: knowing the secret is the proof.
  getAccessTokenMetadata: async (_s, {token}: {token: string}, ctx: GqlContext) => {
    await tokens(ctx).verify(token)
    return tokenView(await tokens(ctx).get(hashToken(token)))
  },
  listPolicies: async (_s, {input}: {input: Obj}, ctx: GqlContext) => {
    const start = input.start ?? 0
    const count = input.count ?? 20
    const orFilters = ((input.orFilters ?? []) as Array<{and?: Obj[] | null}>).map((g) =>
      (g.and ?? []).map((f) => ({field: f.field as string, values: (f.values ?? (f.value != null ? [f.value] : [])) as string[], negated: f.negated === true})),
    )
    const r = await policies(ctx).list(ctx.actor, {start, count, query: input.query ?? undefined, orFilters})
    return {start, count, total: r.total, policies: r.policies.map(policyView)}
  },
}

export const ACCESS_MUTATION_FIELDS: Record<string, Resolver> = {
  createAccessToken: async (_s, {input}: {input: Obj}, ctx: GqlContext) => {
    const r = await tokens(ctx).create(ctx.actor, {actorUrn: input.actorUrn, name: input.name, description: input.description ?? undefined, duration: input.duration})
    return {accessToken: r.accessToken, metadata: tokenView(r.metadata)}
  },
  revokeAccessToken: async (_s, {tokenId}: {tokenId: string}, ctx: GqlContext) => {
    await tokens(ctx).revoke(ctx.actor, tokenId)
    return true
  },
  createPolicy: async (_s, {input}: {input: Obj}, ctx: GqlContext) => policies(ctx).create(ctx.actor, input as never),
  updatePolicy: async (_s, {urn, input}: {urn: string; input: Obj}, ctx: GqlContext) => policies(ctx).update(ctx.actor, urn, input as never),
  deletePolicy: async (_s, {urn}: {urn: string}, ctx: GqlContext) => policies(ctx).delete(ctx.actor, urn),
}

/**
 * A token read as an entity is checked once per request, through the token service, so the
 * entity path shows no more than listAccessTokens; listed tokens arrive already checked.
 */
function tokenField(pick: (t: Obj) => unknown): Resolver {
  return async (src: Obj, _a, ctx: GqlContext) => {
    if (!(src instanceof Ent)) return pick(src)
    const c = ctx as GqlContext & {tokenViews?: Map<string, Promise<Obj>>}
    const views = (c.tokenViews ??= new Map())
    let v = views.get(src.urn)
    if (!v) {
      v = tokens(ctx).getFor(ctx.actor, src.urn.slice('urn:li:dataHubAccessToken:'.length)).then(tokenView)
      views.set(src.urn, v)
    }
    return pick(await v)
  }
}

export const ACCESS_TYPE_FIELDS: Record<string, Record<string, Resolver>> = {
  AccessTokenMetadata: {
    urn: (s: Obj) => s.urn,
    type: () => 'ACCESS_TOKEN',
    id: tokenField((t) => t.id),
    name: tokenField((t) => t.name),
    description: tokenField((t) => t.description),
    actorUrn: tokenField((t) => t.actorUrn),
    ownerUrn: tokenField((t) => t.ownerUrn),
    createdAt: tokenField((t) => t.createdAt),
    expiresAt: tokenField((t) => t.expiresAt),
    actorEntity: tokenField((t) => stubOrNull(t.actorUrn, 'corpuser')),
    ownerEntity: tokenField((t) => stubOrNull(t.ownerUrn, 'corpuser')),
    owner: tokenField((t) => stubOrNull(t.ownerUrn, 'corpuser')),
  },
}
