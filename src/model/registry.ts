/**
 * The entity registry: which entity types exist, how their urn maps to a key aspect, and which
 * aspects each accepts. Mirrors DataHub's entity-registry.yml (v0.13.1) for the types the
 * spec names, plus the few more that DataHub's sample data and access control use.
 *
 * Glossary:
 * - key aspect: the aspect derived from the urn (`datasetKey` = {platform, name, origin});
 *   writing any aspect of an entity creates it, and its key aspect comes into being with it.
 * - versioned aspect: kept with history (version 0 = latest).
 * - timeseries aspect: appended; reads return the latest value.
 */
import {UnknownAspectError, UnknownEntityTypeError, UrnError} from '../errors.js'
import {FABRIC_TYPES, parseUrn, splitTopLevel, type Urn} from './urn.js'
import {ASPECT_SPECS, type AspectSpec} from './aspects/index.js'
import {MAX_URN_LENGTH} from './limits.js'

export type KeyFieldKind = 'string' | 'urn' | 'fabric'

export interface KeyField {
  name: string
  kind: KeyFieldKind
  /** For `urn` fields: the entity type the nested urn must have. */
  urnType?: string
  optional?: boolean
}

export interface EntitySpec {
  /** Registry name, as in urns: `dataset`, `corpuser`, `glossaryTerm`. */
  name: string
  /** GraphQL EntityType enum value: `DATASET`, `CORP_USER`. */
  graphqlType: string
  keyAspect: string
  keyFields: KeyField[]
  /** Non-key aspects this entity accepts (versioned and timeseries). */
  aspects: string[]
  /** Short name of the MCE snapshot class, when the entity has one. */
  snapshot?: string
  /** Whether search lists this type (searchable entity types in DataHub). */
  searchable?: boolean
}

const S = (name: string): KeyField => ({name, kind: 'string'})
const U = (name: string, urnType: string): KeyField => ({name, kind: 'urn', urnType})
const F = (name: string): KeyField => ({name, kind: 'fabric'})

const COMMON_ASSET = ['ownership', 'status', 'globalTags', 'glossaryTerms', 'institutionalMemory', 'browsePaths', 'browsePathsV2', 'domains', 'deprecation', 'dataPlatformInstance', 'subTypes', 'structuredProperties', 'forms', 'incidentsSummary']

const ML_COMMON = ['ownership', 'status', 'globalTags', 'glossaryTerms', 'institutionalMemory', 'browsePaths', 'browsePathsV2', 'domains', 'deprecation', 'dataPlatformInstance', 'structuredProperties', 'forms']

