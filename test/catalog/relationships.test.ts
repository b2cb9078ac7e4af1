/**
 * The edge types each relationship aspect is declared to carry (used to read only the referring
 * entities that can hold an asked type) agree with the edges the aspects actually give.
 */
import {expect} from 'chai'
import {EDGE_TYPES_OF_ASPECT, edgesOf, RELATIONSHIP_ASPECTS} from '../../src/catalog/relationships.js'
import {fixtureCatalog} from '../graphql/helpers.js'

describe('catalog: relationship edge types by aspect', () => {
  it('declares the edge types of exactly the aspects that carry edges', () => {
    expect(Object.keys(EDGE_TYPES_OF_ASPECT).sort()).to.deep.equal([...RELATIONSHIP_ASPECTS].sort())
  })

  it('lists every edge type an aspect of the sample catalog gives', () => {
    const undeclared = new Set<string>()
    let edges = 0
    for (const p of fixtureCatalog()) {
      for (const e of edgesOf(p.aspectName, JSON.parse(p.aspect.value))) {
        edges++
        if (!EDGE_TYPES_OF_ASPECT[p.aspectName]?.includes(e.type)) undeclared.add(`${p.aspectName}: ${e.type}`)
      }
    }
    expect(edges).to.be.greaterThan(10)
    expect([...undeclared]).to.deep.equal([])
  })
})
