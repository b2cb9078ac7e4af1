/**
 * How much of DataHub's GraphQL our schema serves, measured on DataHub's own documents:
 * - its smoke tests (`smoke-test/`: GraphQL in Python string literals, `.graphql` files, and the
 *   `query` members of `.json` files);
 * - its web app (`datahub-web-react/src/graphql/*.graphql`, fragments resolved by name), and, when
 *   the built app is beside the repository (`../shared/clients/datahub-web-react-build`, or
 *   DATAHUB_WEBAPP_BUILD), every operation of its bundles as the coverage test reads them.
 * Each operation is validated against `buildCatalogSchema()`; the counts are printed, then the
 * failing operations grouped by their first error (most common first), then a JSON line.
 *
 * Run: `DATAHUB_REPO=<checkout of datahub-project/datahub> npm run bench:graphql-coverage`
 *      (`-- --failures=N` prints N names per error group, `--all-errors` groups by every error of an
 *      operation rather than its first, `--json` prints only the JSON line, `--run` also sends every
 *      validating smoke-test query to a `mdcli lite` loaded with DataHub's golden files from
 *      `../shared/fixtures` and counts the answers with an error).
 * The checkout is read, never written; nothing of it belongs in this repository.
 */
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {pathToFileURL} from 'node:url'
import {type ArgumentNode, type DocumentNode, type FragmentDefinitionNode, Kind, type ObjectFieldNode, type OperationDefinitionNode, parse, print, validate, visit} from 'graphql'
import {buildCatalogSchema} from '../src/server/graphql/schema.js'
import {appOperations, urnFor, variablesFor} from '../test/helpers/datahub-documents.js'
import {cleanup, http, ROOT, startLite, tempDir} from '../test/helpers/lite.js'
import {SHARED_FIXTURES} from '../test/helpers/requires.js'
import {ingestJson, writeRecipe} from '../test/ingest/helpers.js'

export interface Operation {
  /** Where it was found, and its name (or `#n` when anonymous). */
  id: string
  document: DocumentNode
}

export interface CoverageResult {
  name: string
  total: number
  valid: number
  failing: Array<{id: string; error: string; errors: string[]}>
}

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue
    const p = join(dir, name)
    if (statSync(p).isDirectory()) walk(p, keep, out)
    else if (keep(p)) out.push(p)
  }
  return out
}

/**
 * The string literals of a Python source, adjacent ones (or ones joined by `+`) concatenated, as
 * Python would. f-string fields are replaced by a neutral word (`{{`/`}}` become braces), so a
 * document with an interpolated urn still parses; the rest of the escapes are undone loosely.
 */
