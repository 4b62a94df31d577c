/** Faults slice: the injected faults (plain data) and the badge describing the last edit's effect. */
import { describeFault } from '../faults/faultCatalog';
import { commitScenario } from './commit';
import { uniqueEditKey } from './scenarioSlice';
import type { FaultsSlice, Slice } from './types';

/** Creates the faults slice. Every edit recomputes the run at once (cached) and sets the badge. */
export const createFaultsSlice: Slice<FaultsSlice> = (set, get) => ({
  faults: [],
  badge: null,
  selectedFault: null,
  addFault(f) {
    const faults = [...get().faults, f];
    commitScenario(set, get, { faults }, `Added: ${describeFault(f, get().scenario)}`, { selectedFault: faults.length - 1, faultMenu: null }, uniqueEditKey('fault+'));
  },
  updateFault(index, f) {
    const faults = get().faults.map((g, i) => (i === index ? f : g));
    commitScenario(set, get, { faults }, `Changed: ${describeFault(f, get().scenario)}`, {}, `fault:${index}`);
  },
  removeFault(index) {
    const removed = get().faults[index];
    if (!removed) return;
    const faults = get().faults.filter((_, i) => i !== index);
    commitScenario(set, get, { faults }, `Removed: ${describeFault(removed, get().scenario)}`, { selectedFault: null }, uniqueEditKey('fault-'));
  },
  selectFault(index) {
    set({ selectedFault: index });
  },
  dismissBadge() {
    set({ badge: null });
  },
});
