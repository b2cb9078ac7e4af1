import {expect} from 'chai'
import {createHash} from 'node:crypto'
import {appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {noteSearchProjection} from '../../src/catalog/search-feed.js'
import {createStore} from '../../src/store/index.js'
import {decodeRecord, JournalEncoder, type JournalRecord} from '../../src/store/embedded/journal.js'
import {manifestChecksum} from '../../src/store/embedded/manifest.js'
import {INDEX_BATCH, INDEX_IN_FLIGHT, type SearchThread} from '../../src/store/embedded/search-thread.js'
import {LowdbStore} from '../../src/store/lowdb-store.js'
import {REGISTRY_RULES} from '../../src/store/rules.js'
import type {MetadataStore, WriteOp} from '../../src/store/types.js'
import {cleanup, tempDir} from '../helpers/lite.js'
import {storeConformance, ts, up} from './conformance.js'
import {searchable, type SearchableStore, threadIndex} from './searchable.js'

function harness(checkpointBytes?: number) {
  return async () => {
    const dir = tempDir('mdcli-store-')
    const make = () => searchable(createStore({dir, checkpointBytes}), threadIndex())
    let store: SearchableStore = make()
    await store.open()
    return {
      get store() {
        return store
      },
      async reopen() {
        await store.close()
        store = make()
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

/** The shard file the first checkpoint writes an urn's entity to (FNV-1a of the urn over 64 shards), for stores written by hand. */
function firstShardFile(urn: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < urn.length; i++) h = Math.imul(h ^ urn.charCodeAt(i), 0x01000193)
  return `shards/shard-${String((h >>> 0) % 64).padStart(2, '0')}.g1.json`
}


/** The code a second open of the store at `dir` is refused with, or undefined when it opens. */
async function refusalOfOpen(dir: string): Promise<string | undefined> {
  try {
    await createStore({dir}).open()
  } catch (e) {
    return (e as {code: string}).code
  }
  return undefined
}

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

  it('replays every key aspect after a kill -9 though the journal holds it only where an op created the entity', async () => {
    const [x, y, z] = [DS('key-x'), DS('key-y'), DS('key-z')]
    const a = createStore({dir})
    await a.open()
    await a.write([up(x, 'status', {removed: false}), up(x, 'globalTags', {tags: []}), up(y, 'status', {removed: false})])
    // x deleted and made again in one batch; y loses an aspect and gains one; z is new.
    await a.write([{op: 'deleteEntity', urn: x}, up(x, 'ownership', {owners: []}), up(x, 'status', {removed: true})])
    await a.write([{op: 'deleteAspect', urn: y, aspectName: 'status'}, up(y, 'globalTags', {tags: [{tag: 'urn:li:tag:t'}]})])
    await a.write([up(z, 'status', {removed: false}), up(y, 'ownership', {owners: []})])
    const before = await Promise.all([x, y, z].map((u) => a.getEntity(u)))
    writeFileSync(join(dir, 'LOCK'), '999999999')
    const wal = readdirSync(join(dir, 'wal')).sort().at(-1)!
    const keyed = readFileSync(join(dir, 'wal', wal), 'utf8')
      .split('\n')
      .slice(0, -1)
      .flatMap((l) => decodeRecord(l).o)
      .filter((o) => o.op === 'upsert')
      .map((o) => `${o.urn === x ? 'x' : o.urn === y ? 'y' : 'z'}${'keyAspect' in o && o.keyAspect ? '+key' : ''}`)
    expect(keyed).to.deep.equal(['x+key', 'x', 'y+key', 'x+key', 'x', 'y+key', 'z+key', 'y'])
    const b = createStore({dir})
    await b.open()
    const after = await Promise.all([x, y, z].map((u) => b.getEntity(u)))
    expect(JSON.parse(JSON.stringify(after))).to.deep.equal(JSON.parse(JSON.stringify(before)))
    for (const e of after) expect(Object.keys(e!.aspects)).to.include('datasetKey')
    await b.close()
  })

  /**
   * A store left as a kill -9 leaves it: one acknowledged write, the journal's last segment ending
   * in half a record, and `then` (when given) written as the next segment. Returns that segment.
   */
  async function tornJournal(urn: string, then?: (whole: string) => string): Promise<string> {
    const a = createStore({dir})
    await a.open()
    await a.write([up(urn, 'status', {removed: false})])
    writeFileSync(join(dir, 'LOCK'), '999999999')
    const wal = readdirSync(join(dir, 'wal')).sort().at(-1)!
    const whole = readFileSync(join(dir, 'wal', wal), 'utf8').split('\n')[0]!
    appendFileSync(join(dir, 'wal', wal), '{"l":99,"o":[{"op":"ups')
    if (then) writeFileSync(join(dir, 'wal', String(Number.parseInt(wal, 10) + 1).padStart(8, '0') + '.log'), then(whole))
    return join(dir, 'wal', wal)
  }

  async function opensCuttingTheTail(urn: string): Promise<MetadataStore> {
    const warnings: string[] = []
    const b = createStore({dir, warn: (m) => warnings.push(m)})
    await b.open()
    expect(await b.exists(urn)).to.equal(true)
    expect(warnings.join('\n')).to.match(/incomplete last record/)
    return b
  }

  it('cuts a torn last journal record (a write whose sync never finished) and starts', async () => {
    await tornJournal(DS('t1'))
    await (await opensCuttingTheTail(DS('t1'))).close()
  })

  it('an acknowledged record cut off the journal later is dropped with a warning that does not call it unacknowledged', async () => {
    const a = createStore({dir})
    await a.open()
    await a.write([up(DS('k1'), 'status', {removed: false})])
    await a.write([up(DS('k2'), 'status', {removed: false})])
    writeFileSync(join(dir, 'LOCK'), '999999999')
    const wal = join(dir, 'wal', readdirSync(join(dir, 'wal')).sort().at(-1)!)
    // Truncated from outside: the second, acknowledged, record loses its end.
    truncateSync(wal, readFileSync(wal).length - 5)
    const warnings: string[] = []
    const b = createStore({dir, warn: (m) => warnings.push(m)})
    await b.open()
    expect(await b.exists(DS('k1'))).to.equal(true)
    expect(await b.exists(DS('k2'))).to.equal(false)
    const said = warnings.join('\n')
    expect(said).to.match(/incomplete last record/)
    expect(said).to.match(/cut short after it was written, which loses that write/)
    await b.close()
  })

  it('cuts a torn record followed only by an empty segment (a kill -9 while a checkpoint rotates) and starts', async () => {
    await tornJournal(DS('r1'), () => '')
    const b = await opensCuttingTheTail(DS('r1'))
    await b.write([up(DS('r2'), 'status', {removed: false})])
    await b.close()
  })

  it('refuses a torn record followed by records (not an interrupted write), changing nothing', async () => {
    const torn = await tornJournal(DS('s1'), (whole) => `${whole}\n`)
    const before = readFileSync(torn, 'utf8')
    let err: unknown
    await createStore({dir})
      .open()
      .catch((e: unknown) => (err = e))
    expect(String(err)).to.match(/torn record but is not the newest segment with records/)
    expect(readFileSync(torn, 'utf8')).to.equal(before)
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

  it('refuses a store a newer mdcli wrote with E_STORE_VERSION, not as damage, and leaves it untouched', async () => {
    const a = createStore({dir})
    await a.open()
    await a.write([up(DS('v1'), 'status', {removed: false})])
    await a.close()
    const path = join(dir, 'manifest.json')
    const m = JSON.parse(readFileSync(path, 'utf8'))
    writeFileSync(path, JSON.stringify({...m, format: 'mdcli-lowdb-99', checksum: 'summed some newer way'}))
    const before = readFileSync(path, 'utf8')
    let err: {code?: string; message?: string} | undefined
    await createStore({dir})
      .open()
      .catch((e: unknown) => (err = e as typeof err))
    expect(err?.code).to.equal('E_STORE_VERSION')
    expect(err?.message).to.include(dir).and.to.match(/written by a newer mdcli \(format mdcli-lowdb-99; this build reads up to mdcli-lowdb-4\)/)
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
    const code = await refusalOfOpen(dir)
    expect(code).to.equal('E_STORE_CORRUPT')
  })

  it('refuses a second process on the same store', async () => {
    const a = createStore({dir})
    await a.open()
    writeFileSync(join(dir, 'LOCK'), String(process.ppid))
    const code = await refusalOfOpen(dir)
    expect(code).to.equal('E_STORE_LOCKED')
    writeFileSync(join(dir, 'LOCK'), String(process.pid))
    await a.close()
  })

  it('takes over a lock whose pid now belongs to another process (its start time differs), and honours one whose start time matches', async () => {
    const stat = readFileSync(`/proc/${process.ppid}/stat`, 'utf8')
    const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
    writeFileSync(join(dir, 'LOCK'), `${process.ppid} ${ticks}`)
    const code = await refusalOfOpen(dir)
    expect(code).to.equal('E_STORE_LOCKED')
    // The same pid with another start time: a process that came later, not the holder.
    writeFileSync(join(dir, 'LOCK'), `${process.ppid} ${Number(ticks) + 12345}`)
    const b = createStore({dir})
    await b.open()
    await b.close()
    expect(existsSync(join(dir, 'LOCK'))).to.equal(false)
  })

  it('reads back values with any characters from the shards after a checkpoint (byte offsets, not characters)', async () => {
    const texts = ['é à ü', '漢字とかな', 'emoji 🎉 and "quotes" and \\ backslashes\nnewline', '']
    const a = createStore({dir})
    await a.open()
    await a.write(texts.map((t, i) => up(DS(`utf${i}`), 'datasetProperties', {name: `n${i}`, description: t})))
    await a.write([{...(up(DS('raw'), 'status', {}) as Extract<WriteOp, {op: 'upsert'}>), value: '{ "removed" :\n false }'}])
    await a.close()
    const b = createStore({dir})
    await b.open()
    for (const [i, t] of texts.entries()) expect(((await b.getAspect(DS(`utf${i}`), 'datasetProperties'))!.value as any).description).to.equal(t)
    const raw = (await b.getAspect(DS('raw'), 'status'))!
    expect(JSON.parse(JSON.stringify(raw)).value).to.deep.equal({removed: false})
    await b.close()
  })

  it('checkpoints once the journal outgrows the snapshot, so a bulk load rewrites the shards a logarithmic number of times', async () => {
    const a = createStore({dir, checkpointBytes: 1})
    await a.open()
    const gen = () => (existsSync(join(dir, 'manifest.json')) ? (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).gen as number) : 0)
    const genPasses = async (n: number) => {
      for (let t = 0; t < 250 && gen() <= n; t++) await new Promise((r) => setTimeout(r, 20))
      return gen()
    }
    // The first write checkpoints (the threshold is 1 byte while the snapshot is empty).
    await a.write([up(DS('cp0'), 'datasetProperties', {description: 'x'.repeat(20_000)})])
    const first = await genPasses(0)
    expect(first).to.be.greaterThan(0)
    // Small writes whose journal stays under the snapshot's ~20 KB: no checkpoint.
    for (let i = 1; i <= 5; i++) await a.write([up(DS(`cp${i}`), 'status', {removed: false})])
    await new Promise((r) => setTimeout(r, 300))
    expect(gen()).to.equal(first)
    // Past the snapshot's size: a checkpoint.
    await a.write([up(DS('cp9'), 'datasetProperties', {description: 'y'.repeat(30_000)})])
    expect(await genPasses(first)).to.be.greaterThan(first)
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
    expect(m.format).to.equal('mdcli-lowdb-4')
  })
})

describe('lowdb store: old versions on disk', () => {
  let dir: string
  beforeEach(() => (dir = tempDir('mdcli-store-')))
  afterEach(() => cleanup(dir))

  const tags = (i: number) => ({tags: [{tag: `urn:li:tag:old-value-${i}`}]})
  const shardText = () =>
    readdirSync(join(dir, 'shards'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => readFileSync(join(dir, 'shards', f), 'utf8'))
      .join('\n')

  it('keeps old versions in history.log, not in the shards, and reads them after a restart', async () => {
    const a = createStore({dir})
    await a.open()
    for (let i = 1; i <= 50; i++) await a.write([up(DS('h'), 'globalTags', tags(i), {time: i})])
    await a.close()
    const shards = shardText()
    expect(shards).to.include('old-value-50')
    expect(shards).not.to.include('old-value-7"')
    expect(readFileSync(join(dir, 'history.log'), 'utf8')).to.include('old-value-7"')
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    expect(m.historyBytes).to.equal(readFileSync(join(dir, 'history.log')).length)
    const b = createStore({dir})
    await b.open()
    const v7 = await b.getAspect(DS('h'), 'globalTags', 7)
    expect((v7!.value as any).tags[0].tag).to.equal('urn:li:tag:old-value-7')
    expect(v7!.created.time).to.equal(7)
    expect((await b.listVersions(DS('h'), 'globalTags')).length).to.equal(50)
    await b.close()
  })

  it('after a crash, cuts history past the last checkpoint and rebuilds it from the journal', async () => {
    const a = createStore({dir})
    await a.open()
    for (let i = 1; i <= 5; i++) await a.write([up(DS('c'), 'globalTags', tags(i), {time: i})])
    await a.close()
    const c = createStore({dir})
    await c.open()
    for (let i = 6; i <= 9; i++) await c.write([up(DS('c'), 'globalTags', tags(i), {time: i})])
    // kill -9: no checkpoint; history.log holds versions the manifest does not count, and a torn tail.
    appendFileSync(join(dir, 'history.log'), '[12,"torn')
    writeFileSync(join(dir, 'LOCK'), '999999999')
    const b = createStore({dir})
    await b.open()
    const vs = await b.listVersions(DS('c'), 'globalTags')
    expect(vs.map((v) => (v.value as any).tags[0].tag.replace('urn:li:tag:old-value-', ''))).to.deep.equal(['9', '1', '2', '3', '4', '5', '6', '7', '8'])
    expect(vs.map((v) => v.created.time)).to.deep.equal([9, 1, 2, 3, 4, 5, 6, 7, 8])
    await b.close()
  })

  it('opens a store of the previous format (old versions in the shards), moves them to history.log, and keeps them', async () => {
    // A store as the previous release left it: format 2, one shard holding three versions.
    const urn = DS('v2')
    const rel = firstShardFile(urn)
    const sm = (runId: string) => ({runId, lastObserved: 5})
    const row = (tag: string, time: number, runId: string) => [JSON.stringify({tags: [{tag}]}), time, 'urn:li:corpuser:old', sm(runId)]
    const ent = {
      id: 1,
      t: 'dataset',
      l: 4,
      a: {
        datasetKey: [[JSON.stringify({platform: 'urn:li:dataPlatform:hive', name: 'v2', origin: 'PROD'}), 1, 'urn:li:corpuser:old', sm('r1')]],
        globalTags: [row('urn:li:tag:c', 3, 'r3'), row('urn:li:tag:a', 1, 'r1'), row('urn:li:tag:b', 2, 'r2')],
      },
    }
    const shard = Buffer.from(JSON.stringify({format: 'mdcli-lowdb-2', entities: {[urn]: ent}}))
    mkdirSync(join(dir, 'shards'), {recursive: true})
    mkdirSync(join(dir, 'wal'), {recursive: true})
    writeFileSync(join(dir, rel), shard)
    writeFileSync(join(dir, 'wal', '00000002.log'), '')
    const manifest = {format: 'mdcli-lowdb-2', shards: 64, walFrom: 2, nextId: 2, gen: 1, files: {[rel]: {size: shard.length, sha256: createHash('sha256').update(shard).digest('hex')}}, sealed: {}}
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest))

    const tagsOf = async (st: MetadataStore) => (await st.listVersions(urn, 'globalTags')).map((v) => (v.value as any).tags[0].tag)
    const a = createStore({dir})
    await a.open()
    expect(await tagsOf(a)).to.deep.equal(['urn:li:tag:c', 'urn:li:tag:a', 'urn:li:tag:b'])
    expect((await a.runRows('r2')).map((r) => [r.aspectName, r.version, r.created.actor])).to.deep.equal([['globalTags', 2, 'urn:li:corpuser:old']])
    await a.close()
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    expect(m.format).to.equal('mdcli-lowdb-4')
    expect(m.historyBytes).to.be.greaterThan(0)
    expect(readFileSync(join(dir, 'history.log'), 'utf8')).to.include('urn:li:tag:a')
    expect(shardText()).to.include('urn:li:tag:c')
    expect(shardText()).not.to.include('urn:li:tag:a')
    const b = createStore({dir})
    await b.open()
    expect(await tagsOf(b)).to.deep.equal(['urn:li:tag:c', 'urn:li:tag:a', 'urn:li:tag:b'])
    expect((await b.getAspect(urn, 'globalTags', 1))!.created).to.deep.equal({time: 1, actor: 'urn:li:corpuser:old'})
    await b.close()
  })

  it('opens a store whose shards are of the previous file format (mdcli-shard 3), then rewrites a touched shard in this one', async () => {
    // A shard as the previous release wrote it: a JSON line whose rows hold [offset, length] of
    // their value text in the bytes after it, with tables of system metadata and actors.
    const urn = DS('s3')
    const rel = firstShardFile(urn)
    const texts: Buffer[] = []
    let at = 0
    const text = (t: string) => {
      const b = Buffer.from(t, 'utf8')
      texts.push(b)
      at += b.length
      return [at - b.length, b.length]
    }
    const ent = {
      id: 1,
      t: 'dataset',
      l: 3,
      a: {
        datasetKey: [[...text(JSON.stringify({platform: 'urn:li:dataPlatform:hive', name: 's3', origin: 'PROD'})), 1, 0, 0]],
        globalTags: [[...text(JSON.stringify({tags: [{tag: 'urn:li:tag:é'}]})), 2, 0, 0]],
      },
      s: {datasetProfile: [[...text(JSON.stringify({timestampMillis: 7, rowCount: 7})), 3, 0, 0, 7]]},
    }
    const head = {format: 'mdcli-lowdb-3', sm: [{runId: 'r1', lastObserved: 5}], actors: ['urn:li:corpuser:old'], entities: {[urn]: ent}}
    const shard = Buffer.concat([Buffer.from(`mdcli-shard 3\n${JSON.stringify(head)}\n`, 'utf8'), ...texts])
    mkdirSync(join(dir, 'shards'), {recursive: true})
    mkdirSync(join(dir, 'wal'), {recursive: true})
    writeFileSync(join(dir, rel), shard)
    writeFileSync(join(dir, 'wal', '00000002.log'), '')
    const manifest = {format: 'mdcli-lowdb-3', shards: 64, walFrom: 2, nextId: 2, gen: 1, files: {[rel]: {size: shard.length, sha256: createHash('sha256').update(shard).digest('hex')}}, sealed: {}, historyBytes: 0}
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest))

    // `firstVersion`: the version number the shard's value has by then (0 while it is the latest).
    const check = async (st: MetadataStore, tags: string[], firstVersion: number) => {
      const tagsNow = (await st.getAspect(urn, 'globalTags'))!
      expect((tagsNow.value as any).tags.map((t: any) => t.tag)).to.deep.equal(tags)
      const first = (await st.getAspect(urn, 'globalTags', firstVersion))!
      expect((first.value as any).tags[0].tag).to.equal('urn:li:tag:é')
      expect(first.created).to.deep.equal({time: 2, actor: 'urn:li:corpuser:old'})
      expect(first.systemMetadata?.runId).to.equal('r1')
      expect((await st.listTimeseries(urn, 'datasetProfile')).map((r) => (r.value as any).rowCount)).to.deep.equal([7])
      expect((await st.getAspect(urn, 'datasetKey'))!.value).to.deep.equal({platform: 'urn:li:dataPlatform:hive', name: 's3', origin: 'PROD'})
    }
    const a = createStore({dir})
    await a.open()
    await check(a, ['urn:li:tag:é'], 0)
    await a.write([up(urn, 'globalTags', {tags: [{tag: 'urn:li:tag:new'}]})])
    await a.close()
    const files = readdirSync(join(dir, 'shards'))
    expect(files).to.have.length(1)
    expect(readFileSync(join(dir, 'shards', files[0]!)).subarray(0, 14).toString()).to.equal('mdcli-shard 4\n')
    const b = createStore({dir})
    await b.open()
    await check(b, ['urn:li:tag:new'], 1)
    expect((await b.listVersions(urn, 'globalTags')).map((v) => (v.value as any).tags[0].tag)).to.deep.equal(['urn:li:tag:new', 'urn:li:tag:é'])
    await b.close()
  })

  it('says so when a start has much to read, and how long it took; a small one stays quiet', async () => {
    const a = createStore({dir})
    await a.open()
    await a.write([up(DS('big'), 'globalTags', {tags: [{tag: 'urn:li:tag:x'}]}), up(DS('big2'), 'globalTags', {tags: [{tag: 'urn:li:tag:y'}]})])
    await a.close()
    const lines: string[] = []
    const quiet = new LowdbStore({dir, rules: REGISTRY_RULES, info: (m) => lines.push(m)})
    await quiet.open()
    await quiet.close()
    expect(lines).to.deep.equal([])
    const loud = new LowdbStore({dir, rules: REGISTRY_RULES, info: (m) => lines.push(m), progressBytes: 1})
    await loud.open()
    await loud.close()
    expect(lines).to.have.length(2)
    expect(lines[0]).to.match(/^Opening the store .+: 1 MiB of snapshot and journal to read…$/).and.to.include(dir)
    expect(lines[1]).to.match(/^Opened the store: 2 entities in \d+\.\d s$/)
  })

  it('stops the start on a shard of a file format newer than this build with E_STORE_VERSION, naming the file and the format', async () => {
    const a = createStore({dir})
    await a.open()
    await a.write([up(DS('future'), 'globalTags', {tags: [{tag: 'urn:li:tag:x'}]})])
    await a.close()
    const [name] = readdirSync(join(dir, 'shards'))
    const shard = Buffer.from('mdcli-shard 9\n{}\n')
    writeFileSync(join(dir, 'shards', name!), shard)
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    m.files[`shards/${name}`] = {size: shard.length, sha256: createHash('sha256').update(shard).digest('hex')}
    // Edited by hand: without its checksum, as a manifest from before the checksum was recorded.
    delete m.checksum
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m))
    const b = createStore({dir})
    const err = await b.open().then(() => null, (e: Error & {code?: string}) => e)
    // Not damage: a newer mdcli reads it.
    expect(err?.code).to.equal('E_STORE_VERSION')
    expect(err?.message).to.include(name).and.to.match(/"mdcli-shard 9", which this build of mdcli cannot read \(a newer mdcli wrote it\)/)
    expect(readFileSync(join(dir, 'shards', name!)).equals(shard)).to.equal(true)
  })

  it('stops the start when history.log is shorter than the manifest records, naming it', async () => {
    const a = createStore({dir})
    await a.open()
    for (let i = 1; i <= 3; i++) await a.write([up(DS('t'), 'globalTags', tags(i))])
    await a.close()
    const path = join(dir, 'history.log')
    writeFileSync(path, readFileSync(path).subarray(0, 10))
    const b = createStore({dir})
    let err: any
    await b.open().catch((e) => (err = e))
    expect(err?.code).to.equal('E_STORE_CORRUPT')
    expect(err.message).to.include(path)
  })
})

