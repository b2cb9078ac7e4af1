/**
 * The machinery behind the `*_add_dataset_*` transformers (DataHub's DatasetTransformer).
 *
 * Glossary:
 * - additions: what a transformer adds to one dataset (owners, tags, terms, domains); `simple_`
 *   transformers add the same to every dataset, `pattern_` ones what the first rule whose regex
 *   matches the urn (anchored at its start, like Python's `re.match`) lists — or, with
 *   `first_match_only: false`, every matching rule (DataHub's KeyValuePattern).
 * - semantics: OVERWRITE (default) merges the additions into the aspect as the stream carries it
 *   (or writes the additions alone when the stream has none, replacing the server's value);
 *   PATCH also keeps what the server holds now, read once per dataset when a server answers.
 *
 * An aspect present in the stream is changed in place; datasets whose stream had no such aspect
 * get a new proposal after the source's last work unit.
 */
import {pythonRegex} from './patterns.js'
import {mcp, type PluginContext, type ProposalInput, type Transform, type TransformerPlugin, type WorkUnit, type WorkUnitStream, type JsonSchema} from './plugin.js'

export type Semantics = 'OVERWRITE' | 'PATCH'

export interface AspectEdit<A> {
  aspectName: string
  /** The items (owners, tags, terms, domains) an aspect value holds. */
  items(value: Record<string, any> | undefined): A[]
  /** Identity of an item, for de-duplication. */
  key(item: A): string
  /**
   * Identity of an item when PATCH merges the transformer's items into the server's, where it is
   * coarser than `key`: an item of the server sharing it with one of the transformer's is replaced
   * by the transformer's, in the server's place (DataHub's ownership PATCH: an owner urn already
   * on the server takes the transformer's ownership type). Without it, `key` decides and the
   * server's item is kept.
   */
  patchKey?(item: A): string
  /** The aspect value holding `items`, keeping `base`'s other fields (audit stamps …). */
  build(base: Record<string, any> | undefined, items: A[], ctx: PluginContext): Record<string, any>
}

/**
 * The edit of an aspect that holds one list of items in `field` (tags, terms, domains, owners),
 * keeping the value's other fields. `stamp` names an audit stamp the aspect requires, set to
 * now and `stamp.actor` when the value has none (DataHub's transformers stamp their emitter).
 */
export function listEdit<A>(aspectName: string, field: string, key: (item: A) => string, stamp?: {field: string; actor: string}): AspectEdit<A> {
  return {
    aspectName,
    items: (v) => (v?.[field] ?? []) as A[],
    key,
    build: (base, items, ctx) => ({...(base ?? {}), [field]: items, ...(stamp ? {[stamp.field]: base?.[stamp.field] ?? {time: ctx.now(), actor: stamp.actor}} : {})}),
  }
}

export interface TransformerSettings {
  semantics: Semantics
  replace_existing?: boolean
}

function parseAspect(p: ProposalInput): Record<string, any> | undefined {
  const a = p.aspect
  if (!a) return undefined
  if (a.json !== undefined) return a.json as Record<string, any>
  if (typeof a.value === 'string') {
    try {
      return JSON.parse(a.value) as Record<string, any>
    } catch {
      return undefined
    }
  }
  return a.value as Record<string, any> | undefined
}

function union<A>(edit: AspectEdit<A>, ...lists: A[][]): A[] {
  const seen = new Set<string>()
  const out: A[] = []
  for (const list of lists) {
    for (const x of list) {
      const k = edit.key(x)
      if (seen.has(k)) continue
      seen.add(k)
      out.push(x)
    }
  }
  return out
}

/**
 * The server's items with the transformer's (`ours`) merged in by `edit.patchKey`: a server item
 * whose patch key one of ours has gives way to all of ours with it, in its place; the rest of
 * ours follow.
 */
function patchMerge<A>(edit: AspectEdit<A>, patchKey: (item: A) => string, server: A[], ours: A[]): A[] {
  const byKey = new Map<string, A[]>()
  for (const x of ours) {
    const k = patchKey(x)
    const list = byKey.get(k)
    if (list) list.push(x)
    else byKey.set(k, [x])
  }
  const out: A[] = []
  const placed = new Set<string>()
  for (const x of server) {
    const k = patchKey(x)
    const mine = byKey.get(k)
    if (!mine) out.push(x)
    else if (!placed.has(k)) {
      placed.add(k)
      out.push(...mine)
    }
  }
  for (const x of ours) if (!placed.has(patchKey(x))) out.push(x)
  return union(edit, out)
}

