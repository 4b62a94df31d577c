/**
 * The simulator's collapsible "How often? (the odds)" section. The panel (./OddsPanel.tsx, with
 * its charts and styles) is its own chunk (../lazyViews.ts) and mounts when the section is opened.
 */
import { Suspense, useState } from 'react';
import { useVisibility } from '../store';
import { OddsPanel } from '../lazyViews';

/** The section: collapsed until opened. */
export function OddsSection() {
  const [open, setOpen] = useState(false);
  // The odds grade the design: interview mode hides them (./store/visibility.ts).
  if (!useVisibility().showAnswer) return null;
  return (
    <details className="panel odds-section" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary><h2>How often? (the odds)</h2></summary>
      {open && (
        <Suspense fallback={<p className="small muted" role="status">Loading the odds…</p>}>
          <OddsPanel />
        </Suspense>
      )}
    </details>
  );
}
