/**
 * Interview mode (issue 12): two links from one scenario, and grading a candidate's design.
 *
 * - The candidate's link (`i=1`): the scenario in full without its preset id (so nothing leads
 *   back to the preset's fix), its title and description the neutral prompt derived from its data
 *   (`src/share/candidatePrompt.ts`: who runs which job, what must never happen, the faults), the
 *   timeline — its sentences without their explanation part (`TraceEvent.fact`) —, the mechanism
 *   choices, and the faults "Check my design" grades against (`g`: kinds + at most N). No answer.
 * - The interviewer's link (`i=2`): the same, plus the notes (`z`): a random token the candidate's
 *   link lacks (it cannot be derived from the candidate's), the model answer, follow-up questions
 *   each with the fault schedule that makes it bite (found by the fault search), and a rubric.
 *
 * Pure apart from the search it is handed (the app passes one over Web Workers, tests an
 * in-thread `searchFaults`).
 */
import { describeFault, faultKindOf, fmtTime, type Fault, type Preset, type Scenario } from '../../sim';
import { applicableKinds, searchBase, type Counterexample } from '../../sim/search/search';
import { MAX_NOTE_CHARS, shareFromScenario, type ShareState } from '../../share/link';
import { relevantSwitches, switchValueText } from '../mechanism/switches';
import { setupChanges } from '../mechanism/setupDiff';
import type { InterviewerNotes, InterviewSetup } from '../store/types';

export type { TranscriptEntry } from '../store/types';

/**
 * A fault search: the shortest schedule of ≤ `maxFaults` faults of `kinds` that breaks `scenario`'s
 * invariants, or null. With `keepOwnFaults` the scenario's own faults are in every schedule and the
 * schedule adds to them (`SearchOptions.keepOwnFaults`, src/sim/search/search.ts); else they are set aside.
 */
export type FindCounterexample = (scenario: Scenario, maxFaults: number, kinds: readonly string[], keepOwnFaults?: boolean) => Promise<Counterexample | null>;

/**
 * How a design is graded. An interview keeps the scenario's own faults (`keepOwnFaults: true`):
 * the faults the prompt shows always happen, and the allowed ones come on top, so a design that
 * breaks under the prompt's own pause cannot pass. A lesson's exercise grades the bare design.
 */
export interface GradeOptions {
  /** Keep the scenario's own faults in every schedule (default false: set aside). */
  readonly keepOwnFaults?: boolean;
}

/** What the interviewer chose. */
export interface InterviewChoice {
  /** Fault kinds the grading uses (empty: every kind that applies). */
  readonly kinds: readonly string[];
  /** At most this many faults per schedule (1–3). */
  readonly maxFaults: number;
  readonly answer: string;
  readonly rubric: readonly string[];
  /** The random secret of the interviewer's link (URL-safe, 16–64 characters). */
  readonly token: string;
  /** The interview's id, in both links (`g.d`; drawn apart from the token). Absent: links without one, whose timer and transcript a reload does not keep. */
  readonly id?: string;
}

/** The two links' states. */
export interface InterviewLinks {
  readonly candidate: ShareState;
  readonly interviewer: ShareState;
  readonly notes: InterviewerNotes;
}

export { randomToken } from '../randomToken';

/**
 * The mechanism in words ("Lease release: compare-and-delete · Fencing token …: on"): with `base`,
 * only the switches that differ from it ("the starting design" when none does) — the transcript's
 * "design".
 */
export function designInWords(s: Scenario, base?: Scenario): string {
  const relevant = relevantSwitches(s);
  if (!base) return relevant.map((d) => switchValueText(s, d.id)).join(' · ');
  // A switch counts as the candidate's choice only when its value differs from the starting one's,
  // relevant there or not: one that only came into view with another choice (the lock's "On a job
  // error" when the lock changes) keeps the value it had, so it is not credited as chosen.
  const changed = relevant.filter((d) => JSON.stringify(d.get(s)) !== JSON.stringify(d.get(base))).map((d) => switchValueText(s, d.id));
  const ttl = s.mechanism.lock === 'lease' && s.lease.ttlMs !== base.lease.ttlMs ? [`Lease TTL: ${fmtTime(s.lease.ttlMs)}`] : [];
  return changed.length + ttl.length === 0 ? 'the starting design' : [...changed, ...ttl].join(' · ');
}

