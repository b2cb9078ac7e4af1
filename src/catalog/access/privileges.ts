/**
 * DataHub's privilege names (PoliciesConfig.java), grouped as its policies use them.
 * Platform privileges gate actions on the catalog as a whole (policies, tokens); metadata
 * privileges gate actions on one entity.
 */

export const PLATFORM_PRIVILEGES = [
  'MANAGE_POLICIES', 'MANAGE_INGESTION', 'MANAGE_SECRETS', 'MANAGE_USERS_AND_GROUPS', 'VIEW_ANALYTICS',
  'GENERATE_PERSONAL_ACCESS_TOKENS', 'MANAGE_ACCESS_TOKENS', 'MANAGE_DOMAINS', 'MANAGE_GLOBAL_ANNOUNCEMENTS',
  'MANAGE_TESTS', 'MANAGE_GLOSSARIES', 'MANAGE_USER_CREDENTIALS', 'MANAGE_TAGS', 'CREATE_TAGS', 'CREATE_DOMAINS',
  'MANAGE_GLOBAL_VIEWS', 'MANAGE_GLOBAL_OWNERSHIP_TYPES', 'GET_ANALYTICS_PRIVILEGE', 'CREATE_BUSINESS_ATTRIBUTE',
  'MANAGE_BUSINESS_ATTRIBUTE', 'RESTORE_INDICES_PRIVILEGE', 'APPLY_RETENTION_PRIVILEGE',
] as const

/** What a resource owner may do to what they own (DataHub's asset-owners policy). */
export const OWNER_PRIVILEGES = [
  'VIEW_ENTITY_PAGE', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_ENTITY_OWNERS', 'EDIT_ENTITY_DOCS',
  'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY_STATUS', 'EDIT_DOMAINS_PRIVILEGE', 'EDIT_ENTITY_DATA_PRODUCTS',
  'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY_ASSERTIONS', 'EDIT_ENTITY_INCIDENTS', 'EDIT_ENTITY',
  'EDIT_DATASET_COL_TAGS', 'EDIT_DATASET_COL_GLOSSARY_TERMS', 'EDIT_DATASET_COL_DESCRIPTION', 'VIEW_DATASET_USAGE',
  'VIEW_DATASET_PROFILE', 'EDIT_TAG_COLOR', 'EDIT_GROUP_MEMBERS', 'EDIT_USER_PROFILE', 'EDIT_CONTACT_INFO',
  'EDIT_LINEAGE', 'EDIT_ENTITY_QUERIES', 'GET_TIMELINE_PRIVILEGE', 'GET_ENTITY_PRIVILEGE',
  'GET_TIMESERIES_ASPECT_PRIVILEGE', 'GET_COUNTS_PRIVILEGE', 'EDIT_ENTITY_PROPERTIES',
] as const

export const VIEW_PRIVILEGES = [
  'VIEW_ENTITY_PAGE', 'SEARCH_PRIVILEGE', 'GET_COUNTS_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE',
  'GET_ENTITY_PRIVILEGE', 'GET_TIMELINE_PRIVILEGE', 'ES_EXPLAIN_QUERY_PRIVILEGE',
] as const

/** Everything an administrator may do to any entity. */
export const ADMIN_METADATA_PRIVILEGES = [...new Set<string>([...OWNER_PRIVILEGES, ...VIEW_PRIVILEGES, 'DELETE_ENTITY', 'CREATE_ENTITY', 'EXISTS_ENTITY', 'MANAGE_DATA_PRODUCTS', 'PRODUCE_PLATFORM_EVENT_PRIVILEGE', 'MANAGE_GLOSSARY_CHILDREN', 'MANAGE_ALL_GLOSSARY_CHILDREN', 'EDIT_ENTITY_OPERATIONS'])]

export const ALL_PRIVILEGES = new Set<string>([...PLATFORM_PRIVILEGES, ...ADMIN_METADATA_PRIVILEGES])

/**
 * The metadata privileges a policy may grant on each resource type (DataHub's
 * PoliciesConfig resource privileges), kept to those this catalog knows: what the policy
 * builder offers is what createPolicy accepts.
 */
