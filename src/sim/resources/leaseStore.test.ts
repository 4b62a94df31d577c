// Tests for the simulated Redis lease store and the redis-cli rendering of its commands/replies.
// Expected replies were checked against redis-server 7.0.15 / redis-cli --no-raw (Debian).
import { createHash } from 'node:crypto';
import { LeaseStore } from './leaseStore';
import {
  COMPARE_AND_DELETE_SCRIPT,
  COMPARE_AND_EXTEND_SCRIPT,
  redisArgv,
  renderRedis,
  renderRedisReply,
  type RedisCmd,
  type RedisReply,
} from './redisTypes';

const OK: RedisReply = { kind: 'ok' };
const NIL: RedisReply = { kind: 'nil' };
const int = (value: number): RedisReply => ({ kind: 'int', value });
const bulk = (value: string): RedisReply => ({ kind: 'bulk', value });
const error = (message: string): RedisReply => ({ kind: 'error', message });
const NOT_INT = error('ERR value is not an integer or out of range');

const K = 'lease:export';
const acquire = (token: string, pxMs = 30000): RedisCmd => ({ op: 'SET', key: K, value: token, nx: true, pxMs });
const cad = (token: string): RedisCmd => ({ op: 'COMPARE_AND_DELETE', key: K, token });
const cae = (token: string, ms = 30000): RedisCmd => ({ op: 'COMPARE_AND_EXTEND', key: K, token, ms });
const get: RedisCmd = { op: 'GET', key: K };
const pttl: RedisCmd = { op: 'PTTL', key: K };
const del: RedisCmd = { op: 'DEL', keys: [K] };

/** Runs `setup` at t = 0, then `cmd` at `atMs`, on a fresh store. */
function replyAfter(setup: readonly RedisCmd[], cmd: RedisCmd, atMs = 0): RedisReply {
  const store = new LeaseStore();
  for (const c of setup) store.execute(0, c);
  return store.execute(atMs, cmd);
}

