/** Builds the right-hand scenario of the compare view: the preset's other variant, or the current one with one switch flipped, under the same faults. */
import { findPreset, type Scenario } from '../../sim';
import type { CompareTarget, Variant } from '../store/types';
import { flipSwitch, SWITCHES, switchValueText } from '../mechanism/switches';
import { matchVariant } from '../mechanism/variant';

/**
 * The preset variant the right-hand side shows for "the other variant": the one the left does
 * not equal (the left's setup decides, not the variant last loaded, since switches may have
 * turned one into the other).
 */
export function otherVariantOf(left: Scenario, presetId: string | null, variant: Variant): Variant {
  const m = matchVariant(left, presetId ? findPreset(presetId) : undefined);
  if (m !== null) return m === 'with' ? 'without' : 'with';
  return variant === 'with' ? 'without' : 'with';
}

const cache = new WeakMap<Scenario, Map<string, Scenario>>();

/** The compared scenario (memoised per left scenario and target, so its run stays cached). */
export function compareScenario(left: Scenario, presetId: string | null, variant: Variant, target: CompareTarget): Scenario {
  const key = `${presetId}|${variant}|${target.kind === 'switch' ? target.switchId : 'other'}`;
  let byKey = cache.get(left);
  if (!byKey) cache.set(left, (byKey = new Map()));
  const hit = byKey.get(key);
  if (hit) return hit;
  let right: Scenario;
  const preset = presetId ? findPreset(presetId) : undefined;
  if (target.kind === 'otherVariant' && preset) {
    const other = otherVariantOf(left, presetId, variant) === 'with' ? preset.withFix : preset.withoutFix;
    right = { ...other, faults: left.faults };
  } else if (target.kind === 'switch') right = flipSwitch(left, target.switchId);
  else right = left;
  byKey.set(key, right);
  return right;
}

/** The switches whose values differ between two scenarios, in words. */
export function differences(a: Scenario, b: Scenario): string[] {
  return SWITCHES.filter((d) => d.relevant(a) || d.relevant(b)).filter((d) => d.get(a) !== d.get(b)).map((d) => switchValueText(a, d.id));
}

/**
 * The right-hand side's event index for the left's cursor, so that both sides describe one
 * virtual time the same way: before the first event on both, or after the same share of the
 * events at the cursor's millisecond. The left cursor at `leftIndex` (-1: before the first event)
 * and `cursorMs` has passed every left event before `cursorMs` and the first k of those at
 * `cursorMs`; the right side then has passed every right event before `cursorMs` and its first k
 * at `cursorMs` — all of them when the left has passed all of its own.
 */
export function alignedIndex(left: readonly { atMs: number }[], leftIndex: number, cursorMs: number, right: readonly { atMs: number }[]): number {
  const leftAt = left.filter((e) => e.atMs === cursorMs).length;
  const leftBefore = left.filter((e) => e.atMs < cursorMs).length;
  const k = Math.max(0, Math.min(leftAt, leftIndex + 1 - leftBefore));
  const rightBefore = right.filter((e) => e.atMs < cursorMs).length;
  const rightAt = right.filter((e) => e.atMs === cursorMs).length;
  const passed = rightBefore + (k >= leftAt ? rightAt : Math.min(k, rightAt));
  return passed - 1;
}
