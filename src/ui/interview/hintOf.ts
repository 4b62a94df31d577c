/**
 * For tests of interview mode: the explanation part of an event's sentence — what its full
 * `narration` has and its `fact` (the sentence without the hint, `explained(fact, hint)` in
 * src/sim/engine/narration.ts) has not — found by comparing the two data fields, never by reading the
 * narration for meaning. Null when the event has no `fact` or the two are the same.
 */
import type { TraceEvent } from '../../sim';

/** The hint of `e`'s narration, trimmed of the punctuation that joined it, or null. */
export function hintOf(e: TraceEvent): string | null {
  if (e.fact === undefined) return null;
  const n = e.narration;
  const f = e.fact;
  let i = 0;
  while (i < f.length && f[i] === n[i]) i++;
  let j = 0;
  while (j < f.length - i && f[f.length - 1 - j] === n[n.length - 1 - j]) j++;
  return n.slice(i, n.length - j).replace(/^[\s:;,.—-]+/, '').trim() || null;
}
