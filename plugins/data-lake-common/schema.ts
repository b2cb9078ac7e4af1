/**
 * Schema inference for lake files, field by field as DataHub's inferrers write them:
 * - CSV/TSV: the first `max_rows` records, each value tried against Table Schema's types in
 *   order of specificity; a column takes the most specific type at least 75 % of its values
 *   have (DataHub uses `tableschema`; csv-parse reads the records).
 * - JSON: the document (a list is a collection of records) or, for JSON lines, the first
 *   `max_rows` lines; nested objects and lists of objects become dotted paths, children before
 *   their parent, in order of first appearance; `nullable` when a record lacks the field.
 * - Parquet: the footer's schema (DuckDB reads it), named as pyarrow names types.
 * - Avro: the file header's writer schema (avsc reads it), with version-2 field paths.
 * Only the start of a CSV or JSON-lines file is read; a JSON document is read whole up to
 * `maxJsonBytes`. A gzip-compressed text file (`.csv.gz`) is decompressed only as far as read.
 */
import avro from 'avsc'
import {parse as parseCsv} from 'csv-parse/sync'
import {avroSchemaFields, type AvroSchema, type SchemaFieldOut} from './avro-fields.js'
import type {Duck} from './duck.js'
import {sqlString} from './duck.js'
import type {FileSystem} from './fs.js'
import {compressionOf, readPrefix} from './compression.js'

const cls = (name: string, body: Record<string, unknown> = {}) => ({type: {[`com.linkedin.schema.${name}`]: body}})

function field(fieldPath: string, typeClass: string, nativeDataType: string, nullable = false): SchemaFieldOut {
  return {fieldPath, nullable, type: cls(typeClass), nativeDataType, recursive: false, isPartOfKey: false}
}

// --- CSV / TSV (Table Schema inference) -------------------------------------------------

const TABLESCHEMA_TYPES: Record<string, string> = {
  duration: 'TimeType',
  geojson: 'RecordType',
  geopoint: 'RecordType',
  object: 'RecordType',
  array: 'ArrayType',
  datetime: 'TimeType',
  time: 'TimeType',
  date: 'DateType',
  integer: 'NumberType',
  number: 'NumberType',
  boolean: 'BooleanType',
  string: 'StringType',
  any: 'UnionType',
}

const isJsonOf = (v: string, kind: 'object' | 'array'): boolean => {
  const t = v.trim()
  if (!(kind === 'object' ? t.startsWith('{') : t.startsWith('['))) return false
  try {
    const parsed = JSON.parse(t)
    return kind === 'object' ? parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) : Array.isArray(parsed)
  } catch {
    return false
  }
}

function validDate(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d))
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d
}