/**
 * The model answer a preset suggests: its fix and what the fixed variant changes — every
 * difference of its two variants (`setupChanges`: the switches, the job's steps, settings), so a fix
 * that moves the charge after COMMIT is not reduced to the switch it also flips.
 */
export function defaultAnswer(preset: Preset | undefined): string {
  if (!preset) return '';
  const changed = setupChanges(preset.withoutFix, preset.withFix).map((c) => c.text);
  return clip(`${preset.fix[0]!.toUpperCase()}${preset.fix.slice(1)}.${changed.length > 0 ? ` Changes: ${changed.join(' · ')}.` : ''}`);
}

/** A rubric to start from. */
export const DEFAULT_RUBRIC: readonly string[] = [
  'States the invariant (what must never happen) before choosing a mechanism',
  'Chooses the weakest mechanism that enforces it, and says why a weaker one fails',
  'Explains the counterexample: which fault, at which moment, breaks which invariant',
  'Names what the fix costs (latency, availability, operational load)',
];

const clip = (s: string) => (s.length > MAX_NOTE_CHARS ? `${s.slice(0, MAX_NOTE_CHARS - 1)}…` : s);
const inWords = (faults: readonly Fault[], s: Scenario) => faults.map((f) => describeFault(f, s)).join('; ');
const broke = (ce: Counterexample) => ce.violations[0]?.message ?? 'an invariant';

/**
 * Follow-up questions from the search's counterexamples: the starting design's shortest
 * counterexample under the allowed faults ("walk me through it"); the model answer's, under the
 * allowed faults, then under one more fault of every kind that applies ("what would you add?").
 * Each carries the whole schedule that makes it bite (with `keepOwnFaults`, the scenario's own
 * faults and those added), and names only the faults the search added beyond the prompt's; those
 * about the model answer are marked `m` (their schedule is shown on it). Without a model scenario,
 * only the first.
 */
export async function deriveFollowUps(start: Scenario, model: Scenario | undefined, kinds: readonly string[], maxFaults: number, find: FindCounterexample, options: GradeOptions = {}): Promise<InterviewerNotes['q']> {
  const keep = options.keepOwnFaults ?? false;
  const out: { q: string; x: Fault[]; m?: 1 }[] = [];
  const base = searchBase(start, keep);
  const allowed = kinds.length > 0 ? kinds : applicableKinds(base);
  const withWhat = (ce: Counterexample) => (ce.faults.length > 0 ? inWords(ce.faults, ce.scenario) : ce.own.length > 0 ? 'only the faults the prompt has' : 'no fault at all');
  const extra = (ce: Counterexample) => (ce.own.length > 0 && ce.faults.length > 0 ? ', on top of the prompt\'s own faults' : '');
  const first = await find(base, maxFaults, allowed, keep);
  if (first) out.push({ q: clip(`Starting design, with ${withWhat(first)}${extra(first)}: walk me through what happens. It breaks: ${broke(first)}.`), x: [...first.scenario.faults] });
  if (model) {
    const m = searchBase(model, keep);
    const mk = kinds.length > 0 ? kinds.filter((k) => applicableKinds(m).includes(k)) : applicableKinds(m);
    const own = mk.length > 0 ? await find(m, maxFaults, mk, keep) : null;
    if (own) out.push({ q: clip(`Your design, with ${withWhat(own)}${extra(own)}: does it hold? The model answer breaks: ${broke(own)}. What would you add?`), x: [...own.scenario.faults], m: 1 });
    else if (maxFaults < 3) {
      const more = await find(m, maxFaults + 1, applicableKinds(m), keep);
      if (more) out.push({ q: clip(`Beyond the allowed faults: with ${withWhat(more)}${extra(more)}, does your design hold? The model answer breaks: ${broke(more)}.`), x: [...more.scenario.faults], m: 1 });
      else out.push({ q: clip(`The model answer holds against ≤ ${maxFaults + 1} faults of every kind that applies${keep && m.faults.length > 0 ? ' on top of the prompt\'s own' : ''}. Why? What does it rely on that the simulator does not model?`), x: [] });
    }
  }
  return out;
}

