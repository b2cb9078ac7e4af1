/**
 * Transformers `simple_add_dataset_terms` (`term_urns`) and `pattern_add_dataset_terms`
 * (`term_pattern.rules`: urn regex → glossary term urns): add glossary terms to datasets.
 */
import {listEdit, transformerPair} from '../../src/sdk/index.js'

interface Term {
  urn: string
  context?: string
}

export const {simple, pattern} = transformerPair<Term>({
  // glossaryTerms requires an audit stamp; DataHub's transformers stamp the REST emitter.
  edit: listEdit('glossaryTerms', 'terms', (t) => t.urn, {field: 'auditStamp', actor: 'urn:li:corpuser:restEmitter'}),
  description: 'Adds glossary terms to datasets',
  simpleKey: 'term_urns',
  patternKey: 'term_pattern',
  itemSchema: {type: 'string', pattern: '^urn:li:glossaryTerm:'},
  toAdditions: (urns) => urns.map((urn) => ({urn})),
})
