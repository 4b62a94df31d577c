/**
 * The address bar as the app's state: the store ↔ the URL fragment. `#/` is the catalogue; every
 * other view is `#v=1&s=<lz-string>` (src/share/link.ts: the scenario as a preset + changes or in
 * full, the faults, the cursor, the view and the compare side). Old `#/sim/<id>[/fixed]` and
 * `#/compare/<id>[/fixed]` routes still open, and are rewritten to the new form.
 */
import { decodeShare, encodeShare, shareFromScenario, type ShareExtra, type ShareState } from '../../share/link';
import type { Mechanism, Scenario, ValidationError } from '../../sim';
import { flipSwitch, relevantSwitches } from '../mechanism/switches';
import { parseHash } from '../routing';
import { deriveRun } from '../store/derive';
import { bookmarksFromLink, bookmarksToLink } from '../store/bookmarks';
import type { Bookmark, CompareTarget, InterviewSetup, LessonState, LockscopeState, SharedOpts, View, ViewMode, Workshop } from '../store/types';

/** The parts of the store the URL holds. */
export type UrlFields = Pick<LockscopeState, 'composed' | 'variant' | 'view' | 'cursorIndex' | 'compareTarget'> & { readonly mode?: ViewMode; readonly largeType?: boolean; readonly cursorMs?: number; readonly interview?: InterviewSetup | null; readonly embed?: boolean; readonly bookmarks?: readonly Bookmark[]; readonly lesson?: LessonState | null; readonly workshop?: Workshop | null };

/** Mechanism fields that differ between two scenarios (b relative to a). */
function mechanismDiff(a: Scenario, b: Scenario): Partial<Mechanism> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b.mechanism)) if (a.mechanism[k as keyof Mechanism] !== v) out[k] = v;
  return out as Partial<Mechanism>;
}

/** The link state for the current store (catalogue: null). */
export function shareStateOf(s: UrlFields): ShareState | null {
  if (s.view === 'catalogue' || s.view === 'lessons') return null;
  const extra: ShareExtra = {};
  if (s.mode === 'predict') extra.h = 1;
  if (s.interview) Object.assign(extra, interviewShare(s.interview));
  if (s.largeType) extra.t = 1;
  // The embed keeps its flag in its own address (a reload inside the frame stays an embed); an interview is never embedded.
  if (s.embed && !s.interview) extra.e = 1;
  if (s.cursorIndex >= 0) extra.c = s.cursorIndex;
  // A cursor between events keeps its exact time (the link reopens where it was, not at the event before).
  const atEventMs = s.cursorIndex >= 0 ? (deriveRun(s.composed).events[s.cursorIndex]?.atMs ?? 0) : 0;
  if (s.cursorMs !== undefined && Math.round(s.cursorMs) !== atEventMs) extra.a = Math.max(0, Math.round(s.cursorMs));
  const embed = s.embed === true && !s.interview;
  if (s.view === 'compare' && !embed) extra.w = 'compare';
  if (s.view === 'edit' && !embed) extra.w = 'edit';
  const b = bookmarksToLink(s.bookmarks ?? []);
  if (b) extra.b = b;
  if (s.view === 'lesson' && s.lesson && !embed) extra.l = s.lesson;
  if (s.view === 'workshop' && s.workshop && !embed) extra.r = s.workshop;
  if (s.compareTarget.kind === 'switch' && !embed) extra.k = mechanismDiff(s.composed, flipSwitch(s.composed, s.compareTarget.switchId));
  return shareFromScenario(s.composed, extra, s.variant === 'with' ? 1 : 0);
}

/** The link fields of an interview: `i`, `g`, and the notes (`z`) on the interviewer's side only. */
export function interviewShare(iv: InterviewSetup): Pick<ShareState, 'i' | 'g' | 'z'> {
  const g = { k: [...iv.kinds], n: iv.maxFaults, ...(iv.id !== undefined ? { d: iv.id } : {}) };
  return iv.role === 'candidate' || iv.notes === null ? { i: 1, g } : { i: 2, g, z: iv.notes };
}

/** The interview a link state opens, or undefined. */
export function interviewOf(st: ShareState): InterviewSetup | undefined {
  if (st.i === undefined) return undefined;
  const kinds = st.g?.k ?? [];
  const maxFaults = st.g?.n ?? 2;
  const id = st.g?.d !== undefined ? { id: st.g.d } : {};
  return st.i === 2 && st.z ? { role: 'interviewer', kinds, maxFaults, ...id, notes: st.z } : { role: 'candidate', kinds, maxFaults, ...id, notes: null };
}

