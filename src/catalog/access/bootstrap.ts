/**
 * First start of a catalog: the root user (with the Admin role), DataHub's roles and default
 * policies, and one admin access token.
 *
 * It only ever adds: on a store that already has users or policies — ours from an earlier start,
 * or DataHub's own database — each part is written only when it is absent, and nothing present
 * is overwritten (DataHub's root user keeps its `corpUserInfo`, its policies keep theirs). A
 * default policy that can be deleted (editable) is written only on a store with no policies at
 * all, so one an administrator deleted does not come back at the next start. The token is made
 * only when the store has none, so a restart never mints a second one.
 */
import {isDeepStrictEqual} from 'node:util'
import {DEFAULT_RUN_ID} from '../../store/types.js'
import {type Catalog} from '../catalog.js'
import {prepareProposal} from '../proposal.js'
import type {ProposalInput} from '../../model/wire.js'
import {DEFAULT_POLICIES, ROLES, ROOT_USER, SUPERSEDED_POLICIES} from './default-policies.js'
import {TokenService} from './tokens.js'

type Part = {entityUrn: string; aspectName: string; changeType: 'UPSERT'; aspect: {json: unknown}} & ProposalInput

const p = (entityUrn: string, aspectName: string, json: unknown): Part => ({entityUrn, aspectName, changeType: 'UPSERT', aspect: {json}})

async function any(catalog: Catalog, entityType: string): Promise<boolean> {
  return (await catalog.rawUrns({entityType, count: 1})).total > 0
}

const policyUrn = (id: string) => `urn:li:dataHubPolicy:${id}`

/** Sets up access control where it is missing; returns the admin token when one was made now. */
export async function bootstrapAccess(catalog: Catalog): Promise<{adminToken?: string}> {
  const wanted: Part[] = [
    ...Object.entries(ROLES).map(([name, urn]) => p(urn, 'dataHubRoleInfo', {name, description: `The ${name} role`, editable: false})),
    ...DEFAULT_POLICIES.map(({id, info}) => p(policyUrn(id), 'dataHubPolicyInfo', info)),
    p(ROOT_USER, 'corpUserInfo', {active: true, displayName: 'Admin', title: 'Root user'}),
    p(ROOT_USER, 'roleMembership', {roles: [ROLES.Admin]}),
  ]
  const urns = [...new Set(wanted.map((w) => w.entityUrn))]
  // Rows another program wrote (DataHub's table before a reindex) must be seen, or they would be overwritten.
  await catalog.indexExisting(urns)
  const present = await catalog.rawEntities(urns, [...new Set(wanted.map((w) => w.aspectName))])
  const has = (w: Part) => present.get(w.entityUrn)?.aspects[w.aspectName] !== undefined
  const noPolicies = !DEFAULT_POLICIES.some(({id}) => present.has(policyUrn(id))) && !(await any(catalog, 'dataHubPolicy'))
  const editable = new Set(DEFAULT_POLICIES.filter(({info}) => info.editable !== false).map(({id}) => policyUrn(id)))
  // A default policy an older mdcli wrote with a value since corrected gets today's value.
  const outdated = (w: Part) => {
    if (w.aspectName !== 'dataHubPolicyInfo') return false
    const stored = present.get(w.entityUrn)?.aspects.dataHubPolicyInfo?.value
    return SUPERSEDED_POLICIES.some(({id, info}) => policyUrn(id) === w.entityUrn && isDeepStrictEqual(stored, JSON.parse(JSON.stringify(info))))
  }
  const proposals = wanted.filter((w) => (!has(w) && (noPolicies || !editable.has(w.entityUrn))) || (has(w) && outdated(w)))
  if (proposals.length > 0) {
    await catalog.apply(catalog.systemGrant(), proposals.map((x) => prepareProposal(x)), {runId: DEFAULT_RUN_ID})
  }
  if (await any(catalog, 'dataHubAccessToken')) return {}
  const {accessToken} = await new TokenService(catalog).mint(catalog.systemGrant(), {actorUrn: ROOT_USER, name: 'admin token (first start)', duration: 'NO_EXPIRY'})
  return {adminToken: accessToken}
}

/**
 * A new admin token for a stopped store, for an admin whose first-start token was lost: the
 * directory lock refuses it while a server holds the store. Returns the token (shown once).
 */
export async function recoverAdminToken(storeDir: string, name: string): Promise<{accessToken: string; id: string}> {
  const {openSearchIndex, openStore} = await import('../../store/index.js')
  const {Catalog} = await import('../catalog.js')
  // A database without mdcli's schema is refused, as mustHoldStore refuses an empty directory.
  const store = await openStore({dir: storeDir, mustExist: true})
  const search = await openSearchIndex({dir: storeDir})
  try {
    const catalog = new Catalog({store, search})
    const {accessToken, metadata} = await new TokenService(catalog).mint(catalog.systemGrant(), {actorUrn: ROOT_USER, name, duration: 'NO_EXPIRY'})
    return {accessToken, id: metadata.id}
  } finally {
    await store.close()
    await search.close()
  }
}
