/**
 * Transformers `simple_add_dataset_tags` (`tag_urns`) and `pattern_add_dataset_tags`
 * (`tag_pattern.rules`: urn regex → tag urns): add tags to datasets' globalTags. After the stream,
 * every tag added during the run gets its `tagKey`, as DataHub's AddDatasetTags does at the end of
 * the stream, so the tag exists as an entity (found by search, listed on the tags page).
 */
import {listEdit, mcp, transformerPair} from '../../src/sdk/index.js'

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
  endOfStream: (added) => added.map(({tag}) => mcp(tag, 'tagKey', {name: tag.slice('urn:li:tag:'.length)})),
})
