/**
 * The lineage graph of an entity page: the entity in the middle, its neighbours upstream (left)
 * and downstream (right), expanded hop by hop from any node, with column-level edges where the
 * catalog records them (a dataset's fineGrainedLineages). Drawn with React Flow, laid out with
 * dagre; loaded on its own (a separate chunk), so pages without a graph never fetch it.
 */
import {useCallback, useEffect, useMemo, useState} from 'react'
import {
  applyNodeChanges, Background, BaseEdge, Controls, EdgeLabelRenderer, getBezierPath, Handle, Position, ReactFlow, useNodesInitialized, useReactFlow,
  type Edge, type EdgeProps, type Node, type NodeChange, type NodeProps,
} from '@xyflow/react'
import dagre from '@dagrejs/dagre'
import {gql} from './api.js'
import {entityHref, navigate} from './router.js'

// React Flow's stylesheet, copied beside the bundle at build time; linked once, when a graph is first drawn.
if (!document.querySelector('link[data-xyflow]')) {
  const link = document.createElement('link')
  link.rel = 'stylesheet'
  link.href = '/app/xyflow.css'
  link.dataset.xyflow = ''
  document.head.append(link)
}

type Obj = Record<string, any>
type Direction = 'UPSTREAM' | 'DOWNSTREAM'

interface GraphNode {
  urn: string
  type: string
  name: string
  platform?: string
  /** Directions already expanded from this node, all their neighbours shown. */
  expanded: Set<Direction>
  /** Directions expanded in part: how many of the neighbours are shown, of how many. */
  partial: Partial<Record<Direction, {shown: number; total: number}>>
  loading?: Direction
  /** Column edges recorded on this node (it is their downstream end). */
  columns: Array<{from: string; fromField: string; toField: string}>
}

interface GraphEdge {
  from: string
  to: string
  type: string
}

const NAME_FIELDS = `urn type
  ... on Dataset { name platform { name } fineGrainedLineages { upstreams { urn path } downstreams { urn path } } }
  ... on Chart { properties { name } platform { name } }
  ... on Dashboard { properties { name } platform { name } }
  ... on DataJob { properties { name } }
  ... on DataFlow { properties { name } platform { name } }`

/** Neighbours drawn per hop; more are drawn on request, a hop at a time. */
const HOP_PAGE = 100
const HOP = `query hop($urn: String!, $direction: LineageDirection!, $start: Int!) {
  searchAcrossLineage(input: {urn: $urn, direction: $direction, query: "*", start: $start, count: ${HOP_PAGE}, orFilters: [{and: [{field: "degree", values: ["1"]}]}]}) {
    total searchResults { entity { ${NAME_FIELDS} } }
  }
}`

const ROOT = `query root($urn: String!) { entity(urn: $urn) { ${NAME_FIELDS} } }`

const NODE_W = 230
const NODE_H = 64
/** About how many characters of a name fit on one line of a card (bold 0.8rem beside two buttons). */
const CHARS_PER_LINE = 24
const LINE_H = 17

/** A card's height for its name: long names wrap (at word and identifier boundaries), and the layout leaves them room. */
const heightOf = (n: GraphNode): number => NODE_H + LINE_H * Math.max(0, Math.ceil(n.name.length / CHARS_PER_LINE) - 1)

/** The name with break opportunities after `_`, `.`, `/`, `-` and between words of camelCase, so a long name wraps there and not mid-word. */
function Breakable({text}: {text: string}) {
  const parts = text.split(/(?<=[_./-])|(?<=[a-z0-9])(?=[A-Z])/)
  return (
    <>
      {parts.map((p, i) => (
        <span key={i}>
          {i > 0 && <wbr />}
          {p}
        </span>
      ))}
    </>
  )
}

function toNode(e: Obj): GraphNode {
  const columns: GraphNode['columns'] = []
  for (const f of e.fineGrainedLineages ?? []) {
    for (const u of f.upstreams ?? []) for (const d of f.downstreams ?? []) columns.push({from: u.urn, fromField: u.path, toField: d.path})
  }
  return {urn: e.urn, type: e.type, name: e.name ?? e.properties?.name ?? e.urn, platform: e.platform?.name, expanded: new Set(), partial: {}, columns}
}

/** Positions from dagre, left to right (upstream on the left). */
function layout(nodes: GraphNode[], edges: GraphEdge[]): Map<string, {x: number; y: number}> {
  const g = new dagre.graphlib.Graph()
  g.setGraph({rankdir: 'LR', nodesep: 24, ranksep: 90})
  g.setDefaultEdgeLabel(() => ({}))
  for (const n of nodes) g.setNode(n.urn, {width: NODE_W, height: heightOf(n)})
  for (const e of edges) g.setEdge(e.from, e.to)
  dagre.layout(g)
  const out = new Map<string, {x: number; y: number}>()
  for (const n of nodes) {
    const p = g.node(n.urn)
    out.set(n.urn, {x: p.x - NODE_W / 2, y: p.y - heightOf(n) / 2})
  }
  return out
}

