import {expect} from 'chai'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {ValueArena} from '../../src/store/embedded/values.js'
import {createStore} from '../../src/store/index.js'
import type {WriteOp} from '../../src/store/types.js'

describe('value arena (embedded store)', () => {
  it('gives back every text as written: ASCII, multi-byte, empty, and one larger than a chunk', () => {
    const a = new ValueArena()
    const texts = ['{"a":1}', 'é à ü 漢字 🎉 "q" \\ \n', '', 'x'.repeat(17 * 2 ** 20), '{"after":"big"}']
    const refs = texts.map((t) => a.put(t))
    texts.forEach((t, i) => expect(a.text(refs[i]!)).to.equal(t))
    expect(a.ascii(refs[1]!)).to.equal(false)
    expect(a.ascii(refs[0]!)).to.equal(true)
    // Equality by text: the same text, another of the same length, another length, multi-byte.
    expect(a.equals(refs[0]!, '{"a":1}')).to.equal(true)
    expect(a.equals(refs[0]!, '{"a":2}')).to.equal(false)
    expect(a.equals(refs[0]!, '{"a":10}')).to.equal(false)
    expect(a.equals(refs[1]!, texts[1]!)).to.equal(true)
    expect(a.equals(refs[1]!, texts[1]!.slice(1))).to.equal(false)
    // Bytes copied from a file keep their encoding.
    const src = Buffer.from('..é..', 'utf8')
    expect(a.text(a.putBytes(src, 2, 2, false))).to.equal('é')
  })

  it('takes back the records it gave out (the value region of a shard file), across chunk boundaries, and refuses a torn one', () => {
    const a = new ValueArena()
    // Enough records to fill more than two chunks, one larger than a chunk, and multi-byte ones.
    const texts = Array.from({length: 9000}, (_, i) => (i === 4000 ? 'b'.repeat(17 * 2 ** 20) : `{"i":${i},"é":"${'x'.repeat(i % 5000)}"}`))
    const region = Buffer.concat(texts.map((t) => a.record(a.put(t))))
    const b = new ValueArena()
    b.put('{"already":"here"}')
    const refs = b.putRecords(Buffer.concat([Buffer.from('head'), region, Buffer.from('tail')]), 4, 4 + region.length)
    expect(refs).to.have.length(texts.length)
    texts.forEach((t, i) => expect(b.text(refs[i]!), `record ${i}`).to.equal(t))
    expect(b.ascii(refs[1]!)).to.equal(false)
    expect(b.bytes.live).to.equal(a.bytes.live + Buffer.byteLength('{"already":"here"}') + 4)
    expect(() => b.putRecords(region, 0, region.length - 1)).to.throw(/runs past the end/)
    // The same from a reservation (a start reserves the shards' size first), then compacted away from it.
    const c = new ValueArena()
    c.reserve(region.length)
    const again = c.putRecords(region, 0, region.length)
    texts.forEach((t, i) => expect(c.text(again[i]!), `reserved record ${i}`).to.equal(t))
    const after = c.put('{"after":"the reservation"}')
    let moved = new Map<number, number>()
    c.compact((move) => {
      moved = new Map([...again, after].map((r) => [r, move(r)]))
    })
    texts.forEach((t, i) => expect(c.text(moved.get(again[i]!)!), `compacted record ${i}`).to.equal(t))
    expect(c.text(moved.get(after)!)).to.equal('{"after":"the reservation"}')
  })

  it('claims pieces of its reservation for whole files, takes their records in place, and fills what the claims left without writing past it', () => {
    const a = new ValueArena()
    // Two chunks reserved; a 5 MB "file" claimed leaves 27 MiB: a whole chunk, then 11 MiB.
    a.reserve(32 * 2 ** 20)
    const texts = Array.from({length: 500}, (_, i) => `{"i":${i},"é":"${'r'.repeat(9000)}"}`)
    const records = Buffer.concat(texts.map(recordOf))
    const file = a.claim(5_000_000)!
    expect(file.buffer).to.be.instanceOf(SharedArrayBuffer)
    records.copy(file, 1000)
    expect(a.bytes.dead).to.equal(5_000_000)
    const refs = a.putRecords(file, 1000, 1000 + records.length)
    texts.forEach((t, i) => expect(a.text(refs[i]!), `record ${i}`).to.equal(t))
    expect(a.bytes.live).to.equal(records.length)
    expect(a.bytes.dead).to.equal(5_000_000 - records.length)
    // 40 MiB of texts after it: through the rest of the reservation (a chunk, then a shorter piece) and beyond.
    const after = Array.from({length: 40}, (_, i) => `{"after":${i},"pad":"${'p'.repeat(2 ** 20 - 40)}"}`)
    const afterRefs = after.map((t) => a.put(t))
    after.forEach((t, i) => expect(a.text(afterRefs[i]!), `text ${i} after the claim`).to.equal(t))
    texts.forEach((t, i) => expect(a.text(refs[i]!), `record ${i} still`).to.equal(t))
    // A claim larger than a chunk, or than what is left, is refused: the file is read and copied.
    expect(new ValueArena().claim(100)).to.equal(undefined)
    const b = new ValueArena()
    b.reserve(32 * 2 ** 20)
    expect(b.claim(17 * 2 ** 20)).to.equal(undefined)
  })

  it('compacts once replaced texts outweigh the live ones, keeping the live ones and their refs', () => {
    const a = new ValueArena()
    let live = new Map<number, string>()
    for (let i = 0; i < 100; i++) live.set(i, `{"v":${i},"pad":"${'p'.repeat(4000)}"}`)
    const refs = new Map<number, number>([...live].map(([k, t]) => [k, a.put(t)]))
    for (let round = 0; round < 40; round++) {
      for (const k of live.keys()) {
        a.free(refs.get(k)!)
        const t = `{"v":${k},"round":${round},"pad":"${'q'.repeat(4000)}"}`
        live.set(k, t)
        refs.set(k, a.put(t))
      }
    }
    expect(a.compactionDue).to.equal(true)
    a.compact((move) => {
      for (const [k, r] of refs) refs.set(k, move(r))
    })
    expect(a.bytes.dead).to.equal(0)
    expect(a.compactionDue).to.equal(false)
    for (const [k, t] of live) expect(a.text(refs.get(k)!)).to.equal(t)
    live = new Map()
  })

  it('a store that rewrites the same aspects compacts its texts, and reads and restarts see the latest values', async function () {
    this.timeout(60_000)
    const dir = mkdtempSync(join(tmpdir(), 'mdcli-values-'))
    try {
      const urn = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,v${i},PROD)`
      const op = (i: number, round: number): WriteOp => ({
        op: 'upsert',
        urn: urn(i),
        entityType: 'dataset',
        aspectName: 'datasetProperties',
        value: JSON.stringify({name: `v${i}`, description: `round ${round} ${'d'.repeat(5000)}`}),
        keyAspect: {name: 'datasetKey', value: JSON.stringify({platform: 'urn:li:dataPlatform:hive', name: `v${i}`, origin: 'PROD'})},
        created: {time: 1_700_000_000_000 + round, actor: 'urn:li:corpuser:test'},
        systemMetadata: {runId: `r${round}`, lastObserved: 1_700_000_000_000},
      })
      const store = createStore({dir})
      await store.open()
      // 200 aspects rewritten 20 times: about 20 MiB of replaced texts against 1 MiB live.
      for (let round = 0; round < 20; round++) await store.write(Array.from({length: 200}, (_, i) => op(i, round)))
      const arena = (store as unknown as {values: ValueArena}).values
      expect(arena.bytes.live).to.be.below(2 * 2 ** 20)
      expect(arena.bytes.dead, 'replaced texts were compacted away').to.be.below(9 * 2 ** 20)
      const check = async (s: typeof store) => {
        for (const i of [0, 57, 199]) {
          const a = await s.getAspect(urn(i), 'datasetProperties')
          expect((a!.value as {description: string}).description).to.match(/^round 19 /)
          // The old versions are still there, from the history file.
          const v1 = await s.getAspect(urn(i), 'datasetProperties', 1)
          expect((v1!.value as {description: string}).description).to.match(/^round 0 /)
        }
      }
      await check(store)
      await store.close()
      const again = createStore({dir})
      await again.open()
      await check(again)
      await again.close()
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})

/** A text as the arena stores it: its 4-byte head (length, top bit when not ASCII), then its bytes. */
function recordOf(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8')
  const head = Buffer.alloc(4)
  head.writeUInt32LE(((bytes.length === text.length ? 0 : 0x80000000) | bytes.length) >>> 0)
  return Buffer.concat([head, bytes])
}
