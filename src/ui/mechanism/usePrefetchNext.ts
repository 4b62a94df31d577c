/**
 * Prefetches the runs the mechanism panel's controls would show (`store/prefetch.ts`), once the
 * switch statuses of the run on screen are known: each enabled switch's other values (a checkbox
 * flipped, a select's values that change the run) and, for a preset, its other variant — exactly
 * the scenarios a click would commit (`d.set` of the store's scenario with its faults, or the
 * preset variant as `loadPreset` composes it), so the click finds them in `deriveRun`'s cache.
 */
import { useEffect } from 'react';
import { findPreset, type Scenario, type SwitchStatus } from '../../sim';
import { compose } from '../store/commit';
import { prefetchRuns } from '../store/prefetch';
import { useLockscopeStore } from '../store';
import { relevantSwitches } from './switches';

/** The scenarios one click on the panel could lead to from `scenario` + `faults` (see above). */
export function nextScenarios(scenario: Scenario, faults: Scenario['faults'], presetId: string | null, statuses: ReadonlyMap<string, SwitchStatus>): Scenario[] {
  const out: Scenario[] = [];
  for (const d of relevantSwitches(scenario)) {
    const st = statuses.get(d.id);
    if (!st?.enabled) continue;
    const v = d.get(scenario);
    const values: readonly (string | boolean)[] = typeof v === 'boolean' ? [!v] : st.changing;
    for (const value of values) out.push(compose(d.set(scenario, value), faults));
  }
  const preset = presetId ? findPreset(presetId) : undefined;
  if (preset) for (const p of [preset.withoutFix, preset.withFix]) if (JSON.stringify(p) !== JSON.stringify(scenario)) out.push(compose(p, p.faults));
  return out;
}

/** Starts the prefetch when `statuses` belong to the store's `composed` scenario; cancels it on the next edit. */
export function usePrefetchNext(composed: Scenario, statuses: ReadonlyMap<string, SwitchStatus> | null): void {
  const store = useLockscopeStore();
  useEffect(() => {
    const st = store.getState();
    if (!statuses || st.composed !== composed) return;
    return prefetchRuns(composed, nextScenarios(st.scenario, st.faults, st.presetId, statuses));
  }, [store, composed, statuses]);
}
