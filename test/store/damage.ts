/**
 * Damage done to an embedded store's files by hand, and the start that should refuse it (the
 * tamper and shard-reader suites).
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {createStore} from '../../src/store/index.js'

/** Flips the lowest bit of the byte at `offset` (from the end when negative). */
export function flip(path: string, offset: number): void {
  const b = readFileSync(path)
  b[offset < 0 ? b.length + offset : offset]! ^= 0x01
  writeFileSync(path, b)
}

/** The error a start on `dir` stops with, or `{message: 'started'}` when the store opened (closed again). */
export async function refusal(dir: string): Promise<{code?: string; message: string}> {
  const s = createStore({dir})
  try {
    await s.open()
  } catch (e) {
    return {code: (e as {code?: string}).code, message: (e as Error).message}
  }
  await s.close()
  return {message: 'started'}
}
