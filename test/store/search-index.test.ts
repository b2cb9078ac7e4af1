import {expect} from 'chai'
import {type SearchDoc, urnWords} from '../../src/model/search-doc.js'
import {SearchIndex, indexTokens} from '../../src/store/search-index.js'
import {Arena, TermIndex} from '../../src/store/term-index.js'
import {rng} from '../helpers/random.js'


const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'orders', 'customer', 'kafka', 'w1', 'w2', 'x9']

function doc(urn: string, name: string, text: string): SearchDoc {
  return {name, text, head: `${name} ${urnWords(urn)}`, removed: false, facets: {tags: [], owners: [], domains: [], glossaryTerms: [], typeNames: []}}
}

describe('search index (embedded store)', () => {
  it('answers as a brute-force scan does, through adds, edits that add and drop words, and removes', () => {
    // The index keeps each word's documents sorted with an "in the name" bit and takes words out
    // on edits; a model that scans every live document decides what each query must return.
    const r = rng(7)
    const pick = () => WORDS[Math.floor(r() * WORDS.length)]!
    const ix = new SearchIndex()
    const live = new Map<number, {urn: string; name: string; text: string}>()
    const model = (q: string): string[] => {
      const key = q.toLowerCase()
      const exact: number[] = []
      const named: number[] = []
      const rest: number[] = []
      for (const id of [...live.keys()].sort((a, b) => a - b)) {
        const d = live.get(id)!
        const head = new Set(indexTokens(`${d.name} ${urnWords(d.urn)}`))
        const all = new Set([...head, ...indexTokens(d.text)])
        if (!all.has(key)) continue
        if (d.name.toLowerCase() === key) exact.push(id)
        else if (head.has(key)) named.push(id)
        else rest.push(id)
      }
      return [...exact, ...named, ...rest].map((id) => live.get(id)!.urn)
    }
    for (let step = 0; step < 3000; step++) {
      const id = 1 + Math.floor(r() * 300)
      if (r() < 0.15) {
        ix.remove(id)
        live.delete(id)
      } else {
        const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,t${id},PROD)`
        const name = r() < 0.2 ? pick() : `${pick()} ${pick()}`
        const text = `${name} ${urnWords(urn)} ${Array.from({length: Math.floor(r() * 6)}, pick).join(' ')}`
        ix.upsert(id, urn, 'dataset', doc(urn, name, text))
        live.set(id, {urn, name, text})
      }
      if (step % 100 === 99) {
        expect(ix.size).to.equal(live.size)
        for (const w of WORDS) {
          const got = ix.query({types: ['dataset'], query: w, count: 1000}, ['dataset'])
          expect(got.hits.map((h) => h.urn), `${w} at step ${step}`).to.deep.equal(model(w))
          expect(got.total).to.equal(model(w).length)
        }
      }
    }
  })

  it('intersects words, ranks a document whose name holds every word first, and expands only the last word as a prefix', () => {
    const t = new TermIndex()
    t.set(1, ['orders'], ['daily', 'kafka'])
    t.set(2, ['orders', 'kafka'], [])
    t.set(3, ['kafkaesque'], ['orders'])
    t.set(4, ['daily'], [])
    // Postings are id * 2 + (every matched word in the head).
    expect(t.match(['orders', 'kafka'])).to.deep.equal([1 * 2, 2 * 2 + 1])
    expect(t.match(['orders'], t.expand('kaf', 24))).to.deep.equal([1 * 2, 2 * 2 + 1, 3 * 2])
    expect(t.expand('kaf', 24)).to.deep.equal(['kafka', 'kafkaesque'])
    expect(t.match(['nothing'])).to.deep.equal([])
    // An edit drops words it no longer holds, and a removed document leaves no posting behind.
    t.set(1, ['orders'], [])
    expect(t.match(['daily'])).to.deep.equal([4 * 2 + 1])
    t.remove(2)
    expect(t.match(['kafka'])).to.deep.equal([])
    expect(t.has('kafka')).to.equal(false)
    expect(t.expand('kaf', 24)).to.deep.equal(['kafkaesque'])
  })

  it('forgets words no document holds any more (a revision number per write does not pile up)', () => {
    const t = new TermIndex()
    for (let rev = 0; rev < 5000; rev++) t.set(1, ['history'], ['revision', `r${rev}`])
    expect((t as unknown as {terms: string[]}).terms.length).to.be.below(10)
    expect(t.match(['r4999'])).to.deep.equal([1 * 2])
    expect(t.match(['r4998'])).to.deep.equal([])
    expect(t.expand('r49', 24)).to.deep.equal(['r4999'])
  })

  it('takes documents of more words than its scratch runs hold, and an edit of one that drops most of them', () => {
    const t = new TermIndex()
    const words = (from: number, to: number) => Array.from({length: to - from}, (_, i) => `w${from + i}`)
    t.set(1, ['big'], words(0, 1000))
    t.set(2, [], words(500, 800))
    expect(t.match(['w999'])).to.deep.equal([1 * 2])
    expect(t.match(['big'])).to.deep.equal([1 * 2 + 1])
    // Document 1 keeps 300 of its words and gains 100; the words it drops leave the index.
    t.set(1, [], words(700, 1100))
    expect(t.match(['w0'])).to.deep.equal([])
    expect(t.match(['big'])).to.deep.equal([])
    expect(t.match(['w750']).map((p) => p >>> 1)).to.deep.equal([1, 2])
    expect(t.match(['w1050'])).to.deep.equal([1 * 2])
    expect(t.match(['w600'])).to.deep.equal([2 * 2])
  })

  it('keeps a long word list in order when older documents gain and lose it', () => {
    const t = new TermIndex()
    for (let id = 1; id <= 5000; id++) t.set(id, [], ['common'])
    for (let id = 4999; id >= 1; id -= 2) t.remove(id)
    for (let id = 1; id <= 5000; id += 2) t.set(id, ['common'], [])
    const got = t.match(['common'])
    expect(got).to.have.length(5000)
    expect(got.map((p) => p >>> 1)).to.deep.equal(Array.from({length: 5000}, (_, i) => i + 1))
    expect(got.filter((p) => (p & 1) === 1)).to.have.length(2500)
  })

  it('arena: runs survive growth, in-place shrinking, moves and compaction', () => {
    const a = new Arena()
    const want = new Map<number, number[]>()
    const r = rng(3)
    for (let step = 0; step < 20000; step++) {
      const id = Math.floor(r() * 500)
      if (r() < 0.1) {
        a.delete(id)
        want.delete(id)
        continue
      }
      const run = Array.from({length: Math.floor(r() * 20)}, () => Math.floor(r() * 1e6))
      a.set(id, run)
      want.set(id, run)
    }
    for (let id = 0; id < 500; id++) {
      const at = a.start(id)
      const got = at < 0 ? undefined : Array.from(a.values.subarray(at, at + a.length(id)))
      expect(got, `id ${id}`).to.deep.equal(want.get(id))
    }
  })
})
