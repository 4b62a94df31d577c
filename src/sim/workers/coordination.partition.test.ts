/**
 * A worker cut off from the lease store (a partition fault): every Redis command it sends gets no
 * reply (world.ts `redis`: the client's command times out). What it concludes depends on the
 * command: a renewal with no reply is a failed renewal whatever the renewal command (Redis
 * "Distributed Locks with Redis": the client cannot know whether it still owns the lease), and a
 * `SET NX` with no reply is a try that did not take the lease (the client's onBusy then decides).
 */
import { runScenario, type RunResult } from '../engine/run';
import { findPreset } from '../presets';
import type { Scenario } from '../scenario/schema';

const base = findPreset('renew-partition')!.withoutFix; // A renews every 3 s; cut off from 4 s to 34 s; TTL 10 s
const timedOut = (r: RunResult, actor: string) => r.events.filter((e) => e.actor === actor && e.reply === '(no reply: connection timed out)');

describe('a renewal that gets no reply is a failed renewal, for every renewal command', () => {
  it.each([
    ['set-px', 'SET lease:ledger', 'A\'s SET renewal gets no reply (timed out): it cannot know whether it still owns the lease, and the key is unchanged if the SET never arrived.'],
    ['pexpire', 'PEXPIRE lease:ledger 10000', 'A\'s PEXPIRE renewal gets no answer: it cannot know whether it still owns the lease.'],
    ['set', 'SET lease:ledger', 'A\'s plain-SET renewal gets no reply (timed out): it cannot know whether it still owns the lease, and the key is unchanged if the SET never arrived.'],
    ['compare-and-extend', 'EVAL', 'A\'s renewal gets no answer: it cannot know whether it still owns the lease.'],
  ] as const)('renewal %s: each renewal in the partition (6 s, 9 s, 12 s, …) is narrated as a timeout and counted', (renewal, command, narration) => {
    const s: Scenario = { ...base, mechanism: { ...base.mechanism, renewal }, workers: [base.workers[0]!] };
    const r = runScenario(s);
    // The job releases at 28 s (8 s of work, a 20 s upload): the renewals are the timed-out commands before it.
    const renewals = timedOut(r, 'A').filter((e) => e.atMs < 28_000);
    for (const e of renewals) expect(e.command).toMatch(new RegExp(`^${command}`));
    for (const e of renewals) {
      expect(e.narration).toBe(narration);
      expect(e.data).toEqual({ t: 'lease', op: 'renewFailed', key: 'lease:ledger', worker: 'A' });
    }
    // A timed-out renewal keeps the renewals going (the worker cannot know it lost the lease): one every 3 s until the release.
    expect(renewals.map((e) => e.atMs)).toEqual([6_000, 9_000, 12_000, 15_000, 18_000, 21_000, 24_000, 27_000]);
    expect(r.metrics.renewFailures).toBe(8);
  });
});

describe('a SET NX that gets no reply did not take the lease: the client\'s onBusy decides', () => {
  // B starts at 1 s, cut off from 0 ms to 2.5 s: its tries at 1 s and 2 s get no reply, its try at 3 s (A holds the lease) gets nil.
  const cutOffB = (client: Partial<Scenario['client']>): Scenario => ({
    ...base,
    client: { ...base.client, ...client },
    faults: [{ kind: 'partition', worker: 'B', atMs: 0, durationMs: 2_500 }],
  });
  const tries = (r: RunResult) => r.events.filter((e) => e.actor === 'B' && (e.command ?? '').startsWith('SET lease:ledger') && e.command!.includes(' NX '));

  it('retry: each try without a reply says which try it was, and the last one gives up', () => {
    const r = runScenario(cutOffB({ onBusy: 'retry', retries: 1 }));
    expect(tries(r).map((e) => [e.atMs, e.reply, e.narration])).toEqual([
      [1_000, '(no reply: connection timed out)', 'B cannot reach the lease store: its SET gets no reply, so it cannot know whether it took the lease; try 1 of 2, it tries again in 1 s.'],
      [2_000, '(no reply: connection timed out)', 'B cannot reach the lease store: its SET gets no reply, so it cannot know whether it took the lease; that was try 2 of 2, so B gives up and fails the job.'],
    ]);
    expect(r.events.filter((e) => e.actor === 'B' && e.kind === 'outcome').map((e) => e.narration)[0]).toBe('B\'s job fails (its last of 2 tries got no reply from the lease store); its error path runs.');
  });

  it('skip: one try without a reply, and the job is skipped without an error', () => {
    const r = runScenario(cutOffB({ onBusy: 'skip' }));
    expect(tries(r).map((e) => [e.atMs, e.narration])).toEqual([
      [1_000, 'B cannot reach the lease store: its SET gets no reply, so it cannot know whether it took the lease; B tried once and skips the job without an error.'],
    ]);
    expect(r.events.filter((e) => e.actor === 'B' && e.kind === 'outcome').at(-1)!.narration).toBe('B is done: it did not get the lock, so it skipped the job without an error.');
  });

  it('wait: it keeps trying every retryEveryMs, a timeout and a taken key alike', () => {
    const r = runScenario(cutOffB({ onBusy: 'wait' }));
    expect(tries(r).slice(0, 3).map((e) => [e.atMs, e.narration])).toEqual([
      [1_000, 'B cannot reach the lease store: its SET gets no reply, so it cannot know whether it took the lease. It will try again in 1 s.'],
      [2_000, 'B cannot reach the lease store: its SET gets no reply, so it cannot know whether it took the lease. It will try again in 1 s.'],
      [3_000, 'lease:ledger is taken: B will try again in 1 s.'],
    ]);
  });
});
