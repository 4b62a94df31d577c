/**
 * The Lockscope store: scenario, faults, cursor and view slices combined once. Components read
 * the derived run through `useRun()` (memoised per scenario: scrubbing never re-simulates).
 */
import { create } from 'zustand';
import { createScenarioSlice } from './scenarioSlice';
import { createFaultsSlice } from './faultsSlice';
import { createCursorSlice } from './cursorSlice';
import { createViewSlice } from './viewSlice';
import { deriveRun, type DerivedRun } from './derive';
import type { LockscopeState } from './types';

/** The app's store hook. */
export const useLockscope = create<LockscopeState>()((...a) => {
  const state = {
    ...createViewSlice(...a),
    ...createCursorSlice(...a),
    ...createFaultsSlice(...a),
    ...createScenarioSlice(...a),
  };
  return { ...state, faults: [...state.scenario.faults] };
});

/** The run of the current scenario (cached; same object until the scenario changes). */
export function useRun(): DerivedRun {
  return useLockscope((s) => deriveRun(s.composed));
}

/** Puts the store back to its first state (tests). */
export function resetStore(): void {
  useLockscope.getState().loadPreset('export-lease-expiry', 'without');
  useLockscope.setState({ view: 'catalogue', largeType: false, compareTarget: { kind: 'otherVariant' }, speed: 5, hideVerdict: false, revealed: false });
}

export { deriveRun, indexAtMs, indexOfEvent, runEndMs, type DerivedRun } from './derive';
export type * from './types';