describe('replies (table-driven, as Redis 7.0)', () => {
  const permanent: RedisCmd = { op: 'SET', key: K, value: '7f3a' };
  const held = acquire('7f3a');
  const cases: [string, readonly RedisCmd[], RedisCmd, RedisReply, number?][] = [
    // SET
    ['SET NX on a missing key', [], acquire('7f3a'), OK],
    ['SET NX on a live key', [held], acquire('b2c1'), NIL, 29999],
    ['SET NX once the key expired', [held], acquire('b2c1'), OK, 30000],
    ['SET XX on a missing key', [], { op: 'SET', key: K, value: 'v', xx: true }, NIL],
    ['SET XX on a live key', [held], { op: 'SET', key: K, value: 'v', xx: true }, OK],
    ['SET plain overwrites', [held], { op: 'SET', key: K, value: 'v' }, OK],
    ['SET PX 0', [], { op: 'SET', key: K, value: 'v', pxMs: 0 }, error("ERR invalid expire time in 'set' command")],
    ['SET PX -5', [], { op: 'SET', key: K, value: 'v', pxMs: -5 }, error("ERR invalid expire time in 'set' command")],
    ['SET PX 1.5', [], { op: 'SET', key: K, value: 'v', pxMs: 1.5 }, NOT_INT],
    ['SET PX NaN', [], { op: 'SET', key: K, value: 'v', pxMs: Number.NaN }, NOT_INT],
    ['SET PX overflow', [], { op: 'SET', key: K, value: 'v', pxMs: 9223372036854775000 }, error("ERR invalid expire time in 'set' command")],
    ['SET NX XX', [], { op: 'SET', key: K, value: 'v', nx: true, xx: true }, error('ERR syntax error')],
    ['SET PX KEEPTTL', [], { op: 'SET', key: K, value: 'v', pxMs: 100, keepTtl: true }, error('ERR syntax error')],
    ['SET syntax error wins over bad PX', [], { op: 'SET', key: K, value: 'v', nx: true, xx: true, pxMs: 0 }, error('ERR syntax error')],
    // GET
    ['GET a live key', [held], get, bulk('7f3a'), 29999],
    ['GET a missing key', [], get, NIL],
    ['GET at the expiry millisecond (model: expired)', [held], get, NIL, 30000],
    // DEL
    ['DEL one live key', [held], del, int(1)],
    ['DEL a missing key', [], del, int(0)],
    ['DEL an expired key', [held], del, int(0), 30000],
    ['DEL the same key twice', [held], { op: 'DEL', keys: [K, K] }, int(1)],
    ['DEL two keys', [held, { op: 'SET', key: 'b', value: '1' }], { op: 'DEL', keys: [K, 'b', 'c'] }, int(2)],
    ['DEL with no keys', [], { op: 'DEL', keys: [] }, error("ERR wrong number of arguments for 'del' command")],
    // PEXPIRE
    ['PEXPIRE a live key', [held], { op: 'PEXPIRE', key: K, ms: 60000 }, int(1)],
    ['PEXPIRE a missing key', [], { op: 'PEXPIRE', key: K, ms: 60000 }, int(0)],
    ['PEXPIRE a missing key, negative ms', [], { op: 'PEXPIRE', key: K, ms: -1 }, int(0)],
    ['PEXPIRE 0 deletes and replies 1', [held], { op: 'PEXPIRE', key: K, ms: 0 }, int(1)],
    ['PEXPIRE 1.5', [held], { op: 'PEXPIRE', key: K, ms: 1.5 }, NOT_INT],
    ['PEXPIRE 1.5 on a missing key (validated first)', [], { op: 'PEXPIRE', key: K, ms: 1.5 }, NOT_INT],
    ['PEXPIRE overflow', [held], { op: 'PEXPIRE', key: K, ms: 9223372036854775000 }, error("ERR invalid expire time in 'pexpire' command")],
    // PTTL
    ['PTTL missing', [], pttl, int(-2)],
    ['PTTL without TTL', [permanent], pttl, int(-1)],
    ['PTTL with TTL', [held], pttl, int(20000), 10000],
    ['PTTL one ms before expiry', [held], pttl, int(1), 29999],
    ['PTTL at expiry', [held], pttl, int(-2), 30000],
    // INCR
    ['INCR missing', [], { op: 'INCR', key: 'fence' }, int(1)],
    ['INCR an integer', [{ op: 'SET', key: 'fence', value: '33' }], { op: 'INCR', key: 'fence' }, int(34)],
    ['INCR a negative', [{ op: 'SET', key: 'fence', value: '-1' }], { op: 'INCR', key: 'fence' }, int(0)],
    ['INCR a token', [held], { op: 'INCR', key: K }, NOT_INT],
    ['INCR "01"', [{ op: 'SET', key: 'f', value: '01' }], { op: 'INCR', key: 'f' }, NOT_INT],
    ['INCR "-0"', [{ op: 'SET', key: 'f', value: '-0' }], { op: 'INCR', key: 'f' }, NOT_INT],
    ['INCR " 1"', [{ op: 'SET', key: 'f', value: ' 1' }], { op: 'INCR', key: 'f' }, NOT_INT],
    ['INCR "+1"', [{ op: 'SET', key: 'f', value: '+1' }], { op: 'INCR', key: 'f' }, NOT_INT],
    ['INCR ""', [{ op: 'SET', key: 'f', value: '' }], { op: 'INCR', key: 'f' }, NOT_INT],
    ['INCR beyond int64', [{ op: 'SET', key: 'f', value: '9223372036854775808' }], { op: 'INCR', key: 'f' }, NOT_INT],
    ['INCR int64 max', [{ op: 'SET', key: 'f', value: '9223372036854775807' }], { op: 'INCR', key: 'f' }, error('ERR increment or decrement would overflow')],
    // compare-and-delete script
    ['CAD with my token', [held], cad('7f3a'), int(1)],
    ['CAD with another token', [held], cad('b2c1'), int(0)],
    ['CAD on a missing key', [], cad('7f3a'), int(0)],
    ['CAD after expiry', [held], cad('7f3a'), int(0), 30000],
    // compare-and-extend script
    ['CAE with my token', [held], cae('7f3a'), int(1), 29999],
    ['CAE with another token', [held], cae('b2c1'), int(0)],
    ['CAE on a missing key', [], cae('7f3a'), int(0)],
    ['CAE after expiry', [held], cae('7f3a'), int(0), 30000],
    ['CAE with my token, ms 0 (deletes)', [held], cae('7f3a', 0), int(1)],
    ['CAE with another token, bad ms (never reaches PEXPIRE)', [held], cae('b2c1', 1.5), int(0)],
    [
      'CAE with my token, bad ms (script error)',
      [held],
      cae('7f3a', 1.5),
      error('ERR value is not an integer or out of range script: 36e94d1c6e02fcefaa7ee5d79eee614dbac55f10, on @user_script:1.'),
    ],
  ];
  it.each(cases)('%s', (_name, setup, cmd, expected, atMs) => {
    expect(replyAfter(setup, cmd, atMs ?? 0)).toEqual(expected);
  });

  it('names the extend script by its real SHA-1 in script errors', () => {
    expect(createHash('sha1').update(COMPARE_AND_EXTEND_SCRIPT).digest('hex')).toBe('36e94d1c6e02fcefaa7ee5d79eee614dbac55f10');
  });
});