type CardData = {node: GraphNode; root: boolean; expand: (urn: string, d: Direction) => void}

function Card({data}: NodeProps<Node<CardData>>) {
  const {node, root, expand} = data
  const button = (d: Direction, label: string, glyph: string) => {
    if (node.expanded.has(d)) return null
    const part = node.partial[d]
    const name = part ? `${label.replace('Show', 'Show more')} of ${node.name} (${part.shown} of ${part.total} shown)` : `${label} of ${node.name}`
    return (
      <button className={`hop ${d === "UPSTREAM" ? "up" : "down"}`} aria-label={name} title={name} disabled={node.loading === d} onClick={() => expand(node.urn, d)}>
        {node.loading === d ? '…' : glyph}
      </button>
    )
  }
  return (
    <div className={root ? 'card root' : 'card'}>
      <Handle type="target" position={Position.Left} />
      {button('UPSTREAM', 'Show upstream', '◀')}
      <a
        href={entityHref(node.urn)}
        onClick={(e) => {
          e.preventDefault()
          navigate(entityHref(node.urn))
        }}
      >
        <Breakable text={node.name} />
      </a>
      <span className="meta">
        {node.type.toLowerCase().replace(/_/g, ' ')}
        {node.platform ? ` · ${node.platform}` : ''}
      </span>
      {button('DOWNSTREAM', 'Show downstream', '▶')}
      <Handle type="source" position={Position.Right} />
    </div>
  )
}

type ColumnsData = {columns: string[]}

/**
 * An edge with column-level lineage: a short label ("3 columns") that fits between two ranks of
 * cards, and the column pairs listed when it is hovered or focused. (One SVG text of every pair,
 * as before, ran over the cards and showed its line breaks as written.)
 */
