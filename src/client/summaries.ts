/**
 * What a person needs to tell search results apart: an entity's name, platform, container path
 * and description, read for a page of urns in one GraphQL request.
 *
 * Glossary:
 * - summary: those fields of one entity, with its urn and type; what `mdcli search` prints.
 * - container path: the containers an entity sits in, outermost first (database, then schema),
 *   each by name; a container without a name shows its urn's id.
 */
import type {MdcliClient} from './client.js'

export interface EntitySummary {
  urn: string
  /** The registry's entity type name (`dataset`, `glossaryTerm`, …). */
  entityType: string
  /** The display name; the urn's id part when the entity has none. */
  name: string
  /** The data platform's name (`postgres`), for entity types that have one. */
  platform?: string
  /** The entity's sub type (`Table`, `View`, `Schema`), when it has one. */
  subType?: string
  containerPath: Array<{urn: string; name: string}>
  description?: string
}

const NAMED = 'properties { name description } editableProperties { description }'
const PLACED = 'platform { name } parentContainers { containers { urn properties { name } } } subTypes { typeNames }'

// One fragment a type: the schema spells name and description a little differently for each.
const QUERY = `query summaries($urns: [String!]!) { entities(urns: $urns) { urn
  ... on Dataset { name ${NAMED} ${PLACED} }
  ... on Container { ${NAMED} ${PLACED} }
  ... on Chart { ${NAMED} ${PLACED} }
  ... on Dashboard { ${NAMED} ${PLACED} }
  ... on DataFlow { ${NAMED} platform { name } subTypes { typeNames } }
  ... on DataJob { ${NAMED} dataFlow { platform { name } } subTypes { typeNames } }
  ... on GlossaryTerm { properties { name description } parentNodes { nodes { urn properties { name } } } }
  ... on GlossaryNode { properties { name description } parentNodes { nodes { urn properties { name } } } }
  ... on Tag { properties { name description } }
  ... on Domain { properties { name description } }
  ... on DataProduct { properties { name description } }
  ... on CorpUser { username properties { displayName } }
  ... on CorpGroup { name properties { displayName description } }
  ... on DataPlatform { name properties { displayName } }
  ... on MLModel { name platform { name } properties { description } }
  ... on MLModelGroup { name platform { name } properties { description } }
  ... on MLFeatureTable { name platform { name } properties { description } }
  ... on MLFeature { name properties { description } }
  ... on MLPrimaryKey { name properties { description } }
  ... on Notebook { platform { name } info { title description } }
} }`

type Obj = Record<string, any>

/** The readable id of an urn: `urn:li:container:abc` → `abc`; a tuple key → its last part. */
function idOf(urn: string): string {
  const rest = urn.split(':').slice(3).join(':')
  const m = /^\((.*)\)$/.exec(rest)
  if (!m) return rest
  const parts = m[1]!.split(',')
  return parts.length > 1 ? parts[parts.length - 2]! : parts[0]!
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined
}

function summaryOf(urn: string, entityType: string, e: Obj | null | undefined): EntitySummary {
  const p = e?.properties ?? {}
  const name = text(p.name) ?? text(p.displayName) ?? text(e?.info?.title) ?? text(e?.name) ?? text(e?.username) ?? idOf(urn)
  const description = text(e?.editableProperties?.description) ?? text(p.description) ?? text(e?.info?.description)
  const platform = text(e?.platform?.name) ?? text(e?.dataFlow?.platform?.name)
  const subType = text(e?.subTypes?.typeNames?.[0])
  // GraphQL lists the nearest parent first; a path reads from the outermost.
  const parents: Obj[] = e?.parentContainers?.containers ?? e?.parentNodes?.nodes ?? []
  const containerPath = [...parents].reverse().map((c) => ({urn: String(c.urn), name: text(c.properties?.name) ?? idOf(String(c.urn))}))
  return {
    urn,
    entityType,
    name,
    ...(platform && platform !== 'unknown' ? {platform} : {}),
    ...(subType ? {subType} : {}),
    containerPath,
    ...(description ? {description} : {}),
  }
}

/** Summaries of `entities` (from a search page), in the same order; one request. */
export async function summarize(client: MdcliClient, entities: Array<{urn: string; entityType: string}>): Promise<EntitySummary[]> {
  if (entities.length === 0) return []
  const data = await client.graphqlData<{entities: Array<Obj | null>}>(QUERY, {urns: entities.map((e) => e.urn)})
  const byUrn = new Map<string, Obj>()
  for (const e of data.entities ?? []) if (e && typeof e.urn === 'string') byUrn.set(e.urn, e)
  return entities.map((e) => summaryOf(e.urn, e.entityType, byUrn.get(e.urn)))
}
