/** Which preset variant a scenario's setup equals (faults aside), if any. */
import type { Preset, Scenario } from '../../sim';
import { canonicalJson } from '../url/urlState';
import type { Variant } from '../store/types';

const cache = new WeakMap<Scenario, Map<string, Variant | null>>();

const setups = new WeakMap<Scenario, string>();

/** The setup as canonical JSON, once per scenario object (the presets' variants are compared with every edit). */
function setupOf(s: Scenario): string {
  let j = setups.get(s);
  if (j === undefined) {
    const { faults: _f, ...rest } = s;
    setups.set(s, (j = canonicalJson(rest)));
  }
  return j;
}

/** 'without' / 'with' when the setup (everything but the faults) equals that variant; null when edited beyond both. */
export function matchVariant(s: Scenario, preset: Preset | undefined): Variant | null {
  if (!preset) return null;
  let byPreset = cache.get(s);
  if (!byPreset) cache.set(s, (byPreset = new Map()));
  if (byPreset.has(preset.id)) return byPreset.get(preset.id)!;
  const mine = setupOf(s);
  const v: Variant | null = mine === setupOf(preset.withoutFix) ? 'without' : mine === setupOf(preset.withFix) ? 'with' : null;
  byPreset.set(preset.id, v);
  return v;
}

/** Words for a variant ("Without the fix") or for a setup that matches neither. */
export function variantName(v: Variant | null): string {
  return v === 'with' ? 'With the fix' : v === 'without' ? 'Without the fix' : 'Your edited mechanism';
}
