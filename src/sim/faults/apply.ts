/**
 * Faults are plain data (each kind's schema is its entry in the fault registry, registry.ts);
 * this module fires them in a running world, at a virtual time or at a worker's step boundary,
 * and lets the kind's entry apply it. A step fault fires once per run, even if the worker
 * restarts and passes the same step again.
 */
import type { World, WorkerRuntime } from '../engine/world';
import { faultActorOf, faultKindOf, type FaultBase, type FaultContext, type FaultEffect } from './registry';

export type { FaultEffect };

/** Schedules every fault placed at a virtual time. */
export function scheduleTimedFaults(world: World): void {
  world.scenario.faults.forEach((f, index) => {
    if (f.atMs !== undefined) world.at(f.atMs, () => void applyFault(world, f, index));
  });
}

/** Applies the faults placed at this worker's step and phase; 'stop' if one ended the worker's flow. */
export function applyStepFaults(world: World, w: WorkerRuntime, step: number, phase: 'before' | 'after'): FaultEffect {
  const faults = world.scenario.faults;
  if (faults.length === 0) return 'continue';
  const fired = world.firedStepFaults;
  let effect: FaultEffect = 'continue';
  faults.forEach((f, index) => {
    if (effect === 'stop' || f.step !== step || f.worker !== w.id || (f.phase ?? 'before') !== phase || fired.has(index)) return;
    fired.add(index);
    effect = applyFault(world, f, index);
  });
  return effect;
}

/** Applies one fault now, through its kind's registry entry. */
export function applyFault(world: World, f: FaultBase, index: number): FaultEffect {
  world.faultFiredAtMs[index] ??= world.nowMs;
  const def = faultKindOf(f);
  const ctx: FaultContext = {
    world,
    index,
    worker: f.worker === undefined ? undefined : world.workers.get(f.worker),
    event(narration, extra = {}) {
      world.emit(extra.worker?.id ?? faultActorOf(def), 'fault', narration, { ...extra, data: { t: 'fault', faultIndex: index, kind: f.kind } });
    },
  };
  return def.apply(ctx, f);
}