/** Which Table Schema types a CSV value casts to, most specific first. */
function castsOf(v: string): string[] {
  const out: string[] = []
  if (/^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/.test(v)) out.push('duration')
  if (isJsonOf(v, 'object')) out.push('geojson', 'object')
  const gp = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(v)
  if (gp && Math.abs(Number(gp[1])) <= 180 && Math.abs(Number(gp[2])) <= 90) out.push('geopoint')
  if (isJsonOf(v, 'array')) out.push('array')
  const dt = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/.exec(v)
  if (dt && validDate(+dt[1]!, +dt[2]!, +dt[3]!) && +dt[4]! < 24 && +dt[5]! < 60 && +dt[6]! < 60) out.push('datetime')
  const tm = /^(\d{2}):(\d{2}):(\d{2})$/.exec(v)
  if (tm && +tm[1]! < 24 && +tm[2]! < 60 && +tm[3]! < 60) out.push('time')
  // ISO dates, and the US `M/D/YYYY` form DataHub's goldens show inferred as dates.
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v)
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v)
  if ((iso && validDate(+iso[1]!, +iso[2]!, +iso[3]!)) || (us && validDate(+us[3]!, +us[1]!, +us[2]!))) out.push('date')
  // Python's int() and Decimal(): surrounding blanks, a sign, `_` between digits.
  if (/^\s*[+-]?\d+(_\d+)*\s*$/.test(v)) out.push('integer')
  if (/^\s*[+-]?((\d+(_\d+)*)(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(v) || /^\s*[+-]?(nan|inf|infinity)\s*$/i.test(v)) out.push('number')
  if (['true', 'True', 'TRUE', '1', 'false', 'False', 'FALSE', '0'].includes(v)) out.push('boolean')
  out.push('string', 'any')
  return out
}

const ORDER = ['duration', 'geojson', 'geopoint', 'object', 'array', 'datetime', 'time', 'date', 'integer', 'number', 'boolean', 'string', 'any']

/** Table Schema's resolver: the most specific type with at least `confidence` of the best count. */
export function resolveCsvType(values: string[], confidence = 0.75): string {
  const counts = new Map<string, number>()
  for (const v of values) for (const t of castsOf(v)) counts.set(t, (counts.get(t) ?? 0) + 1)
  if (counts.size === 0) return 'string'
  const max = Math.max(...counts.values())
  return ORDER.find((t) => (counts.get(t) ?? 0) >= max * confidence && counts.has(t)) ?? 'string'
}

/** Header names as tabulator gives them: duplicates numbered, blanks named `field<i>`. */
export function csvHeader(raw: string[]): string[] {
  const seen = new Map<string, number>()
  return raw.map((h, i) => {
    const n = (seen.get(h) ?? 0) + 1
    seen.set(h, n)
    const name = n > 1 ? `${h}${n}` : h
    return name === '' ? `field${i + 1}` : name
  })
}

async function csvFields(fs: FileSystem, path: string, delimiter: string, maxRows: number): Promise<SchemaFieldOut[]> {
  let size = 1 << 20
  for (;;) {
    const {bytes, whole} = await readPrefix(fs, path, size)
    let text = bytes.toString('utf8')
    if (!whole) text = text.slice(0, text.lastIndexOf('\n') + 1)
    let records: string[][]
    try {
      records = parseCsv(text, {delimiter, bom: true, relax_column_count: true, skip_empty_lines: true, to: maxRows + 1}) as string[][]
    } catch (e) {
      // A quoted value crossing the end of what was read: read more, up to the whole file.
      if (!whole) {
        size *= 4
        continue
      }
      throw e
    }
    if (records.length === 0) return []
    const header = csvHeader(records[0]!)
    const rows = records.slice(1, maxRows + 1).map((r) => (r.length >= header.length ? r.slice(0, header.length) : [...r, ...Array<string>(header.length - r.length).fill('')]))
    return header.map((name, i) => {
      const t = resolveCsvType(rows.map((r) => r[i]!))
      return field(name, TABLESCHEMA_TYPES[t] ?? 'NullType', t)
    })
  }
}

// --- JSON (DataHub's construct_schema) --------------------------------------------------

type Doc = Record<string, unknown>

const pyType = (v: unknown): string => (typeof v === 'string' ? 'str' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? (Number.isInteger(v) ? 'int' : 'float') : Array.isArray(v) ? 'list' : v !== null && typeof v === 'object' ? 'dict' : 'NoneType')
const JSON_TYPES: Record<string, string> = {list: 'ArrayType', bool: 'BooleanType', NoneType: 'NullType', int: 'NumberType', float: 'NumberType', str: 'StringType', dict: 'RecordType'}

function nullableIn(doc: unknown, path: string[]): boolean {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return true
  const [head, ...rest] = path
  if (!(head! in (doc as Doc))) return true
  const value = (doc as Doc)[head!]
  if (value === null || value === undefined) return true
  if (rest.length === 0) return false
  if (Array.isArray(value)) return value.length === 0 || value.some((x) => nullableIn(x, rest))
  if (typeof value === 'object') return nullableIn(value, rest)
  return true
}

/** Fields of a collection of JSON records, as DataHub's `construct_schema` + JSON inferrer. */
export function jsonFields(docs: unknown[]): SchemaFieldOut[] {
  const schema = new Map<string, {path: string[]; types: Set<string>}>()
  const visit = (doc: Doc, prefix: string[]) => {
    for (const [key, value] of Object.entries(doc)) {
      const path = [...prefix, key]
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) visit(value as Doc, path)
      if (Array.isArray(value)) for (const item of value) if (item !== null && typeof item === 'object' && !Array.isArray(item)) visit(item as Doc, path)
      if (value === null || value === undefined) continue
      const k = JSON.stringify(path)
      const entry = schema.get(k) ?? {path, types: new Set<string>()}
      entry.types.add(pyType(value))
      schema.set(k, entry)
    }
  }
  const records = docs.filter((d): d is Doc => d !== null && typeof d === 'object' && !Array.isArray(d))
  for (const d of records) visit(d, [])
  return [...schema.values()].map(({path, types}) => {
    const t = types.size === 1 ? [...types][0]! : 'mixed'
    return field(path.join('.'), JSON_TYPES[t] ?? 'NullType', t, records.some((d) => nullableIn(d, path)))
  })
}

