import {expect} from 'chai'
import {jsonTooDeep, MAX_JSON_DEPTH, valueTooDeep} from '../../src/model/limits.js'

describe('jsonTooDeep', () => {
  const nest = (n: number, open = '[', close = ']') => open.repeat(n) + close.repeat(n)

  it('finds nesting past the limit, in arrays and objects, and not at it', () => {
    expect(jsonTooDeep(nest(MAX_JSON_DEPTH))).to.equal(false)
    expect(jsonTooDeep(nest(MAX_JSON_DEPTH + 1))).to.equal(true)
    expect(jsonTooDeep('{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1))).to.equal(true)
  })

  it('does not count brackets inside strings, nor siblings as depth', () => {
    expect(jsonTooDeep(JSON.stringify({s: '['.repeat(500)}))).to.equal(false)
    expect(jsonTooDeep(JSON.stringify(Array.from({length: 500}, () => [1])))).to.equal(false)
    expect(jsonTooDeep(JSON.stringify({s: '"\\['.repeat(50), d: JSON.parse(nest(MAX_JSON_DEPTH + 5))}))).to.equal(true)
  })

  it('ends a string only at a quote no backslash escapes (an even run of backslashes escapes nothing)', () => {
    const deep = JSON.parse(nest(MAX_JSON_DEPTH + 1))
    // A string ending in a backslash: the quote after it closes the string, the brackets after count.
    expect(jsonTooDeep(JSON.stringify({s: 'x\\', d: deep}))).to.equal(true)
    // Escaped quotes inside a string: the brackets between them stay inside the string.
    expect(jsonTooDeep(JSON.stringify({s: `"${'['.repeat(300)}"\\"`}))).to.equal(false)
    // JSON text inside a string (DataHub's aspect.value) is one string to the outer check.
    expect(jsonTooDeep(JSON.stringify({value: JSON.stringify(deep)}))).to.equal(false)
  })
})

describe('valueTooDeep', () => {
  const nest = (n: number) => '['.repeat(n) + ']'.repeat(n)

  it('agrees with the text scan on parsed values: arrays, objects, siblings, strings', () => {
    const texts = [
      nest(MAX_JSON_DEPTH),
      nest(MAX_JSON_DEPTH + 1),
      '{"a":'.repeat(MAX_JSON_DEPTH) + '1' + '}'.repeat(MAX_JSON_DEPTH),
      '{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1),
      JSON.stringify(Array.from({length: 500}, () => [1])),
      JSON.stringify({s: '['.repeat(500), d: JSON.parse(nest(MAX_JSON_DEPTH - 1))}),
      JSON.stringify({value: JSON.stringify(JSON.parse(nest(MAX_JSON_DEPTH + 1)))}),
      JSON.stringify([1, {a: [2, {b: JSON.parse(nest(MAX_JSON_DEPTH - 3))}]}]),
      JSON.stringify([1, {a: [2, {b: JSON.parse(nest(MAX_JSON_DEPTH - 2))}]}]),
      '"text"',
      '42',
      'null',
    ]
    for (const t of texts) expect(valueTooDeep(JSON.parse(t)), t.slice(0, 40)).to.equal(jsonTooDeep(t))
  })

  it('finds nesting under a "__proto__" key (JSON.parse makes it an own property, which for-in reads)', () => {
    const under = (n: number) => `{"__proto__":${nest(n)}}`
    expect(valueTooDeep(JSON.parse(under(MAX_JSON_DEPTH)))).to.equal(true)
    expect(valueTooDeep(JSON.parse(under(MAX_JSON_DEPTH - 1)))).to.equal(false)
    expect(valueTooDeep(JSON.parse(`[{"a":1,"__proto__":{"b":${nest(MAX_JSON_DEPTH)}}}]`))).to.equal(true)
  })

  it('walks a million levels without recursion', () => {
    expect(valueTooDeep(JSON.parse(nest(1_000_000)))).to.equal(true)
  })
})
