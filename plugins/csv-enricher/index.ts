/**
 * Source `csv-enricher`: adds glossary terms, tags, owners, descriptions and domains to existing
 * entities (and tags, terms, descriptions to dataset fields) from a CSV file.
 *
 * Glossary:
 * - resource: the entity urn of a row; subresource: a field path of that dataset (then the row
 *   edits `editableSchemaMetadata` for that field).
 * - array cell: `[a|b|c]` — brackets stripped, split on `array_delimiter`, only `urn:li:` items kept.
 * - write semantics: OVERRIDE writes the file's values as the whole aspects; PATCH (default) reads
 *   the current aspects from the server and merges (needs a reachable server).
 *
 * Header: resource,subresource,glossary_terms,tags,owners,ownership_type,description,domain,ownership_type_urn
 */
import {ConfigError, readText, type ServerClient as MdcliClient, findEntity, parseUrn, parseCsv, mcp, type PluginContext, type ProposalInput, type SourcePlugin, type WorkUnit, configSchema, type ConfigOf} from '../../src/sdk/index.js'

export type CsvEnricherConfig = ConfigOf<typeof CONFIG>

const OWNERSHIP_TYPES = ['CUSTOM', 'TECHNICAL_OWNER', 'BUSINESS_OWNER', 'DATA_STEWARD', 'NONE', 'DEVELOPER', 'DATAOWNER', 'DELEGATE', 'PRODUCER', 'CONSUMER', 'STAKEHOLDER']
const ACTOR = 'urn:li:corpuser:ingestion'

interface Owner {
  owner: string
  type: string
  typeUrn?: string
}
interface FieldEdit {
  fieldPath: string
  description?: string
  tags: string[]
  terms: string[]
}
interface ResourceEdit {
  urn: string
  entityType: string
  terms: string[]
  tags: string[]
  owners: Owner[]
  description?: string
  domain?: string
  fields: Map<string, FieldEdit>
}

type Aspect = Record<string, any>

const uniq = <T>(xs: T[], key: (x: T) => string = String): T[] => {
  const seen = new Set<string>()
  return xs.filter((x) => (seen.has(key(x)) ? false : (seen.add(key(x)), true)))
}

function accepts(entityType: string, aspect: string): boolean {
  return findEntity(entityType)?.aspects.includes(aspect) ?? false
}

class Enricher {
  readonly resources = new Map<string, ResourceEdit>()

  constructor(
    private readonly config: CsvEnricherConfig,
    private readonly ctx: PluginContext,
    private readonly file: string,
  ) {}

  private cells(raw: string | undefined, line: number, column: string): string[] {
    if (!raw) return []
    const inner = raw.trim().replace(/^\[/, '').replace(/\]$/, '')
    const items = inner.split(this.config.array_delimiter).map((x) => x.trim()).filter((x) => x !== '')
    const bad = items.filter((x) => !x.startsWith('urn:li:'))
    if (bad.length > 0) this.ctx.report.warning('not an urn', `line ${line}: ${column} item(s) ${bad.map((b) => `'${b}'`).join(', ')} are not urns; skipped`)
    return items.filter((x) => x.startsWith('urn:li:'))
  }

