/**
 * `com.linkedin.schema`: schemaMetadata (with its platform-schema and field-type unions),
 * editableSchemaMetadata, and inputFields, which embeds SchemaField.
 */
import {
  arrayOf, auditStamp, bool, changeAuditFields, emptyRecords, globalTags, glossaryTerms, long, mapOf,
  record, str, union, urn, versioned,
} from './common.js'
import type {AspectSpec} from './types.js'

const S = 'com.linkedin.schema.'

const platformSchema = union({
  [`${S}EspressoSchema`]: record({documentSchema: str, tableSchema: str}),
  [`${S}OracleDDL`]: record({tableSchema: str}),
  [`${S}MySqlDDL`]: record({tableSchema: str}),
  [`${S}PrestoDDL`]: record({rawSchema: str}),
  [`${S}KafkaSchema`]: record({documentSchema: str}, {documentSchemaType: str, keySchema: str, keySchemaType: str}),
  [`${S}BinaryJsonSchema`]: record({schema: str}),
  [`${S}OrcSchema`]: record({schema: str}),
  [`${S}Schemaless`]: record({}),
  [`${S}KeyValueSchema`]: record({keySchema: str, valueSchema: str}),
  [`${S}OtherSchema`]: record({rawSchema: str}),
})

const fieldType = record({
  type: union({
    ...emptyRecords(
      `${S}BooleanType`, `${S}FixedType`, `${S}StringType`, `${S}BytesType`, `${S}NumberType`,
      `${S}DateType`, `${S}TimeType`, `${S}EnumType`, `${S}NullType`, `${S}RecordType`,
    ),
    [`${S}MapType`]: record({}, {keyType: str, valueType: str}),
    [`${S}ArrayType`]: record({}, {nestedType: arrayOf(str)}),
    [`${S}UnionType`]: record({}, {nestedTypes: arrayOf(str)}),
  }),
})

export const schemaField = record(
  {fieldPath: str, type: fieldType, nativeDataType: str},
  {
    jsonPath: str,
    nullable: bool,
    description: str,
    label: str,
    created: auditStamp,
    lastModified: auditStamp,
    recursive: bool,
    globalTags,
    glossaryTerms,
    isPartOfKey: bool,
    isPartitioningKey: bool,
    jsonProps: str,
  },
)

const foreignKeySpec = record({
  foreignKey: union({
    [`${S}DatasetFieldForeignKey`]: record({parentDataset: urn, currentFieldPaths: arrayOf(str), parentField: str}),
    [`${S}UrnForeignKey`]: record({currentFieldPath: str}),
  }),
})

/** Exported because schema assertions embed a whole SchemaMetadata. */
export const schemaMetadata = record(
  {schemaName: str, platform: urn, version: long, hash: str, platformSchema, fields: arrayOf(schemaField)},
  {
    ...changeAuditFields,
    dataset: urn,
    cluster: str,
    primaryKeys: arrayOf(str),
    foreignKeysSpecs: mapOf(foreignKeySpec),
    foreignKeys: arrayOf(record({name: str, foreignFields: arrayOf(urn), sourceFields: arrayOf(urn), foreignDataset: urn})),
  },
)

export const SCHEMA_ASPECTS: AspectSpec[] = [
  versioned('schemaMetadata', `${S}SchemaMetadata`, schemaMetadata),
  versioned('editableSchemaMetadata', `${S}EditableSchemaMetadata`, record(
    {editableSchemaFieldInfo: arrayOf(record({fieldPath: str}, {description: str, globalTags, glossaryTerms}))},
    changeAuditFields,
  )),
  versioned('inputFields', 'com.linkedin.common.InputFields', record({
    fields: arrayOf(record({schemaFieldUrn: urn}, {schemaField})),
  })),
]
