/**
 * Profiling of one lake file as DataHub's data-lake profiler (Spark + Deequ) computes it, in
 * one streaming pass with memory bounded per column, whatever the file's size.
 *
 * Glossary:
 * - Spark type: the type Spark would give a column (`int`, `long`, `double`, `string`, …): CSV
 *   values are typed over the whole file (a first pass), JSON lines by their values, Parquet and
 *   Avro by their schema. The type decides which statistics a column gets.
 * - unique count: Deequ's `ApproxCountDistinct`, a HyperLogLog++ sketch (precision 9: 512
 *   registers, Spark's XxHash64 with seed 42 over the value's bytes). Reproduced register for
 *   register, so counts match DataHub's — including its over- and under-counts.
 * - cardinality: DataHub's buckets of the unique count (ONE, TWO, VERY_FEW < 20, FEW < 60,
 *   MANY…). Few-valued numeric, string and date columns get value frequencies (exact, kept
 *   while a column has at most `FREQ_CAP` values); many-valued numeric columns get min, max,
 *   mean, stdev and quantiles (from a bounded reservoir).
 * CSV lines are read as Spark reads them without `multiLine`: one record per line, so a quoted
 * value with a line break splits its record (DataHub's profiles show that too).
 */
import {createInterface} from 'node:readline'
import avro from 'avsc'
import xxhash from 'xxhash-wasm'
import {cardinality, FULL_TABLE, pyFloat, type Cardinality} from '../../src/sdk/index.js'
import type {Duck} from './duck.js'
import {sqlString} from './duck.js'
import type {FileSystem} from './fs.js'
import {compressionOf, openStream, readPrefix} from './compression.js'

export type SparkType = 'int' | 'long' | 'short' | 'byte' | 'float' | 'double' | 'decimal' | 'string' | 'boolean' | 'date' | 'timestamp' | 'binary' | 'struct' | 'array' | 'map' | 'null'

export interface ProfilingConfig {
  profile_table_level_only?: boolean
  max_number_of_fields_to_profile?: number
  include_field_null_count?: boolean
  include_field_min_value?: boolean
  include_field_max_value?: boolean
  include_field_mean_value?: boolean
  include_field_median_value?: boolean
  include_field_stddev_value?: boolean
  include_field_quantiles?: boolean
  include_field_distinct_value_frequencies?: boolean
  include_field_histogram?: boolean
  include_field_sample_values?: boolean
  /** Column names allowed (DataHub's `allow_deny_patterns`). */
  columnOk?: (name: string) => boolean
}

interface Source {
  columns: Array<{name: string; type: SparkType}>
  rows: AsyncIterable<unknown[]>
}

// --- row sources ------------------------------------------------------------------------

/** One CSV line as Spark (univocity, no multiLine) tokenises it; `null` for empty values. */
export function sparkCsvTokens(line: string, delimiter: string): Array<string | null> {
  const out: Array<string | null> = []
  let i = 0
  const n = line.length
  for (;;) {
    while (i < n && (line[i] === ' ' || line[i] === '\t') && line[i] !== delimiter) i++
    if (line[i] === '"') {
      // Quoted: up to the closing quote (`\"` and `""` are quotes); an unclosed quote runs to the line's end.
      let v = ''
      i++
      while (i < n) {
        const c = line[i]!
        if (c === '\\' && line[i + 1] === '"') {
          v += '"'
          i += 2
        } else if (c === '"' && line[i + 1] === '"') {
          v += '"'
          i += 2
        } else if (c === '"') {
          i++
          break
        } else {
          v += c
          i++
        }
      }
      while (i < n && line[i] !== delimiter) v += line[i++]
      out.push(v)
    } else {
      let v = ''
      while (i < n && line[i] !== delimiter) v += line[i++]
      v = v.trim()
      out.push(v === '' ? null : v)
    }
    if (i >= n) break
    i++ // the delimiter
  }
  return out
}

const INT = /^[+-]?\d+$/
const NUM = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?$|^[+-]?(NaN|Infinity)$/

