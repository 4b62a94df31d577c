/** What the Explore panel does to the store: open a counterexample in the simulator, or against another mechanism in the compare view. */
import type { Counterexample } from '../../sim/search/search';
import { describeFault, findPreset } from '../../sim';
import { deriveRun, indexOfEvent, type LockscopeStore } from '../store';
import { uniqueEditKey } from '../store/scenarioSlice';
import { compareScenario } from '../compare/compareScenario';
import { firstDivergence } from '../compare/divergence';
import { relevantSwitches } from '../mechanism/switches';
import type { CompareTarget } from '../store/types';

/** The schedule in words ("pause A for 31 s before step 2; crash B …"). */
export function scheduleInWords(ce: Counterexample): string {
  const placed = ce.faults.map((f) => describeFault(f, ce.scenario)).join('; ');
  // With the scenario's own faults kept (an interview's grading), they are part of the schedule.
  if (ce.own.length > 0) {
    const own = ce.own.map((f) => describeFault(f, ce.scenario)).join('; ');
    return ce.faults.length === 0 ? `the scenario's own faults alone (${own})` : `${placed}, on top of the scenario's own faults (${own})`;
  }
  return ce.faults.length === 0 ? 'no fault at all (the scenario breaks as it is)' : placed;
}

/**
 * Opens the counterexample in the simulator: the scenario with exactly its faults, through the
 * store's one commit path (`replaceScenario`, so the badge says what changed), the cursor on the
 * first event its verdict cites (the timeline and the log mark every cited event).
 */
export function openCounterexample(store: LockscopeStore, ce: Counterexample): void {
  const s = store.getState();
  s.setPlaying(false);
  s.replaceScenario(ce.scenario, `Counterexample: ${scheduleInWords(ce)}`, uniqueEditKey('explore'));
  const after = store.getState();
  const run = deriveRun(after.composed);
  const first = run.verdict.violations[0]?.eventIds[0];
  after.setView('simulate');
  if (first) after.setCursorIndex(indexOfEvent(run, first));
}

/**
 * Opens the counterexample in the compare view against another mechanism (the preset's other
 * variant; without a preset, the scenario with its first relevant switch flipped — fencing when it
 * applies), the cursor on the first event where the two runs diverge.
 */
export function replayAgainstOther(store: LockscopeStore, ce: Counterexample): void {
  openCounterexample(store, ce);
  const s = store.getState();
  const preset = s.presetId ? findPreset(s.presetId) : undefined;
  const switches = relevantSwitches(s.composed);
  const target: CompareTarget = preset || switches.length === 0 ? { kind: 'otherVariant' } : { kind: 'switch', switchId: (switches.find((d) => d.id === 'fencing') ?? switches[0]!).id };
  s.setCompareTarget(target);
  const left = deriveRun(s.composed);
  const right = deriveRun(compareScenario(s.composed, s.presetId, s.variant, target));
  const d = firstDivergence(left.events, right.events);
  s.setView('compare');
  if (d) {
    if (d.left) s.setCursorIndex(d.leftIndex);
    else if (d.right) s.setCursorMs(d.right.atMs);
  }
}
