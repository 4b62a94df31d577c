/**
 * The worker's statechart as a graph, read at run time from the XState machine the engine runs
 * (`workerMachine.root`, src/sim/workers/workerMachine.ts): its state nodes (compound `active`
 * with its children, the history pseudo-state, the final state) and one edge per transition
 * (event type → target). Nothing here is a copy of the machine: a transition added to the machine
 * appears in the panel. Targetless transitions (BELIEVE: beliefs change, the state does not) are
 * listed on their state instead of drawn.
 */

/** The slice of XState's `StateNode` this module reads (structural, so tests can feed a toy machine too). */
export interface StateNodeLike {
  readonly key: string;
  /** Full id, e.g. `worker.active.idle`. */
  readonly id: string;
  readonly type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  readonly states: Readonly<Record<string, StateNodeLike>>;
  readonly initial?: { readonly target: readonly StateNodeLike[] } | undefined;
  readonly transitions: ReadonlyMap<string, readonly { readonly eventType: string; readonly target?: readonly StateNodeLike[] | undefined }[]>;
}

/** One state of the chart. `id` is the path below the machine (`active.idle`); the machine's root is not drawn. */
export interface ChartNode {
  readonly id: string;
  /** What the chart shows: the state in the words the rest of the UI uses (`machineGraph`'s `words`; `H` for a history pseudo-state). */
  readonly label: string;
  /** The state's own key in the machine (`performingEffect`, `hist`; `''` for an initial dot), for a tooltip. */
  readonly machineName: string;
  readonly kind: 'atomic' | 'compound' | 'final' | 'history' | 'initial';
  /** Id of the compound state it sits in, or null at the top. */
  readonly parent: string | null;
  /** Events accepted here that change no state (drawn as a note, not an arrow). */
  readonly internal: readonly string[];
}

/** One transition: `event` takes the machine from `source` to `target` (ids of `ChartNode`s). */
export interface ChartEdge {
  /** Unique: `source|event|target`. */
  readonly id: string;
  readonly source: string;
  readonly target: string;
  /** The event type, or `''` for the arrow from an initial pseudo-state. */
  readonly event: string;
}

/** The whole chart. */
export interface ChartGraph {
  readonly nodes: readonly ChartNode[];
  readonly edges: readonly ChartEdge[];
}

/** `worker.active.idle` → `active.idle` (the path below the machine's root). */
function pathOf(node: StateNodeLike, rootId: string): string {
  return node.id.startsWith(`${rootId}.`) ? node.id.slice(rootId.length + 1) : node.id;
}

/** Initial pseudo-state id of a compound state (or of the top level, for `null`). */
export function initialId(parent: string | null): string {
  return parent === null ? '(initial)' : `${parent}.(initial)`;
}

/**
 * Reads the chart from a machine's root state node. Nodes come in document order (a parent before
 * its children); edges in the order the machine declares them, each compound's initial arrow first.
 * `words` names a state by its key for the label (default: the key itself); the key stays as
 * `machineName`.
 */
export function machineGraph(root: StateNodeLike, words: (key: string) => string = (key) => key): ChartGraph {
  const nodes: ChartNode[] = [];
  const edges: ChartEdge[] = [];
  const seen = new Set<string>();
  const visit = (node: StateNodeLike, parent: string | null) => {
    if (node.initial && node.initial.target.length > 0) {
      const init = initialId(parent === null && node === root ? null : pathOf(node, root.id));
      const initParent = node === root ? null : pathOf(node, root.id);
      nodes.push({ id: init, label: '', machineName: '', kind: 'initial', parent: initParent, internal: [] });
      for (const t of node.initial.target) edges.push({ id: `${init}||${pathOf(t, root.id)}`, source: init, target: pathOf(t, root.id), event: '' });
    }
    for (const child of Object.values(node.states)) {
      const id = pathOf(child, root.id);
      const internal: string[] = [];
      for (const [eventType, defs] of child.transitions) {
        for (const def of defs) {
          if (!def.target || def.target.length === 0) {
            if (!internal.includes(eventType)) internal.push(eventType);
            continue;
          }
          for (const t of def.target) {
            const edge = { id: `${id}|${eventType}|${pathOf(t, root.id)}`, source: id, target: pathOf(t, root.id), event: eventType };
            if (seen.has(edge.id)) continue;
            seen.add(edge.id);
            edges.push(edge);
          }
        }
      }
      const kind = child.type === 'parallel' ? 'compound' : child.type;
      nodes.push({ id, label: child.type === 'history' ? 'H' : words(child.key), machineName: child.key, kind, parent: node === root ? null : pathOf(node, root.id), internal });
      if (Object.keys(child.states).length > 0) visit(child, id);
    }
  };
  visit(root, null);
  return { nodes, edges };
}

/** The ids of a node and its ancestors, innermost first (`active.waiting` → [`active.waiting`, `active`]). */
export function selfAndAncestors(graph: ChartGraph, id: string): string[] {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const out: string[] = [];
  for (let n = byId.get(id); n; n = n.parent === null ? undefined : byId.get(n.parent)) out.push(n.id);
  return out;
}