describe('TTL effects', () => {
  it('a plain SET discards the TTL: the "renewal with plain SET" makes the lock permanent', () => {
    const s = new LeaseStore();
    s.execute(0, acquire('7f3a'));
    expect(s.execute(10000, pttl)).toEqual(int(20000));
    expect(s.execute(20000, { op: 'SET', key: K, value: '7f3a' })).toEqual(OK);
    expect(s.execute(20000, pttl)).toEqual(int(-1));
    expect(s.expireDue(1_000_000)).toEqual([]);
    expect(s.execute(1_000_000, acquire('b2c1'))).toEqual(NIL);
    expect(s.nextExpiryMs()).toBeNull();
  });

  it('SET XX also discards the TTL; KEEPTTL keeps it; PX replaces it', () => {
    const s = new LeaseStore();
    s.execute(0, acquire('a'));
    s.execute(1000, { op: 'SET', key: K, value: 'b', keepTtl: true });
    expect(s.execute(1000, pttl)).toEqual(int(29000));
    s.execute(2000, { op: 'SET', key: K, value: 'c', pxMs: 5000 });
    expect(s.execute(2000, pttl)).toEqual(int(5000));
    s.execute(3000, { op: 'SET', key: K, value: 'd', xx: true });
    expect(s.execute(3000, pttl)).toEqual(int(-1));
  });

  it('KEEPTTL on a missing key stores it without TTL', () => {
    const s = new LeaseStore();
    s.execute(0, { op: 'SET', key: K, value: 'a', keepTtl: true });
    expect(s.execute(0, pttl)).toEqual(int(-1));
  });

  it('PEXPIRE with a non-positive ms deletes the key', () => {
    const s = new LeaseStore();
    s.execute(0, acquire('a'));
    expect(s.execute(5, { op: 'PEXPIRE', key: K, ms: -100 })).toEqual(int(1));
    expect(s.execute(5, get)).toEqual(NIL);
  });

  it('INCR keeps the TTL of the key it increments', () => {
    const s = new LeaseStore();
    s.execute(0, { op: 'SET', key: 'cnt', value: '5', pxMs: 50000 });
    expect(s.execute(0, { op: 'INCR', key: 'cnt' })).toEqual(int(6));
    expect(s.execute(0, { op: 'PTTL', key: 'cnt' })).toEqual(int(50000));
  });
});

describe('expiry', () => {
  it('expireDue removes keys at expiresAtMs, sorted, and only once', () => {
    const s = new LeaseStore();
    s.execute(0, { op: 'SET', key: 'b', value: '1', pxMs: 100 });
    s.execute(0, { op: 'SET', key: 'a', value: '1', pxMs: 100 });
    s.execute(0, { op: 'SET', key: 'c', value: '1', pxMs: 200 });
    s.execute(0, { op: 'SET', key: 'p', value: '1' });
    expect(s.nextExpiryMs()).toBe(100);
    expect(s.expireDue(99)).toEqual([]);
    expect(s.expireDue(100)).toEqual(['a', 'b']);
    expect(s.expireDue(100)).toEqual([]);
    expect(s.nextExpiryMs()).toBe(200);
    expect(s.expireDue(500)).toEqual(['c']);
    expect(s.nextExpiryMs()).toBeNull();
    expect(s.entries(500).map((e) => e.key)).toEqual(['p']);
  });

  it('lazy expiry: a command touching an expired key sees it missing', () => {
    const s = new LeaseStore();
    s.execute(0, acquire('a', 10));
    expect(s.execute(10, { op: 'PEXPIRE', key: K, ms: 1000 })).toEqual(int(0));
    expect(s.expireDue(10)).toEqual([]); // already removed lazily
  });

  it('nextExpiryMs never points before the last time seen', () => {
    const s = new LeaseStore();
    s.execute(0, acquire('a', 10));
    s.execute(50, { op: 'GET', key: 'other' });
    expect(s.nextExpiryMs()).toBe(50);
    expect(s.expireDue(50)).toEqual([K]);
  });

  it('entries shows value, absolute expiry and remaining TTL without removing anything', () => {
    const s = new LeaseStore();
    s.execute(0, acquire('7f3a'));
    s.execute(0, { op: 'INCR', key: 'fence:export' });
    expect(s.entries(12000)).toEqual([
      { key: 'fence:export', value: '1', expiresAtMs: null, pttlMs: -1 },
      { key: K, value: '7f3a', expiresAtMs: 30000, pttlMs: 18000 },
    ]);
    expect(s.entries(30000).map((e) => e.key)).toEqual(['fence:export']);
    expect(s.expireDue(30000)).toEqual([K]); // entries() did not remove it
  });

  it('forceExpire removes a live key (true) and reports false for a missing one', () => {
    const s = new LeaseStore();
    s.execute(0, acquire('7f3a'));
    expect(s.forceExpire(100, K)).toBe(true);
    expect(s.forceExpire(100, K)).toBe(false);
    expect(s.execute(100, acquire('b2c1'))).toEqual(OK);
    s.execute(100, { op: 'SET', key: 'x', value: '1', pxMs: 10 });
    expect(s.forceExpire(200, 'x')).toBe(false); // already expired: removed, not "forced"
    expect(s.entries(200).map((e) => e.key)).toEqual([K]);
  });
});

