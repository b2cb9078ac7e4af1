/**
 * Transformers `simple_add_dataset_tags` (`tag_urns`) and `pattern_add_dataset_tags`
 * (`tag_pattern.rules`: urn regex → tag urns): add tags to datasets' globalTags.
 */
import {listEdit, transformerPair} from '../../src/sdk/index.js'

interface Tag {
  tag: string
  context?: string
}

export const {simple, pattern} = transformerPair<Tag>({
  edit: listEdit('globalTags', 'tags', (t) => t.tag),
  description: 'Adds tags to datasets',
  simpleKey: 'tag_urns',
  patternKey: 'tag_pattern',
  itemSchema: {type: 'string', pattern: '^urn:li:tag:'},
  toAdditions: (urns) => urns.map((tag) => ({tag})),
})
