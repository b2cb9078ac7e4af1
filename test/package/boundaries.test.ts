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

/**
 * The layers of src/, lowest first (README "How it is built"): a module imports only its own
 * folder and the layers below it, so no arrow runs back up and no two folders import each other.
 * `plugins/` sits beside the top and imports only the SDK (tested below).
 */
const LAYERS: ReadonlyArray<readonly string[]> = [
  ['errors', 'types', 'model'],
  ['store'],
  ['config'],
  ['catalog'],
  ['events'],
  ['server'],
  ['client'],
  ['sdk'],
  ['recipes'],
  ['cli'],
  ['ui'],
  ['commands', 'hooks'],
]

/** `src/<folder>/…` or `src/<file>.ts` → the folder (or file) name; undefined outside src/. */
function srcFolder(target: string): string | undefined {
  const parts = target.split('/')
  if (parts[0] !== 'src') return undefined
  return parts.length > 2 ? parts[1] : parts[1]!.replace(/\.(ts|tsx|js)$/, '')
}

const rankOf = (folder: string): number => LAYERS.findIndex((layer) => layer.includes(folder))

/** Every import from one folder of src/ into another, as `from -> to` with the file that makes it. */
function folderImports(): Array<{from: string; to: string; line: string}> {
  const out: Array<{from: string; to: string; line: string}> = []
  for (const file of tsFiles(join(ROOT, 'src'))) {
    const from = srcFolder(relative(ROOT, file))!
    for (const spec of relativeImports(file)) {
      const target = relative(ROOT, join(file, '..', spec))
      const to = srcFolder(target)
      if (to !== undefined && to !== from) out.push({from, to, line: `${relative(ROOT, file)} -> ${target}`})
    }
  }
  return out
}

