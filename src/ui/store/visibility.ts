/**
 * What the view shows of the run right now, derived from the store's one `mode` field. Every
 * component that hides something in a mode reads it here (`useVisibility()`), never from a prop
 * passed down: a new mode (interview, presenter) is a new `ViewMode` value and a row below.
 *
 * - `explore`: everything is shown.
 * - `predict` (predict-then-reveal, for workshops): in the views with a cursor (simulate,
 *   compare) the outcome stays hidden until the cursor reaches the last event or the user
 *   reveals it; the editor, which has no cursor to step to the end, shows it.
 */
import { deriveRun } from './derive';
import { useLockscope } from './context';
import type { LockscopeState } from './types';

/** What is shown. Values are shared constants: compare them by identity. */
export interface Visibility {
  /** The verdict: held or violated, and its findings. */
  readonly showVerdict: boolean;
  /** Findings drawn on the run: violation marks, events marked as cited, "DUPLICATE" on writes. */
  readonly showFindings: boolean;
  /** Events after the cursor: the event log lists them and the timeline draws them (no curtain). */
  readonly showFuture: boolean;
  /** What an edit changed in the outcome (the change badge's second half). */
  readonly showEditOutcome: boolean;
  readonly showMetrics: boolean;
  /** Offer "Reveal now" (something is hidden that the user may ask to see). */
  readonly offerReveal: boolean;
}

const EVERYTHING: Visibility = Object.freeze({ showVerdict: true, showFindings: true, showFuture: true, showEditOutcome: true, showMetrics: true, offerReveal: false });
const PREDICTING: Visibility = Object.freeze({ showVerdict: false, showFindings: false, showFuture: false, showEditOutcome: false, showMetrics: false, offerReveal: true });

/** Predict mode's condition: not revealed yet, and the cursor before the run's last event. */
function outcomeStillAhead(s: LockscopeState): boolean {
  if (s.revealed || s.view === 'edit') return false;
  const n = deriveRun(s.composed).events.length;
  return n > 0 && s.cursorIndex < n - 1;
}

/** The store's visibility (a selector: returns one of a few constants, so re-renders happen only when it changes). */
export function visibilityOf(s: LockscopeState): Visibility {
  switch (s.mode) {
    case 'explore':
      return EVERYTHING;
    case 'predict':
      return outcomeStillAhead(s) ? PREDICTING : EVERYTHING;
  }
}

/** The enclosing view's visibility. */
export function useVisibility(): Visibility {
  return useLockscope(visibilityOf);
}
