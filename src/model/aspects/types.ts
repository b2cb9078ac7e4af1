/** A JSON Schema object (draft-07 subset as understood by ajv). */
export type JsonSchema = Record<string, unknown>

export interface AspectSpec {
  /** Aspect name as on the wire: `ownership`, `datasetProperties`. */
  name: string
  kind: 'versioned' | 'timeseries'
  /** Fully-qualified Pegasus record name, e.g. `com.linkedin.common.Ownership`. MCE files use the
   * same name with `com.linkedin.pegasus2avro.` in place of `com.linkedin.`. */
  pdlClass: string
  /** JSON Schema of the aspect's value in Pegasus JSON form (no nulls, unions keyed by FQN). */
  schema: JsonSchema
}
