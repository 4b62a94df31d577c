// A lease that lives in etcd (scenario `lockService`, etcdLease.ts): the example file
// fixtures/scenario-v2-etcd.json (README "Scenario format, version 2") and variations of it, each
// asserting the trace lines a user sees — the etcdctl commands, etcd's replies and what the run says.
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../engine/run';
import { LEASE_A, LEASE_B, runEtcdVariant as runVariant } from '../testing/etcdFixture';
import type { TraceEvent } from '../engine/trace';



/** `time actor command → reply` of each etcd event (a waiting worker's failed acquire transactions and keep-alives left out unless `all`). */
function etcdLines(r: RunResult, all = false): string[] {
  const quiet = (e: TraceEvent) => !all && e.actor !== 'etcd' && ((e.reply?.startsWith('FAILURE') ?? false) || (e.narration.includes('while it waits')));
  return r.events.filter((e) => e.kind === 'etcd' || (e.kind === 'expiry' && e.actor === 'etcd')).filter((e) => !quiet(e))
    .map((e) => (e.command === undefined ? `${e.atMs} ${e.actor}: ${e.narration}` : `${e.atMs} ${e.actor} ${e.command} → ${e.reply}`));
}

const narration = (r: RunResult, actor: string, contains: string): string | undefined => r.events.find((e) => e.actor === actor && e.narration.includes(contains))?.narration;
const txn = (value: string, lease: string) => `etcdctl txn <<< $'create("locks/export") = "0"\\n\\nput locks/export ${value} --lease=${lease}\\n\\nget locks/export\\n'`;

describe('the etcd example file (fixtures/scenario-v2-etcd.json)', () => {
  // Each test runs the file itself (not once in the describe body): a run made while Vitest collects
  // the tests counts as no test's coverage, which makes every mutant it reaches "static" for
  // `npm run mutate` (each then costs a reload and the whole suite).
  it('A takes the lock at revision 33; paused, its lease runs out; B takes it at 35; A\'s upload with 33 is rejected', () => {
    const r = runVariant();
    expect(etcdLines(r)).toEqual([
      `0 A etcdctl lease grant 10 → lease ${LEASE_A} granted with TTL(10s)`,
      `0 A ${txn('e01d', LEASE_A)} → SUCCESS | OK`,
      `1000 B etcdctl lease grant 10 → lease ${LEASE_B} granted with TTL(10s)`,
      `10000 etcd: Lease ${LEASE_A} (A's) was not kept alive for its TTL of 10 s: etcd revokes it and deletes locks/export (revision 34). Whoever believes they hold the lock no longer does, and anyone may take it.`,
      `10000 B ${txn('a5e3', LEASE_B)} → SUCCESS | OK`,
      `13000 B etcdctl lease keep-alive --once ${LEASE_B} → lease ${LEASE_B} keepalived with TTL(10)`,
      `16000 B etcdctl lease keep-alive --once ${LEASE_B} → lease ${LEASE_B} keepalived with TTL(10)`,
      `17000 A etcdctl lease keep-alive --once ${LEASE_A} → Error: etcdserver: requested lease not found`,
      `19000 B etcdctl lease keep-alive --once ${LEASE_B} → lease ${LEASE_B} keepalived with TTL(10)`,
      `22000 B etcdctl lease keep-alive --once ${LEASE_B} → lease ${LEASE_B} keepalived with TTL(10)`,
      `25000 B etcdctl lease revoke ${LEASE_B} → lease ${LEASE_B} revoked`,
    ]);
    expect(narration(r, 'A', 'transaction finds')).toBe(`A's transaction finds locks/export absent and puts it with lease ${LEASE_A}: A holds the lock, created at revision 33. Revision 33 is its fencing token (the first token granted in this run).`);
    expect(narration(r, 'B', 'transaction finds')).toBe(`B's transaction finds locks/export absent and puts it with lease ${LEASE_B}: B holds the lock, created at revision 35. Revision 35 is its fencing token, higher than any granted before (33).`);
    expect(r.events.find((e) => e.actor === 'B' && e.reply?.startsWith('FAILURE'))?.reply).toBe('FAILURE | locks/export | e01d');
    expect(narration(r, 'B', 'is held by')).toBe(`locks/export is held by A (created at revision 33 with lease ${LEASE_A}): the compare fails and B's transaction only reads it; it will try again in 1 s.`);
    expect(narration(r, 'B', 'while it waits')).toBe(`B keeps its lease ${LEASE_B} alive (another 10 s) while it waits for locks/export.`);
    expect(narration(r, 'A', 'keep-alive fails')).toBe(`A's keep-alive fails: lease ${LEASE_A} no longer exists (it ran out or was revoked), and locks/export went with it. Unless A checks, it keeps working.`);
    expect(r.events.filter((e) => e.kind === 'destination' && e.command !== undefined).map((e) => `${e.atMs} ${e.actor} ${e.command} → ${e.reply}`)).toEqual([
      '15000 B PUT exports/2026-11-30.csv Fencing-Token: 35 → (pending: no reply yet)',
      '20000 A PUT exports/2026-11-30.csv Fencing-Token: 33 → 409 Conflict: stale fencing token 33 (highest accepted 35)',
      '25000 B PUT exports/2026-11-30.csv Fencing-Token: 35 → 200 OK (upload complete)',
    ]);
    expect(narration(r, 'B', 'revokes its lease')).toBe(`B revokes its lease ${LEASE_B}: etcd deletes locks/export with it (revision 36), and the lock is free.`);
    expect(r.verdict.status).toBe('held');
    expect(r.metrics.staleWritesRejected).toBe(1);
    expect(r.metrics.renewFailures).toBe(1);
  });

  it('the acquired events carry the revision as the token; the workers believe it', () => {
    const r = runVariant();
    expect(r.events.filter((e) => e.data?.t === 'lease' && e.data.op === 'acquired').map((e) => e.data)).toEqual([
      { t: 'lease', op: 'acquired', key: 'locks/export', worker: 'A', fencingToken: 33 },
      { t: 'lease', op: 'acquired', key: 'locks/export', worker: 'B', fencingToken: 35 },
    ]);
    expect(r.events.find((e) => e.actor === 'B' && e.data?.t === 'lease' && e.data.op === 'acquired')?.beliefs).toMatchObject({ ownsLease: true, fencingToken: 35, leaseBelievedUntilMs: 20_000 });
  });

  it('without the fencing token the same pause gives two overlapping uploads', () => {
    const v = runVariant((s) => {
      s.mechanism.fencing = false;
      delete s.mechanism.fenceSource;
      s.destination.checksFencing = false;
    });
    expect(v.verdict.violations.map((f) => f.invariant)).toEqual(['noOverlappingWrites']);
    expect(narration(v, 'A', 'transaction finds')).toBe(`A's transaction finds locks/export absent and puts it with lease ${LEASE_A}: A holds the lock, created at revision 33.`);
  });
});

