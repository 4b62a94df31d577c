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
import { describeFault, fmtTime, type Fault, type Preset, type Scenario } from '../../sim';
import { applicableKinds, withoutFaults, type Counterexample } from '../../sim/search/search';
import { MAX_NOTE_CHARS, shareFromScenario, type ShareState } from '../../share/link';
import { relevantSwitches, switchValueText } from '../mechanism/switches';
import { setupChanges } from '../mechanism/setupDiff';
import type { InterviewerNotes, InterviewSetup } from '../store/types';

export type { TranscriptEntry } from '../store/types';

/** A fault search: the shortest schedule of ≤ `maxFaults` faults of `kinds` that breaks `scenario`'s invariants, or null. */
export type FindCounterexample = (scenario: Scenario, maxFaults: number, kinds: readonly string[]) => Promise<Counterexample | null>;

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
  const all = relevantSwitches(s).map((d) => switchValueText(s, d.id));
  if (!base) return all.join(' · ');
  const before = new Set(relevantSwitches(base).map((d) => switchValueText(base, d.id)));
  const changed = all.filter((t) => !before.has(t));
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
 * Each carries the schedule that makes it bite. Without a model scenario, only the first.
 */
export async function deriveFollowUps(start: Scenario, model: Scenario | undefined, kinds: readonly string[], maxFaults: number, find: FindCounterexample): Promise<InterviewerNotes['q']> {
  const out: { q: string; x: Fault[] }[] = [];
  const base = withoutFaults(start);
  const allowed = kinds.length > 0 ? kinds : applicableKinds(base);
  const first = await find(base, maxFaults, allowed);
  if (first) out.push({ q: clip(`Starting design, with ${inWords(first.faults, first.scenario) || 'no fault at all'}: walk me through what happens. (It breaks: ${broke(first)}.)`), x: [...first.faults] });
  if (model) {
    const m = withoutFaults(model);
    const mk = kinds.length > 0 ? kinds.filter((k) => applicableKinds(m).includes(k)) : applicableKinds(m);
    const own = mk.length > 0 ? await find(m, maxFaults, mk) : null;
    if (own) out.push({ q: clip(`Your design, with ${inWords(own.faults, own.scenario)}: does it hold? (The model answer breaks: ${broke(own)}. What would you add?)`), x: [...own.faults] });
    else if (maxFaults < 3) {
      const more = await find(m, maxFaults + 1, applicableKinds(m));
      if (more) out.push({ q: clip(`Beyond the allowed faults: with ${inWords(more.faults, more.scenario)}, does your design hold? (The model answer breaks: ${broke(more)}.)`), x: [...more.faults] });
      else out.push({ q: clip(`The model answer holds against ≤ ${maxFaults + 1} faults of every kind that applies. Why? What does it rely on that the simulator does not model?`), x: [] });
    }
  }
  return out;
}

/** The interview a link state's `i`/`g`/`z` open as, for the store. */
export function setupOf(links: InterviewLinks, role: 'candidate' | 'interviewer', choice: Pick<InterviewChoice, 'kinds' | 'maxFaults'>): InterviewSetup {
  return { role, kinds: [...choice.kinds], maxFaults: choice.maxFaults, notes: role === 'interviewer' ? links.notes : null };
}

/** The two links' states for a scenario (its faults stay: they are part of the prompt). */
export function interviewLinks(scenario: Scenario, choice: InterviewChoice, followUps: InterviewerNotes['q']): InterviewLinks {
  const g = { k: [...choice.kinds], n: choice.maxFaults };
  const notes: InterviewerNotes = { t: choice.token, a: clip(choice.answer), q: followUps.slice(0, 8), r: choice.rubric.filter((r) => r.trim() !== '').slice(0, 8).map(clip) };
  return {
    candidate: shareFromScenario(scenario, { i: 1, g }),
    interviewer: shareFromScenario(scenario, { i: 2, g, z: notes }),
    notes,
  };
}

/** The outcome of "Check my design". */
export type Grade =
  | { readonly safe: true; readonly maxFaults: number; readonly kinds: readonly string[] }
  | { readonly safe: false; readonly schedule: string; readonly faults: readonly Fault[]; readonly invariant: string; readonly counterexample: Counterexample };

/** Grades a design: the shortest counterexample under the allowed faults, or safe against them. */
export async function gradeDesign(design: Scenario, kinds: readonly string[], maxFaults: number, find: FindCounterexample): Promise<Grade> {
  const base = withoutFaults(design);
  const applicable = applicableKinds(base);
  const use = kinds.length > 0 ? kinds.filter((k) => applicable.includes(k)) : applicable;
  const ce = await find(base, maxFaults, use);
  if (!ce) return { safe: true, maxFaults, kinds: use };
  return { safe: false, schedule: inWords(ce.faults, ce.scenario) || 'no fault at all', faults: ce.faults, invariant: broke(ce), counterexample: ce };
}

/** The grade in one line (the transcript and the result panel). */
export function gradeInWords(g: Grade, kindLabel: (k: string) => string = (k) => k): string {
  if (g.safe) return `Safe against ≤ ${g.maxFaults} fault${g.maxFaults === 1 ? '' : 's'} of these kinds: ${g.kinds.map(kindLabel).join(', ') || 'none apply'}.`;
  const n = g.faults.length;
  return `Broken with ${n} fault${n === 1 ? '' : 's'}: ${g.schedule}. Invariant broken: ${g.invariant}.`;
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
  /** The model answer breaks with no fault at all: no allowed set helps. */
  readonly brokenWithoutFaults: boolean;
  /** The starting design is safe against the kinds left in too (the grading then cannot tell the two apart). */
  readonly startHolds: boolean;
}

/**
 * The largest set of `kinds` (found greedily) under which the model answer passes its own grading:
 * grade it as "Check my design" would (`gradeDesign`); while it breaks, leave out the kinds its
 * shortest counterexample uses, and grade again. With unsafe-release's model answer
 * (compare-and-delete) a pause longer than the TTL still lets two workers inside the critical
 * section, so pause goes — and the starting design then holds too, which `startHolds` says.
 * Makes at most `kinds.length + 1` searches, plus one of the starting design.
 */
export async function passingKinds(model: Scenario, start: Scenario, kinds: readonly string[], maxFaults: number, find: FindCounterexample): Promise<PassingKinds> {
  let left = [...kinds];
  const leftOut: LeftOut[] = [];
  let brokenWithoutFaults = false;
  while (left.length > 0) {
    const g = await gradeDesign(model, left, maxFaults, find);
    if (g.safe) break;
    const used: string[] = [...new Set(g.faults.map((f) => f.kind))];
    if (used.length === 0) {
      brokenWithoutFaults = true;
      break;
    }
    leftOut.push({ kinds: used, schedule: g.schedule, invariant: g.invariant });
    left = left.filter((k) => !used.includes(k));
  }
  const startHolds = left.length === 0 || (await gradeDesign(start, left, maxFaults, find)).safe;
  return { kinds: left, leftOut, brokenWithoutFaults, startHolds };
}

/** Words for what a default allowed set left out, and why ("pause (with Pause A …, the model answer breaks: …)"). */
export function leftOutInWords(p: PassingKinds, kindLabel: (k: string) => string = (k) => k): string {
  return p.leftOut.map((o) => `${o.kinds.map(kindLabel).join(' + ')} (with ${o.schedule}, the model answer breaks: ${o.invariant})`).join('; ');
}

