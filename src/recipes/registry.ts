/**
 * The plugin registry: which sources, sinks and transformers exist, and loading them.
 *
 * Glossary:
 * - built-in: a plugin shipped in mdcli's `plugins/` folder.
 * - third-party plugin: an npm package, installed in `node_modules` of the current directory
 *   (or a parent) or of mdcli itself, whose package.json declares
 *   `"mdcli": {"plugins": {"sources": {"<name>": "./path.js"}, "sinks": {...}, "transformers": {...}}}`.
 *   The module's default export (or its `plugin` export) is the plugin definition.
 * - disabled: listed, but its module cannot be imported (a missing optional dependency, a syntax
 *   error) or does not export a plugin; the reason is kept for `check plugins --verbose` and
 *   for the error when a recipe asks for it.
 *
 * Modules are imported only when a recipe needs them (or `check plugins` asks), so one broken
 * plugin never stops the others.
 */
import {existsSync, readdirSync, readFileSync, realpathSync, statSync} from 'node:fs'
import {dirname, join, parse as parsePath, resolve} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {PluginError} from '../errors.js'
import {nearest} from '../model/registry.js'
import type {AnyPlugin, PluginKind} from '../sdk/plugin.js'

export interface PluginInfo {
  kind: PluginKind
  name: string
  /** `built-in`, or the npm package (name@version) that provides it. */
  origin: string
  /** File URL of the module. */
  module: string
  /** Export to read; undefined = default export, then `plugin`. */
  exportName?: string
  /** Set when discovery already knows it cannot work (e.g. a missing file). */
  disabledReason?: string
}

export interface PluginStatus extends PluginInfo {
  enabled: boolean
  reason?: string
  description?: string
  /** Top-level config keys of the plugin's schema (`*` marks a required one), when it loads. */
  configKeys?: string[]
}

const KIND_KEYS: Record<string, PluginKind> = {sources: 'source', sinks: 'sink', transformers: 'transformer'}

/** dist/src/recipes → dist/plugins. */
const BUILTIN_ROOT = new URL('../../plugins/', import.meta.url)
/** The mdcli package root (dist/src/recipes → three levels up). */
export const MDCLI_ROOT = fileURLToPath(new URL('../../../', import.meta.url))

const builtin = (kind: PluginKind, name: string, dir: string, exportName?: string): PluginInfo => ({
  kind,
  name,
  origin: 'built-in',
  module: new URL(`${dir}/index.js`, BUILTIN_ROOT).href,
  exportName,
})

export const BUILTINS: PluginInfo[] = [
  builtin('source', 'file', 'file'),
  builtin('source', 'datahub-business-glossary', 'datahub-business-glossary'),
  builtin('source', 'datahub-lineage-file', 'datahub-lineage-file'),
  builtin('source', 'dbt', 'dbt'),
  builtin('source', 'csv-enricher', 'csv-enricher'),
  builtin('source', 'lookml', 'lookml'),
  builtin('source', 'duckdb', 'duckdb'),
  builtin('source', 's3', 's3'),
  builtin('source', 'delta-lake', 'delta-lake'),
  builtin('source', 'postgres', 'postgres'),
  builtin('source', 'mysql', 'mysql'),
  builtin('source', 'mariadb', 'mysql', 'mariadb'),
  builtin('source', 'nats', 'nats-source'),
  builtin('source', 'mode', 'mode'),
  builtin('source', 'metabase', 'metabase'),
  builtin('source', 'sql-queries', 'sql-queries'),
  builtin('sink', 'console', 'console'),
  builtin('sink', 'file', 'file-sink'),
  builtin('sink', 'datahub-rest', 'datahub-rest'),
  builtin('sink', 'nats', 'nats-sink'),
  builtin('transformer', 'simple_add_dataset_ownership', 'add-dataset-ownership', 'simple'),
  builtin('transformer', 'pattern_add_dataset_ownership', 'add-dataset-ownership', 'pattern'),
  builtin('transformer', 'simple_add_dataset_tags', 'add-dataset-tags', 'simple'),
  builtin('transformer', 'pattern_add_dataset_tags', 'add-dataset-tags', 'pattern'),
  builtin('transformer', 'simple_add_dataset_terms', 'add-dataset-terms', 'simple'),
  builtin('transformer', 'pattern_add_dataset_terms', 'add-dataset-terms', 'pattern'),
  builtin('transformer', 'simple_add_dataset_domain', 'add-dataset-domain', 'simple'),
  builtin('transformer', 'pattern_add_dataset_domain', 'add-dataset-domain', 'pattern'),
]