describe('virtual time', () => {
  it('throws RangeError when nowMs goes backwards', () => {
    const s = new LeaseStore();
    s.execute(100, get);
    expect(() => s.execute(99, get)).toThrow(RangeError);
    expect(() => s.execute(99, get)).toThrow(/went backwards.*99.*100/);
    expect(() => s.expireDue(50)).toThrow(RangeError);
    expect(() => s.forceExpire(50, K)).toThrow(RangeError);
    expect(() => s.clockJump(50, 10)).toThrow(RangeError);
    expect(() => s.failover(50)).toThrow(RangeError);
    expect(() => s.entries(50)).toThrow(RangeError);
    expect(s.execute(100, get)).toEqual(NIL); // same time is fine
  });

  it('rejects non-integer times and bad options', () => {
    const s = new LeaseStore();
    expect(() => s.execute(1.5, get)).toThrow(RangeError);
    expect(() => s.execute(Number.NaN, get)).toThrow(RangeError);
    expect(() => s.clockJump(0, -1)).toThrow(RangeError);
    expect(() => new LeaseStore({ replicationLagMs: -1 })).toThrow(RangeError);
  });
});

describe('scenarios (semantics.md, "Redis leases")', () => {
  it('unsafe-release: A\'s plain DEL after expiry deletes B\'s lock, and C acquires while B works', () => {
    const s = new LeaseStore();
    expect(s.execute(0, acquire('A'))).toEqual(OK);
    expect(s.expireDue(30000)).toEqual([K]); // A paused past its TTL
    expect(s.execute(31000, acquire('B'))).toEqual(OK);
    expect(s.execute(40000, del)).toEqual(int(1)); // A finishes and "releases"
    expect(s.execute(41000, acquire('C'))).toEqual(OK); // while B still works
    expect(s.execute(41000, get)).toEqual(bulk('C'));
  });

  it('compare-and-delete leaves the successor\'s lock alone', () => {
    const s = new LeaseStore();
    s.execute(0, acquire('A'));
    s.expireDue(30000);
    s.execute(31000, acquire('B'));
    expect(s.execute(40000, cad('A'))).toEqual(int(0));
    expect(s.execute(41000, acquire('C'))).toEqual(NIL);
    expect(s.execute(41000, get)).toEqual(bulk('B'));
    expect(s.execute(42000, cad('B'))).toEqual(int(1));
    expect(s.execute(42000, acquire('C'))).toEqual(OK);
  });

  it('compare-and-extend succeeds while held, fails after expiry and after an owner change', () => {
    const s = new LeaseStore();
    s.execute(0, acquire('A'));
    expect(s.execute(20000, cae('A'))).toEqual(int(1));
    expect(s.execute(20000, pttl)).toEqual(int(30000));
    expect(s.execute(50000, cae('A'))).toEqual(int(0)); // expired at 50000
    expect(s.execute(50000, acquire('B'))).toEqual(OK);
    expect(s.execute(50001, cae('A'))).toEqual(int(0)); // B owns it now
    expect(s.execute(50001, get)).toEqual(bulk('B'));
  });

  it('INCR gives a strictly increasing fencing token', () => {
    const s = new LeaseStore();
    const tokens = [0, 10, 10, 500, 9999].map((t) => s.execute(t, { op: 'INCR', key: 'fence:export' }));
    expect(tokens).toEqual([1, 2, 3, 4, 5].map(int));
  });

  it('failover loses a lock set within the lag window; a second client then takes it', () => {
    const s = new LeaseStore({ replicationLagMs: 500 });
    s.execute(0, { op: 'INCR', key: 'fence:export' }); // replicated long ago
    expect(s.execute(1000, acquire('A'))).toEqual(OK);
    expect(s.execute(1000, { op: 'INCR', key: 'fence:export' })).toEqual(int(2));
    expect(s.failover(1200)).toEqual(['fence:export', K]);
    expect(s.execute(1200, get)).toEqual(NIL);
    expect(s.execute(1300, acquire('B'))).toEqual(OK);
    // The token counter went back too: B is handed 2 again — a fencing token A already holds.
    expect(s.execute(1300, { op: 'INCR', key: 'fence:export' })).toEqual(int(2));
  });

  it('failover keeps writes older than the lag, with their absolute expiry', () => {
    const s = new LeaseStore({ replicationLagMs: 500 });
    s.execute(1000, acquire('A'));
    expect(s.failover(1500)).toEqual([]);
    expect(s.entries(1500)).toEqual([{ key: K, value: 'A', expiresAtMs: 31000, pttlMs: 29500 }]);
    expect(s.execute(31000, get)).toEqual(NIL);
  });

  it('failover brings back a lock released within the lag window, and reverts a lost extension', () => {
    const s = new LeaseStore({ replicationLagMs: 1000 });
    s.execute(0, acquire('A'));
    s.execute(5000, { op: 'SET', key: 'x', value: '1', pxMs: 100000 });
    s.execute(29500, cae('A', 60000));
    expect(s.execute(29600, cad('A'))).toEqual(int(1));
    // Replica (as of 29000) still has A's lease, expiring at 30000.
    expect(s.failover(29800)).toEqual([K]);
    expect(s.entries(29800)).toEqual([
      { key: K, value: 'A', expiresAtMs: 30000, pttlMs: 200 },
      { key: 'x', value: '1', expiresAtMs: 105000, pttlMs: 75200 },
    ]);
  });

  it('failover with zero lag loses nothing', () => {
    const s = new LeaseStore();
    s.execute(1000, acquire('A'));
    expect(s.failover(1000)).toEqual([]);
    expect(s.execute(1000, get)).toEqual(bulk('A'));
  });

  it('clockJump expires keys whose expiry falls within the jump and shortens the others', () => {
    const s = new LeaseStore();
    s.execute(0, acquire('A')); // expires 30000
    s.execute(0, { op: 'SET', key: 'long', value: '1', pxMs: 60000 });
    s.execute(0, { op: 'SET', key: 'perm', value: '1' });
    expect(s.clockJump(10000, 20000)).toEqual([K]);
    expect(s.execute(10000, acquire('B'))).toEqual(OK); // a second owner while A may still work
    expect(s.entries(10000)).toEqual([
      { key: K, value: 'B', expiresAtMs: 40000, pttlMs: 30000 }, // TTLs set after the jump run normally
      { key: 'long', value: '1', expiresAtMs: 40000, pttlMs: 30000 },
      { key: 'perm', value: '1', expiresAtMs: null, pttlMs: -1 },
    ]);
    expect(s.nextExpiryMs()).toBe(40000);
    expect(s.expireDue(40000)).toEqual(['lease:export', 'long']);
  });

  it('clockJump of 0 only expires keys already due; expiry exactly at the jump end expires', () => {
    const s = new LeaseStore();
    s.execute(0, acquire('A', 100));
    expect(s.clockJump(50, 0)).toEqual([]);
    expect(s.clockJump(50, 50)).toEqual([K]);
  });

  it('a clock jump on the primary does not move the replica\'s clock', () => {
    const s = new LeaseStore({ replicationLagMs: 100 });
    s.execute(0, acquire('A')); // server expiry 30000
    s.clockJump(1000, 5000); // primary now sees it expire at virtual 25000
    expect(s.entries(1000)[0]?.expiresAtMs).toBe(25000);
    expect(s.failover(2000)).toEqual([]);
    expect(s.entries(2000)[0]?.expiresAtMs).toBe(30000); // new primary reads the absolute expiry with its own clock
  });
});

