/**
 * Avro schemas to DataHub schema fields with version-2 field paths
 * (`[version=2.0].[type=Record].[type=long].FirstChord`), as DataHub's
 * `avro_schema_to_mce_fields` writes them — for Avro files, and for Delta/Hive column types
 * (which DataHub converts to Avro first).
 *
 * A path names every type on the way: a record field is `[type=<record name>]`, an array
 * `[type=array]` followed by its items' types, a map `[type=map]` followed by its values'.
 */

export type AvroSchema = string | AvroSchema[] | {type: AvroSchema | string; name?: string; fields?: AvroField[]; items?: AvroSchema; values?: AvroSchema; logicalType?: string; symbols?: string[]; [k: string]: unknown}
export interface AvroField {
  name: string
  type: AvroSchema
  doc?: string
  /** The source's own type text (Hive/Delta), kept as the field's `nativeDataType`. */
  native_data_type?: string
  [k: string]: unknown
}

export interface SchemaFieldOut {
  fieldPath: string
  nullable: boolean
  description?: string
  type: {type: Record<string, unknown>}
  nativeDataType: string
  recursive: boolean
  isPartOfKey: boolean
}

const PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string'])

function unwrap(s: AvroSchema): {schema: AvroSchema; nullable: boolean} {
  if (Array.isArray(s)) {
    const nonNull = s.filter((t) => t !== 'null')
    return {schema: nonNull.length === 1 ? nonNull[0]! : s, nullable: nonNull.length < s.length}
  }
  return {schema: s, nullable: false}
}

function kind(s: AvroSchema): string {
  if (Array.isArray(s)) return 'union'
  if (typeof s === 'string') return s
  return typeof s.type === 'string' ? s.type : kind(s.type)
}

function logical(s: AvroSchema): string | undefined {
  return typeof s === 'object' && !Array.isArray(s) ? s.logicalType : undefined
}

/** The `[type=…]` token of a schema: a record's name, else its Avro type name. */
function token(s: AvroSchema): string {
  const k = kind(s)
  if ((k === 'record' || k === 'enum' || k === 'fixed') && typeof s === 'object' && !Array.isArray(s) && s.name) return s.name
  return k
}

/** DataHub's type class for an Avro schema. */
function typeClass(s: AvroSchema): Record<string, unknown> {
  const k = kind(s)
  const lt = logical(s)
  const cls = (name: string, body: Record<string, unknown> = {}) => ({[`com.linkedin.schema.${name}`]: body})
  if (lt === 'date') return cls('DateType')
  if (lt && /^(timestamp|time|local-timestamp)/.test(lt)) return cls('TimeType')
  if (lt === 'decimal') return cls('NumberType')
  switch (k) {
    case 'int':
    case 'long':
    case 'float':
    case 'double':
      return cls('NumberType')
    case 'string':
      return cls('StringType')
    case 'boolean':
      return cls('BooleanType')
    case 'bytes':
    case 'fixed':
      return cls('BytesType')
    case 'enum':
      return cls('EnumType')
    case 'record':
      return cls('RecordType')
    case 'array':
      return cls('ArrayType', {nestedType: [kind(unwrap((s as {items: AvroSchema}).items).schema)]})
    case 'map':
      return cls('MapType', {keyType: 'string', valueType: kind(unwrap((s as {values: AvroSchema}).values).schema)})
    case 'union':
      return cls('UnionType', {nestedTypes: (s as AvroSchema[]).map(kind)})
    default:
      return cls('NullType')
  }
}

export interface AvroFieldOptions {
  /** Fields of primitive type are nullable even outside a union (DataHub's `default_nullable`). */
  defaultNullable?: boolean
  /** `nativeDataType` of a field without `native_data_type`; DataHub's Avro inference uses its name. */
  nativeOf?: (field: AvroField, schema: AvroSchema) => string
}

/**
 * The fields of `field` (and of every record it holds) under `prefix`; its own path is
 * `<prefix>.[type=…]….<name>`.
 */
function fieldsOf(prefix: string, field: AvroField, out: SchemaFieldOut[], opts: AvroFieldOptions): void {
  const {schema, nullable} = unwrap(field.type)
  // Arrays and maps add their element types to the path; records below them add their fields.
  let inner = schema
  const tokens: string[] = [token(schema)]
  while (kind(inner) === 'array' || kind(inner) === 'map') {
    inner = unwrap(kind(inner) === 'array' ? (inner as {items: AvroSchema}).items : (inner as {values: AvroSchema}).values).schema
    tokens.push(token(inner))
  }
  const path = `${prefix}.${tokens.map((t) => `[type=${t}]`).join('.')}.${field.name}`
  const primitive = PRIMITIVES.has(kind(schema))
  out.push({
    fieldPath: path,
    nullable: nullable || (primitive && (opts.defaultNullable ?? false)),
    ...(field.doc ? {description: field.doc} : {}),
    type: {type: typeClass(schema)},
    nativeDataType: field.native_data_type ?? opts.nativeOf?.(field, schema) ?? token(schema),
    recursive: false,
    isPartOfKey: false,
  })
  if (kind(inner) === 'record' && typeof inner === 'object' && !Array.isArray(inner)) {
    // Named references to a record are not followed, so a recursive schema ends here.
    for (const f of inner.fields ?? []) fieldsOf(path, f, out, opts)
  }
}

/** Fields of a top-level Avro schema (a record, or one column as a bare type with its name). */
export function avroSchemaFields(schema: AvroSchema, opts: AvroFieldOptions = {}, columnName?: string, nativeType?: string): SchemaFieldOut[] {
  const out: SchemaFieldOut[] = []
  const k = kind(schema)
  if (k === 'record' && typeof schema === 'object' && !Array.isArray(schema)) {
    const prefix = `[version=2.0].[type=${token(schema)}]`
    for (const f of schema.fields ?? []) fieldsOf(prefix, f, out, opts)
    return out
  }
  // A bare type: DataHub appends the column name to the one field it makes.
  const {schema: s, nullable} = unwrap(schema)
  out.push({
    fieldPath: `[version=2.0].[type=${token(s)}].${columnName ?? ''}`,
    nullable: nullable || (opts.defaultNullable ?? false),
    type: {type: typeClass(s)},
    nativeDataType: nativeType ?? token(s),
    recursive: false,
    isPartOfKey: false,
  })
  return out
}