const COMMON_RESOURCE_PRIVILEGES = [
  'VIEW_ENTITY_PAGE', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_ENTITY_OWNERS', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS',
  'EDIT_ENTITY_STATUS', 'EDIT_DOMAINS_PRIVILEGE', 'EDIT_ENTITY_DATA_PRODUCTS', 'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY', 'DELETE_ENTITY',
  'EDIT_ENTITY_PROPERTIES', 'EDIT_ENTITY_INCIDENTS', 'CREATE_ENTITY', 'EXISTS_ENTITY',
]

export const RESOURCE_PRIVILEGES: Record<string, string[]> = Object.fromEntries(
  Object.entries({
    dataset: [...COMMON_RESOURCE_PRIVILEGES, 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE', 'EDIT_DATASET_COL_DESCRIPTION', 'EDIT_DATASET_COL_TAGS', 'EDIT_DATASET_COL_GLOSSARY_TERMS', 'EDIT_ENTITY_ASSERTIONS', 'EDIT_LINEAGE', 'EDIT_ENTITY_QUERIES', 'EDIT_ENTITY_OPERATIONS'],
    chart: [...COMMON_RESOURCE_PRIVILEGES, 'EDIT_LINEAGE'],
    dashboard: [...COMMON_RESOURCE_PRIVILEGES, 'EDIT_LINEAGE'],
    dataFlow: COMMON_RESOURCE_PRIVILEGES,
    dataJob: [...COMMON_RESOURCE_PRIVILEGES, 'EDIT_LINEAGE'],
    container: COMMON_RESOURCE_PRIVILEGES,
    notebook: COMMON_RESOURCE_PRIVILEGES,
    tag: ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_OWNERS', 'EDIT_TAG_COLOR', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY', 'DELETE_ENTITY', 'CREATE_ENTITY', 'EXISTS_ENTITY'],
    domain: ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_OWNERS', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY', 'DELETE_ENTITY', 'MANAGE_DATA_PRODUCTS', 'EDIT_ENTITY_PROPERTIES', 'CREATE_ENTITY', 'EXISTS_ENTITY'],
    dataProduct: COMMON_RESOURCE_PRIVILEGES,
    glossaryTerm: ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_OWNERS', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS', 'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY', 'EDIT_ENTITY_PROPERTIES', 'DELETE_ENTITY', 'CREATE_ENTITY', 'EXISTS_ENTITY'],
    glossaryNode: ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_OWNERS', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS', 'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY', 'MANAGE_GLOSSARY_CHILDREN', 'MANAGE_ALL_GLOSSARY_CHILDREN', 'EDIT_ENTITY_PROPERTIES', 'DELETE_ENTITY', 'CREATE_ENTITY', 'EXISTS_ENTITY'],
    corpGroup: ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_OWNERS', 'EDIT_GROUP_MEMBERS', 'EDIT_CONTACT_INFO', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY', 'DELETE_ENTITY', 'CREATE_ENTITY', 'EXISTS_ENTITY'],
    corpuser: ['VIEW_ENTITY_PAGE', 'EDIT_CONTACT_INFO', 'EDIT_USER_PROFILE', 'EDIT_ENTITY', 'DELETE_ENTITY', 'CREATE_ENTITY', 'EXISTS_ENTITY'],
  }).map(([type, list]) => [type, list.filter((p) => ALL_PRIVILEGES.has(p))]),
)

/**
 * What the policy builder shows for each privilege: DataHub's display names and descriptions
 * (PoliciesConfig), so a policy reads the same here as on DataHub. Two of DataHub's descriptions
 * carry a warning besides the description; those are in our words.
 */