function sparkCsvType(prev: SparkType, v: string): SparkType {
  const rank = (t: SparkType) => ['null', 'int', 'long', 'double', 'boolean', 'string'].indexOf(t)
  let t: SparkType
  if (INT.test(v)) {
    const b = BigInt(v)
    t = b >= -2147483648n && b <= 2147483647n ? 'int' : b >= -9223372036854775808n && b <= 9223372036854775807n ? 'long' : 'double'
  } else if (NUM.test(v)) t = 'double'
  else if (/^(true|false)$/i.test(v)) t = 'boolean'
  else t = 'string'
  if (prev === 'null') return t
  if (prev === t) return t
  const numeric = (x: SparkType) => x === 'int' || x === 'long' || x === 'double'
  if (numeric(prev) && numeric(t)) return rank(prev) > rank(t) ? prev : t
  return 'string'
}

async function* lines(fs: FileSystem, path: string): AsyncGenerator<string> {
  const input = openStream(fs, path) as NodeJS.ReadableStream & {destroy?(): void}
  const rl = createInterface({input, crlfDelay: Infinity})
  let first = true
  try {
    for await (let line of rl) {
      if (first && line.charCodeAt(0) === 0xfeff) line = line.slice(1)
      first = false
      yield line
    }
  } finally {
    // A reader that stops early (a sampled profile, Ctrl-C) releases the file now, not at GC.
    rl.close()
    input.destroy?.()
  }
}

async function csvSource(fs: FileSystem, path: string, delimiter: string): Promise<Source> {
  let header: string[] | undefined
  let types: SparkType[] = []
  for await (const line of lines(fs, path)) {
    if (!line.trim()) continue
    const tokens = sparkCsvTokens(line, delimiter)
    if (!header) {
      header = tokens.map((t, i) => (t === null || t === '' ? `_c${i}` : t))
      types = header.map(() => 'null')
      continue
    }
    for (let i = 0; i < header.length; i++) {
      const v = tokens[i]
      if (v !== null && v !== undefined) types[i] = sparkCsvType(types[i]!, v)
    }
  }
  const names = header ?? []
  const columns = names.map((name, i) => ({name, type: types[i] === 'null' ? 'string' : types[i]!}))
  async function* rows(): AsyncGenerator<unknown[]> {
    let seenHeader = false
    for await (const line of lines(fs, path)) {
      if (!line.trim()) continue
      if (!seenHeader) {
        seenHeader = true
        continue
      }
      const tokens = sparkCsvTokens(line, delimiter)
      yield columns.map((c, i) => castCsv(tokens[i] ?? null, c.type))
    }
  }
  return {columns, rows: rows()}
}

function castCsv(v: string | null, t: SparkType): unknown {
  if (v === null) return null
  if (t === 'int') return Number(v)
  if (t === 'long') return BigInt(v)
  if (t === 'double') return Number(v.replace(/[dDfF]$/, ''))
  if (t === 'boolean') return v.toLowerCase() === 'true'
  return v
}

function jsonSparkType(v: unknown): SparkType {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'string') return 'string'
  if (typeof v === 'boolean') return 'boolean'
  if (typeof v === 'number') return Number.isInteger(v) ? 'long' : 'double'
  if (Array.isArray(v)) return 'array'
  return 'struct'
}

function mergeJson(a: SparkType, b: SparkType): SparkType {
  if (a === 'null') return b
  if (b === 'null' || a === b) return a
  if ((a === 'long' && b === 'double') || (a === 'double' && b === 'long')) return 'double'
  return 'string'
}

async function jsonRecords(fs: FileSystem, path: string, maxJsonBytes: number): Promise<AsyncIterable<Record<string, unknown>>> {
  // Spark reads JSON lines; a pretty-printed document (not one value per line) is read whole.
  let linewise = true
  for await (const line of lines(fs, path)) {
    if (!line.trim()) continue
    try {
      JSON.parse(line)
    } catch {
      linewise = false
    }
    break
  }
  const explode = (v: unknown): Array<Record<string, unknown>> => (Array.isArray(v) ? v : [v]).filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x))
  if (linewise) {
    return (async function* () {
      for await (const line of lines(fs, path)) {
        if (!line.trim()) continue
        let v: unknown
        try {
          v = JSON.parse(line)
        } catch {
          continue
        }
        yield* explode(v)
      }
    })()
  }
  const {bytes, whole} = await readPrefix(fs, path, maxJsonBytes)
  if (!whole) throw new Error(`a JSON document larger than ${maxJsonBytes} bytes is not profiled`)
  const doc = JSON.parse(bytes.toString('utf8'))
  return (async function* () {
    yield* explode(doc)
  })()
}

