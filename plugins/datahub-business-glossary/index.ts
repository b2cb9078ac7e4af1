/**
 * Source `datahub-business-glossary`: a glossary YAML (or JSON) file into glossary nodes and
 * terms, as DataHub's source of the same name emits them.
 *
 * Glossary (of this module):
 * - path: the `.`-joined names of a node's or term's ancestors and itself
 *   (`Personal Information.Email`); it is the id unless `id` is given, or unless
 *   `enable_auto_id` is on or the path holds one of `, ( ) %` — then the id is the md5 of
 *   `{"path": "<path>"}` (DataHub's `datahub_guid`).
 * - inherited owners: a node or term without `owners` takes its nearest ancestor's.
 *
 * Order of output (depth first, nodes before root terms): a node's MCE (info, ownership), its
 * knowledge links, its child nodes, its terms; per term a `domains` proposal when set, the MCE
 * (info, related terms, ownership), its knowledge links. Then `status` for every urn (auto status).
 */
import {createHash} from 'node:crypto'
import {ConfigError, readDataFile, mceToProposals, mcp, pyStr, type PluginContext, type Source, type SourcePlugin, type WorkUnit, validateConfig, configSchema, type ConfigOf} from '../../src/sdk/index.js'

export type GlossaryConfig = ConfigOf<typeof CONFIG>

interface Owners {
  type?: string
  typeUrn?: string
  users?: string[]
  groups?: string[]
}
interface Link {
  label?: string
  url?: string
}
interface TermDef {
  id?: string
  name: string
  description: string
  term_source?: string
  source_ref?: string
  source_url?: string
  owners?: Owners
  inherits?: string[]
  contains?: string[]
  values?: string[]
  related_terms?: string[]
  custom_properties?: Record<string, unknown>
  knowledge_links?: Link[]
  domain?: string
}
interface NodeDef {
  id?: string
  name: string
  description: string
  owners?: Owners
  terms?: TermDef[]
  nodes?: NodeDef[]
  knowledge_links?: Link[]
  custom_properties?: Record<string, unknown>
}
interface GlossaryDoc {
  version: number | string
  source?: string
  owners: Owners
  url?: string
  source_type?: string
  nodes?: NodeDef[]
  terms?: TermDef[]
}

const strList = {type: 'array', items: {type: 'string'}}
const owners = {
  type: 'object',
  properties: {type: {type: 'string'}, typeUrn: {type: 'string'}, users: strList, groups: strList},
  additionalProperties: false,
}
const links = {type: 'array', items: {type: 'object', properties: {label: {type: 'string'}, url: {type: 'string'}}, additionalProperties: false}}
const props = {type: 'object'}
const term = {
  type: 'object',
  properties: {
    id: {type: 'string'},
    name: {type: 'string'},
    description: {type: 'string'},
    term_source: {type: 'string'},
    source_ref: {type: 'string'},
    source_url: {type: 'string'},
    owners,
    inherits: strList,
    contains: strList,
    values: strList,
    related_terms: strList,
    custom_properties: props,
    knowledge_links: links,
    domain: {type: 'string'},
  },
  required: ['name', 'description'],
  additionalProperties: false,
}
const GLOSSARY_SCHEMA = {
  definitions: {
    node: {
      type: 'object',
      properties: {
        id: {type: 'string'},
        name: {type: 'string'},
        description: {type: 'string'},
        owners,
        terms: {type: 'array', items: term},
        nodes: {type: 'array', items: {$ref: '#/definitions/node'}},
        knowledge_links: links,
        custom_properties: props,
      },
      required: ['name', 'description'],
      additionalProperties: false,
    },
  },
  type: 'object',
  properties: {
    version: {type: ['integer', 'string']},
    source: {type: 'string'},
    owners,
    url: {type: 'string'},
    source_type: {type: 'string'},
    nodes: {type: 'array', items: {$ref: '#/definitions/node'}},
    terms: {type: 'array', items: term},
  },
  required: ['version', 'owners'],
  additionalProperties: false,
}

const OWNERSHIP_TYPES = ['CUSTOM', 'TECHNICAL_OWNER', 'BUSINESS_OWNER', 'DATA_STEWARD', 'NONE', 'DEVELOPER', 'DATAOWNER', 'DELEGATE', 'PRODUCER', 'CONSUMER', 'STAKEHOLDER']

