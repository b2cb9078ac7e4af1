/**
 * The embedded store against files damaged or edited behind its back (the cases of a hostile QA
 * pass): a start that finds the store inconsistent is refused, names the file, and leaves every
 * file and directory exactly as it found them.
 */
import {expect} from 'chai'
import {createHash} from 'node:crypto'
import {existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {nodeStoreFs, type StoreFs} from '../../src/store/embedded/files.js'
import {createStore} from '../../src/store/index.js'
import {LowdbStore} from '../../src/store/lowdb-store.js'
import {REGISTRY_RULES} from '../../src/store/rules.js'
import {cleanup, tempDir} from '../helpers/lite.js'
import {up} from './conformance.js'
import {flip, refusal} from './damage.js'

const DS = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,db.t${i},PROD)`
const N = 40

/**
 * A store as the QA's base: three versions of N datasets (old versions in history.log), a clean
 * stop (a checkpoint), then a start with acknowledged writes and kill -9, so that history.log holds
 * bytes past the size the manifest records and the live journal segment holds the writes.
 */
async function baseStore(dir: string): Promise<void> {
  const a = createStore({dir})
  await a.open()
  for (let v = 0; v < 3; v++) await a.write(Array.from({length: N}, (_, i) => up(DS(i), 'datasetProperties', {description: `v${v} ${i}`})))
  await a.close()
  const b = createStore({dir})
  await b.open()
  await b.write(Array.from({length: 10}, (_, i) => up(DS(i), 'datasetProperties', {description: `v9 ${i}`})))
  // kill -9: no close, and the lock of the dead process removed by hand.
  rmSync(join(dir, 'LOCK'))
}

/** Every directory and file below `dir` with a hash of its bytes. */
function snapshot(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${name}` : name
    if (statSync(join(dir, r)).isDirectory()) Object.assign(out, {[`${r}/`]: 'dir'}, snapshot(dir, r))
    else out[r] = createHash('sha256').update(readFileSync(join(dir, r))).digest('hex')
  }
  return out
}

const firstShard = (dir: string) => join(dir, 'shards', readdirSync(join(dir, 'shards')).sort()[0]!)

describe('embedded store: a refused start changes nothing', () => {
  let dir: string
  beforeEach(async () => {
    dir = tempDir('mdcli-tamper-')
    await baseStore(dir)
    // The fixture must hold what the QA's did: history past the recorded size, a live segment with writes.
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    expect(statSync(join(dir, 'history.log')).size).to.be.greaterThan(m.historyBytes)
  })
  afterEach(() => cleanup(dir))

  const cases: Array<[string, (dir: string) => string]> = [
    [
      'a flipped byte in a shard head',
      (d) => {
        const p = firstShard(d)
        flip(p, 20)
        return p
      },
    ],
    [
      'a deleted history.log',
      (d) => {
        rmSync(join(d, 'history.log'))
        return join(d, 'history.log')
      },
    ],
    [
      'a deleted shards directory',
      (d) => {
        rmSync(join(d, 'shards'), {recursive: true})
        // Whichever shard the manifest lists first is named.
        return join(d, 'shards', 'shard-')
      },
    ],
  ]
  for (const [what, damage] of cases) {
    it(`${what}: refused naming the file, every file and directory as before`, async () => {
      const named = damage(dir)
      const before = snapshot(dir)
      const r = await refusal(dir)
      expect(r.code, r.message).to.equal('E_STORE_CORRUPT')
      expect(r.message).to.include(named).and.to.match(/left untouched/)
      expect(snapshot(dir)).to.deep.equal(before)
      expect(existsSync(join(dir, 'LOCK'))).to.equal(false)
    })
  }

  it('the undamaged base store starts, with every acknowledged write', async () => {
    const s = createStore({dir})
    await s.open()
    try {
      expect(((await s.getAspect(DS(3), 'datasetProperties'))!.value as any).description).to.equal('v9 3')
      expect(((await s.getAspect(DS(3), 'datasetProperties', 1))!.value as any).description).to.equal('v0 3')
      expect(((await s.getAspect(DS(30), 'datasetProperties'))!.value as any).description).to.equal('v2 30')
    } finally {
      await s.close()
    }
  })
})

