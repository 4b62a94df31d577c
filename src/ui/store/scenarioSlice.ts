/** Scenario slice: which preset and variant is loaded, and its setup (mechanism switches, parameters). */
import { findPreset, PRESETS } from '../../sim';
import { compose, commitScenario } from './commit';
import { deriveRun, indexAtMs, runEndMs } from './derive';
import { sortBookmarks } from './bookmarks';
import { candidateScenario } from '../../share/candidatePrompt';
import { interviewIdentity } from '../interview/session';
import type { ScenarioSlice, Slice } from './types';

const first = PRESETS.find((p) => p.id === 'export-lease-expiry') ?? PRESETS[0]!;

let editSerial = 0;
/** A fresh edit key for edits that must never share a history entry (add, remove, load). */
export function uniqueEditKey(prefix: string): string {
  editSerial += 1;
  return `${prefix}#${editSerial}`;
}

/** Creates the scenario slice (starts on export-lease-expiry, without the fix). */
export const createScenarioSlice: Slice<ScenarioSlice> = (set, get) => ({
  presetId: first.id,
  variant: 'without',
  scenario: first.withoutFix,
  composed: compose(first.withoutFix, first.withoutFix.faults),
  error: null,
  lastEdit: null,
  loadPreset(id, variant = 'without') {
    const preset = findPreset(id);
    if (!preset) {
      set({ error: `No preset called "${id}". Pick one from the list.` });
      return;
    }
    const scenario = variant === 'with' ? preset.withFix : preset.withoutFix;
    const composed = compose(scenario, scenario.faults);
    set({
      presetId: id, variant, scenario, faults: [...scenario.faults], composed, error: null,
      cursorMs: 0, cursorIndex: -1, playing: false, badge: null, selectedFault: null, faultMenu: null, revealed: false, bookmarks: [], vote: null,
      lastEdit: { key: uniqueEditKey('preset'), serial: (get().lastEdit?.serial ?? 0) + 1 },
    });
  },
  setScenario(next, what = 'Mechanism changed', key) {
    commitScenario(set, get, { scenario: next }, what, {}, key ?? `setup:${what}`);
  },
  replaceScenario(next, what, key) {
    commitScenario(set, get, { scenario: next, faults: [...next.faults] }, what, {}, key);
  },
  loadShared(shared, opts) {
    // A candidate's scenario is worded as their link carries it (an older link may not be): src/share/candidatePrompt.ts.
    const scenario = opts.interview?.role === 'candidate' ? candidateScenario(shared) : shared;
    const preset = scenario.id === undefined ? undefined : findPreset(scenario.id);
    const variant = opts.variant ?? (preset && JSON.stringify(preset.withFix.mechanism) === JSON.stringify(scenario.mechanism) ? 'with' : 'without');
    const composed = compose(scenario, scenario.faults);
    const run = deriveRun(composed);
    const events = run.events;
    // An exact time (clamped to the run) places the cursor where the link was copied; else the event index.
    const atMs = opts.cursorMs === undefined ? null : Math.max(0, Math.min(runEndMs(run), opts.cursorMs));
    const cursorIndex = atMs !== null ? indexAtMs(events, atMs) : Math.max(-1, Math.min(events.length - 1, opts.cursorIndex ?? -1));
    // Another interview's link (or none) takes its own timer and transcript, never this one's
    // (back/forward within one interview keeps them; a kept one is taken up by ../interview/session.ts).
    const otherInterview = interviewIdentity(opts.interview) !== interviewIdentity(get().interview);
    set({
      presetId: preset?.id ?? null, variant, scenario, faults: [...scenario.faults], composed, error: null,
      cursorIndex, cursorMs: atMs ?? (cursorIndex < 0 ? 0 : events[cursorIndex]!.atMs), playing: false,
      badge: null, selectedFault: null, faultMenu: null,
      ...(opts.view ? { view: opts.view } : {}),
      compareTarget: opts.compareTarget ?? { kind: 'otherVariant' },
      mode: opts.mode ?? 'explore',
      interview: opts.interview ?? null,
      ...(otherInterview ? { transcript: [], interviewClockMs: null, interviewBase: null } : {}),
      bookmarks: sortBookmarks(opts.bookmarks ?? []),
      lesson: opts.lesson ?? null,
      workshop: opts.workshop ?? null,
      ...(opts.largeType ? { largeType: true } : {}),
      ...(opts.embed ? { embed: true } : {}),
      revealed: events.length > 0 && cursorIndex === events.length - 1,
    });
  },
});
