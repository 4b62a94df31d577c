/**
 * Predict-then-reveal as a workshop step: "what happens next?" with three options — the sentence
 * of the event after the cursor and two sentences that do NOT happen in this run at all: said by
 * counterfactual runs of the same scenario (its own faults set aside, or one other fault placed
 * where the fault search would try it: `voteAlternatives`), the nearest to the cursor's moment,
 * and checked against every sentence of the run, before and after the cursor (`wordingKey`). A
 * wrong option is never a later event of the run: that spoiled the story (asked at 5 s, the
 * audience read what happens at 30 s) and was half right (it does happen, only later). The tally
 * the presenter enters, then the reveal. Pure (the counterfactual runs are simulations).
 *
 * Grading reads the trace's virtual time, never the sentences: the reveal cites the event after
 * the cursor, and every option whose event happens at that same virtual millisecond (`atMs`) is
 * right too (`optionsRightAt`; with wrong options drawn from outside the run that is the answer alone).
 */
import { applicableKinds, candidatesFor, withoutFaults, withSchedule } from '../../sim/search/search';
import { runScenario, type Scenario, type TraceEvent } from '../../sim';
import type { Vote } from '../store/types';

/** Said when the run has too few other sentences to offer. */
export const NOTHING_HAPPENS = 'Nothing more happens: the run ends here.';

/** What a vote reads of an event: its sentence and its virtual time. */
export type VoteEvent = Pick<TraceEvent, 'narration' | 'atMs'>;

/** A sentence a counterfactual run says; `injected` when it announces the fault that run added (less plausible as "what happens next": it is chosen last). */
export type VoteAlternative = VoteEvent & { readonly injected?: boolean };

/**
 * What a sentence reads as, for telling options apart: lower case, its figures (times, counts,
 * tokens, attempt numbers) and punctuation set aside. Two sentences with one key read nearly the
 * same ("B tries again: refused (attempt 3)" and "… (attempt 4)"), and a vote offers only one.
 */
export function wordingKey(text: string): string {
  return text.toLowerCase().replace(/\d+(?:[.,]\d+)*/g, '#').replace(/[^\p{L}#]+/gu, ' ').trim();
}

/**
 * What a sentence says happened, for telling whether a run says it: `wordingKey` with its
 * parentheses and every word that holds a figure set aside ("B takes the lease lease:export for
 * 30 s (owner token e01d)" says what "… (owner token 7a2c)" says: B takes the lease).
 */
export function happeningKey(text: string): string {
  return wordingKey(text.replace(/\([^()]*\)/g, ' ').replace(/[\p{L}\p{N}_:.-]*\d[\p{L}\p{N}_:.-]*/gu, ' '));
}

/**
 * Sentences this scenario's runs could say but need not: every event sentence (with its virtual
 * time) of counterfactual runs — the scenario without its own faults, and with its faults and one
 * more of an applicable kind placed where the fault search tries one (at most `maxRuns` runs, spread over the
 * candidates). `makeVote` keeps only the ones the actual run never says. Deterministic.
 */
export function voteAlternatives(scenario: Scenario, maxRuns = 16): VoteAlternative[] {
  const base = withoutFaults(scenario);
  const baseRun = runScenario(base, { text: true });
  const out: VoteAlternative[] = baseRun.events.map((e) => ({ narration: e.narration, atMs: e.atMs }));
  const candidates = candidatesFor(base, applicableKinds(base), baseRun);
  const step = Math.max(1, Math.ceil(candidates.length / maxRuns));
  for (let i = 0; i < candidates.length; i += step) {
    const run = runScenario(withSchedule(base, [...scenario.faults, candidates[i]!.fault], baseRun), { text: true });
    const added = scenario.faults.length;
    for (const e of run.events) out.push({ narration: e.narration, atMs: e.atMs, injected: e.data?.t === 'fault' && e.data.faultIndex === added });
  }
  return out;
}

/**
 * The vote asked at event index `atIndex` (−1: before the first event): the next event's
 * narration among up to two sentences of `alternatives` (`voteAlternatives`) that never occur in
 * this run (no event of `events`, before or after the cursor, says the same: `happeningKey`), say
 * different things from each other, and were said nearest the next event's moment (later ones first
 * when equally near; a counterfactual fault's own announcement only when nothing else is left);
 * "nothing more happens" fills in when too few are left. The answer's place
 * rotates with `atIndex`. `answers` lists every option whose event happens at the next event's
 * virtual time (`optionsRightAt`). Null when no event follows.
 */
export function makeVote(events: readonly VoteEvent[], atIndex: number, alternatives: readonly VoteAlternative[] = []): Vote | null {
  const next = events[atIndex + 1];
  if (!next) return null;
  const answer = next.narration;
  const said = new Set(events.map((e) => happeningKey(e.narration)));
  const nowMs = next.atMs;
  const pool = alternatives
    .filter((a) => !said.has(happeningKey(a.narration)) && a.narration !== NOTHING_HAPPENS)
    .map((a, i) => ({ a, i }))
    .sort((x, y) => Number(x.a.injected ?? false) - Number(y.a.injected ?? false) || Math.abs(x.a.atMs - nowMs) - Math.abs(y.a.atMs - nowMs) || (y.a.atMs >= nowMs ? 1 : 0) - (x.a.atMs >= nowMs ? 1 : 0) || x.i - y.i);
  /** Each wrong option (−1: its event is in no run of these events). */
  const others: { text: string; at: number }[] = [];
  for (const { a } of pool) {
    if (others.length >= 2) break;
    const key = happeningKey(a.narration);
    if (!others.some((o) => happeningKey(o.text) === key)) others.push({ text: a.narration, at: -1 });
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
