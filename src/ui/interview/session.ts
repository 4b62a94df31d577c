/**
 * An interview's timer and transcript across a reload (issue 12: "a timer and a transcript of what
 * the candidate tried, in order, for the debrief"). Kept in sessionStorage under the interview's
 * identity — its id (the link's `g.d`, in both of its links), else the interviewer's token — and
 * its side, so a reload of the same link in the same tab finds them and another interview's link
 * never does.
 *
 * sessionStorage, not localStorage: the timer measures one sitting, in one tab. A second tab of
 * the same link (or the interviewer trying the candidate's link beside a real candidate's) starts
 * its own instead of interleaving two transcripts under one key, and nothing of a candidate's
 * attempts stays on a shared machine once the tab is closed. A link made before interviews had
 * an id (a candidate's without `g.d`) has nothing to be kept under: its reload starts afresh.
 *
 * What is read is checked with zod (and the starting design with `validateScenario`): a
 * hand-edited, stale or foreign entry is ignored — the interview starts afresh, and the next save
 * replaces it —, never thrown. Storage that refuses (private mode, quota) keeps nothing, silently.
 */
import { z } from 'zod';
import { validateScenario, type Scenario } from '../../sim';
import type { InterviewSetup, TranscriptEntry } from '../store/types';

/** Where the entries live: the storage and the wall clock (a test seam: the app uses sessionStorage and `Date.now`). */
export interface SessionEnv {
  /** The storage, or undefined where there is none (or it throws on access). */
  readonly storage: () => Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | undefined;
  /** Wall-clock ms (the timer's start must outlive `performance.now`, which restarts with the page). */
  readonly wallNow: () => number;
}

/** sessionStorage and `Date.now`. */
export const defaultSessionEnv: SessionEnv = {
  storage: () => {
    try {
      return typeof sessionStorage === 'undefined' ? undefined : sessionStorage;
    } catch {
      return undefined;
    }
  },
  wallNow: () => Date.now(),
};

/** Longest transcript kept (a sitting of an hour checks far fewer). */
export const MAX_KEPT_ENTRIES = 200;
const MAX_WORDS = 4_000;

/**
 * Who an interview is, as far as its timer and transcript go: its side and its id (else the
 * interviewer's token); null for no interview. Two links with one identity are one interview's
 * side. A candidate's link without an id is `candidate:` — the same as any other such link.
 */
export function interviewIdentity(iv: InterviewSetup | null | undefined): string | null {
  if (!iv) return null;
  return `${iv.role}:${iv.id ?? iv.notes?.t ?? ''}`;
}

/** The storage key of an interview's entry, or null when it has no id or token to be kept under. */
export function sessionKeyOf(iv: InterviewSetup | null | undefined): string | null {
  if (!iv || (iv.id === undefined && !iv.notes)) return null;
  return `lockscope:interview:v1:${interviewIdentity(iv)}`;
}

const entrySchema = z.strictObject({
  /** The identity it belongs to (checked against the key it was found under). */
  who: z.string().max(200),
  /** When the interview's clock started, wall-clock ms. */
  startedAt: z.number().int().min(0),
  /** The starting design (the prompt's faults and the switches the transcript's words compare with). */
  base: z.unknown(),
  transcript: z.array(z.strictObject({
    atMs: z.number().int().min(0),
    design: z.string().max(MAX_WORDS),
    result: z.string().max(MAX_WORDS),
  })).max(MAX_KEPT_ENTRIES),
});

/** An interview's kept state: when its clock started (wall-clock ms), its starting design and its transcript. */
export interface KeptInterview {
  readonly startedAt: number;
  readonly base: Scenario;
  readonly transcript: readonly TranscriptEntry[];
}

/** The kept state of this interview's side, or null (none, unreadable, another interview's). Never throws. */
export function readSession(env: SessionEnv, iv: InterviewSetup): KeptInterview | null {
  const key = sessionKeyOf(iv);
  if (key === null) return null;
  try {
    const raw = env.storage()?.getItem(key);
    if (raw == null || raw.length > 400_000) return null;
    const parsed = entrySchema.safeParse(JSON.parse(raw));
    if (!parsed.success || parsed.data.who !== interviewIdentity(iv) || parsed.data.startedAt > env.wallNow()) return null;
    const base = validateScenario(parsed.data.base);
    if (!base.ok) return null;
    return { startedAt: parsed.data.startedAt, base: base.scenario, transcript: parsed.data.transcript };
  } catch {
    return null;
  }
}

/** Keeps this interview's side's state (the latest entries when there are too many). Never throws. */
export function writeSession(env: SessionEnv, iv: InterviewSetup, kept: KeptInterview): void {
  const key = sessionKeyOf(iv);
  if (key === null) return;
  try {
    const entry: z.infer<typeof entrySchema> = { who: interviewIdentity(iv)!, startedAt: Math.max(0, Math.floor(kept.startedAt)), base: kept.base, transcript: kept.transcript.slice(-MAX_KEPT_ENTRIES).map((t) => ({ atMs: Math.max(0, Math.round(t.atMs)), design: t.design.slice(0, MAX_WORDS), result: t.result.slice(0, MAX_WORDS) })) };
    env.storage()?.setItem(key, JSON.stringify(entry));
  } catch {
    // Storage refused (quota, private mode): the interview goes on, unkept.
  }
}

/** Forgets this interview's side's kept state. Never throws. */
export function clearSession(env: SessionEnv, iv: InterviewSetup): void {
  const key = sessionKeyOf(iv);
  if (key === null) return;
  try {
    env.storage()?.removeItem(key);
  } catch {
    // Nothing to forget.
  }
}