/** Python's `json.dumps` escaping (ensure_ascii) of one string, for id hashing. */
function pyJsonString(s: string): string {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (ch === '"') out += '\\"'
    else if (ch === '\\') out += '\\\\'
    else if (c === 0x0a) out += '\\n'
    else if (c === 0x0d) out += '\\r'
    else if (c === 0x09) out += '\\t'
    else if (c === 0x08) out += '\\b'
    else if (c === 0x0c) out += '\\f'
    else if (c < 0x20 || c > 0x7e) {
      const units = c > 0xffff ? [0xd800 + ((c - 0x10000) >> 10), 0xdc00 + ((c - 0x10000) & 0x3ff)] : [c]
      for (const u of units) out += `\\u${u.toString(16).padStart(4, '0')}`
    } else out += ch
  }
  return out + '"'
}

/** DataHub's `datahub_guid({"path": path})`. */
export function glossaryGuid(path: string): string {
  return createHash('md5').update(`{"path":${pyJsonString(path)}}`).digest('hex')
}

function customProps(p: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(p ?? {})) out[k] = pyStr(v)
  return out
}

class GlossaryEmitter {
  /** path → urn of every term, for inherits/contains/values/related_terms. */
  private readonly termUrns = new Map<string, string>()
  readonly urns: string[] = []

  constructor(
    private readonly doc: GlossaryDoc,
    private readonly autoId: boolean,
    private readonly ctx: PluginContext,
  ) {
    const walk = (nodes: NodeDef[] | undefined, terms: TermDef[] | undefined, parent: string[]): void => {
      for (const n of nodes ?? []) walk(n.nodes, n.terms, [...parent, n.name])
      for (const t of terms ?? []) this.termUrns.set([...parent, t.name].join('.'), this.urnFor('glossaryTerm', t.id, [...parent, t.name]))
    }
    walk(doc.nodes, doc.terms, [])
  }

  private urnFor(type: 'glossaryTerm' | 'glossaryNode', id: string | undefined, path: string[]): string {
    const prefix = `urn:li:${type}:`
    if (id) return id.startsWith(prefix) ? id : prefix + id
    const joined = path.join('.')
    if (this.autoId || /[,()%]/.test(joined)) return prefix + glossaryGuid(joined)
    return prefix + joined
  }

  private ownership(o: Owners, where: string): Record<string, unknown> {
    let type = (o.type ?? 'DEVELOPER').trim()
    let typeUrn = o.typeUrn
    if (type.startsWith('urn:li:')) {
      typeUrn = type
      type = 'CUSTOM'
    } else {
      type = type.toUpperCase()
      if (!OWNERSHIP_TYPES.includes(type)) throw new ConfigError(`${where}: owners.type '${o.type}' is not an ownership type (one of ${OWNERSHIP_TYPES.join(', ')}, or an ownershipType urn)`)
    }
    const entry = (owner: string): Record<string, unknown> => ({owner, type, ...(typeUrn ? {typeUrn} : {})})
    const owners = [
      ...(o.users ?? []).map((u) => entry(u.startsWith('urn:li:corpuser:') ? u : `urn:li:corpuser:${u}`)),
      ...(o.groups ?? []).map((g) => entry(g.startsWith('urn:li:corpGroup:') ? g : `urn:li:corpGroup:${g}`)),
    ]
    return {owners, lastModified: {time: 0, actor: 'urn:li:corpuser:unknown'}}
  }

  private resolveTerm(path: string, field: string, owner: string): string {
    const urn = this.termUrns.get(path)
    if (urn) return urn
    if (path.startsWith('urn:li:glossaryTerm:')) return path
    this.ctx.report.warning('unresolved term reference', `${owner}: ${field} names '${path}', which is not a term of this glossary`)
    return `urn:li:glossaryTerm:${path}`
  }

  private knowledge(urn: string, links: Link[] | undefined): WorkUnit | undefined {
    const elements = (links ?? [])
      .filter((l) => l.label && l.url)
      .map((l) => ({url: l.url, description: l.label, createStamp: {time: this.ctx.now(), actor: 'urn:li:corpuser:datahub', message: 'ingestion bot'}}))
    if ((links ?? []).length > elements.length) this.ctx.report.warning('incomplete knowledge link', `${urn}: a knowledge link without label or url was skipped`)
    if (elements.length === 0) return undefined
    return {id: `${urn}-institutionalMemory`, kind: 'mcp', proposals: [mcp(urn, 'institutionalMemory', {elements})]}
  }

  private mce(snapshot: string, urn: string, aspects: Array<[string, unknown]>): WorkUnit {
    const record = {proposedSnapshot: {[`com.linkedin.metadata.snapshot.${snapshot}`]: {urn, aspects: aspects.map(([cls, v]) => ({[cls]: v}))}}}
    return {id: urn, kind: 'mce', proposals: mceToProposals(record, urn)}
  }