export function pythonStrings(src: string): string[] {
  const out: string[] = []
  let i = 0
  let current: string | undefined
  let joinable = false
  const flush = () => {
    if (current !== undefined) out.push(current)
    current = undefined
  }
  while (i < src.length) {
    const c = src[i]!
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++
      continue
    }
    const m = /^([rRbBfFuU]{0,2})("""|'''|"|')/.exec(src.slice(i, i + 5))
    const prevIsWord = i > 0 && /[A-Za-z0-9_]/.test(src[i - 1]!)
    if (m && !prevIsWord) {
      const prefix = m[1]!.toLowerCase()
      const quote = m[2]!
      let j = i + m[0].length
      let body = ''
      while (j < src.length && !src.startsWith(quote, j)) {
        if (src[j] === '\\' && !prefix.includes('r')) {
          const n = src[j + 1]
          body += n === 'n' ? '\n' : n === 't' ? '\t' : n === '\n' ? '' : (n ?? '')
          j += 2
          continue
        }
        if (quote.length === 1 && src[j] === '\n') break // unterminated: not a string after all
        body += src[j]
        j++
      }
      if (prefix.includes('f')) {
        body = body
          .replace(/\{\{/g, '\u0001')
          .replace(/\}\}/g, '\u0002')
          .replace(/\{[^{}]*\}/g, 'x')
          .replace(/\u0001/g, '{')
          .replace(/\u0002/g, '}')
      }
      if (current !== undefined && joinable) current += body
      else {
        flush()
        current = body
      }
      joinable = true
      i = j + quote.length
      continue
    }
    if (/\s/.test(c) || c === '+' || c === '(' || c === ')') {
      // Adjacent literals and `+` joins keep a string going; parentheses wrap multi-line ones.
      if (c === '(' && current !== undefined) joinable = false
      i++
      continue
    }
    joinable = false
    flush()
    i++
  }
  flush()
  return out
}

const DEFINITION = /^\s*(query|mutation|subscription|fragment)\b|^\s*\{\s*\w/

function parsed(text: string): DocumentNode | undefined {
  try {
    return parse(text)
  } catch {
    return undefined
  }
}

/** Operations with the fragments they spread (from their own document first, else any). */
function withFragments(ops: Array<{id: string; op: OperationDefinitionNode; local: Map<string, FragmentDefinitionNode>}>, global: Map<string, FragmentDefinitionNode>): Operation[] {
  return ops.map(({id, op, local}) => {
    const used = new Map<string, FragmentDefinitionNode>()
    const collect = (node: OperationDefinitionNode | FragmentDefinitionNode) =>
      visit(node, {
        FragmentSpread(s) {
          const frag = local.get(s.name.value) ?? global.get(s.name.value)
          if (frag && !used.has(s.name.value)) {
            used.set(s.name.value, frag)
            collect(frag)
          }
        },
      })
    collect(op)
    return {id, document: {kind: Kind.DOCUMENT, definitions: [op, ...used.values()]}}
  })
}

function operationsOf(sources: Array<{where: string; text: string}>): Operation[] {
  const global = new Map<string, FragmentDefinitionNode>()
  const ops: Array<{id: string; op: OperationDefinitionNode; local: Map<string, FragmentDefinitionNode>}> = []
  const seen = new Set<string>()
  for (const {where, text} of sources) {
    if (!DEFINITION.test(text)) continue
    const doc = parsed(text)
    if (!doc) continue
    const local = new Map<string, FragmentDefinitionNode>()
    for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) local.set(d.name.value, d), global.set(d.name.value, d)
    let n = 0
    for (const d of doc.definitions) {
      if (d.kind !== Kind.OPERATION_DEFINITION) continue
      n++
      // The same operation copied into several tests is one query.
      const key = print(d)
      if (seen.has(key)) continue
      seen.add(key)
      ops.push({id: `${where}: ${d.name?.value ?? `#${n}`}`, op: d, local})
    }
  }
  return withFragments(ops, global)
}

/** DataHub's smoke-test documents, read from a checkout's `smoke-test/`. */
export function smokeTestOperations(repo: string): Operation[] {
  const base = join(repo, 'smoke-test')
  const sources: Array<{where: string; text: string}> = []
  for (const f of walk(base, (p) => /\.(py|graphql|gql|json)$/.test(p))) {
    const where = relative(repo, f)
    const text = readFileSync(f, 'utf8')
    if (f.endsWith('.py')) for (const s of pythonStrings(text)) sources.push({where, text: s})
    else if (f.endsWith('.json')) {
      if (!text.includes('"query"')) continue
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        continue
      }
      const found: string[] = []
      const dig = (v: unknown) => {
        if (Array.isArray(v)) v.forEach(dig)
        else if (v && typeof v === 'object')
          for (const [k, x] of Object.entries(v)) {
            if (k === 'query' && typeof x === 'string') found.push(x)
            else dig(x)
          }
      }
      dig(json)
      for (const s of found) sources.push({where, text: s})
    } else sources.push({where, text})
  }
  return operationsOf(sources)
}

/** DataHub's web-app documents, read from a checkout's `datahub-web-react/src/graphql/`. */
export function webAppOperations(repo: string): Operation[] {
  const dir = join(repo, 'datahub-web-react', 'src', 'graphql')
  if (!existsSync(dir)) return []
  const sources = walk(dir, (p) => p.endsWith('.graphql')).map((f) => ({where: relative(repo, f), text: readFileSync(f, 'utf8')}))
  // Fragments live in their own files: gather them all before resolving spreads.
  return operationsOf(sources).map((o) => ({...o, id: o.id.replace(/^.*\//, '')}))
}

export function measure(name: string, ops: Operation[]): CoverageResult {
  const schema = buildCatalogSchema()
  const failing: CoverageResult['failing'] = []
  for (const op of ops) {
    const errors = validate(schema, op.document)
    if (errors.length > 0) failing.push({id: op.id, error: errors[0]!.message, errors: [...new Set(errors.map((e) => e.message))]})
  }
  return {name, total: ops.length, valid: ops.length - failing.length, failing}
}

export interface RunResult {
  ran: number
  failing: Array<{id: string; error: string}>
}

/**
 * Sends each validating query of `ops` to a `mdcli lite` holding DataHub's golden files, as a
 * smoke test would: the f-string fields the Python reader turned into `x` become an urn of the
 * data loaded (or `*`), and the variables are made as the web-app run test makes them. Mutations
 * are not sent (a smoke test's mutation edits the data its later queries read).
 */
export async function runQueries(ops: Operation[]): Promise<RunResult> {
  const schema = buildCatalogSchema()
  const files = [
    join(SHARED_FIXTURES, 'datahub', 'bootstrap_mce.json'),
    join(SHARED_FIXTURES, 'datahub', 'test_domains.json'),
    join(SHARED_FIXTURES, 'datahub-golden', 'examples__test_structured_properties.json'),
    join(SHARED_FIXTURES, 'datahub-golden', 'mlflow__mlflow_mcps_golden.json'),
  ]
  const missing = files.filter((f) => !existsSync(f))
  if (missing.length > 0) throw new Error(`--run needs DataHub's golden files: ${missing.join(', ')} not found`)
  const lite = await startLite()
  const dir = tempDir('mdcli-smoke-run-')
  try {
    for (const [i, path] of files.entries()) {
      const r = await ingestJson(writeRecipe(dir, {source: {type: 'file', config: {path}}, sink: {type: 'datahub-rest', config: {server: lite.url}}}, `r${i}.yml`), lite.env())
      if (r.code !== 0) throw new Error(`loading ${path} failed: ${r.stderr}`)
    }
    const failing: RunResult['failing'] = []
    let ran = 0
    for (const op of ops) {
      const operation = op.document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
      if (!operation || operation.operation !== 'query' || validate(schema, op.document).length > 0) continue
      const first = operation.selectionSet.selections.find((x) => x.kind === Kind.FIELD)
      const root = first?.kind === Kind.FIELD ? first.name.value : ''
      // A literal the reader made of an f-string field: the value the test would have put there.
      const fill = <N extends ArgumentNode | ObjectFieldNode>(n: N): N | undefined =>
        n.value.kind === Kind.STRING && n.value.value === 'x'
          ? {...n, value: {kind: Kind.STRING, value: /urn|resource|entity/i.test(n.name.value) ? urnFor(n.name.value, root) : '*'}}
          : undefined
      const filled = visit(op.document, {Argument: fill, ObjectField: fill})
      const r = await http(`${lite.url}/api/graphql`, {body: {query: print(filled), variables: variablesFor(schema, operation)}, token: lite.token})
      ran++
      const errors = (r.body as {errors?: Array<{message: string}>})?.errors
      if (r.status !== 200 || errors) failing.push({id: op.id, error: errors?.[0]?.message ?? `HTTP ${r.status}`})
    }
    return {ran, failing}
  } finally {
    await lite.stop()
    cleanup(lite.storeDir, lite.home, dir)
  }
}

function pct(r: CoverageResult): string {
  return r.total === 0 ? '-' : `${((100 * r.valid) / r.total).toFixed(1)} %`
}

export async function main(): Promise<unknown> {
  const args = process.argv.slice(2)
  const jsonOnly = args.includes('--json')
  // --all-errors: group by every error an operation has, not only its first (what blocks most).
  const allErrors = args.includes('--all-errors')
  const perGroup = Number(args.find((a) => a.startsWith('--failures='))?.split('=')[1] ?? 3)
  const repo = process.env.DATAHUB_REPO
  const results: CoverageResult[] = []
  if (!repo || !existsSync(join(repo, 'smoke-test'))) {
    console.error(`DATAHUB_REPO must name a checkout of DataHub's repository (with smoke-test/); got ${repo ? `'${repo}'` : 'nothing'}`)
    process.exitCode = 2
    return undefined
  }
  results.push(measure('smoke-test queries', smokeTestOperations(repo)))
  const web = webAppOperations(repo)
  if (web.length > 0) results.push(measure('web app (.graphql files)', web))
  const build = process.env.DATAHUB_WEBAPP_BUILD ?? join(ROOT, '..', 'shared', 'clients', 'datahub-web-react-build')
  if (existsSync(join(build, 'index.html'))) {
    results.push(measure('web app (built bundles)', appOperations(build).map((o) => ({id: o.name, document: o.document}))))
  }
  if (!jsonOnly) {
    for (const r of results) console.log(`${r.name}: ${r.valid} of ${r.total} validate (${pct(r)})`)
    for (const r of results) {
      if (r.failing.length === 0) continue
      console.log(`\n${r.name}: ${r.failing.length} failing, by ${allErrors ? 'each error' : 'first error'}`)
      const groups = new Map<string, string[]>()
      for (const f of r.failing) for (const e of allErrors ? f.errors : [f.error]) groups.set(e, [...(groups.get(e) ?? []), f.id])
      for (const [error, ids] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
        const shown = ids.slice(0, perGroup).join('; ')
        console.log(`  ${String(ids.length).padStart(3)}  ${error}\n       ${shown}${ids.length > perGroup ? `; … ${ids.length - perGroup} more` : ''}`)
      }
    }
  }
  const summary: Record<string, unknown> = Object.fromEntries(results.map((r) => [r.name, {valid: r.valid, total: r.total}]))
  if (args.includes('--run')) {
    const run = await runQueries(smokeTestOperations(repo))
    if (!jsonOnly) {
      console.log(`\nsmoke-test queries run on DataHub's golden files: ${run.ran - run.failing.length} of the ${run.ran} validating queries answered without an error`)
      for (const f of run.failing) console.log(`  ${f.id}: ${f.error}`)
    }
    summary['smoke-test queries run'] = {ran: run.ran, withoutError: run.ran - run.failing.length}
  }
  console.log(JSON.stringify({bench: 'graphql-coverage', ...summary}))
  return summary
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