/**
 * Builds the stream function of a dataset transformer. `endOfStream` gets every item added to a
 * dataset during the run (each once) and answers proposals to send after the stream (DataHub's
 * `handle_end_of_stream`: the tags transformer creates the tags it added).
 */
export function datasetTransform<A>(
  edit: AspectEdit<A>,
  additionsFor: (urn: string) => A[],
  settings: TransformerSettings,
  ctx: PluginContext,
  endOfStream?: (added: A[]) => ProposalInput[],
): Transform {
  const patch = settings.semantics === 'PATCH'
  const replace = settings.replace_existing ?? false
  const serverValue = async (urn: string): Promise<Record<string, any> | undefined> => {
    if (!patch) return undefined
    const graph = await ctx.graph()
    if (!graph) return undefined
    try {
      const e = await graph.getEntity(urn, [edit.aspectName])
      return e.aspects[edit.aspectName]?.value as Record<string, any> | undefined
    } catch (e) {
      if ((e as {code?: string}).code !== 'E_NOT_FOUND') ctx.report.warning('read failed', `${urn}: could not read ${edit.aspectName} (${(e as Error).message}); writing without it`)
      return undefined
    }
  }
  /** stream value + server value (PATCH) + additions → the new aspect value. */
  const combine = async (urn: string, stream: Record<string, any> | undefined, additions: A[]): Promise<Record<string, any>> => {
    const server = await serverValue(urn)
    const ours = union(edit, replace ? [] : edit.items(stream), additions)
    const items = edit.patchKey && server ? patchMerge(edit, edit.patchKey, edit.items(server), ours) : union(edit, edit.items(server), ours)
    return edit.build(stream ?? server, items, ctx)
  }
  return async function* (stream: WorkUnitStream): AsyncGenerator<WorkUnit> {
    if (patch && !(await ctx.graph())) ctx.report.warning('no server', `semantics PATCH: no server answers, so ${edit.aspectName} is merged with the stream only`)
    // Datasets seen, and whether their aspect came through the stream (then it was edited in place).
    const seen = new Map<string, boolean>()
    const added = new Map<string, A>()
    const note = (additions: A[]): void => {
      if (endOfStream) for (const a of additions) if (!added.has(edit.key(a))) added.set(edit.key(a), a)
    }
    for await (const wu of stream) {
      for (const p of wu.proposals) {
        const urn = p.entityUrn
        if (typeof urn !== 'string' || !urn.startsWith('urn:li:dataset:')) continue
        if (!seen.has(urn)) seen.set(urn, false)
        if (p.aspectName !== edit.aspectName || (p.changeType ?? 'UPSERT') !== 'UPSERT') continue
        seen.set(urn, true)
        const additions = additionsFor(urn)
        if (additions.length === 0 && !replace) continue
        note(additions)
        p.aspect = {json: await combine(urn, parseAspect(p), additions)}
        ctx.report.count('aspectsChanged')
      }
      yield wu
    }
    for (const [urn, handled] of seen) {
      if (handled) continue
      const additions = additionsFor(urn)
      if (additions.length === 0) continue
      note(additions)
      ctx.report.count('aspectsAdded')
      yield {id: `txform-${edit.aspectName}-${urn}`, kind: 'mcp', proposals: [mcp(urn, edit.aspectName, await combine(urn, undefined, additions))]}
    }
    if (endOfStream && added.size > 0) {
      for (const p of endOfStream([...added.values()])) {
        ctx.report.count('endOfStreamProposals')
        yield {id: `txform-end-${String(p.aspectName)}-${String(p.entityUrn)}`, kind: 'mcp', proposals: [p]}
      }
    }
  }
}

/**
 * Compiles the `rules` of a pattern transformer (regex → values): Python regexes, as DataHub's
 * recipes write them (see pythonRegex).
 */
export function compileRules<T>(rules: Record<string, T[]>, where: string): Array<[RegExp, T[]]> {
  return Object.entries(rules).map(([pattern, values]) => [pythonRegex(pattern, '', `${where} rule`), values] as [RegExp, T[]])
}

/**
 * The values of the rules matching `urn`: those of the first matching rule only (DataHub's
 * KeyValuePattern default), or, with `firstMatchOnly` false, of every matching rule in order,
 * each value once.
 */
