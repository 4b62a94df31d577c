// The etcd model's surface that lockService.test.ts leaves open: its registry and trace names,
// lease ids past the low digits' wrap, the texts of its RangeError and of both expiry notices (a TTL
// that ran out, the `expireLease` fault), the Resource methods (never waits, renders like
// etcdctl), the snapshot's key order and the earliest expiry whatever the grant order.
import { describe, expect, it } from 'vitest';
import { EtcdLockService, renderEtcd, renderEtcdReply, type EtcdCmd, type EtcdReply } from './lockService';

const run = (s: EtcdLockService, nowMs: number, cmd: EtcdCmd, caller = 'A'): EtcdReply => s.execute(nowMs, caller, cmd).reply;
const grant = (s: EtcdLockService, nowMs: number, ttlS: number, caller = 'A'): string => {
  const r = run(s, nowMs, { op: 'leaseGrant', ttlS }, caller);
  if (r.op !== 'leaseGrant') throw new Error(`grant failed: ${JSON.stringify(r)}`);
  return r.id;
};

describe('the etcd lock service as a Resource', () => {
  it('is registered and traced as etcd, never makes a request wait, and renders commands and replies as etcdctl does', () => {
    const s = new EtcdLockService();
    expect(s.name).toBe('etcd');
    expect(s.traceKind).toBe('etcd');
    expect(s.waits()).toBe(false);
    const cmd: EtcdCmd = { op: 'leaseRevoke', id: '694d71ddacfda227' };
    expect(s.renderCommand(cmd)).toBe('etcdctl lease revoke 694d71ddacfda227');
    expect(s.renderCommand(cmd)).toBe(renderEtcd(cmd));
    const reply = run(s, 0, { op: 'leaseGrant', ttlS: 10 });
    expect(s.renderReply(reply)).toBe('lease 694d71ddacfda227 granted with TTL(10s)');
    expect(s.renderReply(reply)).toBe(renderEtcdReply(reply));
  });

  it('a lease id keeps its 16 hex digits when its low digits wrap round (zero-padded)', () => {
    const s = new EtcdLockService();
    // (0xda227 + 2·n) mod 0x100000 is 1 for n = 77549: the id's last five digits are 00001.
    let id = '';
    for (let n = 0; n <= 77_549; n++) {
      id = grant(s, 0, 5);
      run(s, 0, { op: 'leaseRevoke', id });
    }
    expect(id).toBe('694d71ddacf00001');
  });

  it('time going backwards is refused with both times in the message', () => {
    const s = new EtcdLockService();
    run(s, 100, { op: 'get', key: 'k' });
    expect(() => run(s, 99, { op: 'get', key: 'k' })).toThrow('EtcdLockService: time went backwards (nowMs 99 after 100)');
  });
});

describe('expiry notices', () => {
  it('a keyless lease that ran out: an etcd expiry notice with no data', () => {
    const s = new EtcdLockService();
    const id = grant(s, 0, 2, 'W1');
    expect(s.wake(2_000)).toEqual([
      { actor: 'etcd', kind: 'expiry', narration: `Lease ${id} (W1's) was not kept alive for its TTL of 2 s: etcd revokes it. No key was attached to it, so nothing is deleted.` },
    ]);
  });

  it('a lease with a key that ran out: the whole narration names the TTL, the key and the revision', () => {
    const s = new EtcdLockService();
    const id = grant(s, 0, 10, 'W1');
    run(s, 0, { op: 'txnAcquire', key: 'lock', value: 'a1', lease: id }, 'W1');
    expect(s.wake(10_000)).toEqual([
      {
        actor: 'etcd',
        kind: 'expiry',
        narration: `Lease ${id} (W1's) was not kept alive for its TTL of 10 s: etcd revokes it and deletes lock (revision 3). Whoever believes they hold the lock no longer does, and anyone may take it.`,
        data: { t: 'lease', op: 'expired', key: 'lock' },
      },
    ]);
  });

  it('a lease with two keys that ran out: both deleted, named in order, separated by a comma', () => {
    const s = new EtcdLockService();
    const id = grant(s, 0, 10, 'W1');
    run(s, 0, { op: 'txnAcquire', key: 'locks/b', value: 'v', lease: id }, 'W1');
    run(s, 0, { op: 'txnAcquire', key: 'locks/a', value: 'v', lease: id }, 'W1');
    expect(s.wake(10_000).map((n) => n.narration)).toEqual([
      `Lease ${id} (W1's) was not kept alive for its TTL of 10 s: etcd revokes it and deletes locks/a, locks/b (revision 4). Whoever believes they hold the lock no longer does, and anyone may take it.`,
    ]);
  });

  it('forceExpire (the expireLease fault) says the lease runs out now', () => {
    const s = new EtcdLockService();
    const id = grant(s, 0, 30, 'W1');
    run(s, 0, { op: 'txnAcquire', key: 'lock', value: 'a1', lease: id }, 'W1');
    expect(s.forceExpire(100, 'lock')?.narration).toBe(
      `Lease ${id} (W1's) runs out now: etcd revokes it and deletes lock (revision 3). Whoever believes they hold the lock no longer does, and anyone may take it.`,
    );
  });
});

describe('snapshot and next wake-up', () => {
  it('keys are listed by name whatever order they were put in', () => {
    const orders = [['d', 'c', 'b', 'a'], ['b', 'd', 'a', 'c'], ['c', 'a', 'd', 'b'], ['a', 'c', 'b', 'd']];
    for (const order of orders) {
      const s = new EtcdLockService();
      const id = grant(s, 0, 10);
      for (const k of order) run(s, 0, { op: 'txnAcquire', key: k, value: 'v', lease: id });
      expect(s.snapshot(0).keys.map((k) => k.key)).toEqual(['a', 'b', 'c', 'd']);
    }
  });

  it('the next wake-up is the earliest expiry even when a later-expiring lease was granted after it', () => {
    const s = new EtcdLockService();
    grant(s, 0, 5);
    grant(s, 0, 10);
    grant(s, 0, 7);
    expect(s.nextWakeMs()).toBe(5_000);
  });
});