async function jsonSource(fs: FileSystem, path: string, maxJsonBytes: number): Promise<Source> {
  const types = new Map<string, SparkType>()
  for await (const r of await jsonRecords(fs, path, maxJsonBytes)) for (const [k, v] of Object.entries(r)) types.set(k, mergeJson(types.get(k) ?? 'null', jsonSparkType(v)))
  // Spark orders the fields of an inferred JSON schema by name.
  const columns = [...types.keys()].sort().map((name) => ({name, type: types.get(name) === 'null' ? 'string' : types.get(name)!}))
  async function* rows(): AsyncGenerator<unknown[]> {
    for await (const r of await jsonRecords(fs, path, maxJsonBytes)) {
      yield columns.map((c) => {
        const v = r[c.name]
        if (v === undefined || v === null) return null
        if (c.type === 'string' && typeof v !== 'string') return JSON.stringify(v)
        if (c.type === 'struct' && v !== null && typeof v === 'object') return sortKeysDeep(v)
        return v
      })
    }
  }
  return {columns, rows: rows()}
}

function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep)
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeysDeep((v as Record<string, unknown>)[k])]))
  return v
}

function duckSparkType(t: string): SparkType {
  const u = t.toUpperCase()
  if (u.endsWith('[]')) return 'array'
  if (u.startsWith('STRUCT')) return 'struct'
  if (u.startsWith('MAP')) return 'map'
  if (u.startsWith('DECIMAL')) return 'decimal'
  const m: Record<string, SparkType> = {BIGINT: 'long', INTEGER: 'int', SMALLINT: 'short', TINYINT: 'byte', UBIGINT: 'decimal', UINTEGER: 'long', USMALLINT: 'int', UTINYINT: 'short', DOUBLE: 'double', FLOAT: 'float', VARCHAR: 'string', BOOLEAN: 'boolean', DATE: 'date', BLOB: 'binary'}
  return m[u] ?? (u.startsWith('TIMESTAMP') ? 'timestamp' : 'string')
}

async function parquetSource(fs: FileSystem, path: string, duck: Duck): Promise<Source> {
  const local = fs.localPath(path)
  if (!local) throw new Error('Parquet needs a local copy of the file')
  const from = `read_parquet(${sqlString(local)})`
  const described = await duck.describe(`SELECT * FROM ${from}`)
  const columns = described.map((c) => ({name: c.name, type: duckSparkType(c.type)}))
  // Dates and timestamps come back as text, the form Spark casts them to for histograms.
  const select = described.map((c, i) => (['date', 'timestamp', 'decimal'].includes(columns[i]!.type) ? `CAST("${c.name.replaceAll('"', '""')}" AS VARCHAR)` : `"${c.name.replaceAll('"', '""')}"`)).join(', ')
  async function* rows(): AsyncGenerator<unknown[]> {
    for await (const chunk of duck.stream(`SELECT ${select || '*'} FROM ${from}`)) yield* chunk
  }
  return {columns, rows: rows()}
}

function avroSparkType(t: unknown): SparkType {
  if (Array.isArray(t)) {
    const nonNull = t.filter((x) => x !== 'null')
    return nonNull.length === 1 ? avroSparkType(nonNull[0]) : 'struct'
  }
  const o = t as {type?: unknown; logicalType?: string}
  const name = typeof t === 'string' ? t : typeof o.type === 'string' ? o.type : 'record'
  if (o && typeof o === 'object' && o.logicalType === 'date') return 'date'
  if (o && typeof o === 'object' && o.logicalType?.startsWith('timestamp')) return 'timestamp'
  const m: Record<string, SparkType> = {int: 'int', long: 'long', float: 'float', double: 'double', string: 'string', boolean: 'boolean', bytes: 'binary', fixed: 'binary', enum: 'string', record: 'struct', array: 'array', map: 'map', null: 'null'}
  return m[name] ?? 'string'
}