const ENTITIES: EntitySpec[] = [
  {
    name: 'dataset', graphqlType: 'DATASET', keyAspect: 'datasetKey', snapshot: 'DatasetSnapshot', searchable: true,
    keyFields: [U('platform', 'dataPlatform'), S('name'), F('origin')],
    aspects: [...COMMON_ASSET, 'viewProperties', 'datasetProfile', 'datasetUsageStatistics', 'operation', 'schemaMetadata', 'container', 'testResults', 'siblings', 'embed', 'datasetProperties', 'editableDatasetProperties', 'datasetDeprecation', 'datasetUpstreamLineage', 'upstreamLineage', 'editableSchemaMetadata', 'access', 'partitionsSummary', 'versionProperties'],
  },
  {
    name: 'container', graphqlType: 'CONTAINER', keyAspect: 'containerKey', searchable: true,
    keyFields: [S('guid')],
    // Not COMMON_ASSET: DataHub's container takes no `deprecation` (the spec's rule 1: containers
    // cannot be deprecated) and no `incidentsSummary`, so the registry refuses both here.
    aspects: ['containerProperties', 'editableContainerProperties', 'dataPlatformInstance', 'subTypes', 'ownership', 'container', 'globalTags', 'glossaryTerms', 'institutionalMemory', 'browsePaths', 'status', 'domains', 'browsePathsV2', 'structuredProperties', 'forms'],
  },
  {
    name: 'dashboard', graphqlType: 'DASHBOARD', keyAspect: 'dashboardKey', snapshot: 'DashboardSnapshot', searchable: true,
    keyFields: [S('dashboardTool'), S('dashboardId')],
    aspects: [...COMMON_ASSET, 'container', 'dashboardUsageStatistics', 'inputFields', 'embed', 'dashboardInfo', 'editableDashboardProperties'],
  },
  {
    name: 'chart', graphqlType: 'CHART', keyAspect: 'chartKey', snapshot: 'ChartSnapshot', searchable: true,
    keyFields: [S('dashboardTool'), S('chartId')],
    aspects: [...COMMON_ASSET, 'chartInfo', 'editableChartProperties', 'chartQuery', 'inputFields', 'chartUsageStatistics', 'embed', 'container'],
  },
  {
    name: 'dataFlow', graphqlType: 'DATA_FLOW', keyAspect: 'dataFlowKey', snapshot: 'DataFlowSnapshot', searchable: true,
    keyFields: [S('orchestrator'), S('flowId'), S('cluster')],
    aspects: [...COMMON_ASSET, 'versionInfo', 'dataFlowInfo', 'editableDataFlowProperties', 'container'],
  },
  {
    name: 'dataJob', graphqlType: 'DATA_JOB', keyAspect: 'dataJobKey', snapshot: 'DataJobSnapshot', searchable: true,
    keyFields: [U('flow', 'dataFlow'), S('jobId')],
    aspects: [...COMMON_ASSET, 'datahubIngestionRunSummary', 'datahubIngestionCheckpoint', 'versionInfo', 'dataJobInfo', 'dataJobInputOutput', 'editableDataJobProperties', 'container', 'dataTransformLogic'],
  },
  {
    name: 'domain', graphqlType: 'DOMAIN', keyAspect: 'domainKey', searchable: true,
    keyFields: [S('id')],
    aspects: ['domainProperties', 'institutionalMemory', 'ownership', 'structuredProperties', 'forms'],
  },
  {
    name: 'dataProduct', graphqlType: 'DATA_PRODUCT', keyAspect: 'dataProductKey', searchable: true,
    keyFields: [S('id')],
    aspects: ['dataProductProperties', 'ownership', 'glossaryTerms', 'globalTags', 'domains', 'institutionalMemory', 'status', 'structuredProperties', 'forms', 'browsePaths', 'browsePathsV2', 'subTypes', 'incidentsSummary'],
  },
  {
    name: 'glossaryTerm', graphqlType: 'GLOSSARY_TERM', keyAspect: 'glossaryTermKey', snapshot: 'GlossaryTermSnapshot', searchable: true,
    keyFields: [S('name')],
    aspects: ['glossaryTermInfo', 'glossaryRelatedTerms', 'institutionalMemory', 'schemaMetadata', 'ownership', 'deprecation', 'domains', 'status', 'browsePaths', 'structuredProperties', 'forms'],
  },
  {
    name: 'glossaryNode', graphqlType: 'GLOSSARY_NODE', keyAspect: 'glossaryNodeKey', snapshot: 'GlossaryNodeSnapshot', searchable: true,
    keyFields: [S('name')],
    aspects: ['glossaryNodeInfo', 'institutionalMemory', 'ownership', 'status', 'structuredProperties', 'forms'],
  },
  {
    name: 'tag', graphqlType: 'TAG', keyAspect: 'tagKey', snapshot: 'TagSnapshot', searchable: true,
    keyFields: [S('name')],
    aspects: ['tagProperties', 'ownership', 'deprecation', 'status'],
  },
  {
    name: 'notebook', graphqlType: 'NOTEBOOK', keyAspect: 'notebookKey', searchable: true,
    keyFields: [S('notebookTool'), S('notebookId')],
    aspects: ['notebookInfo', 'notebookContent', 'editableNotebookProperties', 'ownership', 'status', 'globalTags', 'glossaryTerms', 'browsePaths', 'institutionalMemory', 'domains', 'subTypes', 'dataPlatformInstance', 'browsePathsV2'],
  },
  {
    name: 'corpuser', graphqlType: 'CORP_USER', keyAspect: 'corpUserKey', snapshot: 'CorpUserSnapshot', searchable: true,
    keyFields: [S('username')],
    aspects: ['corpUserInfo', 'corpUserEditableInfo', 'corpUserStatus', 'groupMembership', 'globalTags', 'status', 'corpUserCredentials', 'nativeGroupMembership', 'corpUserSettings', 'origin', 'roleMembership', 'structuredProperties', 'forms'],
  },
  {
    name: 'corpGroup', graphqlType: 'CORP_GROUP', keyAspect: 'corpGroupKey', snapshot: 'CorpGroupSnapshot', searchable: true,
    keyFields: [S('name')],
    aspects: ['corpGroupInfo', 'corpGroupEditableInfo', 'globalTags', 'ownership', 'status', 'origin', 'roleMembership', 'structuredProperties', 'forms'],
  },
  {
    name: 'dataPlatform', graphqlType: 'DATA_PLATFORM', keyAspect: 'dataPlatformKey', snapshot: 'DataPlatformSnapshot',
    keyFields: [S('platformName')],
    aspects: ['dataPlatformInfo'],
  },
  {
    name: 'dataPlatformInstance', graphqlType: 'DATA_PLATFORM_INSTANCE', keyAspect: 'dataPlatformInstanceKey',
    keyFields: [U('platform', 'dataPlatform'), S('instance')],
    aspects: ['dataPlatformInstanceProperties', 'ownership', 'globalTags', 'institutionalMemory', 'deprecation', 'status'],
  },
  {
    name: 'mlModel', graphqlType: 'MLMODEL', keyAspect: 'mlModelKey', snapshot: 'MLModelSnapshot', searchable: true,
    keyFields: [U('platform', 'dataPlatform'), S('name'), F('origin')],
    aspects: [...ML_COMMON, 'editableMLModelProperties', 'mlModelProperties', 'intendedUse', 'mlModelFactorPrompts', 'mlModelMetrics', 'mlModelEvaluationData', 'mlModelTrainingData', 'mlModelQuantitativeAnalyses', 'mlModelEthicalConsiderations', 'mlModelCaveatsAndRecommendations', 'sourceCode', 'cost', 'versionProperties'],
  },
  {
    name: 'mlModelGroup', graphqlType: 'MLMODEL_GROUP', keyAspect: 'mlModelGroupKey', snapshot: 'MLModelGroupSnapshot', searchable: true,
    keyFields: [U('platform', 'dataPlatform'), S('name'), F('origin')],
    aspects: [...ML_COMMON, 'mlModelGroupProperties', 'editableMLModelGroupProperties'],
  },
  {
    name: 'mlFeature', graphqlType: 'MLFEATURE', keyAspect: 'mlFeatureKey', snapshot: 'MLFeatureSnapshot', searchable: true,
    keyFields: [S('featureNamespace'), S('name')],
    aspects: [...ML_COMMON, 'mlFeatureProperties', 'editableMlFeatureProperties'],
  },
  {
    name: 'mlFeatureTable', graphqlType: 'MLFEATURE_TABLE', keyAspect: 'mlFeatureTableKey', snapshot: 'MLFeatureTableSnapshot', searchable: true,
    keyFields: [U('platform', 'dataPlatform'), S('name')],
    aspects: [...ML_COMMON, 'mlFeatureTableProperties', 'editableMlFeatureTableProperties'],
  },
  {
    name: 'mlPrimaryKey', graphqlType: 'MLPRIMARY_KEY', keyAspect: 'mlPrimaryKeyKey', snapshot: 'MLPrimaryKeySnapshot', searchable: true,
    keyFields: [S('featureNamespace'), S('name')],
    aspects: [...ML_COMMON, 'mlPrimaryKeyProperties', 'editableMlPrimaryKeyProperties'],
  },
  {
    name: 'dataHubPolicy', graphqlType: 'DATAHUB_POLICY', keyAspect: 'dataHubPolicyKey', snapshot: 'DataHubPolicySnapshot',
    keyFields: [S('id')],
    aspects: ['dataHubPolicyInfo'],
  },
  {
    name: 'dataHubRole', graphqlType: 'DATAHUB_ROLE', keyAspect: 'dataHubRoleKey',
    keyFields: [S('id')],
    aspects: ['dataHubRoleInfo'],
  },
  {
    name: 'dataHubAccessToken', graphqlType: 'ACCESS_TOKEN', keyAspect: 'dataHubAccessTokenKey',
    keyFields: [S('id')],
    aspects: ['dataHubAccessTokenInfo'],
  },
  {
    // DataHub's invite links for native sign-up; the token is a secret (see SECRET_ASPECTS).
    name: 'inviteToken', graphqlType: 'INVITE_TOKEN', keyAspect: 'inviteTokenKey',
    keyFields: [S('id')],
    aspects: ['inviteToken'],
  },
  {
    // DataHub's web app keeps here, per user (`<user urn>-<step>`), the tours it has shown.
    name: 'dataHubStepState', graphqlType: 'DATAHUB_STEP_STATE', keyAspect: 'dataHubStepStateKey',
    keyFields: [S('id')],
    aspects: ['dataHubStepStateProperties'],
  },
  {
    name: 'ownershipType', graphqlType: 'CUSTOM_OWNERSHIP_TYPE', keyAspect: 'ownershipTypeKey',
    keyFields: [S('id')],
    aspects: ['ownershipTypeInfo', 'status'],
  },
  {
    name: 'assertion', graphqlType: 'ASSERTION', keyAspect: 'assertionKey',
    keyFields: [S('assertionId')],
    aspects: ['assertionInfo', 'dataPlatformInstance', 'assertionRunEvent', 'status'],
  },
  {
    name: 'dataProcessInstance', graphqlType: 'DATA_PROCESS_INSTANCE', keyAspect: 'dataProcessInstanceKey',
    keyFields: [S('id')],
    aspects: ['dataProcessInstanceInput', 'dataProcessInstanceOutput', 'dataProcessInstanceProperties', 'dataProcessInstanceRelationships', 'dataProcessInstanceRunEvent', 'status', 'subTypes', 'container', 'dataPlatformInstance', 'mlTrainingRunProperties', 'dataProcessInstanceEdges'],
  },
  {
    name: 'post', graphqlType: 'POST', keyAspect: 'postKey',
    keyFields: [S('id')],
    aspects: ['postInfo'],
  },
  {
    name: 'query', graphqlType: 'QUERY', keyAspect: 'queryKey',
    keyFields: [S('id')],
    aspects: ['queryProperties', 'querySubjects', 'status', 'dataPlatformInstance', 'queryUsageStatistics', 'subTypes'],
  },
  {
    name: 'structuredProperty', graphqlType: 'STRUCTURED_PROPERTY', keyAspect: 'structuredPropertyKey',
    keyFields: [S('id')],
    aspects: ['propertyDefinition', 'structuredPropertySettings', 'institutionalMemory', 'status'],
  },
  {
    name: 'form', graphqlType: 'FORM', keyAspect: 'formKey',
    keyFields: [S('id')],
    aspects: ['formInfo', 'dynamicFormAssignment', 'ownership', 'status'],
  },
  {
    name: 'dataType', graphqlType: 'DATA_TYPE', keyAspect: 'dataTypeKey',
    keyFields: [S('id')],
    aspects: ['dataTypeInfo', 'status'],
  },
  {
    name: 'entityType', graphqlType: 'ENTITY_TYPE', keyAspect: 'entityTypeKey',
    keyFields: [S('id')],
    aspects: ['entityTypeInfo', 'status'],
  },
  {
    name: 'document', graphqlType: 'DOCUMENT', keyAspect: 'documentKey',
    keyFields: [S('id')],
    aspects: ['documentInfo', 'documentSettings', 'ownership', 'status', 'globalTags', 'glossaryTerms', 'domains', 'subTypes', 'dataPlatformInstance', 'browsePathsV2', 'structuredProperties'],
  },
  {
    name: 'platformResource', graphqlType: 'PLATFORM_RESOURCE', keyAspect: 'platformResourceKey',
    keyFields: [S('id')],
    aspects: ['platformResourceInfo', 'dataPlatformInstance', 'status'],
  },
  {
    name: 'mlModelDeployment', graphqlType: 'MLMODEL_DEPLOYMENT', keyAspect: 'mlModelDeploymentKey', snapshot: 'MLModelDeploymentSnapshot',
    keyFields: [U('platform', 'dataPlatform'), S('name'), F('origin')],
    aspects: ['mlModelDeploymentProperties', 'ownership', 'status', 'deprecation', 'globalTags', 'dataPlatformInstance'],
  },
  {
    name: 'schemaField', graphqlType: 'SCHEMA_FIELD', keyAspect: 'schemaFieldKey',
    keyFields: [U('parent', 'dataset'), S('fieldPath')],
    aspects: ['status'],
  },
]

