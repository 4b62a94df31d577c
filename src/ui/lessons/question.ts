/**
 * A lesson's question, drawn from the fault search: "which of these fault schedules breaks this
 * design?" — or, for a design whose scenario checks no invariant a run can break (its repeats are
 * declared harmless: the thumbnail), "which of these schedules produce the effect more than once?"
 * (`askFor`), never a question about an invariant the verdict does not check. The options are the search's shortest counterexample (when the design breaks) and
 * single faults drawn with a seeded `Rng` from the search's own candidates (the moments that can
 * matter), shuffled by the same seed: a new seed, a new question. Every option is then run, so
 * which ones break (or repeat) is what the simulation says, never a hand-written answer; a
 * schedule whose run is cut short (inconclusive: it neither breaks nor holds) is never offered. Pure apart from the
 * search it is handed (the app's runs over Web Workers; tests pass an in-thread `searchFaults`).
 */
import { describeFault, duplicateEffects, fmtList, INVARIANT_TEXT, runScenario, Rng, type Fault, type Invariant, type Scenario } from '../../sim';
import { applicableKinds, candidatesFor, withoutFaults, withSchedule } from '../../sim/search/search';
import type { FindCounterexample } from '../interview/kit';

/** An event a finding cites, in words. */
export interface CitedEvent {
  readonly id: string;
  readonly atMs: number;
  readonly actor: string;
  readonly narration: string;
}

/**
 * What a lesson's question asks of each schedule. `breaks`: does its run break one of
 * `invariants` — the ones the scenario's verdict checks (`checkedInvariants`)? `repeats`: for a
 * scenario that checks none (its repeats declared harmless), does its run perform the effect
 * (`what`) more than once — the duplicate the timeline marks?
 */
export type Ask =
  | { readonly kind: 'breaks'; readonly invariants: readonly Invariant['kind'][] }
  | { readonly kind: 'repeats'; readonly what: string };

/**
 * The invariants a run of `scenario` can break: the declared ones, less an `effectOnce` declared
 * `harmless` (its repeats are notes, never violations). (`noWaitCycle`, checked in every run, is
 * listed only when declared; `lessons.test.ts` checks no lesson's option breaks it unnamed.)
 */
export function checkedInvariants(scenario: Scenario): Invariant['kind'][] {
  const kinds = scenario.invariants.filter((i) => !(i.kind === 'effectOnce' && i.harmless)).map((i) => i.kind);
  return [...new Set(kinds)];
}

/** What the lesson's question asks of `design` (its own faults set aside). */
export function askFor(design: Scenario): Ask {
  const invariants = checkedInvariants(design);
  if (invariants.length > 0) return { kind: 'breaks', invariants };
  return { kind: 'repeats', what: design.job.kind === 'insertOnce' ? 'the row' : design.destination.target };
}

/** The question's ask in words, after "Which of these fault schedules …": "breaks “…”?" or "produce thumbs/42.png more than once?". */
export function askInWords(ask: Ask): string {
  if (ask.kind === 'repeats') return `produce ${ask.what} more than once?`;
  const named = ask.invariants.map((k) => `“${INVARIANT_TEXT[k]}”`);
  const list = named.length === 0 ? 'an invariant' : fmtList(named, 'or');
  return `breaks ${list}?`;
}

/** One option of the question: a fault schedule and what running it shows. */
export interface QuestionOption {
  readonly faults: readonly Fault[];
  /** The schedule in words ("No fault at all" for the empty one). */
  readonly words: string;
  /** The question's answer for it: its run breaks one of the asked invariants, or (a `repeats` ask) performs the effect more than once. */
  readonly hit: boolean;
  /** Its run breaks an invariant (the verdict is violated). */
  readonly breaks: boolean;
  /** Its run performs an effect a second time for one business key (a duplicate the timeline marks, violation or not). */
  readonly repeats: boolean;
  /** The verdict's notes (a repeat no checked invariant forbids), in words. */
  readonly notes: readonly string[];
  /** The run was cut short (inconclusive): such a schedule is never offered. */
  readonly inconclusive: boolean;
  /** The first broken invariant, in words (null when it holds). */
  readonly broke: string | null;
  /** The events the first violation cites (none broken: the first note's, the repeat). */
  readonly cited: readonly CitedEvent[];
}

/** A drawn question. */
export interface Question {
  readonly seed: number;
  /** What it asks of each option. */
  readonly ask: Ask;
  readonly options: readonly QuestionOption[];
}