async function avroSource(fs: FileSystem, path: string): Promise<Source> {
  const local = fs.localPath(path)
  if (!local) throw new Error('Avro needs a local copy of the file')
  const decoder = () => avro.createFileDecoder(local, {readerSchema: undefined} as never)
  const schema = await new Promise<{fields?: Array<{name: string; type: unknown}>}>((resolve, reject) => {
    const d = decoder()
    d.once('metadata', (type: {schema(): unknown}) => {
      resolve(type.schema() as never)
      d.destroy()
    })
    d.once('error', reject)
  })
  const columns = (schema.fields ?? []).map((f) => ({name: f.name, type: avroSparkType(f.type)}))
  async function* rows(): AsyncGenerator<unknown[]> {
    for await (const rec of decoder() as AsyncIterable<Record<string, unknown>>) yield columns.map((c) => rec[c.name] ?? null)
  }
  return {columns, rows: rows()}
}

/** The rows of a file with Spark's column types. */
export async function sparkRows(fs: FileSystem, path: string, format: string, opts: {duck: Duck; maxJsonBytes: number}): Promise<Source> {
  switch (format) {
    case 'csv':
      return csvSource(fs, path, ',')
    case 'tsv':
      return csvSource(fs, path, '\t')
    case 'json':
    case 'jsonl':
      return jsonSource(fs, path, opts.maxJsonBytes)
    case 'parquet':
    case 'avro':
      if (compressionOf(path)) throw new Error(`a compressed ${format === 'avro' ? 'Avro' : 'Parquet'} file is not read (it compresses inside the file)`)
      return format === 'avro' ? avroSource(fs, path) : parquetSource(fs, path, opts.duck)
    default:
      throw new Error(`files of type '${format}' cannot be profiled`)
  }
}

// --- HyperLogLog++ as Deequ runs it -----------------------------------------------------

const P = 9
const M = 1 << P
let hasher: Promise<{h64Raw(input: Uint8Array, seed?: bigint): bigint}> | undefined
const SEED = 42n
const MASK64 = (1n << 64n) - 1n

function bytesOf(v: unknown, t: SparkType): Uint8Array {
  const b = Buffer.alloc(8)
  switch (t) {
    case 'int':
    case 'short':
    case 'byte':
      b.writeInt32LE(Number(v) | 0)
      return b.subarray(0, 4)
    case 'boolean':
      b.writeInt32LE(v ? 1 : 0)
      return b.subarray(0, 4)
    case 'long':
      b.writeBigInt64LE(BigInt.asIntN(64, BigInt(v as number | bigint)))
      return b
    case 'double': {
      const d = Number(v)
      if (Number.isNaN(d)) b.writeBigUInt64LE(0x7ff8000000000000n)
      else b.writeDoubleLE(d === 0 ? 0 : d)
      return b
    }
    case 'float': {
      const f = Math.fround(Number(v))
      if (Number.isNaN(f)) b.writeInt32LE(0x7fc00000)
      else b.writeFloatLE(f === 0 ? 0 : f)
      return b.subarray(0, 4)
    }
    case 'string':
      return Buffer.from(String(v), 'utf8')
    default:
      return Buffer.from(typeof v === 'string' ? v : JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? '', 'utf8')
  }
}

function nlz64(x: bigint): number {
  if (x === 0n) return 64
  return 64 - x.toString(2).length
}

/** The estimate of Spark's HyperLogLog++ (precision 9) from its registers. */
export function hllEstimate(registers: Uint8Array): number {
  let zInverse = 0
  let zeros = 0
  for (const r of registers) {
    zInverse += 2 ** -r
    if (r === 0) zeros++
  }
  const e = ((0.7213 / (1 + 1.079 / M)) * M * M) / zInverse
  if (zeros > 0) {
    const h = M * Math.log(M / zeros)
    // Spark's linear-counting threshold for precision 9.
    if (h <= 400) return Math.round(h)
  }
  return Math.round(e)
}

// --- the profiler -----------------------------------------------------------------------

/** Values kept per column for value frequencies; a column with more stops keeping them. */
const FREQ_CAP = 1000
const RESERVOIR = 10_000

