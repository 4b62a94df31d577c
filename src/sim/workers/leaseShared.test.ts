// gaveUpReason: the outcome of a lock client that gave up says what its last try found.
import { describe, expect, it } from 'vitest';
import { compareToken, gaveUpReason } from './leaseShared';
import { scenario, steps } from '../presets/build';
import { runScenario, type RunResult } from '../engine/run';
import { runEtcdVariant } from '../testing/etcdFixture';
import type { Mechanism, Scenario } from '../scenario/schema';

describe('gaveUpReason', () => {
  it.each([
    [3, { kind: 'taken' } as const, 'lease:j was still taken after 3 tries'],
    [1, { kind: 'taken' } as const, 'lease:j was still taken after 1 try'],
    [2, { kind: 'noReply' } as const, 'its last of 2 tries got no reply from the lease store'],
    [1, { kind: 'noReply' } as const, 'its only try got no reply from the lease store'],
    [2, { kind: 'leaseGone' } as const, 'its last of 2 tries found its own lease gone'],
    [1, { kind: 'error', message: 'READONLY You can\'t write against a read only replica.' } as const, 'its only try failed (READONLY You can\'t write against a read only replica.)'],
  ])('%i tries, the last %j', (tries, last, words) => {
    expect(gaveUpReason('lease:j', tries, 'the lease store', last)).toBe(words);
  });
});

describe('compareToken: how a new token compares with the highest granted before', () => {
  it.each([
    [33, null, ' (the first token granted in this run)'],
    [34, 33, ', higher than any granted before (33)'],
    [33, 33, ', the same token as an earlier grant: the counter lost its increments (a failover?), so two holders now carry token 33'],
    [33, 34, ', lower than one granted before (34): the counter went back (a failover?), so a stale holder outranks it'],
  ])('token %i after %s', (token, earlier, words) => {
    expect(compareToken(token, earlier)).toBe(words);
  });
});

const LEASE: Scenario['lease'] = { key: 'lease:x', fenceKey: 'fence:x', fenceStart: 32, ttlMs: 10_000, retryEveryMs: 1_000, renewEveryMs: 3_000, replicationLagMs: 5_000 };
const run = (parts: { mechanism: Partial<Mechanism>; client?: Partial<Scenario['client']>; database?: Scenario['database']; faults?: Scenario['faults'] }, workers: Scenario['workers']): RunResult => runScenario(scenario({
  id: 'lease-shared', title: 'lease shared', description: 'lease shared', lesson: 'leases', horizonMs: 60_000,
  job: { kind: 'external', jobKey: 'nightly' }, lease: LEASE, ...parts, workers, invariants: [{ kind: 'mutualExclusion' }],
}));

