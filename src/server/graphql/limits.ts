/**
 * Protections that refuse a pathological document before it executes, and the cache that makes
 * well-behaved documents cheap.
 *
 * Glossary:
 * - depth: the number of nested selection sets of an operation, through fragments
 *   (`{ dataset { ownership { owners { owner { … } } } } }` is 5 deep at `owner`'s fields).
 * - document cache: parsed and validated documents by query text, least recently used first
 *   out. Validation is two thirds of a request's cost (perf-baseline §4), and clients send the
 *   same few query texts with different variables, so most requests skip parse and validate.
 */
import {type DocumentNode, type FragmentDefinitionNode, GraphQLError, Kind, type OperationDefinitionNode, type SelectionSetNode, type ValidationRule} from 'graphql'

/**
 * DataHub's web app nests its documents up to 22 selection sets deep (a dataset's lineage); 30
 * leaves room for its next versions while the cost limit below bounds what depth can cost.
 */
export const DEFAULT_MAX_DEPTH = 30
/** Bytes of a query text; DataHub's largest documents are about 40 KB once Apollo adds __typename. */
export const DEFAULT_MAX_DOCUMENT_BYTES = 256 * 1024
/**
 * Bounds the parser's work: graphql-java's default, which DataHub's server keeps. DataHub's web
 * app sends up to about 5,700 tokens (its search document, with Apollo's __typename fields).
 */
export const DEFAULT_MAX_TOKENS = 15_000
/**
 * The fields an operation selects once its fragments are expanded where they are spread: what
 * executing it can cost per result object. DataHub's web app's largest document selects about 580,000 (its
 * lineage query spreads the same entity fragments under every type it may meet); a document that
 * spreads fragments into fragments over and over (a "fragment bomb": a few hundred bytes that
 * expand to billions of fields) is refused here before it runs, and measuring it stops at the limit.
 */
export const DEFAULT_MAX_COST = 2_000_000
export const DEFAULT_DOCUMENT_CACHE_SIZE = 1_000

/** Refuses operations nested deeper than `max` selection sets. */
export function depthLimitRule(max: number): ValidationRule {
  return (context) => {
    const fragmentDepth = new Map<string, number>()
    const depthOf = (set: SelectionSetNode, visiting: Set<string>): number => {
      let depth = 0
      for (const s of set.selections) {
        let d = 0
        if (s.kind === Kind.FIELD) d = s.selectionSet ? 1 + depthOf(s.selectionSet, visiting) : 1
        else if (s.kind === Kind.INLINE_FRAGMENT) d = depthOf(s.selectionSet, visiting)
        else {
          const name = s.name.value
          // A fragment cycle is reported by graphql's own NoFragmentCycles rule.
          if (visiting.has(name)) continue
          let fd = fragmentDepth.get(name)
          if (fd === undefined) {
            const frag = context.getFragment(name)
            if (!frag) continue
            visiting.add(name)
            fd = depthOf(frag.selectionSet, visiting)
            visiting.delete(name)
            // Remembered per fragment: a fragment spread many times is measured once.
            fragmentDepth.set(name, fd)
          }
          d = fd
        }
        if (d > depth) depth = d
        if (depth > max) return depth
      }
      return depth
    }
    return {
      OperationDefinition(node) {
        if (depthOf(node.selectionSet, new Set()) > max) {
          const op = node.name ? ` ${node.name.value}` : ''
          context.reportError(new GraphQLError(`Operation${op} is nested deeper than the limit of ${max} levels; select fewer nested fields`, {nodes: [node]}))
        }
      },
    }
  }
}

/**
 * The fields `set` selects once its fragments are expanded where they are spread (see
 * DEFAULT_MAX_COST); past `max` it stops counting and answers a figure above `max`. Each fragment is
 * measured once (in `memo`), so measuring a document costs its size, not its expansion.
 */
export function selectionCost(
  set: SelectionSetNode,
  fragment: (name: string) => FragmentDefinitionNode | null | undefined,
  max = Number.MAX_SAFE_INTEGER,
  memo = new Map<string, number>(),
  visiting = new Set<string>(),
): number {
  let cost = 0
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) cost += 1 + (s.selectionSet ? selectionCost(s.selectionSet, fragment, max, memo, visiting) : 0)
    else if (s.kind === Kind.INLINE_FRAGMENT) cost += selectionCost(s.selectionSet, fragment, max, memo, visiting)
    else {
      const name = s.name.value
      // A fragment cycle is reported by graphql's own NoFragmentCycles rule.
      if (visiting.has(name)) continue
      let fc = memo.get(name)
      if (fc === undefined) {
        const frag = fragment(name)
        if (!frag) continue
        visiting.add(name)
        fc = selectionCost(frag.selectionSet, fragment, max, memo, visiting)
        visiting.delete(name)
        memo.set(name, fc)
      }
      cost += fc
    }
    // Past the limit the exact figure does not matter (and must not overflow).
    if (cost > max) return cost
  }
  return cost
}

/** The cost (see DEFAULT_MAX_COST) of a validated document's operation `operationName` (or its only one). */
export function operationCost(document: DocumentNode, operationName?: string | null): number {
  const fragments = new Map<string, FragmentDefinitionNode>()
  let operation: OperationDefinitionNode | undefined
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d)
    else if (d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName)) operation ??= d
  }
  return operation ? selectionCost(operation.selectionSet, (n) => fragments.get(n)) : 0
}

/** Refuses operations whose fields, fragments expanded, number more than `max` (see DEFAULT_MAX_COST). */
export function costLimitRule(max: number): ValidationRule {
  return (context) => {
    const memo = new Map<string, number>()
    return {
      OperationDefinition(node) {
        if (selectionCost(node.selectionSet, (n) => context.getFragment(n), max, memo) > max) {
          const op = node.name ? ` ${node.name.value}` : ''
          context.reportError(new GraphQLError(`Operation${op} selects more than ${max} fields once its fragments are expanded, the limit; select fewer fields or spread fragments less often`, {nodes: [node]}))
        }
      },
    }
  }
}

/**
 * Refuses `__proto__` as a response key (an alias, or a field named so): assigned to the result
 * object it sets the prototype instead of a key, and the field silently goes missing.
 */
export const protoKeyRule: ValidationRule = (context) => ({
  Field(node) {
    const key = node.alias?.value ?? node.name.value
    if (key === '__proto__') context.reportError(new GraphQLError('"__proto__" cannot be a response key; choose another alias', {nodes: [node]}))
  },
})

export type CachedDocument = {document: DocumentNode} | {errors: readonly GraphQLError[]}

/** A bounded LRU of parse+validate outcomes by query text (failures too: they are as costly). */
export class DocumentCache {
  private readonly entries = new Map<string, {query: string; entry: CachedDocument}>()

  constructor(readonly capacity = DEFAULT_DOCUMENT_CACHE_SIZE) {}

  get(query: string): CachedDocument | undefined {
    const e = this.entries.get(query)
    if (e) {
      // Re-insert under the key the entry was stored with: Map iteration order is insertion
      // order, so the first key is the least recent. Keying by this request's own copy of the
      // text would pin a young string from the long-lived map and promote it on every request.
      this.entries.delete(query)
      this.entries.set(e.query, e)
    }
    return e?.entry
  }

  set(query: string, entry: CachedDocument): void {
    this.entries.set(query, {query, entry})
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!)
  }

  get size(): number {
    return this.entries.size
  }
}