/** The interview a link state's `i`/`g`/`z` open as, for the store. */
export function setupOf(links: InterviewLinks, role: 'candidate' | 'interviewer', choice: Pick<InterviewChoice, 'kinds' | 'maxFaults'>): InterviewSetup {
  const id = links.candidate.g?.d;
  return { role, kinds: [...choice.kinds], maxFaults: choice.maxFaults, ...(id !== undefined ? { id } : {}), notes: role === 'interviewer' ? links.notes : null };
}

/** The two links' states for a scenario (its faults stay: they are part of the prompt). */
export function interviewLinks(scenario: Scenario, choice: InterviewChoice, followUps: InterviewerNotes['q']): InterviewLinks {
  const g = { k: [...choice.kinds], n: choice.maxFaults, ...(choice.id !== undefined ? { d: choice.id } : {}) };
  const notes: InterviewerNotes = { t: choice.token, a: clip(choice.answer), q: followUps.slice(0, 8), r: choice.rubric.filter((r) => r.trim() !== '').slice(0, 8).map(clip) };
  return {
    candidate: shareFromScenario(scenario, { i: 1, g }),
    interviewer: shareFromScenario(scenario, { i: 2, g, z: notes }),
    notes,
  };
}

/**
 * The outcome of "Check my design". `own` is the scenario's own faults in words when they were
 * kept in every schedule (`GradeOptions.keepOwnFaults`), '' otherwise; `faults` and `schedule` are
 * only those the search added.
 */
export type Grade = (
  | { readonly safe: true; readonly maxFaults: number; readonly kinds: readonly string[]; readonly own: string }
  | { readonly safe: false; readonly schedule: string; readonly faults: readonly Fault[]; readonly own: string; readonly invariant: string; readonly counterexample: Counterexample }
) & {
  /** Allowed kinds that do not apply to this design (a lease expiry without a lease): not tried, and said so. */
  readonly inapplicable?: readonly string[];
};

/**
 * Grades a design: the shortest counterexample under the allowed faults, or safe against them.
 * With `keepOwnFaults` the design's own faults happen in every schedule (an interview's prompt).
 */
export async function gradeDesign(design: Scenario, kinds: readonly string[], maxFaults: number, find: FindCounterexample, options: GradeOptions = {}): Promise<Grade> {
  const keep = options.keepOwnFaults ?? false;
  const base = searchBase(design, keep);
  const own = inWords(base.faults, base);
  const applicable = applicableKinds(base);
  const use = kinds.length > 0 ? kinds.filter((k) => applicable.includes(k)) : applicable;
  const skipped = kinds.filter((k) => !applicable.includes(k));
  const extra = skipped.length > 0 ? { inapplicable: skipped } : {};
  const ce = await find(base, maxFaults, use, keep);
  if (!ce) return { safe: true, maxFaults, kinds: use, own, ...extra };
  return { safe: false, schedule: inWords(ce.faults, ce.scenario) || 'no fault at all', faults: ce.faults, own, invariant: broke(ce), counterexample: ce, ...extra };
}

/**
 * The prompt's faults as they apply to a candidate's design with a longer lease: each pause,
 * partition and clock jump grows by the candidate's TTL increase, so it keeps its place relative to
 * the lease's expiry (a pause that made the owner outlive a 10 s lease by 2 s still does with a
 * 20 s one): a longer TTL moves the threshold, it is not a fix, as a pause has no upper bound.
 * With no lease on either side, or a TTL that is not longer, the faults are kept as they are.
 * `grown` lists what changed, in words, for the grade ("pause 5 s → 15 s (A)", the duration
 * field's own label).
 */
