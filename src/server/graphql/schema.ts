/**
 * Builds the executable schema: the SDL files beside this module (the readable contract), plus
 * resolvers attached field by field. Building fails at startup — not at the first request — if
 * an entity type has a field without a resolver or a resolver names a field the SDL lacks.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {
  buildSchema, GraphQLError, GraphQLInterfaceType, GraphQLObjectType, GraphQLScalarType, type GraphQLSchema, GraphQLUnionType, Kind, print,
  type ValueNode,
} from 'graphql'
import {COMMON_FIELDS, entityTypeName, GQL_TYPE_NAME, QUERY_FIELDS, type Resolver, TYPE_FIELDS} from './entities.js'
import {MUTATION_FIELDS} from './mutations.js'
import {VERSIONED_QUERY_FIELDS, versionedDatasetFields} from './versioned.js'
import {SEARCH_QUERY_FIELDS} from './search.js'
import {ACCESS_MUTATION_FIELDS, ACCESS_QUERY_FIELDS, ACCESS_TYPE_FIELDS} from './access.js'
import {RECENT_QUERY_FIELDS} from './recent.js'
import {MANAGE_MUTATION_FIELDS, MANAGE_QUERY_FIELDS} from './manage.js'
import {fineGrainedField, LINEAGE_MUTATION_FIELDS, LINEAGE_QUERY_FIELDS, lineageField} from './lineage.js'
import {COMPAT_QUERY_FIELDS, COMPAT_TYPE_FIELDS} from './compat.js'
import {relationshipsField} from './relationships.js'
import {siblingsSearchField} from './search-relations.js'
import {BROWSE_QUERY_FIELDS, browsePathV2Field} from './browse.js'
import {GLOSSARY_ROOT_QUERY_FIELDS} from './glossary-roots.js'
import type {Ent} from './context.js'
import {MORE_QUERY_FIELDS, MORE_TYPE_FIELDS, wireMore} from './entities-more.js'
import {APP_QUERY_FIELDS, entityPrivilegesField} from './app.js'
import {LIST_QUERY_FIELDS} from './lists.js'
import {AUTH_MUTATION_FIELDS, AUTH_QUERY_FIELDS} from './auth.js'
import {ASSET_TYPE_FIELDS} from './asset-fields.js'
import {attachMarked, isMarked, withoutMarkers} from './empty.js'

const SDL_DIR = fileURLToPath(new URL('.', import.meta.url))

/** Every `.graphql` file of this folder, in name order (the build copies them into dist). */
export function loadTypeDefs(dir = SDL_DIR): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
  if (files.length === 0) throw new Error(`No .graphql schema files in ${dir}; was the build's copy-assets step run?`)
  return files.map((f) => readFileSync(`${dir}/${f}`, 'utf8')).join('\n')
}

function toLong(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v
  if (typeof v === 'string' && /^-?\d+$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v)
  return undefined
}

/** Epoch milliseconds and versions: whole numbers within JavaScript's safe integer range. */
function defineLong(t: GraphQLScalarType): void {
  t.serialize = (v: unknown) => {
    const n = toLong(v)
    if (n === undefined) throw new GraphQLError(`Long cannot represent ${JSON.stringify(v)}`)
    return n
  }
  t.parseValue = (v: unknown) => {
    const n = toLong(v)
    if (n === undefined) throw new GraphQLError(`Long cannot represent a non-integer value: ${JSON.stringify(v)}`)
    return n
  }
  t.parseLiteral = (ast: ValueNode) => {
    const n = ast.kind === Kind.INT || ast.kind === Kind.STRING ? toLong(ast.value) : undefined
    if (n === undefined) throw new GraphQLError(`Long cannot represent a non-integer value: ${print(ast)}`, {nodes: ast})
    return n
  }
}

function attach(schema: GraphQLSchema, typeName: string, resolvers: Record<string, Resolver>, fallback?: Record<string, Resolver>): void {
  const type = schema.getType(typeName)
  if (!(type instanceof GraphQLObjectType)) throw new Error(`Schema has no object type ${typeName}`)
  const fields = type.getFields()
  for (const name of Object.keys(resolvers)) if (!fields[name]) throw new Error(`Resolver for ${typeName}.${name}, which the schema does not declare`)
  for (const [name, field] of Object.entries(fields)) {
    if (isMarked(schema, field)) {
      // @empty and @switchedOff fields are attached from the SDL (attachMarked).
      if (resolvers[name]) throw new Error(`${typeName}.${name} is marked in the SDL and has a resolver too`)
      continue
    }
    const r = resolvers[name] ?? fallback?.[name]
    if (!r) throw new Error(`No resolver for ${typeName}.${name}`)
    field.resolve = r
  }
}

export function buildCatalogSchema(typeDefs = loadTypeDefs()): GraphQLSchema {
  const schema = buildSchema(typeDefs)
  defineLong(schema.getType('Long') as GraphQLScalarType)
  attach(schema, 'Query', {...QUERY_FIELDS, ...(SEARCH_QUERY_FIELDS as unknown as Record<string, Resolver>), ...ACCESS_QUERY_FIELDS, ...LINEAGE_QUERY_FIELDS, ...COMPAT_QUERY_FIELDS, ...RECENT_QUERY_FIELDS, ...MORE_QUERY_FIELDS, ...BROWSE_QUERY_FIELDS, ...GLOSSARY_ROOT_QUERY_FIELDS, ...APP_QUERY_FIELDS, ...LIST_QUERY_FIELDS, ...VERSIONED_QUERY_FIELDS, ...AUTH_QUERY_FIELDS, ...MANAGE_QUERY_FIELDS})
  attach(schema, 'Mutation', {...MUTATION_FIELDS, ...ACCESS_MUTATION_FIELDS, ...LINEAGE_MUTATION_FIELDS, ...MANAGE_MUTATION_FIELDS, ...AUTH_MUTATION_FIELDS})
  for (const gql of Object.values(GQL_TYPE_NAME)) attach(schema, gql, {...TYPE_FIELDS[gql], ...COMPAT_TYPE_FIELDS[gql], ...MORE_TYPE_FIELDS[gql], ...ACCESS_TYPE_FIELDS[gql], ...ASSET_TYPE_FIELDS[gql]}, {...COMMON_FIELDS, lineage: lineageField, fineGrainedLineages: fineGrainedField, relationships: relationshipsField, browsePathV2: browsePathV2Field, privileges: entityPrivilegesField, siblingsSearch: siblingsSearchField})
  attach(schema, 'VersionedDataset', {...versionedDatasetFields(), relationships: relationshipsField})
  for (const name of ['Entity', 'BrowsableEntity', 'EntityWithRelationships']) (schema.getType(name) as GraphQLInterfaceType).resolveType = entityTypeName
  for (const name of ['OwnerType', 'ResolvedActor']) (schema.getType(name) as GraphQLUnionType).resolveType = (v: Ent) => (v.entityType === 'corpGroup' ? 'CorpGroup' : 'CorpUser')
  ;(schema.getType('PlatformSchema') as GraphQLUnionType).resolveType = (v: {__typename: string}) => v.__typename
  wireMore(schema)
  attachMarked(schema)
  return withoutMarkers(schema)
}
