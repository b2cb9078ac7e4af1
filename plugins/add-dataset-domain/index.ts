/**
 * Transformers `simple_add_dataset_domain` (`domains`) and `pattern_add_dataset_domain`
 * (`domain_pattern.rules`: urn regex → domains): add domains to datasets.
 *
 * A domain is given as an `urn:li:domain:` urn, used as it is, or as an identifier resolved as
 * DataHub's DomainRegistry does, once per run through the server (`datahub_api`, else the
 * datahub-rest sink's): `urn:li:domain:<identifier>` when that domain exists, else the domain
 * whose name it is; one that is neither stops the run before anything is written. A UUID-shaped
 * identifier (four dashes) is taken as the domain's id without asking, as DataHub does.
 */
import {ConfigError, listEdit, transformerPair, type PluginContext, type ServerClient} from '../../src/sdk/index.js'

const PREFIX = 'urn:li:domain:'

async function exists(graph: ServerClient, urn: string): Promise<boolean> {
  try {
    const e = await graph.getEntity(urn, ['domainProperties'])
    return e.aspects?.domainProperties !== undefined
  } catch (e) {
    if ((e as {code?: string}).code === 'E_NOT_FOUND') return false
    throw e
  }
}

async function byName(graph: ServerClient, name: string): Promise<string | undefined> {
  const r = await graph.searchEntities({input: '*', entity: 'domain', start: 0, count: 10, filter: {or: [{and: [{field: 'name', value: name}]}]}})
  return r.entities[0]?.entity
}

async function resolveDomains(values: string[], ctx: PluginContext, where: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  const names: string[] = []
  for (const d of values) {
    if (d.startsWith(PREFIX)) continue
    if (d.split('-').length === 5) out.set(d, PREFIX + d)
    else names.push(d)
  }
  if (names.length === 0) return out
  const graph = await ctx.graph()
  if (!graph) {
    throw new ConfigError(
      `${where}: ${names.map((n) => `'${n}'`).join(', ')} ${names.length === 1 ? 'is not a domain urn and needs' : 'are not domain urns and need'} a server to be resolved, and none answers: configure datahub_api (or a datahub-rest sink), or write the domain's urn (urn:li:domain:<id>)`,
    )
  }
  for (const name of names) {
    const urn = (await exists(graph, PREFIX + name)) ? PREFIX + name : await byName(graph, name)
    if (!urn) throw new ConfigError(`${where}: domain '${name}' doesn't seem to be provisioned on the server (no domain with that id or name): create it first, or write its urn (urn:li:domain:<id>) to skip this check`)
    out.set(name, urn)
  }
  ctx.report.info('domainsResolved', Object.fromEntries(out))
  return out
}

export const {simple, pattern} = transformerPair<string>({
  edit: listEdit('domains', 'domains', (d) => d),
  description: 'Adds domains to datasets',
  simpleKey: 'domains',
  patternKey: 'domain_pattern',
  itemSchema: {type: 'string', minLength: 1},
  toAdditions: (ds) => ds,
  resolve: resolveDomains,
})