export function promptFaultsFor(design: Scenario, prompt: Scenario): { readonly faults: Fault[]; readonly grown: readonly string[] } {
  const byMs = design.lease.ttlMs - prompt.lease.ttlMs;
  const grown: string[] = [];
  if (design.mechanism.lock !== 'lease' || prompt.mechanism.lock !== 'lease' || byMs <= 0) return { faults: [...prompt.faults], grown };
  const faults = prompt.faults.map((f): Fault => {
    // The kinds whose duration a lease's holder outlives its lease by (the fault registry's `outlivesLease`).
    const def = faultKindOf(f);
    const ms = def.outlivesLease ? def.duration?.get(f) : null;
    if (!def.duration || typeof ms !== 'number') return f;
    const who = 'worker' in f && typeof f.worker === 'string' ? ` (${f.worker})` : '';
    grown.push(`${def.duration.label} ${fmtTime(ms)} → ${fmtTime(ms + byMs)}${who}`);
    return def.duration.set(f, ms + byMs) as Fault;
  });
  return { faults, grown };
}

/** A choice of a design that its grade did not need (`needlessChoices`). */
export interface NeedlessChoice {
  /** The switch (or `leaseTtl`) whose value differs from the starting design's. */
  readonly id: string;
  /** The choice in words, as the design has it ("Fencing: on", "Lease TTL: 60 s"). */
  readonly text: string;
}

/**
 * The choices of a safe `design` that were not needed: each relevant mechanism switch whose value
 * differs from `start`'s (and the lease TTL), set back alone to `start`'s value and graded again
 * with the same faults (`gradeDesign`); a choice whose undoing still holds was stronger than the
 * invariant needs. "Make it hold with the weakest mechanism" is met only when this is empty.
 * Grades once per changed choice (each a fault search through `find`).
 */
export async function needlessChoices(design: Scenario, start: Scenario, kinds: readonly string[], maxFaults: number, find: FindCounterexample, options: GradeOptions = {}): Promise<NeedlessChoice[]> {
  const out: NeedlessChoice[] = [];
  for (const d of relevantSwitches(design)) {
    const from = d.get(start);
    if (JSON.stringify(d.get(design)) === JSON.stringify(from)) continue;
    const undone = d.set(design, from);
    if (JSON.stringify(undone) === JSON.stringify(design)) continue;
    if ((await gradeDesign(undone, kinds, maxFaults, find, options)).safe) out.push({ id: d.id, text: switchValueText(design, d.id) });
  }
  if (design.mechanism.lock === 'lease' && design.lease.ttlMs !== start.lease.ttlMs) {
    const undone: Scenario = { ...design, lease: { ...design.lease, ttlMs: start.lease.ttlMs } };
    if ((await gradeDesign(undone, kinds, maxFaults, find, options)).safe) out.push({ id: 'leaseTtl', text: `Lease TTL: ${fmtTime(design.lease.ttlMs)}` });
  }
  return out;
}

/**
 * The grade in one line (the transcript and the result panel). With the scenario's own faults kept
 * it says so: "Safe against the prompt's own faults (…) plus ≤ 1 fault of these kinds: …", "Broken
 * by the prompt's own faults alone (…)", "Broken with 1 fault on top of the prompt's own (…): …".
 */
export function gradeInWords(g: Grade, kindLabel: (k: string) => string = (k) => k): string {
  const skipped = g.inapplicable && g.inapplicable.length > 0
    ? ` (${g.inapplicable.map(kindLabel).join(', ')}: allowed, but ${g.inapplicable.length === 1 ? 'it does' : 'they do'} not apply to this design.)`
    : '';
  if (g.safe) {
    const bound = `≤ ${g.maxFaults} fault${g.maxFaults === 1 ? '' : 's'} of these kinds: ${g.kinds.map(kindLabel).join(', ') || 'none apply'}`;
    return `${g.own ? `Safe against the prompt's own faults (${g.own}) plus ${bound}.` : `Safe against ${bound}.`}${skipped}`;
  }
  const n = g.faults.length;
  if (g.own && n === 0) return `Broken by the prompt's own faults alone (${g.own}). Invariant broken: ${g.invariant}.`;
  const added = `${n} fault${n === 1 ? '' : 's'}`;
  return g.own
    ? `Broken with ${added} on top of the prompt's own (${g.own}): ${g.schedule}. Invariant broken: ${g.invariant}.`
    : `Broken with ${added}: ${g.schedule}. Invariant broken: ${g.invariant}.`;
}

