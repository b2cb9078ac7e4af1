import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base.js'

export interface LineageNode {
  urn: string
  type: string
  degree: number
  children: LineageNode[]
}

interface Hit {
  entity: {urn: string; type: string}
  degree: number
  paths: Array<{path: Array<{urn: string}>}>
}

const QUERY = `query lineage($input: SearchAcrossLineageInput!) {
  searchAcrossLineage(input: $input) { total searchResults { entity { urn type } degree paths { path { urn } } } }
}`

export default class Lineage extends BaseCommand {
  static override summary = 'Show what an entity comes from (upstream) or feeds (downstream), as a tree.'
  static override description = `Walks lineage hop by hop — datasets through upstreamLineage, data jobs' inputs and outputs,
charts' inputs, dashboards' charts and datasets — the way DataHub's searchAcrossLineage does.
Each entity appears once, under the first path that reaches it.`
  static override examples = [
    '<%= config.bin %> lineage --urn "urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)"',
    '<%= config.bin %> lineage --urn "urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)" --direction downstream --depth 3',
    '<%= config.bin %> lineage --urn "urn:li:chart:(looker,sales)" --json',
  ]

  static override flags = {
    urn: Flags.string({char: 'u', summary: 'Where to start.', required: true}),
    direction: Flags.string({char: 'd', summary: 'Which way to walk.', options: ['upstream', 'downstream'], default: 'upstream'}),
    depth: Flags.integer({summary: 'Hops to walk (1–10).', default: 3, min: 1, max: 10}),
  }

  async run(): Promise<{urn: string; direction: string; total: number; tree: LineageNode[]}> {
    const {flags} = await this.parse(Lineage)
    const degrees = Array.from({length: Math.min(flags.depth, 2)}, (_, i) => String(i + 1))
    if (flags.depth >= 3) degrees.push('3+')
    const data = await this.client().graphqlData<{searchAcrossLineage: {total: number; searchResults: Hit[]}}>(QUERY, {
      input: {urn: flags.urn, direction: flags.direction.toUpperCase(), query: '*', start: 0, count: 10_000, orFilters: [{and: [{field: 'degree', values: degrees}]}]},
    })
    const hits = data.searchAcrossLineage.searchResults.filter((h) => h.degree <= flags.depth)
    const tree = buildTree(flags.urn, hits)
    if (!this.jsonEnabled()) {
      this.log(flags.urn)
      if (tree.length === 0) this.log(`  (no ${flags.direction} lineage)`)
      for (const line of renderTree(tree)) this.log(line)
      this.log(`\n${hits.length} ${flags.direction} entit${hits.length === 1 ? 'y' : 'ies'} within ${flags.depth} hop${flags.depth === 1 ? '' : 's'}`)
    }
    return {urn: flags.urn, direction: flags.direction, total: hits.length, tree}
  }
}

/** Nests each hit under the previous entity of its path. */
export function buildTree(root: string, hits: Hit[]): LineageNode[] {
  const nodes = new Map<string, LineageNode>()
  const top: LineageNode[] = []
  for (const h of [...hits].sort((a, b) => a.degree - b.degree)) {
    const node: LineageNode = {urn: h.entity.urn, type: h.entity.type, degree: h.degree, children: []}
    nodes.set(node.urn, node)
    const path = h.paths[0]?.path.map((p) => p.urn) ?? [root, node.urn]
    const parent = path.length >= 2 ? nodes.get(path[path.length - 2]!) : undefined
    if (parent) parent.children.push(node)
    else top.push(node)
  }
  return top
}

export function renderTree(nodes: LineageNode[], prefix = ''): string[] {
  const out: string[] = []
  nodes.forEach((n, i) => {
    const last = i === nodes.length - 1
    out.push(`${prefix}${last ? '└── ' : '├── '}${n.urn}  (${n.type.toLowerCase()})`)
    out.push(...renderTree(n.children, prefix + (last ? '    ' : '│   ')))
  })
  return out
}
