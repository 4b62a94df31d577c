// The etcd lock client's less travelled paths (etcdLease.ts), each from the example file
// fixtures/scenario-v2-etcd.json with one change: what `client.onBusy` and
// `mechanism.acquireTimeoutMs` do after a failed transaction, a grant or a transaction that gets
// no reply (a partition), what a keep-alive changes in the worker's beliefs, and each way of
// giving the lock back ("del" or a revoke; answered, refused or unanswered). Each test asserts the
// sentence, the time and the belief a user would see, so that a changed rule shows as a changed line.
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../engine/run';
import { LEASE_A, LEASE_B, runEtcdVariant as runVariant } from '../testing/etcdFixture';
import type { TraceEvent } from '../engine/trace';

const HELD_BY_A = `locks/export is held by A (created at revision 33 with lease ${LEASE_A}): the compare fails and B's transaction only reads it`;


/** `time narration` of each event of `actor` (of the kinds given, all by default). */
const said = (r: RunResult, actor: string, kinds?: readonly string[]): string[] =>
  r.events.filter((e) => e.actor === actor && (kinds === undefined || kinds.includes(e.kind))).map((e) => `${e.atMs} ${e.narration}`);

/** The first event of `actor` whose narration contains `text` (fails the test when there is none). */
function find(r: RunResult, actor: string, text: string): TraceEvent {
  const e = r.events.find((x) => x.actor === actor && x.narration.includes(text));
  if (e === undefined) throw new Error(`no event of ${actor} says "${text}"`);
  return e;
}

/** The etcdctl commands `actor` sent, as `time command → reply`. */
const etcdctl = (r: RunResult, actor: string): string[] =>
  r.events.filter((e) => e.actor === actor && e.kind === 'etcd').map((e) => `${e.atMs} ${e.command!.split(' ').slice(0, 3).join(' ')} → ${e.reply}`);

