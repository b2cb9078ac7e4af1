/**
 * The authorization table: what a write needs is decided by what it does — which entity, which
 * aspect, which fields change — never by the door it came through. REST `ingestProposal`,
 * `POST /entities`, every GraphQL mutation, the NATS queue consumer and recipes (through the REST
 * sink) all end in `Catalog` (propose, apply, writeOps), and `Catalog` asks this table about every
 * write it hands to the store.
 *
 * Glossary:
 * - privileged write: a write that changes who may do what — policies, roles, role and group
 *   membership, access and invite tokens, user credentials, status and settings, who owns a group
 *   (owners of a group may edit its members). `EDIT_ENTITY` never allows one: they need the
 *   platform privilege named here (or, where given, the specific privilege on the resource).
 * - entity-level check: every write also needs EDIT_ENTITY (or CREATE_ENTITY for a new entity,
 *   DELETE_ENTITY for a delete) on the entity, or for a GraphQL mutation the privileges listed
 *   in MUTATIONS; both are asked before the write, this table's rules at the write itself.
 * - self: a write the actor makes about themselves (their own settings, their own tokens).
 */
import type {AuthzRequest, Privilege} from '../authorize.js'
import {aspectsOf, findEntity} from '../../model/registry.js'

/** An OR of AND-groups of privileges, as in `AuthzRequest.privileges`. */
export type Privileges = Privilege[][]

export interface PrivilegedRule {
  /** What the write changes, in words: for refusals and the README. */
  what: string
  /** Platform privileges that allow the write. */
  platform: Privileges
  /**
   * Also enough: these privileges on the named resources — the entity written (`entity`), or
   * each group whose member list the write changes (`changedGroups`).
   */
  resource?: {privileges: Privileges; on: 'entity' | 'changedGroups'; field?: string}
  /** Only a change of these fields is privileged (absent: any write of the aspect or entity). */
  fields?: string[]
  /**
   * A stored value this finds fixed may not be changed or deleted by anyone, whatever they hold
   * (DataHub's default policies, `editable: false`): returns the refusal's words.
   */
  fixed?: (before: unknown) => string | undefined
  /** What an absent field means when comparing (`status.removed` absent is `false`). */
  defaults?: Readonly<Record<string, unknown>>
  /**
   * Writes about the actor themselves: what suffices for an upsert (`upsert`) and for a delete
   * (`delete`; `[]` = nothing more than the entity-level check).
   */
  self?: {test: 'userUrn' | 'tokenHolder'; upsert: Privileges; delete: Privileges}
}

const USERS: Privileges = [['MANAGE_USERS_AND_GROUPS']]
const members = (field: string) => ({privileges: [['EDIT_GROUP_MEMBERS']], on: 'changedGroups' as const, field})

/** Entity types all of whose writes are privileged. */
export const PRIVILEGED_ENTITIES: Readonly<Record<string, PrivilegedRule>> = {
  dataHubPolicy: {
    what: 'access policies',
    platform: [['MANAGE_POLICIES']],
    // The root user's and the Admin role's policies: deleting them would lock everyone out.
    fixed: (before) => ((before as Obj | undefined)?.editable === false ? 'is a default policy: it cannot be changed or deleted' : undefined),
  },
  dataHubRole: {what: 'roles', platform: [['MANAGE_POLICIES']]},
  // An invite signs its holder up with the invite's role (Admin, even).
  inviteToken: {what: 'invite tokens', platform: USERS},
  dataHubAccessToken: {
    what: 'access tokens',
    platform: [['MANAGE_ACCESS_TOKENS']],
    // A personal token: acts for and is owned by the actor, before and after the write.
    self: {test: 'tokenHolder', upsert: [['GENERATE_PERSONAL_ACCESS_TOKENS'], ['MANAGE_ACCESS_TOKENS']], delete: []},
  },
}