/** `node_modules` folders Node would search from `dir`, nearest first. */
function nodeModulesChain(dir: string): string[] {
  const out: string[] = []
  let d = resolve(dir)
  for (;;) {
    out.push(join(d, 'node_modules'))
    const up = dirname(d)
    if (up === d) break
    d = up
  }
  return out
}

function packageDirs(nodeModules: string): string[] {
  let names: string[]
  try {
    names = readdirSync(nodeModules)
  } catch {
    return []
  }
  const out: string[] = []
  for (const n of names) {
    if (n.startsWith('.')) continue
    const p = join(nodeModules, n)
    if (n.startsWith('@')) {
      try {
        for (const m of readdirSync(p)) out.push(join(p, m))
      } catch {
        /* not a scope folder */
      }
    } else out.push(p)
  }
  return out
}

interface PluginManifest {
  plugins?: Record<string, Record<string, string>>
}

/** Reads the `mdcli` field of one package; plugins it declares, with problems as disabled reasons. */
function pluginsOfPackage(pkgDir: string): PluginInfo[] {
  let pkg: {name?: string; version?: string; mdcli?: PluginManifest}
  try {
    const text = readFileSync(join(pkgDir, 'package.json'), 'utf8')
    // Cheap filter: most packages never mention us.
    if (!text.includes('"mdcli"')) return []
    pkg = JSON.parse(text)
  } catch {
    return []
  }
  const decl = pkg.mdcli?.plugins
  if (!decl || typeof decl !== 'object') return []
  const origin = `${pkg.name ?? parsePath(pkgDir).base}@${pkg.version ?? '0.0.0'}`
  const out: PluginInfo[] = []
  for (const [key, entries] of Object.entries(decl)) {
    const kind = KIND_KEYS[key]
    if (!kind || !entries || typeof entries !== 'object') continue
    for (const [name, rel] of Object.entries(entries)) {
      const file = typeof rel === 'string' ? resolve(pkgDir, rel) : ''
      const info: PluginInfo = {kind, name, origin, module: file ? pathToFileURL(file).href : ''}
      if (typeof rel !== 'string') info.disabledReason = `package.json of ${origin} maps ${name} to ${JSON.stringify(rel)}, expected a relative path`
      else if (!existsSync(file)) info.disabledReason = `${origin} declares ${name} at ${rel}, which does not exist`
      out.push(info)
    }
  }
  return out
}

/** Finds third-party plugins in the node_modules folders reachable from `dirs`. */
export function discoverThirdParty(dirs: string[]): PluginInfo[] {
  const seen = new Set<string>()
  const out: PluginInfo[] = []
  for (const d of dirs) {
    for (const nm of nodeModulesChain(d)) {
      let real: string
      try {
        if (!statSync(nm).isDirectory()) continue
        real = realpathSync(nm)
      } catch {
        continue
      }
      if (seen.has(real)) continue
      seen.add(real)
      for (const pkgDir of packageDirs(real)) out.push(...pluginsOfPackage(pkgDir))
    }
  }
  return out
}

function pluginShapeProblem(def: unknown): string | undefined {
  if (def === null || typeof def !== 'object') return 'the module does not export a plugin (expected a default export {configSchema, create})'
  const d = def as Record<string, unknown>
  if (typeof d.create !== 'function') return 'the exported plugin has no create(config, ctx) function'
  if (d.configSchema === null || typeof d.configSchema !== 'object') return 'the exported plugin has no configSchema object'
  return undefined
}

