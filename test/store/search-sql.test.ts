import {expect} from 'chai'
import {urnWords} from '../../src/model/search-doc.js'
import {indexTokens} from '../../src/store/search-index.js'
import {searchVectors} from '../../src/store/postgres/search-sql.js'
import {rng} from '../helpers/random.js'

// The rule the PostgreSQL store's vectors follow, written plainly: distinct words in order,
// none of 2,046 UTF-8 bytes or more, and words past a 900,000-byte budget (8 bytes a word of
// overhead) left out. The store counts bytes lazily; it must keep exactly the same words.
function plainVector(tokens: string[], maxBytes = 900_000): string {
  const words = new Set<string>()
  let bytes = 0
  for (const t of tokens) {
    if (words.has(t)) continue
    const size = Buffer.byteLength(t)
    if (size > 2046 || bytes + size > maxBytes) continue
    bytes += size + 8
    words.add(t)
  }
  return [...words].map((w) => `'${w.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`).join(' ')
}

const plainSearch = (urn: string, name: string, text: string) => plainVector([...indexTokens(`${name} ${urnWords(urn)}`), ...indexTokens(text)])

describe('PostgreSQL search vectors (no database)', () => {
  const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleKafkaDataset,PROD)'

  it('hold the same words as the plain rule, for ASCII, accented and CJK text', () => {
    const r = rng(11)
    const alphabet = ['a', 'b', 'Q', 'z', '7', 'é', 'ß', 'ж', '数', '据', '😀', ' ', '_', '-', '.']
    for (let i = 0; i < 200; i++) {
      let text = ''
      const n = Math.floor(r() * 400)
      for (let k = 0; k < n; k++) text += alphabet[Math.floor(r() * alphabet.length)]
      const name = text.slice(0, 20)
      const v = searchVectors(urn, name, text)
      expect(v.search).to.equal(plainSearch(urn, name, text))
      expect(v.name).to.equal(plainVector(indexTokens(`${name} ${urnWords(urn)}`)))
      // A document's text starts with its head; given the head, the vectors are the same.
      const head = [name, urnWords(urn)].filter((w) => w.length > 0).join(' ')
      expect(searchVectors(urn, name, `${head} ${text}`, head)).to.deep.equal(searchVectors(urn, name, `${head} ${text}`))
    }
  })

  it('leave out words of 2,046 bytes or more, however many UTF-16 units they have', () => {
    const short = 'é'.repeat(700) // 1,400 bytes: kept, though 3 bytes a unit would be 2,100
    const long = 'é'.repeat(1100) // 2,200 bytes: left out
    const v = searchVectors(urn, 'n', `${short} ${long} ok`).search
    expect(v).to.include(short).and.not.include(long)
    expect(v).to.equal(plainSearch(urn, 'n', `${short} ${long} ok`))
  })

  it('stop at the byte budget exactly where the plain rule stops, for multibyte words', () => {
    // About 1.9 MB of distinct two-byte words: the budget is passed halfway through.
    const words = Array.from({length: 40_000}, (_, i) => `ж${i.toString(36)}ж`.repeat(6))
    const text = words.join(' ')
    const v = searchVectors(urn, 'big', text).search
    expect(v).to.equal(plainSearch(urn, 'big', text))
    expect(Buffer.byteLength(v)).to.be.below(1024 * 1024)
    expect(v).to.include(words[0]).and.not.include(words[words.length - 1])
  })
})
