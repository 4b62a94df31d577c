/**
 * Predict-then-reveal as a workshop step: "what happens next?" with three options — the sentence
 * of the event after the cursor and two sentences of later events — the tally the presenter
 * enters, then the reveal. Pure.
 *
 * Grading reads the trace's virtual time, never the sentences: the reveal cites the event after
 * the cursor, and every option whose event happens at that same virtual millisecond (`atMs`) is
 * right too — two things that happen at one instant both "happen next" (a newcomer found the
 * second marked wrong).
 */
import type { TraceEvent } from '../../sim';
import type { Vote } from '../store/types';

/** Said when the run has too few other sentences to offer. */
export const NOTHING_HAPPENS = 'Nothing more happens: the run ends here.';

/** What a vote reads of an event: its sentence and its virtual time. */
export type VoteEvent = Pick<TraceEvent, 'narration' | 'atMs'>;

/**
 * What a sentence reads as, for telling options apart: lower case, its figures (times, counts,
 * tokens, attempt numbers) and punctuation set aside. Two sentences with one key read nearly the
 * same ("B tries again: refused (attempt 3)" and "… (attempt 4)"), and a vote offers only one.
 */
export function wordingKey(text: string): string {
  return text.toLowerCase().replace(/\d+(?:[.,]\d+)*/g, '#').replace(/[^\p{L}#]+/gu, ' ').trim();
}

/**
 * The vote asked at event index `atIndex` (−1: before the first event): the next event's
 * narration among up to two sentences of later events that read differently from it, from each
 * other and from the sentence at the cursor (`wordingKey`; the nearest ones, deterministic),
 * its place rotating with `atIndex`. `answers` lists every option whose event happens at the next
 * event's virtual time (`optionsRightAt`). Null when no event follows.
 */
export function makeVote(events: readonly VoteEvent[], atIndex: number): Vote | null {
  const next = events[atIndex + 1];
  if (!next) return null;
  const answer = next.narration;
  // The sentence at the cursor, on both screens as the question is asked: a distractor that reads
  // as it does looked like "what just happened" (a retry loop's next attempt), not a prediction.
  const shown = atIndex >= 0 ? events[atIndex]?.narration : undefined;
  const shownKey = shown === undefined ? null : wordingKey(shown);
  /** Each distractor with the index of its event (the nearest one that says it), −1 for "nothing more happens". */
  const others: { text: string; at: number }[] = [];
  for (let i = atIndex + 2; i < events.length && others.length < 2; i++) {
    const n = events[i]!.narration;
    const key = wordingKey(n);
    if (key !== wordingKey(answer) && key !== shownKey && !others.some((o) => wordingKey(o.text) === key)) others.push({ text: n, at: i });
  }
  if (others.length < 2 && answer !== NOTHING_HAPPENS) others.push({ text: NOTHING_HAPPENS, at: -1 });
  const options = [...others];
  const place = (atIndex + 1) % (options.length + 1);
  options.splice(place, 0, { text: answer, at: atIndex + 1 });
  return {
    atIndex,
    options: options.map((o) => o.text),
    answers: optionsRightAt(events, options.map((o) => o.at), atIndex + 1),
    tally: options.map(() => 0),
    revealed: false,
  };
}

/**
 * The grading: the indexes (into `optionEvents`, each option's event index or −1 for none) of the
 * options whose event happens at the same virtual time as the revealed event `revealed`. Always
 * holds the revealed event's own option. Reads `atMs` only.
 */
export function optionsRightAt(events: readonly Pick<TraceEvent, 'atMs'>[], optionEvents: readonly number[], revealed: number): number[] {
  const at = events[revealed]?.atMs;
  const out: number[] = [];
  optionEvents.forEach((e, i) => {
    if (e === revealed || (e >= 0 && at !== undefined && events[e]?.atMs === at)) out.push(i);
  });
  return out;
}

/** Whether option `i` is one of the vote's right answers. */
export function isRightOption(vote: Vote, i: number): boolean {
  return vote.answers.includes(i);
}

/** The tally with one option's count set (clamped to 0–9,999 hands). */
export function withCount(vote: Vote, option: number, count: number): Vote {
  const n = Number.isFinite(count) ? Math.max(0, Math.min(9_999, Math.round(count))) : 0;
  return { ...vote, tally: vote.tally.map((c, i) => (i === option ? n : c)) };
}