const BY_NAME = new Map<string, EntitySpec>(ENTITIES.map((e) => [e.name, e]))
const BY_GRAPHQL = new Map<string, EntitySpec>(ENTITIES.map((e) => [e.graphqlType, e]))
const ASPECTS_OF = new Map<string, Set<string>>(ENTITIES.map((e) => [e.name, new Set([e.keyAspect, ...e.aspects])]))

/** Every registered entity type. */
export function entitySpecs(): readonly EntitySpec[] {
  return ENTITIES
}

export function findEntity(name: string): EntitySpec | undefined {
  return BY_NAME.get(name)
}

/** The entity spec for a registry name; the error lists the known names. */
export function entitySpec(name: string): EntitySpec {
  const spec = BY_NAME.get(name)
  if (!spec) {
    throw new UnknownEntityTypeError(`Unknown entity type '${name}'. Known types: ${ENTITIES.map((e) => e.name).join(', ')}`)
  }
  return spec
}

export function entityByGraphqlType(type: string): EntitySpec | undefined {
  return BY_GRAPHQL.get(type)
}

export function aspectSpec(name: string): AspectSpec | undefined {
  // Own properties only: `constructor` or `__proto__` must not find Object's.
  return Object.hasOwn(ASPECT_SPECS, name) ? ASPECT_SPECS[name] : undefined
}