/**
 * Aspects whose writes are privileged, by aspect name (`<entityType>.<aspect>` for a rule that
 * holds on one entity type only).
 */
export const PRIVILEGED_ASPECTS: Readonly<Record<string, PrivilegedRule>> = {
  roleMembership: {what: 'role membership', platform: USERS},
  groupMembership: {what: 'group membership', platform: USERS, resource: members('groups')},
  nativeGroupMembership: {what: 'group membership', platform: USERS, resource: members('nativeGroups')},
  // The deprecated member lists on the group still count for the policy authorizer.
  corpGroupInfo: {what: 'group membership', platform: USERS, resource: {privileges: [['EDIT_GROUP_MEMBERS']], on: 'entity'}, fields: ['members', 'admins', 'groups']},
  // Owners of a group hold EDIT_GROUP_MEMBERS on it (the asset-owners policy).
  'corpGroup.ownership': {what: 'group ownership', platform: USERS, resource: {privileges: [['EDIT_ENTITY_OWNERS']], on: 'entity'}, fields: ['owners']},
  corpUserCredentials: {what: 'user credentials', platform: [['MANAGE_USER_CREDENTIALS']]},
  corpUserStatus: {what: 'user status', platform: USERS},
  corpUserSettings: {what: 'user settings', platform: USERS, self: {test: 'userUrn', upsert: [], delete: []}},
  // A soft delete or its undoing is a delete, whichever route writes `status.removed`: the same
  // DELETE_ENTITY that `batchUpdateSoftDeleted` and `/entities?action=delete` ask for.
  status: {what: 'whether the entity is soft-deleted', platform: [], resource: {privileges: [['DELETE_ENTITY']], on: 'entity'}, fields: ['removed'], defaults: {removed: false}},
}

/**
 * Aspects that one specific privilege on the entity also allows writing, besides EDIT_ENTITY:
 * a raw proposal of `globalTags` needs what `addTags` needs, whichever route carries it.
 */
const ASPECT_PRIVILEGES: Readonly<Record<string, Privilege>> = {
  globalTags: 'EDIT_ENTITY_TAGS',
  glossaryTerms: 'EDIT_ENTITY_GLOSSARY_TERMS',
  ownership: 'EDIT_ENTITY_OWNERS',
  domains: 'EDIT_DOMAINS_PRIVILEGE',
  deprecation: 'EDIT_DEPRECATION_PRIVILEGE',
  institutionalMemory: 'EDIT_ENTITY_DOC_LINKS',
  editableDatasetProperties: 'EDIT_ENTITY_DOCS',
  editableChartProperties: 'EDIT_ENTITY_DOCS',
  editableDashboardProperties: 'EDIT_ENTITY_DOCS',
  editableDataFlowProperties: 'EDIT_ENTITY_DOCS',
  editableDataJobProperties: 'EDIT_ENTITY_DOCS',
  editableNotebookProperties: 'EDIT_ENTITY_DOCS',
  editableContainerProperties: 'EDIT_ENTITY_DOCS',
  editableMlModelProperties: 'EDIT_ENTITY_DOCS',
  editableMlFeatureTableProperties: 'EDIT_ENTITY_DOCS',
  operation: 'EDIT_ENTITY_OPERATIONS',
}

/** The privilege that, besides EDIT_ENTITY, allows writing `aspectName` on an existing entity. */
export function aspectPrivilege(aspectName: string): Privilege | undefined {
  return ASPECT_PRIVILEGES[aspectName]
}

/** The rule for a write of `aspectName` (or of the whole entity, when undefined) on `entityType`. */
export function privilegedRule(entityType: string, aspectName?: string): PrivilegedRule | undefined {
  return PRIVILEGED_ENTITIES[entityType] ?? (aspectName === undefined ? undefined : (PRIVILEGED_ASPECTS[`${entityType}.${aspectName}`] ?? PRIVILEGED_ASPECTS[aspectName]))
}

