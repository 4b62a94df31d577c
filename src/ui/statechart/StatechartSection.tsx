/**
 * The simulator's "The worker's statechart" section: collapsed until opened, and only then loads
 * the panel (./StatechartPanel.tsx, with elkjs) as its own chunk, so the first load does not grow.
 */
import { lazy, Suspense, useState } from 'react';
import type { DerivedRun } from '../store/derive';

const StatechartPanel = lazy(() => import('./StatechartPanel'));

/** Props: the run and cursor (the simulator's deferred ones) and the scenario's workers. */
export interface StatechartSectionProps {
  readonly run: DerivedRun;
  readonly index: number;
  readonly workers: readonly string[];
}

/** The collapsible section. */
export function StatechartSection({ run, index, workers }: StatechartSectionProps) {
  const [open, setOpen] = useState(false);
  return (
    <details className="panel statechart-section" onToggle={(e) => setOpen(e.currentTarget.open)} data-testid="statechart-section">
      <summary><h2>The worker’s statechart</h2></summary>
      {open && (
        <Suspense fallback={<p className="small muted" role="status">Loading the statechart…</p>}>
          <StatechartPanel run={run} index={index} workers={workers} />
        </Suspense>
      )}
    </details>
  );
}
