/**
 * Smaller entities' own aspects: containers, domains, data platforms and their instances, posts
 * and saved queries.
 */
import {
  arrayOf, auditStamp, bool, customProperties, enumOf, mapOf, externalReference, fabricType, long, record, str, timeStamp,
  url, urn, versioned,
} from './common.js'
import type {AspectSpec} from './types.js'

export const MISC_ASPECTS: AspectSpec[] = [
  // DataHub's DataProductAssociation is an Edge plus an optional outputPort flag.
  versioned('dataProductProperties', 'com.linkedin.dataproduct.DataProductProperties', record({}, {
    ...customProperties,
    ...externalReference,
    name: str,
    description: str,
    assets: arrayOf(record({destinationUrn: urn}, {sourceUrn: urn, created: auditStamp, lastModified: auditStamp, properties: mapOf(str), outputPort: bool})),
  })),
  versioned('containerProperties', 'com.linkedin.container.ContainerProperties', record({name: str}, {
    ...customProperties,
    ...externalReference,
    qualifiedName: str,
    description: str,
    env: fabricType,
    created: timeStamp,
    lastModified: timeStamp,
  })),
  versioned('editableContainerProperties', 'com.linkedin.container.EditableContainerProperties', record({}, {description: str})),
  versioned('domainProperties', 'com.linkedin.domain.DomainProperties', record(
    {name: str},
    {description: str, created: auditStamp, parentDomain: urn},
  )),
  versioned('dataPlatformInfo', 'com.linkedin.dataplatform.DataPlatformInfo', record(
    {
      name: str,
      type: enumOf(
        'FILE_SYSTEM', 'KEY_VALUE_STORE', 'MESSAGE_BROKER', 'OBJECT_STORE', 'OLAP_DATASTORE', 'OTHERS',
        'QUERY_ENGINE', 'RELATIONAL_DB', 'SEARCH_ENGINE',
      ),
      datasetNameDelimiter: str,
    },
    {displayName: str, logoUrl: url},
  )),
  versioned('dataPlatformInstanceProperties', 'com.linkedin.dataplatforminstance.DataPlatformInstanceProperties', record({}, {
    ...customProperties,
    ...externalReference,
    name: str,
    description: str,
  })),
  // Which onboarding tours and announcements a user of DataHub's web app has seen.
  versioned('dataHubStepStateProperties', 'com.linkedin.step.DataHubStepStateProperties', record({properties: mapOf(str), lastModified: auditStamp})),
  versioned('postInfo', 'com.linkedin.post.PostInfo', record(
    {
      type: enumOf('HOME_PAGE_ANNOUNCEMENT', 'ENTITY_ANNOUNCEMENT'),
      content: record(
        {title: str, type: enumOf('TEXT', 'LINK')},
        {description: str, link: url, media: record({type: enumOf('IMAGE'), location: url})},
      ),
      created: long,
      lastModified: long,
    },
    {auditStamp, target: urn},
  )),
  versioned('queryProperties', 'com.linkedin.query.QueryProperties', record(
    {
      statement: record({value: str}, {language: enumOf('SQL', 'UNKNOWN')}),
      source: enumOf('MANUAL', 'SYSTEM'),
      created: auditStamp,
      lastModified: auditStamp,
    },
    {name: str, description: str, origin: urn, ...customProperties},
  )),
  versioned('querySubjects', 'com.linkedin.query.QuerySubjects', record({subjects: arrayOf(record({entity: urn}))})),
]
