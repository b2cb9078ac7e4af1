/**
 * Transformers `simple_add_dataset_terms` (`term_urns`) and `pattern_add_dataset_terms`
 * (`term_pattern.rules`: urn regex → glossary term urns): add glossary terms to datasets.
 */
import {transformerPair, type AspectEdit} from '../../src/sdk/index.js'

interface Term {
  urn: string
  context?: string
}

const edit: AspectEdit<Term> = {
  aspectName: 'glossaryTerms',
  items: (v) => (v?.terms ?? []) as Term[],
  key: (t) => t.urn,
  // glossaryTerms requires an audit stamp; DataHub's transformers stamp the REST emitter.
  build: (base, terms, ctx) => ({...(base ?? {}), terms, auditStamp: base?.auditStamp ?? {time: ctx.now(), actor: 'urn:li:corpuser:restEmitter'}}),
}

const pair = transformerPair<Term>({
  edit,
  description: 'Adds glossary terms to datasets',
  simpleKey: 'term_urns',
  patternKey: 'term_pattern',
  itemSchema: {type: 'string', pattern: '^urn:li:glossaryTerm:'},
  toAdditions: (urns) => urns.map((urn) => ({urn})),
})

export const simple = pair.simple
export const pattern = pair.pattern
