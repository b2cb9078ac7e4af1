import {expect} from 'chai'
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {ROOT} from '../helpers/lite.js'

/** Every relative module a TypeScript file imports or re-exports (static and dynamic). */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const found: string[] = []
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) found.push(m[1])
  return found
}

function tsFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...tsFiles(p))
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p)
  }
  return out
}

describe('module boundaries', () => {
  it('plugins import nothing of ours but the public SDK (src/sdk/index.js)', () => {
    const offenders: string[] = []
    for (const file of tsFiles(join(ROOT, 'plugins'))) {
      for (const spec of relativeImports(file)) {
        const target = relative(ROOT, join(file, '..', spec))
        if (target.startsWith('plugins/')) continue
        if (target !== 'src/sdk/index.js') offenders.push(`${relative(ROOT, file)} -> ${target}`)
      }
    }
    expect(offenders).to.deep.equal([])
  })

  it('the model imports nothing above it (only itself and the error types)', () => {
    const offenders: string[] = []
    for (const file of tsFiles(join(ROOT, 'src', 'model'))) {
      for (const spec of relativeImports(file)) {
        const target = relative(ROOT, join(file, '..', spec))
        if (!target.startsWith('src/model/') && target !== 'src/errors.js') offenders.push(`${relative(ROOT, file)} -> ${target}`)
      }
    }
    expect(offenders).to.deep.equal([])
  })
})
