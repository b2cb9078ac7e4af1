/**
 * The policies a new catalog starts with, as DataHub ships them: the root user and the Admin
 * role may do everything, every signed-in user may read and make personal tokens, owners of an
 * entity may edit it, and the Editor and Reader roles get what their names say.
 */
import {ADMIN_METADATA_PRIVILEGES, OWNER_PRIVILEGES, PLATFORM_PRIVILEGES, VIEW_PRIVILEGES} from './privileges.js'

export const ROOT_USER = 'urn:li:corpuser:datahub'
export const ROLES = {
  Admin: 'urn:li:dataHubRole:Admin',
  Editor: 'urn:li:dataHubRole:Editor',
  Reader: 'urn:li:dataHubRole:Reader',
} as const

export interface PolicyMatchFilter {
  criteria: Array<{field: string; values: string[]; condition?: string}>
}

export interface PolicyInfo {
  displayName: string
  description: string
  type: 'METADATA' | 'PLATFORM'
  state: 'ACTIVE' | 'INACTIVE'
  privileges: string[]
  actors: {users?: string[]; groups?: string[]; roles?: string[]; resourceOwners: boolean; allUsers: boolean; allGroups: boolean; resourceOwnersTypes?: string[]}
  resources?: {type?: string; resources?: string[]; allResources?: boolean; filter?: PolicyMatchFilter; privilegeConstraints?: PolicyMatchFilter}
  editable?: boolean
  lastUpdatedTimestamp?: number
}

/** The entity types the Editor role may edit whole (DataHub's `editor-metadata-policy-entities`). */
export const EDITOR_ENTITY_TYPES = ['dataset', 'chart', 'dashboard', 'dataFlow', 'dataJob', 'tag', 'container', 'domain', 'glossaryTerm', 'glossaryNode', 'notebook', 'dataProduct'] as const

const actors = (a: Partial<PolicyInfo['actors']>): PolicyInfo['actors'] => ({resourceOwners: false, allUsers: false, allGroups: false, ...a})

/**
 * Values earlier versions of mdcli gave fixed default policies, since corrected: a catalog that
 * still holds one gets today's value on its next start. A value anyone else wrote (DataHub's own
 * rows, in a database it made) is never one of these, and is kept.
 */
export const SUPERSEDED_POLICIES: Array<{id: string; info: PolicyInfo}> = [
  // Until the Editor's EDIT_ENTITY was narrowed to the primary entity types (DataHub's
  // `editor-metadata-policy-entities`), it held on users, groups and policies too.
  {id: 'editor-metadata-policy', info: {displayName: 'Editors - Metadata Policy', description: 'The Editor role may edit all metadata.', type: 'METADATA', state: 'ACTIVE', privileges: [...OWNER_PRIVILEGES.filter((p) => p !== 'EDIT_ENTITY_OWNERS' && p !== 'EDIT_GROUP_MEMBERS' && p !== 'EDIT_USER_PROFILE' && p !== 'EDIT_CONTACT_INFO'), ...VIEW_PRIVILEGES], actors: {resourceOwners: false, allUsers: false, allGroups: false, roles: ['urn:li:dataHubRole:Editor']}, editable: false}},
]

