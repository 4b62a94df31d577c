/**
 * Whether each switch shown for a scenario can change the run it is shown for, and whether each
 * fault the menu offers would. A control that cannot is disabled with its reason: first the
 * structural one (`SwitchDef.appliesTo`, a fault kind's `appliesTo`), then the run's own answer —
 * every other value of the switch is run, and if none changes the trace hash the switch is idle
 * for this run (`SwitchDef.idleReason`). Runs are ~1 ms each (`npm run bench`), so a panel of
 * switches costs a few tens of ms: callers compute it at low priority and memoise it per scenario.
 */
import { runScenario } from '../engine/run';
import { traceHash, type TraceEvent } from '../engine/trace';
import { validateScenario } from '../scenario/validate';
import type { Fault, Scenario } from '../scenario/schema';
import { faultKindOf } from '../faults/registry';
import { SWITCHES, switchOptions, type SwitchDef } from './switches';

/** A shown switch's status: enabled (with the values that change the run), or disabled with the reason, in words. */
export type SwitchStatus =
  | { readonly enabled: true; readonly changing: readonly string[] }
  | { readonly enabled: false; readonly reason: string };

const hashes = new WeakMap<Scenario, string>();

/** The trace hash of a scenario's run (memoised per scenario object). */
export function runHashOf(s: Scenario): string {
  let h = hashes.get(s);
  if (h === undefined) hashes.set(s, (h = traceHash(runScenario(s).events)));
  return h;
}

/** Every value a switch can take for scenario `s`, as strings ('true'/'false' for a boolean switch). */
export function switchValues(d: SwitchDef, s: Scenario): readonly string[] {
  return d.options ? switchOptions(d, s).map((o) => o.value) : ['true', 'false'];
}

function withValue(s: Scenario, d: SwitchDef, v: string): Scenario {
  return d.options ? d.set(s, v) : d.set(s, v === 'true');
}

/**
 * Whether switch `d` can change the run of `s`: disabled with `appliesTo`'s reason, or with its
 * `idleReason` when no other value (that validates) changes the trace hash; otherwise enabled, with
 * the values that change it.
 */
export function switchStatus(s: Scenario, d: SwitchDef): SwitchStatus {
  const structural = d.appliesTo?.(s) ?? null;
  if (structural !== null) return { enabled: false, reason: structural };
  const current = String(d.get(s));
  const base = runHashOf(s);
  const changing = switchValues(d, s).filter((v) => {
    if (v === current) return false;
    const checked = validateScenario(withValue(s, d, v));
    return checked.ok && runHashOf(checked.scenario) !== base;
  });
  return changing.length > 0 ? { enabled: true, changing } : { enabled: false, reason: d.idleReason };
}

const statusCache = new WeakMap<Scenario, ReadonlyMap<string, SwitchStatus>>();

/** `switchStatus` of every switch shown for `s` (`relevant`), by switch id; memoised per scenario object. */
export function switchStatuses(s: Scenario): ReadonlyMap<string, SwitchStatus> {
  let m = statusCache.get(s);
  if (!m) statusCache.set(s, (m = new Map(SWITCHES.filter((d) => d.relevant(s)).map((d) => [d.id, switchStatus(s, d)]))));
  return m;
}

/** The trace without the events a fault emits itself (its own "fault" narration), renumbered: what the fault did to everyone else. */
function withoutFaultEvents(events: readonly TraceEvent[], faultIndex: number): TraceEvent[] {
  return events.filter((e) => !(e.data?.t === 'fault' && e.data.faultIndex === faultIndex)).map((e, i) => ({ ...e, id: `e${i + 1}` }));
}

/**
 * Whether adding `fault` to `s` would change its run beyond the fault's own announcement: null when
 * it would, else the reason it would not — the kind does not apply to the scenario (`appliesTo`),
 * it never fires (its worker never reaches the step), or it fires and changes nothing (its worker
 * has finished, the key is not there).
 */
export function faultInertReason(s: Scenario, fault: Fault): string | null {
  const def = faultKindOf(fault);
  if (!def.appliesTo(s)) return def.inapplicableReason ?? 'it does not apply to this scenario';
  const next = validateScenario({ ...s, faults: [...s.faults, fault] });
  if (!next.ok) return `it cannot be placed here: ${next.errors[0]?.message ?? 'invalid'}`;
  const index = s.faults.length;
  const events = runScenario(next.scenario).events;
  const own = events.filter((e) => e.data?.t === 'fault' && e.data.faultIndex === index);
  const renumbered = withoutFaultEvents(events, index);
  if (traceHash(renumbered) !== runHashOf(s)) return null;
  if (own.length === 0) return fault.step !== undefined ? `it never fires: ${fault.worker ?? 'the worker'} never gets past that step in this run` : 'it never fires in this run';
  return `in this run it would only say: “${own[0]!.narration}”`;
}

/**
 * `switchStatus` in small steps, for a caller that spreads the work over idle time: each `next()`
 * does at most one run (~1 ms); the generator's return value is the status.
 */
export function* switchStatusSteps(s: Scenario, d: SwitchDef): Generator<void, SwitchStatus, void> {
  const structural = d.appliesTo?.(s) ?? null;
  if (structural !== null) return { enabled: false, reason: structural };
  const current = String(d.get(s));
  const base = runHashOf(s);
  yield;
  const changing: string[] = [];
  for (const v of switchValues(d, s)) {
    if (v === current) continue;
    const checked = validateScenario(withValue(s, d, v));
    if (checked.ok && runHashOf(checked.scenario) !== base) changing.push(v);
    yield;
  }
  return changing.length > 0 ? { enabled: true, changing } : { enabled: false, reason: d.idleReason };
}