describe('snapshots', () => {
  function busyStore(): LeaseStore {
    const s = new LeaseStore({ replicationLagMs: 300 });
    s.execute(0, acquire('A'));
    s.execute(100, { op: 'INCR', key: 'fence:export' });
    s.clockJump(200, 1000);
    s.execute(900, { op: 'SET', key: 'perm', value: 'with "quotes"' });
    s.execute(1000, { op: 'SET', key: 'late', value: 'x', pxMs: 5000 });
    return s;
  }

  it('round-trips through JSON and behaves identically afterwards', () => {
    const a = busyStore();
    const snap = a.snapshot();
    const b = LeaseStore.fromSnapshot(JSON.parse(JSON.stringify(snap)));
    expect(b.snapshot()).toEqual(snap);
    for (const s of [a, b]) {
      expect(s.execute(1100, acquire('B'))).toEqual(NIL);
    }
    expect(b.entries(1100)).toEqual(a.entries(1100));
    expect(b.failover(1200)).toEqual(a.failover(1200));
    expect(b.snapshot()).toEqual(a.snapshot());
    expect(() => b.execute(1000, get)).toThrow(RangeError); // time is part of the snapshot
  });

  it('is a deep copy: later changes do not leak into it', () => {
    const s = busyStore();
    const snap = s.snapshot();
    const json = JSON.stringify(snap);
    s.execute(2000, { op: 'DEL', keys: ['perm', 'late'] });
    s.execute(2000, { op: 'INCR', key: 'fence:export' });
    expect(JSON.stringify(snap)).toBe(json);
    const r = LeaseStore.fromSnapshot(snap);
    r.execute(2000, { op: 'SET', key: 'perm', value: 'changed' });
    expect(JSON.stringify(snap)).toBe(json);
  });

  it('log stays bounded by the lag window', () => {
    const s = new LeaseStore({ replicationLagMs: 100 });
    for (let t = 0; t < 10000; t += 10) s.execute(t, { op: 'INCR', key: 'n' });
    expect(s.snapshot().pendingWrites.length).toBeLessThanOrEqual(11);
  });

  it('rejects an unknown snapshot version', () => {
    const bad = { ...new LeaseStore().snapshot(), version: 2 } as unknown as Parameters<typeof LeaseStore.fromSnapshot>[0];
    expect(() => LeaseStore.fromSnapshot(bad)).toThrow(TypeError);
  });
});