function ColumnsEdge({id, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, markerEnd, data}: EdgeProps<Edge<ColumnsData>>) {
  const [path, labelX, labelY] = getBezierPath({sourceX, sourceY, sourcePosition, targetX, targetY, targetPosition})
  const columns = data?.columns ?? []
  const count = `${columns.length} column${columns.length === 1 ? '' : 's'}`
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} />
      <EdgeLabelRenderer>
        <div
          className="edge-columns nodrag nopan"
          style={{transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)`}}
          tabIndex={0}
          aria-label={`${count}: ${columns.join(', ')}`}
        >
          <span className="count">{count}</span>
          <ul className="pairs">
            {columns.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        </div>
      </EdgeLabelRenderer>
    </>
  )
}

const NODE_TYPES = {card: Card}
const EDGE_TYPES = {columns: ColumnsEdge}
const FIT = {padding: 0.15, maxZoom: 1}

/** Fits the view to the graph each time a hop adds nodes (once React Flow has measured them). */
function FitOnGrowth({count}: {count: number}) {
  const {fitView} = useReactFlow()
  const measured = useNodesInitialized()
  useEffect(() => {
    if (measured) void fitView(FIT)
  }, [measured, count, fitView])
  return null
}

export default function LineageGraph({urn}: {urn: string}) {
  const [nodes, setNodes] = useState<Map<string, GraphNode>>(new Map())
  const [edges, setEdges] = useState<GraphEdge[]>([])
  const [error, setError] = useState<string>()
  const [showColumns, setShowColumns] = useState(true)

  /** Draws the next hop from a node one way: its first neighbours, or the next of them when some are drawn already. */
  const expand = useCallback(async (from: string, direction: Direction, start = 0) => {
    setNodes((m) => new Map(m).set(from, {...m.get(from)!, loading: direction}))
    try {
      const data = await gql<Obj>(HOP, {urn: from, direction, start})
      const found: GraphNode[] = data.searchAcrossLineage.searchResults.map((r: Obj) => toNode(r.entity))
      const shown = start + found.length
      const total: number = data.searchAcrossLineage.total
      setNodes((m) => {
        const next = new Map(m)
        for (const n of found) if (!next.has(n.urn)) next.set(n.urn, n)
        const self = next.get(from)!
        const done = shown >= total || found.length === 0
        next.set(from, {
          ...self,
          loading: undefined,
          expanded: done ? new Set([...self.expanded, direction]) : self.expanded,
          partial: {...self.partial, [direction]: done ? undefined : {shown, total}},
        })
        return next
      })
      setEdges((es) => {
        const next = [...es]
        for (const n of found) {
          const e = direction === 'UPSTREAM' ? {from: n.urn, to: from, type: 'lineage'} : {from, to: n.urn, type: 'lineage'}
          if (!next.some((x) => x.from === e.from && x.to === e.to)) next.push(e)
        }
        return next
      })
    } catch (e) {
      setError((e as Error).message)
      setNodes((m) => new Map(m).set(from, {...m.get(from)!, loading: undefined}))
    }
  }, [])

  useEffect(() => {
    let live = true
    setNodes(new Map())
    setEdges([])
    gql<Obj>(ROOT, {urn}).then(
      (d) => {
        if (!live || !d.entity) return
        setNodes(new Map([[urn, toNode(d.entity)]]))
        void expand(urn, 'UPSTREAM')
        void expand(urn, 'DOWNSTREAM')
      },
      (e) => live && setError((e as Error).message),
    )
    return () => {
      live = false
    }
  }, [urn, expand])

  const list = useMemo(() => [...nodes.values()], [nodes])
  /** The column pairs of an edge ("event_data → user_name"), recorded on its downstream dataset. */
  const columnsOf = useCallback((e: GraphEdge) => (nodes.get(e.to)?.columns ?? []).filter((c) => c.from === e.from).map((c) => `${c.fromField} → ${c.toField}`), [nodes])
  const flow = useMemo(() => {
    const pos = layout(list, edges)
    const rfNodes: Array<Node<CardData>> = list.map((n) => ({
      id: n.urn,
      type: 'card',
      position: pos.get(n.urn)!,
      data: {node: n, root: n.urn === urn, expand: (u: string, d: Direction) => void expand(u, d, nodes.get(u)?.partial[d]?.shown ?? 0)},
      ariaLabel: `${n.name} (${n.type.toLowerCase()})`,
    }))
    const rfEdges: Edge[] = edges.map((e) => {
      const cols = showColumns ? columnsOf(e) : []
      return {
        id: `${e.from}->${e.to}`,
        source: e.from,
        target: e.to,
        ...(cols.length > 0 ? {type: 'columns', data: {columns: cols}, className: 'columns'} : {}),
      }
    })
    return {rfNodes, rfEdges}
  }, [list, edges, nodes, urn, expand, showColumns, columnsOf])

  // React Flow measures the nodes it draws and reports it as changes; a controlled graph applies them.
  const [rfNodes, setRfNodes] = useState<Array<Node<CardData>>>([])
  useEffect(() => setRfNodes(flow.rfNodes), [flow.rfNodes])
  const onNodesChange = useCallback((changes: Array<NodeChange<Node<CardData>>>) => setRfNodes((ns) => applyNodeChanges(changes, ns)), [])
  const columnCount = list.reduce((n, x) => n + x.columns.length, 0)
  const partly = list.flatMap((n) => (['UPSTREAM', 'DOWNSTREAM'] as const).flatMap((d) => (n.partial[d] ? [{node: n, direction: d, ...n.partial[d]!}] : [])))
  return (
    <section aria-label="Lineage graph" className="lineage-graph">
      <h2>Lineage</h2>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <p className="meta">
        {list.length} entities, {edges.length} edges. ◀ and ▶ on a node show its next hop.
        {columnCount > 0 && (
          <label>
            {' '}
            <input type="checkbox" checked={showColumns} onChange={(e) => setShowColumns(e.target.checked)} /> column-level edges ({columnCount})
          </label>
        )}
      </p>
      {partly.length > 0 && (
        <ul className="meta partial" aria-label="Neighbours not all shown">
          {partly.map((p) => (
            <li key={`${p.node.urn} ${p.direction}`}>
              {p.node.name}: {p.shown} of {p.total} {p.direction.toLowerCase()} shown{' '}
              <button className="link" disabled={p.node.loading === p.direction} onClick={() => void expand(p.node.urn, p.direction, p.shown)}>
                Show {Math.min(HOP_PAGE, p.total - p.shown)} more
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="graph" role="group" aria-label="Lineage diagram">
        <ReactFlow nodes={rfNodes} onNodesChange={onNodesChange} edges={flow.rfEdges} nodeTypes={NODE_TYPES} edgeTypes={EDGE_TYPES} fitView fitViewOptions={FIT} nodesConnectable={false} nodesDraggable={false} minZoom={0.2}>
          <Background />
          <Controls showInteractive={false} />
          <FitOnGrowth count={rfNodes.length} />
        </ReactFlow>
      </div>
      <ul className="sr-list" aria-label="Lineage edges">
        {edges.map((e) => (
          <li key={`${e.from}->${e.to}`}>
            {nodes.get(e.from)?.name ?? e.from} → {nodes.get(e.to)?.name ?? e.to}
            {columnsOf(e).length > 0 && ` (columns: ${columnsOf(e).join(', ')})`}
          </li>
        ))}
      </ul>
    </section>
  )
}
