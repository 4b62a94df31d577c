/**
 * What the statechart panel highlights: a worker's state at the cursor — the `state` the trace
 * records at that event (the worker's latest event at or before it: every change of a worker's
 * state is an event of that worker, `StatechartPanel.test.tsx` checks it over every preset against
 * the snapshots) — and the transitions its next event takes: the shortest path of the chart's
 * edges from that state to the `state` of the worker's next event (one trace event may take
 * several machine transitions: `SET … NX` → OK takes REQUEST then GRANTED, idle → requesting →
 * holding). The trace records states, not XState event names, so the path is found by its ends.
 */
import { fmtTime, type WorkerStateName } from '../../sim';
import type { DerivedRun } from '../store/derive';
import { initialId, selfAndAncestors, type ChartEdge, type ChartGraph } from './machineGraph';

/** The next event that moves or concerns a worker after the cursor. */
export interface NextStep {
  /** Index of the event in the run. */
  readonly index: number;
  readonly eventId: string;
  readonly atMs: number;
  /** The worker's state after it. */
  readonly to: WorkerStateName;
}

/** A worker at the cursor: its state and its next step (null when no later event touches it). */
export interface WorkerAtCursor {
  readonly worker: string;
  readonly state: WorkerStateName;
  /** Index of the worker's event whose `state` that is (-1: none yet, `idle`). */
  readonly since: number;
  readonly next: NextStep | null;
}

/** Index of the worker's latest event at or before `index` that records its state (-1: none). */
function lastOwnEvent(run: Pick<DerivedRun, 'events'>, index: number, worker: string): number {
  for (let j = Math.min(index, run.events.length - 1); j >= 0; j--) {
    const e = run.events[j]!;
    if (e.actor === worker && e.state !== undefined) return j;
  }
  return -1;
}

/** The worker's state at event `index` as the trace records it (`idle` before its first event). */
export function stateAt(run: Pick<DerivedRun, 'events'>, index: number, worker: string): WorkerStateName {
  const j = lastOwnEvent(run, index, worker);
  return j < 0 ? 'idle' : run.events[j]!.state!;
}

/**
 * The worker's state at event `index` (-1: before the first) and its next step: its first later
 * event, with the `state` the trace records there.
 */
export function workerAtCursor(run: Pick<DerivedRun, 'events'>, index: number, worker: string): WorkerAtCursor {
  const since = lastOwnEvent(run, index, worker);
  const state = since < 0 ? 'idle' : run.events[since]!.state!;
  for (let j = Math.max(0, index + 1); j < run.events.length; j++) {
    const e = run.events[j]!;
    if (e.actor === worker && e.state !== undefined) return { worker, state, since, next: { index: j, eventId: e.id, atMs: e.atMs, to: e.state } };
  }
  return { worker, state, since, next: null };
}

/**
 * The lease a server granted the worker at or before the cursor while its machine is still
 * acquiring (requesting or waiting): `SET … NX` replied OK, or etcd's transaction put the key, and
 * the acquire goes on — for a fencing token (`INCR`, `nextval`) — before the machine moves to
 * holding. The event log says the worker "takes the lease" there; the trace's state is still the
 * acquiring one. From the event's data (`t: 'lease'`, `op: 'acquired'`), never its text; null
 * when the worker's latest event is not such a grant.
 */
export function grantedWhileAcquiring(run: Pick<DerivedRun, 'events'>, at: WorkerAtCursor): { readonly eventId: string; readonly key: string } | null {
  if (at.since < 0 || (at.state !== 'requesting' && at.state !== 'waiting')) return null;
  const e = run.events[at.since]!;
  return e.data?.t === 'lease' && e.data.op === 'acquired' && e.data.worker === at.worker ? { eventId: e.id, key: e.data.key } : null;
}

/** The chart node id of a teacher-named state (`waiting` → `active.waiting`; `paused` stays). */
export function nodeIdOf(state: WorkerStateName): string {
  return state === 'paused' || state === 'crashed' || state === 'done' ? state : `active.${state}`;
}

/**
 * The chart's edge from `from` to `to`: declared on the state itself or on a state around it
 * (innermost first), including RESUME's arrow into the history state when `to` is a state inside
 * it. Null when no transition connects them (a belief update that keeps the state, for one).
 */
export function transitionFor(graph: ChartGraph, from: WorkerStateName, to: WorkerStateName): ChartEdge | null {
  const toId = nodeIdOf(to);
  const targets = new Set([toId]);
  // A history pseudo-state stands for every state of its parent: RESUME lands in one of them.
  for (const n of graph.nodes) if (n.kind === 'history' && n.parent !== null && toId.startsWith(`${n.parent}.`)) targets.add(n.id);
  for (const source of selfAndAncestors(graph, nodeIdOf(from))) {
    const edge = graph.edges.find((e) => e.source === source && targets.has(e.target) && e.event !== '');
    if (edge) return edge;
  }
  return null;
}

