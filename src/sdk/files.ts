/**
 * Reading user files (aspect data, recipes): JSON, YAML or TOML by extension, `-` for stdin,
 * with errors that name the file and, for syntax errors, the line.
 */
import {readFileSync, readSync} from 'node:fs'
import {extname, resolve} from 'node:path'
import yaml from 'js-yaml'
import {parse as parseToml} from 'smol-toml'
import {FileError, ParseError} from '../errors.js'

/**
 * All of stdin, read synchronously. A pipe's read end may be non-blocking (Node sets it so once
 * anything touched process.stdin), and then a read before the writer has written fails with
 * EAGAIN — `curl … | jq | mdcli put -d -` did: a short wait and the read is tried again.
 */
function readStdin(): string {
  const chunks: Buffer[] = []
  const buf = Buffer.alloc(65536)
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (;;) {
    let n: number
    try {
      n = readSync(0, buf, 0, buf.length, null)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 10)
        continue
      }
      if (code === 'EOF') break
      throw e
    }
    if (n === 0) break
    chunks.push(Buffer.from(buf.subarray(0, n)))
  }
  return Buffer.concat(chunks).toString('utf8')
}

export function readText(path: string): string {
  if (path === '-') return readStdin()
  try {
    return readFileSync(path, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new FileError(`File not found: ${resolve(path)}`)
    if (code === 'EISDIR') throw new FileError(`${resolve(path)} is a directory, not a file`)
    if (code === 'EACCES') throw new FileError(`Permission denied reading ${resolve(path)}`)
    throw new FileError(`Cannot read ${resolve(path)}: ${(e as Error).message}`)
  }
}

function lineOfOffset(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length
}

export function parseJsonText(text: string, name: string): unknown {
  try {
    return JSON.parse(text)
  } catch (e) {
    const msg = (e as Error).message
    const m = /position (\d+)/.exec(msg)
    const where = m ? ` (line ${lineOfOffset(text, Number(m[1]))})` : ''
    throw new ParseError(`${name} is not valid JSON${where}: ${msg}`)
  }
}

export type DataFormat = 'json' | 'yaml' | 'toml'

export function formatOf(path: string, fallback: DataFormat = 'json'): DataFormat {
  const ext = extname(path).toLowerCase()
  if (ext === '.yaml' || ext === '.yml') return 'yaml'
  if (ext === '.toml') return 'toml'
  if (ext === '.json') return 'json'
  return fallback
}

/** Parses text in the given format; errors name the file and line. */
export function parseData(text: string, format: DataFormat, name: string): unknown {
  if (format === 'json') return parseJsonText(text, name)
  if (format === 'yaml') {
    try {
      return yaml.load(text)
    } catch (e) {
      const err = e as {mark?: {line: number}; reason?: string; message: string}
      throw new ParseError(`${name} is not valid YAML${err.mark ? ` (line ${err.mark.line + 1})` : ''}: ${err.reason ?? err.message.split('\n')[0]}`)
    }
  }
  try {
    return parseToml(text)
  } catch (e) {
    const err = e as {line?: number; message: string}
    throw new ParseError(`${name} is not valid TOML${err.line ? ` (line ${err.line})` : ''}: ${err.message.split('\n')[0]}`)
  }
}

export function readDataFile(path: string, fallback: DataFormat = 'json'): unknown {
  const text = readText(path)
  return parseData(text, formatOf(path, fallback), path === '-' ? 'standard input' : path)
}
