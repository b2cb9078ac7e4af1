/**
 * Transformers `simple_add_dataset_domain` (`domains`) and `pattern_add_dataset_domain`
 * (`domain_pattern.rules`: urn regex → domains): add domains to datasets. A domain is an
 * `urn:li:domain:` urn or a bare id (`marketing` → `urn:li:domain:marketing`).
 */
import {transformerPair, type AspectEdit} from '../../src/sdk/index.js'

const edit: AspectEdit<string> = {
  aspectName: 'domains',
  items: (v) => (v?.domains ?? []) as string[],
  key: (d) => d,
  build: (base, domains) => ({...(base ?? {}), domains}),
}

const pair = transformerPair<string>({
  edit,
  description: 'Adds domains to datasets',
  simpleKey: 'domains',
  patternKey: 'domain_pattern',
  itemSchema: {type: 'string', minLength: 1},
  toAdditions: (ds) => ds.map((d) => (d.startsWith('urn:li:domain:') ? d : `urn:li:domain:${d}`)),
})

export const simple = pair.simple
export const pattern = pair.pattern