/**
 * A failing grade's whole schedule in words, for "with …, it breaks": the added faults, and the
 * prompt's own when they were kept ("Pause B … on top of the prompt's own faults", "the prompt's
 * own faults alone (Pause A …)").
 */
export function scheduleInWordsOf(g: Extract<Grade, { safe: false }>): string {
  if (!g.own) return g.schedule;
  return g.faults.length === 0 ? `the prompt's own faults alone (${g.own})` : `${g.schedule}, on top of the prompt's own faults`;
}

/** One kind of fault (or several used together) a default allowed set leaves out, with the schedule of it that breaks the model answer. */
export interface LeftOut {
  readonly kinds: readonly string[];
  readonly schedule: string;
  readonly invariant: string;
}

/** The fault kinds a model answer withstands (`passingKinds`). */
export interface PassingKinds {
  /** The kinds allowed: the model answer graded against them (as "Check my design" grades) is safe. Empty when none is left. */
  readonly kinds: readonly string[];
  /** What was left out, in order, each with the counterexample that made it go. */
  readonly leftOut: readonly LeftOut[];
  /** The model answer breaks with no fault added (with its own faults only, when they are kept): no allowed set helps. */
  readonly brokenWithoutFaults: boolean;
  /** The starting design is safe against the kinds left in too (the grading then cannot tell the two apart). */
  readonly startHolds: boolean;
}

/**
 * The largest set of `kinds` (found greedily) under which the model answer passes its own grading:
 * grade it as "Check my design" would (`gradeDesign`); while it breaks, leave out the kinds its
 * shortest counterexample uses, and grade again. With unsafe-release's model answer
 * (compare-and-delete) a pause longer than the TTL still lets two workers inside the critical
 * section, so pause goes — and, graded bare, the starting design then holds too, which
 * `startHolds` says. With `keepOwnFaults` (as an interview grades) the starting design still breaks
 * under the prompt's own pause, so the two stay apart. Makes at most `kinds.length + 1` searches, plus one of the starting design.
 */
export async function passingKinds(model: Scenario, start: Scenario, kinds: readonly string[], maxFaults: number, find: FindCounterexample, options: GradeOptions = {}): Promise<PassingKinds> {
  let left = [...kinds];
  const leftOut: LeftOut[] = [];
  let brokenWithoutFaults = false;
  while (left.length > 0) {
    const g = await gradeDesign(model, left, maxFaults, find, options);
    if (g.safe) break;
    const used: string[] = [...new Set(g.faults.map((f) => f.kind))];
    if (used.length === 0) {
      brokenWithoutFaults = true;
      break;
    }
    leftOut.push({ kinds: used, schedule: scheduleInWordsOf(g), invariant: g.invariant });
    left = left.filter((k) => !used.includes(k));
  }
  // With no kind left, only the own faults (when kept) can still break the starting design.
  const startHolds = left.length === 0
    ? !options.keepOwnFaults || (await find(searchBase(start, true), 1, [], true)) === null
    : (await gradeDesign(start, left, maxFaults, find, options)).safe;
  return { kinds: left, leftOut, brokenWithoutFaults, startHolds };
}

/** Words for what a default allowed set left out, and why ("pause (with Pause A …, the model answer breaks: …)"). */
export function leftOutInWords(p: PassingKinds, kindLabel: (k: string) => string = (k) => k): string {
  return p.leftOut.map((o) => `${o.kinds.map(kindLabel).join(' + ')} (with ${o.schedule}, the model answer breaks: ${o.invariant})`).join('; ');
}

