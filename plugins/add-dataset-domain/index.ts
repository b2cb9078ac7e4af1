/**
 * Transformers `simple_add_dataset_domain` (`domains`) and `pattern_add_dataset_domain`
 * (`domain_pattern.rules`: urn regex → domains): add domains to datasets. A domain is an
 * `urn:li:domain:` urn or a bare id (`marketing` → `urn:li:domain:marketing`).
 */
import {listEdit, transformerPair} from '../../src/sdk/index.js'

export const {simple, pattern} = transformerPair<string>({
  edit: listEdit('domains', 'domains', (d) => d),
  description: 'Adds domains to datasets',
  simpleKey: 'domains',
  patternKey: 'domain_pattern',
  itemSchema: {type: 'string', minLength: 1},
  toAdditions: (ds) => ds.map((d) => (d.startsWith('urn:li:domain:') ? d : `urn:li:domain:${d}`)),
})