describe('renderRedis / redisArgv (redis-cli syntax)', () => {
  const cases: [RedisCmd, string][] = [
    [acquire('7f3a'), 'SET lease:export 7f3a NX PX 30000'],
    [{ op: 'SET', key: K, value: '7f3a' }, 'SET lease:export 7f3a'],
    [{ op: 'SET', key: K, value: 'v', xx: true, keepTtl: true }, 'SET lease:export v XX KEEPTTL'],
    [get, 'GET lease:export'],
    [del, 'DEL lease:export'],
    [{ op: 'DEL', keys: ['a', 'b'] }, 'DEL a b'],
    [{ op: 'PEXPIRE', key: K, ms: 30000 }, 'PEXPIRE lease:export 30000'],
    [pttl, 'PTTL lease:export'],
    [{ op: 'INCR', key: 'fence:export' }, 'INCR fence:export'],
    [
      cad('7f3a'),
      'EVAL "if redis.call(\\"get\\",KEYS[1]) == ARGV[1] then return redis.call(\\"del\\",KEYS[1]) else return 0 end" 1 lease:export 7f3a',
    ],
    [
      cae('7f3a'),
      'EVAL "if redis.call(\\"get\\",KEYS[1]) == ARGV[1] then return redis.call(\\"pexpire\\",KEYS[1],ARGV[2]) else return 0 end" 1 lease:export 7f3a 30000',
    ],
    [{ op: 'SET', key: 'a b', value: 'x y' }, 'SET "a b" "x y"'],
    [{ op: 'SET', key: 'k', value: '' }, 'SET k ""'],
    [{ op: 'SET', key: 'k', value: 'say "hi"\\now' }, 'SET k "say \\"hi\\"\\\\now"'],
    [{ op: 'SET', key: 'k', value: "it's" }, 'SET k "it\'s"'],
    [{ op: 'SET', key: 'k', value: 'a\nb\t€' }, 'SET k "a\\nb\\t\\xe2\\x82\\xac"'],
  ];
  it.each(cases)('%j → %s', (cmd, line) => {
    expect(renderRedis(cmd)).toBe(line);
  });

  it('gives the argv a client library sends', () => {
    expect(redisArgv(acquire('7f3a'))).toEqual(['SET', 'lease:export', '7f3a', 'NX', 'PX', '30000']);
    expect(redisArgv(cad('7f3a'))).toEqual(['EVAL', COMPARE_AND_DELETE_SCRIPT, '1', K, '7f3a']);
    expect(redisArgv(cae('7f3a', 15000))).toEqual(['EVAL', COMPARE_AND_EXTEND_SCRIPT, '1', K, '7f3a', '15000']);
    expect(redisArgv({ op: 'DEL', keys: [] })).toEqual(['DEL']);
  });

  it('scripts are the ones from the Redis distributed-locks page', () => {
    expect(COMPARE_AND_DELETE_SCRIPT).toBe('if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end');
    expect(COMPARE_AND_EXTEND_SCRIPT).toBe(
      'if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("pexpire",KEYS[1],ARGV[2]) else return 0 end',
    );
  });
});

