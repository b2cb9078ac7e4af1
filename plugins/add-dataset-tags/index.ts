/**
 * Transformers `simple_add_dataset_tags` (`tag_urns`) and `pattern_add_dataset_tags`
 * (`tag_pattern.rules`: urn regex → tag urns): add tags to datasets' globalTags.
 */
import {transformerPair, type AspectEdit} from '../../src/sdk/index.js'

interface Tag {
  tag: string
  context?: string
}

const edit: AspectEdit<Tag> = {
  aspectName: 'globalTags',
  items: (v) => (v?.tags ?? []) as Tag[],
  key: (t) => t.tag,
  build: (base, tags) => ({...(base ?? {}), tags}),
}

const pair = transformerPair<Tag>({
  edit,
  description: 'Adds tags to datasets',
  simpleKey: 'tag_urns',
  patternKey: 'tag_pattern',
  itemSchema: {type: 'string', pattern: '^urn:li:tag:'},
  toAdditions: (urns) => urns.map((tag) => ({tag})),
})

export const simple = pair.simple
export const pattern = pair.pattern
