/**
 * The Lockscope store: scenario, faults, cursor and view slices combined into one vanilla Zustand
 * store. A store is created per view (`createLockscopeStore`) and provided by React context
 * (`./context.tsx`), so that several views (the app today; a presenter and an audience view
 * later) can each hold their own. Components read it through `useLockscope(selector)` and the
 * derived run through `useRun()` (memoised per scenario: scrubbing never re-simulates).
 */
import { createStore } from 'zustand/vanilla';
import { createScenarioSlice } from './scenarioSlice';
import { createFaultsSlice } from './faultsSlice';
import { createCursorSlice } from './cursorSlice';
import { createViewSlice } from './viewSlice';
import type { LockscopeState, LockscopeStore } from './types';

/**
 * Creates a store in its first state: the catalogue, export-lease-expiry without the fix loaded,
 * the cursor before the first event, explore mode.
 */
export function createLockscopeStore(): LockscopeStore {
  return createStore<LockscopeState>()((...a) => {
    const state = {
      ...createViewSlice(...a),
      ...createCursorSlice(...a),
      ...createFaultsSlice(...a),
      ...createScenarioSlice(...a),
    };
    return { ...state, faults: [...state.scenario.faults] };
  });
}

export { LockscopeProvider, useLockscope, useLockscopeStore, useRun } from './context';
export { deriveRun, indexAtMs, indexOfEvent, metricsAt, runEndMs, type DerivedRun } from './derive';
export { narrationShown, useVisibility, visibilityOf, type Visibility } from './visibility';
export type * from './types';