const PRIVILEGE_LABELS: Readonly<Record<string, readonly [displayName: string, description: string]>> = {
  MANAGE_POLICIES: ['Manage Policies', 'Create and remove access control policies. Whoever holds it can give themselves any privilege.'],
  MANAGE_INGESTION: ['Manage Metadata Ingestion', 'Create, remove, and update Metadata Ingestion sources.'],
  MANAGE_SECRETS: ['Manage Secrets', 'Create & remove Secrets stored inside DataHub.'],
  MANAGE_USERS_AND_GROUPS: ['Manage Users & Groups', 'Create, remove, and update users and groups on DataHub.'],
  VIEW_ANALYTICS: ['View Analytics', 'View the DataHub analytics dashboard.'],
  GET_ANALYTICS_PRIVILEGE: ['Analytics API access', 'API read access to raw analytics data.'],
  GENERATE_PERSONAL_ACCESS_TOKENS: ['Generate Personal Access Tokens', 'Generate personal access tokens for use with DataHub APIs.'],
  MANAGE_ACCESS_TOKENS: ['Manage All Access Tokens', 'Create, list and revoke access tokens on behalf of any user. Whoever holds it can act as any user.'],
  MANAGE_DOMAINS: ['Manage Domains', 'Create and remove Asset Domains.'],
  MANAGE_GLOBAL_ANNOUNCEMENTS: ['Manage Home Page Posts', 'Create and delete home page posts'],
  MANAGE_TESTS: ['Manage Tests', 'Create and remove Asset Tests.'],
  MANAGE_GLOSSARIES: ['Manage Glossaries', 'Create, edit, and remove Glossary Entities'],
  MANAGE_USER_CREDENTIALS: ['Manage User Credentials', 'Manage credentials for native DataHub users, including inviting new users and resetting passwords'],
  MANAGE_TAGS: ['Manage Tags', 'Create and remove Tags.'],
  CREATE_TAGS: ['Create Tags', 'Create new Tags.'],
  CREATE_DOMAINS: ['Create Domains', 'Create new Domains.'],
  MANAGE_GLOBAL_VIEWS: ['Manage Public Views', 'Create, update, and delete any Public (shared) Views.'],
  MANAGE_GLOBAL_OWNERSHIP_TYPES: ['Manage Ownership Types', 'Create, update and delete Ownership Types.'],
  CREATE_BUSINESS_ATTRIBUTE: ['Create Business Attribute', 'Create new Business Attribute.'],
  MANAGE_BUSINESS_ATTRIBUTE: ['Manage Business Attribute', 'Create, update, delete Business Attribute'],
  RESTORE_INDICES_PRIVILEGE: ['Restore Indices API', 'The ability to use the Restore Indices API.'],
  APPLY_RETENTION_PRIVILEGE: ['Apply Retention API', 'The ability to apply retention using the API.'],
  VIEW_ENTITY_PAGE: ['View Entity Page', 'The ability to view the entity page.'],
  EXISTS_ENTITY: ['Entity Exists', 'The ability to determine whether the entity exists.'],
  CREATE_ENTITY: ['Create Entity', "The ability to create an entity if it doesn't exist."],
  EDIT_ENTITY_TAGS: ['Edit Tags', 'The ability to add and remove tags to an asset.'],
  EDIT_ENTITY_GLOSSARY_TERMS: ['Edit Glossary Terms', 'The ability to add and remove glossary terms to an asset.'],
  EDIT_ENTITY_OWNERS: ['Edit Owners', 'The ability to add and remove owners of an entity.'],
  EDIT_ENTITY_DOCS: ['Edit Description', 'The ability to edit the description (documentation) of an entity.'],
  EDIT_ENTITY_DOC_LINKS: ['Edit Links', 'The ability to edit links associated with an entity.'],
  EDIT_ENTITY_STATUS: ['Edit Status', 'The ability to edit the status of an entity (soft deleted or not).'],
  EDIT_DOMAINS_PRIVILEGE: ['Edit Domain', 'The ability to edit the Domain of an entity.'],
  EDIT_ENTITY_DATA_PRODUCTS: ['Edit Data Product', 'The ability to edit the Data Product of an entity.'],
  EDIT_DEPRECATION_PRIVILEGE: ['Edit Deprecation', 'The ability to edit the Deprecation status of an entity.'],
  EDIT_ENTITY_ASSERTIONS: ['Edit Assertions', 'The ability to add and remove assertions from an entity.'],
  EDIT_ENTITY_OPERATIONS: ['Edit Operations', 'The ability to report or edit operations information about an entity.'],
  EDIT_ENTITY_INCIDENTS: ['Edit Incidents', 'The ability to create and remove incidents for an entity.'],
  EDIT_ENTITY: ['Edit Entity', 'The ability to edit any information about an entity. Super user privileges for the entity.'],
  DELETE_ENTITY: ['Delete', 'The ability to delete this entity.'],
  EDIT_LINEAGE: ['Edit Lineage', 'The ability to add and remove lineage edges for this entity.'],
  EDIT_ENTITY_PROPERTIES: ['Edit Properties', 'The ability to edit the properties for an entity.'],
  EDIT_DATASET_COL_TAGS: ['Edit Dataset Column Tags', 'The ability to edit the column (field) tags associated with a dataset schema.'],
  EDIT_DATASET_COL_GLOSSARY_TERMS: ['Edit Dataset Column Glossary Terms', 'The ability to edit the column (field) glossary terms associated with a dataset schema.'],
  EDIT_DATASET_COL_DESCRIPTION: ['Edit Dataset Column Descriptions', 'The ability to edit the column (field) descriptions associated with a dataset schema.'],
  VIEW_DATASET_USAGE: ['View Dataset Usage', 'The ability to access dataset usage information (includes usage statistics and queries).'],
  VIEW_DATASET_PROFILE: ['View Dataset Profile', 'The ability to access dataset profile (snapshot statistics)'],
  EDIT_ENTITY_QUERIES: ['Edit Dataset Queries', 'The ability to edit the Queries for a Dataset.'],
  EDIT_TAG_COLOR: ['Edit Tag Color', 'The ability to change the color of a Tag.'],
  EDIT_GROUP_MEMBERS: ['Edit Group Members', 'The ability to add and remove members to a group.'],
  EDIT_USER_PROFILE: ['Edit User Profile', "The ability to change the user's profile including display name, bio, title, profile image, etc."],
  EDIT_CONTACT_INFO: ['Edit Contact Information', 'The ability to change the contact information such as email & chat handles.'],
  MANAGE_DATA_PRODUCTS: ['Manage Data Products', 'The ability to create, edit, and delete Data Products within a Domain'],
  MANAGE_GLOSSARY_CHILDREN: ['Manage Direct Glossary Children', 'The ability to create and delete the direct children of this entity.'],
  MANAGE_ALL_GLOSSARY_CHILDREN: ['Manage All Glossary Children', 'The ability to create and delete everything underneath this entity.'],
  GET_TIMELINE_PRIVILEGE: ['Get Timeline API', 'The ability to use the GET Timeline API.'],
  GET_ENTITY_PRIVILEGE: ['Get Entity + Relationships API', 'The ability to use the GET Entity and Relationships API.'],
  GET_TIMESERIES_ASPECT_PRIVILEGE: ['Get Timeseries Aspect API', 'The ability to use the GET Timeseries Aspect API.'],
  GET_COUNTS_PRIVILEGE: ['Get Aspect/Entity Count APIs', 'The ability to use the GET Aspect/Entity Count APIs.'],
  ES_EXPLAIN_QUERY_PRIVILEGE: ['Explain ElasticSearch Query API', 'The ability to use the Operations API explain endpoint.'],
  SEARCH_PRIVILEGE: ['Search API', 'The ability to access search APIs.'],
  PRODUCE_PLATFORM_EVENT_PRIVILEGE: ['Produce Platform Event API', 'The ability to produce Platform Events using the API.'],
}

/** A privilege's display name and description, as the policy builder shows them. */
export function privilegeLabel(privilege: string): {displayName: string; description: string | null} {
  const known = PRIVILEGE_LABELS[privilege]
  if (known) return {displayName: known[0], description: known[1]}
  // A name nothing above describes (a test would catch one of ours): readable, without a description.
  const displayName = privilege
    .replace(/_PRIVILEGE$/, '')
    .split('_')
    .map((w) => w.charAt(0) + w.slice(1).toLowerCase())
    .join(' ')
  return {displayName, description: null}
}

/** The policy builder's names of resource types (DataHub's PoliciesConfig). */
export const RESOURCE_TYPE_LABELS: Readonly<Record<string, string>> = {
  dataset: 'Datasets',
  chart: 'Charts',
  dashboard: 'Dashboards',
  dataFlow: 'Data Pipelines',
  dataJob: 'Data Tasks',
  container: 'Containers',
  notebook: 'Notebook',
  tag: 'Tags',
  domain: 'Domains',
  dataProduct: 'Data Products',
  glossaryTerm: 'Glossary Terms',
  glossaryNode: 'Glossary Term Groups',
  corpGroup: 'Groups',
  corpuser: 'Users',
}
