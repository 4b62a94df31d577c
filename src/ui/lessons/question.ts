/**
 * A lesson's question, drawn from the fault search: "which of these fault schedules breaks this
 * design?" The options are the search's shortest counterexample (when the design breaks) and
 * single faults drawn with a seeded `Rng` from the search's own candidates (the moments that can
 * matter), shuffled by the same seed: a new seed, a new question. Every option is then run, so
 * which ones break is what the simulation says, never a hand-written answer. Pure apart from the
 * search it is handed (the app's runs over Web Workers; tests pass an in-thread `searchFaults`).
 */
import { describeFault, runScenario, Rng, type Fault, type Scenario } from '../../sim';
import { applicableKinds, candidatesFor, withoutFaults } from '../../sim/search/search';
import type { FindCounterexample } from '../interview/kit';

/** An event a finding cites, in words. */
export interface CitedEvent {
  readonly id: string;
  readonly atMs: number;
  readonly actor: string;
  readonly narration: string;
}

/** One option of the question: a fault schedule and what running it shows. */
export interface QuestionOption {
  readonly faults: readonly Fault[];
  /** The schedule in words ("No fault at all" for the empty one). */
  readonly words: string;
  /** Its run breaks an invariant. */
  readonly breaks: boolean;
  /** The first broken invariant, in words (null when it holds). */
  readonly broke: string | null;
  /** The events the first violation cites. */
  readonly cited: readonly CitedEvent[];
}

/** A drawn question. */
export interface Question {
  readonly seed: number;
  readonly options: readonly QuestionOption[];
}

/** The schedule's run, judged. */
export function judgeSchedule(design: Scenario, faults: readonly Fault[]): QuestionOption {
  const scenario: Scenario = { ...withoutFaults(design), faults: [...faults] };
  const run = runScenario(scenario);
  const first = run.verdict.violations[0];
  const byId = new Map(run.events.map((e) => [e.id, e]));
  const cited = (first?.eventIds ?? []).flatMap((id) => {
    const e = byId.get(id);
    return e ? [{ id: e.id, atMs: e.atMs, actor: e.actor, narration: e.narration }] : [];
  });
  return {
    faults: [...faults],
    words: faults.length === 0 ? 'No fault at all' : faults.map((f) => describeFault(f, scenario)).join('; '),
    breaks: run.verdict.status === 'violated',
    broke: first?.message ?? null,
    cited,
  };
}

const sameFaults = (a: readonly Fault[], b: readonly Fault[]) => JSON.stringify(a) === JSON.stringify(b);

/** A schedule's visible words, for telling options apart: lower case, punctuation and spacing set aside. */
export function optionKey(words: string): string {
  return words.toLowerCase().replace(/[^\p{L}\p{N}.]+/gu, ' ').trim();
}

/**
 * Draws the question for `design` (its own faults set aside) with `seed`: up to `size` options,
 * the search's counterexample under ≤ `maxFaults` faults of `kinds` among them when there is one.
 */
export async function drawQuestion(design: Scenario, kinds: readonly string[], maxFaults: number, seed: number, find: FindCounterexample, size = 3): Promise<Question> {
  const base = withoutFaults(design);
  const applicable = applicableKinds(base);
  const use = kinds.filter((k) => applicable.includes(k));
  const ce = await find(base, maxFaults, use.length > 0 ? use : applicable);
  const rng = new Rng((seed * 7_919 + 17) | 0);
  const baseRun = runScenario(base, { text: false });
  let pool = candidatesFor(base, use.length > 0 ? use : applicable, baseRun).map((c) => [c.fault] as Fault[]);
  if (pool.length < size) pool = [...pool, ...candidatesFor(base, applicable, baseRun).map((c) => [c.fault] as Fault[])];
  const schedules: Fault[][] = ce ? [[...ce.faults]] : [];
  // The fault-free run is an option too when the design breaks without any fault (timing alone).
  if (ce && ce.faults.length > 0 && rng.int(0, 2) === 0) schedules.push([]);
  // Distinct by their words, not only by their faults: two schedules that read the same (one fault
  // described alike at two nearby moments) would be one option twice; the second is skipped.
  const wordsOf = (f: readonly Fault[]) => optionKey(f.length === 0 ? 'No fault at all' : f.map((x) => describeFault(x, base)).join('; '));
  while (schedules.length < size && pool.length > 0) {
    const [pick] = pool.splice(rng.int(0, pool.length - 1), 1);
    if (pick && !schedules.some((s) => sameFaults(s, pick) || wordsOf(s) === wordsOf(pick))) schedules.push(pick);
  }
  // Shuffle (Fisher–Yates with the seeded generator).
  for (let i = schedules.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [schedules[i], schedules[j]] = [schedules[j]!, schedules[i]!];
  }
  return { seed, options: schedules.map((s) => judgeSchedule(base, s)) };
}

/** The right answer: the indexes of the options that break. */
export function breakingOptions(q: Question): number[] {
  return q.options.flatMap((o, i) => (o.breaks ? [i] : []));
}

/** Whether a pick (indexes) is exactly the set of options that break. */
export function isRightPick(q: Question, picked: readonly number[]): boolean {
  const want = breakingOptions(q);
  const got = [...new Set(picked)].sort((a, b) => a - b);
  return want.length === got.length && want.every((v, i) => v === got[i]);
}
