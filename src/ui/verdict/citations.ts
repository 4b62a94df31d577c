/**
 * Where a mark's colour comes from: the verdict's findings. An event a violation cites may be drawn
 * in the violation colour (red); an event only a note cites (a harmless duplicate, one not
 * checked here) is a note (grey / amber); every other event is drawn as what it is — an error
 * reply the scenario expects and handles (40001 that the framework retries, 23505 that the loser
 * loads the winner after, a 409 for a stale token) is an error reply, never a violation.
 * The timeline's lanes, its marks row and the event log all read this module;
 * `markTruth.test.tsx` checks every preset × variant: no red when the verdict holds, and every red
 * element cited by a violation.
 */
import type { Verdict } from '../../sim';

/** The events the verdict's findings cite, by the kind of finding. */
export interface Citations {
  /** Cited by a violation. */
  readonly violation: ReadonlySet<string>;
  /** Cited by a note only (not by any violation). */
  readonly note: ReadonlySet<string>;
}

const cache = new WeakMap<Verdict, Citations>();

/** The citations of a run's verdict (memoised per verdict object). */
export function citationsOf(run: { readonly verdict: Verdict }): Citations {
  let c = cache.get(run.verdict);
  if (!c) {
    const violation = new Set(run.verdict.violations.flatMap((f) => f.eventIds));
    const note = new Set(run.verdict.notes.flatMap((f) => f.eventIds).filter((id) => !violation.has(id)));
    cache.set(run.verdict, (c = { violation, note }));
  }
  return c;
}

/** The violation colour: drawn only for what a violation cites. */
export const VIOLATION_INK = '#b91c1c';

/**
 * Every red the timeline may draw, the violation colour's shades: an element in one of these must
 * belong to an item that cites a violation's events (the test scans the drawing for them).
 */
export const VIOLATION_REDS: readonly string[] = ['#b91c1c', '#991b1b', '#7f1d1d', '#9f1239', '#dc2626', '#ef4444', '#f87171', '#fca5a5'];

/** The colour of an error reply that no violation cites: amber-brown, unlike any red. */
export const ERROR_REPLY_INK = '#92400e';

/** What a reply text is: an error (SQLSTATE `ERROR`, `FATAL`, Redis `(error)`, HTTP 4xx/5xx), a warning, or an ordinary reply. */
export function replyTone(reply: string | undefined): 'error' | 'warning' | 'ok' {
  if (reply === undefined) return 'ok';
  if (/^(ERROR|FATAL|\(error\)|[45]\d\d\b)/.test(reply)) return 'error';
  if (/^WARNING/.test(reply)) return 'warning';
  return 'ok';
}