async function jsonDocs(fs: FileSystem, path: string, lines: boolean, maxRows: number, maxJsonBytes: number): Promise<unknown[]> {
  if (lines) {
    const {bytes, whole} = await readPrefix(fs, path, 16 << 20)
    let text = bytes.toString('utf8')
    if (!whole) text = text.slice(0, text.lastIndexOf('\n') + 1)
    const out: unknown[] = []
    for (const line of text.split('\n')) {
      if (out.length >= maxRows) break
      if (line.trim()) out.push(JSON.parse(line))
    }
    return out
  }
  const {bytes, whole} = await readPrefix(fs, path, maxJsonBytes)
  if (!whole) throw new Error(`a JSON document larger than ${maxJsonBytes} bytes is not read whole (use .jsonl for JSON lines)`)
  const doc = JSON.parse(bytes.toString('utf8')) as unknown
  return Array.isArray(doc) ? doc : [doc]
}

// --- Parquet (pyarrow type names) -------------------------------------------------------

/** DuckDB's name of a Parquet column type, as pyarrow prints it, with DataHub's type class. */
export function arrowType(duck: string): {native: string; cls: string} {
  const t = duck.trim()
  const u = t.toUpperCase()
  if (u.endsWith('[]')) {
    const inner = arrowType(t.slice(0, -2))
    return {native: `list<element: ${inner.native}>`, cls: 'ArrayType'}
  }
  if (u.startsWith('STRUCT(')) return {native: `struct<${splitTop(t.slice(7, -1)).map((p) => {
    const m = /^\s*("(?:[^"]|"")*"|\S+)\s+(.*)$/s.exec(p)!
    return `${m[1]!.replace(/^"|"$/g, '').replaceAll('""', '"')}: ${arrowType(m[2]!).native}`
  }).join(', ')}>`, cls: 'RecordType'}
  if (u.startsWith('MAP(')) {
    const [k, v] = splitTop(t.slice(4, -1))
    return {native: `map<${arrowType(k!).native}, ${arrowType(v!).native}>`, cls: 'RecordType'}
  }
  const dec = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(u)
  if (dec) return {native: `decimal128(${dec[1]}, ${dec[2]})`, cls: 'NumberType'}
  const simple: Record<string, [string, string]> = {
    BOOLEAN: ['bool', 'BooleanType'],
    TINYINT: ['int8', 'NumberType'],
    SMALLINT: ['int16', 'NumberType'],
    INTEGER: ['int32', 'NumberType'],
    BIGINT: ['int64', 'NumberType'],
    UTINYINT: ['uint8', 'NumberType'],
    USMALLINT: ['uint16', 'NumberType'],
    UINTEGER: ['uint32', 'NumberType'],
    UBIGINT: ['uint64', 'NumberType'],
    FLOAT: ['float', 'NumberType'],
    DOUBLE: ['double', 'NumberType'],
    VARCHAR: ['string', 'StringType'],
    BLOB: ['binary', 'BytesType'],
    DATE: ['date32[day]', 'DateType'],
    TIME: ['time64[us]', 'TimeType'],
    TIMESTAMP: ['timestamp[us]', 'TimeType'],
    'TIMESTAMP_MS': ['timestamp[ms]', 'TimeType'],
    'TIMESTAMP_NS': ['timestamp[ns]', 'TimeType'],
    'TIMESTAMP_S': ['timestamp[s]', 'TimeType'],
    'TIMESTAMP WITH TIME ZONE': ['timestamp[us, tz=UTC]', 'TimeType'],
    UUID: ['fixed_size_binary[16]', 'BytesType'],
  }
  const s = simple[u]
  return s ? {native: s[0], cls: s[1]} : {native: t.toLowerCase(), cls: 'NullType'}
}

