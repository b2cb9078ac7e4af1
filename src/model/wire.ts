/**
 * The wire vocabulary every layer speaks: a change proposal as it arrives (DataHub's
 * MetadataChangeProposal), its system metadata and the audit stamp. It lives in the model so
 * the model depends on nothing above it; the catalog, the store and plugins import it from here.
 */

/** Who changed something, and when (milliseconds since the epoch). */
export interface AuditStamp {
  time: number
  actor: string
}

/** Run bookkeeping carried with every aspect (DataHub's SystemMetadata). */
export interface SystemMetadata {
  lastObserved?: number
  runId?: string
  lastRunId?: string
  pipelineName?: string
  registryName?: string
  registryVersion?: string
  properties?: Record<string, string>
}

/**
 * A change proposal before it is checked: `aspect` arrives as `{value: "<json text>", contentType}`
 * (REST, older files) or `{json: {...}}` (newer file-sink output). Unknown keys are kept so they can
 * be refused by name rather than dropped.
 */
export interface ProposalInput {
  entityType?: string
  entityUrn?: string
  changeType?: string
  aspectName?: string
  aspect?: {value?: unknown; contentType?: string; json?: unknown} | null
  systemMetadata?: SystemMetadata | null
  [k: string]: unknown
}
