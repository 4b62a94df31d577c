/**
 * The fault registry: one entry per fault kind, holding everything about that kind — its schema
 * (the scenario format), how it applies to a running world, how it reads in words, whether it
 * applies to a scenario (the fault menu asks), the timeline lane its marker belongs to, and a
 * generator of random instances from a seeded Rng (property tests, fault search). The scenario
 * schema, the engine and the UI's fault menu all read this registry; adding a fault kind is one
 * `registerFaultKind` call. The built-in kinds are in kinds.ts.
 */
import type { z } from 'zod';
import type { World, WorkerRuntime } from '../engine/world';
import type { Rng } from '../engine/rng';
import type { Scenario } from '../scenario/schema';
import { BUILTIN_FAULT_KINDS } from './kinds';
import { fmtSeconds } from '../engine/fmt';

/** Whether the worker goes on after a fault, or its current flow ends (crash, job error). */
export type FaultEffect = 'continue' | 'stop';

/** The fields every fault has: its kind and its placement (a time, or a worker's step and phase). */
export interface FaultBase {
  readonly kind: string;
  readonly atMs?: number | undefined;
  readonly step?: number | undefined;
  readonly phase?: 'before' | 'after' | undefined;
  readonly worker?: string | undefined;
}

/** The timeline lane family a fault's marker belongs to. */
export type FaultLaneKind = 'worker' | 'lease' | 'database';

/** The lane a fault's marker belongs to (the UI's LaneRef for it). */
export type FaultLane = { readonly kind: 'worker'; readonly worker: string } | { readonly kind: 'lease'; readonly key: string } | { readonly kind: 'database' };

/** What a fault's `apply` gets besides the fault: the world, the fault's index in the scenario, and how to narrate it. */
export interface FaultContext {
  readonly world: World;
  /** Index of the fault in `scenario.faults` (cited by its trace events). */
  readonly index: number;
  /** The worker the fault names, if it names one that exists (an `admin` is created by its fault). */
  readonly worker: WorkerRuntime | undefined;
  /** Emits a `fault` event for this fault (actor: the worker if given, else the kind's `actor`). */
  event(narration: string, extra?: { command?: string; reply?: string; worker?: WorkerRuntime }): void;
}

/** One fault kind. `F` is the shape its schema parses. */
export interface FaultKindDef<F extends FaultBase = FaultBase> {
  readonly kind: F['kind'];
  /** The kind in a user's words ("stall a worker's renewal timer (starved watchdog)"): what the editor's kind select and the transcript show, never `kind`. */
  readonly label: string;
  /** Its variant of the scenario's fault union: a strict object with `kind` as a literal, spreading `faultPlacement`. */
  readonly schema: z.ZodType<F>;
  /** The timeline lane its marker belongs to. */
  readonly lane: FaultLaneKind;
  /** Actor of its trace events when no worker is involved (default `fault`). */
  readonly actor?: string;
  /** A one- or two-character glyph for its marker. */
  readonly glyph: string;
  /** Its editable duration field, if it has one (the label in words; null ms = never). */
  readonly duration?: { readonly label: string; get(f: F): number | null; set(f: F, ms: number | null): F };
  /**
   * How much later, in ms, the run's work ends because of it, when the work waits it out (a
   * pause's length, a partition's, a crash's restart delay plus `afterCrashMs` for the restarted
   * worker to redo its job); absent: 0. The fault search lengthens a schedule's horizon by the sum
   * (search/search.ts `delayOfMs`), so that no schedule is cut short before its effect shows.
   */
  readonly runDelayMs?: (f: F, afterCrashMs: number) => number;
  /**
   * True when its `duration` is a span by which a lease's holder outlives its lease (a pause, a
   * partition, a clock jump on the lease store): a longer TTL moves the threshold but is no fix,
   * so an interview grades a longer-TTL design with it grown by the increase (ui/interview/kit.ts
   * `promptFaultsFor`).
   */
  readonly outlivesLease?: boolean;
  /** In words, e.g. "Pause A for 40 s at 3 s"; `when` is the rendered placement ("at 3 s", "before step 2 (work)"). */
  describe(f: F, scenario: Scenario, when: string): string;
  /** Whether it can be injected into this scenario (the fault menu offers only kinds that apply). */
  appliesTo(scenario: Scenario): boolean;
  /** Why it does not apply when `appliesTo` is false, in words for the fault menu (e.g. "the scenario has no lease"). */
  readonly inapplicableReason?: string;
  /** A random instance for this scenario, drawing only from `rng` (deterministic for a seed). */
  generate(rng: Rng, scenario: Scenario): F;
  /** Applies it now: 'stop' when it ended the worker's current flow. */
  apply(ctx: FaultContext, f: F): FaultEffect;
}