describe('lowdb journal encoding', () => {
  it('writes the bytes of JSON.stringify(record) and a newline per record, for any text and size', () => {
    const texts = ['plain', 'naïve café', '数据集 描述', 'emoji 🙂 and \u2028 separators', 'quote " backslash \\ newline \n', 'x'.repeat(200_000)]
    const records = [0, 1, 2].map((r) => ({
      l: 1 + r * 100,
      o: texts.map((t, i) => {
        return up(DS(`enc${r}-${i}`), 'datasetProperties', {name: t, description: t.repeat(r + 1)})
      }),
    }))
    const want = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''), 'utf8')
    const encoder = new JournalEncoder()
    expect(encoder.encode(records).equals(want)).to.equal(true)
    // Again with the buffer the first call grew, as the next batch would.
    expect(encoder.encode([records[0]!]).equals(Buffer.from(`${JSON.stringify(records[0])}\n`, 'utf8'))).to.equal(true)
  })

  it('writes the same bytes when many small ops fill several runs between large texts, spliced or not', () => {
    // Small ops run past the encoder's 16 K-character runs; the large values are written on their own.
    const ops = Array.from({length: 400}, (_, i) => up(DS(`runs${i}`), 'datasetProperties', {name: i % 97 === 0 ? `big ${'y'.repeat(40_000)} 数据` : `n${i} naïve`}))
    const records: JournalRecord[] = [{l: 1, o: ops.slice(0, 250)}, {l: 251, o: ops.slice(250)}]
    const want = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''), 'utf8')
    expect(new JournalEncoder().encode(records).equals(want)).to.equal(true)
    const spliced = new JournalEncoder()
    spliced.spliceValues = true
    const lines = spliced.encode(records).toString('utf8').split('\n')
    expect(lines.pop()).to.equal('')
    expect(lines.map((l) => decodeRecord(l))).to.deep.equal(JSON.parse(JSON.stringify(records)))
  })

  /** Upserts and a timeseries point whose value texts are exactly `texts` (JSON a client may send, whitespace and all). */
  const rawOps = (texts: string[], tag: string): WriteOp[] => [
    ...texts.map((t, i) => ({...(up(DS(`${tag}${i}`), 'datasetProperties', {}) as Extract<WriteOp, {op: 'upsert'}>), value: t})),
    {op: 'timeseries', urn: DS(`${tag}ts`), entityType: 'dataset', aspectName: 'datasetProfile', value: '{"timestampMillis":7,\t"rowCount":7}', timestampMillis: 7, created: {time: 1, actor: 'urn:li:corpuser:a'}, systemMetadata: {}},
    {op: 'revert', urn: DS(`${tag}0`), aspectName: 'status'},
  ]
  const TEXTS = [
    '{"name":"plain","description":"quotes \\" and \\\\ backslashes"}',
    '{"name":"naïve café 数据集 🙂 \u2028"}',
    '{ "name" :\t"tab as whitespace" }',
    '{"name":"a newline as whitespace"\n}',
    '{"name":"lone \ud800 surrogate"}',
    `{"description":"${'x'.repeat(200_000)}"}`,
    '{}',
  ]

  it('splices the values after the record in a store of format 4, and reads back exactly what was written', () => {
    const records: JournalRecord[] = [
      {l: 1, o: rawOps(TEXTS, 'a')},
      {l: 100, o: [{op: 'deleteEntity', urn: DS('gone')}]},
      {l: 101, o: rawOps(TEXTS.slice(0, 2), 'b')},
    ]
    const plain = new JournalEncoder()
    const plainBytes = Buffer.from(plain.encode(records))
    const encoder = new JournalEncoder()
    encoder.spliceValues = true
    const bytes = encoder.encode(records)
    const lines = bytes.toString('utf8').split('\n')
    expect(lines.pop()).to.equal('')
    expect(lines.map((l) => decodeRecord(l))).to.deep.equal(JSON.parse(JSON.stringify(records)))
    // The record without values stays a plain JSON line; the others carry theirs unescaped.
    expect(lines[1]).to.equal(JSON.stringify(records[1]))
    expect(lines[0]).to.include('\t').and.to.include(TEXTS[0]).and.to.include(TEXTS[2])
    // The texts a line cannot carry as they are (a newline, a lone surrogate) stay escaped inside the JSON.
    const head = JSON.parse(lines[0]!.slice(0, lines[0]!.indexOf('\t'))) as JournalRecord
    const where = (op: WriteOp) => (!('value' in op) ? '-' : typeof op.value === 'number' ? 'after' : 'inside')
    expect(head.o.map(where)).to.deep.equal(['after', 'after', 'after', 'inside', 'inside', 'after', 'after', 'after', '-'])
    // The ops handed to the encoder are as they were.
    expect(records).to.deep.equal([{l: 1, o: rawOps(TEXTS, 'a')}, {l: 100, o: [{op: 'deleteEntity', urn: DS('gone')}]}, {l: 101, o: rawOps(TEXTS.slice(0, 2), 'b')}])
    expect(bytes.length).to.be.lessThan(plainBytes.length)
    // Old plain lines read as before.
    expect(plainBytes.toString('utf8').split('\n').slice(0, -1).map((l) => decodeRecord(l))).to.deep.equal(JSON.parse(JSON.stringify(records)))
  })

  it('refuses a spliced record whose values do not fill its line exactly', () => {
    const encoder = new JournalEncoder()
    encoder.spliceValues = true
    const line = encoder.encode([{l: 1, o: rawOps(['{"name":"x"}'], 'c')}]).toString('utf8').slice(0, -1)
    expect(() => decodeRecord(line + 'y')).to.throw(/past its values/)
    expect(() => decodeRecord(line.slice(0, -3))).to.throw(/bad spliced value/)
    expect(() => decodeRecord('{"l":1,"o":[{"op":"deleteAspect","urn":"u","aspectName":"a","value":2}]}\tab')).to.throw(/bad spliced value/)
  })

  it('leaves out the key aspect of an upsert whose entity exists before it, keeps it after a removal, and leaves the ops as they were', () => {
    const [had, fresh, gone] = [DS('had'), DS('fresh'), DS('gone')]
    const records: JournalRecord[] = [
      {l: 1, o: [up(had, 'status', {removed: false}), up(fresh, 'status', {removed: false}), up(fresh, 'globalTags', {tags: []})]},
      {l: 4, o: [up(fresh, 'ownership', {owners: []}), {op: 'deleteAspect', urn: gone, aspectName: 'status'}, up(gone, 'status', {removed: true})]},
      {l: 7, o: [{op: 'deleteEntity', urn: had}, ts(had, 'datasetProfile', 5, {rowCount: 1}), ts(had, 'datasetProfile', 6, {rowCount: 2})]},
    ]
    const before = JSON.parse(JSON.stringify(records))
    const asked: string[] = []
    // `had` and `gone` exist before the batch, `fresh` does not.
    const hasEntity = (urn: string) => (asked.push(urn), urn !== fresh)
    const ops = new JournalEncoder()
      .encode(records, hasEntity)
      .toString('utf8')
      .split('\n')
      .slice(0, -1)
      .flatMap((l) => decodeRecord(l).o)
    const keyed = ops.map((o) => 'keyAspect' in o && o.keyAspect !== undefined)
    // had: exists; fresh: created by its first op; gone: a removal may take the entity; had again: deleted, then created by its first point.
    expect(keyed).to.deep.equal([false, true, false, false, false, true, false, true, false])
    // Each urn asked once, before the batch has touched it.
    expect(asked).to.deep.equal([had, fresh])
    expect(records).to.deep.equal(before)
    // Without `hasEntity` (and for an op that keeps it) the bytes are JSON.stringify's, key aspects and all.
    expect(new JournalEncoder().encode(records).equals(Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''), 'utf8'))).to.equal(true)
  })
})

