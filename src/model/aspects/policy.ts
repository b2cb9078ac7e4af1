/**
 * Access control and administration: policies and roles (`com.linkedin.policy`), access tokens
 * (`com.linkedin.access.token`) and custom ownership types (`com.linkedin.ownership`).
 */
import {arrayOf, auditStamp, bool, enumOf, long, record, str, urn, versioned} from './common.js'
import type {AspectSpec} from './types.js'

// The criterion fields DataHub's policy engine knows and this server evaluates (the deprecated
// RESOURCE_* names among them): a misspelt field is refused, not stored to match nothing.
const criterionField = enumOf('TYPE', 'RESOURCE_TYPE', 'URN', 'RESOURCE_URN', 'DOMAIN', 'TAG', 'CONTAINER', 'DATA_PLATFORM_INSTANCE')

const policyMatchFilter = record({
  criteria: arrayOf(record({field: criterionField, values: arrayOf(str)}, {condition: enumOf('EQUALS', 'STARTS_WITH', 'NOT_EQUALS')})),
})

const resourceFilter = record({}, {
  // type/resources/allResources predate `filter` and are deprecated, but boot policies still use them.
  type: str,
  resources: arrayOf(str),
  allResources: bool,
  filter: policyMatchFilter,
  // Constraints on the values a privilege may set (e.g. which tags may be added).
  privilegeConstraints: policyMatchFilter,
})

const actorFilter = record({}, {
  users: arrayOf(urn),
  groups: arrayOf(urn),
  resourceOwners: bool,
  resourceOwnersTypes: arrayOf(urn),
  allUsers: bool,
  allGroups: bool,
  roles: arrayOf(urn),
})

export const POLICY_ASPECTS: AspectSpec[] = [
  versioned('dataHubPolicyInfo', 'com.linkedin.policy.DataHubPolicyInfo', record(
    // type is PLATFORM or METADATA and state ACTIVE or INACTIVE, but the PDL types both as string.
    {displayName: str, description: str, type: str, state: str, privileges: arrayOf(str), actors: actorFilter},
    {resources: resourceFilter, editable: bool, lastUpdatedTimestamp: long},
  )),
  versioned('dataHubRoleInfo', 'com.linkedin.policy.DataHubRoleInfo', record(
    {name: str, description: str},
    {editable: bool},
  )),
  versioned('dataHubAccessTokenInfo', 'com.linkedin.access.token.DataHubAccessTokenInfo', record(
    {name: str, actorUrn: urn, ownerUrn: urn, createdAt: long},
    {expiresAt: long, description: str},
  )),
  versioned('ownershipTypeInfo', 'com.linkedin.ownership.OwnershipTypeInfo', record(
    {name: str, created: auditStamp, lastModified: auditStamp},
    {description: str},
  )),
]
