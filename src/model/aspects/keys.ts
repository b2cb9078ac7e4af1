/**
 * Key aspects (`com.linkedin.metadata.key`): the fields an urn is made of, in key order, matching
 * the registry's keyFields. The store derives them from urns, but clients may also send them.
 */
import {fabricType, record, str, urn, versioned} from './common.js'
import type {AspectSpec, JsonSchema} from './types.js'

type Props = Record<string, JsonSchema>

function key(name: string, className: string, fields: Props, optional: Props = {}): AspectSpec {
  return versioned(name, `com.linkedin.metadata.key.${className}`, record(fields, optional))
}

const id = {id: str}
/** platform + name + origin: datasets, ML models, ML model groups. */
const platformNameOrigin = {platform: urn, name: str, origin: fabricType}
const featureNamespaceName = {featureNamespace: str, name: str}

export const KEY_ASPECTS: AspectSpec[] = [
  key('datasetKey', 'DatasetKey', platformNameOrigin),
  // guid is optional in the PDL even though every container urn carries one.
  key('containerKey', 'ContainerKey', {}, {guid: str}),
  key('dashboardKey', 'DashboardKey', {dashboardTool: str, dashboardId: str}),
  key('chartKey', 'ChartKey', {dashboardTool: str, chartId: str}),
  key('dataFlowKey', 'DataFlowKey', {orchestrator: str, flowId: str, cluster: str}),
  key('dataJobKey', 'DataJobKey', {flow: urn, jobId: str}),
  key('domainKey', 'DomainKey', id),
  key('dataProductKey', 'DataProductKey', id),
  key('glossaryTermKey', 'GlossaryTermKey', {name: str}),
  key('glossaryNodeKey', 'GlossaryNodeKey', {name: str}),
  key('tagKey', 'TagKey', {name: str}),
  key('notebookKey', 'NotebookKey', {notebookTool: str, notebookId: str}),
  key('corpUserKey', 'CorpUserKey', {username: str}),
  key('corpGroupKey', 'CorpGroupKey', {name: str}),
  key('dataPlatformKey', 'DataPlatformKey', {platformName: str}),
  key('dataPlatformInstanceKey', 'DataPlatformInstanceKey', {platform: urn, instance: str}),
  key('mlModelKey', 'MLModelKey', platformNameOrigin),
  key('mlModelDeploymentKey', 'MLModelDeploymentKey', platformNameOrigin),
  key('structuredPropertyKey', 'StructuredPropertyKey', id),
  key('formKey', 'FormKey', id),
  key('dataTypeKey', 'DataTypeKey', id),
  key('entityTypeKey', 'EntityTypeKey', id),
  key('documentKey', 'DocumentKey', id),
  key('platformResourceKey', 'PlatformResourceKey', id),
  key('mlModelGroupKey', 'MLModelGroupKey', platformNameOrigin),
  key('mlFeatureKey', 'MLFeatureKey', featureNamespaceName),
  key('mlFeatureTableKey', 'MLFeatureTableKey', {platform: urn, name: str}),
  key('mlPrimaryKeyKey', 'MLPrimaryKeyKey', featureNamespaceName),
  key('dataHubPolicyKey', 'DataHubPolicyKey', id),
  key('dataHubRoleKey', 'DataHubRoleKey', id),
  key('dataHubAccessTokenKey', 'DataHubAccessTokenKey', id),
  key('inviteTokenKey', 'InviteTokenKey', id),
  key('dataHubStepStateKey', 'DataHubStepStateKey', id),
  key('ownershipTypeKey', 'OwnershipTypeKey', id),
  key('assertionKey', 'AssertionKey', {assertionId: str}),
  key('dataProcessInstanceKey', 'DataProcessInstanceKey', id),
  key('postKey', 'PostKey', id),
  key('queryKey', 'QueryKey', id),
  key('schemaFieldKey', 'SchemaFieldKey', {parent: urn, fieldPath: str}),
]