/** One machine transition of a path: `edge` is drawn, `lands` is the state it ends in (for RESUME's arrow into H, the state inside it). */
export interface PathStep {
  readonly edge: ChartEdge;
  /** Node id of the atomic state the transition lands in (`active.holding`). */
  readonly lands: string;
}

/**
 * The atomic states an edge's target stands for: itself; for a history pseudo-state every state
 * of its parent (RESUME lands in the one the worker was paused in); for a compound state the
 * state its initial arrow enters.
 */
function landings(graph: ChartGraph, target: string): string[] {
  const node = graph.nodes.find((n) => n.id === target);
  if (!node) return [];
  if (node.kind === 'history') return graph.nodes.filter((n) => n.parent === node.parent && (n.kind === 'atomic' || n.kind === 'final')).map((n) => n.id);
  if (node.kind === 'compound') {
    const init = graph.edges.find((e) => e.source === initialId(node.id));
    return init ? landings(graph, init.target) : [];
  }
  return [target];
}

/**
 * The transitions the machine can take in `state` (a node id): the edges declared on it and on
 * the states around it, an event declared nearer the state hiding the same event further out
 * (XState takes the innermost), in declaration order.
 */
function outgoing(graph: ChartGraph, state: string): ChartEdge[] {
  const taken = new Set<string>();
  const out: ChartEdge[] = [];
  for (const source of selfAndAncestors(graph, state)) {
    const here = graph.edges.filter((e) => e.source === source && e.event !== '');
    for (const e of here) if (!taken.has(e.event)) out.push(e);
    for (const e of here) taken.add(e.event);
    for (const ev of graph.nodes.find((n) => n.id === source)?.internal ?? []) taken.add(ev);
  }
  return out;
}

/**
 * The shortest path of machine transitions from `from` to `to` (breadth first, ties in the
 * machine's declaration order: REQUEST before WORK), each step with the state it lands in. `[]`
 * when `from` is `to` (what the event did to beliefs, or a round trip, the trace cannot tell);
 * null when no path of the machine joins them (the trace and the machine would disagree).
 */
export function transitionPath(graph: ChartGraph, from: WorkerStateName, to: WorkerStateName): PathStep[] | null {
  const start = nodeIdOf(from);
  const goal = nodeIdOf(to);
  if (start === goal) return [];
  const prev = new Map<string, PathStep & { readonly from: string }>();
  const seen = new Set([start]);
  let frontier = [start];
  while (frontier.length > 0) {
    const nextFrontier: string[] = [];
    for (const state of frontier) {
      for (const edge of outgoing(graph, state)) {
        for (const lands of landings(graph, edge.target)) {
          if (seen.has(lands)) continue;
          seen.add(lands);
          prev.set(lands, { edge, lands, from: state });
          if (lands === goal) {
            const path: PathStep[] = [];
            for (let at = goal; at !== start;) {
              const step = prev.get(at)!;
              path.unshift({ edge: step.edge, lands: step.lands });
              at = step.from;
            }
            return path;
          }
          nextFrontier.push(lands);
        }
      }
    }
    frontier = nextFrontier;
  }
  return null;
}

/**
 * The panel's "Next: …" sentence for a worker at the cursor, its states in `words` (a state's
 * machine key → the UI's words). A change of state is told as the path of machine transitions
 * that makes it (`transitionPath`), never as a belief update; the same state before and after is
 * said to be the same (a self-loop such as WAIT in waiting is named).
 */
export function nextSentence(graph: ChartGraph, at: WorkerAtCursor, words: (state: string) => string): string {
  const next = at.next;
  if (next === null) return 'No later event concerns it.';
  const head = `Next: ${next.eventId} at ${fmtTime(next.atMs)}`;
  const landsIn = (id: string) => words(graph.nodes.find((n) => n.id === id)?.machineName ?? id);
  if (next.to === at.state) {
    const loop = transitionFor(graph, at.state, next.to);
    return loop ? `${head} takes ${loop.event} → ${words(next.to)} (the same state).` : `${head} leaves it ${words(next.to)} (its state after it is the one before).`;
  }
  const path = transitionPath(graph, at.state, next.to);
  if (path === null || path.length === 0) return `${head} moves it from ${words(at.state)} to ${words(next.to)}, which no transition of the machine joins.`;
  const steps = path.map((s) => `${s.edge.event} → ${graph.nodes.find((n) => n.id === s.edge.target)?.kind === 'history' ? `H (back to ${landsIn(s.lands)})` : landsIn(s.lands)}`);
  return `${head} takes ${steps.join(', then ')}${path.length > 1 ? ` (${path.length} transitions in one event)` : ''}.`;
}
