import {expect} from 'chai'
import {MentionIndex} from '../../src/store/embedded/mentions.js'

describe('embedded store: the index of mentions', () => {
  const TAG = 'urn:li:tag:t'
  const tagged = (...tags: string[]) => JSON.stringify({tags: tags.map((tag) => ({tag}))})

  it('names each candidate once, in slot order, and never an entity under its own urn', () => {
    const m = new MentionIndex()
    for (let i = 0; i < 500; i++) m.note(i % 3 === 0 ? 7 : 2, 'urn:li:dataset:x', tagged(TAG, `urn:li:tag:n${i}`))
    m.note(1, TAG, tagged(TAG))
    expect(m.candidates(TAG)).to.deep.equal([2, 7])
    expect(m.candidates('urn:li:dataset:x')).to.deep.equal([])
    m.settle(TAG, [7])
    expect(m.candidates(TAG)).to.deep.equal([7])
    m.settle(TAG, [])
    expect(m.candidates(TAG)).to.deep.equal([])
  })

  it('is outgrown once changes leave twice what it was built with behind (and not while it is built)', () => {
    const m = new MentionIndex()
    for (let s = 0; s < 1000; s++) m.note(s, `urn:li:dataset:${s}`, tagged(TAG))
    expect(m.outgrown).to.equal(false)
    m.markBuilt()
    // Every value changed to mention a new urn, again and again: history, not live data.
    let n = 0
    while (!m.outgrown && n < 1_000_000) m.note(n % 1000, `urn:li:dataset:${n % 1000}`, tagged(`urn:li:tag:g${n++}`))
    expect(n).to.be.within(100_000, 110_000)
  })
})