  addRow(line: number, v: Record<string, string>): void {
    const where = `${this.file} line ${line}`
    const resource = v.resource ?? ''
    if (resource === '') {
      this.ctx.report.failure('row without resource', `${where}: every row needs a resource`)
      return
    }
    let entityType: string
    try {
      entityType = parseUrn(resource).entityType
    } catch (e) {
      this.ctx.report.failure('bad resource', `${where}: ${(e as Error).message}`)
      return
    }
    let r = this.resources.get(resource)
    if (!r) {
      r = {urn: resource, entityType, terms: [], tags: [], owners: [], fields: new Map()}
      this.resources.set(resource, r)
    }
    const terms = this.cells(v.glossary_terms, line, 'glossary_terms')
    const tags = this.cells(v.tags, line, 'tags')
    const sub = v.subresource ?? ''
    if (sub !== '') {
      const f = r.fields.get(sub) ?? {fieldPath: sub, tags: [], terms: []}
      f.tags.push(...tags)
      f.terms.push(...terms)
      if (v.description) f.description = v.description
      r.fields.set(sub, f)
      return
    }
    r.terms.push(...terms)
    r.tags.push(...tags)
    const owners = this.cells(v.owners, line, 'owners')
    if (owners.length > 0) {
      const type = (v.ownership_type || 'NONE').toUpperCase()
      if (!OWNERSHIP_TYPES.includes(type)) {
        this.ctx.report.failure('bad ownership type', `${where}: ownership_type '${v.ownership_type}' is not one of ${OWNERSHIP_TYPES.join(', ')}`)
      } else if (type === 'CUSTOM' && !v.ownership_type_urn) {
        this.ctx.report.failure('bad ownership type', `${where}: ownership_type CUSTOM needs ownership_type_urn`)
      } else {
        for (const o of owners) r.owners.push({owner: o, type, ...(type === 'CUSTOM' ? {typeUrn: v.ownership_type_urn} : {})})
      }
    }
    if (v.description) r.description = v.description
    if (v.domain) r.domain = v.domain.startsWith('urn:li:') ? v.domain : `urn:li:domain:${v.domain}`
  }

  /** Proposals for one resource, merged with `current` aspects under PATCH. */
  proposals(r: ResourceEdit, current: Record<string, Aspect>): ProposalInput[] {
    const out: ProposalInput[] = []
    const now = this.ctx.now()
    const patch = this.config.write_semantics === 'PATCH'
    const skip = (what: string, aspect: string): void => this.ctx.report.warning('not applicable', `${r.urn}: ${what} ignored (${r.entityType} has no ${aspect})`)
    if (r.terms.length > 0) {
      if (!accepts(r.entityType, 'glossaryTerms')) skip('glossary_terms', 'glossaryTerms')
      else {
        const prev = patch ? ((current.glossaryTerms?.terms ?? []) as Array<{urn: string}>) : []
        out.push(mcp(r.urn, 'glossaryTerms', {terms: uniq([...prev, ...r.terms.map((urn) => ({urn}))], (t) => t.urn), auditStamp: {time: now, actor: ACTOR}}))
      }
    }
    if (r.tags.length > 0) {
      if (!accepts(r.entityType, 'globalTags')) skip('tags', 'globalTags')
      else {
        const prev = patch ? ((current.globalTags?.tags ?? []) as Array<{tag: string}>) : []
        out.push(mcp(r.urn, 'globalTags', {tags: uniq([...prev, ...r.tags.map((tag) => ({tag}))], (t) => t.tag)}))
      }
    }
    if (r.owners.length > 0) {
      if (!accepts(r.entityType, 'ownership')) skip('owners', 'ownership')
      else {
        const prev = patch ? ((current.ownership?.owners ?? []) as Owner[]) : []
        out.push(mcp(r.urn, 'ownership', {owners: uniq([...prev, ...r.owners], (o) => `${o.owner}|${o.type}|${o.typeUrn ?? ''}`), lastModified: {time: now, actor: ACTOR}}))
      }
    }
    if (r.description !== undefined) {
      if (r.entityType !== 'dataset') skip('description', 'editableDatasetProperties')
      else {
        const prev = patch ? (current.editableDatasetProperties ?? {}) : {}
        out.push(mcp(r.urn, 'editableDatasetProperties', {...prev, description: r.description}))
      }
    }
    if (r.domain !== undefined) {
      if (!accepts(r.entityType, 'domains')) skip('domain', 'domains')
      else out.push(mcp(r.urn, 'domains', {domains: [r.domain]}))
    }
    if (r.fields.size > 0) {
      if (r.entityType !== 'dataset') skip('subresource rows', 'editableSchemaMetadata')
      else {
        const prev = patch ? ((current.editableSchemaMetadata?.editableSchemaFieldInfo ?? []) as Aspect[]) : []
        const byPath = new Map<string, Aspect>(prev.map((f) => [f.fieldPath as string, {...f}]))
        for (const f of r.fields.values()) {
          const e: Aspect = byPath.get(f.fieldPath) ?? {fieldPath: f.fieldPath}
          if (f.description !== undefined) e.description = f.description
          if (f.tags.length > 0) e.globalTags = {tags: uniq([...((e.globalTags?.tags ?? []) as Array<{tag: string}>), ...f.tags.map((tag) => ({tag}))], (t) => t.tag)}
          if (f.terms.length > 0) {
            e.glossaryTerms = {
              terms: uniq([...((e.glossaryTerms?.terms ?? []) as Array<{urn: string}>), ...f.terms.map((urn) => ({urn}))], (t) => t.urn),
              auditStamp: {time: now, actor: ACTOR},
            }
          }
          byPath.set(f.fieldPath, e)
        }
        const base = patch && current.editableSchemaMetadata ? current.editableSchemaMetadata : {created: {time: now, actor: ACTOR}}
        out.push(mcp(r.urn, 'editableSchemaMetadata', {...base, lastModified: {time: now, actor: ACTOR}, editableSchemaFieldInfo: [...byPath.values()]}))
      }
    }
    return out
  }
}

