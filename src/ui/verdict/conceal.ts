/** Predict-then-reveal: whether the outcome is hidden right now (the toggle is on, not revealed, cursor before the last event). */
import { deriveRun, useLockscope } from '../store';
import type { LockscopeState } from '../store/types';

/** True while the verdict, badges' outcome, violation marks and the future are hidden. */
export function isConcealed(s: LockscopeState): boolean {
  if (!s.hideVerdict || s.revealed) return false;
  const n = deriveRun(s.composed).events.length;
  return n > 0 && s.cursorIndex < n - 1;
}

/** The store's concealment (re-renders only when it flips). */
export function useConcealed(): boolean {
  return useLockscope(isConcealed);
}
