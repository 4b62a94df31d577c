/**
 * Builds the right-hand scenario of the compare view: the preset's other variant, or the current
 * one with one switch flipped, under the same faults (a fault placed at a step follows its step
 * into the other variant's steps: `carryFaults`) and for at least as long as the left runs, and decides whether two runs are the same run
 * (`sameRun`: their traces, byte for byte — never the mechanism alone).
 */
import { findPreset, type Scenario, type TraceEvent } from '../../sim';
import { carryFaults, setupChanges, type SetupChange } from '../mechanism/setupDiff';
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
    // As long as the left runs, when the left runs longer than the variant (a counterexample's run,
    // lengthened by the search for its schedule's delays): else "Replay against another mechanism"
    // changed the run's length along with the mechanism, and cut the other side's run short.
    right = { ...other, horizonMs: Math.max(left.horizonMs, other.horizonMs), faults: carryFaults(left, other) };
  } else if (target.kind === 'switch') right = flipSwitch(left, target.switchId);
  else right = left;
  byKey.set(key, right);
  return right;
}

const sameCache = new WeakMap<readonly TraceEvent[], WeakMap<readonly TraceEvent[], boolean>>();

/**
 * Whether two runs are the same run: their traces equal byte for byte (every event's time, actor,
 * command, reply, narration, state and data). What the compare view calls "identical" is decided
 * here, from the runs, never from the mechanism (two sides with one mechanism and different steps
 * run differently). Memoised per pair of trace arrays.
 */
export function sameRun(a: readonly TraceEvent[], b: readonly TraceEvent[]): boolean {
  if (a === b) return true;
  let byB = sameCache.get(a);
  if (!byB) sameCache.set(a, (byB = new WeakMap()));
  let same = byB.get(b);
  if (same === undefined) byB.set(b, (same = a.length === b.length && JSON.stringify(a) === JSON.stringify(b)));
  return same;
}

/** What the compare view says about its two sides. */
export interface CompareClaim {
  /** Every difference of the setups, left → right (switches, steps, settings). */
  readonly changes: readonly SetupChange[];
  /** The two traces are equal, byte for byte. */
  readonly identical: boolean;
  /** Nothing differs and the runs are one run: "both sides run the same scenario". */
  readonly sameSetup: boolean;
}

/** The claim for two runs (each its scenario and trace): from the setups' differences and the traces, never from the mechanism alone. */
export function compareClaim(left: { readonly scenario: Scenario; readonly events: readonly TraceEvent[] }, right: { readonly scenario: Scenario; readonly events: readonly TraceEvent[] }): CompareClaim {
  const changes = setupChanges(left.scenario, right.scenario);
  const identical = sameRun(left.events, right.events);
  return { changes, identical, sameSetup: changes.length === 0 && identical };
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
