import fc from 'fast-check';
import { PRESETS, generateFault, Rng, validateScenario, type Scenario } from '../../sim';
import { deriveRun } from '../store/derive';
import { lanesOf } from './lanes';
import { workerLanes } from './lanes/worker';
import { axisEndMs } from './axisScale';

/** The axis end the timeline draws for a scenario, and the run. */
function axisOf(s: Scenario) {
  const run = deriveRun(s);
  const data = lanesOf(run);
  return { run, data, end: axisEndMs(data.endMs, data.violations.map((v) => v.atMs)) };
}

/** Every time the verdict speaks of: its cited events, and the instant a finding about a state still open at the end speaks of (untilMs). */
function verdictTimes(s: Scenario): number[] {
  const run = deriveRun(s);
  const at = new Map(run.events.map((e) => [e.id, e.atMs]));
  const findings = [...run.verdict.violations, ...run.verdict.notes];
  // The sentence and the data agree: a finding that speaks of the run's end says which instant.
  for (const f of findings) expect({ message: f.message, untilMs: /when the run ended/.test(f.message) }).toEqual({ message: f.message, untilMs: f.untilMs !== undefined });
  return findings.flatMap((f) => [
    ...f.eventIds.map((id) => at.get(id) ?? 0),
    ...(f.untilMs !== undefined ? [f.untilMs] : []),
  ]);
}

describe('the timeline covers everything the verdict cites', () => {
  it('session-lock-pool: C waits until the end of the run (10 s), and the axis and its lane reach it', () => {
    const s = PRESETS.find((p) => p.id === 'session-lock-pool')!.withoutFix;
    const { run, end } = axisOf(s);
    expect(run.verdict.violations[0]!.message).toMatch(/9\.8 s after it started/);
    expect(end).toBeGreaterThanOrEqual(10_000);
    const c = workerLanes.lanes(run).find((l) => l.ref.kind === 'worker' && l.ref.worker === 'C')!;
    const last = c.data.at(-1)!;
    expect([last.state, last.endMs]).toEqual(['waiting', 10_000]);
  });

  it.each(PRESETS.flatMap((p) => [[p.id, 'without', p.withoutFix], [p.id, 'with', p.withFix]] as const))('%s %s the fix', (_id, _v, s) => {
    const { end } = axisOf(s);
    for (const t of verdictTimes(s)) expect(end).toBeGreaterThanOrEqual(t);
  });

  it('queue-redelivery with B crashed and restarted: the job still unacknowledged at 90 s — the axis reaches 90 s (found by the property)', () => {
    const base = PRESETS.find((p) => p.id === 'queue-redelivery')!.withoutFix;
    const checked = validateScenario({ ...base, faults: [...base.faults, { kind: 'crash', worker: 'B', atMs: 41_772, restartAfterMs: 924 }] });
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    const { run, end } = axisOf(checked.scenario);
    const late = run.verdict.violations.find((v) => v.invariant === 'jobCompletesWithin')!;
    expect(late.message).toMatch(/still not acknowledged when the run ended 90 s later/);
    expect(late.untilMs).toBe(90_000);
    expect(end).toBeGreaterThanOrEqual(90_000);
  });

  it('with a random fault on any preset (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: PRESETS.length * 2 - 1 }), fc.integer({ min: 1, max: 1_000_000 }), (i, seed) => {
      const p = PRESETS[i >> 1]!;
      const base = i % 2 === 0 ? p.withoutFix : p.withFix;
      const checked = validateScenario({ ...base, faults: [...base.faults, generateFault(new Rng(seed), base)] });
      if (!checked.ok) return;
      const { end } = axisOf(checked.scenario);
      for (const t of verdictTimes(checked.scenario)) expect(end).toBeGreaterThanOrEqual(t);
    }), { numRuns: 60 });
  });
});
