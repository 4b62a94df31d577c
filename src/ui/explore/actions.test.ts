/**
 * "Replay against another mechanism": the compare view's two sides differ in the mechanism only,
 * under the counterexample's schedule (newcomer review: the other side kept the preset's 90 s run
 * while the counterexample's had been lengthened to 121 s for its pause, and "what differs" listed
 * the run's length beside the fix).
 */
import { findPreset } from '../../sim';
import { searchFaults } from '../../sim/search/search';
import { createLockscopeStore } from '../store';
import { compareScenario } from '../compare/compareScenario';
import { setupChanges } from '../mechanism/setupDiff';
import { replayAgainstOther } from './actions';

describe('replayAgainstOther', () => {
  it('opens compare with the other variant running as long as the counterexample, so only the fix differs', () => {
    const store = createLockscopeStore();
    store.getState().loadPreset('export-lease-expiry', 'without');
    const ce = searchFaults(store.getState().composed, { maxFaults: 1 }).counterexample!;
    expect(ce.scenario.horizonMs).toBeGreaterThan(findPreset('export-lease-expiry')!.withFix.horizonMs);
    replayAgainstOther(store, ce);
    const s = store.getState();
    expect(s.view).toBe('compare');
    const right = compareScenario(s.composed, s.presetId, s.variant, s.compareTarget);
    expect(right.horizonMs).toBe(s.composed.horizonMs);
    const changes = setupChanges(s.composed, right).map((c) => c.text);
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.some((t) => /run length/i.test(t))).toBe(false);
  });
});