  *nodes(nodes: NodeDef[] | undefined, parentPath: string[], parentUrn: string | undefined, owners: Owners): Generator<WorkUnit> {
    for (const n of nodes ?? []) {
      const path = [...parentPath, n.name]
      const urn = this.urnFor('glossaryNode', n.id, path)
      this.urns.push(urn)
      const nodeOwners = n.owners ?? owners
      const info: Record<string, unknown> = {customProperties: customProps(n.custom_properties), definition: n.description, ...(parentUrn ? {parentNode: parentUrn} : {}), name: n.name}
      yield this.mce('GlossaryNodeSnapshot', urn, [
        ['com.linkedin.glossary.GlossaryNodeInfo', info],
        ['com.linkedin.common.Ownership', this.ownership(nodeOwners, urn)],
      ])
      const k = this.knowledge(urn, n.knowledge_links)
      if (k) yield k
      yield* this.nodes(n.nodes, path, urn, nodeOwners)
      yield* this.terms(n.terms, path, urn, nodeOwners)
    }
  }

  *terms(terms: TermDef[] | undefined, parentPath: string[], parentUrn: string | undefined, owners: Owners): Generator<WorkUnit> {
    const d = this.doc
    for (const t of terms ?? []) {
      const urn = this.termUrns.get([...parentPath, t.name].join('.'))!
      this.urns.push(urn)
      const info: Record<string, unknown> = {
        customProperties: customProps(t.custom_properties),
        name: t.name,
        definition: t.description,
        ...(parentUrn ? {parentNode: parentUrn} : {}),
        termSource: t.term_source ?? d.source_type ?? 'INTERNAL',
        ...((t.source_ref ?? d.source) !== undefined ? {sourceRef: t.source_ref ?? d.source} : {}),
        ...((t.source_url ?? d.url) !== undefined ? {sourceUrl: t.source_url ?? d.url} : {}),
      }
      const related: Record<string, string[]> = {}
      const rel = (field: keyof TermDef, key: string): void => {
        const list = t[field] as string[] | undefined
        if (list && list.length > 0) related[key] = list.map((p) => this.resolveTerm(p, String(field), urn))
      }
      rel('inherits', 'isRelatedTerms')
      rel('contains', 'hasRelatedTerms')
      rel('values', 'values')
      rel('related_terms', 'relatedTerms')
      if (t.domain) {
        const domain = t.domain.startsWith('urn:li:domain:') ? t.domain : `urn:li:domain:${t.domain}`
        yield {id: `${urn}-domains`, kind: 'mcp', proposals: [mcp(urn, 'domains', {domains: [domain]})]}
      }
      const aspects: Array<[string, unknown]> = [['com.linkedin.glossary.GlossaryTermInfo', info]]
      if (Object.keys(related).length > 0) aspects.push(['com.linkedin.glossary.GlossaryRelatedTerms', related])
      aspects.push(['com.linkedin.common.Ownership', this.ownership(t.owners ?? owners, urn)])
      yield this.mce('GlossaryTermSnapshot', urn, aspects)
      const k = this.knowledge(urn, t.knowledge_links)
      if (k) yield k
    }
  }
}

const CONFIG = configSchema({
  type: 'object',
  properties: {file: {type: 'string', minLength: 1}, enable_auto_id: {type: 'boolean', default: false}},
  required: ['file'],
  additionalProperties: false,
})

const plugin: SourcePlugin<GlossaryConfig> = {
  description: 'Glossary nodes and terms from a business glossary YAML file.',
  autoStatus: true,
  configSchema: CONFIG,
  create(config, ctx): Source {
    const file = ctx.resolvePath(config.file)
    const doc = readDataFile(file, 'yaml') as GlossaryDoc
    if (doc === null || typeof doc !== 'object') throw new ConfigError(`${file} must hold a glossary mapping (version, owners, nodes, terms)`)
    validateConfig(GLOSSARY_SCHEMA, doc, {file, base: '', what: 'business glossary'})
    if (String(doc.version) !== '1') throw new ConfigError(`${file}: version: only version 1 is supported, got ${doc.version}`)
    const emitter = new GlossaryEmitter(doc, config.enable_auto_id, ctx)
    return {
      async *workunits() {
        yield* emitter.nodes(doc.nodes, [], undefined, doc.owners)
        yield* emitter.terms(doc.terms, [], undefined, doc.owners)
        ctx.report.count('nodesAndTerms', emitter.urns.length)
      },
    }
  },
}

export default plugin
