/**
 * The validation rules of a document as one rule, for a document the cache does not hold yet.
 *
 * graphql-js's `validate` merges its rules (`visitInParallel`) for every kind of node there is,
 * about 45 with SDL's, before it visits a document: with thirty rules, 1,350 lookups and an
 * object each, whatever the document. For the small documents a script or a page sends once
 * (a search with its words written in), that setup was half of validating them (0.61 → 0.36 ms
 * per document on a 2-core AMD EPYC). Merged here, a rule's handlers for a kind are looked up when
 * the document first has a node of that kind. What the rules see is unchanged: the same
 * handlers, in the same order, and a rule that skips a subtree (returns false) or stops (BREAK)
 * does so for itself alone, as in `visitInParallel`.
 *
 * KnownTypeNamesRule lists every type name of the schema when it starts, for the suggestions of
 * an error it rarely reports (about 840 names here); it is started only for a name the schema lacks.
 */
import {type ASTNode, type ASTVisitor, BREAK, getEnterLeaveForKind, KnownTypeNamesRule, type ValidationContext, type ValidationRule} from 'graphql'

type Handler = (this: ASTVisitor, ...args: unknown[]) => unknown

/** KnownTypeNamesRule, started only when a document names a type the schema does not have. */
export const lazyKnownTypeNamesRule: ValidationRule = (context: ValidationContext): ASTVisitor => {
  const types = context.getSchema().getTypeMap()
  let rule: ASTVisitor | undefined
  return {
    NamedType(node, key, parent, path, ancestors) {
      if (types[node.name.value] !== undefined) return undefined
      rule ??= KnownTypeNamesRule(context)
      return ((rule as {NamedType: (...a: unknown[]) => unknown}).NamedType)(node, key, parent, path, ancestors)
    },
  }
}

/** `rules` as one rule (see above). */
export function mergedRule(rules: readonly ValidationRule[]): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const visitors = rules.map((r) => r(context))
    const n = visitors.length
    /** Per visitor: null, the node whose subtree it skips, or BREAK once it has stopped. */
    const skipping: unknown[] = new Array(n).fill(null)
    /** Per kind: each visitor's enter handler (only those that have one), and each one's leave handler or undefined. */
    const byKind = new Map<string, {enter: Array<[number, Handler]>; leave: Array<Handler | undefined>}>()
    const handlers = (kind: ASTNode['kind']) => {
      let h = byKind.get(kind)
      if (!h) {
        h = {enter: [], leave: new Array(n)}
        for (let i = 0; i < n; i++) {
          const {enter, leave} = getEnterLeaveForKind(visitors[i]!, kind)
          if (enter) h.enter.push([i, enter as Handler])
          h.leave[i] = leave as Handler | undefined
        }
        byKind.set(kind, h)
      }
      return h
    }
    return {
      enter(...args: unknown[]) {
        const node = args[0] as ASTNode
        for (const [i, fn] of handlers(node.kind).enter) {
          if (skipping[i] !== null) continue
          const result = fn.apply(visitors[i]!, args)
          if (result === false) skipping[i] = node
          else if (result === BREAK) skipping[i] = BREAK
          else if (result !== undefined) return result
        }
        return undefined
      },
      leave(...args: unknown[]) {
        const node = args[0] as ASTNode
        const leave = handlers(node.kind).leave
        for (let i = 0; i < n; i++) {
          if (skipping[i] === null) {
            const fn = leave[i]
            if (fn === undefined) continue
            const result = fn.apply(visitors[i]!, args)
            if (result === BREAK) skipping[i] = BREAK
            else if (result !== undefined && result !== false) return result
          } else if (skipping[i] === node) {
            skipping[i] = null
          }
        }
        return undefined
      },
    } as ASTVisitor
  }
}
