/**
 * Streaming reader for change-event files: yields the elements of a top-level JSON array one at
 * a time (or the one top-level object), so a file larger than memory can be ingested.
 *
 * How: a byte scanner finds where each top-level element starts and ends (tracking strings,
 * escapes and bracket depth — UTF-8 continuation bytes never look like ASCII, so scanning bytes
 * is safe), then hands that slice to the native `JSON.parse`. Only the element being scanned is
 * held, never the file. Because boundaries come from brackets alone, an element that
 * `JSON.parse` rejects is reported with its index and line and the scan goes on with the next.
 *
 * Glossary:
 * - element: one value of the top-level array (a record of the file).
 * - structural error: the file itself is broken (does not start with `[` or `{`, ends inside an
 *   element, or an element outgrows `maxElementBytes`); the read stops there.
 */
import {createReadStream} from 'node:fs'
import {ParseError} from '../errors.js'

export interface JsonElement {
  /** 0-based position in the top-level array (0 for a single top-level object). */
  index: number
  /** 1-based line where the element starts. */
  line: number
  /** The parsed value, when the element is valid JSON. */
  value?: unknown
  /** Why the element is not valid JSON. */
  error?: string
}

export interface ReadOptions {
  /** Largest element accepted; larger means unbalanced brackets or a hostile file. */
  maxElementBytes?: number
  /** Read buffer size. */
  chunkBytes?: number
  /** Called with the bytes consumed so far, for progress. */
  onBytes?: (n: number) => void
}

const LBRACE = 0x7b
const RBRACE = 0x7d
const LBRACK = 0x5b
const RBRACK = 0x5d
const QUOTE = 0x22
const BSLASH = 0x5c
const COMMA = 0x2c
const NL = 0x0a

function isSpace(c: number): boolean {
  return c === 0x20 || c === NL || c === 0x0d || c === 0x09
}

type Mode = 'start' | 'array' | 'single' | 'done'

/**
 * Incremental scanner: feed it chunks, it returns the completed elements' bytes. Exposed apart
 * from the file reader so tests can cut input at every byte.
 */
export class JsonArrayScanner {
  private mode: Mode = 'start'
  private depth = 0
  private inString = false
  private escape = false
  /** Inside an element (between its first byte and its end). */
  private inElement = false
  private parts: Buffer[] = []
  private partBytes = 0
  private line = 1
  private elementLine = 1
  private index = 0
  private bomChecked = false

  constructor(private readonly maxElementBytes = 256 * 1024 * 1024) {}

  /** Consumes a chunk; returns the elements it completed. */
  push(chunk: Buffer): JsonElement[] {
    const out: JsonElement[] = []
    let i = 0
    const n = chunk.length
    if (!this.bomChecked && n > 0) {
      this.bomChecked = true
      if (n >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3
    }
    let start = this.inElement ? i : -1
    while (i < n) {
      const c = chunk[i]!
      if (this.inString) {
        if (this.escape) {
          this.escape = false
          i++
          continue
        }
        // Tight loop to the end of the string (or of the chunk).
        while (i < n) {
          const d = chunk[i]!
          if (d === BSLASH) {
            if (i + 1 < n) {
              i += 2
              continue
            }
            this.escape = true
            i++
            break
          }
          i++
          if (d === QUOTE) {
            this.inString = false
            break
          }
        }
        continue
      }
      if (c === NL) this.line++
      switch (this.mode) {
        case 'start':
          if (isSpace(c)) break
          if (c === LBRACK) {
            this.mode = 'array'
            break
          }
          if (c === LBRACE) {
            this.mode = 'single'
            this.inElement = true
            this.elementLine = this.line
            this.depth = 1
            start = i
            break
          }
          throw new ParseError(`line ${this.line}: expected '[' or '{' at the start of the file, found '${String.fromCharCode(c)}'`)
        case 'done':
          if (!isSpace(c)) throw new ParseError(`line ${this.line}: unexpected '${String.fromCharCode(c)}' after the end of the top-level value`)
          break
        case 'single':
          if (c === QUOTE) this.inString = true
          else if (c === LBRACE || c === LBRACK) this.depth++
          else if (c === RBRACE || c === RBRACK) {
            this.depth--
            if (this.depth === 0) {
              out.push(this.finish(chunk, start, i + 1))
              start = -1
              this.mode = 'done'
            }
          }
          break
        case 'array':
          if (!this.inElement) {
            if (isSpace(c) || c === COMMA) break
            if (c === RBRACK) {
              this.mode = 'done'
              break
            }
            this.inElement = true
            this.elementLine = this.line
            start = i
            this.depth = 0
          }
          if (c === QUOTE) this.inString = true
          else if (c === LBRACE || c === LBRACK) this.depth++
          else if (c === RBRACE || c === RBRACK) {
            if (this.depth === 0) {
              if (c === RBRACE) throw new ParseError(`line ${this.line}: unexpected '}' in the top-level array`)
              out.push(this.finish(chunk, start, i))
              start = -1
              this.mode = 'done'
            } else this.depth--
          } else if (c === COMMA && this.depth === 0) {
            out.push(this.finish(chunk, start, i))
            start = -1
          }
          break
      }
      i++
    }
    if (this.inElement && start >= 0) {
      const rest = chunk.subarray(start)
      this.parts.push(rest)
      this.partBytes += rest.length
      if (this.partBytes > this.maxElementBytes) {
        throw new ParseError(`line ${this.elementLine}: record ${this.index} is larger than ${this.maxElementBytes} bytes (unbalanced brackets?)`)
      }
    }
    return out
  }

  /** Call at end of input; throws when the input stopped inside the top-level value. */
  end(): JsonElement[] {
    if (this.mode === 'start') throw new ParseError('the file is empty (expected a JSON array or object)')
    if (this.mode === 'single' || this.inString) throw new ParseError(`line ${this.line}: the file ends inside record ${this.index} (truncated?)`)
    if (this.mode === 'array') {
      throw new ParseError(`line ${this.line}: the file ends before the closing ']' of the top-level array (truncated?)`)
    }
    return []
  }

  private finish(chunk: Buffer, start: number, end: number): JsonElement {
    const tail = chunk.subarray(start, end)
    const bytes = this.parts.length === 0 ? tail : Buffer.concat([...this.parts, tail])
    this.parts = []
    this.partBytes = 0
    this.inElement = false
    const el: JsonElement = {index: this.index++, line: this.elementLine}
    const text = bytes.toString('utf8')
    try {
      el.value = JSON.parse(text)
    } catch (e) {
      el.error = (e as Error).message
    }
    return el
  }
}

/**
 * Yields the elements of a JSON file in the groups each read chunk completes (one async step per
 * chunk rather than per element: the per-element cost matters at hundreds of thousands of records).
 */
export async function* readJsonBatches(path: string, opts: ReadOptions = {}): AsyncGenerator<JsonElement[]> {
  const scanner = new JsonArrayScanner(opts.maxElementBytes)
  const stream = createReadStream(path, {highWaterMark: opts.chunkBytes ?? 1024 * 1024})
  let bytes = 0
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length
      const els = scanner.push(chunk)
      opts.onBytes?.(bytes)
      if (els.length > 0) yield els
    }
  } finally {
    stream.destroy()
  }
  const tail = scanner.end()
  if (tail.length > 0) yield tail
}

/** Yields the elements of a JSON file one at a time, reading it in chunks. */
export async function* readJsonElements(path: string, opts: ReadOptions = {}): AsyncGenerator<JsonElement> {
  for await (const els of readJsonBatches(path, opts)) yield* els
}