const PRIVILEGED_ASPECTS_OF = new Map<string, string[]>()

/** The aspects of an entity type that have a rule of their own (what deleting the entity deletes). */
export function privilegedAspectsOf(entityType: string): readonly string[] {
  let names = PRIVILEGED_ASPECTS_OF.get(entityType)
  if (!names) {
    names = findEntity(entityType) === undefined ? [] : aspectsOf(entityType).filter((a) => privilegedRule(entityType, a) !== undefined)
    PRIVILEGED_ASPECTS_OF.set(entityType, names)
  }
  return names
}

/** One write as the table sees it. */
export interface TableWrite {
  urn: string
  entityType: string
  /** Undefined for a whole-entity delete. */
  aspectName?: string
  /** The value after the write; undefined for deletes and for writes whose result is unknown here (a revert). */
  after?: unknown
  /** True for deletes (of the aspect or the entity). */
  deleted: boolean
  /** False when the written value cannot be known before the write (a revert to an older version). */
  afterKnown: boolean
}

type Obj = Record<string, unknown>

const list = (v: unknown, field: string): string[] => {
  const x = (v as Obj | undefined)?.[field]
  return Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []
}

function fieldsChanged(before: unknown, after: unknown, fields: string[], defaults: Readonly<Obj> = {}): boolean {
  const of = (v: unknown, f: string) => JSON.stringify((v as Obj | undefined)?.[f] ?? defaults[f] ?? null)
  return fields.some((f) => of(before, f) !== of(after, f))
}

function isSelf(rule: PrivilegedRule, w: TableWrite, actor: string, before: unknown): boolean {
  if (!rule.self) return false
  if (rule.self.test === 'userUrn') return w.urn === actor
  // A token is the actor's own when it acts for them and they own it, before and after.
  const holds = (v: unknown) => v === undefined || ((v as Obj).actorUrn === actor && (v as Obj).ownerUrn === actor)
  if (w.deleted) return before !== undefined && ((before as Obj).actorUrn === actor || (before as Obj).ownerUrn === actor)
  return w.afterKnown && w.after !== undefined && holds(w.after) && holds(before)
}

/**
 * What the table asks of `actor` for one write, with `before` the stored value of the aspect
 * (undefined when absent or for entity rules): an empty list when the write is not privileged.
 */
export function privilegedRequests(rule: PrivilegedRule, w: TableWrite, actor: string, before: unknown): AuthzRequest[] {
  if (rule.fields && w.afterKnown && !fieldsChanged(before, w.after, rule.fields, rule.defaults)) return []
  if (isSelf(rule, w, actor, before)) {
    const need = w.deleted ? rule.self!.delete : rule.self!.upsert
    return need.length === 0 ? [] : [{privileges: need}]
  }
  if (!rule.resource) return [{privileges: rule.platform}]
  // Platform privileges count on a resource too, so one request per resource holds both ways.
  const privileges = [...rule.platform, ...rule.resource.privileges]
  if (rule.resource.on === 'entity') return [{resourceUrn: w.urn, privileges}]
  const field = rule.resource.field ?? 'groups'
  const was = new Set(list(before, field))
  const now = new Set(w.afterKnown ? list(w.after, field) : [])
  // A revert's result is unknown: only the platform privilege can allow it.
  if (!w.afterKnown) return [{privileges: rule.platform}]
  const changed = [...[...now].filter((g) => !was.has(g)), ...[...was].filter((g) => !now.has(g))]
  return changed.map((g) => ({resourceUrn: g, privileges}))
}

/** Whether writes of this rule need the stored value to be decided. */
export function needsBefore(rule: PrivilegedRule): boolean {
  return rule.fields !== undefined || rule.fixed !== undefined || rule.self?.test === 'tokenHolder' || rule.resource?.on === 'changedGroups'
}

