/**
 * Reading a LookML project from a folder (DataHub's offline mode): model files, the files their
 * `include:`s reach (followed through included files too), and the views and explores in them.
 *
 * Glossary:
 * - model: a `*.model.lkml` file; its name is the file name without `.model.lkml`.
 * - include pattern: a path or glob (`*`, `**`) relative to the project root when it starts with
 *   `/`, else to the including file's folder; `.lkml` may be left off.
 * - refinement: `view: +name {…}`, an addition to a view declared elsewhere.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, posix, relative, sep} from 'node:path'
import lookmlParser from 'lookml-parser'

export interface LookmlNode {
  $type?: string
  $name?: string
  [key: string]: unknown
}

export interface ParsedFile {
  /** Path relative to the project root, with `/`. */
  path: string
  text: string
  parsed: Record<string, unknown>
}

export interface ViewDecl {
  name: string
  node: LookmlNode
  file: ParsedFile
}

/** Every file of a folder, relative with `/`, sorted. */
export function listFiles(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, {withFileTypes: true})) {
      const full = join(dir, e.name)
      if (e.isDirectory()) walk(full)
      else if (e.isFile()) out.push(relative(root, full).split(sep).join('/'))
    }
  }
  walk(root)
  return out.sort()
}

function globRegex(pattern: string): RegExp {
  let re = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '*' && pattern[i + 1] === '*') {
      re += '.*'
      i++
      if (pattern[i + 1] === '/') i++
    } else if (c === '*') re += '[^/]*'
    else if (c === '?') re += '[^/]'
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`)
}

const asList = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v])

/** Why a file of the project could not be used: it could not be read, or not be parsed. */
export class LookmlFileError extends Error {
  constructor(
    message: string,
    readonly kind: 'read' | 'parse',
  ) {
    super(message)
  }
}

/** lookml-parser throws strings (and PEG error objects), not Errors: the first line of either. */
function messageOf(e: unknown): string {
  const m = e instanceof Error ? e.message : typeof e === 'string' ? e : typeof (e as {message?: unknown})?.message === 'string' ? (e as {message: string}).message : String(e)
  return m.split('\n')[0]!
}

// `key: "quoted name" {` and `key: nämé {`: lookml-parser reads neither (it takes ASCII names
// only), LookML and DataHub's parser take both.
const AWKWARD_NAME = /(^|[\s{}])([A-Za-z_]+)(\s*:\s*)(?:"([^"\n]*)"|(\+?[^\s{}:;"]*[^\x00-\x7F][^\s{}:;"]*))(?=\s*\{)/g
const PLACEHOLDER = /^(\+?)mdcli_name_(\d+)_$/

/** The parsed file; names lookml-parser cannot read go through placeholders. */
function parseLookml(text: string): Record<string, unknown> {
  try {
    return lookmlParser.parse(text) as Record<string, unknown>
  } catch (first) {
    const names: string[] = []
    const safe = text.replace(AWKWARD_NAME, (_m, pre: string, key: string, colon: string, quoted: string | undefined, bare: string | undefined) => {
      // Quotes are dropped from names, as DataHub does (reference §6.2).
      const name = quoted ?? bare!
      const plus = name.startsWith('+') ? '+' : ''
      names.push(name.slice(plus.length))
      return `${pre}${key}${colon}${plus}mdcli_name_${names.length - 1}_`
    })
    if (names.length === 0) throw first
    const restore = (v: unknown): unknown => {
      if (typeof v === 'string') {
        const m = PLACEHOLDER.exec(v)
        return m ? `${m[1]}${names[Number(m[2])]}` : v
      }
      if (Array.isArray(v)) return v.map(restore)
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [restore(k) as string, restore(x)]))
      return v
    }
    return restore(lookmlParser.parse(safe)) as Record<string, unknown>
  }
}

/** A LookML project folder, parsed lazily and once per file. */
export class LookmlProject {
  readonly files: string[]
  private readonly cache = new Map<string, ParsedFile | LookmlFileError>()

  constructor(readonly root: string) {
    this.files = listFiles(root)
  }

  models(): string[] {
    return this.files.filter((f) => f.endsWith('.model.lkml'))
  }

  /** The parsed file, or an error naming it and saying why it cannot be used. */
  load(path: string): ParsedFile | LookmlFileError {
    let hit = this.cache.get(path)
    if (!hit) {
      let text: string | undefined
      try {
        text = readFileSync(join(this.root, path), 'utf8')
        hit = {path, text, parsed: parseLookml(text)}
      } catch (e) {
        hit = new LookmlFileError(`${path}: ${messageOf(e)}`, text === undefined ? 'read' : 'parse')
      }
      this.cache.set(path, hit)
    }
    return hit
  }

  /** Files an include pattern of `from` names, sorted; dashboards are left to the looker source. */
  matchInclude(pattern: string, from: string): string[] {
    let p = pattern.trim()
    if (p.startsWith('//')) return [] // another project's files: not in this folder
    p = p.startsWith('/') ? p.slice(1) : posix.join(posix.dirname(from), p)
    p = posix.normalize(p)
    const candidates = p.endsWith('.lkml') || p.endsWith('*') ? [p] : [p, `${p}.lkml`]
    const res = candidates.map(globRegex)
    return this.files.filter((f) => res.some((r) => r.test(f)) && !/\.dashboard\.(lkml|lookml)$/.test(f) && f !== from)
  }

  /**
   * Every file a model reaches through includes, depth first in include order, each once.
   * Files that cannot be read or parsed are reported through `onError` and skipped.
   */
  reachable(model: string, onError: (e: LookmlFileError) => void): ParsedFile[] {
    const seen = new Set<string>([model])
    const out: ParsedFile[] = []
    const visit = (file: ParsedFile): void => {
      for (const inc of asList(file.parsed.include)) {
        if (typeof inc !== 'string') continue
        for (const path of this.matchInclude(inc, file.path)) {
          if (seen.has(path)) continue
          seen.add(path)
          const f = this.load(path)
          if (f instanceof LookmlFileError) {
            onError(f)
            continue
          }
          out.push(f)
          visit(f)
        }
      }
    }
    const m = this.load(model)
    if (m instanceof LookmlFileError) {
      onError(m)
      return []
    }
    visit(m)
    return [m, ...out]
  }
}

/** The views declared in a file, refinements (`+name`) apart. */
export function viewsOf(file: ParsedFile): {views: ViewDecl[]; refinements: ViewDecl[]} {
  const views: ViewDecl[] = []
  const refinements: ViewDecl[] = []
  const bag = (file.parsed.view ?? {}) as Record<string, LookmlNode | LookmlNode[]>
  for (const [name, value] of Object.entries(bag)) {
    for (const node of asList(value) as LookmlNode[]) {
      if (name.startsWith('+')) refinements.push({name: name.slice(1), node, file})
      else views.push({name, node, file})
    }
  }
  return {views, refinements}
}

/** Explore names declared in a file. */
export function exploresOf(file: ParsedFile): string[] {
  return Object.keys((file.parsed.explore ?? {}) as Record<string, unknown>).filter((n) => !n.startsWith('+'))
}

export function folderOf(path: string): string {
  const d = dirname(path)
  return d === '.' ? '' : d
}
