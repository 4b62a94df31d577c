/**
 * What the statechart panel highlights: a worker's state at the cursor (read from the run's
 * snapshots, the engine's own record) and the transition its next event takes — the chart's edge
 * from that state (or the compound state around it) to the state the worker is in after that
 * event. The trace records states, not XState event names, so the edge is found by its ends.
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
  readonly next: NextStep | null;
}

/** The worker's state in the snapshot after event `index` (`idle` before the first event or if absent). */
export function stateAt(run: DerivedRun, index: number, worker: string): WorkerStateName {
  if (index < 0) return 'idle';
  return run.snapshots[index]?.workers.find((w) => w.id === worker)?.state ?? 'idle';
}

/**
 * The worker's state after event `index` (-1: before the first) and its next step: the first
 * later event it acted in, or that changed its state (a fault's pause or crash acts on it).
 */
export function workerAtCursor(run: DerivedRun, index: number, worker: string): WorkerAtCursor {
  const state = stateAt(run, index, worker);
  for (let j = Math.max(0, index + 1); j < run.events.length; j++) {
    const e = run.events[j]!;
    const to = stateAt(run, j, worker);
    if (e.actor === worker || to !== state) return { worker, state, next: { index: j, eventId: e.id, atMs: e.atMs, to } };
  }
  return { worker, state, next: null };
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
