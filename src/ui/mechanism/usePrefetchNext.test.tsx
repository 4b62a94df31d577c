// @vitest-environment jsdom
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import * as sim from '../../sim';
import { MechanismPanel } from './MechanismPanel';
import { nextScenarios } from './usePrefetchNext';
import { createLockscopeStore } from '../store';
import { deriveInPieces, deriveRun, DERIVE_PIECE_STEPS, isDerived, type DerivedRun } from '../store/derive';
import { knownValid, prefetchRuns } from '../store/prefetch';
import { generatedScenario } from '../../../bench/uiScenario';
import { renderIn } from '../store/testing';

/**
 * The prefetched runs by scenario content, taken from the cache (no run). After a click the store's
 * run must be one of these very objects: a run made by the click would be a new object.
 */
function cachedRuns(next: readonly sim.Scenario[]): Map<string, DerivedRun> {
  return new Map(next.map((s) => [JSON.stringify(s), deriveRun(s)]));
}

describe('the mechanism panel prefetches the runs its controls would show', () => {
  // Presets with a checkbox, a select and only the variant radio among them.
  for (const id of ['export-lease-expiry', 'unsafe-release', 'pooler-session-lock', 'invoice-race']) {
    it(`${id}: after idle time, the other variant and then the first enabled control are shown without a new run`, async () => {
      const user = userEvent.setup();
      const store = createLockscopeStore();
      store.getState().loadPreset(id);
      renderIn(store, <MechanismPanel />);
      /** Waits for the statuses of the run on screen and its prefetch; returns what was prefetched. */
      const settled = async () => {
        await waitFor(() => expect(screen.getByRole('region', { name: 'Mechanism' })).toHaveAttribute('aria-busy', 'false'), { timeout: 20_000 });
        const st = store.getState();
        const statuses = sim.switchStatuses(st.composed);
        const next = nextScenarios(st.scenario, st.faults, st.presetId, statuses);
        expect(next.length).toBeGreaterThan(0);
        // Derived and validated (a scenario on screen before, such as the variant loaded first, was derived already but not validated by the prefetch).
        await waitFor(() => expect(next.filter((s) => !isDerived(s) || !knownValid(s)).map((s) => s.mechanism)).toEqual([]), { timeout: 20_000 });
        return { st, statuses, runs: cachedRuns(next) };
      };
      /** The run on screen is the prefetched object for its content. */
      const shownFromPrefetch = (runs: Map<string, DerivedRun>) => {
        const composed = store.getState().composed;
        expect(runs.get(JSON.stringify(composed))).toBeDefined();
        expect(deriveRun(composed)).toBe(runs.get(JSON.stringify(composed)));
      };
      const first = await settled();
      await user.click(screen.getByLabelText('with the fix'));
      expect(store.getState().variant).toBe('with');
      shownFromPrefetch(first.runs);
      const { st, statuses, runs } = await settled();
      const box = document.querySelector<HTMLInputElement>('.mechanism .switches input[type=checkbox]:not(:disabled)');
      const select = document.querySelector<HTMLSelectElement>('.mechanism .switches select:not(:disabled)');
      if (box) await user.click(box);
      else if (select) {
        const d = sim.relevantSwitches(st.scenario).find((x) => x.label === select.getAttribute('aria-label'))!;
        await user.selectOptions(select, (statuses.get(d.id) as { changing: readonly string[] }).changing[0]!);
      }
      if (box || select) {
        expect(store.getState().composed).not.toBe(st.composed);
        shownFromPrefetch(runs);
      }
    }, 60_000);
  }

  it('a ~2,000-event run is prefetched too, in pieces of world steps, and gives the very run a click would make', async () => {
    const big = generatedScenario();
    const flipped = { ...big, mechanism: { ...big.mechanism, fencing: !big.mechanism.fencing } };
    const whole = sim.runScenario(flipped, { captureSnapshots: true });
    expect(whole.events.length).toBeGreaterThan(1500);
    prefetchRuns([flipped]);
    await waitFor(() => expect(isDerived(flipped)).toBe(true), { timeout: 30_000 });
    const run = deriveRun(flipped);
    expect(run.traceHash).toBe(whole.traceHash);
    expect(JSON.stringify(run.snapshots)).toBe(JSON.stringify(whole.snapshots));
  }, 60_000);

  it('each piece runs at most DERIVE_PIECE_STEPS world steps; a run cut off midway is finished by deriveRun, not begun again', () => {
    const big = generatedScenario();
    const other = { ...big, seed: big.seed + 7 };
    const whole = sim.runScenario(other, { captureSnapshots: true });
    const piece = deriveInPieces(other)!;
    let pieces = 0;
    while (pieces < 10 && piece()) pieces += 1;
    expect(isDerived(other)).toBe(false);
    // World steps are at least events: ten pieces cannot have made the whole run.
    expect(pieces * DERIVE_PIECE_STEPS).toBeLessThan(whole.events.length);
    const run = deriveRun(other);
    expect(run.traceHash).toBe(whole.traceHash);
    expect(run.snapshots.length).toBe(whole.events.length);
    // The piece function sees that the click took the run, and stops.
    expect(piece()).toBe(false);
    expect(deriveRun(other)).toBe(run);
    expect(deriveInPieces(other)).toBeNull();
  });
});
