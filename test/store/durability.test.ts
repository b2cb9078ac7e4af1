/**
 * The embedded store on a failing disk: a full filesystem, I/O errors and short writes, injected
 * at the file layer (a StoreFs wrapping the real one) and, where the machine permits mounting, on
 * a real 20 MiB tmpfs. Also: every store file is accounted for by the manifest.
 */
import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {appendFileSync, existsSync, readdirSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {nodeStoreFs, type AppendFile, type StoreFs} from '../../src/store/embedded/files.js'
import {createStore} from '../../src/store/index.js'
import {LowdbStore} from '../../src/store/lowdb-store.js'
import {REGISTRY_RULES} from '../../src/store/rules.js'
import type {MetadataStore} from '../../src/store/types.js'
import {cleanup, eventually, http, startLite, tempDir} from '../helpers/lite.js'
import {up} from './conformance.js'
import {skipWithReason} from '../helpers/requires.js'

const DS = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${n},PROD)`

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected`), {code})
}

/**
 * The real file layer with failures to switch on: `short` writes half of the next journal append
 * and then fails it with ENOSPC, `syncEio` fails every journal sync with EIO, `replaceFull` fails
 * whole-file replaces (shards, manifest) with ENOSPC.
 */
class FaultyFs implements StoreFs {
  short = false
  syncEio = false
  replaceFull = false
  async openAppend(path: string): Promise<AppendFile> {
    const real = await nodeStoreFs.openAppend(path)
    return {
      write: async (buf, offset, length, position) => {
        if (this.short) {
          if (length > 1) return real.write(buf, offset, Math.floor(length / 2), position)
          throw errno('ENOSPC')
        }
        return real.write(buf, offset, length, position)
      },
      datasync: async () => {
        if (this.syncEio) throw errno('EIO')
        return real.datasync()
      },
      truncate: (n) => real.truncate(n),
      size: () => real.size(),
      close: () => real.close(),
    }
  }
  async replaceFile(path: string, data: string | Buffer): Promise<void> {
    if (this.replaceFull) throw errno('ENOSPC')
    return nodeStoreFs.replaceFile(path, data)
  }
  syncDir(path: string): Promise<void> {
    return nodeStoreFs.syncDir(path)
  }
}

function open(dir: string, fs?: StoreFs, checkpointBytes?: number): LowdbStore {
  return new LowdbStore({dir, fs, checkpointBytes, rules: REGISTRY_RULES})
}

/** As after kill -9: the process is gone without close(); its lock names a dead pid. */
function abandon(dir: string): void {
  writeFileSync(join(dir, 'LOCK'), '999999999')
}

async function codeOf(p: Promise<unknown>): Promise<{code?: string; message: string; serverDetail?: string}> {
  try {
    await p
  } catch (e) {
    return {code: (e as {code?: string}).code, message: (e as Error).message, serverDetail: (e as {serverDetail?: string}).serverDetail}
  }
  return {message: 'resolved'}
}

