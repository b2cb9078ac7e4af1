/**
 * `com.linkedin.glossary` terms and nodes, plus tags (`com.linkedin.tag`): the vocabulary that
 * other aspects reference through globalTags and glossaryTerms.
 */
import {arrayOf, customProperties, record, str, url, urn, versioned} from './common.js'
import type {AspectSpec} from './types.js'

const G = 'com.linkedin.glossary.'

export const GLOSSARY_ASPECTS: AspectSpec[] = [
  versioned('glossaryTermInfo', `${G}GlossaryTermInfo`, record(
    // termSource is a free string by PDL, in practice INTERNAL or EXTERNAL.
    {definition: str, termSource: str},
    {...customProperties, id: str, name: str, parentNode: urn, sourceRef: str, sourceUrl: url, rawSchema: str},
  )),
  versioned('glossaryNodeInfo', `${G}GlossaryNodeInfo`, record(
    {definition: str},
    {...customProperties, parentNode: urn, name: str, id: str},
  )),
  versioned('glossaryRelatedTerms', `${G}GlossaryRelatedTerms`, record({}, {
    isRelatedTerms: arrayOf(urn),
    hasRelatedTerms: arrayOf(urn),
    values: arrayOf(urn),
    relatedTerms: arrayOf(urn),
  })),
  versioned('tagProperties', 'com.linkedin.tag.TagProperties', record({name: str}, {description: str, colorHex: str})),
]