class ColumnState {
  nulls = 0
  registers = new Uint8Array(M)
  freq: Map<string, number> | undefined = new Map()
  min = Infinity
  max = -Infinity
  count = 0
  mean = 0
  m2 = 0
  reservoir: number[] = []
  constructor(readonly type: SparkType) {}
}

const NUMERIC = new Set<SparkType>(['int', 'long', 'short', 'byte', 'float', 'double', 'decimal'])

/** Java's `Double.toString`, which Spark's cast of a double to text follows. */
export function javaDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN'
  if (!Number.isFinite(d)) return d > 0 ? 'Infinity' : '-Infinity'
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0'
  const a = Math.abs(d)
  if (a >= 1e-3 && a < 1e7) {
    const s = String(d)
    return s.includes('.') || s.includes('e') ? s : `${s}.0`
  }
  const [mant, exp] = d.toExponential().split('e')
  return `${mant!.includes('.') ? mant : `${mant}.0`}E${Number(exp)}`
}

function textOf(v: unknown, t: SparkType): string {
  if (t === 'double' || t === 'float') return javaDouble(Number(v))
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'boolean') return String(v)
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64')
  if (typeof v === 'object') return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))
  return String(v)
}

/** Python's `str()` of a value as PySpark returns it (`Row(code='DZ', name='Algeria')`). */
function pySample(v: unknown, t: SparkType, top = true): string {
  if (v === null || v === undefined) return 'None'
  if (typeof v === 'boolean') return v ? 'True' : 'False'
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number') return t === 'double' || t === 'float' || !Number.isInteger(v) ? pyFloat(v) : String(v)
  if (typeof v === 'string') return top ? v : `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
  if (Array.isArray(v)) return `[${v.map((x) => pySample(x, 'null', false)).join(', ')}]`
  if (typeof v === 'object') return `Row(${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}=${pySample(x, 'null', false)}`).join(', ')})`
  return String(v)
}

const FEW_OR_LESS = new Set<Cardinality>(['ONE', 'TWO', 'VERY_FEW', 'FEW'])
const QUANTILES = [0.05, 0.25, 0.5, 0.75, 0.95]
const pyCmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

export interface FileProfile {
  profile: Record<string, unknown>
  /** True when only the first `maxRows` rows were read. */
  sampled: boolean
}

/** The `datasetProfile` of one file, as DataHub's data-lake profiler computes it. */
export async function profileFile(fs: FileSystem, path: string, format: string, cfg: ProfilingConfig, opts: {duck: Duck; maxJsonBytes: number; now: number; maxRows?: number; signal?: () => boolean}): Promise<FileProfile> {
  const {h64Raw} = await (hasher ??= xxhash())
  const source = await sparkRows(fs, path, format, opts)
  // PyDeequ breaks on dots in names; DataHub renames the columns first.
  const columns = source.columns.map((c) => ({name: c.name.replaceAll('.', '_'), type: c.type}))
  const allowed = cfg.profile_table_level_only ? [] : columns.map((c, i) => ({...c, i})).filter((c) => cfg.columnOk?.(c.name) ?? true)
  const profiled = cfg.max_number_of_fields_to_profile !== undefined ? allowed.slice(0, cfg.max_number_of_fields_to_profile) : allowed
  const states = profiled.map((c) => new ColumnState(c.type))
  const samples: unknown[][] = []
  let rows = 0
  let sampled = false
  let seed = 1
  for await (const row of source.rows) {
    if (opts.maxRows !== undefined && rows >= opts.maxRows) {
      sampled = true
      break
    }
    if (opts.signal?.()) break
    rows++
    if (samples.length < 20) samples.push(profiled.map((c) => row[c.i]))
    for (let k = 0; k < profiled.length; k++) {
      const v = row[profiled[k]!.i]
      const s = states[k]!
      if (v === null || v === undefined) {
        s.nulls++
        continue
      }
      const x = BigInt.asUintN(64, h64Raw(bytesOf(v, s.type), SEED))
      const idx = Number(x >> BigInt(64 - P))
      const rho = nlz64(((x << BigInt(P)) & MASK64) | (1n << BigInt(P - 1))) + 1
      if (rho > s.registers[idx]!) s.registers[idx] = rho
      if (s.freq) {
        const key = textOf(v, s.type)
        s.freq.set(key, (s.freq.get(key) ?? 0) + 1)
        if (s.freq.size > FREQ_CAP) s.freq = undefined
      }
      if (NUMERIC.has(s.type)) {
        const d = Number(v)
        if (!Number.isFinite(d)) continue
        s.count++
        if (d < s.min) s.min = d
        if (d > s.max) s.max = d
        const delta = d - s.mean
        s.mean += delta / s.count
        s.m2 += delta * (d - s.mean)
        // A reservoir for the quantiles, with a fixed-seed generator so runs repeat.
        if (s.reservoir.length < RESERVOIR) s.reservoir.push(d)
        else {
          seed = (seed * 1103515245 + 12345) & 0x7fffffff
          const j = seed % s.count
          if (j < RESERVOIR) s.reservoir[j] = d
        }
      }
    }
  }
  const fieldProfiles = profiled.map((c, k) => {
    const s = states[k]!
    const unique = hllEstimate(s.registers)
    const nonNull = rows - s.nulls
    const nullFraction = rows !== 0 ? s.nulls / rows : 0
    const fp: Record<string, unknown> = {
      fieldPath: c.name,
      uniqueCount: unique,
      uniqueProportion: nonNull > 0 ? unique / nonNull : 0,
      nullCount: s.nulls,
      nullProportion: nullFraction,
    }
    if (cfg.include_field_sample_values !== false) fp.sampleValues = samples.map((r) => pySample(r[k], c.type)).sort(pyCmp)
    // Called, as DataHub's Spark profiler calls it, with the null fraction.
    const card = cardinality(unique, nullFraction)
    const frequencies = () => {
      if (cfg.include_field_distinct_value_frequencies === false || !s.freq) return
      const entries = [...s.freq.entries()].map(([value, frequency]) => ({value, frequency}))
      if (s.nulls > 0) entries.push({value: 'NullValue', frequency: s.nulls})
      fp.distinctValueFrequencies = entries.sort((a, b) => pyCmp(a.value, b.value))
    }
    if (NUMERIC.has(c.type)) {
      if (card === 'UNIQUE') return fp
      if (FEW_OR_LESS.has(card)) frequencies()
      else if (card === 'MANY' || card === 'VERY_MANY') {
        if (s.count > 0) {
          if (cfg.include_field_min_value !== false) fp.min = pyFloat(s.min)
          if (cfg.include_field_max_value !== false) fp.max = pyFloat(s.max)
          if (cfg.include_field_mean_value !== false) fp.mean = pyFloat(s.mean)
          if (cfg.include_field_stddev_value !== false) fp.stdev = pyFloat(Math.sqrt(s.m2 / s.count))
          const sorted = [...s.reservoir].sort((a, b) => a - b)
          const at = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!
          if (cfg.include_field_median_value !== false) fp.median = pyFloat(at(0.5))
          if (cfg.include_field_quantiles !== false) fp.quantiles = QUANTILES.map((q) => ({quantile: String(q), value: pyFloat(at(q))}))
        }
        if (cfg.include_field_histogram !== false && s.freq) {
          const top = [...s.freq.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25).sort((a, b) => pyCmp(a[0], b[0]))
          fp.histogram = {boundaries: top.map(([v]) => v), heights: top.map(([, n]) => n)}
        }
      }
    } else if (c.type === 'string') {
      if (FEW_OR_LESS.has(card)) frequencies()
    } else if (c.type === 'date' || c.type === 'timestamp') {
      const texts = s.freq ? [...s.freq.keys()].sort(pyCmp) : []
      if (texts.length && cfg.include_field_min_value !== false) fp.min = texts[0]
      if (texts.length && cfg.include_field_max_value !== false) fp.max = texts[texts.length - 1]
      if (FEW_OR_LESS.has(card)) frequencies()
    }
    return fp
  })
  return {
    profile: {timestampMillis: opts.now, partitionSpec: sampled ? {partition: `FIRST_${rows}_ROWS`, type: 'QUERY'} : FULL_TABLE, rowCount: rows, columnCount: columns.length, fieldProfiles},
    sampled,
  }
}