/**
 * Every GraphQL mutation and what it asks before it writes (besides the rules above, which the
 * write itself meets): `platform` = platform privileges; `entity` = privileges on the entity the
 * mutation names, of the type given. DataHub's rules (reference: datahub-facts §1.10), except
 * where noted: EDIT_ENTITY does not stand in for a privileged write.
 */
export interface MutationRule {
  /**
   * Privileges on the platform, or on the entity (of type `type`) the mutation acts on; `off`: a
   * mutation of a feature mdcli lite switches off (`@switchedOff` in the SDL), refused with a 400
   * for everyone before it reads or writes anything.
   */
  on: 'platform' | 'entity' | 'self' | 'off'
  type?: string
  privileges: Privileges
}

const E = (type: string, ...specific: string[]): MutationRule => ({on: 'entity', type, privileges: [['EDIT_ENTITY'], ...specific.map((p) => [p])]})
const P = (...privileges: string[]): MutationRule => ({on: 'platform', privileges: privileges.map((p) => [p])})
const ON = (type: string, ...privileges: string[]): MutationRule => ({on: 'entity', type, privileges: privileges.map((p) => [p])})
const OFF: MutationRule = {on: 'off', privileges: []}

export const MUTATIONS: Readonly<Record<string, MutationRule>> = {
  updateDataset: E('dataset', 'EDIT_ENTITY_DOCS'),
  updateDatasets: E('dataset', 'EDIT_ENTITY_DOCS'),
  updateChart: E('chart', 'EDIT_ENTITY_DOCS'),
  updateDashboard: E('dashboard', 'EDIT_ENTITY_DOCS'),
  updateDataFlow: E('dataFlow', 'EDIT_ENTITY_DOCS'),
  updateDataJob: E('dataJob', 'EDIT_ENTITY_DOCS'),
  updateNotebook: E('notebook', 'EDIT_ENTITY_DOCS'),
  updateTag: E('tag', 'EDIT_ENTITY_DOCS'),
  // A user's own profile needs nothing (DataHub's CorpUserType); slack, email or phone need EDIT_CONTACT_INFO instead (edits/update.ts).
  updateCorpUserProperties: E('corpuser', 'EDIT_USER_PROFILE'),
  updateCorpGroupProperties: E('corpGroup', 'EDIT_ENTITY_DOCS'),
  addTag: E('dataset', 'EDIT_ENTITY_TAGS'),
  addTags: E('dataset', 'EDIT_ENTITY_TAGS'),
  batchAddTags: E('dataset', 'EDIT_ENTITY_TAGS'),
  removeTag: E('dataset', 'EDIT_ENTITY_TAGS'),
  batchRemoveTags: E('dataset', 'EDIT_ENTITY_TAGS'),
  createTag: P('CREATE_TAGS', 'MANAGE_TAGS'),
  addTerm: E('dataset', 'EDIT_ENTITY_GLOSSARY_TERMS'),
  addTerms: E('dataset', 'EDIT_ENTITY_GLOSSARY_TERMS'),
  batchAddTerms: E('dataset', 'EDIT_ENTITY_GLOSSARY_TERMS'),
  removeTerm: E('dataset', 'EDIT_ENTITY_GLOSSARY_TERMS'),
  batchRemoveTerms: E('dataset', 'EDIT_ENTITY_GLOSSARY_TERMS'),
  createGlossaryTerm: P('MANAGE_GLOSSARIES'),
  createGlossaryNode: P('MANAGE_GLOSSARIES'),
  addOwner: E('dataset', 'EDIT_ENTITY_OWNERS'),
  addOwners: E('dataset', 'EDIT_ENTITY_OWNERS'),
  batchAddOwners: E('dataset', 'EDIT_ENTITY_OWNERS'),
  removeOwner: E('dataset', 'EDIT_ENTITY_OWNERS'),
  batchRemoveOwners: E('dataset', 'EDIT_ENTITY_OWNERS'),
  setDomain: E('dataset', 'EDIT_DOMAINS_PRIVILEGE'),
  batchSetDomain: E('dataset', 'EDIT_DOMAINS_PRIVILEGE'),
  unsetDomain: E('dataset', 'EDIT_DOMAINS_PRIVILEGE'),
  createDomain: P('CREATE_DOMAINS', 'MANAGE_DOMAINS'),
  updateDeprecation: E('dataset', 'EDIT_DEPRECATION_PRIVILEGE'),
  batchUpdateDeprecation: E('dataset', 'EDIT_DEPRECATION_PRIVILEGE'),
  updateDescription: E('dataset', 'EDIT_ENTITY_DOCS'),
  batchUpdateSoftDeleted: ON('dataset', 'DELETE_ENTITY'),
  addLink: E('dataset', 'EDIT_ENTITY_DOC_LINKS'),
  removeLink: E('dataset', 'EDIT_ENTITY_DOC_LINKS'),
  updateLink: E('dataset', 'EDIT_ENTITY_DOC_LINKS'),
  upsertLink: E('dataset', 'EDIT_ENTITY_DOC_LINKS'),
  reportOperation: E('dataset', 'EDIT_ENTITY_OPERATIONS'),
  updateLineage: E('dataset', 'EDIT_LINEAGE'),
  addRelatedTerms: ON('glossaryTerm', 'MANAGE_GLOSSARIES', 'EDIT_ENTITY'),
  removeRelatedTerms: ON('glossaryTerm', 'MANAGE_GLOSSARIES', 'EDIT_ENTITY'),
  updateParentNode: ON('glossaryTerm', 'MANAGE_GLOSSARIES', 'MANAGE_GLOSSARY_CHILDREN', 'MANAGE_ALL_GLOSSARY_CHILDREN'),
  deleteGlossaryEntity: ON('glossaryTerm', 'MANAGE_GLOSSARIES', 'MANAGE_GLOSSARY_CHILDREN', 'MANAGE_ALL_GLOSSARY_CHILDREN'),
  updateName: ON('tag', 'MANAGE_TAGS', 'EDIT_ENTITY'),
  setTagColor: ON('tag', 'MANAGE_TAGS', 'EDIT_ENTITY'),
  deleteTag: ON('tag', 'MANAGE_TAGS', 'DELETE_ENTITY'),
  deleteDomain: ON('domain', 'MANAGE_DOMAINS', 'DELETE_ENTITY'),
  moveDomain: P('MANAGE_DOMAINS'),
  // Privileged: EDIT_ENTITY on the group is not enough (DataHub's Editor holds no EDIT_ENTITY on groups).
  addGroupMembers: ON('corpGroup', 'MANAGE_USERS_AND_GROUPS', 'EDIT_GROUP_MEMBERS'),
  removeGroupMembers: ON('corpGroup', 'MANAGE_USERS_AND_GROUPS', 'EDIT_GROUP_MEMBERS'),
  createGroup: P('MANAGE_USERS_AND_GROUPS'),
  removeGroup: P('MANAGE_USERS_AND_GROUPS'),
  removeUser: P('MANAGE_USERS_AND_GROUPS'),
  updateUserStatus: P('MANAGE_USERS_AND_GROUPS'),
  createPolicy: P('MANAGE_POLICIES'),
  updatePolicy: P('MANAGE_POLICIES'),
  deletePolicy: P('MANAGE_POLICIES'),
  // For oneself GENERATE_PERSONAL_ACCESS_TOKENS is enough; for anyone else MANAGE_ACCESS_TOKENS.
  createAccessToken: {on: 'self', privileges: [['GENERATE_PERSONAL_ACCESS_TOKENS'], ['MANAGE_ACCESS_TOKENS']]},
  // Its owner or the user it acts for need nothing more; anyone else MANAGE_ACCESS_TOKENS.
  revokeAccessToken: P('MANAGE_ACCESS_TOKENS'),
  createInviteToken: P('MANAGE_USERS_AND_GROUPS'),
  createNativeUserResetToken: P('MANAGE_USER_CREDENTIALS'),
  // The caller takes an invite's role for themselves: the valid invite token is the authorization (DataHub asks nothing more).
  acceptRole: {on: 'self', privileges: [[]]},
  // Switched off (the SDL's @switchedOff names the feature of each).
  addBusinessAttribute: OFF,
  batchAddToDataProducts: OFF,
  batchAssignRole: OFF,
  batchRemoveFromDataProducts: OFF,
  batchSetApplication: OFF,
  batchSetDataProduct: OFF,
  batchUnsetApplication: OFF,
  // A user's own step states need nothing (DataHub asks nothing at all); another user's, MANAGE_USERS_AND_GROUPS (edits/step-states.ts).
  batchUpdateStepStates: {on: 'self', privileges: [[]]},
  cancelIngestionExecutionRequest: OFF,
  createApplication: OFF,
  createBusinessAttribute: OFF,
  createDataHubFile: OFF,
  createDataProduct: OFF,
  createDocument: OFF,
  createIngestionExecutionRequest: OFF,
  createIngestionSource: OFF,
  createLogicalModel: OFF,
  createOwnershipType: OFF,
  createPost: OFF,
  createQuery: OFF,
  createSecret: OFF,
  createServiceAccount: OFF,
  createStructuredProperty: OFF,
  createTest: OFF,
  createTestConnectionRequest: OFF,
  createView: OFF,
  deleteApplication: OFF,
  deleteAssertion: OFF,
  deleteBusinessAttribute: OFF,
  deleteDataProduct: OFF,
  deleteDocument: OFF,
  deleteIngestionSource: OFF,
  deleteOwnershipType: OFF,
  deletePageModule: OFF,
  deletePageTemplate: OFF,
  deletePost: OFF,
  deleteQuery: OFF,
  deleteSecret: OFF,
  deleteServiceAccount: OFF,
  deleteStructuredProperty: OFF,
  deleteTest: OFF,
  deleteView: OFF,
  importDocumentsFromFiles: OFF,
  linkAssetVersion: OFF,
  linkPhysicalChild: OFF,
  moveDocument: OFF,
  raiseIncident: OFF,
  removeBusinessAttribute: OFF,
  removeStructuredProperties: OFF,
  rollbackIngestion: OFF,
  submitFormPrompt: OFF,
  unlinkAssetVersion: OFF,
  unlinkPhysicalChild: OFF,
  updateApplicationsSettings: OFF,
  updateAssetSettings: OFF,
  updateBusinessAttribute: OFF,
  updateCorpUserLocaleSettings: OFF,
  updateCorpUserViewsSettings: OFF,
  updateDataProduct: OFF,
  updateDisplayProperties: OFF,
  updateDocPropagationSettings: OFF,
  updateDocumentContents: OFF,
  updateDocumentRelatedEntities: OFF,
  updateDocumentSettings: OFF,
  updateDocumentStatus: OFF,
  updateDocumentSubType: OFF,
  updateEmbed: OFF,
  updateGlobalViewsSettings: OFF,
  updateIncident: OFF,
  updateIncidentStatus: OFF,
  updateIngestionSource: OFF,
  updateLogicalModelSchema: OFF,
  updateOwnershipType: OFF,
  updatePost: OFF,
  updateQuery: OFF,
  updateSecret: OFF,
  updateServiceAccountDefaultView: OFF,
  updateStructuredProperty: OFF,
  updateUserHomePageSettings: OFF,
  updateUserSetting: OFF,
  updateView: OFF,
  upsertDataContract: OFF,
  upsertPageModule: OFF,
  upsertPageTemplate: OFF,
  upsertStructuredProperties: OFF,
  verifyForm: OFF,
}