function firstLine(e: unknown): string {
  const err = e as {code?: string; message?: string}
  return `${err.code ? `${err.code}: ` : ''}${String(err.message ?? e).split('\n')[0]}`
}

export class PluginRegistry {
  private readonly entries: PluginInfo[]
  private readonly loaded = new Map<string, Promise<AnyPlugin>>()

  constructor(entries: PluginInfo[]) {
    // Built-ins first; a later plugin with a taken name is kept, disabled, so the clash is visible.
    const taken = new Set<string>()
    this.entries = entries.map((e) => {
      const key = `${e.kind}:${e.name}`
      if (taken.has(key)) return {...e, disabledReason: e.disabledReason ?? `the name ${e.name} is already taken by another ${e.kind}`}
      taken.add(key)
      return e
    })
  }

  /** Built-ins plus the third-party plugins visible from `cwd` and from mdcli's own folder. */
  static discover(opts: {cwd?: string} = {}): PluginRegistry {
    return new PluginRegistry([...BUILTINS, ...discoverThirdParty([opts.cwd ?? process.cwd(), MDCLI_ROOT])])
  }

  list(kind?: PluginKind): PluginInfo[] {
    return this.entries.filter((e) => !kind || e.kind === kind)
  }

  names(kind: PluginKind): string[] {
    return [...new Set(this.list(kind).map((e) => e.name))].sort()
  }

  private find(kind: PluginKind, name: string): PluginInfo | undefined {
    return this.entries.find((e) => e.kind === kind && e.name === name && !e.disabledReason) ?? this.entries.find((e) => e.kind === kind && e.name === name)
  }

  /** Imports a plugin; throws PluginError for unknown names (with a suggestion) and disabled ones. */
  async load(kind: PluginKind, name: string): Promise<AnyPlugin> {
    const info = this.find(kind, name)
    if (!info) {
      const hint = nearest(name, this.names(kind))
      throw new PluginError(`Unknown ${kind} type '${name}'.${hint ? ` Did you mean '${hint}'?` : ''} Known ${kind}s: ${this.names(kind).join(', ')}`)
    }
    if (info.disabledReason) throw new PluginError(`The ${kind} '${name}' (${info.origin}) is disabled: ${info.disabledReason}`)
    const key = `${kind}:${name}`
    let p = this.loaded.get(key)
    if (!p) {
      p = this.importPlugin(info)
      this.loaded.set(key, p)
    }
    return p
  }

  private async importPlugin(info: PluginInfo): Promise<AnyPlugin> {
    let mod: Record<string, unknown>
    try {
      mod = (await import(info.module)) as Record<string, unknown>
    } catch (e) {
      throw new PluginError(`The ${info.kind} '${info.name}' (${info.origin}) is disabled: cannot import ${fileURLToPath(info.module)}: ${firstLine(e)}`)
    }
    const def = info.exportName ? mod[info.exportName] : (mod.default ?? mod.plugin)
    const problem = pluginShapeProblem(def)
    if (problem) throw new PluginError(`The ${info.kind} '${info.name}' (${info.origin}) is disabled: ${problem}`)
    return def as AnyPlugin
  }

  /** Tries every plugin; enabled (with its description and config keys) or disabled with the reason. */
  async check(kind?: PluginKind): Promise<PluginStatus[]> {
    const out: PluginStatus[] = []
    for (const e of this.list(kind)) {
      if (e.disabledReason) {
        out.push({...e, enabled: false, reason: e.disabledReason})
        continue
      }
      try {
        const def = await this.load(e.kind, e.name)
        out.push({...e, enabled: true, description: def.description, configKeys: configKeys(def.configSchema)})
      } catch (err) {
        const msg = (err as Error).message
        out.push({...e, enabled: false, reason: msg.replace(/^The .*? is disabled: /, '')})
      }
    }
    return out
  }
}

/** `["path*", "file_extension"]` from a config schema's top-level properties. */
function configKeys(schema: Record<string, unknown> | undefined): string[] {
  const props = (schema?.properties ?? {}) as Record<string, unknown>
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : [])
  return Object.keys(props).map((k) => (required.has(k) ? `${k}*` : k))
}
