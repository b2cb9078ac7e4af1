/**
 * Pipelines: `com.linkedin.datajob` (flows, jobs, their lineage and versions) and the
 * versioned `com.linkedin.dataprocess` instance aspects (run events are in timeseries.ts).
 */
import {
  arrayOf, auditStamp, customProperties, edge, editableDescription, enumOf, externalReference, fabricType, primitiveUnion,
  record, str, timeStamp, urn, versioned,
} from './common.js'
import {fineGrainedLineage} from './dataset.js'
import type {AspectSpec} from './types.js'

const J = 'com.linkedin.datajob.'
const P = 'com.linkedin.dataprocess.'

export const jobStatus = enumOf('STARTING', 'IN_PROGRESS', 'STOPPING', 'STOPPED', 'COMPLETED', 'FAILED', 'UNKNOWN', 'SKIPPED')

export const DATAJOB_ASPECTS: AspectSpec[] = [
  versioned('dataFlowInfo', `${J}DataFlowInfo`, record({name: str}, {
    ...customProperties,
    ...externalReference,
    description: str,
    project: str,
    created: timeStamp,
    lastModified: timeStamp,
    env: fabricType,
  })),
  versioned('editableDataFlowProperties', `${J}EditableDataFlowProperties`, editableDescription),
  versioned('dataJobInfo', `${J}DataJobInfo`, record(
    {
      name: str,
      // union[AzkabanJobType, string]; avro-JSON files (bootstrap sample data) write it bare.
      type: primitiveUnion({
        [`${J}azkaban.AzkabanJobType`]: enumOf('COMMAND', 'HADOOP_JAVA', 'HADOOP_SHELL', 'HIVE', 'PIG', 'SQL', 'GLUE'),
        string: str,
      }),
    },
    {
      ...customProperties,
      ...externalReference,
      description: str,
      flowUrn: urn,
      created: timeStamp,
      lastModified: timeStamp,
      status: jobStatus,
      env: fabricType,
    },
  )),
  versioned('dataJobInputOutput', `${J}DataJobInputOutput`, record(
    // Deprecated in favour of the *Edges lists, but still required by the PDL.
    {inputDatasets: arrayOf(urn), outputDatasets: arrayOf(urn)},
    {
      inputDatasetEdges: arrayOf(edge),
      outputDatasetEdges: arrayOf(edge),
      inputDatajobs: arrayOf(urn),
      inputDatajobEdges: arrayOf(edge),
      inputDatasetFields: arrayOf(urn),
      outputDatasetFields: arrayOf(urn),
      fineGrainedLineages: arrayOf(fineGrainedLineage),
    },
  )),
  versioned('editableDataJobProperties', `${J}EditableDataJobProperties`, editableDescription),
  versioned('versionInfo', `${J}VersionInfo`, record(
    {version: str, versionType: str},
    {...customProperties, ...externalReference},
  )),
  versioned('dataProcessInstanceInput', `${P}DataProcessInstanceInput`, record({inputs: arrayOf(urn)}, {inputEdges: arrayOf(edge)})),
  versioned('dataProcessInstanceOutput', `${P}DataProcessInstanceOutput`, record({outputs: arrayOf(urn)}, {outputEdges: arrayOf(edge)})),
  versioned('dataProcessInstanceProperties', `${P}DataProcessInstanceProperties`, record(
    {name: str, created: auditStamp},
    {...customProperties, ...externalReference, type: enumOf('BATCH_SCHEDULED', 'BATCH_AD_HOC', 'STREAMING')},
  )),
  versioned('dataProcessInstanceRelationships', `${P}DataProcessInstanceRelationships`, record(
    {upstreamInstances: arrayOf(urn)},
    {parentTemplate: urn, parentInstance: urn},
  )),
]
