import {expect} from 'chai'
import {appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {createStore} from '../../src/store/index.js'
import type {MetadataStore} from '../../src/store/types.js'
import {cleanup, tempDir} from '../helpers/lite.js'
import {storeConformance, up} from './conformance.js'

function harness(checkpointBytes?: number) {
  return async () => {
    const dir = tempDir('mdcli-store-')
    let store: MetadataStore = createStore({dir, checkpointBytes})
    await store.open()
    return {
      get store() {
        return store
      },
      async reopen() {
        await store.close()
        store = createStore({dir, checkpointBytes})
        await store.open()
        return store
      },
      async cleanup() {
        await store.close()
        cleanup(dir)
      },
    }
  }
}

storeConformance('lowdb (journal + shards)', harness())
storeConformance('lowdb, checkpointing every few hundred bytes', harness(512))

const DS = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${n},PROD)`

describe('lowdb store files', () => {
  let dir: string
  beforeEach(() => (dir = tempDir('mdcli-store-')))
  afterEach(() => cleanup(dir))

  it('recovers acknowledged writes from the journal when the process died without a checkpoint', async () => {
    const a = createStore({dir})
    await a.open()
    await a.write([up(DS('j1'), 'status', {removed: false})])
    await a.write([up(DS('j1'), 'globalTags', {tags: [{tag: 'urn:li:tag:x'}]})])
    // No close(): as after kill -9, only the journal holds the writes. Drop the lock by hand.
    writeFileSync(join(dir, 'LOCK'), '999999999')
    const b = createStore({dir})
    await b.open()
    expect(((await b.getAspect(DS('j1'), 'globalTags'))!.value as any).tags[0].tag).to.equal('urn:li:tag:x')
    await b.close()
  })

  it('cuts a torn last journal record (a write whose sync never finished) and starts', async () => {
    const a = createStore({dir})
    await a.open()
    await a.write([up(DS('t1'), 'status', {removed: false})])
    writeFileSync(join(dir, 'LOCK'), '999999999')
    const wal = readdirSync(join(dir, 'wal')).sort().at(-1)!
    appendFileSync(join(dir, 'wal', wal), '{"l":99,"o":[{"op":"ups')
    const warnings: string[] = []
    const b = createStore({dir, warn: (m) => warnings.push(m)})
    await b.open()
    expect(await b.exists(DS('t1'))).to.equal(true)
    expect(warnings.join('\n')).to.match(/incomplete last record/)
    await b.close()
  })

  it('refuses to start on an unreadable shard and leaves it untouched', async () => {
    const a = createStore({dir})
    await a.open()
    await a.write([up(DS('c1'), 'status', {removed: false})])
    await a.close()
    const shard = readdirSync(join(dir, 'shards')).find((f) => f.endsWith('.json'))!
    const path = join(dir, 'shards', shard)
    writeFileSync(path, '{"format": "mdcli-lowdb-1", "entities": {broken')
    const before = readFileSync(path, 'utf8')
    const b = createStore({dir})
    let code: string | undefined
    try {
      await b.open()
    } catch (e) {
      code = (e as {code: string}).code
      expect((e as Error).message).to.include(shard)
    }
    expect(code).to.equal('E_STORE_CORRUPT')
    expect(readFileSync(path, 'utf8')).to.equal(before)
    expect(existsSync(join(dir, 'LOCK'))).to.equal(false)
  })

  it('refuses a journal record that is unreadable in the middle', async () => {
    const a = createStore({dir})
    await a.open()
    await a.write([up(DS('m1'), 'status', {removed: false})])
    writeFileSync(join(dir, 'LOCK'), '999999999')
    const wal = join(dir, 'wal', readdirSync(join(dir, 'wal')).sort().at(-1)!)
    writeFileSync(wal, 'garbage\n' + readFileSync(wal, 'utf8'))
    let code: string | undefined
    try {
      await createStore({dir}).open()
    } catch (e) {
      code = (e as {code: string}).code
    }
    expect(code).to.equal('E_STORE_CORRUPT')
  })

  it('refuses a second process on the same store', async () => {
    const a = createStore({dir})
    await a.open()
    writeFileSync(join(dir, 'LOCK'), String(process.ppid))
    let code: string | undefined
    try {
      await createStore({dir}).open()
    } catch (e) {
      code = (e as {code: string}).code
    }
    expect(code).to.equal('E_STORE_LOCKED')
    writeFileSync(join(dir, 'LOCK'), String(process.pid))
    await a.close()
  })

  it('checkpoints into shard files and trims the journal', async () => {
    const a = createStore({dir, checkpointBytes: 1})
    await a.open()
    for (let i = 0; i < 20; i++) await a.write([up(DS(`k${i}`), 'status', {removed: false})])
    await a.close()
    expect(readdirSync(join(dir, 'shards')).filter((f) => f.endsWith('.json')).length).to.be.greaterThan(5)
    const wal = readdirSync(join(dir, 'wal'))
    expect(wal.length).to.be.at.most(1)
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    expect(m.format).to.equal('mdcli-lowdb-2')
  })
})

describe('lowdb store search thread', () => {
  let dir: string
  beforeEach(() => (dir = tempDir('mdcli-store-')))
  afterEach(() => cleanup(dir))

  it('restarts a search thread that died, with the whole index, and says so once', async () => {
    const warnings: string[] = []
    const store = createStore({dir, warn: (m) => warnings.push(m)})
    await store.open()
    try {
      await store.write([up(DS('orders'), 'datasetProperties', {name: 'orders', description: 'customer orders'})])
      const find = async () => (await store.search({types: ['dataset'], query: 'customer'})).hits.map((h) => h.urn)
      expect(await find()).to.deep.equal([DS('orders')])
      // The thread ends under the store (as a crash would); a write lands while it is down.
      await (store as unknown as {worker: {terminate(): Promise<number>}}).worker.terminate()
      await store.write([up(DS('refunds'), 'datasetProperties', {name: 'refunds', description: 'customer refunds'})])
      expect((await find()).sort()).to.deep.equal([DS('orders'), DS('refunds')])
      expect(warnings.filter((w) => /search thread .*restarting it/.test(w))).to.have.length(1)
    } finally {
      await store.close()
    }
  })
})
