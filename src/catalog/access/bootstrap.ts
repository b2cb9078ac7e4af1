/**
 * First start of a catalog: the root user (with the Admin role), DataHub's roles and default
 * policies, and one admin access token — created only when the store has none of them, so a
 * restart never mints a second token.
 */
import {DEFAULT_RUN_ID} from '../../store/types.js'
import {type Catalog, storeOf} from '../catalog.js'
import {prepareProposal, type ProposalInput} from '../proposal.js'
import {DEFAULT_POLICIES, ROLES, ROOT_USER} from './default-policies.js'
import {TokenService} from './tokens.js'

const p = (entityUrn: string, aspectName: string, json: unknown): ProposalInput => ({entityUrn, aspectName, changeType: 'UPSERT', aspect: {json}})

async function any(catalog: Catalog, entityType: string): Promise<boolean> {
  return (await storeOf(catalog).listUrns({entityType, count: 1, includeSoftDeleted: true})).total > 0
}

/** Sets up access control on an empty catalog; returns the admin token when one was made now. */
export async function bootstrapAccess(catalog: Catalog): Promise<{adminToken?: string}> {
  const proposals: ProposalInput[] = []
  if (!(await any(catalog, 'dataHubPolicy'))) {
    for (const [name, urn] of Object.entries(ROLES)) proposals.push(p(urn, 'dataHubRoleInfo', {name, description: `The ${name} role`, editable: false}))
    for (const {id, info} of DEFAULT_POLICIES) proposals.push(p(`urn:li:dataHubPolicy:${id}`, 'dataHubPolicyInfo', info))
  }
  if (!(await storeOf(catalog).exists(ROOT_USER))) {
    proposals.push(p(ROOT_USER, 'corpUserInfo', {active: true, displayName: 'Admin', title: 'Root user'}))
    proposals.push(p(ROOT_USER, 'roleMembership', {roles: [ROLES.Admin]}))
  }
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
  const {openStore} = await import('../../store/index.js')
  const {Catalog} = await import('../catalog.js')
  const store = await openStore({dir: storeDir})
  try {
    const catalog = new Catalog({store})
    const {accessToken, metadata} = await new TokenService(catalog).mint(catalog.systemGrant(), {actorUrn: ROOT_USER, name, duration: 'NO_EXPIRY'})
    return {accessToken, id: metadata.id}
  } finally {
    await store.close()
  }
}