describe('lowdb journal: values spliced after the record', () => {
  let dir: string
  beforeEach(() => (dir = tempDir('mdcli-store-')))
  afterEach(() => cleanup(dir))

  const crash = () => writeFileSync(join(dir, 'LOCK'), '999999999')
  const liveSegment = () => join(dir, 'wal', readdirSync(join(dir, 'wal')).sort().at(-1)!)
  const texts = ['{ "name" :\t"tab", "description": "quotes \\" é 🙂" }', '{"name":"newline"\n}', '{"name":"lone \udc00"}']
  const writeTexts = (s: MetadataStore, tag: string) =>
    s.write(texts.map((t, i) => ({...(up(DS(`${tag}${i}`), 'datasetProperties', {}) as Extract<WriteOp, {op: 'upsert'}>), value: t})))
  const expectTexts = async (s: MetadataStore, tag: string) => {
    // The store keeps text as UTF-8, so a lone surrogate reads back as U+FFFD, with or without a restart.
    const wellFormed = (t: string) => (t as unknown as {toWellFormed(): string}).toWellFormed()
    for (const [i, t] of texts.entries()) expect((await s.getAspect(DS(`${tag}${i}`), 'datasetProperties'))!.valueText, `${tag}${i}`).to.equal(wellFormed(t))
  }

  it('replays the exact texts after a kill -9 (no checkpoint)', async () => {
    const a = createStore({dir})
    await a.open()
    await writeTexts(a, 'k')
    crash()
    expect(readFileSync(liveSegment(), 'utf8')).to.include('\t')
    const b = createStore({dir})
    await b.open()
    await expectTexts(b, 'k')
    await b.close()
  })

  it('opens a store of format 3 (plain journal lines), names format 4 before splicing, and replays both kinds of line', async () => {
    const a = createStore({dir})
    await a.open()
    await writeTexts(a, 'old')
    crash()
    // What mdcli of format 3 left: the same records as plain JSON lines, and a manifest saying 3.
    const seg = liveSegment()
    const plain = readFileSync(seg, 'utf8').split('\n').slice(0, -1).map((l) => `${JSON.stringify(decodeRecord(l))}\n`).join('')
    expect(plain).not.to.include('\t')
    writeFileSync(seg, plain)
    const path = join(dir, 'manifest.json')
    const {checksum: _, ...m} = JSON.parse(readFileSync(path, 'utf8'))
    const m3 = {...m, format: 'mdcli-lowdb-3'}
    writeFileSync(path, JSON.stringify({...m3, checksum: manifestChecksum(m3)}))

    const b = createStore({dir})
    await b.open()
    expect(JSON.parse(readFileSync(path, 'utf8')).format).to.equal('mdcli-lowdb-4')
    await expectTexts(b, 'old')
    await writeTexts(b, 'new')
    crash()
    const lines = readFileSync(liveSegment(), 'utf8').split('\n').slice(0, -1)
    expect(lines.some((l) => l.includes('\t'))).to.equal(true)
    const c = createStore({dir})
    await c.open()
    await expectTexts(c, 'old')
    await expectTexts(c, 'new')
    await c.close()
  })
})

