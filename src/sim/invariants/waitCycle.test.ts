import { findPreset } from '../presets';
import { runScenario } from '../engine/run';
import type { Scenario } from '../scenario/schema';
import { appWaitCycle } from '../testing/appWaitCycle';
import { checkTrace } from './index';

/**
 * A waits for B's Redis lease while holding the row lock B's `SELECT … FOR UPDATE` waits for: a
 * cycle through the application that PostgreSQL's deadlock check cannot see.
 */
const appCycle = appWaitCycle;

describe('noWaitCycle (liveness: a wait cycle through the application hangs)', () => {
  it('reports the cycle A→B→A with its edges as data, citing where each wait began; PostgreSQL never breaks it', () => {
    const r = runScenario(appCycle);
    expect(r.verdict.held).toBe(false);
    const [f, ...rest] = r.verdict.violations;
    expect(rest).toEqual([]);
    expect(f!.invariant).toBe('noWaitCycle');
    expect(f!.message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for row lock on accounts row id=1 held by A (session c1), in the database); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
    expect(f!.cycle).toEqual([
      { from: 'A', to: 'B', on: 'lease', what: 'B\'s lease lease:export' },
      { from: 'B', to: 'A', on: 'db', what: 'row lock on accounts row id=1 held by A (session c1), in the database' },
    ]);
    const cited = f!.eventIds.map((id) => r.events.find((e) => e.id === id)!);
    expect(cited.map((e) => `${e.atMs} ${e.actor} ${e.reply}`)).toEqual(['10 B waits (row lock on accounts row id=1 held by session c1)', '100 A (nil)']);
    // B's deadlock_timeout fired at 1,010 ms and found no cycle inside the database: no 40P01, A still retries at the end.
    expect(r.events.some((e) => (e.reply ?? '').includes('40P01'))).toBe(false);
    expect(r.events.at(-1)!.reply).toBe('(nil)');
    expect(Object.isFrozen(f!.cycle)).toBe(true);
  });

  it('is found again from the stored trace (event data only)', () => {
    const r = runScenario(appCycle);
    expect(checkTrace(appCycle, r.events).filter((f) => f.invariant === 'noWaitCycle')).toEqual(r.verdict.violations);
  });

  it('leaves a cycle inside the database to the deadlock detector', () => {
    const r = runScenario(findPreset('lock-order-deadlock')!.withoutFix);
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['boundedWait', 'boundedWait']);
  });

  it('a lease wait ends when its holder frees the key: a later database wait for the waiter is no cycle', () => {
    // B holds the lease 10-150 ms; A's SET NX at 100 ms is refused. B releases it at 150 ms and then waits
    // in the database for A's row lock; A's next try (1,100 ms) takes the free key and commits, and B goes on.
    const [a, b] = appCycle.workers;
    const s: Scenario = { ...appCycle, workers: [a!, { ...b!, steps: [{ do: 'acquire' }, { do: 'work', ms: 140 }, { do: 'release' }, { do: 'begin' }, { do: 'read' }, { do: 'effect', ms: 0 }, { do: 'commit' }] }] };
    const r = runScenario(s);
    expect(r.events.filter((e) => e.actor === 'A').map((e) => `${e.atMs} ${e.reply}`)).toContain('100 (nil)');
    expect(r.events.find((e) => e.actor === 'B' && e.data?.t === 'wait')!.atMs).toBe(150);
    expect(r.events.filter((e) => e.reply === 'COMMIT').map((e) => e.actor)).toEqual(['A', 'B']);
    // Before, A's refused SET kept pointing at B after B's release: 'stuck: wait cycle A→B→A', over a run that finished.
    expect(r.verdict.violations).toEqual([]);
    expect(checkTrace(s, r.events)).toEqual([]);
    // With etcd the same: a failed acquire transaction stops waiting for the holder once the key is freed.
    const etcd = runScenario({ ...s, lockService: { kind: 'etcd' }, lease: { ...s.lease, ttlMs: 10_000 } });
    expect(etcd.verdict.violations.filter((v) => v.invariant === 'noWaitCycle')).toEqual([]);
  });

  it('the same when an operator deletes the key or a forced expiry removes it, and the holder then waits for the waiter', () => {
    const [a, b] = appCycle.workers;
    const bHolds: Scenario['workers'][number] = { ...b!, steps: [{ do: 'acquire' }, { do: 'work', ms: 140 }, { do: 'begin' }, { do: 'read' }, { do: 'effect', ms: 0 }, { do: 'commit' }, { do: 'release' }] };
    for (const kind of ['manualDelete', 'expireLease'] as const) {
      const s: Scenario = { ...appCycle, workers: [a!, bHolds], faults: [{ kind, atMs: 120 }] };
      const r = runScenario(s);
      expect(r.events.filter((e) => e.actor === 'A').map((e) => `${e.atMs} ${e.reply}`), kind).toContain('100 (nil)');
      expect(r.events.filter((e) => e.reply === 'COMMIT').map((e) => e.actor), kind).toEqual(['A', 'B']);
      expect(r.verdict.violations.filter((v) => v.invariant === 'noWaitCycle'), kind).toEqual([]);
    }
  });

  it('a lease wait behind a worker that is not waiting is no cycle', () => {
    const a = appCycle.workers[0]!;
    const s: Scenario = { ...appCycle, workers: [{ ...a, steps: a.steps.map((st) => (st.do === 'effect' ? { do: 'effect', ms: 500 } : st)) }, { ...appCycle.workers[1]!, startMs: 200 }] };
    // A takes the lease at 100 ms (B has not started) and holds it until 600 ms; B waits for A's lease from 200 ms: a chain, not a cycle.
    const r = runScenario(s);
    expect(r.events.filter((e) => e.actor === 'B' && e.reply === '(nil)').length).toBeGreaterThan(0);
    expect(r.verdict.violations.filter((v) => v.invariant === 'noWaitCycle')).toEqual([]);
  });

  it('reports a cycle once even when a timeout ends it later', () => {
    const s: Scenario = { ...appCycle, mechanism: { ...appCycle.mechanism, acquireTimeoutMs: 3_000 } };
    const r = runScenario(s);
    expect(r.verdict.violations.filter((v) => v.invariant === 'noWaitCycle')).toHaveLength(1);
    expect(r.events.some((e) => e.kind === 'outcome' && e.actor === 'A' && e.narration.includes('gave up'))).toBe(true);
  });

  it('behind PgBouncer names the workers: the blocking backend s1 is mapped to A, whose client connection is linked to it (transaction and session mode)', () => {
    for (const mode of ['transaction', 'session'] as const) {
      const s: Scenario = { ...appCycle, database: { poolSize: 2, pooler: { mode, serverConnections: 2 } } };
      const r = runScenario(s);
      const [f, ...rest] = r.verdict.violations;
      expect(rest).toEqual([]);
      expect(f!.message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for row lock on accounts row id=1 held by A (session s1), in the database); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
      // The mapping comes from event data (the SQL calls' client and unlinked): the stored trace gives it again.
      expect(checkTrace(s, r.events).filter((x) => x.invariant === 'noWaitCycle')).toEqual(r.verdict.violations);
    }
  });

  it('behind PgBouncer in transaction mode, a backend returned to the pool between transactions is nobody\'s: a wait for its leaked session lock is no cycle', () => {
    const r = runScenario(findPreset('pooler-session-lock')!.withoutFix);
    expect(r.verdict.violations.filter((v) => v.invariant === 'noWaitCycle')).toEqual([]);
    const calls = r.events.filter((e) => e.call?.resource === 'db').map((e) => e.call as { caller: string; client?: string; unlinked?: true });
    // Every statement says which client it came from; an autocommit statement hands its backend back.
    expect(calls.every((c) => c.client !== undefined)).toBe(true);
    expect(calls.filter((c) => c.unlinked === true).length).toBeGreaterThan(0);
  });
});

