import {expect} from 'chai'
import {Catalog, SYSTEM_ACTOR} from '../../src/catalog/catalog.js'
import {rollbackRun} from '../../src/catalog/runs.js'
import {MemoryStore} from '../../src/store/memory.js'
import {REGISTRY_RULES} from '../../src/store/rules.js'
import {storeConformance, up} from './conformance.js'
import {memoryIndex, searchable, type SearchableStore} from './searchable.js'

const make = (data?: MemoryStore['data']) => searchable(new MemoryStore({rules: REGISTRY_RULES, data}), memoryIndex())

storeConformance('in-memory', async () => {
  let store: SearchableStore<MemoryStore> = make()
  await store.open()
  return {
    get store(): SearchableStore {
      return store
    },
    async reopen() {
      await store.close()
      store = make(store.data)
      await store.open()
      return store
    },
    async cleanup() {
      await store.close()
    },
  }
})

describe('in-memory store', () => {
  it('keeps stores apart: a fresh one is empty, one opened on the data of another sees its writes', async () => {
    const a = make()
    await a.open()
    await a.write([up('urn:li:tag:apart', 'tagProperties', {name: 'apart'})])
    const b = make()
    await b.open()
    expect(await b.exists('urn:li:tag:apart')).to.equal(false)
    const c = make(a.data)
    await c.open()
    expect(await c.exists('urn:li:tag:apart')).to.equal(true)
    expect((await c.search({types: ['tag'], query: 'apart'})).hits.map((h) => h.urn)).to.deep.equal(['urn:li:tag:apart'])
  })

  it('refuses writes when not open', async () => {
    const s = make()
    let err: unknown
    await s.write([up('urn:li:tag:closed', 'tagProperties', {name: 'x'})]).catch((e) => (err = e))
    expect(String(err)).to.match(/not open/)
  })
})

describe('in-memory store under the catalog (in-process, no server)', () => {
  it('writes proposals, reads versions and rolls a run back to the version before it', async () => {
    const store = new MemoryStore({rules: REGISTRY_RULES})
    await store.open()
    const catalog = new Catalog({store})
    const urn = 'urn:li:corpuser:mem-user'
    const propose = (title: string, runId: string) =>
      catalog.propose(SYSTEM_ACTOR, [{entityType: 'corpuser', entityUrn: urn, changeType: 'UPSERT', aspectName: 'corpUserInfo', aspect: {json: {active: true, title}}, systemMetadata: {runId}}])
    await propose('first', 'run-1')
    await propose('second', 'run-2')
    expect(((await catalog.getAspect(urn, 'corpUserInfo')).value as any).title).to.equal('second')
    expect(((await catalog.getAspect(urn, 'corpUserInfo', 1)).value as any).title).to.equal('first')
    const report = await rollbackRun(catalog, SYSTEM_ACTOR, {runId: 'run-2'})
    expect(report.aspectsReverted).to.equal(1)
    expect(((await catalog.getAspect(urn, 'corpUserInfo')).value as any).title).to.equal('first')
    // Rolling back the run that created the user marks it removed; the user (and its key) stays.
    await rollbackRun(catalog, SYSTEM_ACTOR, {runId: 'run-1'})
    expect(await store.exists(urn)).to.equal(true)
    expect(await store.exists(urn, {includeSoftDeleted: false})).to.equal(false)
    expect((await store.getAspect(urn, 'corpUserKey'))?.value).to.deep.equal({username: 'mem-user'})
  })
})
