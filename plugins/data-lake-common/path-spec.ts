/**
 * DataHub's path specs: which files of a lake make which datasets.
 *
 * Glossary:
 * - include: a path with named variables. `{table}` marks the folder that is one dataset (all
 *   files below it are its parts); without `{table}` every matching file is its own dataset.
 *   Other `{name}` variables (`{dept}`) can be used in `table_name`; `{partition_key[i]}`,
 *   `{partition_value[i]}` and `{partition[i]}` name the partition folders. `*` matches within
 *   one path segment, `**` (with `allow_double_stars`) across segments.
 * - table path: the folder of a `{table}` dataset (or the file itself); the dataset is named
 *   after it, as written in the recipe.
 * - hidden: a file or folder whose name starts with `.` or `_` (`_delta_log`, `_temporary`,
 *   `.crc` files) is never part of a dataset unless `include_hidden_folders`.
 */
import picomatch from 'picomatch'
import {ALLOW_DENY_SCHEMA, allowDeny, ConfigError, type AllowDeny} from '../../src/sdk/index.js'
import {COMPRESSION_EXTENSIONS} from './compression.js'

/** The formats schema inference and profiling read (DataHub's list, plus JSON lines). */
export const SUPPORTED_FILE_TYPES = ['csv', 'tsv', 'json', 'jsonl', 'parquet', 'avro'] as const

export const PATH_SPEC_SCHEMA = {
  type: 'object',
  properties: {
    include: {type: 'string', minLength: 1},
    exclude: {type: 'array', items: {type: 'string'}, default: []},
    file_types: {type: 'array', items: {enum: [...SUPPORTED_FILE_TYPES]}},
    default_extension: {enum: [...SUPPORTED_FILE_TYPES]},
    table_name: {type: 'string'},
    enable_compression: {type: 'boolean', default: true},
    sample_files: {type: 'boolean', default: true},
    allow_double_stars: {type: 'boolean', default: false},
    autodetect_partitions: {type: 'boolean', default: true},
    traversal_method: {enum: ['ALL', 'MIN_MAX', 'MAX'], default: 'MAX'},
    include_hidden_folders: {type: 'boolean', default: false},
    tables_pattern: ALLOW_DENY_SCHEMA,
    sort_key: {type: 'object'},
  },
  required: ['include'],
  additionalProperties: false,
} as const

export interface PathSpecConfig {
  include: string
  exclude?: string[]
  file_types?: string[]
  default_extension?: string
  enable_compression?: boolean
  table_name?: string
  include_hidden_folders?: boolean
  allow_double_stars?: boolean
  autodetect_partitions?: boolean
  tables_pattern?: AllowDeny
  [k: string]: unknown
}

export interface TableOfFile {
  /** The dataset's display name (`table_name` filled in, or the file name). */
  name: string
  /** The folder (or file) the dataset is named after. */
  tablePath: string
  /** Partition folders below the table folder, as (key, value); keys `partition_<i>` when unnamed. */
  partitions: Array<[string, string]>
  /** True when the include names partition keys itself (`{partition_key[i]}` or `key={…}`). */
  namedPartitions: boolean
}