describe('highestTokenGranted: the new token is compared with the highest granted so far, from every source', () => {
  it('INCR tokens: after a failover rolled the counter back below the highest, a new token is compared with the highest, not the last', () => {
    // A gets 33, C 34; the failover (replica 5 s behind) loses both increments; B's INCR gives 33, D's 34.
    const r = run({ mechanism: { lock: 'lease', fencing: true }, faults: [{ kind: 'failover', atMs: 1_500 }] }, [
      { id: 'A', startMs: 0, steps: steps('acquire', ['work', 500], 'release') },
      { id: 'C', startMs: 600, steps: steps('acquire', ['work', 500], 'release') },
      { id: 'B', startMs: 2_000, steps: steps('acquire', ['work', 500], 'release') },
      { id: 'D', startMs: 3_000, steps: steps('acquire', ['work', 500], 'release') },
    ]);
    expect(r.events.filter((e) => e.command?.startsWith('INCR')).map((e) => `${e.actor} ${e.narration}`)).toEqual([
      'A A gets fencing token 33 (the first token granted in this run).',
      'C C gets fencing token 34, higher than any granted before (33).',
      'B B gets fencing token 33, lower than one granted before (34): the counter went back (a failover?), so a stale holder outranks it.',
      'D D gets fencing token 34, the same token as an earlier grant: the counter lost its increments (a failover?), so two holders now carry token 34.',
    ]);
  });

  it('nextval tokens (fenceSource "db-sequence") count as grants: the second is higher than the first', () => {
    const r = run({ mechanism: { lock: 'lease', fencing: true, fenceSource: 'db-sequence' }, faults: [{ kind: 'pause', worker: 'A', atMs: 1_000, pauseMs: 12_000 }] }, [
      { id: 'A', startMs: 0, steps: steps('acquire', ['work', 14_000], 'release') },
      { id: 'B', startMs: 1_000, steps: steps('acquire', ['work', 1_000], 'release') },
    ]);
    const tokens = r.events.filter((e) => e.command === 'SELECT nextval(\'fence_seq\')');
    expect(tokens.map((e) => [e.atMs, e.actor, e.reply, e.narration])).toEqual([
      [0, 'A', 'SELECT 1 → nextval=33', 'A gets fencing token 33 from the database sequence fence_seq (the first token granted in this run).'],
      [10_000, 'B', 'SELECT 1 → nextval=34', 'B gets fencing token 34 from the database sequence fence_seq, higher than any granted before (33).'],
    ]);
    // The grant is believed from the SET (not the nextval), for the lease's TTL from then.
    expect(tokens.map((e) => [e.state, e.beliefs])).toEqual([
      ['holding', expect.objectContaining({ ownsLease: true, fencingToken: 33, acquiredAtMs: 0, leaseBelievedUntilMs: 10_000, renewFailed: false, refusedAsStale: false })],
      ['holding', expect.objectContaining({ ownsLease: true, fencingToken: 34, acquiredAtMs: 10_000, leaseBelievedUntilMs: 20_000, renewFailed: false, refusedAsStale: false })],
    ]);
    expect(r.events.filter((e) => e.actor === 'B' && e.kind === 'step').map((e) => e.atMs)).toEqual([10_000]);
  });

  it('a nextval that fails (the server had closed the connection) leaves the worker without a token; it goes on holding the lease', () => {
    const r = run({ mechanism: { lock: 'lease', fencing: true, fenceSource: 'db-sequence' }, database: { poolSize: 4, idleInTransactionSessionTimeoutMs: 2_000 } }, [
      { id: 'A', startMs: 0, steps: steps('connect', 'begin', ['work', 5_000], 'acquire', ['work', 100], 'release') },
    ]);
    const nextval = r.events.find((e) => e.command === 'SELECT nextval(\'fence_seq\')')!;
    expect([nextval.atMs, nextval.narration]).toEqual([5_000, 'A could not get a fencing token (terminating connection due to idle-in-transaction timeout): it goes on without one.']);
    expect(nextval.beliefs).toMatchObject({ ownsLease: true, fencingToken: null, acquiredAtMs: 5_000, leaseBelievedUntilMs: 15_000 });
    expect(r.events.filter((e) => e.actor === 'A' && e.kind === 'outcome').map((e) => e.narration)).toEqual(['A is done: it completed the job.']);
    // The failed nextval granted no token: the next grant is the first.
    const next = run({ mechanism: { lock: 'lease', fencing: true, fenceSource: 'db-sequence' }, database: { poolSize: 4, idleInTransactionSessionTimeoutMs: 2_000 } }, [
      { id: 'A', startMs: 0, steps: steps('connect', 'begin', ['work', 5_000], 'acquire', ['work', 100], 'release') },
      { id: 'B', startMs: 6_000, steps: steps('acquire', ['work', 100], 'release') },
    ]);
    expect(next.events.filter((e) => e.command === 'SELECT nextval(\'fence_seq\')').map((e) => e.narration)[1]).toBe('B gets fencing token 33 from the database sequence fence_seq (the first token granted in this run).');
  });
});