/** The fragment (with `#`) for the current store. */
export function hashOf(s: UrlFields): string {
  // The lessons' path has an address of its own (README "Lessons"), read back by readHash.
  if (s.view === 'lessons') return '#/lessons';
  const state = shareStateOf(s);
  return state === null ? '#/' : `#${encodeShare(state)}`;
}

/** The compare target a link's `k` describes: the switch whose flip gives those mechanism changes. */
export function compareTargetOf(scenario: Scenario, k: Partial<Mechanism> | undefined): CompareTarget {
  if (!k || Object.keys(k).length === 0) return { kind: 'otherVariant' };
  const want = JSON.stringify(Object.entries(k).sort());
  for (const d of relevantSwitches(scenario)) {
    if (JSON.stringify(Object.entries(mechanismDiff(scenario, flipSwitch(scenario, d.id))).sort()) === want) return { kind: 'switch', switchId: d.id };
  }
  return { kind: 'otherVariant' };
}

/** What a fragment asks for. */
export type UrlIntent =
  | { readonly kind: 'catalogue' }
  /** The guided lessons' path. */
  | { readonly kind: 'lessons' }
  | { readonly kind: 'preset'; readonly presetId: string; readonly variant: 'without' | 'with'; readonly view: View }
  | { readonly kind: 'shared'; readonly scenario: Scenario; readonly opts: SharedOpts; readonly state: ShareState }
  | { readonly kind: 'invalid'; readonly errors: readonly ValidationError[] }
  /** Not ours (e.g. `#main` from the skip link): leave the app alone. */
  | { readonly kind: 'ignore' };

/** Reads a location hash. Never throws. */
export function readHash(hash: string): UrlIntent {
  const h = hash.replace(/^#/, '');
  if (h === '' || h === '/') return { kind: 'catalogue' };
  if (h === '/lessons') return { kind: 'lessons' };
  if (h.startsWith('/')) {
    const r = parseHash(hash);
    if (r.presetId) return { kind: 'preset', presetId: r.presetId, variant: r.variant, view: r.view };
    return { kind: 'invalid', errors: [{ path: 'link', message: `"#${h.slice(0, 60)}" names no view or preset` }] };
  }
  if (!/(^|&)v=/.test(h) && !/(^|&)s=/.test(h)) return { kind: 'ignore' };
  const r = decodeShare(h);
  if (!r.ok) return { kind: 'invalid', errors: r.errors };
  const st = r.state;
  return {
    kind: 'shared',
    scenario: r.scenario,
    state: st,
    opts: {
      ...(st.p !== undefined ? { variant: st.f === 1 ? 'with' : 'without' } : {}),
      view: st.l !== undefined ? 'lesson' : st.r !== undefined ? 'workshop' : st.w === 'compare' ? 'compare' : st.w === 'edit' ? 'edit' : 'simulate',
      cursorIndex: st.c ?? -1,
      ...(st.a !== undefined ? { cursorMs: st.a } : {}),
      compareTarget: compareTargetOf(r.scenario, st.k),
      mode: st.i === 1 ? 'interview' : st.l !== undefined ? 'lesson' : st.h === 1 ? 'predict' : 'explore',
      ...(st.i !== undefined ? { interview: interviewOf(st)! } : {}),
      ...(st.t === 1 ? { largeType: true } : {}),
      ...(st.e === 1 ? { embed: true } : {}),
      ...(st.b !== undefined ? { bookmarks: bookmarksFromLink(st.b) } : {}),
      ...(st.l !== undefined ? { lesson: st.l } : {}),
      ...(st.r !== undefined ? { workshop: st.r } : {}),
    },
  };
}

/** True when the link state carries edits (changed switches, faults, or a whole scenario). */
export function isEdited(state: ShareState | null): boolean {
  return state !== null && (state.m !== undefined || state.x !== undefined || state.s !== undefined);
}

/** JSON with object keys sorted (key order never makes two scenarios differ). */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) => (val && typeof val === 'object' && !Array.isArray(val) ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : val));
}

/** Same scenario content, whatever the key order. */
export function sameScenario(a: Scenario, b: Scenario): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
