/**
 * Compressed lake files (`part-0.csv.gz`, `events.jsonl.gzip`), read as DataHub's s3 source reads
 * them: the format is the extension before the compression's (`.csv.gz` is CSV), and the bytes are
 * decompressed on the way in, never on disk. Only the text formats are read compressed; Parquet and
 * Avro compress inside the file, and a `.parquet.gz` is refused with a clear reason.
 *
 * Reads stay bounded: a prefix read stops decompressing at the bytes it needs, and a whole read
 * (profiling) streams.
 */
import {createGunzip} from 'node:zlib'
import type {FileSystem} from './fs.js'

/** DataHub's `SUPPORTED_COMPRESSIONS` (smart_open's): `gzip` is an alias of `gz`. */
export const COMPRESSION_EXTENSIONS = ['gz', 'gzip', 'bz2'] as const

/** What decompresses a file's bytes, by its last extension; undefined for a plain file. */
export function compressionOf(path: string): 'gzip' | 'bz2' | undefined {
  const base = path.split('/').pop() ?? ''
  const dot = base.lastIndexOf('.')
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : ''
  return ext === 'gz' || ext === 'gzip' ? 'gzip' : ext === 'bz2' ? 'bz2' : undefined
}

function unsupported(path: string): Error {
  return new Error(`${path.split('/').pop()}: bz2-compressed files are not read (gzip is)`)
}

/** The file's bytes, decompressed when it is compressed, as a stream of chunks. */
export function openStream(fs: FileSystem, path: string): NodeJS.ReadableStream {
  const c = compressionOf(path)
  if (c === 'bz2') throw unsupported(path)
  const raw = fs.stream(path)
  if (!c) return raw
  const gunzip = createGunzip()
  // An unreadable file fails the decompressed stream, where its reader listens; a reader that
  // stops early (a prefix read) closes the file too.
  raw.on('error', (e) => gunzip.destroy(e as Error))
  gunzip.on('close', () => (raw as NodeJS.ReadableStream & {destroy?(): void}).destroy?.())
  return raw.pipe(gunzip)
}

/**
 * The first `max` bytes of the file's content (decompressed), and whether that is all of it.
 * A plain file is one range read; a compressed one is decompressed only up to `max`.
 */
export async function readPrefix(fs: FileSystem, path: string, max: number): Promise<{bytes: Buffer; whole: boolean}> {
  const c = compressionOf(path)
  if (c === 'bz2') throw unsupported(path)
  if (!c) {
    const size = (await fs.stat(path))?.size ?? 0
    return {bytes: await fs.readRange(path, 0, Math.min(size, max)), whole: size <= max}
  }
  const stream = openStream(fs, path) as NodeJS.ReadableStream & {destroy(): void}
  const chunks: Buffer[] = []
  let got = 0
  try {
    for await (const chunk of stream) {
      const b = chunk as Buffer
      chunks.push(b)
      got += b.length
      if (got > max) return {bytes: Buffer.concat(chunks).subarray(0, max), whole: false}
    }
  } catch (e) {
    throw new Error(`not a readable gzip file: ${(e as Error).message}`)
  } finally {
    stream.destroy()
  }
  return {bytes: Buffer.concat(chunks), whole: true}
}