describe('scheduleRenewal', () => {
  it('renews renewEveryMs - renewMarginMs apart; a released lease\'s timer renews nothing, and a stalled timer runs when it is free again', () => {
    // A takes the lease at 0, releases it at 1 s and takes it again; its timer stalls from 1 s to 5 s.
    const r = run({ mechanism: { lock: 'lease', renewal: 'compare-and-extend' }, client: { renewMarginMs: 500 }, faults: [{ kind: 'renewalStall', worker: 'A', atMs: 1_000, durationMs: 4_000 }] }, [
      { id: 'A', startMs: 0, steps: steps('acquire', ['work', 1_000], 'release', 'acquire', ['work', 7_000], 'release') },
    ]);
    const timer = r.events.filter((e) => e.actor === 'A' && ((e.kind === 'fault' && e.narration.includes('renewal of')) || (e.command ?? '').includes('pexpire')));
    expect(timer.map((e) => `${e.atMs} ${e.narration}`)).toEqual([
      // Due 2.5 s after the second grant (1 s): the first grant's timer, due at 2.5 s, was ended by the release.
      '3500 A\'s renewal of lease:x is due now, but its stalled timer cannot run it: the lease is not extended, and A does not know.',
      '5000 A extends its lease by 10 s (the key still holds its token).',
      '7500 A extends its lease by 10 s (the key still holds its token).',
    ]);
  });
});

describe('a stalled renewal timer', () => {
  it('a keep-alive due while the worker only waits for the lock (etcd) is held back silently: it does not own a lease it could lose', () => {
    const r = runEtcdVariant((s) => {
      s.faults = [{ kind: 'renewalStall', worker: 'B', atMs: 1_500, durationMs: 3_000 }];
    });
    const b = r.events.filter((e) => e.actor === 'B' && (e.kind === 'fault' || (e.command ?? '').includes('keep-alive'))).slice(0, 3);
    expect(b.map((e) => `${e.atMs} ${e.narration}`)).toEqual([
      '1500 B\'s renewal timer stalls for 3 s (a starved watchdog thread, a blocked event loop): no renewal runs, while its job\'s own work carries on.',
      '4500 B\'s renewal timer can run again.',
      '4500 B keeps its lease 694d71ddacfda229 alive (another 10 s) while it waits for locks/export.',
    ]);
  });

  it('a stall that outlived the process (a crash during it): the restarted worker\'s renewals run on time', () => {
    const r = run({ mechanism: { lock: 'lease', renewal: 'compare-and-extend' }, faults: [{ kind: 'renewalStall', worker: 'A', atMs: 1_000, durationMs: 2_000 }, { kind: 'crash', worker: 'A', atMs: 2_000, restartAfterMs: 1_500 }] }, [
      { id: 'A', startMs: 0, steps: steps('acquire', ['work', 7_000], 'release') },
    ]);
    // Restarted at 3.5 s, A waits for its own old lease to run out (10 s), takes it again at 10.5 s and renews every 3 s.
    expect(r.events.filter((e) => e.actor === 'A' && (e.command ?? '').includes('pexpire')).map((e) => `${e.atMs} ${e.narration}`)).toEqual([
      '13500 A extends its lease by 10 s (the key still holds its token).',
      '16500 A extends its lease by 10 s (the key still holds its token).',
    ]);
    expect(r.events.some((e) => e.atMs > 2_000 && e.narration.includes('stalled timer'))).toBe(false);
  });
});

