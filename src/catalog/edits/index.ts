/**
 * Metadata edits: the read-modify-write services behind GraphQL mutations (and, later, CLI
 * commands). Each takes the catalog and the acting user, returns a summary, and writes through
 * `runEdit`: one authorization check, per-urn locks, one store batch or nothing.
 */
export {runEdit, EditTx, type EditPlan, type EditOutcome, type Stamp} from './engine.js'
export {KeyedMutex} from './lock.js'
export {type EditSummary, type ResourceRef, type SubResourceType, nonNullRefs, systemOwnershipTypeUrn, SYSTEM_OWNERSHIP_TYPE_PREFIX} from './common.js'
export {addLabels, removeLabels, type LabelKind} from './labels.js'
export {addOwners, removeOwners, effectiveTypeUrn, type OwnerSpec, type OwnerEntityType} from './owners.js'
export {setDomain, type DomainWording} from './domains.js'
export {updateDeprecation, type DeprecationInput} from './deprecation.js'
export {updateDescription, DESCRIPTION_TYPES, type DescriptionInput} from './description.js'
export {setSoftDeleted} from './status.js'
export {addLink, removeLink} from './links.js'
export {updateEntities, updateEntity, EDITABLE_DESCRIPTION_ASPECT, type EntityUpdate, type UpdateItem, type OwnerUpdate} from './update.js'
export {createTag, createDomain, createGlossaryEntity, type CreateInput} from './create.js'
export {updateLineage, type LineageEdgeInput} from './lineage.js'
export {createGroup, deleteDomain, deleteTag, moveDomain, setTagColor, updateLink, updateName} from './manage.js'
export {deleteGlossaryEntity, updateParentNode, updateRelatedTerms, type TermRelationshipType} from './glossary.js'
export {updateGroupMembers} from './groups.js'
export {removeIdentity, updateUserStatus, USER_STATUSES, type UserStatus} from './users.js'
export {reportOperation, type OperationReport} from './operations.js'
export {readStepStates, updateStepStates, MAX_STEP_STATES, type StepState} from './step-states.js'
