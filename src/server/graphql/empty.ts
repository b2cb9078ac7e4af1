/**
 * DataHub's empty value of a field, for the fields our SDL marks `@empty` (data mdcli does not
 * hold), and the refusal of mutations marked `@switchedOff` (features mdcli lite does not run).
 * Both are attached when the schema is built, from the SDL, so the SDL stays the one place that
 * says which fields answer nothing.
 */
import {
  getNullableType, type GraphQLField, GraphQLSchema, isEnumType, isListType, isNonNullType, isObjectType, isScalarType, type GraphQLOutputType, getDirectiveValues, type GraphQLDirective,
} from 'graphql'
import {BadRequestError} from '../../errors.js'
import {Ent} from './context.js'
import type {Resolver} from './entities.js'

const MARKERS = ['empty', 'switchedOff']

/**
 * The value a field answers when there is nothing: null where nullable; else [] for a list,
 * false, 0, '' or the first enum value, or an object whose fields are empty in turn (a page of
 * results with total 0). `depth` stops a cycle of non-null object fields.
 */
export function emptyValue(type: GraphQLOutputType, depth = 0): unknown {
  if (!isNonNullType(type)) return null
  const t = getNullableType(type)
  if (isListType(t)) return []
  if (isScalarType(t)) {
    if (t.name === 'Boolean') return false
    if (t.name === 'Int' || t.name === 'Float' || t.name === 'Long') return 0
    return ''
  }
  if (isEnumType(t)) return t.getValues()[0]?.value ?? null
  if (isObjectType(t) && depth < 8) {
    const out: Record<string, unknown> = {__typename: t.name}
    for (const [name, f] of Object.entries(t.getFields())) out[name] = emptyValue(f.type, depth + 1)
    return out
  }
  return null
}

function marker(schema: GraphQLSchema, field: GraphQLField<unknown, unknown>, name: string): Record<string, unknown> | undefined {
  const directive = schema.getDirective(name) as GraphQLDirective
  return field.astNode ? getDirectiveValues(directive, field.astNode) : undefined
}

/** Whether a field is marked `@empty` or `@switchedOff` (it needs no resolver of its own). */
export function isMarked(schema: GraphQLSchema, field: GraphQLField<unknown, unknown>): boolean {
  return MARKERS.some((m) => marker(schema, field, m) !== undefined)
}

function emptyResolver(field: GraphQLField<unknown, unknown>): Resolver {
  const empty = emptyValue(field.type)
  const name = field.name
  // A plain object may carry the value (a mapper that knows it); an entity never does here.
  return (src: unknown) => {
    if (src && typeof src === 'object' && !(src instanceof Ent)) {
      const own = (src as Record<string, unknown>)[name]
      if (own !== undefined && own !== null) return own
    }
    return empty
  }
}

/** Attaches the marked fields' resolvers, on every object type. */
export function attachMarked(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue
    for (const field of Object.values(type.getFields())) {
      const off = marker(schema, field, 'switchedOff')
      if (off) {
        const feature = String(off.feature)
        field.resolve = () => {
          throw new BadRequestError(`${field.name} is switched off on mdcli lite (${feature}); nothing was changed`)
        }
      } else if (marker(schema, field, 'empty')) field.resolve = emptyResolver(field) as GraphQLField<unknown, unknown>['resolve']
    }
  }
}

/** The schema without our markers, so introspection shows DataHub's directives only. */
export function withoutMarkers(schema: GraphQLSchema): GraphQLSchema {
  const config = schema.toConfig()
  return new GraphQLSchema({...config, directives: config.directives.filter((d) => !MARKERS.includes(d.name))})
}