describe('holderBelief: a sentence that takes or extends another worker\'s key says what its holder believes now', () => {
  const line = (r: RunResult, actor: string, prefix: string) => r.events.find((e) => e.actor === actor && (e.command ?? '').startsWith(prefix))!;
  /** A takes the lease (10 s TTL, no renewal); B's acquire gives up at 2 s and its error path deletes the key with plain DEL (`releaseInFinally`). */
  const finallyDel = (faults: Scenario['faults'], aWorkMs = 5_000) => run({ mechanism: { lock: 'lease', release: 'del', releaseInFinally: true, acquireTimeoutMs: 2_000 }, faults }, [
    { id: 'A', startMs: 0, steps: steps('acquire', ['work', aWorkMs], 'release') },
    { id: 'B', startMs: 1_500, steps: steps('acquire', ['work', 500], 'release') },
  ]);

  it('a worker still at its job (paused or not) still believes it owns the lease', () => {
    expect(line(finallyDel([]), 'B', 'DEL').narration).toBe('B releases with plain DEL and deletes A\'s lease, not its own: A still believes it owns lease:x.');
    expect(line(finallyDel([{ kind: 'pause', worker: 'A', atMs: 1_000, pauseMs: 4_000 }]), 'B', 'DEL').narration).toBe('B releases with plain DEL and deletes A\'s lease, not its own: A still believes it owns lease:x.');
  });
  it('a worker that crashed for good believes nothing any more: the sentence says it had crashed', () => {
    const r = finallyDel([{ kind: 'crash', worker: 'A', atMs: 1_000, restartAfterMs: null }]);
    expect(line(r, 'B', 'DEL')).toMatchObject({ atMs: 3_500, narration: 'B releases with plain DEL and deletes A\'s lease, not its own: A had crashed.' });
  });
  it('a crashed worker whose restart is still to come had crashed too', () => {
    const r = finallyDel([{ kind: 'crash', worker: 'A', atMs: 1_000, restartAfterMs: 10_000 }]);
    expect(line(r, 'B', 'DEL')).toMatchObject({ atMs: 3_500, narration: 'B releases with plain DEL and deletes A\'s lease, not its own: A had crashed.' });
  });
  it('a token no worker carries any more (its worker restarted and has not taken the lease again) is named as a token', () => {
    const r = finallyDel([{ kind: 'crash', worker: 'A', atMs: 1_000, restartAfterMs: 1_000 }], 1_000);
    const first = r.events.find((e) => e.actor === 'A' && (e.command ?? '').startsWith('SET'))!.command!.split(' ')[2]!;
    expect(line(r, 'B', 'DEL').narration).toBe(`B releases with plain DEL and deletes token ${first}'s lease, not its own: no worker at its job holds token ${first}.`);
  });
  it('a worker still at its job that gave its lease up (its DEL got no reply, so the key stayed) no longer believes it owns it', () => {
    const r = run({ mechanism: { lock: 'lease', release: 'del', releaseInFinally: true, acquireTimeoutMs: 2_000 }, faults: [{ kind: 'partition', worker: 'A', atMs: 900, durationMs: 5_000 }] }, [
      { id: 'A', startMs: 0, steps: steps('acquire', ['work', 1_000], 'release', ['work', 5_000]) },
      { id: 'B', startMs: 1_500, steps: steps('acquire', ['work', 500], 'release') },
    ]);
    expect(line(r, 'B', 'DEL')).toMatchObject({ atMs: 3_500, narration: 'B releases with plain DEL and deletes A\'s lease, not its own: A no longer believes it owns lease:x.' });
  });
  it('a worker that finished its job without giving the key back (its DEL lost in a partition) had finished', () => {
    const r = run({ mechanism: { lock: 'lease', release: 'del', releaseInFinally: true, acquireTimeoutMs: 2_000 }, faults: [{ kind: 'partition', worker: 'A', atMs: 900, durationMs: 2_000 }] }, [
      { id: 'A', startMs: 0, steps: steps('acquire', ['work', 1_000], 'release') },
      { id: 'B', startMs: 1_500, steps: steps('acquire', ['work', 500], 'release') },
    ]);
    expect(line(r, 'B', 'DEL').narration).toBe('B releases with plain DEL and deletes A\'s lease, not its own: A had finished its job.');
  });
  it('PEXPIRE extending a crashed worker\'s key makes no "two owners"', () => {
    const pexpire = (faults: Scenario['faults']) => run({ mechanism: { lock: 'lease', renewal: 'pexpire' }, faults: [{ kind: 'expireLease', atMs: 2_000 }, ...faults] }, [
      { id: 'A', startMs: 0, steps: steps('acquire', ['work', 6_000], 'release') },
      { id: 'B', startMs: 2_500, steps: steps('acquire', ['work', 6_000], 'release') },
    ]);
    const extends_ = (r: RunResult) => r.events.find((e) => e.actor === 'A' && e.narration.startsWith('A\'s plain PEXPIRE extends B\'s lease'))!.narration;
    expect(extends_(pexpire([]))).toBe('A\'s plain PEXPIRE extends B\'s lease, not its own: PEXPIRE checks no owner, so A goes on believing it owns lease:x — two owners now.');
    expect(extends_(pexpire([{ kind: 'crash', worker: 'B', atMs: 2_800, restartAfterMs: null }]))).toBe('A\'s plain PEXPIRE extends B\'s lease, not its own: PEXPIRE checks no owner, so A goes on believing it owns lease:x (B had crashed).');
  });
});
