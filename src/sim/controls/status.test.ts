import fc from 'fast-check';
import { PRESETS, runScenario, traceHash, validateScenario, generateFault, Rng, type Scenario } from '..';
import { SWITCHES, relevantSwitches, switchHint, switchOptions, switchValueText } from './switches';
import { switchStatus, switchStatusSteps, switchValues } from './status';

const hashOf = (s: Scenario) => traceHash(runScenario(s).events);

/** The values of a switch that change the run, recomputed here without the module's caches. */
function changingValues(s: Scenario, id: string): string[] {
  const d = SWITCHES.find((x) => x.id === id)!;
  const base = hashOf(s);
  return switchValues(d, s).filter((v) => {
    if (v === String(d.get(s))) return false;
    const next = validateScenario(d.options ? d.set(s, v) : d.set(s, v === 'true'));
    return next.ok && hashOf(next.scenario) !== base;
  });
}

function checkEverySwitch(s: Scenario, where: string): void {
  for (const d of relevantSwitches(s)) {
    const st = switchStatus(s, d);
    const changing = changingValues(s, d.id);
    if (st.enabled) {
      expect(changing, `${where}: ${d.id} is enabled, so some value must change the run`).not.toEqual([]);
      expect([...st.changing].sort(), `${where}: ${d.id}`).toEqual([...changing].sort());
    } else {
      expect(st.reason.length, `${where}: ${d.id} is disabled with a reason`).toBeGreaterThan(10);
      // Never disabled when flipping it would change the run.
      expect(changing, `${where}: ${d.id} is disabled ("${st.reason}") although a value changes the run`).toEqual([]);
    }
  }
}

describe('every switch the mechanism panel shows can change the run it is shown for, or is disabled with its reason', () => {
  it.each(PRESETS.flatMap((p) => [[p.id, 'without', p.withoutFix], [p.id, 'with', p.withFix]] as const))('%s %s the fix', (id, v, s) => {
    checkEverySwitch(s, `${id} ${v}`);
  });

  it('holds with a random fault added to a random preset (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: PRESETS.length * 2 - 1 }), fc.integer({ min: 1, max: 1_000_000 }), (i, seed) => {
      const p = PRESETS[i >> 1]!;
      const base = i % 2 === 0 ? p.withoutFix : p.withFix;
      const checked = validateScenario({ ...base, faults: [...base.faults, generateFault(new Rng(seed), base)] });
      if (!checked.ok) return;
      checkEverySwitch(checked.scenario, `${p.id} + fault seed ${seed}`);
    }), { numRuns: process.env.LOCKSCOPE_MUTATION ? 5 : 20 });
  });

  it('a lease in etcd (lockService): etcd\'s values in etcd\'s words, each enabled only if it changes the run', async () => {
    const { readFileSync } = await import('node:fs');
    const { parseScenario } = await import('../scenario/migrate');
    const parsed = parseScenario(JSON.parse(readFileSync(new URL('../scenario/fixtures/scenario-v2-etcd.json', import.meta.url), 'utf8')));
    if (!parsed.ok) throw new Error('the etcd fixture does not validate');
    const s = parsed.scenario;
    checkEverySwitch(s, 'scenario-v2-etcd.json');
    const options = (id: string) => switchOptions(SWITCHES.find((d) => d.id === id)!, s).map((o) => `${o.value}=${o.label}`);
    expect(options('fenceSource')).toEqual(['lock-service-revision=etcd revision', 'db-sequence=database sequence']);
    expect(options('renewal')).toEqual(['none=none', 'compare-and-extend=keep-alive']);
    expect(options('release')).toEqual(['del=plain etcdctl del', 'compare-and-delete=revoke its lease']);
    expect(switchValueText(s, 'lock')).toBe('Lock: etcd lease (grant + txn)');
    expect(switchHint(s, SWITCHES.find((d) => d.id === 'renewal')!)).toBe('keeps its own lease alive (not the key)');
    // The token from a sequence instead changes the run (nextval), and keeping the lease alive or not does too.
    expect(switchStatus(s, SWITCHES.find((d) => d.id === 'fenceSource')!)).toEqual({ enabled: true, changing: ['db-sequence'] });
    // A Redis lease is offered Redis's values only.
    const redis = PRESETS.find((p) => p.id === 'export-lease-expiry')!.withFix;
    expect(switchOptions(SWITCHES.find((d) => d.id === 'fenceSource')!, redis).map((o) => o.value)).toEqual(['redis-incr', 'db-sequence']);
  });

  it('the issue\'s cases: the job record and stop-on-renewal-failure switches say why they cannot apply', () => {
    const remote = PRESETS.find((p) => p.id === 'remote-call-in-txn')!;
    const jobRecord = SWITCHES.find((d) => d.id === 'jobRecord')!;
    const st = switchStatus(remote.withFix, jobRecord);
    expect(st).toEqual({ enabled: false, reason: expect.stringContaining('already writes its record') });
    const stop = SWITCHES.find((d) => d.id === 'stopOnRenewFailure')!;
    const stopDisabled = PRESETS.flatMap((p) => [p.withoutFix, p.withFix]).filter((s) => stop.relevant(s) && !switchStatus(s, stop).enabled);
    expect(stopDisabled.length).toBeGreaterThanOrEqual(4);
    const renew = PRESETS.find((p) => p.id === 'renew-partition')!;
    expect(switchStatus(renew.withoutFix, stop).enabled).toBe(true);
  });

  it('switchStatusSteps (the idle-time form the panel uses) ends with the same status, one run per step', () => {
    for (const p of PRESETS) for (const s of [p.withoutFix, p.withFix]) for (const d of relevantSwitches(s)) {
      const it = switchStatusSteps(s, d);
      let r = it.next();
      let steps = 0;
      while (!r.done) {
        steps += 1;
        r = it.next();
      }
      expect(r.value, `${p.id} ${d.id}`).toEqual(switchStatus(s, d));
      expect(steps).toBeLessThanOrEqual(switchValues(d, s).length);
    }
  });

  it('a structural reason comes before any run: no renewal means stop-on-failure cannot apply', () => {
    const p = PRESETS.find((x) => x.id === 'export-lease-expiry')!;
    const stop = SWITCHES.find((d) => d.id === 'stopOnRenewFailure')!;
    expect(stop.appliesTo?.(p.withoutFix)).toMatch(/never renewed/);
    expect(stop.appliesTo?.({ ...p.withoutFix, mechanism: { ...p.withoutFix.mechanism, renewal: 'compare-and-extend' } })).toBeNull();
  });
});
