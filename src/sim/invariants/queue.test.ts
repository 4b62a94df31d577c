/**
 * The queue invariants' boundaries: a job acknowledged exactly T after its first delivery is in
 * time, 1 ms later is not; a job still unacknowledged when the run ends fails only if more than T
 * has passed; a row marked twice by the same worker is one claim, by another worker two.
 */
import { findPreset } from '../presets';
import { runScenario } from '../engine/run';
import { checkTrace } from './index';
import type { Scenario } from '../scenario/schema';
import { steps } from '../presets/build';

const redelivery = findPreset('queue-redelivery')!;
const claim = findPreset('skip-locked-claim')!;
const within = (s: Scenario, withinMs: number): Scenario => ({ ...s, invariants: [{ kind: 'jobCompletesWithin', withinMs }] });
const broken = (s: Scenario) => runScenario(s).verdict.violations.map((v) => v.message);

describe('jobCompletesWithin', () => {
  it('A deletes the message 37 s after its first delivery: a 37 s limit holds, 36.999 s does not', () => {
    expect(broken(within(redelivery.withFix, 37_000))).toEqual([]);
    expect(broken(within(redelivery.withFix, 36_999))).toEqual(['job charge-order-42 was acknowledged 37 s after its first delivery (the limit is 36.999 s)']);
  });

  it('counts from the first delivery, not the redelivery: B deletes at 68 s, so 68 s holds and 67.999 s does not', () => {
    expect(broken(within(redelivery.withoutFix, 68_000))).toEqual([]);
    expect(broken(within(redelivery.withoutFix, 67_999))).toHaveLength(1);
  });

  it('a job that starves (never acknowledged) fails the run once the limit has passed by the end; not before', () => {
    const starving: Scenario = { ...redelivery.withoutFix, horizonMs: 50_000, workers: [{ id: 'A', startMs: 0, steps: steps('receive', ['work', 100_000], 'ack') }] };
    const r = runScenario(within(starving, 40_000));
    expect(r.verdict.violations.map((v) => [v.message, v.eventIds])).toEqual([['job charge-order-42, first delivered at 0 ms, was still not acknowledged when the run ended 50 s later (the limit is 40 s)', ['e1']]]);
    expect(runScenario(within(starving, 50_000)).verdict.violations).toEqual([]);
  });

  it('a table queue\'s job is delivered by the claim SELECT and completed by the committed status done', () => {
    const s = within(claim.withFix, 220);
    expect(broken(s)).toEqual([]);
    expect(broken(within(claim.withFix, 219))).toEqual(['job job_queue id=7 was acknowledged 220 ms after its first delivery (the limit is 219 ms)']);
  });

  it('re-checks a stored trace from its data alone', () => {
    const s = within(redelivery.withFix, 36_999);
    const r = runScenario(s);
    const bare = r.events.map(({ command: _c, reply: _r, narration: _n, ...rest }) => rest);
    expect(checkTrace(s, bare).map((f) => f.message)).toEqual(r.verdict.violations.map((v) => v.message));
  });
});

describe('oneClaimPerJob', () => {
  it('two workers committed as claimers of one row: a violation citing both commits', () => {
    const r = runScenario(claim.withoutFix);
    const f = r.verdict.violations.find((v) => v.invariant === 'oneClaimPerJob')!;
    expect(f.eventIds.map((id) => r.events.find((e) => e.id === id)!.actor)).toEqual(['A', 'B']);
  });

  it('the same worker marking its row again is still one claim', () => {
    const twice = steps('begin', 'receive', 'markClaimed', 'markClaimed', 'commit', 'begin', 'markClaimed', 'commit');
    const s: Scenario = { ...claim.withoutFix, invariants: [{ kind: 'oneClaimPerJob' }], workers: [{ id: 'A', startMs: 0, steps: twice }] };
    expect(broken(s)).toEqual([]);
  });
});
