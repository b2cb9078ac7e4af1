/**
 * The server thread runs from the build's bundle (scripts/bundle-server-thread.mjs): it is the
 * module the thread starts, it still loads lazily what the plain modules load lazily, and the
 * paths each file builds from its own `import.meta.url` still point where they did. Every test
 * that starts `mdcli lite` runs the bundle itself.
 */
import {expect} from 'chai'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {serverThreadModule} from '../../src/server/thread.js'

const DIR = fileURLToPath(new URL('../../src/server/thread-bundle/', import.meta.url))

/** The specifiers of a module's static imports and re-exports (esbuild's output: one statement from a line's start). */
function staticImports(text: string): string[] {
  return [...text.matchAll(/^(?:import|export)\b[^;'"]*?["']([^"']+)["']/gm)].map((m) => m[1]!)
}

describe('the server thread bundle', () => {
  it('is the module the server thread starts after the build', () => {
    expect(fileURLToPath(serverThreadModule())).to.equal(join(DIR, 'thread-worker.js'))
  })

  it('imports no package of metrics, GraphQL, PostgreSQL or the queue before they are asked for (its chunks split at the dynamic imports)', () => {
    const packages = new Set<string>()
    const seen = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      for (const s of staticImports(readFileSync(join(DIR, file), 'utf8'))) {
        if (s.startsWith('./')) visit(s.slice(2))
        else packages.add(s)
      }
    }
    visit('thread-worker.js')
    // The walk sees what the server loads at its start…
    expect([...packages]).to.include.members(['lowdb', 'node:http'])
    // …and none of what it loads once it has started (prom-client), on the first GraphQL request,
    // for a PostgreSQL store or a queue.
    for (const lazy of ['prom-client', 'graphql', 'graphql-jit', 'graphql-http', 'pg', '@nats-io/jetstream', '@nats-io/transport-node']) expect([...packages], lazy).to.not.include(lazy)
    // The lazy parts are chunks of their own, not left out.
    const all = readdirSync(DIR).filter((f) => f.endsWith('.js'))
    expect(all.some((f) => readFileSync(join(DIR, f), 'utf8').includes('from "graphql"'))).to.equal(true)
  })

  it("rewrites each file's import.meta.url to that file's place in dist/, so the paths made from it exist", () => {
    let checked = 0
    for (const f of readdirSync(DIR).filter((x) => x.endsWith('.js'))) {
      const here = pathToFileURL(join(DIR, f))
      const text = readFileSync(join(DIR, f), 'utf8')
      expect(text, f).to.not.match(/import\.meta\.url(?!\)\.href)/)
      for (const m of text.matchAll(/new URL\("([^"]+)", import\.meta\.url\)\.href/g)) {
        const own = new URL(m[1]!, here)
        expect(existsSync(fileURLToPath(own)), `${f}: ${m[1]}`).to.equal(true)
        checked++
      }
    }
    // The SDL files, the web pages, the search thread, the prebuilt validators at least.
    expect(checked).to.be.at.least(4)
  })
})
