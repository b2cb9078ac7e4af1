/**
 * Executes validated documents through graphql-jit, which compiles an operation once into a
 * plain function; graphql-js's interpreter costs about three times as much per request, and
 * clients send the same few documents again and again (perf-baseline §4).
 *
 * graphql-js stays the reference: where graphql-jit's answer would differ from it, this falls
 * back to graphql-js, so clients see one behaviour.
 * - A document graphql-jit cannot compile (an unknown operation name, …) executes through
 *   graphql-js, which words the error.
 * - Variables that do not coerce: graphql-jit refuses them before executing, with its own
 *   wording; the request is re-run through graphql-js for graphql-js's messages. This costs
 *   nothing on the hot path, since such a request writes nothing and reads nothing.
 *
 * Compiling is not free: graphql-jit writes code for every field once fragments are expanded where
 * they are spread, and compiling blocks the event loop for about a millisecond per field
 * (DataHub's web app's entity documents expand to 20,000–65,000 fields: a minute of a loaded
 * core each, for one request). So a document is compiled only when it has come back (its second
 * execution: one-off documents never pay for it) and only when it expands to at most
 * JIT_MAX_COST fields; larger ones always run through graphql-js, whose cost follows the data
 * answered rather than the document.
 */
import {type DocumentNode, execute, type ExecutionArgs, type ExecutionResult, type GraphQLSchema} from 'graphql'
import {compileQuery, type CompiledQuery, isCompiledQuery} from 'graphql-jit'

import {operationCost} from './limits.js'

/** The most fields (fragments expanded) of a document worth compiling; see above. */
export const JIT_MAX_COST = 2_000
/** The execution of a document that compiles it; the ones before run through graphql-js. */
export const JIT_AT_EXECUTION = 2

/** A number: executions so far (not yet compiled); null: graphql-js for good; else compiled. */
type Compiled = CompiledQuery | null | number

export class CompiledExecutor {
  /** Per document (already cached by text upstream), per operation name: the compiled operation. */
  private readonly compiled = new WeakMap<DocumentNode, Map<string, Compiled>>()

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly maxCost = JIT_MAX_COST,
    private readonly atExecution = JIT_AT_EXECUTION,
  ) {}

  execute(args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
    const query = this.compile(args.document, args.operationName ?? undefined)
    if (!query) return execute(args)
    const result = query.query(args.rootValue, args.contextValue, args.variableValues ?? {})
    // Only a refusal before execution has neither data nor paths: re-running it cannot write twice.
    const settle = (r: ExecutionResult) => (r.errors && r.data === undefined && r.errors.every((e) => e.path === undefined) ? execute(args) : r)
    return isPromise(result) ? result.then(settle) : settle(result)
  }

  private compile(document: DocumentNode, operationName: string | undefined): CompiledQuery | null {
    let byName = this.compiled.get(document)
    if (!byName) this.compiled.set(document, (byName = new Map()))
    const key = operationName ?? ''
    const stored = byName.get(key)
    let q: Compiled = stored === undefined ? 0 : stored
    if (typeof q === 'number') {
      if (q + 1 < this.atExecution) {
        byName.set(key, q + 1)
        return null
      }
      if (operationCost(document, operationName) > this.maxCost) q = null
      else {
        const c = compileQuery(this.schema, document, operationName)
        q = isCompiledQuery(c) ? c : null
      }
      byName.set(key, q)
    }
    return q as CompiledQuery | null
  }
}

export function isPromise<T>(x: T | Promise<T>): x is Promise<T> {
  return typeof (x as {then?: unknown})?.then === 'function'
}
