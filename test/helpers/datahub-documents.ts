/**
 * The GraphQL documents of DataHub's built web app (`../shared/clients/datahub-web-react-build`),
 * read out of its JavaScript bundles: Apollo's `gql` templates, whose `${fragment}` placeholders
 * are dropped and whose fragments are put back by name, as codegen's documents hold them.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {type DefinitionNode, type DocumentNode, type FragmentDefinitionNode, Kind, type OperationDefinitionNode, parse, visit} from 'graphql'

export interface AppOperation {
  name: string
  kind: 'query' | 'mutation' | 'subscription'
  document: DocumentNode
}

/** Template texts that start with a GraphQL definition. */
const TEMPLATE = /`(\s*(?:query|mutation|subscription|fragment)\s[^`]*)`/g

export function appOperations(buildDir: string): AppOperation[] {
  const assets = join(buildDir, 'assets')
  const fragments = new Map<string, FragmentDefinitionNode>()
  const operations = new Map<string, OperationDefinitionNode>()
  for (const f of readdirSync(assets).filter((n) => n.endsWith('.js')).sort()) {
    const js = readFileSync(join(assets, f), 'utf8')
    if (!js.includes('query ') && !js.includes('mutation ') && !js.includes('fragment ')) continue
    for (const m of js.matchAll(TEMPLATE)) {
      const text = m[1]!.replace(/\$\{[^}]*\}/g, '')
      let doc: DocumentNode
      try {
        doc = parse(text)
      } catch {
        continue // prose in a template string, not a document
      }
      for (const d of doc.definitions) {
        if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d)
        else if (d.kind === Kind.OPERATION_DEFINITION && d.name) operations.set(d.name.value, d)
      }
    }
  }
  const out: AppOperation[] = []
  for (const [name, op] of operations) {
    const used = new Map<string, FragmentDefinitionNode>()
    const collect = (node: DefinitionNode) =>
      visit(node, {
        FragmentSpread(s) {
          const frag = fragments.get(s.name.value)
          if (frag && !used.has(s.name.value)) {
            used.set(s.name.value, frag)
            collect(frag)
          }
        },
      })
    collect(op)
    out.push({name, kind: op.operation as AppOperation['kind'], document: {kind: Kind.DOCUMENT, definitions: [op, ...used.values()]}})
  }
  return out.sort((a, b) => a.name.localeCompare(b.name))
}
