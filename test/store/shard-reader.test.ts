/**
 * A store whose shards pass the value arena's reservation (more than 16 MiB) starts with its
 * shards read into the arena's shared memory and summed on the shard reader's thread: every
 * value comes back, `lite` answers from it, and a shard damaged, cut short or missing is still
 * refused, naming the file.
 */
import {expect} from 'chai'
import {cpSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {join} from 'node:path'
import {ShardReader} from '../../src/store/embedded/shard-reader.js'
import type {ValueArena} from '../../src/store/embedded/values.js'
import {createStore} from '../../src/store/index.js'
import {LowdbStore} from '../../src/store/lowdb-store.js'
import {REGISTRY_RULES} from '../../src/store/rules.js'
import {encodeUrnPath} from '../../src/model/urn.js'
import {cleanup, http, startLite, tempDir} from '../helpers/lite.js'
import {up} from './conformance.js'
import {flip, refusal} from './damage.js'

const DS = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,db.big${i},PROD)`
const N = 320
/** About 64 KiB per value, every one different: 20 MiB of shards. */
const description = (i: number) => `${i}-`.repeat(64_000).slice(0, 64_000) + ' é'

interface ManifestFiles {
  files: Record<string, {size: number; sha256: string}>
}

describe('embedded store: shards read and summed on a thread of their own', function () {
  this.timeout(120_000)
  let base: string

  before(async () => {
    base = tempDir('mdcli-shards-')
    const s = createStore({dir: base})
    await s.open()
    for (let i = 0; i < N; i += 40) await s.write(Array.from({length: 40}, (_, k) => up(DS(i + k), 'datasetProperties', {name: `big${i + k}`, description: description(i + k)})))
    await s.close()
  })
  after(() => cleanup(base))

  const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as ManifestFiles
  /** A copy of the store, and the manifest's last shard (read by the reader's thread, not the first). */
  const copy = () => {
    const dir = tempDir('mdcli-shards-copy-')
    cpSync(base, dir, {recursive: true})
    const shards = Object.keys(manifest(dir).files).filter((f) => f.startsWith('shards/'))
    return {dir, last: join(dir, shards[shards.length - 1]!)}
  }

  it('opens with every value, the shards past the first read by the thread into the arena, nothing copied', async () => {
    const shards = Object.entries(manifest(base).files).filter(([f]) => f.startsWith('shards/'))
    expect(shards.reduce((n, [, f]) => n + f.size, 0)).to.be.above(16 * 2 ** 20)
    // A copy: this case writes, and the others read the base store as it was made.
    const {dir} = copy()
    const before = ShardReader.filesRead
    const s = createStore({dir})
    await s.open()
    try {
      expect(ShardReader.filesRead - before).to.equal(shards.length - 1)
      for (const i of [0, 1, 57, 160, N - 1]) {
        const a = await s.getAspect(DS(i), 'datasetProperties')
        expect((a!.value as {description: string}).description, `dataset ${i}`).to.equal(description(i))
      }
      // The shards' heads and columns stay in the claimed memory, beside the records: dead bytes.
      const arena = (s as unknown as {values: ValueArena}).values
      expect(arena.bytes.dead).to.be.above(0)
      expect(arena.bytes.live).to.be.above(N * 64_000)
      // Writes after the start, 20 MiB of them: past what the claims left of the arena's
      // reservation (less than a chunk), read back whole, and again after a restart.
      const later = (i: number) => `after the start ${i} ${'a'.repeat(64_000)}`
      for (let i = 0; i < N; i += 40) await s.write(Array.from({length: 40}, (_, k) => up(DS(i + k), 'datasetProperties', {name: `big${i + k}`, description: later(i + k)})))
      for (const i of [0, 159, N - 1]) expect(((await s.getAspect(DS(i), 'datasetProperties'))!.value as {description: string}).description, `dataset ${i}`).to.equal(later(i))
      await s.close()
      const again = createStore({dir})
      await again.open()
      try {
        for (let i = 0; i < N; i += 29) expect(((await again.getAspect(DS(i), 'datasetProperties'))!.value as {description: string}).description, `dataset ${i} after a restart`).to.equal(later(i))
      } finally {
        await again.close()
      }
    } finally {
      await s.close()
      cleanup(dir)
    }
  })

  it('mdcli lite starts on it and answers (the server thread waits on the reader without exiting)', async () => {
    const {dir} = copy()
    const lite = await startLite({storeDir: dir, args: ['--no-auth']})
    try {
      const res = await http(`${lite.url}/entitiesV2/${encodeUrnPath(DS(N - 1))}`)
      expect(res.status, lite.output()).to.equal(200)
      expect(JSON.stringify(res.body)).to.include(`big${N - 1}`)
    } finally {
      await lite.stop()
      cleanup(dir)
    }
  })

  it('shards larger than a chunk (16 MiB) are read by the thread into buffers of its own, one ahead, every value kept', async () => {
    // Two shards of about 20 MiB each: no claim fits, so both buffers of the reader are used in turn.
    const dir = tempDir('mdcli-shards-two-')
    try {
      const two = () => new LowdbStore({dir, rules: REGISTRY_RULES, shards: 2})
      const s = two()
      await s.open()
      for (let i = 0; i < 640; i += 40) await s.write(Array.from({length: 40}, (_, k) => up(DS(i + k), 'datasetProperties', {name: `big${i + k}`, description: description(i + k)})))
      await s.close()
      const sizes = Object.entries(manifest(dir).files).filter(([f]) => f.startsWith('shards/')).map(([, f]) => f.size)
      expect(sizes).to.have.length(2)
      expect(Math.min(...sizes)).to.be.above(16 * 2 ** 20)
      const before = ShardReader.filesRead
      const again = two()
      await again.open()
      try {
        expect(ShardReader.filesRead - before).to.equal(1)
        for (const i of [0, 1, 333, 639]) {
          const a = await again.getAspect(DS(i), 'datasetProperties')
          expect((a!.value as {description: string}).description, `dataset ${i}`).to.equal(description(i))
        }
      } finally {
        await again.close()
      }
    } finally {
      cleanup(dir)
    }
  })

  it('a start whose reader thread cannot run reads every shard itself, and opens', async () => {
    // The built worker module moved away: the thread fails as it starts.
    const worker = fileURLToPath(new URL('../../src/store/embedded/shard-read-worker.js', import.meta.url))
    renameSync(worker, `${worker}.away`)
    const before = ShardReader.filesRead
    try {
      const s = createStore({dir: base})
      await s.open()
      try {
        expect(ShardReader.filesRead).to.equal(before)
        for (const i of [0, 160, N - 1]) {
          const a = await s.getAspect(DS(i), 'datasetProperties')
          expect((a!.value as {description: string}).description, `dataset ${i}`).to.equal(description(i))
        }
      } finally {
        await s.close()
      }
    } finally {
      renameSync(`${worker}.away`, worker)
    }
  })

  it('a byte changed in a shard the thread reads is refused, naming the file', async () => {
    const {dir, last} = copy()
    try {
      flip(last, Math.floor(statSync(last).size / 2))
      const r = await refusal(dir)
      expect(r.code).to.equal('E_STORE_CORRUPT')
      expect(r.message).to.include(last).and.to.match(/does not match the checksum the manifest recorded/)
    } finally {
      cleanup(dir)
    }
  })

  it('a shard cut short or missing is refused, naming the file', async () => {
    const {dir, last} = copy()
    try {
      const size = statSync(last).size
      writeFileSync(last, readFileSync(last).subarray(0, size - 10))
      const cut = await refusal(dir)
      expect(cut.code).to.equal('E_STORE_CORRUPT')
      expect(cut.message).to.include(last).and.to.include(`has ${size - 10} bytes, the manifest recorded ${size}`)
      rmSync(last)
      const gone = await refusal(dir)
      expect(gone.code).to.equal('E_STORE_CORRUPT')
      expect(gone.message).to.include(last).and.to.match(/is missing/)
    } finally {
      cleanup(dir)
    }
  })
})