describe('after a transaction that did not take the lock', () => {
  it('client.onBusy "retry" with 2 retries: three transactions, each counted, then the job fails and the lease is no longer kept alive', () => {
    const r = runVariant((s) => {
      s.client.onBusy = 'retry';
      s.client.retries = 2;
      s.faults = [];
    });
    expect(said(r, 'B')).toEqual([
      `1000 B asks etcd for a lease and gets lease ${LEASE_B} for 10 s; the lock key will be attached to it, and deleted with it.`,
      `1000 ${HELD_BY_A}; try 1 of 3, it tries again in 1 s.`,
      `2000 ${HELD_BY_A}; try 2 of 3, it tries again in 1 s.`,
      `3000 ${HELD_BY_A}; that was try 3 of 3, so B gives up and fails the job.`,
      "3000 B's job fails (locks/export was still taken after 3 tries); its error path runs.",
      '3000 B is done: the job failed.',
    ]);
    // No keep-alive after it gave up: etcd lets its unused lease run out 10 s after the grant.
    expect(find(r, 'etcd', `Lease ${LEASE_B}`).atMs).toBe(11_000);
    expect(r.events.some((e) => e.actor === 'B' && e.command?.startsWith('etcdctl lease keep-alive'))).toBe(false);
  });

  it('client.onBusy "retry" whose last transaction found its own lease gone: the job fails for that, not for a taken key', () => {
    const r = runVariant((s) => {
      s.client.onBusy = 'retry';
      s.client.retries = 1;
      s.mechanism.renewal = 'none';
      s.faults = [];
      s.lease.retryEveryMs = 12_000;
      s.workers[1].startMs = 500;
    });
    // B's lease (granted at 0.5 s, never kept alive) ran out at 10.5 s; its second try, at 12.5 s, names it.
    expect(said(r, 'B').slice(2)).toEqual([
      `12500 B's lease ${LEASE_B} is gone (nothing kept it alive for its 10 s), so etcd refuses the put; B will ask for a new lease; that was try 2 of 2, so B gives up and fails the job.`,
      "12500 B's job fails (its last of 2 tries found its own lease gone); its error path runs.",
      '12500 B is done: the job failed.',
    ]);
  });

  it('client.onBusy "skip": the job is skipped, not failed', () => {
    const r = runVariant((s) => {
      s.client.onBusy = 'skip';
      s.faults = [];
    });
    expect(said(r, 'B').slice(1)).toEqual([`1000 ${HELD_BY_A}; B tried once and skips the job without an error.`, '1000 B is done: it did not get the lock, so it skipped the job without an error.']);
  });

  it('mechanism.acquireTimeoutMs: a try whose next retry would pass the deadline gives up at the deadline, not before it', () => {
    const atDeadline = runVariant((s) => {
      s.mechanism.acquireTimeoutMs = 3000;
      s.faults = [];
    });
    // B starts at 1 s: its deadline is 4 s. The try at 3 s may retry at 4 s (not after the deadline); that one gives up.
    expect(etcdctl(atDeadline, 'B').filter((l) => l.includes('txn'))).toEqual([
      '1000 etcdctl txn <<< → FAILURE | locks/export | e01d',
      '2000 etcdctl txn <<< → FAILURE | locks/export | e01d',
      '3000 etcdctl txn <<< → FAILURE | locks/export | e01d',
      '4000 etcdctl txn <<< → FAILURE | locks/export | e01d',
    ]);
    expect(said(atDeadline, 'B', ['outcome'])).toEqual(["4000 B's job fails (it gave up waiting for locks/export after 3 s); its error path runs.", '4000 B is done: the job failed.']);
    const early = runVariant((s) => {
      s.mechanism.acquireTimeoutMs = 2500;
      s.faults = [];
    });
    expect(said(early, 'B', ['outcome'])).toEqual(["3500 B's job fails (it gave up waiting for locks/export after 2.5 s); its error path runs.", '3500 B is done: the job failed.']);
    expect(etcdctl(early, 'B').filter((l) => l.includes('txn'))).toHaveLength(3);
    // The keep-alive stops with the job: B's lease runs out 10 s after its grant, not later.
    expect(find(early, 'etcd', `Lease ${LEASE_B}`).atMs).toBe(11_000);
  });

  it('a pause that carries the waiter past its deadline: it gives up as soon as it runs again, counting the time it was paused', () => {
    const r = runVariant((s) => {
      s.mechanism.acquireTimeoutMs = 2500;
      s.faults = [{ kind: 'pause', worker: 'B', atMs: 2500, pauseMs: 3000 }];
    });
    expect(said(r, 'B', ['outcome'])).toEqual(["5500 B's job fails (it gave up waiting for locks/export after 4.5 s); its error path runs.", '5500 B is done: the job failed.']);
    expect(find(r, 'etcd', `Lease ${LEASE_B}`).atMs).toBe(15_500);
  });

  it('the time to the lock counts from the worker\'s first request: A 0 s, B 9 s (from 1 s to 10 s)', () => {
    expect(runVariant(() => undefined).metrics.acquisitionLatency).toEqual({ count: 2, meanMs: 4500, maxMs: 9000 });
  });
});

describe('a grant or a transaction that gets no reply (the worker is cut off from etcd)', () => {
  it('lease grants that time out: no lease, the worker waits and asks again; its keep-alive starts from the grant that worked', () => {
    const r = runVariant((s) => {
      s.faults = [{ kind: 'partition', worker: 'B', atMs: 500, durationMs: 2100 }];
    });
    const grants = r.events.filter((e) => e.actor === 'B' && e.command === 'etcdctl lease grant 10');
    expect(grants.map((e) => [e.atMs, e.reply, e.narration, e.state])).toEqual([
      [1000, 'Error: failed to grant lease (context deadline exceeded)', 'B cannot reach etcd: its lease grant gets no reply; it will try again in 1 s.', 'waiting'],
      [2000, 'Error: failed to grant lease (context deadline exceeded)', 'B cannot reach etcd: its lease grant gets no reply; it will try again in 1 s.', 'waiting'],
      [3000, `lease ${LEASE_B} granted with TTL(10s)`, `B asks etcd for a lease and gets lease ${LEASE_B} for 10 s; the lock key will be attached to it, and deleted with it.`, 'waiting'],
    ]);
    // No transaction without a lease: the first one follows the grant that worked, with that lease.
    expect(r.events.find((e) => e.actor === 'B' && e.command?.startsWith('etcdctl txn'))?.atMs).toBe(3000);
    expect(r.events.find((e) => e.actor === 'B' && e.command?.startsWith('etcdctl txn'))?.command).toContain(`--lease=${LEASE_B}`);
    expect(r.events.find((e) => e.actor === 'B' && e.command?.startsWith('etcdctl lease keep-alive'))?.atMs).toBe(6000);
  });

  it('a transaction that times out: the worker cannot know whether it took the lock, and tries again', () => {
    const r = runVariant((s) => {
      s.faults = [{ kind: 'partition', worker: 'B', atMs: 1500, durationMs: 1000 }];
    });
    const t = r.events.find((e) => e.actor === 'B' && e.atMs === 2000 && e.kind === 'etcd')!;
    expect([t.reply, t.narration, t.state]).toEqual(['(no reply: connection timed out)', "B cannot reach etcd: its transaction gets no reply, so it cannot know whether it took the lock; it will try again in 1 s.", 'waiting']);
    expect(r.events.filter((e) => e.actor === 'B' && e.atMs === 3000 && e.kind === 'etcd').map((e) => e.reply)).toEqual(['FAILURE | locks/export | e01d']);
  });
});

