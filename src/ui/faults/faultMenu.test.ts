import { PRESETS, runScenario, traceHash, validateScenario, faultKindOf, type Fault, type Scenario, type TraceEvent } from '../../sim';
import { faultMenuOptions } from './faultCatalog';
import type { LaneRef } from '../store/types';

/** The trace without the fault's own announcements, renumbered: what it did to everyone else. */
function othersHash(events: readonly TraceEvent[], faultIndex: number): string {
  return traceHash(events.filter((e) => !(e.data?.t === 'fault' && e.data.faultIndex === faultIndex)).map((e, i) => ({ ...e, id: `e${i + 1}` })));
}

function lanesOf(s: Scenario): LaneRef[] {
  return [...s.workers.map((w) => ({ kind: 'worker', worker: w.id }) as const), { kind: 'lease', key: s.lease.key }, { kind: 'database' }, { kind: 'destination' }] as LaneRef[];
}

const variants = PRESETS.flatMap((p) => [[p.id, 'without', p.withoutFix], [p.id, 'with', p.withFix]] as const);

describe('every fault the menu offers would change the run, or is shown disabled with its reason', () => {
  it.each(variants)('%s %s the fix, at 0 ms, mid-run and at the last event', (_id, _v, s) => {
    const events = runScenario(s).events;
    const base = traceHash(events);
    const times = [0, events[Math.floor(events.length / 2)]!.atMs, events.at(-1)!.atMs];
    for (const lane of lanesOf(s)) for (const t of times) for (const o of faultMenuOptions(lane, s, t)) {
      const f: Fault = o.make();
      const next = validateScenario({ ...s, faults: [...s.faults, f] });
      expect(next.ok, `${o.id} at ${t} validates`).toBe(true);
      if (!next.ok) continue;
      const changed = othersHash(runScenario(next.scenario).events, s.faults.length) !== base;
      if (o.disabledReason === null) expect(changed, `${o.id} on ${lane.kind} at ${t} ms is offered, so it changes the run`).toBe(true);
      else {
        expect(changed, `${o.id} at ${t} ms is disabled ("${o.disabledReason}") but would change the run`).toBe(false);
        expect(o.disabledReason.length).toBeGreaterThan(10);
      }
    }
  });

  it('invoice-race has no lease: no lease fault, no partition, no "past the lease TTL" anywhere in its menus', () => {
    const p = PRESETS.find((x) => x.id === 'invoice-race')!;
    for (const s of [p.withoutFix, p.withFix]) for (const lane of lanesOf(s)) {
      const ids = faultMenuOptions(lane, s, 0).map((o) => o.id);
      expect(ids).not.toContain('pauseLong');
      expect(ids).not.toContain('partition');
      for (const o of faultMenuOptions(lane, s, 0)) expect(['expireLease', 'manualDelete', 'failover', 'clockJump', 'partition']).not.toContain(o.make().kind);
    }
    expect(faultKindOf({ kind: 'expireLease' }).inapplicableReason).toMatch(/no lease/);
  });

  it('a worker that has finished cannot be paused: the entry says so instead of doing nothing', () => {
    const p = PRESETS.find((x) => x.id === 'invoice-race')!;
    const end = runScenario(p.withoutFix).events.at(-1)!.atMs;
    const pause = faultMenuOptions({ kind: 'worker', worker: 'A' }, p.withoutFix, end + 1).find((o) => o.id === 'pause')!;
    expect(pause.disabledReason).toMatch(/A: it is not running/);
  });
});