/**
 * Aspects that hold secrets (password hashes, reset and invite tokens): written through the one
 * write path like any other, but no read, history or change-log entry ever returns their values.
 */
export const SECRET_ASPECTS: ReadonlySet<string> = new Set(['corpUserCredentials', 'inviteToken'])

export function isTimeseries(aspectName: string): boolean {
  return aspectSpec(aspectName)?.kind === 'timeseries'
}

/** Checks that `entityType` accepts `aspectName`; returns the aspect's spec. */
export function requireAspect(entityType: string, aspectName: string): AspectSpec {
  const entity = entitySpec(entityType)
  const accepted = ASPECTS_OF.get(entity.name)!
  const spec = aspectSpec(aspectName)
  if (!accepted.has(aspectName) || !spec) {
    const hint = spec ? '' : nearest(aspectName, [...accepted])
    throw new UnknownAspectError(
      `Unknown aspect ${aspectName} for entity ${entityType}${hint ? ` (did you mean ${hint}?)` : ''}`,
    )
  }
  return spec
}

/** All aspects (key aspect first) an entity type accepts. */
export function aspectsOf(entityType: string): string[] {
  return [...ASPECTS_OF.get(entitySpec(entityType).name)!]
}

/**
 * Parses an urn and checks it against the registry: known entity type, the right number of
 * key parts, nested urns of the right type, valid fabric labels.
 */