describe('the lock taken: the token and the beliefs', () => {
  it('without fencing (fenceSource still set) the revision is no token: not in the sentence, the event or the belief', () => {
    const r = runVariant((s) => {
      s.mechanism.fencing = false;
      s.destination.checksFencing = false;
    });
    const got = find(r, 'A', 'transaction finds');
    expect(got.narration).toBe(`A's transaction finds locks/export absent and puts it with lease ${LEASE_A}: A holds the lock, created at revision 33.`);
    expect(got.data).toEqual({ t: 'lease', op: 'acquired', key: 'locks/export', worker: 'A' });
    expect(got.beliefs).toMatchObject({ ownsLease: true, fencingToken: null, acquiredAtMs: 0, leaseBelievedUntilMs: 10_000, renewFailed: false, refusedAsStale: false });
  });

  it('a token from the database sequence: no revision token, and the worker believes it holds the lock only once nextval answered', () => {
    const r = runVariant((s) => {
      s.mechanism.fenceSource = 'db-sequence';
    });
    const got = find(r, 'A', 'transaction finds');
    expect(got.narration).toBe(`A's transaction finds locks/export absent and puts it with lease ${LEASE_A}: A holds the lock, created at revision 33.`);
    expect(got.beliefs?.ownsLease).toBe(false);
    const seq = r.events.find((e) => e.actor === 'A' && e.command === "SELECT nextval('fence_seq')")!;
    expect(seq.beliefs).toMatchObject({ ownsLease: true, fencingToken: 33 });
  });

  it('a grant that was not raised says nothing of the minimum', () => {
    expect(said(runVariant(() => undefined), 'A')[0]).toBe(`0 A asks etcd for a lease and gets lease ${LEASE_A} for 10 s; the lock key will be attached to it, and deleted with it.`);
  });
});

