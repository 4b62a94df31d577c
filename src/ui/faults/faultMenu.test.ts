import { PRESETS, findPreset, runScenario, traceHash, validateScenario, faultKindOf, type Fault, type Scenario, type TraceEvent } from '../../sim';
import { faultMenuOptions, faultsForLane, menuPauseMs } from './faultCatalog';
import { deriveRun } from '../store/derive';
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

describe('the menu\'s plain pause fits the run', () => {
  it('is 10 s where the run has room, and a pause that ends inside the run where it has not (invoice-race runs 1 s)', () => {
    expect(menuPauseMs(findPreset('export-lease-expiry')!.withoutFix, 3_000)).toBe(10_000);
    const invoice = findPreset('invoice-race')!.withoutFix;
    expect(menuPauseMs(invoice, 50)).toBe(200);
    expect(faultsForLane({ kind: 'worker', worker: 'A' }, invoice, 50)[0]!.label).toBe('Pause A for 200 ms');
  });
  it('for every preset and variant, at every event of its run, ends within half of what is left of the horizon', () => {
    for (const p of PRESETS) for (const s of [p.withoutFix, p.withFix]) {
      for (const e of deriveRun(s).events) {
        const ms = menuPauseMs(s, e.atMs);
        expect(ms).toBeGreaterThanOrEqual(1);
        if (s.horizonMs - e.atMs >= 2) expect(e.atMs + 2 * ms).toBeLessThanOrEqual(s.horizonMs);
      }
    }
  });
});

describe('a fault placed at a step says so where the menu names a time', () => {
  it('"Crash B right after its effect" says it happens when the effect step ends, not at the time clicked (a newcomer read "at 3 s")', () => {
    const s = findPreset('export-lease-expiry')!.withoutFix;
    const o = faultMenuOptions({ kind: 'worker', worker: 'B' }, s, 3_000).find((x) => x.id === 'crashAfterEffect')!;
    expect(o.hint).toBe('when its effect (step 3) ends, not at 3 s: before it records completion; restarts after 5 s');
    expect(o.make()).toEqual({ kind: 'crash', worker: 'B', step: 2, phase: 'after', restartAfterMs: 5_000 });
  });
});
