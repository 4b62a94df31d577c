/**
 * Each fault kind, applied to a small scenario: what it does to the world and to the worker.
 */
import { runScenario, type RunResult } from '../engine/run';
import { findPreset } from '../presets';
import type { Fault, Scenario } from '../scenario/schema';

const exportBase = findPreset('export-lease-expiry')!.withoutFix;
const withFaults = (s: Scenario, faults: Fault[], over: Partial<Scenario> = {}): Scenario => ({ ...s, ...over, faults });
const events = (r: RunResult, actor: string, prefix: string) => r.events.filter((e) => e.actor === actor && (e.command ?? '').startsWith(prefix));
const last = (r: RunResult) => r.snapshots![r.snapshots!.length - 1]!;

describe('faults', () => {
  it('pause: step timers move by the pause and the worker keeps believing it owns the lease', () => {
    const r = runScenario(withFaults(exportBase, [{ kind: 'pause', worker: 'A', atMs: 3_000, pauseMs: 40_000 }]));
    const upload = events(r, 'A', 'PUT')[0]!;
    expect(upload.atMs).toBe(45_000); // 5 s of work started at 0, paused 40 s at 3 s
    const resume = r.events.find((e) => e.actor === 'A' && e.narration.includes('resumes'))!;
    expect(resume.atMs).toBe(43_000);
    expect(resume.narration).toContain('still believes it owns lease:export');
  });

  it('without a pause nobody overlaps and the lease changes hands normally', () => {
    const r = runScenario(withFaults(exportBase, []));
    expect(r.verdict.held).toBe(true);
    expect(events(r, 'B', 'SET lease:export').at(-1)!.atMs).toBe(25_000);
  });

  it('expireLease: the key is gone at once and a waiter takes it', () => {
    const r = runScenario(withFaults(exportBase, [{ kind: 'expireLease', atMs: 2_000 }]));
    expect(events(r, 'B', 'SET lease:export').at(-1)!).toMatchObject({ atMs: 2_000, reply: 'OK' });
  });

  it('manualDelete: the operator DELs the live owner\'s key', () => {
    const r = runScenario(withFaults(exportBase, [{ kind: 'manualDelete', atMs: 2_500 }]));
    expect(events(r, 'operator', 'DEL lease:export')[0]!.reply).toBe('(integer) 1');
    expect(events(r, 'B', 'SET lease:export').at(-1)!.atMs).toBe(3_000);
  });

  it('crash with restart: the worker retries from its first step with a new owner token', () => {
    const r = runScenario(withFaults(exportBase, [{ kind: 'crash', worker: 'A', atMs: 1_000, restartAfterMs: 500 }], { workers: [exportBase.workers[0]!] }), { captureSnapshots: true });
    const sets = events(r, 'A', 'SET lease:export');
    expect(sets[0]!.command).not.toBe(sets[1]!.command); // a new random owner token
    expect(sets[1]).toMatchObject({ atMs: 1_500, reply: '(nil)' }); // its own old lease holds the key until the TTL runs out
    expect(sets.at(-1)).toMatchObject({ atMs: 30_500, reply: 'OK' }); // retries every second from 1.5 s
    expect(last(r).workers[0]!.beliefs.incarnation).toBe(2);
  });

  it('crash mid-upload aborts the upload', () => {
    const r = runScenario(withFaults(exportBase, [{ kind: 'crash', worker: 'A', atMs: 10_000, restartAfterMs: null }], { workers: [exportBase.workers[0]!] }));
    expect(r.events.some((e) => e.narration.includes('unfinished upload is discarded'))).toBe(true);
  });

  it('partition: Redis commands time out while the database and destination stay reachable', () => {
    const renew = findPreset('renew-partition')!.withoutFix;
    const r = runScenario(renew);
    const timeouts = r.events.filter((e) => e.actor === 'A' && e.reply === '(no reply: connection timed out)');
    expect(timeouts.length).toBeGreaterThan(0);
    expect(timeouts.every((e) => e.atMs >= 4_000 && e.atMs < 34_000)).toBe(true);
    expect(events(r, 'A', 'PUT').length).toBeGreaterThan(0);
  });

  it('jobError: the error path rolls back and returns the connection; the session lock leaks unless unlocked in finally', () => {
    const pool = findPreset('session-lock-pool')!.withoutFix;
    expect(runScenario(pool).verdict.held).toBe(false);
    const fixedByFinally = runScenario({ ...pool, mechanism: { ...pool.mechanism, onError: 'unlockInFinally' } });
    expect(events(fixedByFinally, 'A', 'SELECT pg_advisory_unlock(42)')[0]!.reply).toBe('t');
    expect(fixedByFinally.verdict.violations.map((v) => v.invariant)).not.toContain('boundedWait');
    const discarded = runScenario({ ...pool, mechanism: { ...pool.mechanism, onError: 'discardConnection' } });
    expect(discarded.events.some((e) => e.command === 'connection.destroy()')).toBe(true);
    expect(discarded.verdict.violations.map((v) => v.invariant)).not.toContain('boundedWait');
  });

  it('adminBypass: the admin writes without the lock', () => {
    const r = runScenario(findPreset('admin-bypass')!.withoutFix);
    const admin = events(r, 'admin', 'INSERT INTO invoices')[0]!;
    expect(admin.atMs).toBe(150);
    expect(r.events.some((e) => e.actor === 'admin' && (e.command ?? '').includes('pg_advisory'))).toBe(false);
  });

  it('failover: a lock written within the replication lag is lost and a second worker takes it', () => {
    const s = withFaults(exportBase, [{ kind: 'failover', atMs: 500 }], { lease: { ...exportBase.lease, replicationLagMs: 1_000 } });
    const r = runScenario(s);
    expect(r.events.some((e) => e.kind === 'fault' && e.narration.includes('lost: lease:export'))).toBe(true);
    expect(events(r, 'B', 'SET lease:export')[0]!).toMatchObject({ atMs: 1_000, reply: 'OK' });
  });

  it('clockJump: the lease store\'s clock jumps and the lease expires early', () => {
    const r = runScenario(withFaults(exportBase, [{ kind: 'clockJump', atMs: 2_000, jumpMs: 40_000 }]));
    expect(r.events.some((e) => e.kind === 'fault' && e.narration.endsWith(': lease:export expires early.'))).toBe(true);
    expect(events(r, 'B', 'SET lease:export').at(-1)!).toMatchObject({ atMs: 2_000, reply: 'OK' });
  });

  it('a step fault fires once, even when the worker restarts and passes the step again', () => {
    const r = runScenario(findPreset('crash-after-effect')!.withoutFix);
    expect(r.events.filter((e) => e.kind === 'fault' && e.narration.includes('crashes'))).toHaveLength(1);
  });

  it('a fault on a worker that has finished does nothing but is narrated', () => {
    const r = runScenario(withFaults(exportBase, [{ kind: 'pause', worker: 'A', atMs: 80_000, pauseMs: 1_000 }]));
    expect(r.events.some((e) => e.narration.includes('it is not running'))).toBe(true);
  });
});

describe('a failover says what the promoted replica lost, key by key', () => {
  // Redis replication is asynchronous: the replica may miss the last writes (Redis docs, "Redis replication").
  it('a counter the replica saw at an older value is back to it, not lost; a lease it never saw is gone, with its owner', () => {
    const r = runScenario(findPreset('failover-fence')!.withoutFix);
    const fault = r.events.find((e) => e.kind === 'fault' && e.narration.includes('Redis primary fails'))!;
    // The INCR that gave A 33 never reached the replica: the counter is 32 there (B's INCR then gives 33 again).
    expect(fault.narration).toContain('fence:export is back to 32 (was 33)');
    expect(fault.narration).not.toMatch(/lost: fence:export[,.]/);
    expect(fault.narration).toMatch(/lease:export is gone \(it held A's owner token \S+\)/);
    expect(r.events.find((e) => e.actor === 'B' && e.command === 'INCR fence:export')?.reply).toBe('(integer) 33');
  });
});