const newestSegment = (dir: string) => join(dir, 'wal', readdirSync(join(dir, 'wal')).sort().at(-1)!)
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))

async function descriptions(dir: string, n: number): Promise<string[]> {
  const s = createStore({dir})
  await s.open()
  try {
    const out: string[] = []
    for (let i = 0; i < n; i++) out.push(((await s.getAspect(DS(i), 'datasetProperties'))!.value as any).description)
    return out
  } finally {
    await s.close()
  }
}

/** A store whose shard files cannot be written (a full disk for large files); the manifest still can. */
function shardsFailing(dir: string): {fs: StoreFs & {failShards: boolean}; s: LowdbStore} {
  const fs = {
    failShards: false,
    openAppend: (p: string) => nodeStoreFs.openAppend(p),
    async replaceFile(p: string, d: string | Buffer) {
      if (this.failShards && p.startsWith(join(dir, 'shards'))) throw Object.assign(new Error('ENOSPC: injected'), {code: 'ENOSPC'})
      return nodeStoreFs.replaceFile(p, d)
    },
    syncDir: (p: string) => nodeStoreFs.syncDir(p),
  }
  return {fs, s: new LowdbStore({dir, fs, rules: REGISTRY_RULES})}
}

describe('embedded store: the live journal segment is accounted for', () => {
  let dir: string
  beforeEach(() => (dir = tempDir('mdcli-live-')))
  afterEach(() => cleanup(dir))

  it('a deleted live segment (acknowledged writes since the last checkpoint) stops the start, naming it, changing nothing', async () => {
    await baseStore(dir)
    const live = newestSegment(dir)
    expect(manifestOf(dir).live).to.equal(Number.parseInt(live.slice(-12), 10))
    rmSync(live)
    const before = snapshot(dir)
    const r = await refusal(dir)
    expect(r.code, r.message).to.equal('E_STORE_CORRUPT')
    expect(r.message).to.include(live).and.to.match(/live journal segment/)
    expect(snapshot(dir)).to.deep.equal(before)
  })

  it('a deleted wal directory stops the start, naming a segment', async () => {
    await baseStore(dir)
    rmSync(join(dir, 'wal'), {recursive: true})
    const before = snapshot(dir)
    const r = await refusal(dir)
    expect(r.code, r.message).to.equal('E_STORE_CORRUPT')
    expect(r.message).to.include(join(dir, 'wal'))
    expect(snapshot(dir)).to.deep.equal(before)
  })

  it('crash after a start created its segment but before the manifest named it: opens with every write', async () => {
    await baseStore(dir)
    const m = manifestOf(dir)
    // The segment a start creates first, then names: a kill -9 between the two leaves it empty and unnamed.
    writeFileSync(join(dir, 'wal', `${String(m.live + 1).padStart(8, '0')}.log`), '')
    expect(await descriptions(dir, 12)).to.deep.equal([...Array.from({length: 10}, (_, i) => `v9 ${i}`), 'v2 10', 'v2 11'])
  })

  it('a checkpoint that stops after rotating (shards cannot be written) leaves the new live segment named, and the store opens with every write', async () => {
    const {fs, s} = shardsFailing(dir)
    await s.open()
    await s.write([up(DS(0), 'datasetProperties', {description: 'before'})])
    fs.failShards = true
    const err = await s.checkpoint().then(() => undefined, (e: {code?: string}) => e)
    expect(err?.code).to.equal('E_STORE_FULL')
    await s.write([up(DS(1), 'datasetProperties', {description: 'after'})])
    const live = newestSegment(dir)
    expect(manifestOf(dir).live).to.equal(Number.parseInt(live.slice(-12), 10))
    expect(readFileSync(live, 'utf8')).to.include('after')
    // kill -9
    rmSync(join(dir, 'LOCK'))
    expect(await descriptions(dir, 2)).to.deep.equal(['before', 'after'])
  })

  it('a live segment deleted after that checkpoint failure is caught', async () => {
    const {fs, s} = shardsFailing(dir)
    await s.open()
    await s.write([up(DS(0), 'datasetProperties', {description: 'before'})])
    fs.failShards = true
    await s.checkpoint().catch(() => undefined)
    await s.write([up(DS(1), 'datasetProperties', {description: 'after'})])
    rmSync(join(dir, 'LOCK'))
    const live = newestSegment(dir)
    rmSync(live)
    const r = await refusal(dir)
    expect(r.code, r.message).to.equal('E_STORE_CORRUPT')
    expect(r.message).to.include(live)
  })

  it('a store whose manifest predates the live segment (no `live`) still opens', async () => {
    await baseStore(dir)
    const m = manifestOf(dir)
    delete m.live
    delete m.checksum
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m, null, 2))
    expect((await descriptions(dir, 1))[0]).to.equal('v9 0')
    expect(manifestOf(dir).live).to.be.a('number')
  })
})