describe('keep-alive and what the worker believes', () => {
  it('a waiter\'s keep-alive changes no belief; the holder\'s extends the time it believes it holds the lock', () => {
    const r = runVariant(() => undefined);
    const waiting = r.events.filter((e) => e.actor === 'B' && e.command?.startsWith('etcdctl lease keep-alive') && e.atMs < 10_000);
    expect(waiting.map((e) => [e.atMs, e.beliefs?.ownsLease, e.beliefs?.leaseBelievedUntilMs, e.data])).toEqual([[4000, false, null, undefined], [7000, false, null, undefined]]);
    const holding = r.events.find((e) => e.actor === 'B' && e.command?.startsWith('etcdctl lease keep-alive') && e.atMs === 13_000)!;
    expect([holding.narration, holding.beliefs?.leaseBelievedUntilMs, holding.data]).toEqual([
      `B keeps its lease ${LEASE_B} alive: locks/export, attached to it, lives another 10 s.`,
      23_000,
      { t: 'lease', op: 'renewed', key: 'locks/export', worker: 'B' },
    ]);
  });

  it('a keep-alive answered "lease not found": the holder knows it lost the lock, stops keeping it alive, and its release has nothing to revoke', () => {
    const r = runVariant((s) => {
      s.faults = [{ kind: 'expireLease', atMs: 2500 }];
      s.workers = [s.workers[0]];
      s.invariants = [{ kind: 'mutualExclusion' }];
    });
    const ka = r.events.filter((e) => e.actor === 'A' && e.command?.startsWith('etcdctl lease keep-alive'));
    expect(ka.map((e) => [e.atMs, e.reply])).toEqual([[3000, 'Error: etcdserver: requested lease not found']]);
    expect(ka[0]?.beliefs).toMatchObject({ ownsLease: false, renewFailed: true });
    expect(ka[0]?.data).toEqual({ t: 'lease', op: 'renewFailed', key: 'locks/export', worker: 'A' });
    const step = r.events.find((e) => e.actor === 'A' && e.narration.startsWith('A has no etcd lease'));
    expect([step?.kind, step?.state, step?.beliefs?.ownsLease]).toEqual(['step', 'releasing', false]);
    expect(said(r, 'A').slice(-2)).toEqual([
      '15000 A has no etcd lease to revoke (its keep-alive found its lease gone, and locks/export with it), so its client sends nothing.',
      '15000 A is done: it completed the job.',
    ]);
    expect(r.metrics.renewFailures).toBe(1);
  });

  it('a waiter\'s keep-alive answered "lease not found" (it was paused past its TTL): it asks for a new lease at its next try', () => {
    const r = runVariant((s) => {
      s.faults = [{ kind: 'pause', worker: 'B', atMs: 2000, pauseMs: 15_000 }];
      s.workers[0].steps = [{ do: 'acquire' }, { do: 'work', ms: 20_000 }, { do: 'release' }];
      s.invariants = [{ kind: 'mutualExclusion' }];
    });
    const ka = find(r, 'B', 'keep-alive fails');
    expect([ka.atMs, ka.narration, ka.beliefs?.renewFailed, ka.beliefs?.ownsLease]).toEqual([17_000, `B's keep-alive fails: lease ${LEASE_B} no longer exists (it ran out or was revoked).`, true, false]);
    expect(etcdctl(r, 'B').filter((l) => l.startsWith('18000'))).toEqual(['18000 etcdctl lease grant → lease 694d71ddacfda22b granted with TTL(10s)', '18000 etcdctl txn <<< → FAILURE | locks/export | e01d']);
    expect(find(r, 'B', 'transaction finds').narration).toContain('puts it with lease 694d71ddacfda22b');
  });

  it('a waiter paused past its TTL while the key is free: its put is refused, the keep-alive that fell due sends nothing for the dropped lease, and it asks for a new one', () => {
    const r = runVariant((s) => {
      s.faults = [{ kind: 'pause', worker: 'B', atMs: 2000, pauseMs: 15_000 }];
      s.workers[0].steps = [{ do: 'acquire' }, { do: 'work', ms: 5000 }, { do: 'release' }];
      s.invariants = [{ kind: 'mutualExclusion' }];
    });
    expect(etcdctl(r, 'B').slice(0, 5)).toEqual([
      `1000 etcdctl lease grant → lease ${LEASE_B} granted with TTL(10s)`,
      '1000 etcdctl txn <<< → FAILURE | locks/export | e01d',
      '17000 etcdctl txn <<< → Error: etcdserver: requested lease not found',
      '18000 etcdctl lease grant → lease 694d71ddacfda22b granted with TTL(10s)',
      '18000 etcdctl txn <<< → SUCCESS | OK',
    ]);
  });

  it('how often a waiter retries does not change how many events its worker machine gets (it enters "waiting" once)', () => {
    const every = (ms: number) => runVariant((s) => {
      s.lease.retryEveryMs = ms;
    });
    const [slow, fast] = [every(1000), every(500)];
    expect(fast.events.filter((e) => e.actor === 'B' && e.reply?.startsWith('FAILURE')).length).toBeGreaterThan(slow.events.filter((e) => e.actor === 'B' && e.reply?.startsWith('FAILURE')).length);
    expect(fast.metrics.workerTransitions).toBe(slow.metrics.workerTransitions);
  });

  it('keep-alives that time out: the holder cannot tell, still believes it holds the lock, and keeps trying', () => {
    const r = runVariant((s) => {
      s.faults = [{ kind: 'partition', worker: 'A', atMs: 2000, durationMs: 5000 }];
    });
    const ka = r.events.filter((e) => e.actor === 'A' && e.command?.startsWith('etcdctl lease keep-alive'));
    expect(ka.map((e) => [e.atMs, e.reply, e.beliefs?.ownsLease, e.beliefs?.renewFailed])).toEqual([
      [3000, '(no reply: connection timed out)', true, true],
      [6000, '(no reply: connection timed out)', true, true],
      [9000, `lease ${LEASE_A} keepalived with TTL(10)`, true, true],
      [12_000, `lease ${LEASE_A} keepalived with TTL(10)`, true, true],
    ]);
  });

  it('a keep-alive after the key was deleted and taken by another: the holder is told who holds it now', () => {
    const r = runVariant((s) => {
      s.faults = [{ kind: 'manualDelete', atMs: 2500 }];
    });
    expect(r.events.filter((e) => e.actor === 'A' && e.command?.startsWith('etcdctl lease keep-alive')).map((e) => `${e.atMs} ${e.narration}`)).toEqual([
      `3000 A keeps its lease ${LEASE_A} alive, but locks/export is no longer attached to it (it was deleted; nobody holds it now): a keep-alive extends the lease, not the key, so A cannot tell and goes on believing it holds the lock.`,
      `6000 A keeps its lease ${LEASE_A} alive, but locks/export is no longer attached to it (it was deleted; B holds it now): a keep-alive extends the lease, not the key, so A cannot tell and goes on believing it holds the lock.`,
      `9000 A keeps its lease ${LEASE_A} alive, but locks/export is no longer attached to it (it was deleted; B holds it now): a keep-alive extends the lease, not the key, so A cannot tell and goes on believing it holds the lock.`,
      `12000 A keeps its lease ${LEASE_A} alive, but locks/export is no longer attached to it (it was deleted; B holds it now): a keep-alive extends the lease, not the key, so A cannot tell and goes on believing it holds the lock.`,
    ]);
  });
});