describe('embedded store: failing disk (fault injection at the file layer)', () => {
  let dir: string
  beforeEach(() => (dir = tempDir('mdcli-durable-')))
  afterEach(() => cleanup(dir))

  it('a short write then ENOSPC refuses the whole batch (E_STORE_FULL, the store named for the log only), keeps reads, and writes again once there is space', async () => {
    const fs = new FaultyFs()
    const warnings: string[] = []
    const s = new LowdbStore({dir, fs, rules: REGISTRY_RULES, warn: (m) => warnings.push(m)})
    await s.open()
    await s.write([up(DS('before'), 'status', {removed: false})])
    fs.short = true
    const refused = await codeOf(s.write(Array.from({length: 20}, (_, i) => up(DS(`full${i}`), 'status', {removed: false}))))
    expect(refused.code).to.equal('E_STORE_FULL')
    // The path is the server's to log, never the client's to read.
    expect(refused.message).to.not.include(dir)
    expect(refused.serverDetail).to.include(dir)
    // Nothing of the refused batch is visible; what was there is still read.
    expect(await s.exists(DS('full0'))).to.equal(false)
    expect(await s.exists(DS('before'))).to.equal(true)
    fs.short = false
    await s.write([up(DS('after'), 'status', {removed: false})])
    abandon(dir)
    const b = createStore({dir, warn: (m) => warnings.push(m)})
    await b.open()
    try {
      expect(await b.exists(DS('before'))).to.equal(true)
      expect(await b.exists(DS('after'))).to.equal(true)
      expect(await b.exists(DS('full0'))).to.equal(false)
      expect((await b.listUrns({entityType: 'dataset'})).total).to.equal(2)
      // The journal ended on a whole record: no torn tail had to be cut at the start.
      expect(warnings.filter((w) => /incomplete|unreadable/.test(w))).to.deep.equal([])
    } finally {
      await b.close()
    }
  })

  it('EIO on sync refuses the batch (E_STORE_IO), and the next write cuts what the failed one left', async () => {
    const fs = new FaultyFs()
    const s = open(dir, fs)
    await s.open()
    await s.write([up(DS('one'), 'status', {removed: false})])
    fs.syncEio = true
    expect((await codeOf(s.write([up(DS('lost'), 'status', {removed: false})]))).code).to.equal('E_STORE_IO')
    // The cut after the failure could not be synced either; the next append cuts first.
    fs.syncEio = false
    await s.write([up(DS('two'), 'status', {removed: false})])
    abandon(dir)
    const b = createStore({dir})
    await b.open()
    try {
      expect((await b.listUrns({entityType: 'dataset'})).urns.sort()).to.deep.equal([DS('one'), DS('two')].sort())
    } finally {
      await b.close()
    }
  })

  it('a checkpoint on a full disk fails without losing anything; close still releases the store', async () => {
    const fs = new FaultyFs()
    const warnings: string[] = []
    const s = new LowdbStore({dir, fs, rules: REGISTRY_RULES, warn: (m) => warnings.push(m)})
    await s.open()
    await s.write([up(DS('c1'), 'status', {removed: false})])
    await s.close()
    const a = new LowdbStore({dir, fs, rules: REGISTRY_RULES, warn: (m) => warnings.push(m)})
    await a.open()
    await a.write([up(DS('c2'), 'globalTags', {tags: [{tag: 'urn:li:tag:x'}]})])
    fs.replaceFull = true
    expect((await codeOf(a.checkpoint())).code).to.equal('E_STORE_FULL')
    await a.write([up(DS('c3'), 'status', {removed: false})])
    await a.close()
    expect(warnings.join('\n')).to.match(/checkpoint at close failed/)
    expect(readdirSync(join(dir, 'shards')).filter((f) => f.endsWith('.tmp'))).to.deep.equal([])
    fs.replaceFull = false
    const b = createStore({dir})
    await b.open()
    try {
      expect((await b.listUrns({entityType: 'dataset'})).total).to.equal(3)
      expect(((await b.getAspect(DS('c2'), 'globalTags'))!.value as any).tags[0].tag).to.equal('urn:li:tag:x')
    } finally {
      await b.close()
    }
  })
})

describe('embedded store: every file accounted for by the manifest', () => {
  let dir: string
  beforeEach(async () => {
    dir = tempDir('mdcli-manifest-')
    const s = createStore({dir})
    await s.open()
    for (let i = 0; i < 30; i++) await s.write([up(DS(`m${i}`), 'status', {removed: false})])
    await s.close()
  })
  afterEach(() => cleanup(dir))

  const shard = () => join(dir, 'shards', readdirSync(join(dir, 'shards')).find((f) => f.endsWith('.json'))!)
  const refusal = async () => {
    const s = createStore({dir})
    const r = await codeOf(s.open())
    if (r.code === undefined) await s.close()
    return r
  }

  it('records each shard with size and checksum', () => {
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    expect(m.format).to.equal('mdcli-lowdb-4')
    const files = Object.keys(m.files)
    expect(files.length).to.be.greaterThan(5)
    for (const f of files) expect(m.files[f]).to.have.keys('size', 'sha256')
    expect(readdirSync(join(dir, 'shards')).map((f) => `shards/${f}`).sort()).to.deep.equal(files.sort())
  })

  for (const [what, damage] of [
    ['missing', (p: string) => unlinkSync(p)],
    ['truncated', (p: string) => truncateSync(p, 10)],
    ['altered (same size)', (p: string) => writeFileSync(p, readFileSync(p, 'utf8').replace('false', 'fals_'))],
  ] as const) {
    it(`stops the start on a ${what} shard, naming it and how to recover, and changes no file`, async () => {
      const path = shard()
      damage(path)
      const before = readdirSync(join(dir, 'shards')).map((f) => [f, readFileSync(join(dir, 'shards', f), 'utf8')])
      const r = await refusal()
      expect(r.code).to.equal('E_STORE_CORRUPT')
      expect(r.message).to.include(path)
      expect(r.message).to.match(/backup|import/)
      expect(readdirSync(join(dir, 'shards')).map((f) => [f, readFileSync(join(dir, 'shards', f), 'utf8')])).to.deep.equal(before)
    })
  }

  it('stops the start on a missing or altered journal segment', async () => {
    // Two starts with writes: the first start's segment is sealed in the manifest by the second.
    const s = createStore({dir})
    await s.open()
    await s.write([up(DS('j1'), 'status', {removed: false})])
    abandon(dir)
    const t = createStore({dir})
    await t.open()
    await t.write([up(DS('j2'), 'status', {removed: false})])
    abandon(dir)
    const segs = readdirSync(join(dir, 'wal')).sort()
    expect(segs.length).to.be.greaterThan(1)
    const sealed = join(dir, 'wal', segs[0]!)
    appendFileSync(sealed, '{"l":1,"o":[]}\n')
    expect((await refusal()).code).to.equal('E_STORE_CORRUPT')
    rmSync(sealed)
    const r = await refusal()
    expect(r.code).to.equal('E_STORE_CORRUPT')
    expect(r.message).to.include(segs[0]!)
  })
})

