/**
 * Folding repeated identical retries: a worker that sends the same command and gets the same reply
 * again and again (`SET lease:export a5e3 NX PX 30000 → (nil)`, once a second for 27 s) shows as
 * one entry, "× 27, 1 s apart", that expands. A fold is a maximal run of one actor's consecutive
 * events (its own, whatever others do in between) with the same command, reply and narration.
 */
import type { TraceEvent } from '../../sim';
import { fmtSeconds } from '../faults/faultCatalog';

/** Fewest repeats that fold. */
export const MIN_FOLD = 3;

/** One entry of the log: an event, or a fold of repeated events (event indices, in order). */
export type LogEntry = { readonly kind: 'event'; readonly index: number } | { readonly kind: 'fold'; readonly indices: readonly number[] };

const keyOf = (e: TraceEvent) => (e.command === undefined ? null : `${e.command}\u0000${e.reply ?? ''}\u0000${e.narration}`);

/** The log's entries for `events`: folds at their first event's place, other events as they are. */
export function foldRetries(events: readonly TraceEvent[], min = MIN_FOLD): LogEntry[] {
  // Per actor: runs of consecutive events with one key.
  const runOf = new Map<number, number[]>();
  const open = new Map<string, number[]>();
  const close = (actor: string) => {
    const run = open.get(actor);
    if (run && run.length >= min) for (const i of run) runOf.set(i, run);
    open.delete(actor);
  };
  events.forEach((e, i) => {
    const k = keyOf(e);
    const run = open.get(e.actor);
    if (run && k !== null && keyOf(events[run[0]!]!) === k) run.push(i);
    else {
      close(e.actor);
      if (k !== null) open.set(e.actor, [i]);
    }
  });
  for (const actor of [...open.keys()]) close(actor);

  const out: LogEntry[] = [];
  events.forEach((_e, i) => {
    const run = runOf.get(i);
    if (!run) out.push({ kind: 'event', index: i });
    else if (run[0] === i) out.push({ kind: 'fold', indices: run });
  });
  return out;
}

/** "1 s apart", or "0.5–1 s apart" when the gaps differ. */
export function spacingText(events: readonly TraceEvent[], indices: readonly number[]): string {
  const gaps = indices.slice(1).map((i, k) => events[i]!.atMs - events[indices[k]!]!.atMs);
  if (gaps.length === 0) return '';
  const lo = Math.min(...gaps);
  const hi = Math.max(...gaps);
  return lo === hi ? `${fmtSeconds(lo)} apart` : `${fmtSeconds(lo)}–${fmtSeconds(hi)} apart`;
}
