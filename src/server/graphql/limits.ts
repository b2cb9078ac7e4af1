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
import {GraphQLError, Kind, type DocumentNode, type SelectionSetNode, type ValidationRule} from 'graphql'

export const DEFAULT_MAX_DEPTH = 15
export const DEFAULT_MAX_DOCUMENT_BYTES = 64 * 1024
/** Bounds the parser's work; the standard introspection query has about 300 tokens. */
export const DEFAULT_MAX_TOKENS = 5_000
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