describe('embedded store: a live journal segment emptied or cut short', () => {
  let dir: string
  afterEach(() => cleanup(dir))

  for (const [what, damage] of [
    ['emptied', (p: string) => truncateSync(p, 0)],
    ['cut at a record boundary', (p: string) => {
      const text = readFileSync(p, 'utf8')
      writeFileSync(p, text.slice(0, text.slice(0, -1).lastIndexOf('\n') + 1))
    }],
  ] as const) {
    it(`stops the start when the live segment is ${what} after acknowledged new versions, and leaves history.log as it was`, async () => {
      dir = tempDir('mdcli-live-')
      const s = createStore({dir})
      await s.open()
      // New versions of the same aspects: their old versions go to history.log.
      for (let i = 0; i < 30; i++) await s.write([up(DS(`h${i % 3}`), 'datasetProperties', {description: `v${i}`})])
      abandon(dir)
      const live = join(dir, 'wal', readdirSync(join(dir, 'wal')).sort().at(-1)!)
      const history = readFileSync(join(dir, 'history.log'))
      expect(history.length).to.be.greaterThan(0)
      damage(live)
      const t = createStore({dir})
      const r = await codeOf(t.open())
      if (r.code === undefined) await t.close()
      expect(r.code, r.message).to.equal('E_STORE_CORRUPT')
      expect(r.message).to.match(/lacks journal records/)
      expect(readFileSync(join(dir, 'history.log')).equals(history), 'history.log untouched').to.equal(true)
    })
  }

  it('a kill -9 in the middle of new versions still opens with every acknowledged one (the check counts what the replay writes again)', async () => {
    dir = tempDir('mdcli-live-')
    const s = createStore({dir, checkpointBytes: 4096})
    await s.open()
    for (let i = 0; i < 200; i++) await s.write([up(DS(`k${i % 7}`), 'datasetProperties', {description: `v${i}`})])
    // A kill -9 stops a checkpoint dead; this abandoned store lives on in the process, so a
    // checkpoint it is running is let finish rather than write beside the reopened store (or into
    // a directory already removed, as it once did on a loaded machine).
    await (s as unknown as {checkpointing: Promise<void> | null}).checkpointing
    abandon(dir)
    const t = createStore({dir})
    await t.open()
    try {
      for (let k = 0; k < 7; k++) {
        const last = 199 - ((199 - k) % 7)
        expect((await t.getAspect(DS(`k${k}`), 'datasetProperties'))!.value).to.deep.equal({description: `v${last}`})
        expect(await t.listVersions(DS(`k${k}`), 'datasetProperties')).to.have.length(Math.floor((199 - k) / 7) + 1)
      }
    } finally {
      await t.close()
    }
  })
})