/** The schedule's run, judged for `ask` (by default the design's own, `askFor`). */
export function judgeSchedule(design: Scenario, faults: readonly Fault[], ask: Ask = askFor(design)): QuestionOption {
  const scenario: Scenario = withSchedule(withoutFaults(design), faults);
  const run = runScenario(scenario);
  const first = run.verdict.violations[0];
  const byId = new Map(run.events.map((e) => [e.id, e]));
  // The first violation's events, else the first note's (the repeat the reveal names).
  const cited = ((first ?? run.verdict.notes[0])?.eventIds ?? []).flatMap((id) => {
    const e = byId.get(id);
    return e ? [{ id: e.id, atMs: e.atMs, actor: e.actor, narration: e.narration }] : [];
  });
  const breaks = run.verdict.status === 'violated';
  const repeats = duplicateEffects(scenario, run.events).length > 0;
  return {
    faults: [...faults],
    words: faults.length === 0 ? 'No fault at all' : faults.map((f) => describeFault(f, scenario)).join('; '),
    hit: ask.kind === 'repeats' ? repeats : run.verdict.violations.some((v) => ask.invariants.includes(v.invariant)),
    breaks,
    repeats,
    notes: run.verdict.notes.map((n) => n.message),
    inconclusive: run.verdict.status === 'inconclusive',
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
  const ask = askFor(base);
  // A schedule whose run is cut short answers neither "breaks" nor "holds": it is not offered.
  const judged = new Map<Fault[], QuestionOption>();
  const offerable = (f: Fault[]) => {
    const o = judgeSchedule(base, f, ask);
    judged.set(f, o);
    return !o.inconclusive;
  };
  // A `repeats` ask (nothing can break) offers the fault-free run too: the duplicate happens with no fault at all.
  if (!ce && ask.kind === 'repeats' && rng.int(0, 1) === 0) schedules.push([]);
  while (schedules.length < size && pool.length > 0) {
    const [pick] = pool.splice(rng.int(0, pool.length - 1), 1);
    if (pick && !schedules.some((s) => sameFaults(s, pick) || wordsOf(s) === wordsOf(pick)) && offerable(pick)) schedules.push(pick);
  }
  // Shuffle (Fisher–Yates with the seeded generator).
  for (let i = schedules.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [schedules[i], schedules[j]] = [schedules[j]!, schedules[i]!];
  }
  return { seed, ask, options: schedules.map((s) => judged.get(s) ?? judgeSchedule(base, s, ask)) };
}

/** The right answer: the indexes of the options the question's answer ticks (`hit`: they break, or repeat). */
export function rightOptions(q: Question): number[] {
  return q.options.flatMap((o, i) => (o.hit ? [i] : []));
}

/** The mark an option gets once checked: "breaks" / "holds", or for a `repeats` ask "more than once" / "once". */
export function optionMark(ask: Ask, o: QuestionOption): string {
  if (ask.kind === 'repeats') return o.hit ? 'more than once' : 'not more than once';
  return o.hit ? 'breaks' : 'holds';
}

/** The answer in one line, after "Right." / "Not quite.": which options it ticks (letters), or that none does. */
export function answerLine(q: Question): string {
  const letters = rightOptions(q).map((i) => String.fromCharCode(65 + i));
  if (q.ask.kind === 'repeats') {
    const none = 'No invariant here forbids a repeat: none of them breaks this design.';
    return letters.length === 0 ? `None of them produces ${q.ask.what} more than once. ${none}` : `More than once: ${letters.join(', ')}. ${none}`;
  }
  return letters.length === 0 ? 'None of them breaks this design.' : `Breaks: ${letters.join(', ')}.`;
}

/** What the reveal says of an option (after its schedule's words): what its run broke, or that it held, with the verdict's notes. */
export function revealLine(ask: Ask, o: QuestionOption): string {
  const notes = o.notes.length > 0 ? ` Note: ${o.notes.join('; ')}.` : '';
  if (o.breaks) return `breaks — ${o.broke}.${notes}`;
  if (ask.kind === 'repeats') return o.repeats ? `produces ${ask.what} more than once, and no invariant breaks.${notes}` : `produces ${ask.what} at most once; no invariant breaks.${notes}`;
  return `holds: no invariant broken.${notes}`;
}

/** Whether a pick (indexes) is exactly the set of options the answer ticks. */
export function isRightPick(q: Question, picked: readonly number[]): boolean {
  const want = rightOptions(q);
  const got = [...new Set(picked)].sort((a, b) => a - b);
  return want.length === got.length && want.every((v, i) => v === got[i]);
}
