/**
 * Which faults fit which timeline lane, how to describe a fault in words, where its marker goes,
 * and which of its fields is its editable duration. Faults stay plain data (the scenario format);
 * what each kind means (description, lane, glyph, duration, whether it applies to a scenario) is
 * its entry in the simulation core's fault registry; this module builds the menu and reads them.
 */
import { describeFault as describeFaultInSim, faultInertReason, faultKindOf, faultLane, fmtSeconds, type Fault, type Scenario } from '../../sim';
import type { DerivedRun } from '../store/derive';
import type { LaneRef } from '../store/types';

/** `1500` → `1.5 s`, `40` → `40 ms` (from the simulation core, which words fault descriptions the same way). */
export { fmtSeconds };
/** Why placing a fault would change nothing in the scenario's run (null: it would); see src/sim/controls/status.ts. */
export { faultInertReason };

/** One entry of the fault menu. */
export interface FaultOption {
  readonly id: string;
  readonly label: string;
  /** Short explanation shown under the label. */
  readonly hint: string;
  readonly make: () => Fault;
}

const at = (ms: number) => Math.max(0, Math.round(ms));

/**
 * The length of the menu's plain pause at `atMs`: 10 s where the run has room for it, else the
 * largest 1-2-5 figure (ms) within half of what is left of the horizon, so that the paused worker
 * resumes and gets to finish inside the run (a 10 s pause in invoice-race's 1 s run only ever
 * gave "Inconclusive: the horizon came while A was still at its job"). At least 1 ms.
 */
export function menuPauseMs(scenario: Scenario, atMs: number): number {
  const room = (scenario.horizonMs - atMs) / 2;
  if (room >= 10_000) return 10_000;
  let nice = 1;
  for (let p = 1; p <= 10_000; p *= 10) for (const m of [1, 2, 5]) if (m * p <= room) nice = m * p;
  return nice;
}

/** Index of the worker's first `effect` step, or -1. */
function effectStep(scenario: Scenario, worker: string): number {
  return scenario.workers.find((w) => w.id === worker)?.steps.findIndex((s) => s.do === 'effect') ?? -1;
}

/** The faults that fit a lane, placed at `atMs`: only kinds that apply to the scenario (the registry's `appliesTo`). */
export function faultsForLane(lane: LaneRef, scenario: Scenario, atMs: number): FaultOption[] {
  return optionsForLane(lane, scenario, atMs).filter((o) => faultKindOf(o.make()).appliesTo(scenario));
}

/** A menu entry with whether it would change the run: `disabledReason` is null when it would, else why not (in words). */
export interface FaultMenuOption extends FaultOption {
  readonly disabledReason: string | null;
}

/**
 * The fault menu of a lane at `atMs`: `faultsForLane`, each entry run once (~1 ms) to say whether
 * placing it would change the run (`faultInertReason` of the simulation core); one that would not
 * is shown disabled with the reason.
 */
export function faultMenuOptions(lane: LaneRef, scenario: Scenario, atMs: number): FaultMenuOption[] {
  return faultsForLane(lane, scenario, atMs).map((o) => ({ ...o, disabledReason: faultInertReason(scenario, o.make()) }));
}

