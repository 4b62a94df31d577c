/**
 * The one place a scenario edit lands: compose scenario + faults, validate, derive the run (cached),
 * compare with the previous run for the badge, and re-place the cursor by time. Shared by the
 * scenario and faults slices.
 */
import { validateScenario, formatErrors, type Fault, type Scenario, type TraceEvent } from '../../sim';
import { deriveRun, indexAtMs } from './derive';
import { knownValid, noteValid } from './prefetch';
import { describeChange } from './changes';
import type { LockscopeState } from './types';

type Set = (partial: Partial<LockscopeState>) => void;
type Get = () => LockscopeState;

/**
 * The cursor's index in the new run: before the first event stays there; on an event, the same
 * position among the events at that millisecond (so "event 3 at 0 ms" does not become "event 4"
 * because the edit added an event at 0 ms); between events, the last event at or before the time.
 */
export function replaceCursor(before: readonly TraceEvent[], after: readonly TraceEvent[], index: number, ms: number): number {
  if (index < 0) return -1;
  const at = before[index]?.atMs;
  const last = indexAtMs(after, ms);
  if (at !== ms) return last;
  const firstBefore = firstAt(before, ms);
  const firstAfter = firstAt(after, ms);
  return Math.min(last, firstAfter + (index - firstBefore));
}

/** Index of the first event at or after `ms` (binary search). */
function firstAt(events: readonly TraceEvent[], ms: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.atMs < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Builds scenario + faults as one Scenario object. */
export function compose(scenario: Scenario, faults: readonly Fault[]): Scenario {
  return { ...scenario, faults: [...faults] };
}

/**
 * Applies an edit. Invalid results keep the previous scenario and set `error` (the app stays usable).
 * `action` labels the badge; pass null for edits that should not show one (loading a preset).
 * `key` names the control that made the edit (see ScenarioSlice.lastEdit).
 */
export function commitScenario(set: Set, get: Get, next: { scenario?: Scenario; faults?: Fault[] }, action: string | null, extra: Partial<LockscopeState> = {}, key: string = action ?? 'edit'): void {
  const s = get();
  const scenario = next.scenario ?? s.scenario;
  const faults = next.faults ?? s.faults;
  const candidate = compose(scenario, faults);
  // A content a prefetch (./prefetch.ts) or an earlier edit already found valid skips the schema walk.
  const json = JSON.stringify(candidate);
  if (!knownValid(candidate, json)) {
    const checked = validateScenario(candidate);
    if (!checked.ok) {
      set({ error: `That change makes the scenario invalid: ${formatErrors(checked.errors)}`, ...extra });
      return;
    }
    noteValid(candidate, json);
  }
  const before = deriveRun(s.composed);
  const after = deriveRun(candidate);
  const cursorIndex = replaceCursor(before.events, after.events, s.cursorIndex, s.cursorMs);
  set({
    scenario,
    faults,
    composed: candidate,
    error: null,
    cursorIndex,
    lastEdit: { key, serial: (s.lastEdit?.serial ?? 0) + 1 },
    ...(action !== null ? { badge: { action, changes: describeChange(before, after), serial: (s.badge?.serial ?? 0) + 1 } } : {}),
    ...extra,
  });
}
