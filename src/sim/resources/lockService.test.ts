// The etcd model (lockService.ts): the revision counter, leases and their TTL, the acquire
// transaction, and what etcdctl prints. The fidelity suite checks the same rules against a real
// etcd 3.4 (fidelity/etcd.ts).
import { describe, expect, it } from 'vitest';
import { ETCD_LEASE_NOT_FOUND, ETCD_MIN_LEASE_TTL_S, EtcdLockService, etcdctlArgs, etcdError, ETCD_TIMEOUT_MESSAGE, renderEtcd, renderEtcdReply, ttlSecondsOf, type EtcdCmd, type EtcdReply } from './lockService';

const run = (s: EtcdLockService, nowMs: number, cmd: EtcdCmd, caller = 'A'): EtcdReply => s.execute(nowMs, caller, cmd).reply;
const grant = (s: EtcdLockService, nowMs: number, ttlS: number, caller = 'A'): string => {
  const r = run(s, nowMs, { op: 'leaseGrant', ttlS }, caller);
  if (r.op !== 'leaseGrant') throw new Error(`grant failed: ${JSON.stringify(r)}`);
  return r.id;
};
const acquire = (key: string, value: string, lease: string): EtcdCmd => ({ op: 'txnAcquire', key, value, lease });

describe('the etcd lock service model', () => {
  it('a fresh store is at revision 1; a grant and a keep-alive do not move it, a put does', () => {
    const s = new EtcdLockService();
    expect(s.revision).toBe(1);
    const id = grant(s, 0, 10);
    expect(s.revision).toBe(1);
    expect(run(s, 100, { op: 'leaseKeepAlive', id })).toEqual({ op: 'leaseKeepAlive', revision: 1, id, ttlS: 10 });
    expect(run(s, 200, acquire('lock', 'a1', id))).toEqual({ op: 'txnAcquire', revision: 2, succeeded: true, kv: null });
    expect(s.kv(200, 'lock')).toEqual({ key: 'lock', value: 'a1', createRevision: 2, modRevision: 2, version: 1, lease: id });
  });

  it('the acquire transaction: a held key fails the compare and returns the holder, changing nothing', () => {
    const s = new EtcdLockService(32);
    const a = grant(s, 0, 10, 'A');
    const b = grant(s, 0, 10, 'B');
    expect(run(s, 0, acquire('lock', 'a1', a))).toMatchObject({ succeeded: true, revision: 33 });
    expect(run(s, 10, acquire('lock', 'b1', b), 'B')).toEqual({ op: 'txnAcquire', revision: 33, succeeded: false, kv: { key: 'lock', value: 'a1', createRevision: 33, modRevision: 33, version: 1, lease: a } });
    expect(s.revision).toBe(33);
  });

  it('a later grant of the lock always carries a higher revision (the fencing token only grows)', () => {
    const s = new EtcdLockService();
    const tokens: number[] = [];
    for (let i = 0; i < 5; i++) {
      const id = grant(s, i * 100, 10);
      const r = run(s, i * 100, acquire('lock', `v${i}`, id));
      if (r.op === 'txnAcquire' && r.succeeded) tokens.push(r.revision);
      // Released by revoking its lease: the key goes with it, in one more revision.
      expect(run(s, i * 100 + 50, { op: 'leaseRevoke', id })).toMatchObject({ op: 'leaseRevoke', deleted: ['lock'] });
    }
    expect(tokens).toEqual([2, 4, 6, 8, 10]);
  });

  it('a TTL below etcd\'s minimum is raised to it (2 s with the default election timeout)', () => {
    const s = new EtcdLockService();
    expect(ETCD_MIN_LEASE_TTL_S).toBe(2);
    const r = run(s, 0, { op: 'leaseGrant', ttlS: 1 });
    expect(r).toMatchObject({ op: 'leaseGrant', ttlS: 2 });
    expect(renderEtcdReply(r)).toMatch(/^lease [0-9a-f]{16} granted with TTL\(2s\)$/);
    expect(() => run(s, 0, { op: 'leaseGrant', ttlS: 1.5 })).toThrow(/whole number of seconds/);
  });

  it('a lease runs out its TTL after its grant or last keep-alive: etcd revokes it and deletes its key (one revision)', () => {
    const s = new EtcdLockService();
    const id = grant(s, 0, 10);
    run(s, 0, acquire('lock', 'a1', id));
    expect(s.nextWakeMs()).toBe(10_000);
    run(s, 6_000, { op: 'leaseKeepAlive', id });
    expect(s.nextWakeMs()).toBe(16_000);
    expect(s.wake(15_999)).toEqual([]);
    expect(s.kv(15_999, 'lock')).not.toBeNull();
    const notices = s.wake(16_000);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ actor: 'etcd', kind: 'expiry', data: { t: 'lease', op: 'expired', key: 'lock' } });
    expect(notices[0]!.narration).toContain('deletes lock (revision 3)');
    expect(s.revision).toBe(3);
    expect(s.hasLease(16_000, id)).toBe(false);
    expect(run(s, 16_000, { op: 'leaseKeepAlive', id })).toEqual(etcdError('leaseKeepAlive', ETCD_LEASE_NOT_FOUND));
    expect(run(s, 16_000, { op: 'leaseRevoke', id })).toEqual(etcdError('leaseRevoke', ETCD_LEASE_NOT_FOUND));
  });

  it('an expiry a request meets first is still reported by the next wake-up, and the lease\'s keyless expiry changes no revision', () => {
    const s = new EtcdLockService();
    const id = grant(s, 0, 2);
    expect(run(s, 2_000, { op: 'get', key: 'lock' })).toEqual({ op: 'get', revision: 1, kv: null });
    const notices = s.wake(2_000);
    expect(notices.map((n) => n.narration)).toEqual([`Lease ${id} (A's) was not kept alive for its TTL of 2 s: etcd revokes it. No key was attached to it, so nothing is deleted.`]);
    expect(s.revision).toBe(1);
  });

  it('a put naming a lease that is gone is refused, but only when the compare lets the put run', () => {
    const s = new EtcdLockService();
    const a = grant(s, 0, 10);
    const gone = grant(s, 0, 10, 'B');
    run(s, 0, { op: 'leaseRevoke', id: gone }, 'B');
    // Key held: the failure branch (get) runs and never looks at the lease.
    run(s, 0, acquire('lock', 'a1', a));
    expect(run(s, 1, acquire('lock', 'b1', gone), 'B')).toMatchObject({ op: 'txnAcquire', succeeded: false });
    // Key free: the put runs, and its lease is not found.
    run(s, 2, { op: 'leaseRevoke', id: a });
    const rev = s.revision;
    expect(run(s, 3, acquire('lock', 'b1', gone), 'B')).toEqual(etcdError('txnAcquire', ETCD_LEASE_NOT_FOUND));
    expect(s.revision).toBe(rev);
  });

  it('del deletes whoever\'s key it is (one revision) and detaches it from its lease; a revoke then deletes nothing', () => {
    const s = new EtcdLockService();
    const a = grant(s, 0, 10);
    run(s, 0, acquire('lock', 'a1', a));
    expect(run(s, 1, { op: 'del', key: 'lock' }, 'operator')).toEqual({ op: 'del', revision: 3, deleted: 1 });
    expect(run(s, 2, { op: 'del', key: 'lock' }, 'operator')).toEqual({ op: 'del', revision: 3, deleted: 0 });
    const b = grant(s, 3, 10, 'B');
    run(s, 3, acquire('lock', 'b1', b), 'B');
    // A keeps its lease alive (it cannot tell its key is gone) and revokes it: B's key stays.
    expect(run(s, 4, { op: 'leaseKeepAlive', id: a })).toMatchObject({ op: 'leaseKeepAlive', ttlS: 10 });
    expect(run(s, 5, { op: 'leaseRevoke', id: a })).toEqual({ op: 'leaseRevoke', revision: 4, id: a, deleted: [] });
    expect(s.kv(5, 'lock')).toMatchObject({ value: 'b1', createRevision: 4 });
  });

  it('forceExpire ends the lease the key is attached to, as if its TTL had passed', () => {
    const s = new EtcdLockService(10);
    const a = grant(s, 0, 30);
    run(s, 0, acquire('lock', 'a1', a));
    expect(s.forceExpire(100, 'nokey')).toBeNull();
    expect(s.forceExpire(100, 'lock')).toMatchObject({ data: { op: 'expired', key: 'lock' } });
    expect(s.kv(100, 'lock')).toBeNull();
    expect(s.revision).toBe(12);
    expect(s.hasLease(100, a)).toBe(false);
  });

  it('lease ids look like etcd\'s (16 hex digits, consecutive ones two apart) and are the same in every run', () => {
    const ids = (): string[] => {
      const s = new EtcdLockService();
      return [grant(s, 0, 5), grant(s, 0, 5), grant(s, 0, 5)];
    };
    expect(ids()).toEqual(['694d71ddacfda227', '694d71ddacfda229', '694d71ddacfda22b']);
    expect(ids()).toEqual(ids());
  });

  it('time never goes backwards', () => {
    const s = new EtcdLockService();
    run(s, 100, { op: 'get', key: 'k' });
    expect(() => run(s, 99, { op: 'get', key: 'k' })).toThrow(RangeError);
    expect(() => new EtcdLockService(0)).toThrow(RangeError);
  });

  it('renders the literal etcdctl lines and etcdctl\'s output on one line', () => {
    const id = '694d71ddacfda227';
    expect(renderEtcd({ op: 'leaseGrant', ttlS: 10 })).toBe('etcdctl lease grant 10');
    expect(renderEtcd({ op: 'leaseKeepAlive', id })).toBe(`etcdctl lease keep-alive --once ${id}`);
    expect(renderEtcd({ op: 'leaseRevoke', id })).toBe(`etcdctl lease revoke ${id}`);
    expect(renderEtcd({ op: 'del', key: 'locks/export' })).toBe('etcdctl del locks/export');
    expect(renderEtcd(acquire('locks/export', 'e01d', id))).toBe(`etcdctl txn <<< $'create("locks/export") = "0"\\n\\nput locks/export e01d --lease=${id}\\n\\nget locks/export\\n'`);
    // etcdctl 3.4 needs the last block ended by a blank line (else `Error: EOF`); bash's here-string adds the last newline.
    expect(etcdctlArgs(acquire('k', 'v', id))).toEqual({ args: ['txn'], stdin: `create("k") = "0"\n\nput k v --lease=${id}\n\nget k\n\n` });
    expect(renderEtcdReply({ op: 'leaseGrant', revision: 1, id, ttlS: 10 })).toBe(`lease ${id} granted with TTL(10s)`);
    expect(renderEtcdReply({ op: 'leaseKeepAlive', revision: 1, id, ttlS: 10 })).toBe(`lease ${id} keepalived with TTL(10)`);
    expect(renderEtcdReply({ op: 'leaseRevoke', revision: 1, id, deleted: [] })).toBe(`lease ${id} revoked`);
    expect(renderEtcdReply({ op: 'txnAcquire', revision: 2, succeeded: true, kv: null })).toBe('SUCCESS | OK');
    expect(renderEtcdReply({ op: 'txnAcquire', revision: 2, succeeded: false, kv: { key: 'k', value: 'v', createRevision: 2, modRevision: 2, version: 1, lease: id } })).toBe('FAILURE | k | v');
    expect(renderEtcdReply({ op: 'del', revision: 3, deleted: 1 })).toBe('1');
    expect(renderEtcdReply({ op: 'get', revision: 3, kv: null })).toBe('(no output)');
    expect(renderEtcdReply(etcdError('leaseRevoke', ETCD_LEASE_NOT_FOUND))).toBe('Error: failed to revoke lease (etcdserver: requested lease not found)');
    expect(renderEtcdReply(etcdError('leaseKeepAlive', ETCD_LEASE_NOT_FOUND))).toBe('Error: etcdserver: requested lease not found');
    // Cut off: what etcdctl prints when its command timeout runs out; txn and keep-alive --once have none (a client library's own timeout).
    expect(renderEtcdReply(etcdError('leaseRevoke', ETCD_TIMEOUT_MESSAGE))).toBe('Error: failed to revoke lease (context deadline exceeded)');
    expect(renderEtcdReply(etcdError('leaseGrant', ETCD_TIMEOUT_MESSAGE))).toBe('Error: failed to grant lease (context deadline exceeded)');
    expect(renderEtcdReply(etcdError('del', ETCD_TIMEOUT_MESSAGE))).toBe('Error: context deadline exceeded');
    expect(renderEtcdReply(etcdError('txnAcquire', ETCD_TIMEOUT_MESSAGE))).toBe('(no reply: connection timed out)');
    expect(renderEtcdReply(etcdError('leaseKeepAlive', ETCD_TIMEOUT_MESSAGE))).toBe('(no reply: connection timed out)');
  });

  it('the snapshot shows live keys with their lease\'s expiry, and live leases', () => {
    const s = new EtcdLockService();
    const a = grant(s, 0, 10, 'A');
    grant(s, 0, 3, 'B');
    run(s, 0, acquire('lock', 'a1', a));
    expect(s.snapshot(1_000)).toEqual({
      revision: 2,
      keys: [{ key: 'lock', value: 'a1', createRevision: 2, modRevision: 2, version: 1, lease: a, expiresAtMs: 10_000 }],
      leases: [{ id: a, grantedTo: 'A', ttlS: 10, expiresAtMs: 10_000, keys: ['lock'] }, { id: '694d71ddacfda229', grantedTo: 'B', ttlS: 3, expiresAtMs: 3_000, keys: [] }],
    });
    expect(s.snapshot(3_000).leases.map((l) => l.grantedTo)).toEqual(['A']);
  });

  it('the argv of every request, and a get\'s line and output', () => {
    const id = '694d71ddacfda227';
    expect(etcdctlArgs({ op: 'leaseGrant', ttlS: 10 })).toEqual({ args: ['lease', 'grant', '10'] });
    expect(etcdctlArgs({ op: 'leaseKeepAlive', id })).toEqual({ args: ['lease', 'keep-alive', '--once', id] });
    expect(etcdctlArgs({ op: 'leaseRevoke', id })).toEqual({ args: ['lease', 'revoke', id] });
    expect(etcdctlArgs({ op: 'del', key: 'locks/export' })).toEqual({ args: ['del', 'locks/export'] });
    expect(etcdctlArgs({ op: 'get', key: 'locks/export' })).toEqual({ args: ['get', 'locks/export'] });
    expect(renderEtcd({ op: 'get', key: 'locks/export' })).toBe('etcdctl get locks/export');
    expect(renderEtcdReply({ op: 'get', revision: 3, kv: { key: 'locks/export', value: 'e01d', createRevision: 2, modRevision: 2, version: 1, lease: id } })).toBe('locks/export | e01d');
    expect(renderEtcdReply({ op: 'txnAcquire', revision: 2, succeeded: false, kv: null })).toBe('FAILURE');
    expect(renderEtcdReply(etcdError('get', 'etcdserver: too many requests'))).toBe('Error: etcdserver: too many requests');
    // An error that is not the cut-off one prints its line even for a transaction.
    expect(renderEtcdReply(etcdError('txnAcquire', ETCD_LEASE_NOT_FOUND))).toBe('Error: etcdserver: requested lease not found');
  });

  it('a TTL in whole seconds: rounded up, at least 1', () => {
    expect([0, 1, 999, 1000, 1001, 30_000].map(ttlSecondsOf)).toEqual([1, 1, 1, 1, 2, 30]);
  });

  it('a grant whose TTL is not a whole number of seconds ≥ 1 is refused; so is a time that is not a whole millisecond', () => {
    const s = new EtcdLockService();
    expect(() => run(s, 0, { op: 'leaseGrant', ttlS: 0 })).toThrow(/whole number of seconds ≥ 1, got 0/);
    expect(() => run(s, 0, { op: 'leaseGrant', ttlS: 1.5 })).toThrow(RangeError);
    expect(() => run(s, 0.5, { op: 'get', key: 'k' })).toThrow(/nowMs must be an integer/);
    expect(() => new EtcdLockService(1.5)).toThrow(/startRevision must be an integer ≥ 1, got 1.5/);
    expect(new EtcdLockService(32).revision).toBe(32);
  });

  it('leases that run out together are revoked in order of expiry, then of id, each deleting its own key', () => {
    const s = new EtcdLockService();
    const a = grant(s, 0, 10, 'A');
    const b = grant(s, 0, 5, 'B');
    const c = grant(s, 0, 5, 'C');
    run(s, 0, acquire('ka', 'a', a));
    run(s, 0, acquire('kc', 'c', c));
    run(s, 0, acquire('kb', 'b', b), 'B');
    expect(s.wake(20_000).map((n) => n.narration.slice(0, n.narration.indexOf(':')))).toEqual([
      `Lease ${b} (B's) was not kept alive for its TTL of 5 s`,
      `Lease ${c} (C's) was not kept alive for its TTL of 5 s`,
      `Lease ${a} (A's) was not kept alive for its TTL of 10 s`,
    ]);
    expect(s.wake(20_000)).toEqual([]);
    expect(s.revision).toBe(7);
  });

  it('the next wake-up is the earliest expiry, never before the last time seen, and none without leases', () => {
    const s = new EtcdLockService();
    expect(s.nextWakeMs()).toBeNull();
    const early = new EtcdLockService();
    grant(early, 0, 5);
    grant(early, 0, 10);
    expect(early.nextWakeMs()).toBe(5_000);
    const a = grant(s, 0, 10);
    grant(s, 0, 5);
    expect(s.nextWakeMs()).toBe(5_000);
    run(s, 4_000, { op: 'leaseKeepAlive', id: a });
    expect(s.nextWakeMs()).toBe(5_000);
    s.wake(6_000);
    expect(s.nextWakeMs()).toBe(14_000);
    s.wake(20_000);
    expect(s.nextWakeMs()).toBeNull();
  });

  it('the snapshot lists keys by name and leases by id, each lease\'s keys sorted, and leaves out keys of a lease that ran out', () => {
    const s = new EtcdLockService();
    const a = grant(s, 0, 10, 'A');
    const b = grant(s, 0, 3, 'B');
    run(s, 0, acquire('z/lock', 'a1', a));
    run(s, 0, acquire('a/lock', 'a2', a));
    run(s, 0, acquire('m/lock', 'b1', b), 'B');
    const now = s.snapshot(1_000);
    expect(now.keys.map((k) => k.key)).toEqual(['a/lock', 'm/lock', 'z/lock']);
    expect(now.leases.map((l) => [l.id, l.keys])).toEqual([[a, ['a/lock', 'z/lock']], [b, ['m/lock']]]);
    expect(s.snapshot(3_000).keys.map((k) => k.key)).toEqual(['a/lock', 'z/lock']);
    // A revoke deletes its keys in name order, in one revision.
    expect(run(s, 4_000, { op: 'leaseRevoke', id: a })).toMatchObject({ op: 'leaseRevoke', deleted: ['a/lock', 'z/lock'] });
  });
});