describe('an etcd lease, as the lock client behaves', () => {
  it('release "del": a plain etcdctl del after the lease ran out deletes the successor\'s lock', () => {
    const r = runVariant((s) => {
      s.mechanism.release = 'del';
      s.mechanism.fencing = false;
      delete s.mechanism.fenceSource;
      s.faults = [{ kind: 'pause', worker: 'A', atMs: 2000, pauseMs: 12_000 }];
      s.workers[0].steps = [{ do: 'acquire' }, { do: 'work', ms: 15_000 }, { do: 'release' }];
      s.workers[1].steps = [{ do: 'acquire' }, { do: 'work', ms: 10_000 }, { do: 'release' }];
      s.invariants = [{ kind: 'mutualExclusion' }];
    });
    const del = r.events.find((e) => e.actor === 'A' && e.command === 'etcdctl del locks/export');
    expect([del?.atMs, del?.reply, del?.narration]).toEqual([15_000, '1', 'A releases with a plain etcdctl del and deletes B\'s lock, not its own: B still believes it holds locks/export.']);
    expect(del?.data).toEqual({ t: 'lease', op: 'deleted', key: 'locks/export', worker: 'A', deletedOwner: 'B' });
    expect(r.events.find((e) => e.actor === 'B' && e.command === 'etcdctl del locks/export')?.reply).toBe('0');
  });

  it('client.onBusy "skip": one transaction, FAILURE, the job is skipped; its unused lease runs out with nothing attached', () => {
    const r = runVariant((s) => {
      s.client.onBusy = 'skip';
      s.faults = [];
    });
    expect(etcdLines(r, true).filter((l) => l.includes(' B ') || l.includes('(B\'s)'))).toEqual([
      `1000 B etcdctl lease grant 10 → lease ${LEASE_B} granted with TTL(10s)`,
      `1000 B ${txn('a5e3', LEASE_B)} → FAILURE | locks/export | e01d`,
      `11000 etcd: Lease ${LEASE_B} (B's) was not kept alive for its TTL of 10 s: etcd revokes it. No key was attached to it, so nothing is deleted.`,
    ]);
    expect(narration(r, 'B', 'is held by')).toBe(`locks/export is held by A (created at revision 33 with lease ${LEASE_A}): the compare fails and B's transaction only reads it; B tried once and skips the job without an error.`);
    expect(r.events.at(-1)?.narration).toContain('A is done');
  });

  it('a lease nobody keeps alive: the waiter\'s own lease runs out, its put is refused, it asks for a new lease', () => {
    const r = runVariant((s) => {
      s.mechanism.renewal = 'none';
      s.faults = [];
      s.workers[0].steps = [{ do: 'acquire' }, { do: 'work', ms: 25_000 }, { do: 'release' }];
      s.workers[1].steps = [{ do: 'acquire' }, { do: 'work', ms: 1_000 }, { do: 'release' }];
      s.lease.ttlMs = 30_000;
      s.workers[1].startMs = 0;
      s.lease.retryEveryMs = 4_000;
      s.invariants = [{ kind: 'mutualExclusion' }];
    });
    // A holds the lock for 25 s; B's lease, granted at 0 and never kept alive, would run out at
    // 30 s: B's try at 28 s finds the key free and puts it with that lease, which is still alive.
    expect(etcdLines(r, true).filter((l) => !l.includes('FAILURE'))).toEqual([
      `0 A etcdctl lease grant 30 → lease ${LEASE_A} granted with TTL(30s)`,
      `0 A ${txn('e01d', LEASE_A)} → SUCCESS | OK`,
      `0 B etcdctl lease grant 30 → lease ${LEASE_B} granted with TTL(30s)`,
      `25000 A etcdctl lease revoke ${LEASE_A} → lease ${LEASE_A} revoked`,
      `28000 B ${txn('a5e3', LEASE_B)} → SUCCESS | OK`,
      `29000 B etcdctl lease revoke ${LEASE_B} → lease ${LEASE_B} revoked`,
    ]);
    const late = runVariant((s) => {
      s.mechanism.renewal = 'none';
      s.faults = [];
      s.lease.ttlMs = 10_000;
      s.workers[0].steps = [{ do: 'acquire' }, { do: 'work', ms: 12_000 }, { do: 'release' }];
      s.workers[1].steps = [{ do: 'acquire' }, { do: 'work', ms: 1_000 }, { do: 'release' }];
      s.workers[1].startMs = 500;
      s.lease.retryEveryMs = 12_000;
      s.invariants = [{ kind: 'mutualExclusion' }];
    });
    // B's lease (granted at 0.5 s) has run out when its second try (12.5 s) finds the key free.
    expect(etcdLines(late, true)).toEqual([
      `0 A etcdctl lease grant 10 → lease ${LEASE_A} granted with TTL(10s)`,
      `0 A ${txn('e01d', LEASE_A)} → SUCCESS | OK`,
      `500 B etcdctl lease grant 10 → lease ${LEASE_B} granted with TTL(10s)`,
      `500 B ${txn('a5e3', LEASE_B)} → FAILURE | locks/export | e01d`,
      `10000 etcd: Lease ${LEASE_A} (A's) was not kept alive for its TTL of 10 s: etcd revokes it and deletes locks/export (revision 34). Whoever believes they hold the lock no longer does, and anyone may take it.`,
      `10500 etcd: Lease ${LEASE_B} (B's) was not kept alive for its TTL of 10 s: etcd revokes it. No key was attached to it, so nothing is deleted.`,
      `12000 A etcdctl lease revoke ${LEASE_A} → Error: failed to revoke lease (etcdserver: requested lease not found)`,
      `12500 B ${txn('a5e3', LEASE_B)} → Error: etcdserver: requested lease not found`,
      `24500 B etcdctl lease grant 10 → lease 694d71ddacfda22b granted with TTL(10s)`,
      `24500 B ${txn('a5e3', '694d71ddacfda22b')} → SUCCESS | OK`,
      '25500 B etcdctl lease revoke 694d71ddacfda22b → lease 694d71ddacfda22b revoked',
    ]);
    expect(narration(late, 'B', 'is gone')).toBe(`B's lease ${LEASE_B} is gone (nothing kept it alive for its 10 s), so etcd refuses the put; B will ask for a new lease; it will try again in 12 s.`);
  });

  it('a TTL of 1 s is granted as 2 s, etcd\'s minimum', () => {
    const r = runVariant((s) => {
      s.lease.ttlMs = 1000;
      s.lease.renewEveryMs = 500;
      s.faults = [];
    });
    expect(r.events[0]?.command).toBe('etcdctl lease grant 1');
    expect(r.events[0]?.reply).toBe(`lease ${LEASE_A} granted with TTL(2s)`);
    expect(r.events[0]?.narration).toBe(`A asks etcd for a lease and gets lease ${LEASE_A} for 2 s (it asked for 1 s: etcd raises a TTL below its minimum, 2 s); the lock key will be attached to it, and deleted with it.`);
    expect(r.verdict.status).toBe('held');
  });

  it('a partition: keep-alives time out, etcd lets the lease run out, B takes the lock at a higher revision', () => {
    const r = runVariant((s) => {
      s.faults = [{ kind: 'partition', worker: 'A', atMs: 2000, durationMs: 12_000 }];
    });
    expect(narration(r, 'fault', 'cut off') ?? r.events.find((e) => e.narration.includes('is cut off from'))?.narration).toBe('A is cut off from etcd for 12 s; it can still reach the database and the destination.');
    const ka = r.events.find((e) => e.actor === 'A' && e.reply === '(no reply: connection timed out)');
    expect([ka?.atMs, ka?.command, ka?.narration, ka?.data]).toEqual([3000, `etcdctl lease keep-alive --once ${LEASE_A}`, `A's keep-alive gets no reply (timed out): it cannot know whether its lease ${LEASE_A} is still alive; etcd deletes locks/export when the lease runs out.`, { t: 'lease', op: 'renewFailed', key: 'locks/export', worker: 'A' }]);
    expect(ka?.call).toMatchObject({ resource: 'etcd', cutOff: true });
    expect(narration(r, 'B', 'transaction finds')).toContain('created at revision 35');
    expect(r.metrics.renewFailures).toBe(4);
  });

  it('an operator\'s etcdctl del: A\'s keep-alive still succeeds (it extends the lease, not the key); its revoke deletes nothing of B\'s', () => {
    const r = runVariant((s) => {
      s.faults = [{ kind: 'manualDelete', atMs: 2500 }];
    });
    const del = r.events.find((e) => e.actor === 'operator');
    expect([del?.command, del?.reply, del?.narration]).toEqual(['etcdctl del locks/export', '1', 'An operator deletes locks/export by hand with etcdctl del to "unstick the queue"; its owner is alive, its lease still runs, and it still believes it holds the lock.']);
    expect(narration(r, 'A', 'is no longer attached')).toBe(`A keeps its lease ${LEASE_A} alive, but locks/export is no longer attached to it (it was deleted; nobody holds it now): a keep-alive extends the lease, not the key, so A cannot tell and goes on believing it holds the lock.`);
    expect(narration(r, 'A', 'revokes its lease')).toBe(`A revokes its lease ${LEASE_A}; locks/export was not attached to it any more (B holds it now, with its own lease, which stays), so nothing else changes — and the revoke's reply cannot tell A that.`);
    expect(narration(r, 'B', 'revokes its lease')).toContain('etcd deletes locks/export with it');
  });

  it('a forced expiry and a crash: the key goes with the lease, B takes it', () => {
    const forced = runVariant((s) => {
      s.faults = [{ kind: 'expireLease', atMs: 2500 }];
    });
    expect(etcdLines(forced).slice(2, 4)).toEqual([
      `1000 B etcdctl lease grant 10 → lease ${LEASE_B} granted with TTL(10s)`,
      `2500 etcd: Lease ${LEASE_A} (A's) runs out now: etcd revokes it and deletes locks/export (revision 34). Whoever believes they hold the lock no longer does, and anyone may take it.`,
    ]);
    expect(forced.events.find((e) => e.kind === 'fault' && e.atMs === 2500)?.narration).toBe(`Lease ${LEASE_A}, which locks/export is attached to, is forced to run out now (as if its TTL had passed).`);
    const crashed = runVariant((s) => {
      s.faults = [{ kind: 'crash', worker: 'A', atMs: 2000, restartAfterMs: null }];
    });
    expect(narration(crashed, 'A', 'crashes')).toBe('A crashes. Nothing keeps its etcd lease alive now: the lock stays until the lease runs out.');
    expect(narration(crashed, 'B', 'transaction finds')).toContain('at revision 35');
  });

  it('the token from a database sequence instead: the lease in etcd, the token from nextval', () => {
    const r = runVariant((s) => {
      s.mechanism.fenceSource = 'db-sequence';
    });
    expect(r.events.filter((e) => e.command === "SELECT nextval('fence_seq')").map((e) => `${e.actor} ${e.reply}`)).toEqual(['A SELECT 1 → nextval=33', 'B SELECT 1 → nextval=34']);
    expect(r.events.find((e) => e.actor === 'A' && e.kind === 'destination' && e.reply?.startsWith('409'))?.reply).toBe('409 Conflict: stale fencing token 33 (highest accepted 34)');
  });

  it('client.checkRelease: a revoke answered "lease not found" fails the job', () => {
    const r = runVariant((s) => {
      s.client.checkRelease = true;
      s.mechanism.renewal = 'none';
      s.faults = [];
      s.workers = [{ id: 'A', startMs: 0, steps: [{ do: 'acquire' }, { do: 'work', ms: 12_000 }, { do: 'release' }] }];
      s.invariants = [{ kind: 'mutualExclusion' }];
    });
    expect(narration(r, 'A', 'revoke fails')).toBe(`A's revoke fails: lease ${LEASE_A} no longer exists (it ran out, nothing kept it alive), and locks/export went with it. A's client checks the reply and fails the job: it had lost the lock.`);
    expect(r.events.at(-1)?.narration).toBe('A is done: the job failed.');
  });
});