describe('lowdb store: search receives what the write side parsed (fed by the catalog)', () => {
  let dir: string
  beforeEach(() => (dir = tempDir('mdcli-store-')))
  afterEach(() => cleanup(dir))

  it('indexes the projection handed with a write, keeps it out of the journal, and the stored text after a restart', async () => {
    const a = searchable(createStore({dir}), threadIndex())
    await a.open()
    const op = up(DS('proj'), 'datasetProperties', {name: 'proj', description: 'plainword'})
    // A projection that differs from the text shows which of the two search was given.
    noteSearchProjection(op, {name: 'proj', description: 'projectedword'})
    await a.write([op])
    expect((await a.search({types: ['dataset'], query: 'projectedword'})).hits.map((h) => h.urn)).to.deep.equal([DS('proj')])
    expect((await a.getAspect(DS('proj'), 'datasetProperties'))!.value).to.deep.equal({name: 'proj', description: 'plainword'})
    const wal = readdirSync(join(dir, 'wal')).map((f) => readFileSync(join(dir, 'wal', f), 'utf8')).join('')
    expect(wal).to.include('plainword')
    expect(wal).not.to.include('projectedword')
    await a.close()
    const b = searchable(createStore({dir}), threadIndex())
    await b.open()
    expect((await b.search({types: ['dataset'], query: 'plainword'})).total).to.equal(1)
    expect((await b.search({types: ['dataset'], query: 'projectedword'})).total).to.equal(0)
    await b.close()
  })
})