/** Mounts a tmpfs of `mb` MiB at a new directory, when this process may (root, or a user namespace). */
function mountTmpfs(mb: number): string | undefined {
  const dir = tempDir('mdcli-tmpfs-')
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m`, 'tmpfs', dir], {stdio: 'ignore'})
    return dir
  } catch {
    cleanup(dir)
    return undefined
  }
}

/** Fills the filesystem of `filler` to its last `grain` bytes (MiB at a time, then grains). */
function fillUp(filler: string, grain: number): void {
  for (const [size, n] of [[1024 * 1024, 64], [grain, (4 * 1024 * 1024) / grain]]) {
    try {
      for (let i = 0; i < n; i++) appendFileSync(filler, Buffer.alloc(size, 1))
    } catch {
      /* full at this grain */
    }
  }
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], {stdio: 'ignore'})
  } finally {
    cleanup(dir)
  }
}

describe('embedded store on a real 20 MiB filesystem', function () {
  this.timeout(120_000)
  let mnt: string | undefined
  before(function () {
    mnt = mountTmpfs(20)
    // Mounting needs privileges a CI runner may not grant; the fault injection above always runs.
    if (!mnt) {
      skipWithReason(this, 'cannot mount a tmpfs here (needs root); the fault-injection tests cover the same paths')
    }
  })
  after(() => {
    if (mnt) unmount(mnt)
  })

  it('refuses writes with E_STORE_FULL when the disk fills, loses no acknowledged write, and writes again once space is freed', async () => {
    const dir = join(mnt!, 'store')
    const filler = join(mnt!, 'filler')
    writeFileSync(filler, Buffer.alloc(6 * 1024 * 1024, 1))
    const s = createStore({dir, checkpointBytes: 64 * 1024 * 1024})
    await s.open()
    const acknowledged: string[] = []
    const big = 'x'.repeat(50_000)
    let full: {code?: string; message: string; serverDetail?: string} | undefined
    for (let i = 0; i < 2000 && !full; i++) {
      const batch = Array.from({length: 20}, (_, k) => up(DS(`f${i}_${k}`), 'datasetProperties', {name: `f${i}_${k}`, description: big}))
      try {
        await s.write(batch)
        acknowledged.push(...batch.map((b) => b.urn))
      } catch (e) {
        full = {code: (e as {code?: string}).code, message: (e as Error).message, serverDetail: (e as {serverDetail?: string}).serverDetail}
      }
    }
    expect(full?.code).to.equal('E_STORE_FULL')
    expect(full!.message).to.not.include(dir)
    expect(full!.serverDetail).to.include(dir)
    expect(acknowledged.length).to.be.greaterThan(20)
    // Reads go on while the disk is full.
    expect(await s.exists(acknowledged.at(-1)!)).to.equal(true)
    // Space comes back: the next write succeeds, without a restart.
    rmSync(filler)
    await s.write([up(DS('after-full'), 'status', {removed: false})])
    acknowledged.push(DS('after-full'))
    // As after kill -9: the next start has every acknowledged write, and only those.
    abandon(dir)
    const b = createStore({dir})
    await b.open()
    try {
      const urns = new Set((await b.listUrns({entityType: 'dataset'})).urns)
      expect(urns.size).to.equal(acknowledged.length)
      for (const u of acknowledged) expect(urns.has(u), u).to.equal(true)
    } finally {
      await b.close()
      await s.close().catch(() => undefined)
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('answers REST writes on a full disk with 507 (the store path in the server log only), GraphQL with the spec error shape, and keeps serving reads', async () => {
    const storeDir = join(mnt!, 'lite')
    const lite = await startLite({storeDir})
    try {
      const filler = join(mnt!, 'filler2')
      const urn = DS('rest-full')
      const put = (description: string) =>
        http(`${lite.url}/aspects?action=ingestProposal`, {
          body: {proposal: {entityType: 'dataset', entityUrn: urn, aspectName: 'datasetProperties', changeType: 'UPSERT', aspect: {contentType: 'application/json', value: JSON.stringify({name: 'r', description})}}},
        })
      expect((await put('before')).status).to.equal(200)
      fillUp(filler, 1024)
      const refused = await put('y'.repeat(200_000))
      expect(refused.status).to.equal(507)
      expect(refused.body.code).to.equal('E_STORE_FULL')
      expect(JSON.stringify(refused.body)).to.not.include(storeDir)
      expect(await eventually(() => lite.output().includes(storeDir) && /disk is full/.test(lite.output()))).to.equal(true)
      const gql = await http(`${lite.url}/api/graphql`, {body: {query: 'mutation($d: String!, $u: String!) { updateDataset(urn: $u, input: {editableProperties: {description: $d}}) { urn } }', variables: {d: 'z'.repeat(200_000), u: urn}}})
      expect(gql.body.errors[0].extensions, JSON.stringify(gql.body)).to.deep.include({code: 500, type: 'SERVER_ERROR'})
      expect(gql.body.errors[0].message).to.match(/disk is full/)
      expect(JSON.stringify(gql.body)).to.not.include(storeDir)
      expect(gql.body.errors[0].path).to.deep.equal(['updateDataset'])
      const read = await http(`${lite.url}/aspects/${encodeURIComponent(urn)}?aspect=datasetProperties&version=0`)
      expect(read.status).to.equal(200)
      rmSync(filler)
      expect((await put('after')).status).to.equal(200)
    } finally {
      await lite.stop()
      cleanup(lite.home)
    }
  })

  it('a start on a full disk says E_STORE_FULL naming the store, and leaves no empty LOCK to stop the next start', async () => {
    const filler = join(mnt!, 'filler3')
    fillUp(filler, 256)
    const dir = join(mnt!, 'new-store')
    const s = createStore({dir})
    const err = await s.open().then(
      () => undefined,
      (e: unknown) => e as {code?: string; serverDetail?: string},
    )
    await s.close().catch(() => undefined)
    rmSync(filler)
    expect(err?.code, JSON.stringify(err)).to.equal('E_STORE_FULL')
    expect(err!.serverDetail).to.include(dir)
    expect(existsSync(join(dir, 'LOCK'))).to.equal(false)
    // Space back: the store opens.
    const again = createStore({dir})
    await again.open()
    await again.close()
  })
})
