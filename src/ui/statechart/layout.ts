/// <reference types="vite/client" />
/**
 * Lays the worker's statechart out with ELK (elkjs): the layered algorithm, top to bottom, the
 * compound `active` state laid out with its children (`hierarchyHandling: INCLUDE_CHILDREN`) and
 * every coordinate returned in the root's frame. Runs in the UI only, in ELK's own Web Worker
 * (`elk-worker.min.js`, a same-origin file the build emits as it is: no blob, no eval, so the
 * production Content-Security-Policy's `worker-src 'self'` lets it start): ELK's first layout
 * takes seconds of CPU that must not freeze the page. Tests hand in the in-thread
 * `elk.bundled.js` (Node has no Web Worker).
 */
import ELK, { type ELK as ElkApi, type ElkExtendedEdge, type ElkNode } from 'elkjs/lib/elk-api';
import elkWorkerUrl from 'elkjs/lib/elk-worker.min.js?url';
import type { ChartEdge, ChartGraph, ChartNode } from './machineGraph';

/** A placed state: its box in diagram units (px at scale 1), top-left origin. */
export interface PlacedNode { readonly node: ChartNode; readonly x: number; readonly y: number; readonly width: number; readonly height: number }
/** A placed transition: its polyline and its label's box. */
export interface PlacedEdge { readonly edge: ChartEdge; readonly points: readonly { x: number; y: number }[]; readonly label: { x: number; y: number; width: number; height: number } | null }
/** The laid-out chart. */
export interface ChartLayout { readonly nodes: readonly PlacedNode[]; readonly edges: readonly PlacedEdge[]; readonly width: number; readonly height: number }

/** Approximate width of a label in px at the diagram's 12 px type (the SVG scales as a whole). */
const textWidth = (text: string, px = 12) => Math.ceil(text.length * px * 0.6);
const STATE_H = 30;
const PSEUDO = 14;

function sizeOf(n: ChartNode): { width: number; height: number } {
  if (n.kind === 'initial') return { width: PSEUDO, height: PSEUDO };
  if (n.kind === 'history') return { width: 26, height: 26 };
  // Events that keep the state (BELIEVE) are written inside the box, on a second line.
  const note = n.internal.length > 0 ? textWidth(n.internal.join(', '), 10) + 16 : 0;
  return { width: Math.max(64, textWidth(n.label, 13) + 24, note), height: n.internal.length > 0 ? STATE_H + 12 : STATE_H };
}

/** The ELK graph for a chart (exported for tests). */
export function elkGraphOf(graph: ChartGraph): ElkNode {
  const elkNodes = new Map<string, ElkNode>();
  const root: ElkNode = {
    id: '(root)',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.layered.spacing.nodeNodeBetweenLayers': '34',
      'elk.spacing.nodeNode': '22',
      'elk.spacing.edgeLabel': '2',
      'elk.edgeLabels.inline': 'false',
      'elk.json.edgeCoords': 'ROOT',
      'elk.json.shapeCoords': 'ROOT',
    },
    children: [],
    edges: [],
  };
  for (const n of graph.nodes) {
    const compound = n.kind === 'compound';
    const elk: ElkNode = {
      id: n.id,
      ...(compound ? { children: [], layoutOptions: { 'elk.padding': '[top=30,left=14,bottom=14,right=14]' } } : sizeOf(n)),
      ...(compound ? { labels: [{ text: n.label, width: textWidth(n.label, 13), height: 16 }] } : {}),
    };
    elkNodes.set(n.id, elk);
    const parent = n.parent === null ? root : elkNodes.get(n.parent);
    if (!parent) throw new Error(`statechart: state ${n.id} comes before its parent ${n.parent}`);
    parent.children!.push(elk);
  }
  root.edges = graph.edges.map((e): ElkExtendedEdge => ({
    id: e.id,
    sources: [e.source],
    targets: [e.target],
    ...(e.event ? { labels: [{ text: e.event, width: textWidth(e.event, 10) + 6, height: 13 }] } : {}),
  }));
  return root;
}

/** What this module needs of an ELK instance (elk-api's, or elk.bundled.js's in tests). */
export interface ElkLike {
  layout(graph: ElkNode): Promise<ElkNode>;
}

/**
 * Lays a chart out. `elk`: the ELK to use; by default one in its own Web Worker, ended once the
 * layout is back (the panel lays the one machine out once per page).
 */
export async function layoutChart(graph: ChartGraph, elk?: ElkLike): Promise<ChartLayout> {
  let own: ElkApi | null = null;
  if (!elk) elk = own = new ELK({ workerUrl: elkWorkerUrl });
  let out: ElkNode;
  try {
    out = await elk.layout(elkGraphOf(graph));
  } finally {
    own?.terminateWorker();
  }
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const nodes: PlacedNode[] = [];
  const walk = (n: ElkNode) => {
    for (const c of n.children ?? []) {
      const node = byId.get(c.id);
      if (node) nodes.push({ node, x: c.x ?? 0, y: c.y ?? 0, width: c.width ?? 0, height: c.height ?? 0 });
      walk(c);
    }
  };
  walk(out);
  const edgesById = new Map(graph.edges.map((e) => [e.id, e]));
  const edges: PlacedEdge[] = [];
  const collect = (n: ElkNode) => {
    for (const e of n.edges ?? []) {
      const edge = edgesById.get(e.id);
      const s = e.sections?.[0];
      if (!edge || !s) continue;
      const l = e.labels?.[0];
      edges.push({
        edge,
        points: [s.startPoint, ...(s.bendPoints ?? []), s.endPoint].map((p) => ({ x: p.x, y: p.y })),
        label: l ? { x: l.x ?? 0, y: l.y ?? 0, width: l.width ?? 0, height: l.height ?? 0 } : null,
      });
    }
    for (const c of n.children ?? []) collect(c);
  };
  collect(out);
  // Edges in the machine's order (the graph's), whichever container ELK filed them under.
  const order = new Map(graph.edges.map((e, i) => [e.id, i]));
  edges.sort((a, b) => order.get(a.edge.id)! - order.get(b.edge.id)!);
  return { nodes, edges, width: out.width ?? 0, height: out.height ?? 0 };
}
