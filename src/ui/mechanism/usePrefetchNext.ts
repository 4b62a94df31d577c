/**
 * Prefetches the runs the mechanism panel's controls would show (`store/prefetch.ts`): each enabled
 * switch's other values (a checkbox flipped, a select's values that change the run) and, for a
 * preset, its other variant. Until the switch statuses of the run on screen are known (the Web
 * Worker takes a run per alternative: a second or more for a ~2,000-event run), every checkbox's
 * flip and the other variant; then the list the statuses give (runs made already are skipped) —
 * exactly
 * the scenarios a click would commit (`d.set` of the store's scenario with its faults, or the
 * preset variant as `loadPreset` composes it), so the click finds them in `deriveRun`'s cache.
 */
import { useEffect } from 'react';
import { findPreset, type Scenario, type SwitchStatus } from '../../sim';
import { compose } from '../store/commit';
import { prefetchRuns } from '../store/prefetch';
import { useLockscopeStore } from '../store';
import { relevantSwitches } from './switches';

/**
 * The scenarios one click on the panel could lead to from `scenario` + `faults` (see above); with
 * `statuses` null (not known yet), each checkbox flipped and the other variant, no select value.
 */
export function nextScenarios(scenario: Scenario, faults: Scenario['faults'], presetId: string | null, statuses: ReadonlyMap<string, SwitchStatus> | null): Scenario[] {
  const out: Scenario[] = [];
  for (const d of relevantSwitches(scenario)) {
    const st = statuses?.get(d.id);
    const v = d.get(scenario);
    if (statuses !== null && !st?.enabled) continue;
    if (statuses === null && typeof v !== 'boolean') continue;
    const values: readonly (string | boolean)[] = typeof v === 'boolean' ? [!v] : st?.enabled ? st.changing : [];
    for (const value of values) out.push(compose(d.set(scenario, value), faults));
  }
  const preset = presetId ? findPreset(presetId) : undefined;
  if (preset) for (const p of [preset.withoutFix, preset.withFix]) if (JSON.stringify(p) !== JSON.stringify(scenario)) out.push(compose(p, p.faults));
  return out;
}

/** Starts the prefetch for the store's `composed` scenario (again when its `statuses` arrive); cancels it on the next edit. */
export function usePrefetchNext(composed: Scenario, statuses: ReadonlyMap<string, SwitchStatus> | null): void {
  const store = useLockscopeStore();
  useEffect(() => {
    const st = store.getState();
    if (st.composed !== composed) return;
    return prefetchRuns(nextScenarios(st.scenario, st.faults, st.presetId, statuses));
  }, [store, composed, statuses]);
}
