/**
 * Plugin configs written once: the JSON Schema a recipe is checked against is also where the
 * config's TypeScript type comes from, so the two cannot drift apart.
 *
 *   const CONFIG = configSchema({type: 'object', properties: {path: {type: 'string'}}, required: ['path']})
 *   type MyConfig = ConfigOf<typeof CONFIG>   // {path: string; [k: string]: unknown}
 *
 * A key with a `default` is typed as present: the validator fills defaults in before `create`.
 */
import type {FromSchema, JSONSchema} from 'json-schema-to-ts'

export type {JSONSchema} from 'json-schema-to-ts'

/** The config type a schema describes, as `create` receives it (defaults filled). */
export type ConfigOf<S extends JSONSchema> = FromSchema<S>

/** Marks a literal as a config schema, keeping its exact shape for `ConfigOf`. */
export function configSchema<const S extends JSONSchema>(schema: S): S {
  return schema
}