describe('embedded store: manifest.json carries a checksum of its own content', () => {
  let dir: string
  beforeEach(async () => {
    dir = tempDir('mdcli-manifest-sum-')
    await baseStore(dir)
  })
  afterEach(() => cleanup(dir))

  const edit = (change: (m: any) => void) => {
    const m = manifestOf(dir)
    change(m)
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m, null, 2))
  }

  const edits: Array<[string, (m: any) => void]> = [
    ['a lower historyBytes', (m) => (m.historyBytes = 1000)],
    ['a dropped shard entry', (m) => delete m.files[Object.keys(m.files)[0]!]],
    ['a later walFrom', (m) => (m.walFrom = m.walFrom + 2)],
    ['nextId reset', (m) => (m.nextId = 1)],
  ]
  for (const [what, change] of edits) {
    it(`${what} (still valid JSON) stops the start naming manifest.json, changing nothing`, async () => {
      edit(change)
      const before = snapshot(dir)
      const r = await refusal(dir)
      expect(r.code, r.message).to.equal('E_STORE_CORRUPT')
      expect(r.message).to.include(join(dir, 'manifest.json')).and.to.match(/checksum/)
      // A shard the edited manifest no longer lists is still there: no checkpoint ran.
      expect(snapshot(dir)).to.deep.equal(before)
    })
  }

  it('is computed over the content, not the layout: the same manifest re-indented, keys reordered, still opens', async () => {
    const m = manifestOf(dir)
    const reordered = Object.fromEntries(Object.entries(m).reverse())
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(reordered))
    expect((await descriptions(dir, 1))[0]).to.equal('v9 0')
    expect(manifestOf(dir).checksum).to.match(/^[0-9a-f]{64}$/)
  })
})

describe('embedded store: a damaged record in history.log', () => {
  let dir: string
  let path: string
  /** Where the record of `v0 3` (DS(3)'s version 1) lies: its metadata line, then its value. */
  let meta: number
  let value: number
  beforeEach(async () => {
    dir = tempDir('mdcli-history-')
    await baseStore(dir)
    path = join(dir, 'history.log')
    const text = readFileSync(path, 'latin1')
    value = text.indexOf('{"description":"v0 3"}')
    meta = text.lastIndexOf('[', value)
    expect(value).to.be.greaterThan(0)
    expect(text.slice(meta, value)).to.match(/^\[\d+,"[^"]+",\{[^[]*\}\]\n$/)
  })
  afterEach(() => cleanup(dir))

  const damageCases: Array<[string, () => number]> = [
    ['value', () => value],
    ['metadata', () => meta],
  ]
  for (const [what, at] of damageCases) {
    it(`reading an old version whose ${what} was altered fails with E_STORE_CORRUPT naming history.log and the byte; other reads work`, async () => {
      flip(path, at())
      const s = createStore({dir})
      await s.open()
      try {
        const err = await s.getAspect(DS(3), 'datasetProperties', 1).then(
          () => undefined,
          (e: {code?: string; status?: number; message: string}) => e,
        )
        expect(err?.code, err?.message).to.equal('E_STORE_CORRUPT')
        expect(err!.status).to.equal(500)
        expect(err!.message).to.include(path).and.to.include(`byte ${meta}`)
        expect(((await s.getAspect(DS(3), 'datasetProperties'))!.value as any).description).to.equal('v9 3')
        expect(((await s.getAspect(DS(4), 'datasetProperties', 1))!.value as any).description).to.equal('v0 4')
      } finally {
        await s.close()
      }
    })
  }
})
