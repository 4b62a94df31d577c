/**
 * Predict-then-reveal as a workshop step: "what happens next?" with three options — the sentence
 * of the event after the cursor and two sentences of later events — the tally the presenter
 * enters, then the reveal. Pure.
 */
import type { TraceEvent } from '../../sim';
import type { Vote } from '../store/types';

/** Said when the run has too few other sentences to offer. */
export const NOTHING_HAPPENS = 'Nothing more happens: the run ends here.';

/**
 * The vote asked at event index `atIndex` (−1: before the first event): the next event's
 * narration among up to two different sentences of later events (the nearest ones, deterministic),
 * its place rotating with `atIndex`. Null when no event follows.
 */
export function makeVote(events: readonly Pick<TraceEvent, 'narration'>[], atIndex: number): Vote | null {
  const next = events[atIndex + 1];
  if (!next) return null;
  const answer = next.narration;
  const others: string[] = [];
  for (let i = atIndex + 2; i < events.length && others.length < 2; i++) {
    const n = events[i]!.narration;
    if (n !== answer && !others.includes(n)) others.push(n);
  }
  if (others.length < 2 && answer !== NOTHING_HAPPENS) others.push(NOTHING_HAPPENS);
  const options = [...others];
  const at = (atIndex + 1) % (options.length + 1);
  options.splice(at, 0, answer);
  return { atIndex, options, answer: at, tally: options.map(() => 0), revealed: false };
}

/** The tally with one option's count set (clamped to 0–9,999 hands). */
export function withCount(vote: Vote, option: number, count: number): Vote {
  const n = Number.isFinite(count) ? Math.max(0, Math.min(9_999, Math.round(count))) : 0;
  return { ...vote, tally: vote.tally.map((c, i) => (i === option ? n : c)) };
}