const ASPECTS = ['glossaryTerms', 'globalTags', 'ownership', 'editableDatasetProperties', 'editableSchemaMetadata']

async function currentAspects(graph: MdcliClient, urn: string, entityType: string): Promise<Record<string, Aspect>> {
  const wanted = ASPECTS.filter((a) => accepts(entityType, a))
  try {
    const e = await graph.getEntity(urn, wanted)
    const out: Record<string, Aspect> = {}
    for (const [name, a] of Object.entries(e.aspects)) out[name] = a.value as Aspect
    return out
  } catch (e) {
    if ((e as {code?: string}).code === 'E_NOT_FOUND') return {}
    throw e
  }
}

const CONFIG = configSchema({
  type: 'object',
  properties: {
    filename: {type: 'string', minLength: 1},
    write_semantics: {enum: ['PATCH', 'OVERRIDE'], default: 'PATCH'},
    delimiter: {type: 'string', minLength: 1, maxLength: 1, default: ','},
    array_delimiter: {type: 'string', minLength: 1, maxLength: 1, default: '|'},
  },
  required: ['filename'],
  additionalProperties: false,
})

const plugin: SourcePlugin<CsvEnricherConfig> = {
  description: 'Adds terms, tags, owners, descriptions and domains to entities from a CSV file.',
  configSchema: CONFIG,
  // It adds to entities other sources produce: reviving one a rollback hid is not its call.
  autoStatus: false,
  async create(config, ctx) {
    if (config.delimiter === config.array_delimiter) throw new ConfigError(`csv-enricher: delimiter and array_delimiter must differ (both are '${config.delimiter}')`)
    const file = ctx.resolvePath(config.filename)
    const {header, rows} = parseCsv(readText(file), config.delimiter, file)
    if (!header.includes('resource')) throw new ConfigError(`${file}: the header row has no 'resource' column (found: ${header.join(', ')})`)
    let graph: MdcliClient | undefined
    if (config.write_semantics === 'PATCH') {
      graph = await ctx.graph()
      if (!graph) {
        throw new ConfigError(
          'csv-enricher with write_semantics PATCH merges with the current metadata and needs a reachable server (the datahub-rest sink, datahub_api in the recipe, or METADATA_GMS_URL); use write_semantics: OVERRIDE to write without reading',
        )
      }
    }
    const enricher = new Enricher(config, ctx, file)
    for (const r of rows) enricher.addRow(r.line, r.values)
    return {
      async *workunits(): AsyncGenerator<WorkUnit> {
        for (const r of enricher.resources.values()) {
          let current: Record<string, Aspect> = {}
          if (graph) {
            try {
              current = await currentAspects(graph, r.urn, r.entityType)
            } catch (e) {
              ctx.report.failure('read failed', `${r.urn}: could not read current metadata to merge with: ${(e as Error).message}`)
              continue
            }
          }
          const proposals = enricher.proposals(r, current)
          if (proposals.length === 0) continue
          ctx.report.count('resources')
          yield {id: `csv-enricher-${r.urn}`, kind: 'mcp', proposals}
        }
      },
    }
  },
}

export default plugin