describe('renderRedisReply (redis-cli output)', () => {
  const cases: [RedisReply, string][] = [
    [OK, 'OK'],
    [NIL, '(nil)'],
    [int(1), '(integer) 1'],
    [int(-2), '(integer) -2'],
    [bulk('7f3a'), '"7f3a"'],
    [bulk(''), '""'],
    [bulk('a "b" \\c\n\x01€'), '"a \\"b\\" \\\\c\\n\\x01\\xe2\\x82\\xac"'],
    [NOT_INT, '(error) ERR value is not an integer or out of range'],
  ];
  it.each(cases)('%j → %s', (reply, text) => {
    expect(renderRedisReply(reply)).toBe(text);
  });
});

describe('boundaries and messages', () => {
  it('every time-taking method names itself when time goes backwards or is not an integer', () => {
    const s = new LeaseStore();
    s.execute(100, get);
    const back = (method: string) => `LeaseStore.${method}: virtual time went backwards (nowMs 50 < 100 already seen)`;
    expect(() => s.execute(50, get)).toThrow(back('execute'));
    expect(() => s.expireDue(50)).toThrow(back('expireDue'));
    expect(() => s.forceExpire(50, K)).toThrow(back('forceExpire'));
    expect(() => s.clockJump(50, 1)).toThrow(back('clockJump'));
    expect(() => s.failover(50)).toThrow(back('failover'));
    expect(() => s.entries(50)).toThrow(back('entries'));
    expect(() => s.entries(100.5)).toThrow('LeaseStore.entries: nowMs must be an integer number of virtual milliseconds, got 100.5');
    expect(() => s.execute(100.5, get)).toThrow('LeaseStore.execute: nowMs must be an integer number of virtual milliseconds, got 100.5');
    expect(() => s.clockJump(100, 1.5)).toThrow('LeaseStore.clockJump: jumpMs must be an integer >= 0, got 1.5');
    expect(() => new LeaseStore({ replicationLagMs: 0.5 })).toThrow('LeaseStore: replicationLagMs must be an integer >= 0, got 0.5');
    expect(s.clockJump(100, 0)).toEqual([]);
  });

  it('a TTL is checked against 2^63 (not an integer) and against the largest safe expiry time', () => {
    const s = new LeaseStore();
    s.execute(1000, { op: 'SET', key: K, value: 'v' });
    const pexpire = (ms: number) => s.execute(1000, { op: 'PEXPIRE', key: K, ms });
    expect(pexpire(2 ** 63)).toEqual(NOT_INT);
    expect(pexpire(-(2 ** 63))).toEqual(NOT_INT);
    expect(pexpire(1.5)).toEqual(NOT_INT);
    expect(pexpire(Number.MAX_SAFE_INTEGER - 999)).toEqual(error("ERR invalid expire time in 'pexpire' command"));
    expect(pexpire(Number.MAX_SAFE_INTEGER - 1000)).toEqual(int(1));
  });

  it('INCR parses exactly the int64 range, 20 characters at most', () => {
    const incr = (value: string) => replyAfter([{ op: 'SET', key: 'f', value }], { op: 'INCR', key: 'f' });
    const s = new LeaseStore();
    s.execute(0, { op: 'SET', key: 'f', value: '-9223372036854775808' });
    expect(s.execute(0, { op: 'INCR', key: 'f' }).kind).toBe('int');
    expect(s.execute(0, { op: 'GET', key: 'f' })).toEqual(bulk('-9223372036854775807'));
    expect(incr('-9223372036854775809')).toEqual(NOT_INT);
    expect(incr('12345678901234567890')).toEqual(NOT_INT);
    expect(incr('-0')).toEqual(NOT_INT);
    expect(incr('007')).toEqual(NOT_INT);
    expect(incr('0')).toEqual(int(1));
  });

  it('nextExpiryMs is the earliest TTL among several keys, and null once no key has one', () => {
    const s = new LeaseStore();
    expect(s.nextExpiryMs()).toBeNull();
    s.execute(0, { op: 'SET', key: 'b', value: 'v', pxMs: 500 });
    s.execute(0, { op: 'SET', key: 'a', value: 'v', pxMs: 300 });
    s.execute(0, { op: 'SET', key: 'c', value: 'v', pxMs: 400 });
    s.execute(0, { op: 'SET', key: 'p', value: 'v' });
    expect(s.nextExpiryMs()).toBe(300);
    expect(s.expireDue(600)).toEqual(['a', 'b', 'c']);
    expect(s.nextExpiryMs()).toBeNull();
  });

  it('snapshots list keys by name; a fresh store has no pending writes; after a failover the replica is the new primary', () => {
    const fresh = new LeaseStore({ replicationLagMs: 1_000 });
    expect(fresh.snapshot()).toEqual({ version: 1, replicationLagMs: 1_000, lastNowMs: null, serverClockOffsetMs: 0, keys: [], replicaKeys: [], pendingWrites: [] });
    const s = new LeaseStore({ replicationLagMs: 1_000 });
    s.execute(0, { op: 'SET', key: 'z', value: '1' });
    s.execute(0, { op: 'SET', key: 'y', value: '2' });
    s.execute(2_000, { op: 'SET', key: 'x', value: '3' });
    expect(s.snapshot().keys.map((k) => k.key)).toEqual(['x', 'y', 'z']);
    expect(s.snapshot().replicaKeys.map((k) => k.key)).toEqual(['y', 'z']);
    s.execute(2_100, { op: 'SET', key: 'b', value: '4' });
    expect(s.failover(2_500)).toEqual(['b', 'x']);
    const after = s.snapshot();
    expect(after.keys.map((k) => k.key)).toEqual(['y', 'z']);
    expect(after.replicaKeys).toEqual(after.keys);
    expect(after.pendingWrites).toEqual([]);
  });
});

