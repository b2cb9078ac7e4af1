import {expect} from 'chai'
import {denyAll} from '../../src/catalog/authorize.js'
import {Catalog, type Grant, SYSTEM_ACTOR} from '../../src/catalog/catalog.js'
import {prepareProposal} from '../../src/catalog/proposal.js'
import {BugError, UnauthorizedError} from '../../src/errors.js'
import {createMemoryStore} from '../../src/store/index.js'

const URN = 'urn:li:tag:granted'
const tagWrite = () => [prepareProposal({entityUrn: URN, aspectName: 'tagProperties', changeType: 'UPSERT', aspect: {json: {name: 'granted'}}})]

async function catalogWith(authorizer = denyAll): Promise<Catalog> {
  const store = createMemoryStore()
  await store.open()
  return new Catalog({store, authorizer})
}

describe('Catalog grants: no write without the authorizer (in-process)', () => {
  it('a refused actor gets no grant, and nothing is written', async () => {
    const catalog = await catalogWith()
    let err: unknown
    await catalog.authorize({urn: 'urn:li:corpuser:eve'}, [{resourceUrn: URN, privileges: [['EDIT_ENTITY']]}]).catch((e) => (err = e))
    expect(err).to.be.instanceOf(UnauthorizedError)
    expect(await catalog.exists(URN)).to.equal(false)
  })

  it('a grant the catalog did not make is refused as a bug', async () => {
    const catalog = await catalogWith()
    const forged: Grant = {actor: SYSTEM_ACTOR}
    let err: unknown
    await catalog.apply(forged, tagWrite()).catch((e) => (err = e))
    expect(err).to.be.instanceOf(BugError)
    await catalog.writeOps(forged, [{op: 'deleteEntity', urn: URN}]).catch((e) => (err = e))
    expect(err).to.be.instanceOf(BugError)
    expect(await catalog.exists(URN)).to.equal(false)
  })

  it("another catalog's grant is refused", async () => {
    const one = await catalogWith()
    const other = await catalogWith()
    let err: unknown
    await other.apply(one.systemGrant(), tagWrite()).catch((e) => (err = e))
    expect(err).to.be.instanceOf(BugError)
  })

  it("the system's grant writes as the system, declared where it is taken", async () => {
    const catalog = await catalogWith()
    await catalog.apply(catalog.systemGrant(), tagWrite())
    expect((await catalog.getAspect(URN, 'tagProperties')).created.actor).to.equal(SYSTEM_ACTOR.urn)
  })
})