export function matchRules<T>(rules: Array<[RegExp, T[]]>, urn: string, firstMatchOnly = true): T[] {
  const out: T[] = []
  for (const [re, values] of rules) {
    if (!re.test(urn)) continue
    if (firstMatchOnly) return [...values]
    for (const v of values) if (!out.includes(v)) out.push(v)
  }
  return out
}

export const SEMANTICS_SCHEMA: JsonSchema = {enum: ['OVERWRITE', 'PATCH'], default: 'OVERWRITE'}

/** Builds the `simple_` and `pattern_` transformer pair of one aspect. */
export function transformerPair<A>(opts: {
  /** The aspect edit, or a function of the transformer's config answering it (an audit stamp's actor). */
  edit: AspectEdit<A> | ((config: Record<string, any>) => AspectEdit<A>)
  description: string
  /** Config key of the simple form (`owner_urns`) and its item schema. */
  simpleKey: string
  patternKey: string
  itemSchema: JsonSchema
  extraProps?: Record<string, JsonSchema>
  toAdditions: (values: string[], config: Record<string, any>) => A[]
  /**
   * Turns the configured values into what `toAdditions` takes, once per run before the first work
   * unit (a domain's name into its urn, asking the server): every distinct value of the config
   * (`where` names its key), answered as a map of the values it changes. Throws ConfigError for a
   * value it cannot resolve.
   */
  resolve?: (values: string[], ctx: PluginContext, where: string) => Promise<Map<string, string>>
  /** Proposals to send after the stream, from every item the run added (see datasetTransform). */
  endOfStream?: (added: A[]) => ProposalInput[]
}): {simple: TransformerPlugin; pattern: TransformerPlugin} {
  const editOf = (config: Record<string, any>): AspectEdit<A> => (typeof opts.edit === 'function' ? opts.edit(config) : opts.edit)
  const resolved = async (values: string[], ctx: PluginContext, where: string): Promise<(v: string) => string> => {
    if (!opts.resolve) return (v) => v
    const map = await opts.resolve([...new Set(values)], ctx, where)
    return (v) => map.get(v) ?? v
  }
  const common = {semantics: SEMANTICS_SCHEMA, replace_existing: {type: 'boolean', default: false}, ...(opts.extraProps ?? {})}
  const simple: TransformerPlugin<Record<string, any>> = {
    description: `${opts.description} (the same for every dataset)`,
    configSchema: {
      type: 'object',
      properties: {[opts.simpleKey]: {type: 'array', items: opts.itemSchema, minItems: 1}, ...common},
      required: [opts.simpleKey],
      additionalProperties: false,
    },
    async create(config, ctx) {
      const values = config[opts.simpleKey] as string[]
      const map = await resolved(values, ctx, opts.simpleKey)
      const additions = opts.toAdditions(values.map(map), config)
      return datasetTransform(editOf(config), () => additions, config as TransformerSettings, ctx, opts.endOfStream)
    },
  }
  const pattern: TransformerPlugin<Record<string, any>> = {
    description: `${opts.description} (by urn pattern)`,
    configSchema: {
      type: 'object',
      properties: {
        [opts.patternKey]: {
          type: 'object',
          properties: {
            rules: {type: 'object', additionalProperties: {type: 'array', items: opts.itemSchema}},
            first_match_only: {type: 'boolean', default: true},
          },
          required: ['rules'],
          additionalProperties: false,
        },
        ...common,
      },
      required: [opts.patternKey],
      additionalProperties: false,
    },
    async create(config, ctx) {
      const where = `${opts.patternKey}.rules`
      const rules = compileRules(config[opts.patternKey].rules as Record<string, string[]>, where)
      const firstMatchOnly = config[opts.patternKey].first_match_only !== false
      // Checks the rest of the config now rather than at the first matching dataset.
      opts.toAdditions([], config)
      const map = await resolved(rules.flatMap(([, values]) => values), ctx, where)
      for (const rule of rules) rule[1] = rule[1].map(map)
      const cache = new Map<string, A[]>()
      const additionsFor = (urn: string): A[] => {
        let a = cache.get(urn)
        if (!a) {
          a = opts.toAdditions(matchRules(rules, urn, firstMatchOnly), config)
          // Bounded: a pattern transformer asks about a dataset twice at most (in stream, at the end).
          if (cache.size > 10_000) cache.clear()
          cache.set(urn, a)
        }
        return a
      }
      return datasetTransform(editOf(config), additionsFor, config as TransformerSettings, ctx, opts.endOfStream)
    },
  }
  return {simple, pattern}
}
