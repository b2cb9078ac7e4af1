import {expect} from 'chai'
import {ACCESS_CACHE_MAX_AGE_MS} from '../../src/catalog/access/cache-bound.js'
import {PolicyAuthorizer} from '../../src/catalog/access/policy-authorizer.js'
import {TokenService} from '../../src/catalog/access/tokens.js'
import {Catalog} from '../../src/catalog/catalog.js'
import {prepareProposal} from '../../src/catalog/proposal.js'
import {UnauthenticatedError, UnauthorizedError} from '../../src/errors.js'
import {createMemoryStore} from '../../src/store/index.js'

/**
 * Two catalogs on one store that tells neither of the other's writes: a replica whose
 * notifications never arrive. What one changes must hold on the other within the bound anyway.
 */
const SLACK_MS = 5_000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const USER = 'urn:li:corpuser:bound'
const TAG = 'urn:li:tag:bound'

async function within(limitMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now()
  for (;;) {
    if (await probe()) return Date.now() - started
    if (Date.now() - started > limitMs) throw new Error(`not within ${limitMs} ms`)
    await sleep(100)
  }
}

describe('access caches expire within ACCESS_CACHE_MAX_AGE_MS without any notification (in-process)', function () {
  this.timeout(60_000)

  async function replicas() {
    const store = createMemoryStore()
    await store.open()
    const a = new Catalog({store, authorizer: new PolicyAuthorizer(store)})
    const b = new Catalog({store, authorizer: new PolicyAuthorizer(store)})
    return {a, b, tokensA: new TokenService(a), tokensB: new TokenService(b)}
  }

  it('a token revoked through one catalog is refused by the other within the bound', async () => {
    const {a, tokensA, tokensB} = await replicas()
    const {accessToken, metadata} = await tokensA.mint(a.systemGrant(), {actorUrn: USER, name: 'bound'})
    expect((await tokensB.verify(accessToken)).urn).to.equal(USER)
    await a.writeOps(a.systemGrant(), [{op: 'deleteEntity', urn: metadata.urn}])
    // A's own cache follows its write at once; B hears nothing and relies on the bound.
    await tokensA.verify(accessToken).then(
      () => expect.fail('A still accepts the token it revoked'),
      (e) => expect(e).to.be.instanceOf(UnauthenticatedError),
    )
    expect((await tokensB.verify(accessToken)).urn, 'B still has it cached: no notification reached it').to.equal(USER)
    await within(ACCESS_CACHE_MAX_AGE_MS + SLACK_MS, () => tokensB.verify(accessToken).then(() => false, (e) => e instanceof UnauthenticatedError))
  })

  it('a policy granted through one catalog is seen by the other within the bound, and so is its removal', async () => {
    const {a, b} = await replicas()
    const edit = [{resourceUrn: TAG, privileges: [['EDIT_ENTITY']]}]
    const refused = () => b.authorize({urn: USER}, edit).then(() => false, (e) => e instanceof UnauthorizedError)
    const allowed = () => b.authorize({urn: USER}, edit).then(() => true, () => false)
    // B loads (and caches) the policies: none grants USER anything.
    expect(await refused()).to.equal(true)
    const policy = 'urn:li:dataHubPolicy:bound'
    const info = {displayName: 'bound', description: '', type: 'METADATA', state: 'ACTIVE', privileges: ['EDIT_ENTITY'], actors: {users: [USER], resourceOwners: false, allUsers: false, allGroups: false}, editable: true}
    await a.apply(a.systemGrant(), [prepareProposal({entityUrn: policy, aspectName: 'dataHubPolicyInfo', changeType: 'UPSERT', aspect: {json: info}})])
    await within(ACCESS_CACHE_MAX_AGE_MS + SLACK_MS, allowed)
    await a.apply(a.systemGrant(), [prepareProposal({entityUrn: policy, aspectName: 'dataHubPolicyInfo', changeType: 'UPSERT', aspect: {json: {...info, state: 'INACTIVE'}}})])
    await within(ACCESS_CACHE_MAX_AGE_MS + SLACK_MS, refused)
  })
})
