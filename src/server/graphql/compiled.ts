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
 */
import {type DocumentNode, execute, type ExecutionArgs, type ExecutionResult, type GraphQLSchema} from 'graphql'
import {compileQuery, type CompiledQuery, isCompiledQuery} from 'graphql-jit'

type Compiled = CompiledQuery | null

export class CompiledExecutor {
  /** Per document (already cached by text upstream), per operation name: the compiled operation. */
  private readonly compiled = new WeakMap<DocumentNode, Map<string, Compiled>>()

  constructor(private readonly schema: GraphQLSchema) {}

  execute(args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
    const query = this.compile(args.document, args.operationName ?? undefined)
    if (!query) return execute(args)
    const result = query.query(args.rootValue, args.contextValue, args.variableValues ?? {})
    // Only a refusal before execution has neither data nor paths: re-running it cannot write twice.
    const settle = (r: ExecutionResult) => (r.errors && r.data === undefined && r.errors.every((e) => e.path === undefined) ? execute(args) : r)
    return isPromise(result) ? result.then(settle) : settle(result)
  }

  private compile(document: DocumentNode, operationName: string | undefined): Compiled {
    let byName = this.compiled.get(document)
    if (!byName) this.compiled.set(document, (byName = new Map()))
    const key = operationName ?? ''
    let q = byName.get(key)
    if (q === undefined) {
      const c = compileQuery(this.schema, document, operationName)
      q = isCompiledQuery(c) ? c : null
      byName.set(key, q)
    }
    return q
  }
}

function isPromise<T>(x: T | Promise<T>): x is Promise<T> {
  return typeof (x as {then?: unknown})?.then === 'function'
}
