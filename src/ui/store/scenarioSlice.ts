/** Scenario slice: which preset and variant is loaded, and its setup (mechanism switches, parameters). */
import { findPreset, PRESETS } from '../../sim';
import { compose, commitScenario } from './commit';
import type { ScenarioSlice, Slice } from './types';

const first = PRESETS.find((p) => p.id === 'export-lease-expiry') ?? PRESETS[0]!;

/** Creates the scenario slice (starts on export-lease-expiry, without the fix). */
export const createScenarioSlice: Slice<ScenarioSlice> = (set, get) => ({
  presetId: first.id,
  variant: 'without',
  scenario: first.withoutFix,
  composed: compose(first.withoutFix, first.withoutFix.faults),
  error: null,
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
      cursorMs: 0, cursorIndex: -1, playing: false, badge: null, selectedFault: null, faultMenu: null,
    });
  },
  setScenario(next, what = 'Mechanism changed') {
    commitScenario(set, get, { scenario: next }, what);
  },
});