const kinds = new Map<string, FaultKindDef>();
const listeners: (() => void)[] = [];
for (const def of BUILTIN_FAULT_KINDS) kinds.set(def.kind, def as unknown as FaultKindDef);

/**
 * Adds a fault kind. The scenario schema (`faultSchema`, `scenarioSchema`) is rebuilt to accept
 * it. Throws if the kind is already registered. Returns a function that removes it again.
 */
export function registerFaultKind<F extends FaultBase>(def: FaultKindDef<F>): () => void {
  if (kinds.has(def.kind)) throw new Error(`fault kind "${def.kind}" is already registered`);
  kinds.set(def.kind, def as unknown as FaultKindDef);
  for (const l of listeners) l();
  return () => {
    if (kinds.get(def.kind) !== (def as unknown)) return;
    kinds.delete(def.kind);
    for (const l of listeners) l();
  };
}

/** Every registered kind, built-ins first, in registration order. */
export function faultKinds(): readonly FaultKindDef[] {
  return [...kinds.values()];
}

/** The registry entry of a fault's kind. Throws for an unknown kind (a validated scenario has none). */
export function faultKindOf(f: FaultBase): FaultKindDef {
  const def = kinds.get(f.kind);
  if (!def) throw new Error(`unknown fault kind "${f.kind}"`);
  return def;
}

/** Actor of a kind's trace events when no worker is involved. */
export function faultActorOf(def: FaultKindDef): string {
  return def.actor ?? 'fault';
}

/**
 * Actor ids that faults use in the trace, each with what uses it (e.g. `admin` → the adminBypass
 * fault). A worker may not take one of these ids: its events and the fault's would share a lane and
 * the fault would take over the worker (the admin script runs as a runtime named after its actor).
 * Read from the registry, so a registered kind's actor is reserved too.
 */
export function reservedFaultActors(): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const def of kinds.values()) {
    const actor = faultActorOf(def);
    const users = out.get(actor);
    out.set(actor, users === undefined ? `the ${def.kind} fault` : `${users}, ${def.kind}`);
  }
  return out;
}

/** Calls `fn` after every registration change (the scenario schema rebuilds itself on it). */
export function onFaultKindsChange(fn: () => void): void {
  listeners.push(fn);
}

/** The step a fault is placed at, read from the scenario's current job ("release"), or why there is none. */
function stepWords(f: FaultBase, step: number, scenario: Scenario): string {
  const w = scenario.workers.find((x) => x.id === f.worker);
  if (!w) return `no worker ${f.worker ?? '?'}`;
  return w.steps[step]?.do ?? `no such step: ${w.id} has ${w.steps.length} step${w.steps.length === 1 ? '' : 's'}`;
}

/** The fault in words, e.g. "Pause A for 40 s at 3 s", "Crash A before step 3 (release)": always against the scenario's current steps. */
export function describeFault(f: FaultBase, scenario: Scenario): string {
  const when = f.atMs !== undefined ? `at ${fmtSeconds(f.atMs)}` : f.step !== undefined ? `${f.phase ?? 'before'} step ${f.step + 1} (${stepWords(f, f.step, scenario)})` : '';
  return faultKindOf(f).describe(f, scenario, when);
}

/** The lane a fault's marker belongs to. */
export function faultLane(f: FaultBase, scenario: Scenario): FaultLane {
  switch (faultKindOf(f).lane) {
    case 'worker': return { kind: 'worker', worker: f.worker ?? '' };
    case 'lease': return { kind: 'lease', key: scenario.lease.key };
    case 'database': return { kind: 'database' };
  }
}

/** A random fault of a random registered kind for the scenario (property tests, fault search). */
export function generateFault(rng: Rng, scenario: Scenario): FaultBase {
  const all = faultKinds();
  return all[rng.int(0, all.length - 1)]!.generate(rng, scenario);
}
