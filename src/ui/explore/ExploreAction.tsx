/**
 * The Explore action as the simulator and the editor show it: a disclosure that opens the fault
 * search panel (collapsed, so the simulator's first screen keeps its layout). The panel
 * (./ExplorePanel.tsx) is its own chunk (../lazyViews.ts), loaded when first opened if the idle
 * preload has not loaded it yet.
 */
import { Suspense, useState } from 'react';
import { useVisibility } from '../store';
import { ExplorePanel } from '../lazyViews';

/** The "Break my design" disclosure. */
export function ExploreAction() {
  const [open, setOpen] = useState(false);
  // The search grades the design: interview mode hides it (the candidate has "Check my design" instead).
  if (!useVisibility().showAnswer) return null;
  return (
    <details className="explore-wrap" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Break my design — explore every fault schedule</summary>
      {open && (
        <Suspense fallback={<p className="small muted" role="status">Loading the fault search…</p>}>
          <ExplorePanel titled={false} />
        </Suspense>
      )}
    </details>
  );
}
