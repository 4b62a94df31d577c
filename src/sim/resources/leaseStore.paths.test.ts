// LeaseStore paths leaseStore.test.ts leaves open: INCR of values Redis refuses to parse, the
// compare-and-extend script's overflow error, PEXPIRE 0 replicated as a delete, the failover's
// list of changed keys at the primary's expiry boundary and under a jumped clock, the replica
// dropping keys that expired, and snapshots that share nothing with the store. Replies were
// checked with redis-cli against redis-server 7.0.15.
import { describe, expect, it } from 'vitest';
import { LeaseStore } from './leaseStore';
import type { RedisReply } from './redisTypes';

const error = (message: string): RedisReply => ({ kind: 'error', message });
const K = 'lease:export';

describe('replies as Redis 7.0', () => {
  it.each(['abc', '007', '1.5', ' 1', '+1', '-0'])('INCR of the value %j: ERR value is not an integer or out of range', (value) => {
    const s = new LeaseStore();
    s.execute(0, { op: 'SET', key: K, value });
    expect(s.execute(0, { op: 'INCR', key: K })).toEqual(error('ERR value is not an integer or out of range'));
  });

  it('the compare-and-extend script past int64 fails as a script error naming pexpire (redis-cli: ERR invalid expire time in \'pexpire\' command script: 36e9…, on @user_script:1.)', () => {
    const s = new LeaseStore();
    s.execute(0, { op: 'SET', key: K, value: 'tok' });
    expect(s.execute(0, { op: 'COMPARE_AND_EXTEND', key: K, token: 'tok', ms: 9223372036854775000 })).toEqual(
      error("ERR invalid expire time in 'pexpire' command script: 36e94d1c6e02fcefaa7ee5d79eee614dbac55f10, on @user_script:1."),
    );
  });
});

describe('replication and failover', () => {
  it('PEXPIRE 0 deletes the key (reply 1, then GET nil) and the replica learns of the delete, even with a jumped primary clock', () => {
    const s = new LeaseStore();
    s.execute(0, { op: 'SET', key: K, value: 'v' });
    s.clockJump(5, 1_000);
    expect(s.execute(10, { op: 'PEXPIRE', key: K, ms: 0 })).toEqual({ kind: 'int', value: 1 });
    expect(s.entries(10)).toEqual([]);
    s.failover(20);
    expect(s.execute(20, { op: 'GET', key: K })).toEqual({ kind: 'nil' });
  });

  it('a key whose TTL ran out on the primary exactly at the failover is not listed as changed when the replica never had it', () => {
    const s = new LeaseStore({ replicationLagMs: 1_000 });
    s.execute(0, { op: 'SET', key: K, value: 'v', pxMs: 100 });
    expect(s.failover(100)).toEqual([]);
  });

  it('a key the jumped primary clock has expired is not listed as changed either', () => {
    const s = new LeaseStore({ replicationLagMs: 5_000 });
    s.execute(0, { op: 'SET', key: K, value: 'v', pxMs: 1_000 });
    s.execute(0, { op: 'SET', key: 'other', value: 'w' });
    expect(s.clockJump(1, 500)).toEqual([]);
    expect(s.failover(600)).toEqual(['other']);
  });

  it('the replica drops a key once its TTL has run out (by the replica\'s clock)', () => {
    const s = new LeaseStore();
    s.execute(0, { op: 'SET', key: K, value: 'v', pxMs: 100 });
    s.execute(99, { op: 'GET', key: 'x' });
    expect(s.snapshot().replicaKeys).toEqual([{ key: K, value: 'v', expiresAtServerMs: 100 }]);
    s.execute(100, { op: 'GET', key: 'x' });
    expect(s.snapshot().replicaKeys).toEqual([]);
  });
});

describe('snapshots are deep copies', () => {
  it('changing a snapshot changes neither the store nor a store rebuilt from it', () => {
    const s = new LeaseStore({ replicationLagMs: 1_000 });
    s.execute(0, { op: 'SET', key: K, value: 'v' });
    const snap = s.snapshot();
    const rebuilt = LeaseStore.fromSnapshot(snap);
    const pending = snap.pendingWrites[0]!.state! as { value: string };
    pending.value = 'changed';
    expect(s.snapshot().pendingWrites).toEqual([{ atMs: 0, key: K, state: { value: 'v', expiresAtServerMs: null } }]);
    expect(rebuilt.snapshot().pendingWrites).toEqual([{ atMs: 0, key: K, state: { value: 'v', expiresAtServerMs: null } }]);
  });

  it('a snapshot of another version is refused by name', () => {
    const snap = { ...new LeaseStore().snapshot(), version: 2 } as unknown as ReturnType<LeaseStore['snapshot']>;
    expect(() => LeaseStore.fromSnapshot(snap)).toThrow('LeaseStore.fromSnapshot: unsupported snapshot version 2');
  });
});