function optionsForLane(lane: LaneRef, scenario: Scenario, atMs: number): FaultOption[] {
  const t = at(atMs);
  const ttl = scenario.lease.ttlMs;
  switch (lane.kind) {
    case 'worker': {
      const w = lane.worker;
      const opts: FaultOption[] = [
        { id: 'pause', label: `Pause ${w} for ${fmtSeconds(menuPauseMs(scenario, t))}`, hint: 'a GC pause or VM stall; it resumes believing what it believed', make: () => ({ kind: 'pause', worker: w, atMs: t, pauseMs: menuPauseMs(scenario, t) }) },
      ];
      // Past the lease TTL only means something when the worker takes a lease.
      if (scenario.mechanism.lock === 'lease') opts.push({ id: 'pauseLong', label: `Pause ${w} past the lease TTL (${fmtSeconds(ttl + 10_000)})`, hint: 'long enough for its lease to expire under it', make: () => ({ kind: 'pause', worker: w, atMs: t, pauseMs: Math.min(ttl + 10_000, 3_600_000) }) });
      opts.push(
        { id: 'crash', label: `Crash ${w} here, restart after 5 s`, hint: scenario.mechanism.lock === 'lease' ? 'its connection closes; its lease stays until its TTL' : 'its connection closes and its open transaction rolls back', make: () => ({ kind: 'crash', worker: w, atMs: t, restartAfterMs: 5_000 }) },
      );
      const eff = effectStep(scenario, w);
      if (eff >= 0) opts.push({ id: 'crashAfterEffect', label: `Crash ${w} right after its effect`, hint: `when its effect (step ${eff + 1}) ends, not at ${fmtSeconds(t)}: before it records completion; restarts after 5 s`, make: () => ({ kind: 'crash', worker: w, step: eff, phase: 'after', restartAfterMs: 5_000 }) });
      opts.push(
        { id: 'partition', label: `Cut ${w} off from the lease store for 30 s`, hint: 'renewals fail; the database stays reachable', make: () => ({ kind: 'partition', worker: w, atMs: t, durationMs: 30_000 }) },
        { id: 'jobError', label: `Job error in ${w} here`, hint: scenario.mechanism.lock === 'advisory-session' ? 'the job throws; the connection goes back to the pool (without unlock when "On a job error" is "return the connection as is")' : 'the job throws; its error path runs', make: () => ({ kind: 'jobError', worker: w, atMs: t }) },
      );
      // Only a consumer of a message queue has a message to push back when it shuts down.
      if (scenario.queue?.kind === 'sqs') opts.push({ id: 'shutdown', label: `Shut ${w} down here (a deploy)`, hint: 'SIGTERM: it pushes its message back (visibility 0); the next consumer runs the job from the start', make: () => ({ kind: 'shutdown', worker: w, atMs: t }) });
      // A renewal timer exists only for a lease that is renewed.
      if (scenario.mechanism.lock === 'lease') opts.push({ id: 'renewalStall', label: `Stall ${w}'s renewal timer past the lease TTL (${fmtSeconds(ttl + 10_000)})`, hint: 'a starved watchdog or blocked event loop: no renewal runs, the work carries on', make: () => ({ kind: 'renewalStall', worker: w, atMs: t, durationMs: Math.min(ttl + 10_000, 3_600_000) }) });
      return opts;
    }
    case 'lease':
      return [
        { id: 'expireLease', label: `Expire ${lane.key} now`, hint: 'as if its TTL had run out', make: () => ({ kind: 'expireLease', atMs: t }) },
        { id: 'manualDelete', label: `Delete ${lane.key} by hand`, hint: 'an operator runs DEL while the owner is alive', make: () => ({ kind: 'manualDelete', atMs: t }) },
        { id: 'failover', label: 'Redis failover', hint: `the replica lags ${fmtSeconds(scenario.lease.replicationLagMs)} and may lose the lock`, make: () => ({ kind: 'failover', atMs: t }) },
        { id: 'clockJump', label: 'Clock jump +20 s on the lease store', hint: 'keys expire early', make: () => ({ kind: 'clockJump', atMs: t, jumpMs: 20_000 }) },
      ];
    // The queue itself takes no fault here: its redeliveries come from its consumers (pause, crash, job error on their lanes).
    case 'queue':
      return [];
    case 'database':
    case 'destination':
      return [
        { id: 'adminBypass', label: 'Admin script bypasses the lock', hint: 'performs the job\'s write directly, ignoring the cooperative lock', make: () => ({ kind: 'adminBypass', atMs: t }) },
      ];
  }
}

/** The lane a fault's marker belongs to. */
export function laneOfFault(f: Fault, scenario: Scenario): LaneRef {
  return faultLane(f, scenario);
}

/** Where the fault fired in the run (its first trace event), or its declared time, or null if it never fired. */
export function faultTimeMs(f: Fault, index: number, run: DerivedRun): number | null {
  const ev = run.events.find((e) => e.data?.t === 'fault' && e.data.faultIndex === index);
  if (ev) return ev.atMs;
  if (f.atMs !== undefined) return f.atMs;
  return null;
}

/** The fault's editable duration field, if it has one. */
export function durationOf(f: Fault): { label: string; ms: number | null } | null {
  const d = faultKindOf(f).duration;
  return d ? { label: d.label, ms: d.get(f) } : null;
}

/** The same fault with a new duration (ms; null = never, for a crash's restart). */
export function withDuration(f: Fault, ms: number | null): Fault {
  const d = faultKindOf(f).duration;
  return d ? (d.set(f, ms === null ? null : Math.max(1, Math.round(ms))) as Fault) : f;
}

/** The same fault placed at a time (a step placement becomes a time placement). */
export function withTime(f: Fault, ms: number): Fault {
  const { step: _s, phase: _p, ...rest } = f;
  return { ...rest, atMs: at(ms) } as Fault;
}

/** The fault in words, e.g. "Pause A for 40 s at 3 s". */
export function describeFault(f: Fault, scenario: Scenario): string {
  return describeFaultInSim(f, scenario);
}

/** A one- or two-character glyph for a fault marker (paired with its shape and label, never colour alone). */
export function faultGlyph(f: Fault): string {
  return faultKindOf(f).glyph;
}