export const DEFAULT_POLICIES: Array<{id: string; info: PolicyInfo}> = [
  {id: '0', info: {displayName: 'Root User - All Platform Privileges', description: 'Grants all platform privileges to the root user.', type: 'PLATFORM', state: 'ACTIVE', privileges: [...PLATFORM_PRIVILEGES], actors: actors({users: [ROOT_USER]}), editable: false}},
  {id: '1', info: {displayName: 'Root User - Edit and View All Resources', description: 'Grants all metadata privileges on every resource to the root user.', type: 'METADATA', state: 'ACTIVE', privileges: [...ADMIN_METADATA_PRIVILEGES], actors: actors({users: [ROOT_USER]}), editable: false}},
  {id: '7', info: {displayName: 'All Users - Base Platform Privileges', description: 'Every signed-in user may create personal access tokens.', type: 'PLATFORM', state: 'ACTIVE', privileges: ['VIEW_ANALYTICS', 'GENERATE_PERSONAL_ACCESS_TOKENS'], actors: actors({allUsers: true}), editable: true}},
  {id: 'view-entity-page-all', info: {displayName: 'All Users - View Entity Page', description: 'Every signed-in user may read and search all metadata.', type: 'METADATA', state: 'ACTIVE', privileges: [...VIEW_PRIVILEGES], actors: actors({allUsers: true}), editable: true}},
  {id: 'admin-platform-policy', info: {displayName: 'Admins - Platform Policy', description: 'The Admin role may do everything on the platform.', type: 'PLATFORM', state: 'ACTIVE', privileges: [...PLATFORM_PRIVILEGES], actors: actors({roles: [ROLES.Admin]}), editable: false}},
  {id: 'admin-metadata-policy', info: {displayName: 'Admins - Metadata Policy', description: 'The Admin role may do everything to every entity.', type: 'METADATA', state: 'ACTIVE', privileges: [...ADMIN_METADATA_PRIVILEGES], actors: actors({roles: [ROLES.Admin]}), editable: false}},
  {id: 'editor-platform-policy', info: {displayName: 'Editors - Platform Policy', description: 'The Editor role may manage domains, glossaries and tags.', type: 'PLATFORM', state: 'ACTIVE', privileges: ['GENERATE_PERSONAL_ACCESS_TOKENS', 'MANAGE_DOMAINS', 'MANAGE_GLOBAL_ANNOUNCEMENTS', 'MANAGE_GLOSSARIES', 'MANAGE_TAGS'], actors: actors({roles: [ROLES.Editor]}), editable: false}},
  {id: 'editor-metadata-policy', info: {displayName: 'Editors - Metadata Policy', description: 'The Editor role may edit the metadata of every entity: tags, terms, documentation, links, domains, deprecation, lineage.', type: 'METADATA', state: 'ACTIVE', privileges: [...OWNER_PRIVILEGES.filter((p) => p !== 'EDIT_ENTITY' && p !== 'EDIT_ENTITY_OWNERS' && p !== 'EDIT_GROUP_MEMBERS' && p !== 'EDIT_USER_PROFILE' && p !== 'EDIT_CONTACT_INFO'), ...VIEW_PRIVILEGES], actors: actors({roles: [ROLES.Editor]}), editable: false}},
  // EDIT_ENTITY (any aspect) on the primary metadata entities only, as DataHub's policy of this
  // name: never users, groups, policies or ownership types. Not editable here (DataHub's is), so
  // a catalog made before it existed gets it on its next start, as it gets every fixed policy.
  {id: 'editor-metadata-policy-entities', info: {displayName: 'Editors - Edit Metadata Entities', description: 'The Editor role may edit primary metadata entities.', type: 'METADATA', state: 'ACTIVE', privileges: ['EDIT_ENTITY'], actors: actors({roles: [ROLES.Editor]}), resources: {allResources: false, filter: {criteria: [{field: 'RESOURCE_TYPE', values: [...EDITOR_ENTITY_TYPES], condition: 'EQUALS'}]}}, editable: false}},
  {id: 'reader-metadata-policy', info: {displayName: 'Readers - Metadata Policy', description: 'The Reader role may read all metadata.', type: 'METADATA', state: 'ACTIVE', privileges: [...VIEW_PRIVILEGES, 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE'], actors: actors({roles: [ROLES.Reader]}), editable: false}},
  {id: 'asset-owners-metadata-policy', info: {displayName: 'Asset Owners - Metadata Policy', description: 'Owners of an entity may edit it.', type: 'METADATA', state: 'ACTIVE', privileges: [...OWNER_PRIVILEGES], actors: actors({resourceOwners: true}), editable: true}},
]