describe('lowdb store: memory limit', () => {
  let dir: string
  beforeEach(() => (dir = tempDir('mdcli-store-')))
  afterEach(() => cleanup(dir))

  it('refuses writes that add data past the heap limit with E_STORE_MEMORY pointing to PostgreSQL; reads and deletes still work', async () => {
    const a = createStore({dir})
    await a.open()
    await a.write([up(DS('m1'), 'status', {removed: false}), up(DS('m2'), 'status', {removed: false})])
    await a.close()
    // A limit every heap is past: the guard must refuse before anything reaches the journal.
    const b = new LowdbStore({dir, rules: REGISTRY_RULES, maxHeapFraction: 0})
    await b.open()
    const walBytes = () => readdirSync(join(dir, 'wal')).reduce((n, f) => n + readFileSync(join(dir, 'wal', f)).length, 0)
    const before = walBytes()
    let err: any
    await b.write([up(DS('m3'), 'status', {removed: false})]).catch((e) => (err = e))
    expect(err?.code).to.equal('E_STORE_MEMORY')
    expect(err.status).to.equal(507)
    expect(err.message).to.match(/PostgreSQL store/)
    expect(err.message).to.not.include(dir)
    expect(err.serverDetail).to.include(dir)
    expect(walBytes()).to.equal(before)
    expect(await b.exists(DS('m3'))).to.equal(false)
    expect(await b.exists(DS('m1'))).to.equal(true)
    await b.write([{op: 'deleteEntity', urn: DS('m2')}])
    expect(await b.exists(DS('m2'))).to.equal(false)
    await b.close()
  })
})

