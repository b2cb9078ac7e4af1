import {expect} from 'chai'
import {type GraphQLError, KnownTypeNamesRule, parse, specifiedRules, validate} from 'graphql'
import {buildCatalogSchema} from '../../src/server/graphql/schema.js'
import {lazyKnownTypeNamesRule, mergedRule} from '../../src/server/graphql/validation.js'

// The server validates a new document with graphql-js's rules merged into one (validation.ts);
// a client must get exactly what graphql-js's own `validate` says: the same errors, worded the
// same, at the same places, in the same order.
const DOCUMENTS = [
  '{ __typename }',
  '{ search(input: {type: DATASET, query: "orders", start: 0, count: 10}) { total searchResults { entity { urn ... on Dataset { name properties { name description } } } } } }',
  'query q($urn: String!) { dataset(urn: $urn) { urn ...f } } fragment f on Dataset { name ownership { owners { owner { ... on CorpUser { urn } } } } }',
  // Unknown types, with and without a near name to suggest.
  'query q($u: Strin!) { dataset(urn: $u) { urn ... on Datset { name } } }',
  'fragment f on NoSuchThingAnywhere { urn } { dataset(urn: "x") { ...f } }',
  // Unknown fields and arguments, a missing required argument, a leaf with a selection.
  '{ dataset(urn: "x") { nme urn { a } } datasett(urn: "x") { urn } }',
  '{ dataset(urne: "x") { urn } }',
  '{ dataset { urn } }',
  // Variables: undefined, unused, of an input type the position does not take.
  'query q($a: String, $b: Int) { dataset(urn: $c) { urn } }',
  'query q($a: Int) { dataset(urn: $a) { urn } }',
  // Operations and fragments: duplicates, anonymous beside named, unused, cycles, unknown spreads.
  'query a { __typename } query a { __typename }',
  '{ __typename } query b { __typename }',
  'fragment x on Dataset { urn } fragment x on Dataset { name } fragment unused on Dataset { urn } { dataset(urn: "x") { ...x ...missing } }',
  'fragment a on Dataset { ...b } fragment b on Dataset { ...a } { dataset(urn: "x") { ...a } }',
  // Fields that cannot be merged, a fragment spread where it cannot apply, directives.
  '{ dataset(urn: "x") { urn: name urn } }',
  '{ dataset(urn: "x") { ... on CorpUser { urn } } }',
  '{ dataset(urn: "x") @skip(if: true) @skip(if: false) { urn @nosuch } }',
  // Literal values of the wrong type, duplicate arguments and input fields, a subscription.
  '{ search(input: {type: NOT_A_TYPE, query: 1, start: "0", count: 10, count: 11}) { total } }',
  'subscription s { a b }',
  // Type definitions are not executable.
  'type Extra { a: String } { __typename }',
]

const shape = (errors: readonly GraphQLError[]) => errors.map((e) => ({message: e.message, locations: e.locations}))

describe('GraphQL validation: the rules merged into one, against graphql-js', () => {
  const schema = buildCatalogSchema()
  const merged = [mergedRule(specifiedRules.map((r) => (r === KnownTypeNamesRule ? lazyKnownTypeNamesRule : r)))]

  it('reports what graphql-js reports, for valid and invalid documents alike', () => {
    let invalid = 0
    for (const text of DOCUMENTS) {
      const document = parse(text)
      const expected = shape(validate(schema, document, specifiedRules))
      if (expected.length > 0) invalid++
      expect(shape(validate(schema, document, merged)), text).to.deep.equal(expected)
    }
    // The corpus holds both kinds, or the comparison proves little.
    expect(invalid).to.be.greaterThan(12)
    expect(DOCUMENTS.length - invalid).to.be.at.least(3)
  })

  it('stops where graphql-js stops when a document has too many errors', () => {
    const document = parse(`{ ${Array.from({length: 12}, (_, i) => `f${i}: nope${i}`).join(' ')} }`)
    const expected = shape(validate(schema, document, specifiedRules, {maxErrors: 5}))
    expect(expected).to.have.length(6)
    expect(expected[5]!.message).to.match(/Too many validation errors/)
    expect(shape(validate(schema, document, merged, {maxErrors: 5}))).to.deep.equal(expected)
  })
})