export function validateUrn(raw: string): {urn: Urn; spec: EntitySpec} {
  if (raw.length > MAX_URN_LENGTH) throw new UrnError(`Invalid urn: ${raw.length} characters, over the limit of ${MAX_URN_LENGTH} (${raw.slice(0, 60)}…)`)
  const urn = parseUrn(raw)
  const spec = entitySpec(urn.entityType)
  const fields = spec.keyFields
  if (fields.length === 1) {
    // Single-field keys take the key verbatim (it may contain commas, e.g. glossary paths).
    return {urn, spec}
  }
  if (!urn.isTuple || urn.parts.length !== fields.length) {
    throw new UrnError(
      `Invalid urn ${raw}: a ${spec.name} key has ${fields.length} parts (${fields.map((f) => f.name).join(', ')}), found ${urn.isTuple ? urn.parts.length : 1}`,
    )
  }
  fields.forEach((f, i) => {
    const part = urn.parts[i]!
    if (f.kind === 'urn') {
      // A part that is no urn at all ("hive") is refused as one of the wrong type is, naming the
      // urn sent: the part's own parse error would name only the part.
      let nested: Urn | undefined
      try {
        nested = parseUrn(part)
      } catch (e) {
        if (!(e instanceof UrnError)) throw e
      }
      if (!nested || (f.urnType && nested.entityType !== f.urnType)) {
        throw new UrnError(`Invalid urn ${raw}: key part '${f.name}' must be ${f.urnType ? `a ${f.urnType} urn` : 'an urn'}, found ${part}`)
      }
    } else if (f.kind === 'fabric' && !(FABRIC_TYPES as readonly string[]).includes(part)) {
      throw new UrnError(`Invalid urn ${raw}: '${part}' is not an environment (one of ${FABRIC_TYPES.join(', ')})`)
    }
  })
  return {urn, spec}
}

