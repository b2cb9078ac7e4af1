/**
 * Transformers `simple_add_dataset_ownership` (`owner_urns`) and `pattern_add_dataset_ownership`
 * (`owner_pattern.rules`: urn regex → owner urns): add owners to datasets. `ownership_type`
 * (default DATAOWNER) may be an ownership type name or an `urn:li:ownershipType:` urn (CUSTOM).
 * With semantics PATCH, an owner the server already lists takes the configured type rather than
 * being listed twice. `default_actor` (a user urn) is the actor of the `lastModified` stamp the
 * transformer gives an ownership aspect that has none (default `urn:li:corpuser:datahub`).
 */
import {ConfigError, listEdit, transformerPair} from '../../src/sdk/index.js'

interface Owner {
  owner: string
  type: string
  typeUrn?: string
}

const TYPES = ['CUSTOM', 'TECHNICAL_OWNER', 'BUSINESS_OWNER', 'DATA_STEWARD', 'NONE', 'DEVELOPER', 'DATAOWNER', 'DELEGATE', 'PRODUCER', 'CONSUMER', 'STAKEHOLDER']

function owners(urns: string[], config: Record<string, any>): Owner[] {
  const t = String(config.ownership_type ?? 'DATAOWNER')
  const custom = t.startsWith('urn:li:')
  if (!custom && !TYPES.includes(t.toUpperCase())) throw new ConfigError(`ownership_type '${t}' is not one of ${TYPES.join(', ')} (or an ownershipType urn)`)
  return urns.map((u) => ({owner: u, type: custom ? 'CUSTOM' : t.toUpperCase(), ...(custom ? {typeUrn: t} : {})}))
}

const edit = (config: Record<string, any>) => ({
  // `default_actor` (DataHub's key) stamps `lastModified` when the aspect has no stamp yet.
  ...listEdit<Owner>('ownership', 'owners', (o) => `${o.owner}|${o.typeUrn ?? o.type}`, {field: 'lastModified', actor: String(config.default_actor ?? 'urn:li:corpuser:datahub')}),
  // PATCH: an owner the server has keeps its place and takes the configured type (DataHub:
  // "if owner ids match, but the ownership type differs, we prefer the transformers opinion").
  patchKey: (o: Owner) => o.owner,
})

export const {simple, pattern} = transformerPair<Owner>({
  edit,
  description: 'Adds owners to datasets',
  simpleKey: 'owner_urns',
  patternKey: 'owner_pattern',
  itemSchema: {type: 'string', pattern: '^urn:li:(corpuser|corpGroup):'},
  extraProps: {ownership_type: {type: 'string', default: 'DATAOWNER'}, default_actor: {type: 'string', pattern: '^urn:li:(corpuser|corpGroup):'}},
  toAdditions: owners,
})
