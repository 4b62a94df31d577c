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

describe('queue invariants: times counted from a first delivery after 0, repeated acknowledgements, repeated claims', () => {
  const later = (s: Scenario, byMs: number): Scenario => ({ ...s, workers: s.workers.map((w) => ({ ...w, startMs: w.startMs + byMs })) });

  it('a first delivery at 2 s: 37 s later is in time for 37 s, not for 36.999 s; the finding cites the delivery and the DeleteMessage', () => {
    const s = later(redelivery.withFix, 2_000);
    expect(broken(within(s, 37_000))).toEqual([]);
    const r = runScenario(within(s, 36_999));
    expect(r.verdict.violations.map((v) => [v.invariant, v.message])).toEqual([['jobCompletesWithin', 'job charge-order-42 was acknowledged 37 s after its first delivery (the limit is 36.999 s)']]);
    expect(r.verdict.violations[0]!.eventIds.map((id) => r.events.find((e) => e.id === id)!.command?.split(' ')[0])).toEqual(['ReceiveMessage', 'DeleteMessage']);
  });

  it('a job first delivered at 1 s and never acknowledged: the run end is counted from 1 s', () => {
    const starving: Scenario = { ...redelivery.withoutFix, horizonMs: 50_000, workers: [{ id: 'A', startMs: 1_000, steps: steps('receive', ['work', 100_000], 'ack') }] };
    expect(runScenario(within(starving, 49_000)).verdict.violations).toEqual([]);
    expect(broken(within(starving, 48_999))).toEqual(['job charge-order-42, first delivered at 1 s, was still not acknowledged when the run ended 49 s later (the limit is 48.999 s)']);
  });

  it('a row committed as done stays done in later statements: the job is acknowledged once, at the first commit', () => {
    // A marks row 7 done at 220 ms, B's statements at 230 ms still see it done: that is not a late acknowledgement.
    expect(runScenario(within(claim.withoutFix, 220)).verdict.violations.filter((v) => v.invariant === 'jobCompletesWithin')).toEqual([]);
  });

  it('three claimers of one row: one finding, revised to name all three', () => {
    const w = claim.withoutFix.workers;
    const s: Scenario = { ...claim.withoutFix, invariants: [{ kind: 'oneClaimPerJob' }], workers: [...w, { ...w[1]!, id: 'C', startMs: 15 }] };
    const r = runScenario(s);
    expect(r.verdict.violations.map((v) => [v.invariant, v.message])).toEqual([['oneClaimPerJob', 'job row 7 of job_queue was claimed 3 times: by A, then by B, then by C']]);
    expect(r.verdict.violations[0]!.eventIds.map((id) => r.events.find((e) => e.id === id)!.actor)).toEqual(['A', 'B', 'C']);
  });
});

describe('queue invariants and a claim that waits', () => {
  it('FOR UPDATE without SKIP LOCKED: B\'s claim waits for A\'s row lock, then finds no pending row; one delivery, in time', () => {
    const s: Scenario = { ...within(claim.withFix, 220), mechanism: { ...claim.withFix.mechanism, rowLock: 'forUpdate' } };
    const r = runScenario(s);
    expect(r.events.some((e) => e.actor === 'B' && /FOR UPDATE$/.test(e.command ?? '') && (e.reply ?? '').startsWith('waits (row lock'))).toBe(true);
    expect(r.verdict.violations).toEqual([]);
    expect(broken(within(s, 219))).toEqual(['job job_queue id=7 was acknowledged 220 ms after its first delivery (the limit is 219 ms)']);
  });
});

describe('queue invariants on a scenario the validator refuses', () => {
  it('with no queue, or oneClaimPerJob on an SQS queue, the checkers find nothing (and do not throw)', () => {
    const exp = findPreset('export-lease-expiry')!.withoutFix;
    const noQueue: Scenario = { ...exp, invariants: [{ kind: 'jobCompletesWithin', withinMs: 1 }, { kind: 'oneClaimPerJob' }] };
    expect(runScenario(noQueue).verdict.violations).toEqual([]);
    const sqsClaims: Scenario = { ...redelivery.withoutFix, invariants: [{ kind: 'oneClaimPerJob' }] };
    expect(runScenario(sqsClaims).verdict.violations).toEqual([]);
  });
});