/** Splits `a INT, b STRUCT(x INT, y INT)` at top-level commas. */
function splitTop(s: string): string[] {
  const out: string[] = []
  let depth = 0
  let quoted = false
  let cur = ''
  for (const ch of s) {
    if (ch === '"') quoted = !quoted
    if (!quoted && ch === '(') depth++
    if (!quoted && ch === ')') depth--
    if (!quoted && depth === 0 && ch === ',') {
      out.push(cur)
      cur = ''
    } else cur += ch
  }
  if (cur.trim()) out.push(cur)
  return out
}

// --- Avro -------------------------------------------------------------------------------

// The container file's header, as the Avro specification defines it.
const AVRO_HEADER = avro.Type.forSchema({
  type: 'record',
  name: 'org.apache.avro.file.Header',
  fields: [
    {name: 'magic', type: {type: 'fixed', name: 'Magic', size: 4}},
    {name: 'meta', type: {type: 'map', values: 'bytes'}},
    {name: 'sync', type: {type: 'fixed', name: 'Sync', size: 16}},
  ],
})

async function avroWriterSchema(fs: FileSystem, path: string): Promise<AvroSchema> {
  const st = await fs.stat(path)
  const total = st?.size ?? 0
  // The header (magic, metadata with the schema, sync marker) is at the start; read more only
  // when a large schema does not fit — a range read, so an object store serves it too.
  for (let size = 64 << 10; ; size *= 4) {
    const buf = await fs.readRange(path, 0, Math.min(size, total))
    if (buf.subarray(0, 4).toString('latin1') !== 'Obj\u0001') throw new Error('not an Avro object container file')
    const {value, offset} = AVRO_HEADER.decode(buf, 0) as {value: {meta: Record<string, Buffer>} | undefined; offset: number}
    if (offset >= 0 && value) {
      const schema = value.meta['avro.schema']
      if (!schema) throw new Error('no schema in the Avro header')
      return JSON.parse(schema.toString('utf8')) as AvroSchema
    }
    if (size >= total) throw new Error('the Avro header is cut short')
  }
}

// --- entry point ------------------------------------------------------------------------

export interface InferOptions {
  /** Records read from the start of a CSV/TSV/JSON-lines file (DataHub's `max_rows`). */
  maxRows: number
  maxJsonBytes: number
  duck: Duck
}

/** The schema fields of one file of the given format (`csv`, `tsv`, `json`, `jsonl`, `parquet`, `avro`). */
export async function inferSchema(fs: FileSystem, path: string, format: string, opts: InferOptions): Promise<SchemaFieldOut[]> {
  switch (format) {
    case 'csv':
      return csvFields(fs, path, ',', opts.maxRows)
    case 'tsv':
      return csvFields(fs, path, '\t', opts.maxRows)
    case 'json':
    case 'jsonl':
      return jsonFields(await jsonDocs(fs, path, format === 'jsonl', opts.maxRows, opts.maxJsonBytes))
    case 'parquet': {
      if (compressionOf(path)) throw new Error('a compressed Parquet file is not read (Parquet compresses inside the file)')
      const local = fs.localPath(path)
      if (!local) throw new Error('Parquet needs a local copy of the file')
      const cols = await opts.duck.describe(`SELECT * FROM read_parquet(${sqlString(local)})`)
      return cols.map((c) => {
        const t = arrowType(c.type)
        return field(c.name, t.cls, t.native)
      })
    }
    case 'avro':
      if (compressionOf(path)) throw new Error('a compressed Avro file is not read (Avro compresses inside the file)')
      // DataHub's Avro inference names each field's native type after the field.
      return avroSchemaFields(await avroWriterSchema(fs, path), {nativeOf: (f) => f.name})
    default:
      throw new Error(`files of type '${format}' are not read (csv, tsv, json, jsonl, parquet, avro are)`)
  }
}