describe('giving the lock back', () => {
  /** One worker, A, that takes the lock, works 15 s and releases it (release as `release` says). */
  const alone = (release: 'del' | 'compare-and-delete', more: (s: any) => void = () => undefined) => runVariant((s) => {
    s.mechanism.release = release;
    s.mechanism.fencing = false;
    delete s.mechanism.fenceSource;
    s.destination.checksFencing = false;
    s.faults = [];
    s.workers = [{ id: 'A', startMs: 0, steps: [{ do: 'acquire' }, { do: 'work', ms: 15_000 }, { do: 'release' }] }];
    s.invariants = [{ kind: 'mutualExclusion' }];
    more(s);
  });

  it('release "del" of its own key: released, the lease left to run out; the worker no longer believes it holds the lock', () => {
    const r = alone('del');
    const del = r.events.find((e) => e.command === 'etcdctl del locks/export')!;
    expect([del.atMs, del.reply, del.narration, del.data, del.state, del.beliefs?.ownsLease]).toEqual([
      15_000, '1', `A releases the lock with etcdctl del (its lease ${LEASE_A} stays until its TTL runs out, nothing keeps it alive now).`,
      { t: 'lease', op: 'released', key: 'locks/export', worker: 'A' }, 'releasing', false,
    ]);
    expect(said(r, 'A').at(-1)).toBe('15000 A is done: it completed the job.');
    // Its last keep-alive was at 12 s: the lease runs out 10 s later, with no key attached.
    expect(find(r, 'etcd', `Lease ${LEASE_A}`).atMs).toBe(22_000);
  });

  it('a checking client whose release did delete its key (del answered 1, a revoke that deleted it) goes on: only a release that found nothing fails the job', () => {
    for (const release of ['del', 'compare-and-delete'] as const) {
      const r = alone(release, (s) => {
        s.client.checkRelease = true;
      });
      expect(said(r, 'A', ['outcome'])).toEqual(['15000 A is done: it completed the job.']);
    }
  });

  it('releaseInFinally after the lease grant never got a reply: there is no lease to revoke, and the step says so', () => {
    const r = alone('compare-and-delete', (s) => {
      s.mechanism.releaseInFinally = true;
      s.client.onBusy = 'retry';
      s.faults = [{ kind: 'partition', worker: 'A', atMs: 0, durationMs: 5000 }];
      s.workers[0].startMs = 100;
    });
    const none = r.events.find((e) => e.actor === 'A' && e.kind === 'step' && e.narration.includes('no etcd lease'));
    expect([none?.atMs, none?.narration, none?.state]).toEqual([100, 'A has no etcd lease to revoke (it never took locks/export with a live lease), so its client sends nothing.', 'releasing']);
    expect(said(r, 'A', ['outcome'])).toEqual(["100 A's job fails (its only try got no reply from etcd); its error path runs.", '100 A is done: the job failed.']);
  });

  it('release "del" of a key already gone: 0 deleted; a checking client fails the job, another goes on', () => {
    const expired = (s: any) => {
      s.mechanism.renewal = 'none';
      s.faults = [{ kind: 'expireLease', atMs: 2500 }];
    };
    const checked = alone('del', (s) => {
      expired(s);
      s.client.checkRelease = true;
    });
    expect(said(checked, 'A').slice(-3)).toEqual([
      "15000 A runs etcdctl del but locks/export is already gone. A's client checks the reply and fails the job: it had lost the lock.",
      "15000 A's job fails (its release found locks/export no longer held with its lease); its error path runs.",
      '15000 A is done: the job failed.',
    ]);
    const unchecked = alone('del', expired);
    expect(said(unchecked, 'A').slice(-2)).toEqual(['15000 A runs etcdctl del but locks/export is already gone.', '15000 A is done: it completed the job.']);
  });

  it('a revoke on the error path of a job that already failed: "lease not found" does not fail it twice', () => {
    const r = runVariant((s) => {
      s.mechanism.renewal = 'none';
      s.client.checkRelease = true;
    });
    // A uploads with its stale token at 20 s, the store refuses it, the job fails; its error path revokes a lease etcd already revoked.
    expect(said(r, 'A').slice(-4)).toEqual([
      "20000 A uploads exports/2026-11-30.csv: the store rejects the stale fencing token.",
      "20000 A's job fails (stale fencing token rejected); its error path runs.",
      `20000 A's revoke fails: lease ${LEASE_A} no longer exists (it ran out, nothing kept it alive), and locks/export went with it.`,
      '20000 A is done: the job failed.',
    ]);
  });

  it('a revoke after the key was deleted by hand: nothing else changes, and the reply cannot say so', () => {
    const r = alone('compare-and-delete', (s) => {
      s.faults = [{ kind: 'manualDelete', atMs: 2500 }];
    });
    const rv = r.events.find((e) => e.command === `etcdctl lease revoke ${LEASE_A}`)!;
    expect([rv.reply, rv.narration, rv.state, rv.beliefs?.ownsLease]).toEqual([
      `lease ${LEASE_A} revoked`,
      `A revokes its lease ${LEASE_A}; locks/export was not attached to it any more, so nothing else changes — and the revoke's reply cannot tell A that.`,
      'releasing',
      false,
    ]);
  });

  it('a revoke or a del that gets no reply: the worker gives the lock up without knowing, and a checking client does not fail the job for it', () => {
    const cut = (s: any) => {
      s.client.checkRelease = true;
      s.faults = [{ kind: 'partition', worker: 'A', atMs: 14_000, durationMs: 5000 }];
    };
    const revoke = alone('compare-and-delete', cut);
    const rv = revoke.events.find((e) => e.command === `etcdctl lease revoke ${LEASE_A}`)!;
    expect([rv.atMs, rv.reply, rv.narration, rv.beliefs?.ownsLease]).toEqual([
      15_000, 'Error: failed to revoke lease (context deadline exceeded)',
      `A's revoke gets no reply (timed out): it gives up the lock without knowing whether its lease is gone; if the request never arrived, locks/export stays until the lease runs out.`,
      false,
    ]);
    expect(said(revoke, 'A', ['outcome'])).toEqual(['15000 A is done: it completed the job.']);
    const del = alone('del', cut);
    const d = del.events.find((e) => e.command === 'etcdctl del locks/export')!;
    expect([d.atMs, d.narration, d.beliefs?.ownsLease]).toEqual([
      15_000,
      "A's etcdctl del gets no reply (timed out): it gives up the lock without knowing whether the key was deleted; if the request never arrived, the key stays until its lease runs out.",
      false,
    ]);
    expect(said(del, 'A', ['outcome'])).toEqual(['15000 A is done: it completed the job.']);
  });
});