describe('module boundaries', () => {
  it('every folder of src/ has a place in the layer order', () => {
    const unplaced = [...new Set(readdirSync(join(ROOT, 'src')).map((n) => n.replace(/\.(ts|tsx)$/, '')))].filter((f) => rankOf(f) < 0)
    expect(unplaced).to.deep.equal([])
  })

  it('no import runs back up the layers (and so no two folders import each other)', () => {
    const upward = folderImports()
      .filter(({from, to}) => rankOf(to) > rankOf(from))
      .map(({line}) => line)
    expect(upward).to.deep.equal([])
  })

  it('folders sharing a layer do not import each other', () => {
    const sideways = folderImports()
      .filter(({from, to}) => rankOf(to) === rankOf(from) && folderImports().some((o) => o.from === to && o.to === from))
      .map(({line}) => line)
    expect(sideways).to.deep.equal([])
  })

  it('the folder graph of src/ has no cycle', () => {
    // Held by the layer order already; checked on the graph itself, so a change to LAYERS cannot hide one.
    const edges = new Map<string, Set<string>>()
    for (const {from, to} of folderImports()) {
      if (!edges.has(from)) edges.set(from, new Set())
      edges.get(from)!.add(to)
    }
    const cycles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const visit = (n: string, path: string[]): void => {
      if (state.get(n) === 'done') return
      if (state.get(n) === 'open') {
        cycles.push([...path.slice(path.indexOf(n)), n].join(' -> '))
        return
      }
      state.set(n, 'open')
      for (const m of edges.get(n) ?? []) visit(m, [...path, n])
      state.set(n, 'done')
    }
    for (const n of edges.keys()) visit(n, [])
    expect(cycles).to.deep.equal([])
  })

  it('the proposal shape (ProposalInput) comes from model/wire.ts (or the SDK that re-exports it), never through the catalog', () => {
    const offenders: string[] = []
    for (const file of tsFiles(join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8')
      for (const m of text.matchAll(/(?:import|export)\s+(?:type\s+)?\{[^}]*\bProposalInput\b[^}]*\}\s*from\s*'([^']+)'/g)) {
        const target = relative(ROOT, join(file, '..', m[1]!))
        if (target.startsWith('src/catalog/')) offenders.push(`${relative(ROOT, file)} -> ${target}`)
      }
    }
    expect(offenders).to.deep.equal([])
  })

  it('the plugin contract is declared in src/sdk only, and the shapes it shares with lower layers once, below it', () => {
    // Where each name is declared (interface, type or class), over every module of src/.
    const declared = new Map<string, string[]>()
    for (const file of tsFiles(join(ROOT, 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/^export\s+(?:declare\s+)?(?:abstract\s+)?(?:interface|type|class)\s+([A-Za-z_]\w*)/gm)) {
        declared.set(m[1]!, [...(declared.get(m[1]!) ?? []), relative(ROOT, file)])
      }
    }
    const contract = ['AnyPlugin', 'PluginBase', 'PluginContext', 'PluginKind', 'Sink', 'SinkPlugin', 'Source', 'SourcePlugin', 'Transform', 'TransformerPlugin', 'WorkUnit', 'WorkUnitStream', 'Report']
    const outside = contract.flatMap((n) => (declared.get(n) ?? []).filter((f) => !f.startsWith('src/sdk/')).map((f) => `${n} in ${f}`))
    expect(outside, 'plugin contract declared outside src/sdk').to.deep.equal([])
    expect(contract.filter((n) => !declared.has(n)), 'contract names not found (renamed?)').to.deep.equal([])
    // The SDK re-exports these from where their lower users are; a second declaration would drift.
    const shared: Record<string, string> = {ProposalInput: 'src/model/wire.ts', AuditStamp: 'src/model/wire.ts', SystemMetadata: 'src/model/wire.ts', JsonSchema: 'src/model/aspects/types.ts', RequestLog: 'src/client/client.ts'}
    expect(Object.fromEntries(Object.keys(shared).map((n) => [n, declared.get(n)]))).to.deep.equal(Object.fromEntries(Object.entries(shared).map(([n, f]) => [n, [f]])))
  })

  it('plugins share code only through the *-common folders, and those never import a plugin that uses them', () => {
    const edges = new Map<string, Set<string>>()
    const offenders: string[] = []
    for (const file of tsFiles(join(ROOT, 'plugins'))) {
      const from = relative(join(ROOT, 'plugins'), file).split('/')[0]!
      for (const spec of relativeImports(file)) {
        const target = relative(ROOT, join(file, '..', spec))
        if (!target.startsWith('plugins/')) continue
        const to = target.split('/')[1]!
        if (to === from) continue
        if (!to.endsWith('-common')) offenders.push(`${relative(ROOT, file)} -> ${target}`)
        if (!edges.has(from)) edges.set(from, new Set())
        edges.get(from)!.add(to)
      }
    }
    expect(offenders).to.deep.equal([])
    const reaches = (a: string, b: string, seen = new Set<string>()): boolean => [...(edges.get(a) ?? [])].some((n) => n === b || (!seen.has(n) && (seen.add(n), reaches(n, b, seen))))
    const cycles = [...edges.keys()].filter((f) => reaches(f, f))
    expect(cycles).to.deep.equal([])
  })

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

  it('stores know nothing of search: only the search indexes import search modules (the catalog feeds them)', () => {
    // The search side of src/store: the word index and its thread, the in-thread index,
    // PostgreSQL's full text, and the document model they share.
    const SEARCH = [/^src\/store\/(search-index|search-worker|term-index)\.[jt]s$/, /^src\/store\/search\//, /^src\/store\/embedded\/search-thread\.[jt]s$/, /^src\/store\/postgres\/search-(index|sql)\.[jt]s$/, /^src\/model\/search-doc\.[jt]s$/]
    const isSearch = (f: string) => SEARCH.some((r) => r.test(f))
    // Beside them: the contract (its request and facet types), the module that opens a store and
    // the index that goes with it, and PostgreSQL's schema (it holds the search table and its upgrades).
    const ALSO = new Set(['src/store/types.ts', 'src/store/index.ts', 'src/store/postgres/schema.ts'])
    const offenders: string[] = []
    for (const file of tsFiles(join(ROOT, 'src', 'store'))) {
      const from = relative(ROOT, file)
      if (isSearch(from) || ALSO.has(from)) continue
      for (const spec of relativeImports(file)) {
        const target = relative(ROOT, join(file, '..', spec))
        if (isSearch(target)) offenders.push(`${from} -> ${target}`)
      }
    }
    expect(offenders).to.deep.equal([])
  })
})