/** The key aspect value of a parsed urn, e.g. `{platform, name, origin}` for a dataset. */
export function keyValueOf(spec: EntitySpec, urn: Urn): Record<string, string> {
  const value: Record<string, string> = {}
  if (spec.keyFields.length === 1) value[spec.keyFields[0]!.name] = urn.key
  else spec.keyFields.forEach((f, i) => (value[f.name] = urn.parts[i]!))
  return value
}

/**
 * The key of an urn (what its key aspect holds, read off the urn: a stored key aspect may
 * contradict it, and the urn is what names the entity). Single-field keys (tags, users, terms, …) are the text after the entity
 * type — no parse needed, and references to them are the most frequent; tuple keys go through
 * the registry's parser.
 */
export function keyOfUrn(urn: string, entityType: string): Record<string, string> {
  const spec = findEntity(entityType)
  const prefix = `urn:li:${entityType}:`
  if (spec && spec.keyFields.length === 1 && urn.startsWith(prefix)) return {[spec.keyFields[0]!.name]: urn.slice(prefix.length)}
  if (spec && urn.startsWith(prefix)) {
    const parts = tupleParts(urn, prefix.length)
    if (parts && parts.length === spec.keyFields.length) {
      const value: Record<string, string> = {}
      for (let i = 0; i < parts.length; i++) value[spec.keyFields[i]!.name] = parts[i]!
      return value
    }
  }
  try {
    // Urns read back were validated when written: splitting the tuple is enough.
    const parsed = parseUrn(urn)
    if (spec && parsed.entityType === entityType && parsed.isTuple && parsed.parts.length === spec.keyFields.length) return keyValueOf(spec, parsed)
    return keyAspectOf(urn).value
  } catch {
    return {}
  }
}

/**
 * The parts of the tuple key that starts at `from` (`(a,b,(c,d))` → a, b, (c,d)), split at its
 * top-level commas; undefined when it is not a balanced tuple of non-empty parts, which the
 * parser then words. Reads see urns that were validated when written (the entity's own, or a
 * reference an aspect's schema checked), and at random reads over many entities parsing them
 * again cost more than the rest of the key: the parser's memo holds the last thousand only.
 */
function tupleParts(urn: string, from: number): string[] | undefined {
  if (urn.charCodeAt(from) !== 40 /* ( */ || urn.charCodeAt(urn.length - 1) !== 41 /* ) */) return undefined
  const {parts, unbalanced} = splitTopLevel(urn.slice(from + 1, -1))
  return unbalanced || parts.some((p) => p === '') ? undefined : parts
}

/** The key aspect derived from an urn string. */
export function keyAspectOf(raw: string): {name: string; value: Record<string, string>} {
  const {urn, spec} = validateUrn(raw)
  return {name: spec.keyAspect, value: keyValueOf(spec, urn)}
}

/**
 * The aspect whose value `{removed: true}` soft-deletes an entity (DataHub's `status`). Soft
 * delete is possible only for entity types that accept it.
 */
export const SOFT_DELETE_ASPECT = 'status'

/** The key aspect's name of a registered entity type (`corpuser` → `corpUserKey`); undefined for unknown types. */
export function keyAspectName(entityType: string): string | undefined {
  return BY_NAME.get(entityType)?.keyAspect
}

/** Whether `aspectName` is the key aspect of `entityType`, by the registry (never by a name pattern). */
export function isKeyAspect(entityType: string, aspectName: string): boolean {
  return BY_NAME.get(entityType)?.keyAspect === aspectName
}

/** Whether entities of this type can be soft-deleted (they accept the status aspect). */
export function supportsSoftDelete(entityType: string): boolean {
  return ASPECTS_OF.get(entityType)?.has(SOFT_DELETE_ASPECT) ?? false
}

/**
 * Whether the status aspect's JSON text marks an entity soft-deleted. Judged on the text as
 * stored, so a store need not parse every status to list or count live entities.
 */
export function isRemovedStatusText(text: string | undefined): boolean {
  if (text === undefined || !text.includes('removed') || !text.includes('true')) return false
  try {
    return (JSON.parse(text) as {removed?: unknown})?.removed === true
  } catch {
    return false
  }
}

/** Closest candidate by edit distance, for "did you mean" hints; undefined when nothing is close. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined
  let bestD = Infinity
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase())
    if (d < bestD) {
      bestD = d
      best = c
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({length: b.length + 1}, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = tmp
    }
  }
  return prev[b.length]!
}
