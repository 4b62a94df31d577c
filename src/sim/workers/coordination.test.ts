/** Acquire timeouts and the unsafe `finally { DEL }` cleanup (semantics.md, "Real failures the model must be able to express"). */
import { runScenario } from '../engine/run';
import { findPreset } from '../presets';
import type { Scenario } from '../scenario/schema';

const by = (r: ReturnType<typeof runScenario>, actor: string, prefix: string) => r.events.filter((e) => e.actor === actor && (e.command ?? '').startsWith(prefix));

describe('acquire timeouts', () => {
  it('lock_timeout cancels a waiting pg_advisory_lock with 55P03 and the job fails', () => {
    const base = findPreset('session-lock-pool')!.withoutFix;
    const r = runScenario({ ...base, mechanism: { ...base.mechanism, acquireTimeoutMs: 2_000 } });
    const waits = by(r, 'C', 'SELECT pg_advisory_lock(42)');
    expect(waits[0]!.reply).toMatch(/^waits/);
    expect(waits[1]).toMatchObject({ atMs: 2_200, reply: expect.stringContaining('55P03') });
    expect(waits[1]!.narration).toContain('lock_timeout (2 s) cancels');
    expect(r.events.some((e) => e.actor === 'C' && e.narration.includes("C's job fails"))).toBe(true);
    // The leaked lock is still held by c1's session: the timeout only stopped C from waiting for ever.
    expect(r.verdict.violations.map((v) => v.invariant)).not.toContain('boundedWait');
  });

  it('a lease waiter gives up after acquireTimeoutMs instead of retrying for ever', () => {
    const base = findPreset('export-lease-expiry')!.withoutFix;
    const r = runScenario({ ...base, faults: [], mechanism: { ...base.mechanism, acquireTimeoutMs: 5_000 } });
    const tries = by(r, 'B', 'SET lease:export');
    expect(tries.every((e) => e.reply === '(nil)')).toBe(true);
    expect(tries.at(-1)!.atMs).toBeLessThanOrEqual(6_000);
    expect(r.events.some((e) => e.actor === 'B' && e.narration.includes('gave up waiting for lease:export after 5 s'))).toBe(true);
  });
});

describe('finally { DEL } after failing to acquire', () => {
  const scenario = (release: 'del' | 'compare-and-delete'): Scenario => {
    const base = findPreset('export-lease-expiry')!.withoutFix;
    return { ...base, faults: [], mechanism: { ...base.mechanism, release, acquireTimeoutMs: 5_000, releaseInFinally: true } };
  };

  it('with plain DEL, the worker that never got the lease deletes the owner\'s lease in its cleanup', () => {
    const r = runScenario(scenario('del'));
    const del = by(r, 'B', 'DEL lease:export')[0]!;
    expect(del.reply).toBe('(integer) 1');
    expect(del.narration).toContain("deletes A's lease");
  });

  it('with compare-and-delete the same cleanup deletes nothing', () => {
    const r = runScenario(scenario('compare-and-delete'));
    expect(by(r, 'B', 'EVAL')[0]!.reply).toBe('(integer) 0');
  });
});

describe('beliefs after an error aborts the transaction', () => {
  const beliefsAt = (r: ReturnType<typeof runScenario>, id: string) => r.events.find((e) => e.id === id)!.beliefs!;

  it('after 40P01 the victim no longer believes it holds its transaction-scoped advisory lock (PostgreSQL released it at the error)', () => {
    const r = runScenario(findPreset('lock-order-deadlock')!.withoutFix);
    const deadlock = r.events.find((e) => e.actor === 'A' && (e.reply ?? '').includes('40P01'))!;
    expect(beliefsAt(r, deadlock.id).holdsLock).toBe(false);
    // It is still in its (aborted) transaction block until its ROLLBACK.
    expect(beliefsAt(r, deadlock.id).inTransaction).toBe(true);
    // What it no longer believes it holds, the server handed to B at the same instant.
    const granted = r.events.find((e) => e.actor === 'B' && e.atMs === deadlock.atMs && e.reply === '(void)')!;
    expect(beliefsAt(r, granted.id).holdsLock).toBe(true);
  });

  it('after 55P03 a session-level advisory lock the session still holds is still believed held', () => {
    const base = findPreset('lock-order-deadlock')!.withoutFix;
    const r = runScenario({ ...base, mechanism: { ...base.mechanism, lock: 'advisory-session', acquireTimeoutMs: 300 } });
    const cancelled = r.events.find((e) => (e.reply ?? '').includes('55P03'))!;
    expect(cancelled).toBeDefined();
    expect(beliefsAt(r, cancelled.id).holdsLock).toBe(true);
  });
});