const VAR = /\{([^{}]+)\}/g
const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export class PathSpec {
  readonly include: string
  readonly tableName: string | undefined
  private readonly globInclude: (p: string) => boolean
  private readonly excludes: Array<(p: string) => boolean>
  private readonly parser: RegExp
  private readonly varNames: string[]
  private readonly tablesOk: (name: string) => boolean

  constructor(readonly config: PathSpecConfig) {
    this.include = config.include
    if (this.include.includes('**') && !config.allow_double_stars) throw new ConfigError(`path_specs: include ${this.include} cannot contain '**' (set allow_double_stars: true)`)
    for (const e of config.exclude ?? []) if (/\{[A-Za-z_][\w[\]]*\}/.test(e)) throw new ConfigError(`path_specs: exclude ${e} must not contain named variables`)
    const named = [...this.include.matchAll(VAR)].map((m) => m[1]!)
    this.tableName = config.table_name ?? (named.includes('table') ? '{table}' : undefined)
    for (const v of [...(config.table_name ?? '').matchAll(VAR)].map((m) => m[1]!)) {
      if (!named.includes(v)) throw new ConfigError(`path_specs: table_name ${config.table_name} uses {${v}}, which include ${this.include} does not define`)
    }
    // wcmatch's globmatch with GLOBSTAR: `*` stays within a segment, `**` crosses them.
    this.globInclude = picomatch(this.include.replace(VAR, '*'), {dot: true})
    this.excludes = (config.exclude ?? []).map((e) => picomatch(e, {dot: true}))
    // The `parse` library's fields are lazy `.+?` and the pattern is anchored at both ends.
    this.varNames = []
    let re = ''
    let last = 0
    for (const m of this.include.matchAll(/\{([^{}]+)\}|\*+/g)) {
      re += escapeRegex(this.include.slice(last, m.index))
      if (m[1] !== undefined) {
        this.varNames.push(m[1])
        re += '(.+?)'
      } else re += '.+?'
      last = m.index! + m[0].length
    }
    re += escapeRegex(this.include.slice(last))
    this.parser = new RegExp(`^${re}$`, 's')
    this.tablesOk = allowDeny(config.tables_pattern, true, 'tables_pattern')
  }

  /** The folder to walk (the include up to its first variable or wildcard), or a single file. */
  get prefix(): string {
    const i = this.include.search(/[*{[?]/)
    if (i < 0) return this.include
    const head = this.include.slice(0, i)
    return head.slice(0, head.lastIndexOf('/') + 1) || '.'
  }

  isHidden(path: string): boolean {
    return path.split('/').some((seg) => seg !== '.' && seg !== '..' && (seg.startsWith('.') || seg.startsWith('_')))
  }

  /** Whether `path` is a part of some dataset of this spec (DataHub's `PathSpec.allowed`). */
  allowed(path: string): boolean {
    if (!this.config.include_hidden_folders && this.isHidden(path)) return false
    if (!this.globInclude(path)) return false
    if (this.excludes.some((e) => e(path))) return false
    if (!this.tablesOk(this.tableOf(path)?.name ?? '')) return false
    const ext = this.extensionRead(path)
    // As DataHub: `file_types` does not filter files with an extension; files of formats we
    // cannot read are left out (they would make datasets without a schema).
    if (ext === '') return this.config.default_extension !== undefined
    return (SUPPORTED_FILE_TYPES as readonly string[]).includes(ext)
  }

  /** The extension that names the format: `csv` for `a.csv`, and for `a.csv.gz` too unless `enable_compression: false`. */
  private extensionRead(path: string): string {
    const ext = extensionOf(path)
    if (this.config.enable_compression !== false && (COMPRESSION_EXTENSIONS as readonly string[]).includes(ext.toLowerCase())) return extensionOf(path.slice(0, -(ext.length + 1)))
    return ext
  }

  /** The format a file is read as: its extension (before a compression's), or `default_extension` when it has none. */
  formatOf(path: string): string {
    return this.extensionRead(path) || this.config.default_extension || ''
  }

  private vars(path: string): Map<string, string> | undefined {
    const m = this.parser.exec(path)
    if (!m) return undefined
    const out = new Map<string, string>()
    this.varNames.forEach((n, i) => out.set(n, m[i + 1]!))
    return out
  }

  /** The dataset a file belongs to (DataHub's `extract_table_name_and_path`). */
  tableOf(path: string): TableOfFile | undefined {
    const vars = this.vars(path)
    if (!vars || !vars.has('table') || this.tableName === undefined) {
      return {name: path.split('/').pop()!, tablePath: path, partitions: [], namedPartitions: false}
    }
    const depth = this.include.slice(0, this.include.indexOf('{table}')).split('/').length - 1
    const tablePath = `${path.split('/').slice(0, depth).join('/')}/${vars.get('table')}`
    const name = this.tableName.replace(VAR, (_, v: string) => vars.get(v) ?? '')
    return {name, tablePath, ...this.partitionsOf(path, tablePath, vars)}
  }

  private partitionsOf(path: string, tablePath: string, vars: Map<string, string>): {partitions: Array<[string, string]>; namedPartitions: boolean} {
    const keys = [...vars.keys()].filter((k) => /^partition_key\[\d+\]$/.test(k))
    if (keys.length) {
      const partitions = keys.map((k): [string, string] => {
        const i = k.slice('partition_key['.length, -1)
        return [vars.get(k)!, vars.get(`partition_value[${i}]`) ?? vars.get(`partition[${i}]`) ?? '']
      })
      return {partitions, namedPartitions: true}
    }
    // `year={year}`: the text before `={var}` names the key.
    const keyed = [...this.include.matchAll(/([^/{}]+)=\{([^{}]+)\}/g)]
    if (keyed.length) return {partitions: keyed.map((m): [string, string] => [m[1]!, vars.get(m[2]!) ?? '']), namedPartitions: true}
    if (this.config.autodetect_partitions === false) return {partitions: [], namedPartitions: false}
    // Otherwise the folders between the table folder and the file: `key=value` or positional.
    const folders = path.slice(tablePath.length + 1).split('/').slice(0, -1)
    const partitions = folders.map((f, i): [string, string] => (f.includes('=') ? [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)] : [`partition_${i}`, f]))
    return {partitions, namedPartitions: false}
  }
}

/** `csv` for `a/b.csv`, '' for a file without one (Python's `os.path.splitext`). */
export function extensionOf(path: string): string {
  const base = path.split('/').pop() ?? ''
  const dot = base.lastIndexOf('.')
  return dot > 0 ? base.slice(dot + 1) : ''
}