describe('redis-cli quoting of every UTF-8 length and of broken surrogates', () => {
  it.each<[string, string, string]>([
    ['printable ASCII ends', ' ~', '" ~"'],
    ['control and DEL bytes', '\x1f\x7f', '"\\x1f\\x7f"'],
    ['two-byte ends', '\u0080\u07ff', '"\\xc2\\x80\\xdf\\xbf"'],
    ['three-byte ends', '\u0800\uffff', '"\\xe0\\xa0\\x80\\xef\\xbf\\xbf"'],
    ['a surrogate pair (four bytes)', '\u{1F600}', '"\\xf0\\x9f\\x98\\x80"'],
    ['the last code point', '\u{10FFFF}', '"\\xf4\\x8f\\xbf\\xbf"'],
    ['a lone high surrogate at the end', 'a\ud83d', '"a\\xef\\xbf\\xbd"'],
    ['a high surrogate before a non-surrogate', '\ud83dA', '"\\xef\\xbf\\xbdA"'],
    ['a lone low surrogate', '\udfff', '"\\xef\\xbf\\xbd"'],
    ['a low then a high surrogate', '\udc00\ud800', '"\\xef\\xbf\\xbd\\xef\\xbf\\xbd"'],
  ])('%s', (_name, value, shown) => {
    expect(renderRedisReply(bulk(value))).toBe(shown);
    expect(renderRedis({ op: 'SET', key: 'k', value })).toBe(`SET k ${shown}`);
  });

  it('a long argument is quoted the same way every time', () => {
    const long = `${'x'.repeat(45)} "q"`;
    const first = renderRedis({ op: 'SET', key: 'k', value: long });
    expect(first).toBe(`SET k "${'x'.repeat(45)} \\"q\\""`);
    expect(renderRedis({ op: 'SET', key: 'k', value: long })).toBe(first);
  });
});