describe('lowdb store search thread', () => {
  let dir: string
  beforeEach(() => (dir = tempDir('mdcli-store-')))
  afterEach(() => cleanup(dir))

  it('feeds the search thread a few messages at a time, on a rebuild and under a stream of writes, and loses no change', async function () {
    this.timeout(120_000)
    const n = 12_000
    let most = 0
    // Until the thread has caught up (nothing queued, every entity found), noting the most
    // messages it had queued at once. A fast start may finish its rebuild before the first look.
    const backlog = (store: SearchableStore) => ({messages: (store.feed.index as SearchThread).backlog(), entities: store.feed.backlog()})
    const drain = async (store: SearchableStore) => {
      const deadline = Date.now() + 60_000
      for (;;) {
        const {messages, entities} = backlog(store)
        most = Math.max(most, messages)
        if (messages === 0 && entities === 0 && (await store.search({types: ['dataset'], query: 'backlogword', count: 1})).total === n) return
        if (Date.now() > deadline) throw new Error('the search thread did not catch up')
        await new Promise((r) => setTimeout(r, 1))
      }
    }
    const a = searchable(new LowdbStore({dir, rules: REGISTRY_RULES}), threadIndex())
    await a.open()
    // Writes in small batches, faster than the thread indexes them: changes wait as urns, not as queued messages.
    for (let i = 0; i < n; i += 100) {
      await a.write(Array.from({length: 100}, (_, k) => up(DS(`flow${i + k}`), 'datasetProperties', {name: `flow${i + k}`, description: 'backlogword'})))
      most = Math.max(most, backlog(a).messages)
    }
    await drain(a)
    expect((await a.search({types: ['dataset'], query: 'backlogword', count: 1})).total).to.equal(n)
    await a.close()
    // A rebuild at open used to post the whole catalog to the thread at once (48 messages here).
    const b = searchable(new LowdbStore({dir, rules: REGISTRY_RULES}), threadIndex())
    await b.open()
    try {
      await drain(b)
      expect((await b.search({types: ['dataset'], query: 'backlogword', count: 1})).total).to.equal(n)
    } finally {
      await b.close()
    }
    expect(n / INDEX_BATCH).to.be.above(INDEX_IN_FLIGHT)
    expect(most).to.be.within(1, INDEX_IN_FLIGHT)
  })

  it('rebuilds the index at a start in id order, whether the ids are dense or mostly deleted', async () => {
    const a = searchable(createStore({dir}), threadIndex())
    await a.open()
    const urns = Array.from({length: 1500}, (_, i) => DS(`sparse_${i}`))
    await a.write(urns.map((u, i) => up(u, 'datasetProperties', {name: `sparse_${i}`, description: 'sparseword'})))
    const walk = async (st: SearchableStore) => {
      const seen: string[] = []
      let after: string | null = ''
      while (after !== null) {
        const r: Awaited<ReturnType<SearchableStore['search']>> = await st.search({types: ['dataset'], query: 'sparseword', count: 400, after})
        seen.push(...r.hits.map((h) => h.urn))
        after = r.next ?? null
      }
      return seen
    }
    const drainOf = async (st: SearchableStore, n: number) => {
      for (let i = 0; i < 200 && (await st.search({types: ['dataset'], query: 'sparseword', count: 1})).total !== n; i++) await new Promise((r) => setTimeout(r, 25))
    }
    await drainOf(a, 1500)
    const dense = await walk(a)
    await a.close()
    const b = searchable(createStore({dir}), threadIndex())
    await b.open()
    await drainOf(b, 1500)
    expect(await walk(b)).to.deep.equal(dense)
    // Past four deleted ids for each live one the start sorts instead of placing by id.
    await b.write(urns.slice(0, 1400).map((urn) => ({op: 'deleteEntity', urn}) as WriteOp))
    await b.close()
    const c = searchable(createStore({dir}), threadIndex())
    await c.open()
    try {
      await drainOf(c, 100)
      expect(await walk(c)).to.deep.equal(dense.filter((u) => !urns.slice(0, 1400).includes(u)))
    } finally {
      await c.close()
    }
  })

  it('restarts a search thread that died, with the whole index, and says so once', async () => {
    const warnings: string[] = []
    const index = threadIndex((m) => warnings.push(m))
    const store = searchable(createStore({dir}), index)
    await store.open()
    try {
      await store.write([up(DS('orders'), 'datasetProperties', {name: 'orders', description: 'customer orders'})])
      const find = async () => (await store.search({types: ['dataset'], query: 'customer'})).hits.map((h) => h.urn)
      expect(await find()).to.deep.equal([DS('orders')])
      // The thread ends under the store (as a crash would); a write lands while it is down.
      await (index as unknown as {worker: {terminate(): Promise<number>}}).worker.terminate()
      await store.write([up(DS('refunds'), 'datasetProperties', {name: 'refunds', description: 'customer refunds'})])
      expect((await find()).sort()).to.deep.equal([DS('orders'), DS('refunds')])
      expect(warnings.filter((w) => /search thread .*restarting it/.test(w))).to.have.length(1)
    } finally {
      await store.close()
    }
  })
})
