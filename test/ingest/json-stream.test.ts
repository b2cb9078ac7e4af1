import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'chai'
import {JsonArrayScanner, readJsonElements, type JsonElement} from '../../src/sdk/json-stream.js'
import {cleanup, tempDir} from '../helpers/lite.js'

function scanInPieces(text: string, size: number): JsonElement[] {
  const s = new JsonArrayScanner()
  const buf = Buffer.from(text, 'utf8')
  const out: JsonElement[] = []
  for (let i = 0; i < buf.length; i += size) out.push(...s.push(buf.subarray(i, i + size)))
  out.push(...s.end())
  return out
}

describe('streaming JSON array reader', () => {
  const tricky = `[
  {"a": "x]}\\"{[", "b": [1, {"c": "é😀"}]},
  "plain string, with comma",
  42,
  null,
  {"esc": "\\\\", "u": "\\u00e9"}
]`
  const expected = JSON.parse(tricky) as unknown[]

  it('yields every element, whatever the chunk boundaries', () => {
    for (const size of [1, 2, 3, 5, 7, 64, 4096]) {
      const els = scanInPieces(tricky, size)
      expect(els.map((e) => e.value), `chunk size ${size}`).to.deep.equal(expected)
      expect(els.map((e) => e.index)).to.deep.equal([0, 1, 2, 3, 4])
    }
  })

  it('reports the line each element starts on', () => {
    expect(scanInPieces(tricky, 3).map((e) => e.line)).to.deep.equal([2, 3, 4, 5, 6])
  })

  it('reads a single top-level object as one element, and an empty array as none', () => {
    expect(scanInPieces('  {"a": {"b": [1]}}\n', 2).map((e) => e.value)).to.deep.equal([{a: {b: [1]}}])
    expect(scanInPieces('[ ]', 1)).to.deep.equal([])
  })

  it('reports a bad element and goes on with the next', () => {
    const els = scanInPieces('[{"a": 1}, {"b": tru}, {"c": 3}]', 4)
    expect(els).to.have.length(3)
    expect(els[1]!.error).to.be.a('string')
    expect(els[2]!.value).to.deep.equal({c: 3})
  })

  it('stops with a ParseError on a truncated file or a non-JSON start', () => {
    expect(() => scanInPieces('[{"a": 1}, {"b": 2', 3)).to.throw(/truncated/)
    expect(() => scanInPieces('hello', 3)).to.throw(/expected '\[' or '\{'/)
    expect(() => scanInPieces('', 3)).to.throw(/empty/)
  })

  it('refuses an element larger than the limit instead of growing without bound', () => {
    const s = new JsonArrayScanner(100)
    expect(() => s.push(Buffer.from(`[{"a": "${'x'.repeat(200)}`))).to.throw(/larger than 100 bytes/)
  })

  it('reads a file in small chunks', async () => {
    const dir = tempDir()
    try {
      const path = join(dir, 'f.json')
      const items = Array.from({length: 500}, (_, i) => ({i, s: 'x'.repeat(i % 17)}))
      writeFileSync(path, JSON.stringify(items))
      const got: unknown[] = []
      for await (const el of readJsonElements(path, {chunkBytes: 64})) got.push(el.value)
      expect(got).to.deep.equal(items)
    } finally {
      cleanup(dir)
    }
  })
})
