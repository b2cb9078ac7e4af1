/**
 * Aspect value validation: one ajv instance, each aspect's schema compiled on first use and
 * kept, so a command that touches two aspects compiles two schemas, not two hundred.
 */
import {Ajv, type ErrorObject, type ValidateFunction} from 'ajv'
import {InvalidAspectError, UnknownAspectError} from '../errors.js'
import {ASPECT_SPECS} from './aspects/index.js'

// The schemas are ours and checked against JSON Schema's meta-schema by the test suite
// (test/model/aspects.test.ts); checking them again at run time cost every start ~35 ms.
const ajv = new Ajv({allErrors: true, strict: false, allowUnionTypes: true, validateSchema: false})
const compiled = new Map<string, ValidateFunction>()

function validatorFor(aspectName: string): ValidateFunction {
  let v = compiled.get(aspectName)
  if (!v) {
    const spec = ASPECT_SPECS[aspectName]
    if (!spec) throw new UnknownAspectError(`Unknown aspect ${aspectName}`)
    v = ajv.compile(spec.schema)
    compiled.set(aspectName, v)
  }
  return v
}

/** One human-readable line per schema violation, each naming the JSON path. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  if (!errors) return []
  return errors.map((e) => {
    const at = e.instancePath === '' ? '(root)' : e.instancePath
    switch (e.keyword) {
      case 'required':
        return `${at}: missing required field '${(e.params as {missingProperty: string}).missingProperty}'`
      case 'additionalProperties':
        return `${at}: unknown field '${(e.params as {additionalProperty: string}).additionalProperty}'`
      case 'enum':
        return `${at}: must be one of ${((e.params as {allowedValues: unknown[]}).allowedValues).map(String).join(', ')}`
      default:
        return `${at}: ${e.message ?? 'is invalid'}`
    }
  })
}

/** Validates an aspect value; throws InvalidAspectError listing every violation. */
export function validateAspect(aspectName: string, value: unknown): void {
  const v = validatorFor(aspectName)
  if (!v(value)) {
    const problems = describeErrors(v.errors)
    throw new InvalidAspectError(`Aspect ${aspectName} does not match its schema: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? ` (and ${problems.length - 5} more)` : ''}`, problems)
  }
}

/** Non-throwing form: the list of problems, empty when valid. */
export function aspectProblems(aspectName: string, value: unknown): string[] {
  const v = validatorFor(aspectName)
  return v(value) ? [] : describeErrors(v.errors)
}
