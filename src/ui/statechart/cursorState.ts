/**
 * What the statechart panel highlights: a worker's state at the cursor — the `state` the trace
 * records at that event (the worker's latest event at or before it: every change of a worker's
 * state is an event of that worker, `StatechartPanel.test.tsx` checks it over every preset against
 * the snapshots) — and the transition its next event takes: the chart's edge from that state (or
 * the compound state around it) to the `state` of the worker's next event. The trace records
 * states, not XState event names, so the edge is found by its ends.
 */
import type { WorkerStateName } from '../../sim';
import type { DerivedRun } from '../store/derive';
import { selfAndAncestors, type ChartEdge, type ChartGraph } from './machineGraph';

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
