/**
 * The worker's statechart panel (issue 13): the machine the engine runs
 * (src/sim/workers/workerMachine.ts), read from `workerMachine.root` (./machineGraph.ts), laid out
 * by ELK (./layout.ts), with the chosen worker's state at the cursor highlighted and the arrow its
 * next event takes. Loaded lazily (./StatechartSection.tsx): elkjs never weighs on the first load.
 */
import { useEffect, useMemo, useState } from 'react';
import { workerMachine, type WorkerStateName } from '../../sim/workers/workerMachine';
import { STATE_TEXT } from '../timeline/lanes/worker';
import type { DerivedRun } from '../store/derive';
import { machineGraph, selfAndAncestors, type ChartGraph } from './machineGraph';
import { layoutChart, type ChartLayout } from './layout';
import { grantedWhileAcquiring, nextSentence, nodeIdOf, transitionFor, transitionPath, workerAtCursor } from './cursorState';
import { StatechartDiagram } from './StatechartDiagram';

/**
 * A worker state in the words the timeline's lanes, the log and the inspector use (`STATE_TEXT`:
 * `performing the effect`, `holding the lock`); a state of the chart that is no worker state (the
 * compound `active`) keeps its name.
 */
export function stateWords(key: string): string {
  return Object.hasOwn(STATE_TEXT, key) ? STATE_TEXT[key as WorkerStateName] : key;
}

/** The chart of the machine the engine runs (read once: the machine is a module constant), its states labelled in the UI's words. */
export const WORKER_CHART: ChartGraph = machineGraph(workerMachine.root, stateWords);

let laidOut: Promise<ChartLayout> | null = null;
/** The worker chart's layout, computed once per page. */
function workerLayout(): Promise<ChartLayout> {
  laidOut ??= layoutChart(WORKER_CHART);
  return laidOut;
}

/** Props: the run and cursor to describe, and the workers to choose from. */
export interface StatechartPanelProps {
  readonly run: DerivedRun;
  readonly index: number;
  readonly workers: readonly string[];
  /** For tests: a layout to draw instead of ELK's. */
  readonly layout?: ChartLayout;
}

/** The panel: worker picker, the diagram and a sentence saying what is highlighted. */
export default function StatechartPanel({ run, index, workers, layout: given }: StatechartPanelProps) {
  const [layout, setLayout] = useState<ChartLayout | null>(given ?? null);
  const [failed, setFailed] = useState<string | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  useEffect(() => {
    if (given) return;
    let live = true;
    workerLayout().then((l) => { if (live) setLayout(l); }, (e: unknown) => { if (live) setFailed(String((e as Error)?.message ?? e)); });
    return () => { live = false; };
  }, [given]);

  const atCursor = index >= 0 ? run.events[index]?.actor : undefined;
  const worker = chosen !== null && workers.includes(chosen) ? chosen : atCursor !== undefined && workers.includes(atCursor) ? atCursor : workers[0];
  const at = useMemo(() => (worker === undefined ? null : workerAtCursor(run, index, worker)), [run, index, worker]);
  // The arrows the next event takes: a path when its state differs (idle → requesting → holding in one event), a self-loop when it is the same.
  const path = at?.next ? (at.next.to === at.state ? [transitionFor(WORKER_CHART, at.state, at.next.to)].filter((e) => e !== null) : (transitionPath(WORKER_CHART, at.state, at.next.to) ?? []).map((s) => s.edge)) : [];
  const active = at ? selfAndAncestors(WORKER_CHART, nodeIdOf(at.state)) : [];
  const granted = at ? grantedWhileAcquiring(run, at) : null;

  if (worker === undefined || at === null) return <p className="small muted">This scenario has no workers.</p>;
  const nextText = nextSentence(WORKER_CHART, at, stateWords);
  // The log says the worker takes the lease here, and the trace's state is still the acquiring one: say why.
  const grantedText = granted === null || at.next === null
    ? ''
    : ` The server granted it ${granted.key} at ${granted.eventId}, but its acquire goes on (for its fencing token) until ${at.next.eventId}: the machine is ${at.next.to === 'holding' ? `${stateWords('holding')} only from there` : `${stateWords(at.state)} until then`}.`;
  return (
    <div className="statechart" data-testid="statechart">
      <div className="statechart-head">
        <label className="statechart-worker">
          <span>Worker</span>
          <select value={worker} onChange={(e) => setChosen(e.target.value)} aria-label="Worker to follow">
            {workers.map((w) => <option key={w} value={w}>{w}</option>)}
          </select>
        </label>
        <p className="statechart-now" data-testid="statechart-now" aria-live="polite">
          <strong>{worker}</strong> is <strong className="sc-now-state" title={`machine state ${at.state}`}>{stateWords(at.state)}</strong>{index < 0 ? ' (before the first event)' : ` at ${run.events[index]?.id ?? ''}`}.{grantedText} {nextText}
        </p>
      </div>
      {failed && <p className="error" role="alert">The diagram could not be laid out: {failed.slice(0, 200)}</p>}
      {!failed && layout === null && <p className="small muted" role="status">Laying out the machine…</p>}
      {layout && (
        <StatechartDiagram
          layout={layout}
          active={active}
          nextEdgeIds={path.map((e) => e.id)}
          label={`The worker machine: ${WORKER_CHART.nodes.filter((n) => n.kind !== 'initial').length} states and ${WORKER_CHART.edges.filter((e) => e.event).length} transitions. ${worker} is ${stateWords(at.state)}${path.length > 0 && at.next ? `; the next event takes ${path.map((e) => e.event).join(' then ')} to ${stateWords(at.next.to)}` : ''}.`}
        />
      )}
      <p className="small muted">Drawn from the XState machine the engine runs (<code>workerMachine.ts</code>), not a copy, its states named as the timeline names them (hover a state for its name in the machine): a step event is legal in every active state (the arrows from <em>active</em>), WAIT only with a request or statement outstanding, GRANTED only while acquiring; RESUME returns to the state the worker was paused in (H).</p>
    </div>
  );
}
