/**
 * The shard reader's thread (see shard-reader.ts): reads a whole file into shared memory and
 * sums it, so that the store's thread only decodes. Requests are handled in arrival order.
 */
import {createHash} from 'node:crypto'
import {closeSync, fstatSync, openSync, readSync} from 'node:fs'
import {parentPort} from 'node:worker_threads'

/** Read `path` into `memory[offset, offset + length)` when the file has exactly that length. */
export interface ReadRequest {
  seq: number
  path: string
  memory: SharedArrayBuffer
  offset: number
  length: number
}

/** `size`: the file's size, when it was not the length asked (nothing was read). */
export type ReadReply = {seq: number; sha256: string} | {seq: number; size: number} | {seq: number; error: {message: string; code?: string}}

function read(m: ReadRequest): ReadReply {
  const fd = openSync(m.path, 'r')
  try {
    const size = fstatSync(fd).size
    if (size !== m.length) return {seq: m.seq, size}
    const into = Buffer.from(m.memory, m.offset, m.length)
    let got = 0
    while (got < size) {
      const n = readSync(fd, into, got, size - got, got)
      if (n === 0) return {seq: m.seq, size: got}
      got += n
    }
    return {seq: m.seq, sha256: createHash('sha256').update(into).digest('hex')}
  } finally {
    closeSync(fd)
  }
}

if (parentPort) {
  const port = parentPort
  port.on('message', (m: ReadRequest) => {
    let reply: ReadReply
    try {
      reply = read(m)
    } catch (e) {
      const err = e as NodeJS.ErrnoException
      reply = {seq: m.seq, error: {message: err.message, ...(err.code ? {code: err.code} : {})}}
    }
    port.postMessage(reply)
  })
}
